<?php
/**
 * check.py driver for TokenSieve\Decoder (provider vectors, --cmd contract):
 *
 *   php decode.php --config CONFIG.json --chunk N --json BODY_FILE
 *   php decode.php --supported PROVIDER     exit 0 when the library decodes PROVIDER
 *
 * Feeds the body N bytes at a time through Decoder::feed() (or, with --generator, through
 * Decoder::stream() over the reads, or --psr7: stream() over a stream object with eof() and
 * read(N), the shape of a PSR-7 body) and prints one JSON event per line (lines.php).
 */

declare(strict_types=1);

require __DIR__ . '/../autoload.php';
require __DIR__ . '/lines.php';

use TokenSieve\Decoder;

/** A PSR-7-shaped body over a string (eof/read only, what Decoder::stream() uses). */
final class StringBody
{
    private int $at = 0;

    public function __construct(private string $bytes)
    {
    }

    public function eof(): bool
    {
        return $this->at >= \strlen($this->bytes);
    }

    public function read(int $length): string
    {
        $r = substr($this->bytes, $this->at, $length);
        $this->at += \strlen($r);
        return $r;
    }
}

$args = array_slice($argv, 1);
$opts = ['--chunk' => '0'];
$mode = 'feed';
$file = null;
for ($i = 0; $i < count($args); $i++) {
    $a = $args[$i];
    if ($a === '--supported') {
        exit(Decoder::supported($args[$i + 1]) ? 0 : 1);
    } elseif ($a === '--json') {
        continue;
    } elseif ($a === '--generator' || $a === '--psr7') {
        $mode = substr($a, 2);
    } elseif (in_array($a, ['--config', '--chunk'], true)) {
        $opts[$a] = $args[++$i];
    } else {
        $file = $a;
    }
}
$config = file_get_contents($opts['--config']);
$body = file_get_contents($file);
$chunk = (int) $opts['--chunk'];
$chunk = $chunk > 0 ? $chunk : max(1, strlen($body));
try {
    $decoder = new Decoder($config);
    $reads = $body === '' ? [] : str_split($body, $chunk);
    if ($mode === 'generator') {
        foreach ($decoder->stream($reads) as $e) {
            echo line($e);
        }
    } elseif ($mode === 'psr7') {
        foreach ($decoder->stream(new StringBody($body), $chunk) as $e) {
            echo line($e);
        }
    } else {
        foreach ($reads as $read) {
            foreach ($decoder->feed($read) as $e) {
                echo line($e);
            }
        }
        foreach ($decoder->finish() as $e) {
            echo line($e);
        }
    }
} catch (\Throwable $t) {
    fwrite(STDERR, get_class($t) . ': ' . $t->getMessage() . "\n");
    exit(3);
}
