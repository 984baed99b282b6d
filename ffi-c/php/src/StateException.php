<?php

declare(strict_types=1);

namespace TokenSieve;

/**
 * A call in the wrong state: feed after finish, prefill after feed, a destroyed or cloned
 * object.
 */
class StateException extends Exception
{
}
