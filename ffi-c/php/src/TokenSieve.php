<?php

declare(strict_types=1);

namespace TokenSieve;

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
 * set), 'signature', 'redacted', 'compaction' (true when set), 'citations' (a text block's: a
 * list of the citation arrays, as the provider sent them); and two kinds:
 *   ['event' => 'finish', 'reason' => 'tool_calls', 'raw_reason' => 'tool_calls',
 *    'usage' => ['input_tokens' => 81, 'output_tokens' => 17], 'response_id' => …, 'model' => …]
 *   ['event' => 'error', 'source' => 'provider', 'code' => 'rate_limit_exceeded', 'message' => …]
 *
 * Pull API only (no PHP callbacks cross into C). Where the library and header are found:
 * TokenSieve\Library (an explicit `library:` / `header:`, then TOKENSIEVE_LIB /
 * TOKENSIEVE_HEADER, then next to the package). Every error is a TokenSieve\Exception.
 */
final class TokenSieve
{
    private const TYPES = ['text', 'thinking', 'tool_call', 'tool_result'];
    private const PARTS = [1 => 'name', 2 => 'id', 3 => 'input'];
    private const FINISH = [1 => 'stop', 2 => 'length', 3 => 'tool_calls', 4 => 'content_filter',
                            5 => 'refusal', 6 => 'error', 7 => 'other', 8 => 'malformed_tool_call'];
    private const USAGE = [1 => 'input_tokens', 2 => 'output_tokens', 4 => 'cache_read_tokens',
                           8 => 'cache_write_tokens', 16 => 'reasoning_tokens'];

    use PullsEvents;

    private const KIND = 'TokenSieve';
    private const C = ['feed' => 'tokensieve_feed', 'finish' => 'tokensieve_finish',
                       'reset' => 'tokensieve_reset', 'next' => 'tokensieve_next',
                       'next_batch' => 'tokensieve_next_batch', 'feed_batch' => 'tokensieve_feed_batch',
                       'free' => 'tokensieve_free', 'last_error' => 'tokensieve_last_error'];

    /**
     * Loads the library (once per process) and returns it: see Library::load().
     * @throws LibraryException
     */
    public static function load(?string $library = null, ?string $header = null): \FFI
    {
        return Library::load($library, $header);
    }

    /**
     * @param array<string,mixed>|string $config the config object ({dialect, tools, stop_sequences,
     *        thinking_tags, start_in, id_prefix, on_malformed, max_call_bytes, tool_call_markers}),
     *        as an array or as JSON text. A tool's 'schema' may be an array or JSON text.
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
        $ffi = Library::load($library, $header);
        $json = self::configJson($config);
        if (str_contains($json, "\0")) {
            // The C side reads a NUL-terminated string: the rest would be ignored silently.
            throw new ConfigException('config: contains a NUL byte');
        }
        $parser = $ffi->tokensieve_new_json($json, $accumulate ? 1 : 0);
        if ($parser === null || \FFI::isNull($parser)) {
            throw new ConfigException($ffi->tokensieve_last_error(null), -3);
        }
        $this->adopt($ffi, $parser);
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
            throw new ConfigException('config: cannot be written as JSON: ' . $e->getMessage(), 0, $e);
        }
    }

    /** Advances the parser silently over assistant prefill text; before the first feed only. */
    public function prefill(string $text): void
    {
        $this->check($this->ffi->tokensieve_prefill($this->live(), $text, \strlen($text)));
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

    // --- the writers (issue 27): what the model writes or reads, in its wire format ---------

    /**
     * Writes the prompt's tool-definition section as the family's chat template renders the
     * tools (hermes' `# Tools` … `<tools>` list, qwen3-coder's `<function>` entries, harmony's
     * `namespace functions`, …), for a host that builds the prompt itself: the section only,
     * placed where the template places it (the core's `format_tool_definitions` says where
     * for each dialect). The tools are the config's tool list, so one list serves both.
     *
     *     TokenSieve::formatToolDefinitions(['dialect' => 'mistral'],
     *         [['name' => 'ping', 'description' => 'Is it up?', 'schema' => ['type' => 'object']]]);
     *     // '[AVAILABLE_TOOLS][{"type": "function", "function": {"name": "ping", "description":
     *     //  "Is it up?", "parameters": {"type": "object"}}}][/AVAILABLE_TOOLS]'
     *
     * @param array<string,mixed>|string $config the config of the constructor (its dialect, a
     *        name or a description)
     * @param list<array{name: string, description?: ?string, schema?: array<string,mixed>|object|string|null}>|string $tools
     *        the tools, or their JSON text (kept as written: numbers spelled as there). A
     *        schema is an object or its JSON text; `[]` as a whole schema is `{}`, but an empty
     *        PHP array inside one is a JSON list: write `(object) []` there, or pass JSON text.
     *        Keys other than name, description and schema are errors.
     * @throws ConfigException when the config is rejected
     * @throws Exception when a tool is not of the form, its schema is not a JSON object, or
     *         the dialect has no tool format (the message names the tool)
     */
    public static function formatToolDefinitions(array|string $config, array|string $tools): string
    {
        $ffi = Library::load();
        $json = self::configJson($config);
        if (str_contains($json, "\0")) {
            throw new ConfigException('config: contains a NUL byte');
        }
        if (\is_string($tools)) {
            $text = $tools;
        } else {
            $items = [];
            foreach ($tools as $tool) {
                if (\is_array($tool) && \array_key_exists('schema', $tool) && $tool['schema'] === []) {
                    $tool['schema'] = new \stdClass();
                }
                $items[] = $tool;
            }
            $text = self::inputJson($items, 'tools');
        }
        return self::written($ffi, static fn ($buf, int $cap, \FFI\CData $n): int =>
            $ffi->tokensieve_format_tool_definitions_json($json, $text, \strlen($text), $buf, $cap, $n));
    }

    /**
     * Writes the assistant's past tool calls as the model writes them (what the family's chat
     * template renders), for a host that builds the prompt itself; the parser reads the text
     * back as the same calls.
     *
     *     TokenSieve::formatToolCalls(['dialect' => 'hermes'],
     *         [['name' => 'get_weather', 'id' => 'call_0', 'input' => ['city' => 'Paris']]]);
     *     // "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"
     *
     * @param array<string,mixed>|string $config the config of the constructor (its dialect, a
     *        name or a description, and its tools, whose parameter types decide how the XML
     *        formats write values)
     * @param list<array{name: string, id?: ?string, input?: array<string,mixed>|object|null}> $calls
     *        `input` an object: `[]` and `(object) []` are both `{}`; floats are written as PHP
     *        encodes them (shortest round trip)
     * @throws ConfigException when the config is rejected
     * @throws Exception when a call is not of the form or cannot be written (the message names it)
     */
    public static function formatToolCalls(array|string $config, array $calls): string
    {
        $ffi = Library::load();
        $json = self::configJson($config);
        if (str_contains($json, "\0")) {
            throw new ConfigException('config: contains a NUL byte');
        }
        $items = [];
        foreach ($calls as $i => $call) {
            // An empty PHP array is a JSON list: the input is an object.
            if (\is_array($call) && \array_key_exists('input', $call) && $call['input'] === []) {
                $call['input'] = new \stdClass();
            }
            $items[] = $call;
        }
        $text = self::inputJson($items, 'calls');
        return self::written($ffi, static fn ($buf, int $cap, \FFI\CData $n): int =>
            $ffi->tokensieve_format_tool_calls_json($json, $text, \strlen($text), $buf, $cap, $n));
    }

    /**
     * Writes tool results as the family's chat template gives them back to the model.
     *
     *     TokenSieve::formatToolResults('hermes', [['tool_use_id' => 'call_0', 'content' => '18°C']]);
     *     // "<tool_response>\n18°C\n</tool_response>"
     *
     * @param string $dialect a dialect name ('hermes', 'kimi-k2', …)
     * @param list<array{content: string, tool_use_id?: ?string, name?: ?string, is_error?: ?bool}> $results
     * @throws ConfigException for an unknown dialect
     * @throws Exception when a result is not of the form (the message names it)
     */
    public static function formatToolResults(string $dialect, array $results): string
    {
        $ffi = Library::load();
        $code = self::dialectCode($ffi, $dialect);
        $text = self::inputJson(array_values($results), 'results');
        return self::written($ffi, static fn ($buf, int $cap, \FFI\CData $n): int =>
            $ffi->tokensieve_format_tool_results($code, $text, \strlen($text), $buf, $cap, $n));
    }

    /**
     * The stop sequences a host sets when it runs a model of the dialect in completions mode
     * (for anthropic-xml prefill, add "\n{name}:" for each other participant).
     *
     *     TokenSieve::stopSequences('harmony'); // ['<|return|>', '<|call|>']
     *
     * @return list<string>
     * @throws ConfigException for an unknown dialect
     */
    public static function stopSequences(string $dialect): array
    {
        $ffi = Library::load();
        $code = self::dialectCode($ffi, $dialect);
        $count = $ffi->new('size_t');
        $cap = 8;
        for (;;) {
            $out = $ffi->new("tokensieve_str[$cap]");
            $rc = $ffi->tokensieve_stop_sequences($code, $out, $cap, \FFI::addr($count));
            if ($rc === -7) {
                $cap = (int) $count->cdata;
                continue;
            }
            if ($rc < 0) {
                throw self::error($ffi->tokensieve_last_error(null), $rc);
            }
            $stops = [];
            for ($i = 0; $i < $count->cdata; $i++) {
                $stops[] = \FFI::string($out[$i]->ptr, $out[$i]->len);
            }
            return $stops;
        }
    }

    private static function dialectCode(\FFI $ffi, string $dialect): int
    {
        if (str_contains($dialect, "\0")) {
            throw new ConfigException('dialect: contains a NUL byte', -3);
        }
        $code = $ffi->tokensieve_dialect_from_name($dialect);
        if ($code < 0) {
            throw self::error($ffi->tokensieve_last_error(null), $code);
        }
        return $code;
    }

    /** @param list<mixed> $items */
    private static function inputJson(array $items, string $what): string
    {
        try {
            return json_encode(array_values($items), JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES
                | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION);
        } catch (\JsonException $e) {
            throw new Exception("$what: cannot be written as JSON: " . $e->getMessage(), -8, $e);
        }
    }

    /**
     * Runs a writer into a buffer, again with the size it asks for when that is too small.
     * @param callable(?\FFI\CData, int, \FFI\CData): int $write
     */
    private static function written(\FFI $ffi, callable $write): string
    {
        $n = $ffi->new('size_t');
        $cap = 4096;
        for (;;) {
            $buf = $ffi->new("char[$cap]");
            $rc = $write($buf, $cap, \FFI::addr($n));
            if ($rc === -7) {
                $cap = (int) $n->cdata;
                continue;
            }
            if ($rc < 0) {
                throw self::error($ffi->tokensieve_last_error(null), $rc);
            }
            return \FFI::string($buf, (int) $n->cdata);
        }
    }

    /**
     * The exception for a negative status of the C library.
     * @internal
     */
    public static function error(string $message, int $rc): Exception
    {
        return match ($rc) {
            -2 => new StateException($message, $rc),
            -3 => new ConfigException($message, $rc),
            default => new Exception($message, $rc),
        };
    }

    /**
     * The pieces of a stream: an iterable of strings as it is, or a stream object with eof()
     * and read() (PSR-7's StreamInterface, duck-typed: no dependency on psr/http-message).
     * @internal
     * @param iterable<string>|object $body
     * @return iterable<string>
     */
    public static function reads(iterable|object $body, int $readSize): iterable
    {
        if (is_iterable($body)) {
            return $body;
        }
        if (!method_exists($body, 'eof') || !method_exists($body, 'read')) {
            throw new Exception('stream(): give an iterable of strings or a stream with eof() and read() (PSR-7), not '
                . get_debug_type($body));
        }
        if ($readSize < 1) {
            throw new Exception("stream(): readSize must be at least 1, not $readSize");
        }
        return (static function () use ($body, $readSize): \Generator {
            while (!$body->eof()) {
                $read = $body->read($readSize);
                if ($read === '') {
                    continue;
                }
                yield $read;
            }
        })();
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
            if (($flags & 128) !== 0) {
                $e['compaction'] = true;
            }
            $ct = $ev->citations;
            if ($ct->ptr !== null) {
                // A text block's citations: decoded, as 'input' is (numbers kept whole).
                $e['citations'] = json_decode(\FFI::string($ct->ptr, $ct->len), true, 512,
                    JSON_BIGINT_AS_STRING);
            }
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

    /**
     * Appends to $out the events of one *_next_batch call, as the same arrays event() builds:
     * $r holds the call's tokensieve_record words (unpack('L*'): six per record, from key 1),
     * $b its byte area (the layout is described at tokensieve_next_batch in tokensieve.h).
     * @param array<int,int> $r
     * @param list<array<string,mixed>> $out
     */
    public static function records(array $r, string $b, array &$out): void
    {
        $at = 0;
        $end = \count($r);
        for ($j = 1; $j < $end; $j += 6) {
            $head = $r[$j];
            $t = $at;
            $n = $t + $r[$j + 2];
            $i = $n + $r[$j + 3];
            $x = $i + $r[$j + 4];
            $at = $x + $r[$j + 5];
            $kind = $head & 15;
            $type = ($head >> 4) & 15;
            if ($kind === 2 && ($head & 0x3f00) > 0x3000 && $at === $x && $type >= 2) {
                // A call's chunk with its part, tool name and id: one literal (adding keys
                // one by one would grow the array past its first eight slots).
                $out[] = [
                    'event' => 'chunk',
                    'text' => substr($b, $t, $n - $t),
                    'type' => self::TYPES[$type],
                    'visible' => false,
                    'block' => $r[$j + 1],
                    'depth' => $head >> 24,
                    'part' => self::PARTS[($head >> 8) & 15],
                    'tool_name' => substr($b, $n, $i - $n),
                    'tool_id' => substr($b, $i, $x - $i),
                ];
            } elseif ($kind === 2) {
                $e = [
                    'event' => 'chunk',
                    'text' => substr($b, $t, $n - $t),
                    'type' => self::TYPES[$type],
                    'visible' => $type === 0,
                    'block' => $r[$j + 1],
                    'depth' => $head >> 24,
                ];
                if ($type >= 2) {
                    $part = ($head >> 8) & 15;
                    if ($part !== 0) {
                        $e['part'] = self::PARTS[$part];
                    }
                    if (($head & 0x1000) !== 0) {
                        $e['tool_name'] = substr($b, $n, $i - $n);
                    }
                    if (($head & 0x2000) !== 0) {
                        $e['tool_id'] = substr($b, $i, $x - $i);
                    }
                }
                if ($at !== $x) {
                    $rest = self::rest($b, $x, $head);
                    $e['depth'] = $rest[1];
                    if ($rest[0] !== 0) {
                        $e['choice'] = $rest[0];
                    }
                }
                $out[] = $e;
            } elseif ($kind === 1 && $at === $x) {
                $out[] = ['event' => 'block_start', 'index' => $r[$j + 1], 'type' => self::TYPES[$type]];
            } else {
                $out[] = self::other($b, $head, $r[$j + 1], $t, $n, $i, $x, $at);
            }
        }
    }

    /**
     * The rest of a record at $at: [choice, depth, error_code, finish_reason, error_source,
     * usage_present, usage counters (5), strings by their bit (3–14)].
     * @return array{0:int,1:int,2:int,3:int,4:int,5:int,6:list<int>,7:array<int,string>}
     */
    private static function rest(string $b, int $at, int $head): array
    {
        $v = [0, $head >> 24, 0, 0, 0, 0, [], []];
        if (($head & 0x4000) !== 0) {
            [1 => $v[0], 2 => $v[1], 3 => $v[2], 4 => $v[3], 5 => $v[4], 6 => $v[5]]
                = unpack('L6', $b, $at);
            $at += 24;
            if ($v[5] !== 0) {
                $v[6] = array_values(unpack('Q5', $b, $at));
                $at += 40;
            }
        }
        if (($head & 0x8000) !== 0) {
            $mask = unpack('L', $b, $at)[1];
            $at += 4;
            $bits = [];
            for ($k = 3; $k < 15; $k++) {
                if (($mask & (1 << $k)) !== 0) {
                    $bits[] = $k;
                }
            }
            $lens = unpack('L' . \count($bits), $b, $at);
            $at += 4 * \count($bits);
            foreach ($bits as $k => $bit) {
                $len = $lens[$k + 1];
                $v[7][$bit] = $len > 0 ? substr($b, $at, $len) : '';
                $at += $len;
            }
        }
        return $v;
    }

    /**
     * A record other than a chunk or a plain block start; its text at $t, name at $n, id at
     * $i, rest from $x to $end.
     * @return array<string,mixed>
     */
    private static function other(string $b, int $head, int $index, int $t, int $n, int $i, int $x, int $end): array
    {
        [$choice, , $errorCode, $finish, $source, $usage, $tokens, $s]
            = $end !== $x ? self::rest($b, $x, $head) : [0, 0, 0, 0, 0, 0, [], []];
        $kind = $head & 15;
        $type = ($head >> 4) & 15;
        $flags = ($head >> 16) & 255;
        if ($kind === 1) {
            $e = ['event' => 'block_start', 'index' => $index, 'type' => self::TYPES[$type]];
        } elseif ($kind === 3) {
            $e = ['event' => 'block_complete', 'index' => $index, 'type' => self::TYPES[$type]];
            if (isset($s[3])) {
                $e['content'] = $s[3];
            }
            if ($type >= 2) {
                if (($head & 0x1000) !== 0) {
                    $e['tool_name'] = substr($b, $n, $i - $n);
                }
                if (($head & 0x2000) !== 0) {
                    $e['tool_id'] = substr($b, $i, $x - $i);
                }
                if (isset($s[4])) {
                    $e['input'] = json_decode($s[4], true, 512, JSON_BIGINT_AS_STRING);
                    $e['input_json'] = $s[4];
                }
                if ($errorCode !== 0) {
                    $e['error'] = ['reason' => $s[5] ?? '', 'raw' => $s[6] ?? ''];
                    if (($flags & 4) !== 0) {
                        $e['error']['raw_truncated'] = true;
                    }
                }
                if (($flags & 2) !== 0) {
                    $e['is_error'] = true;
                }
            }
            if ($choice !== 0) {
                $e['choice'] = $choice;
            }
            if (($flags & 16) !== 0) {
                $e['refusal'] = true;
            }
            if (($flags & 32) !== 0) {
                $e['server'] = true;
            }
            if (isset($s[12])) {
                $e['signature'] = $s[12];
            }
            if (isset($s[13])) {
                $e['redacted'] = $s[13];
            }
            if (($flags & 128) !== 0) {
                $e['compaction'] = true;
            }
            if (isset($s[14])) {
                $e['citations'] = json_decode($s[14], true, 512, JSON_BIGINT_AS_STRING);
            }
            return $e;
        } elseif ($kind === 5) {
            $e = ['event' => 'finish', 'reason' => self::FINISH[$finish] ?? 'other'];
            if (isset($s[7])) {
                $e['raw_reason'] = $s[7];
            }
            if (($flags & 64) !== 0) {
                $u = [];
                $k = 0;
                foreach (self::USAGE as $bit => $name) {
                    if (($usage & $bit) !== 0) {
                        $u[$name] = $tokens[$k];
                    }
                    $k++;
                }
                $e['usage'] = $u;
            }
            if (isset($s[8])) {
                $e['response_id'] = $s[8];
            }
            if (isset($s[9])) {
                $e['model'] = $s[9];
            }
        } elseif ($kind === 6) {
            $e = ['event' => 'error', 'source' => $source === 2 ? 'framing' : 'provider'];
            if (isset($s[10])) {
                $e['code'] = $s[10];
            }
            $e['message'] = $s[11] ?? '';
            return $e;
        } else {
            return ['event' => 'stop', 'sequence' => substr($b, $t, $n - $t)];
        }
        if ($choice !== 0) {
            $e['choice'] = $choice;
        }
        return $e;
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

