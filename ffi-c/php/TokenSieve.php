<?php
/**
 * tokensieve for PHP: a small class over FFI (libtokensieve.so + include/tokensieve_php.h).
 *
 *     use TokenSieve\TokenSieve;
 *     $sieve = new TokenSieve(['dialect' => 'anthropic-xml',
 *                              'tools' => [['name' => 'get_weather', 'schema' => $schema]]]);
 *     foreach ($sieve->stream($chunksFromTheProvider) as $event) {
 *         if ($event['event'] === 'chunk' && $event['visible']) echo $event['text'];
 *     }
 *
 * Events are associative arrays shaped like the JSON form of DESIGN.md:
 *   ['event' => 'block_start', 'index' => 0, 'type' => 'text']
 *   ['event' => 'chunk', 'text' => '…', 'type' => 'tool_call', 'visible' => false, 'block' => 1,
 *    'depth' => 1, 'part' => 'input', 'tool_name' => 'get_weather', 'tool_id' => 'call_0']
 *   ['event' => 'block_complete', 'index' => 1, 'type' => 'tool_call', 'tool_name' => …,
 *    'tool_id' => …, 'input' => [decoded object], 'input_json' => '{"city":"Paris"}']
 *   ['event' => 'block_complete', …, 'content' => '…'] (text, thinking, tool_result)
 *   ['event' => 'block_complete', …, 'error' => ['reason' => 'malformed-body', 'raw' => bytes]]
 *   ['event' => 'stop', 'sequence' => "\nHuman:"]
 * Absent fields are absent; 'is_error' => true only on error results.
 *
 * Provider streams (the HTTP body of a streaming LLM API, docs/providers.md): TokenSieve\Decoder,
 * with the same shape, over the network reads a PSR-18 client's response body yields:
 *
 *     $decoder = new Decoder(['provider' => 'openai-chat']);
 *     foreach ($decoder->stream($reads) as $event) { … }
 *
 * Its events add 'choice' (when not 0) and, on block_complete, 'refusal' / 'server' (true when
 * set), 'signature', 'redacted'; and two kinds:
 *   ['event' => 'finish', 'reason' => 'tool_calls', 'raw_reason' => 'tool_calls',
 *    'usage' => ['input_tokens' => 81, 'output_tokens' => 17], 'response_id' => …, 'model' => …]
 *   ['event' => 'error', 'source' => 'provider', 'code' => 'rate_limit_exceeded', 'message' => …]
 *
 * Pull API only (no PHP callbacks cross into C). The library is found through the
 * TOKENSIEVE_LIB environment variable, or target/{release,debug}/libtokensieve.so of the
 * repository this file sits in; pass a path to TokenSieve::load() to choose another.
 */

declare(strict_types=1);

namespace TokenSieve;

/** Raised for a rejected config and for calls in the wrong state, with the library's message. */
class TokenSieveException extends \RuntimeException
{
}

final class TokenSieve
{
    private const ABI_VERSION = 3;
    private const TYPES = ['text', 'thinking', 'tool_call', 'tool_result'];
    private const PARTS = [1 => 'name', 2 => 'id', 3 => 'input'];
    private const FINISH = [1 => 'stop', 2 => 'length', 3 => 'tool_calls', 4 => 'content_filter',
                            5 => 'refusal', 6 => 'error', 7 => 'other'];
    private const USAGE = [1 => 'input_tokens', 2 => 'output_tokens', 4 => 'cache_read_tokens',
                           8 => 'cache_write_tokens', 16 => 'reasoning_tokens'];

    private static ?\FFI $ffi = null;

    /** @var \FFI\CData tokensieve_parser* */
    private \FFI\CData $parser;
    /** @var \FFI\CData tokensieve_event */
    private \FFI\CData $event;
    /** @var \FFI\CData tokensieve_event* */
    private \FFI\CData $eventPtr;
    private bool $freed = false;

    /**
     * Loads the library (once per process). $library: path of libtokensieve.so; default from
     * TOKENSIEVE_LIB or the repository's target directory.
     */
    public static function load(?string $library = null): \FFI
    {
        if (self::$ffi !== null) {
            return self::$ffi;
        }
        $root = \dirname(__DIR__, 2);
        $header = $root . '/include/tokensieve_php.h';
        if ($library === null) {
            $library = getenv('TOKENSIEVE_LIB') ?: null;
        }
        if ($library === null) {
            foreach (['target/release', 'target/debug', 'target-ffi/release', 'target-ffi/debug'] as $dir) {
                if (is_file("$root/$dir/libtokensieve.so")) {
                    $library = "$root/$dir/libtokensieve.so";
                    break;
                }
            }
        }
        if ($library === null) {
            throw new TokenSieveException('libtokensieve.so not found: build ffi-c or set TOKENSIEVE_LIB');
        }
        $ffi = \FFI::cdef((string) file_get_contents($header), $library);
        if ($ffi->tokensieve_abi_version() !== self::ABI_VERSION
            || $ffi->tokensieve_event_size() !== \FFI::sizeof($ffi->type('tokensieve_event'))) {
            throw new TokenSieveException("$library does not match $header (ABI version or event size)");
        }
        return self::$ffi = $ffi;
    }

    /**
     * @param array<string,mixed>|string $config the config object ({dialect, tools, stop_sequences,
     *        thinking_tags, start_in, id_prefix, on_malformed, max_call_bytes, tool_call_markers}),
     *        as an array or as JSON text. A tool's 'schema' may be an array or JSON text.
     * @param bool $accumulate block_complete events carry 'content' / 'input' (default true)
     */
    public function __construct(array|string $config, bool $accumulate = true)
    {
        $ffi = self::load();
        $json = self::configJson($config);
        if (str_contains($json, "\0")) {
            // The C side reads a NUL-terminated string: the rest would be ignored silently.
            throw new TokenSieveException('config: contains a NUL byte');
        }
        $parser = $ffi->tokensieve_new_json($json, $accumulate ? 1 : 0);
        if ($parser === null || \FFI::isNull($parser)) {
            throw new TokenSieveException($ffi->tokensieve_last_error(null));
        }
        $this->parser = $parser;
        $this->event = $ffi->new('tokensieve_event');
        $this->eventPtr = \FFI::addr($this->event);
    }

    /**
     * A config as JSON text (arrays are encoded).
     * @internal
     * @param array<string,mixed>|string $config
     */
    public static function configJson(array|string $config): string
    {
        if ($config === []) {
            return '{}'; // an empty config is an (empty) object, not a list
        }
        try {
            return \is_string($config)
                ? $config
                : json_encode($config, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
        } catch (\JsonException $e) {
            // A NaN, INF or a string that is not UTF-8 cannot be written as JSON.
            throw new TokenSieveException('config: cannot be written as JSON: ' . $e->getMessage(), 0, $e);
        }
    }

    public function __destruct()
    {
        if (!$this->freed) {
            $this->freed = true;
            self::$ffi->tokensieve_free($this->parser);
        }
    }

    /**
     * Cloning is refused: the copy would share the C parser, and both objects would free it.
     * Make a new TokenSieve from the same config instead.
     * @throws TokenSieveException always
     */
    public function __clone()
    {
        // The copy holds the original's pointer: make it inert before it is released.
        $this->freed = true;
        throw new TokenSieveException('a TokenSieve cannot be cloned: create a new one from the same config');
    }

    /** The parser, unless this object was destroyed (an explicit __destruct() call). */
    private function live(): \FFI\CData
    {
        if ($this->freed) {
            throw new TokenSieveException('this TokenSieve was destroyed: create a new one');
        }
        return $this->parser;
    }

    /** Advances the parser silently over assistant prefill text; before the first feed only. */
    public function prefill(string $text): void
    {
        $this->check(self::$ffi->tokensieve_prefill($this->live(), $text, \strlen($text)));
    }

    /**
     * Parses the next piece of the stream (any chunking) and returns its events.
     * @return list<array<string,mixed>>
     */
    public function feed(string $chunk): array
    {
        // The library reads $chunk in place; it stays alive until drain() has consumed it.
        $this->check(self::$ffi->tokensieve_feed($this->live(), $chunk, \strlen($chunk)));
        return $this->drain();
    }

    /**
     * Ends the stream: returns the remaining events (held text, open blocks completing).
     * @return list<array<string,mixed>>
     */
    public function finish(): array
    {
        $this->check(self::$ffi->tokensieve_finish($this->live()));
        return $this->drain();
    }

    /** Back to the initial state for a new stream (same config). */
    public function reset(): void
    {
        $this->check(self::$ffi->tokensieve_reset($this->live()));
    }

    /**
     * Yields the events of a whole stream given as an iterable of chunks, then finishes.
     * @param iterable<string> $chunks
     * @return \Generator<int, array<string,mixed>>
     */
    public function stream(iterable $chunks): \Generator
    {
        foreach ($chunks as $chunk) {
            yield from $this->feed($chunk);
        }
        yield from $this->finish();
    }

    /**
     * Parses a whole text with a new parser.
     * @param array<string,mixed>|string $config
     * @return list<array<string,mixed>>
     */
    public static function parse(array|string $config, string $text): array
    {
        $sieve = new self($config);
        return [...$sieve->feed($text), ...$sieve->finish()];
    }

    private function check(int $rc): void
    {
        if ($rc < 0) {
            throw new TokenSieveException(self::$ffi->tokensieve_last_error($this->parser), $rc);
        }
    }

    /** @return list<array<string,mixed>> */
    private function drain(): array
    {
        $ffi = self::$ffi;
        $parser = $this->live();
        $ev = $this->event;
        $ptr = $this->eventPtr;
        $out = [];
        while (($rc = $ffi->tokensieve_next($parser, $ptr)) === 0) {
            $out[] = self::event($ev);
        }
        if ($rc < 0) {
            $this->check($rc);
        }
        return $out;
    }

    /**
     * The PHP array of a tokensieve_event (parsers and decoders).
     * @internal
     * @return array<string,mixed>
     */
    public static function event(\FFI\CData $ev): array
    {
        $kind = $ev->kind;
        if ($kind === 2) {
            $t = $ev->text;
            $type = $ev->block_type;
            $e = [
                'event' => 'chunk',
                'text' => \FFI::string($t->ptr, $t->len),
                'type' => self::TYPES[$type],
                'visible' => $type === 0,
                'block' => $ev->index,
                'depth' => $ev->depth,
            ];
            if ($type >= 2) {
                $part = $ev->part;
                if ($part !== 0) {
                    $e['part'] = self::PARTS[$part];
                }
                self::names($ev, $e);
            }
            self::choice($ev, $e);
            return $e;
        }
        if ($kind === 1) {
            $e = ['event' => 'block_start', 'index' => $ev->index, 'type' => self::TYPES[$ev->block_type]];
            self::choice($ev, $e);
            return $e;
        }
        if ($kind === 3) {
            $type = $ev->block_type;
            $e = ['event' => 'block_complete', 'index' => $ev->index, 'type' => self::TYPES[$type]];
            $c = $ev->content;
            if ($c->ptr !== null) {
                $e['content'] = \FFI::string($c->ptr, $c->len);
            }
            if ($type >= 2) {
                self::names($ev, $e);
                $i = $ev->input;
                if ($i->ptr !== null) {
                    $json = \FFI::string($i->ptr, $i->len);
                    $e['input'] = json_decode($json, true, 512, JSON_BIGINT_AS_STRING);
                    $e['input_json'] = $json;
                }
                if ($ev->error_code !== 0) {
                    $r = $ev->error_reason;
                    $raw = $ev->error_raw;
                    $e['error'] = [
                        'reason' => \FFI::string($r->ptr, $r->len),
                        'raw' => $raw->len > 0 ? \FFI::string($raw->ptr, $raw->len) : '',
                    ];
                    if (($ev->flags & 4) !== 0) {
                        $e['error']['raw_truncated'] = true;
                    }
                }
                if (($ev->flags & 2) !== 0) {
                    $e['is_error'] = true;
                }
            }
            self::choice($ev, $e);
            $flags = $ev->flags;
            if (($flags & 16) !== 0) {
                $e['refusal'] = true;
            }
            if (($flags & 32) !== 0) {
                $e['server'] = true;
            }
            self::str($ev->signature, 'signature', $e);
            self::str($ev->redacted, 'redacted', $e);
            return $e;
        }
        if ($kind === 5) {
            $e = ['event' => 'finish', 'reason' => self::FINISH[$ev->finish_reason] ?? 'other'];
            self::str($ev->raw_reason, 'raw_reason', $e);
            if (($ev->flags & 64) !== 0) {
                $usage = [];
                $present = $ev->usage_present;
                foreach (self::USAGE as $bit => $name) {
                    if (($present & $bit) !== 0) {
                        $usage[$name] = $ev->{$name};
                    }
                }
                $e['usage'] = $usage;
            }
            self::str($ev->response_id, 'response_id', $e);
            self::str($ev->model, 'model', $e);
            self::choice($ev, $e);
            return $e;
        }
        if ($kind === 6) {
            $e = ['event' => 'error', 'source' => $ev->error_source === 2 ? 'framing' : 'provider'];
            self::str($ev->code, 'code', $e);
            $m = $ev->message;
            $e['message'] = $m->len > 0 ? \FFI::string($m->ptr, $m->len) : '';
            return $e;
        }
        $t = $ev->text;
        return ['event' => 'stop', 'sequence' => \FFI::string($t->ptr, $t->len)];
    }

    /** @param array<string,mixed> $e */
    private static function choice(\FFI\CData $ev, array &$e): void
    {
        $choice = $ev->choice;
        if ($choice !== 0) {
            $e['choice'] = $choice;
        }
    }

    /** @param array<string,mixed> $e */
    private static function str(\FFI\CData $s, string $key, array &$e): void
    {
        if ($s->ptr !== null) {
            $e[$key] = $s->len > 0 ? \FFI::string($s->ptr, $s->len) : '';
        }
    }

    /** @param array<string,mixed> $e */
    private static function names(\FFI\CData $ev, array &$e): void
    {
        $n = $ev->tool_name;
        if ($n->ptr !== null) {
            $e['tool_name'] = \FFI::string($n->ptr, $n->len);
        }
        $n = $ev->tool_id;
        if ($n->ptr !== null) {
            $e['tool_id'] = \FFI::string($n->ptr, $n->len);
        }
    }
}

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
    private const PROVIDERS = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'bedrock'];

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
     */
    public function __construct(array|string $config, bool $accumulate = true)
    {
        $this->ffi = $ffi = TokenSieve::load();
        $json = TokenSieve::configJson($config);
        $out = $ffi->new('tokensieve_decoder*');
        $rc = $ffi->tokensieve_decoder_new_json($json, \strlen($json), $accumulate ? 1 : 0, \FFI::addr($out));
        if ($rc !== 0 || \FFI::isNull($out)) {
            throw new TokenSieveException($ffi->tokensieve_decoder_last_error(null), $rc);
        }
        $this->decoder = $out;
        $this->event = $ffi->new('tokensieve_event');
        $this->eventPtr = \FFI::addr($this->event);
    }

    /** Whether the library decodes $provider ('openai-chat', 'anthropic', …). */
    public static function supported(string $provider): bool
    {
        $code = array_search($provider, self::PROVIDERS, true);
        return $code !== false && TokenSieve::load()->tokensieve_provider_supported($code) === 1;
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
     * @throws TokenSieveException always
     */
    public function __clone()
    {
        $this->freed = true;
        throw new TokenSieveException('a Decoder cannot be cloned: create a new one from the same config');
    }

    private function live(): \FFI\CData
    {
        if ($this->freed) {
            throw new TokenSieveException('this Decoder was destroyed: create a new one');
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
        if (!is_iterable($body)) {
            if (!method_exists($body, 'eof') || !method_exists($body, 'read')) {
                throw new TokenSieveException('stream(): give an iterable of strings or a stream with eof() and read()');
            }
            $stream = $body;
            $body = (static function () use ($stream, $readSize): \Generator {
                while (!$stream->eof()) {
                    $read = $stream->read($readSize);
                    if ($read === '') {
                        continue;
                    }
                    yield $read;
                }
            })();
        }
        foreach ($body as $read) {
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
            throw new TokenSieveException($this->ffi->tokensieve_decoder_last_error($this->decoder), $rc);
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
