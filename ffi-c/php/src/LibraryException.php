<?php

declare(strict_types=1);

namespace TokenSieve;

/**
 * libtokensieve or its PHP header cannot be found or loaded (the message lists every place
 * that was tried), does not match this package's ABI, or FFI is disabled.
 */
class LibraryException extends Exception
{
}
