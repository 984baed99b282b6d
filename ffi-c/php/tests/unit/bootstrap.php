<?php
/** PHPUnit bootstrap: the package's classes through Composer when installed, else autoload.php. */

declare(strict_types=1);

$composer = __DIR__ . '/../../vendor/autoload.php';
require is_file($composer) ? $composer : __DIR__ . '/../../autoload.php';
require_once __DIR__ . '/MemoryStream.php';
