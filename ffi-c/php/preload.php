<?php
/**
 * Preloading for php-fpm / Apache mod_php, where ffi.enable=preload (PHP's default) refuses
 * FFI::cdef in requests. Two ways; README.md ("PHP under php-fpm or Apache") has the details.
 *
 * A. The server's master does not run as root (no opcache.preload_user):
 *
 *     opcache.enable=1
 *     opcache.preload=/path/to/vendor/tokensieve/tokensieve/preload.php
 *     ffi.enable=preload
 *
 *    This script compiles the package's classes into opcache and declares the C functions in
 *    the FFI scope "tokensieve" (FFI::load); TokenSieve\Library::load() uses that scope.
 *
 * B. The master runs as root (php-fpm usually does; opcache.preload_user=www-data), where
 *    PHP refuses FFI::load during preloading: write the declarations once,
 *
 *     php /path/to/vendor/tokensieve/tokensieve/preload.php --ffi-header /etc/php/tokensieve.h
 *
 *    (the library as TokenSieve\Library finds it now: TOKENSIEVE_LIB, the package's lib/, the
 *    system path; the header carries its absolute path) and set, next to A's lines,
 *
 *     ffi.preload=/etc/php/tokensieve.h
 *     opcache.preload_user=www-data
 *
 *    This script then only checks the scope and compiles the classes.
 *
 * A failure here stops PHP from starting, with the message on stderr / in the error log,
 * rather than failing on the first request.
 */

declare(strict_types=1);

require_once __DIR__ . '/autoload.php';

if (PHP_SAPI === 'cli' && realpath($_SERVER['SCRIPT_FILENAME'] ?? '') === __FILE__) {
    $argv = $_SERVER['argv'] ?? [];
    if (($argv[1] ?? '') !== '--ffi-header' || !isset($argv[2])) {
        fwrite(STDERR, "usage: php preload.php --ffi-header FILE [LIBRARY]\n"
            . "  writes the header for ffi.preload (FFI_SCOPE \"tokensieve\", FFI_LIB the library)\n");
        exit(2);
    }
    try {
        $text = TokenSieve\Library::ffiHeader($argv[3] ?? null);
    } catch (TokenSieve\Exception $e) {
        fwrite(STDERR, $e->getMessage() . "\n");
        exit(1);
    }
    if (file_put_contents($argv[2], $text) === false) {
        exit(1);
    }
    fwrite(STDERR, "wrote {$argv[2]}: set ffi.preload={$argv[2]}\n");
    exit(0);
}

// The autoloader first: a class file may use a trait whose file sorts after it.
require_once __DIR__ . '/autoload.php';
foreach (glob(__DIR__ . '/src/*.php') ?: [] as $file) {
    require_once $file;
}
TokenSieve\Library::preload();
