<?php

declare(strict_types=1);

namespace TokenSieve;

/**
 * Every error this package raises is a TokenSieve\Exception: a rejected config
 * (ConfigException), a call in the wrong state (StateException), a library that cannot be
 * found or loaded (LibraryException). The code is the C library's status when there is one
 * (TOKENSIEVE_E_*: -2 state, -3 config, …), else 0.
 */
class Exception extends \RuntimeException
{
}
