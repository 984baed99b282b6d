<?php

declare(strict_types=1);

namespace TokenSieve;

/** The config was rejected (the message names the key), or cannot be written as JSON. */
class ConfigException extends Exception
{
}
