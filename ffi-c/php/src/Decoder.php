<?php

declare(strict_types=1);

namespace TokenSieve;

/**
 * Decodes a provider's streaming response body (SSE, a streamed JSON array, AWS event stream)
 * into events: docs/providers.md.
 *
 *     $decoder = new Decoder(['provider' => 'openai-chat', 'text_dialect' => 'hermes',
 *                             'tools' => [['name' => 'get_weather', 'schema' => $schema]]]);
 *     foreach ($decoder->stream($response->getBody()) as $event) {
 *         match ($event['event']) {
 *             'chunk' => $event['visible'] ? print($event['text']) : null,
 *             'finish' => $usage = $event['usage'] ?? null,
 *             'error' => throw new RuntimeException($event['message']),
 *             default => null,
 *         };
 *     }
 *
 * Events are TokenSieve's arrays plus 'finish' and 'error' (see the top of this file).
 */
final class Decoder
{
    private const PROVIDERS = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'bedrock', 'ollama'];

    private \FFI $ffi;
    /** @var \FFI\CData tokensieve_decoder* */
    private \FFI\CData $decoder;
    /** @var \FFI\CData tokensieve_event */
    private \FFI\CData $event;
    /** @var \FFI\CData tokensieve_event* */
    private \FFI\CData $eventPtr;
    private bool $freed = false;

    /**
     * @param array<string,mixed>|string $config {provider, text_dialect, max_frame_bytes, and
     *        every parser key but dialect (tools, id_prefix, on_malformed, …) for the text dialect},
     *        as an array or as JSON text
     * @param bool $accumulate block_complete events carry 'content' / 'input' (default true)
     * @param ?string $library path of libtokensieve (only the first load of a process uses it)
     * @param ?string $header path of tokensieve_php.h (likewise)
     * @throws ConfigException when the config is rejected (the message names the key)
     * @throws LibraryException when the library cannot be found or loaded
     */
    public function __construct(
        array|string $config,
        bool $accumulate = true,
        ?string $library = null,
        ?string $header = null,
    ) {
        $this->ffi = $ffi = Library::load($library, $header);
        $json = TokenSieve::configJson($config);
        $out = $ffi->new('tokensieve_decoder*');
        $rc = $ffi->tokensieve_decoder_new_json($json, \strlen($json), $accumulate ? 1 : 0, \FFI::addr($out));
        if ($rc !== 0 || \FFI::isNull($out)) {
            throw TokenSieve::error($ffi->tokensieve_decoder_last_error(null), $rc === 0 ? -3 : $rc);
        }
        $this->decoder = $out;
        $this->event = $ffi->new('tokensieve_event');
        $this->eventPtr = \FFI::addr($this->event);
    }

    /** Whether the library decodes $provider ('openai-chat', 'anthropic', …). */
    public static function supported(string $provider): bool
    {
        $code = array_search($provider, self::PROVIDERS, true);
        return $code !== false && Library::load()->tokensieve_provider_supported($code) === 1;
    }

    public function __destruct()
    {
        if (!$this->freed) {
            $this->freed = true;
            $this->ffi->tokensieve_decoder_free($this->decoder);
        }
    }

    /**
     * Cloning is refused: the copy would share the C decoder, and both objects would free it.
     * @throws StateException always
     */
    public function __clone()
    {
        $this->freed = true;
        throw new StateException('a Decoder cannot be cloned: create a new one from the same config');
    }

    private function live(): \FFI\CData
    {
        if ($this->freed) {
            throw new StateException('this Decoder was destroyed: create a new one');
        }
        return $this->decoder;
    }

    /**
     * Decodes the next read of the body (any chunking) and returns its events.
     * @return list<array<string,mixed>>
     */
    public function feed(string $read): array
    {
        // The library reads $read in place; it stays alive until drain() has consumed it.
        $this->check($this->ffi->tokensieve_decoder_feed($this->live(), $read, \strlen($read)));
        return $this->drain();
    }

    /**
     * Ends the body: returns the remaining events (open blocks complete, finishes).
     * @return list<array<string,mixed>>
     */
    public function finish(): array
    {
        $this->check($this->ffi->tokensieve_decoder_finish($this->live()));
        return $this->drain();
    }

    /** Back to the initial state for a new body (same config). */
    public function reset(): void
    {
        $this->check($this->ffi->tokensieve_decoder_reset($this->live()));
    }

    /**
     * Yields the events of a whole body, then finishes. $body: an iterable of reads (strings),
     * or a stream object with eof() and read($n) (a PSR-7 StreamInterface, as a PSR-18 client's
     * $response->getBody()), read $readSize bytes at a time.
     * @param iterable<string>|object $body
     * @return \Generator<int, array<string,mixed>>
     */
    public function stream(iterable|object $body, int $readSize = 8192): \Generator
    {
        foreach (TokenSieve::reads($body, $readSize) as $read) {
            yield from $this->feed($read);
        }
        yield from $this->finish();
    }

    /**
     * Decodes a whole body with a new decoder.
     * @param array<string,mixed>|string $config
     * @return list<array<string,mixed>>
     */
    public static function decode(array|string $config, string $body): array
    {
        $decoder = new self($config);
        return [...$decoder->feed($body), ...$decoder->finish()];
    }

    private function check(int $rc): void
    {
        if ($rc < 0) {
            throw TokenSieve::error($this->ffi->tokensieve_decoder_last_error($this->decoder), $rc);
        }
    }

    /** @return list<array<string,mixed>> */
    private function drain(): array
    {
        $ffi = $this->ffi;
        $decoder = $this->live();
        $ev = $this->event;
        $ptr = $this->eventPtr;
        $out = [];
        while (($rc = $ffi->tokensieve_decoder_next($decoder, $ptr)) === 0) {
            $out[] = TokenSieve::event($ev);
        }
        if ($rc < 0) {
            $this->check($rc);
        }
        return $out;
    }
}
