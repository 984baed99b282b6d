<?php
/**
 * The package without Composer: registers a PSR-4 autoloader for TokenSieve\ → src/.
 * With Composer, vendor/autoload.php does this (composer.json's autoload).
 *
 *     require '/path/to/tokensieve/ffi-c/php/autoload.php';
 *     $sieve = new TokenSieve\TokenSieve(['dialect' => 'hermes']);
 */

declare(strict_types=1);

spl_autoload_register(static function (string $class): void {
    if (str_starts_with($class, 'TokenSieve\\')) {
        $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, 11)) . '.php';
        if (is_file($file)) {
            require $file;
        }
    }
});
