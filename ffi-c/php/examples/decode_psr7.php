<?php
/**
 * A provider's streaming HTTP body through TokenSieve\Decoder::stream(), given as a PSR-7
 * StreamInterface: what $response->getBody() of a PSR-18 client (Guzzle, Symfony's
 * Psr18Client, …) returns when the request asks for a streamed response. Here the body is a
 * file or standard input behind a minimal stream class with the two methods stream() uses.
 *
 *     php ffi-c/php/examples/decode_psr7.php openai-chat conformance/providers/openai-chat/004-one-tool-call.sse
 *
 * With Guzzle:
 *     $response = $client->post($url, ['json' => $request, 'stream' => true]);
 *     foreach ($decoder->stream($response->getBody()) as $event) { … }
 */

declare(strict_types=1);

require __DIR__ . '/../autoload.php';

use TokenSieve\Decoder;

/** The part of Psr\Http\Message\StreamInterface that Decoder::stream() calls. */
final class ResourceBody
{
    /** @param resource $handle */
    public function __construct(private $handle)
    {
    }

    public function eof(): bool
    {
        return feof($this->handle);
    }

    public function read(int $length): string
    {
        return (string) fread($this->handle, $length);
    }
}

$provider = $argv[1] ?? 'openai-chat';
$handle = isset($argv[2]) ? fopen($argv[2], 'rb') : STDIN;
if ($handle === false) {
    exit(1);
}
$status = 0;
try {
    $decoder = new Decoder(['provider' => $provider]);
    foreach ($decoder->stream(new ResourceBody($handle), 1024) as $event) {
        match ($event['event']) {
            'chunk' => $event['visible'] ? print($event['text']) : null,
            'block_complete' => $event['type'] === 'tool_call'
                ? print("\n→ " . ($event['tool_name'] ?? '?') . '(' . ($event['input_json'] ?? '') . ")\n") : null,
            'finish' => print("\n[finish: {$event['reason']}"
                . (isset($event['usage']) ? ', ' . json_encode($event['usage']) : '') . "]\n"),
            'error' => [$status = 1, fwrite(STDERR, "\nprovider error: {$event['message']}\n")],
            default => null,
        };
    }
} catch (TokenSieve\Exception $e) {
    fwrite(STDERR, 'tokensieve: ' . $e->getMessage() . "\n");
    exit(1);
}
exit($status);
