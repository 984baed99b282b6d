<?php

declare(strict_types=1);

namespace TokenSieve\Tests;

use PHPUnit\Framework\TestCase;
use TokenSieve\ConfigException;
use TokenSieve\Exception;
use TokenSieve\TokenSieve;

/** The writers: formatToolCalls, formatToolResults, stopSequences. */
final class FormatTest extends TestCase
{
    private const CALLS = [
        ['name' => 'get_weather', 'id' => 'call_0', 'input' => ['city' => 'Paris', 'days' => 3, 't' => 1.5]],
        ['name' => 'search', 'input' => ['q' => 'a </tool_call> <|call|> b', 'tags' => ['x', null], 'o' => ['k' => true]]],
    ];

    /**
     * The completed tool calls of a parse: [name, decoded input].
     * @param list<array<string,mixed>> $events
     * @return list<array{0: string, 1: mixed}>
     */
    private static function calls(array $events): array
    {
        $out = [];
        foreach ($events as $e) {
            if ($e['event'] === 'block_complete' && $e['type'] === 'tool_call') {
                self::assertArrayNotHasKey('error', $e);
                $out[] = [$e['tool_name'], $e['input']];
            }
        }
        return $out;
    }

    /** @return iterable<string, array{0: array<string,mixed>}> */
    public static function configs(): iterable
    {
        foreach (['hermes', 'kimi-k2', 'mistral', 'harmony', 'pythonic', 'anthropic-xml', 'glm-4.5', 'deepseek-v3.1'] as $d) {
            yield $d => [['dialect' => $d]];
        }
        // (`q` untyped: a string holding `</tool_call>` is written as a JSON string, exact; typed
        // `string` it would be written raw with a U+2060 after its `<`, the documented guard.)
        $weather = ['type' => 'object', 'properties' => ['city' => ['type' => 'string'], 'days' => ['type' => 'integer']]];
        $search = ['type' => 'object', 'properties' => ['tags' => ['type' => 'array'], 'o' => ['type' => 'object']]];
        yield 'qwen3-coder with tools' => [['dialect' => 'qwen3-coder',
            'tools' => [['name' => 'search', 'schema' => $search], ['name' => 'get_weather', 'schema' => $weather]]]];
        yield 'a description' => [['dialect' => ['shape' => 'json-call', 'wrapper' => ['<call>', '</call>']]]];
    }

    /**
     * @dataProvider configs
     * @param array<string,mixed> $config
     */
    public function testCallsRoundTripThroughTheParser(array $config): void
    {
        $text = TokenSieve::formatToolCalls($config, self::CALLS);
        self::assertNotSame('', $text);
        $back = self::calls(TokenSieve::parse($config, $text));
        $want = array_map(static fn (array $c): array => [$c['name'], $c['input']], self::CALLS);
        self::assertEquals($want, $back, $text);
    }

    public function testExactText(): void
    {
        self::assertSame(
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
            TokenSieve::formatToolCalls(['dialect' => 'hermes'], [['name' => 'get_weather', 'input' => ['city' => 'Paris']]])
        );
        // An empty input (a PHP [] too) is {}; the id where the format carries it.
        self::assertSame(
            '[TOOL_CALLS]f[CALL_ID]abcdefghi[ARGS]{}',
            TokenSieve::formatToolCalls('{"dialect": "mistral"}', [['name' => 'f', 'id' => 'abcdefghi', 'input' => []]])
        );
        self::assertSame('', TokenSieve::formatToolCalls(['dialect' => 'hermes'], []));
        // Longer than the first buffer: the call is repeated with the size asked for.
        $long = str_repeat('é', 5000);
        $text = TokenSieve::formatToolCalls(['dialect' => 'hermes'], [['name' => 'f', 'input' => ['s' => $long]]]);
        self::assertSame([['f', ['s' => $long]]], self::calls(TokenSieve::parse(['dialect' => 'hermes'], $text)));
    }

    public function testResults(): void
    {
        self::assertSame(
            "<|im_system|>get_weather<|im_middle|>## Return of functions.get_weather:0\n18°C<|im_end|>"
            . '<|im_system|>tool<|im_middle|>ENOENT<|im_end|>',
            TokenSieve::formatToolResults('kimi-k2', [
                ['tool_use_id' => 'functions.get_weather:0', 'name' => 'get_weather', 'content' => '18°C'],
                ['content' => 'ENOENT', 'is_error' => true],
            ])
        );
        $text = TokenSieve::formatToolResults('hermes', [['content' => 'a </tool_response> b']]);
        $results = array_filter(
            TokenSieve::parse(['dialect' => 'hermes'], $text),
            static fn (array $e): bool => $e['event'] === 'block_complete' && $e['type'] === 'tool_result'
        );
        self::assertCount(1, $results);
    }

    public function testStopSequences(): void
    {
        self::assertSame(['<|return|>', '<|call|>'], TokenSieve::stopSequences('harmony'));
        self::assertSame(["\nHuman:", "\nUser:"], TokenSieve::stopSequences('anthropic-xml'));
        self::assertSame([], TokenSieve::stopSequences('passthrough'));
        self::assertSame(TokenSieve::stopSequences('glm-4.5'), TokenSieve::stopSequences('glm-4.7'));
    }

    public function testUnknownDialects(): void
    {
        foreach ([
            static fn () => TokenSieve::stopSequences('nope'),
            static fn () => TokenSieve::formatToolResults('nope', []),
            static fn () => TokenSieve::formatToolCalls(['dialect' => 'nope'], []),
        ] as $f) {
            try {
                $f();
                self::fail('no exception');
            } catch (ConfigException $e) {
                self::assertSame(-3, $e->getCode());
                self::assertStringContainsString('hermes', $e->getMessage());
            }
        }
    }

    public function testBadInput(): void
    {
        $cases = [
            [[['input' => ['a' => 1]]], 'calls_json: [0]: no "name" string'],
            [[['name' => 'f', 'input' => [1, 2]]], 'calls_json: [0]: "input" is not an object'],
            [[['name' => 'f', 'input' => ['x' => NAN]]], 'calls: cannot be written as JSON'],
        ];
        foreach ($cases as [$calls, $message]) {
            try {
                TokenSieve::formatToolCalls(['dialect' => 'hermes'], $calls);
                self::fail('no exception');
            } catch (Exception $e) {
                self::assertSame(-8, $e->getCode());
                self::assertStringContainsString($message, $e->getMessage());
            }
        }
        $this->expectException(Exception::class);
        $this->expectExceptionMessage('results_json: [0]: no "content" string');
        TokenSieve::formatToolResults('hermes', [['name' => 'f']]);
    }
}
