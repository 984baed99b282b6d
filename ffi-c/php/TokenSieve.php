<?php
/**
 * Kept for `require 'ffi-c/php/TokenSieve.php'`: the classes now live in src/ (PSR-4,
 * namespace TokenSieve\, composer.json); this file registers their autoloader. Prefer
 * Composer's vendor/autoload.php, or autoload.php next to this file.
 */

declare(strict_types=1);

require_once __DIR__ . '/autoload.php';
