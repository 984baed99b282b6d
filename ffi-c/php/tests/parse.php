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

require __DIR__ . '/../TokenSieve.php';

use TokenSieve\TokenSieve;

/** Invalid UTF-8 → U+FFFD per maximal invalid subpart (Unicode's recommendation, as Rust). */
function lossy(string $s): string
{
    if (preg_match('//u', $s)) {
        return $s;
    }
    $out = '';
    $n = strlen($s);
    for ($i = 0; $i < $n;) {
        $b = ord($s[$i]);
        if ($b < 0x80) {
            $out .= $s[$i++];
            continue;
        }
        [$need, $lo, $hi] = match (true) {
            $b >= 0xC2 && $b <= 0xDF => [1, 0x80, 0xBF],
            $b === 0xE0 => [2, 0xA0, 0xBF],
            ($b >= 0xE1 && $b <= 0xEC) || $b === 0xEE || $b === 0xEF => [2, 0x80, 0xBF],
            $b === 0xED => [2, 0x80, 0x9F],
            $b === 0xF0 => [3, 0x90, 0xBF],
            $b >= 0xF1 && $b <= 0xF3 => [3, 0x80, 0xBF],
            $b === 0xF4 => [3, 0x80, 0x8F],
            default => [0, 0, 0],
        };
        $k = 1;
        for (; $k <= $need; $k++) {
            if ($i + $k >= $n) {
                break;
            }
            $c = ord($s[$i + $k]);
            if ($k === 1 ? ($c < $lo || $c > $hi) : ($c < 0x80 || $c > 0xBF)) {
                break;
            }
        }
        if ($need > 0 && $k > $need) {
            $out .= substr($s, $i, $need + 1);
            $i += $need + 1;
        } else {
            $out .= "\u{FFFD}";
            $i += $k;
        }
    }
    return $out;
}

function line(array $e): string
{
    $input = null;
    if (isset($e['input_json'])) {
        $input = $e['input_json'];
        unset($e['input'], $e['input_json']);
    }
    if (isset($e['error'])) {
        $e['error'] = ['reason' => $e['error']['reason'], 'raw' => lossy($e['error']['raw'])];
    }
    $json = json_encode($e, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
    if ($input !== null) {
        $json = substr($json, 0, -1) . ',"input":' . $input . '}';
    }
    return $json . "\n";
}

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
