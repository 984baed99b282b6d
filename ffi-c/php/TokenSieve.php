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
    private const ABI_VERSION = 2;
    private const TYPES = ['text', 'thinking', 'tool_call', 'tool_result'];
    private const PARTS = [1 => 'name', 2 => 'id', 3 => 'input'];

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
        try {
            $json = \is_string($config)
                ? $config
                : json_encode($config, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
        } catch (\JsonException $e) {
            // A NaN, INF or a string that is not UTF-8 cannot be written as JSON.
            throw new TokenSieveException('config: cannot be written as JSON: ' . $e->getMessage(), 0, $e);
        }
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
                    $this->names($ev, $e);
                }
                $out[] = $e;
            } elseif ($kind === 1) {
                $out[] = ['event' => 'block_start', 'index' => $ev->index, 'type' => self::TYPES[$ev->block_type]];
            } elseif ($kind === 3) {
                $type = $ev->block_type;
                $e = ['event' => 'block_complete', 'index' => $ev->index, 'type' => self::TYPES[$type]];
                $c = $ev->content;
                if ($c->ptr !== null) {
                    $e['content'] = \FFI::string($c->ptr, $c->len);
                }
                if ($type >= 2) {
                    $this->names($ev, $e);
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
                $out[] = $e;
            } else {
                $t = $ev->text;
                $out[] = ['event' => 'stop', 'sequence' => \FFI::string($t->ptr, $t->len)];
            }
        }
        if ($rc < 0) {
            $this->check($rc);
        }
        return $out;
    }

    /** @param array<string,mixed> $e */
    private function names(\FFI\CData $ev, array &$e): void
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
