<?php
/** Per-event cost of the PHP binding on the transcript of bench/bench_c.c.
 *  php ffi-c/php/bench.php [CHUNK] [REPEAT]   (CHUNK 0: the whole input in one feed) */
declare(strict_types=1);
require __DIR__ . '/autoload.php';
use TokenSieve\TokenSieve;

$chunk = (int) ($argv[1] ?? 16);
$repeat = (int) ($argv[2] ?? 4000);
$unit = "Sure, here is the plan for today.\n<thinking>Step one, then step two; check the weather.</thinking>\n"
    . "Calling the tool now.<function_calls><invoke name=\"get_weather\"><parameter name=\"city\">Paris</parameter>"
    . "<parameter name=\"days\">3</parameter></invoke></function_calls>\n";
$input = str_repeat($unit, $repeat);
$pieces = $chunk > 0 ? str_split($input, $chunk) : [$input];
$config = ['dialect' => 'anthropic-xml', 'tools' => [['name' => 'get_weather',
    'schema' => ['properties' => ['city' => ['type' => 'string'], 'days' => ['type' => 'integer']]]]]];
foreach ([false, true] as $acc) {
    $sieve = new TokenSieve($config, $acc);
    $best = INF;
    $events = 0;
    for ($round = 0; $round < 3; $round++) {
        $sieve->reset();
        $t0 = hrtime(true);
        $n = 0;
        foreach ($pieces as $p) {
            $n += count($sieve->feed($p));
        }
        $n += count($sieve->finish());
        $best = min($best, (hrtime(true) - $t0) / 1e9);
        $events = $n;
    }
    printf("PHP    %-26s chunk %4s: %8d events, %6.1f ns/event, %6.1f MB/s\n",
        $acc ? 'feed() arrays + accumulate' : 'feed() arrays', $chunk ?: 'all', $events,
        $best * 1e9 / $events, strlen($input) / $best / 1e6);
}
