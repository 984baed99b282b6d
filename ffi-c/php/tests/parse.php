<?php
/**
 * check.py driver for the PHP class (shared/conformance, --cmd contract):
 *
 *   php parse.php --config CONFIG.json [--prefill FILE] --chunk N --json INPUT_FILE
 *
 * Feeds the input N bytes at a time through TokenSieve::feed() (or, with --generator,
 * through TokenSieve::stream()) and prints one JSON event per line: the PHP arrays as they
 * are, except that 'input' is printed as its original text (numbers as written) and
 * error 'raw' bytes as text with invalid UTF-8 replaced the way Rust's from_utf8_lossy does.
 */

declare(strict_types=1);

require __DIR__ . '/../autoload.php';
require __DIR__ . '/lines.php';

use TokenSieve\TokenSieve;

$args = array_slice($argv, 1);
$opts = ['--chunk' => '0'];
$generator = false;
$file = null;
for ($i = 0; $i < count($args); $i++) {
    $a = $args[$i];
    if ($a === '--json') {
        continue;
    } elseif ($a === '--generator') {
        $generator = true;
    } elseif (in_array($a, ['--config', '--prefill', '--chunk'], true)) {
        $opts[$a] = $args[++$i];
    } else {
        $file = $a;
    }
}
$config = file_get_contents($opts['--config']);
$input = file_get_contents($file);
$chunk = max(1, (int) $opts['--chunk']);
try {
    $sieve = new TokenSieve($config);
    if (isset($opts['--prefill'])) {
        $sieve->prefill(file_get_contents($opts['--prefill']));
    }
    $pieces = $input === '' ? [] : str_split($input, $chunk);
    if ($generator) {
        foreach ($sieve->stream($pieces) as $e) {
            echo line($e);
        }
    } else {
        foreach ($pieces as $piece) {
            foreach ($sieve->feed($piece) as $e) {
                echo line($e);
            }
        }
        foreach ($sieve->finish() as $e) {
            echo line($e);
        }
    }
} catch (\Throwable $t) {
    fwrite(STDERR, get_class($t) . ': ' . $t->getMessage() . "\n");
    exit(3);
}
