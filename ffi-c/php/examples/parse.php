<?php
/**
 * Model text in, what a host does with it out: visible text as it streams, thinking marked,
 * tool calls with their decoded input. Reads standard input in small pieces (as tokens arrive).
 *
 *     php ffi-c/php/examples/parse.php hermes < examples/hermes.txt
 *     php ffi-c/php/examples/parse.php anthropic-xml examples/tools.json < examples/anthropic-xml.txt
 *
 * In a Composer project: require 'vendor/autoload.php' instead of autoload.php.
 */

declare(strict_types=1);

require __DIR__ . '/../autoload.php';

use TokenSieve\TokenSieve;

$dialect = $argv[1] ?? 'hermes';
$config = ['dialect' => $dialect];
if (isset($argv[2])) {
    $config['tools'] = json_decode((string) file_get_contents($argv[2]), true, 512, JSON_THROW_ON_ERROR);
}

/** Standard input, 16 bytes at a time (a model delivers a few bytes per token). */
$pieces = (static function (): Generator {
    while (!feof(STDIN) && ($piece = fread(STDIN, 16)) !== false && $piece !== '') {
        yield $piece;
    }
})();

try {
    foreach ((new TokenSieve($config))->stream($pieces) as $event) {
        if ($event['event'] === 'chunk' && $event['visible']) {
            echo $event['text'];
        } elseif ($event['event'] === 'block_start' && $event['type'] === 'thinking') {
            echo '[thinking…]';
        } elseif ($event['event'] === 'block_complete' && $event['type'] === 'tool_call') {
            echo isset($event['error'])
                ? "\n! a malformed call ({$event['error']['reason']})\n"
                : "\n→ {$event['tool_name']}({$event['input_json']})\n";
        }
    }
    echo "\n";
} catch (TokenSieve\Exception $e) {
    fwrite(STDERR, 'tokensieve: ' . $e->getMessage() . "\n");
    exit(1);
}
