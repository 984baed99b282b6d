<?php

declare(strict_types=1);

namespace TokenSieve\Tests;

use PHPUnit\Framework\TestCase;
use TokenSieve\ConfigException;
use TokenSieve\Decoder;
use TokenSieve\Exception;
use TokenSieve\StateException;

final class DecoderTest extends TestCase
{
    private const BODY = "data: {\"id\":\"r1\",\"model\":\"m\",\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n"
        . "data: {\"choices\":[{\"delta\":{\"content\":\"lo there\"}}]}\n\n"
        . "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
        . "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n";

    /** @param iterable<array<string,mixed>> $events */
    private static function summary(iterable $events): array
    {
        $text = '';
        $finish = null;
        foreach ($events as $e) {
            if ($e['event'] === 'chunk' && $e['visible']) {
                $text .= $e['text'];
            } elseif ($e['event'] === 'finish') {
                $finish = $e;
            }
        }
        return [$text, $finish];
    }

    public function testDecode(): void
    {
        [$text, $finish] = self::summary(Decoder::decode(['provider' => 'openai-chat'], self::BODY));
        self::assertSame('Hello there', $text);
        self::assertSame(['event' => 'finish', 'reason' => 'stop', 'raw_reason' => 'stop',
            'usage' => ['input_tokens' => 5, 'output_tokens' => 2], 'response_id' => 'r1', 'model' => 'm'], $finish);
    }

    public function testStreamOverAPsr7Body(): void
    {
        $expected = self::summary(Decoder::decode(['provider' => 'openai-chat'], self::BODY));
        foreach ([1, 5, 64, 8192] as $size) {
            $body = new MemoryStream(self::BODY, 13);
            self::assertSame($expected, self::summary((new Decoder(['provider' => 'openai-chat']))->stream($body, $size)), "read size $size");
            self::assertTrue($body->eof());
        }
    }

    public function testStreamOverIterables(): void
    {
        $expected = self::summary(Decoder::decode(['provider' => 'openai-chat'], self::BODY));
        self::assertSame($expected, self::summary((new Decoder(['provider' => 'openai-chat']))->stream(str_split(self::BODY, 7))));
        $reads = (function () {
            yield from str_split(self::BODY, 2);
        })();
        self::assertSame($expected, self::summary((new Decoder(['provider' => 'openai-chat']))->stream($reads)));
        self::assertSame($expected, self::summary((new Decoder(['provider' => 'openai-chat']))->stream(new \ArrayIterator([self::BODY]))));
    }

    public function testErrors(): void
    {
        try {
            new Decoder(['provider' => 'openai']);
            self::fail('no exception');
        } catch (ConfigException $e) {
            self::assertStringContainsString('provider', $e->getMessage());
        }
        $d = new Decoder(['provider' => 'openai-chat']);
        $d->finish();
        try {
            $d->feed('x');
            self::fail('no exception');
        } catch (StateException $e) {
            self::assertInstanceOf(Exception::class, $e);
        }
        $this->expectException(Exception::class);
        iterator_to_array((new Decoder(['provider' => 'openai-chat']))->stream(new \DateTime()));
    }

    public function testProviderErrorIsAnEvent(): void
    {
        $events = Decoder::decode(['provider' => 'openai-chat'],
            "data: {\"error\":{\"message\":\"Slow down\",\"code\":\"rate_limit_exceeded\"}}\n\n");
        $errors = array_values(array_filter($events, fn ($e) => $e['event'] === 'error'));
        self::assertSame([['event' => 'error', 'source' => 'provider', 'code' => 'rate_limit_exceeded',
            'message' => 'Slow down']], $errors);
    }
}
