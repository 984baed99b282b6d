<?php

declare(strict_types=1);

namespace TokenSieve\Tests;

use PHPUnit\Framework\TestCase;
use TokenSieve\ConfigException;
use TokenSieve\Exception;
use TokenSieve\StateException;
use TokenSieve\TokenSieve;

final class TokenSieveTest extends TestCase
{
    private const TEXT = 'Checking.<function_calls><invoke name="get_weather"><parameter name="city">Paris</parameter>'
        . '</invoke></function_calls> Done.';

    /** @param list<array<string,mixed>> $events */
    private static function visible(array $events): string
    {
        $out = '';
        foreach ($events as $e) {
            if ($e['event'] === 'chunk' && $e['visible']) {
                $out .= $e['text'];
            }
        }
        return $out;
    }

    public function testParseSplitsTextAndCalls(): void
    {
        $events = TokenSieve::parse(['dialect' => 'anthropic-xml'], self::TEXT);
        self::assertSame('Checking. Done.', self::visible($events));
        $calls = array_values(array_filter($events, fn ($e) => $e['event'] === 'block_complete' && $e['type'] === 'tool_call'));
        self::assertCount(1, $calls);
        self::assertSame(['city' => 'Paris'], $calls[0]['input']);
    }

    public function testStreamTakesIterablesAndPsr7Streams(): void
    {
        $config = ['dialect' => 'anthropic-xml'];
        $whole = self::visible(TokenSieve::parse($config, self::TEXT));
        $generator = (function () {
            foreach (str_split(self::TEXT, 3) as $piece) {
                yield $piece;
            }
        })();
        self::assertSame($whole, self::visible(iterator_to_array((new TokenSieve($config))->stream($generator), false)));
        self::assertSame($whole, self::visible(iterator_to_array((new TokenSieve($config))->stream(str_split(self::TEXT, 5)), false)));
        $body = new MemoryStream(self::TEXT, 4);
        self::assertSame($whole, self::visible(iterator_to_array((new TokenSieve($config))->stream($body, 7), false)));
        self::assertGreaterThan(10, $body->reads);
    }

    public function testEveryErrorIsAPackageException(): void
    {
        try {
            new TokenSieve(['dialect' => 'klingon']);
            self::fail('no exception');
        } catch (ConfigException $e) {
            self::assertInstanceOf(Exception::class, $e);
            self::assertInstanceOf(\RuntimeException::class, $e);
            self::assertStringContainsString('dialect', $e->getMessage());
            self::assertSame(-3, $e->getCode());
        }
        $this->expectExceptionObjectClass(ConfigException::class, fn () => new TokenSieve(['dialect' => 'hermes', 'max_call_bytes' => NAN]));
        $s = new TokenSieve(['dialect' => 'hermes']);
        $s->finish();
        $this->expectExceptionObjectClass(StateException::class, fn () => $s->feed('more'));
        $this->expectExceptionObjectClass(StateException::class, fn () => clone $s);
        $this->expectExceptionObjectClass(Exception::class, fn () => iterator_to_array((new TokenSieve(['dialect' => 'hermes']))->stream(new \stdClass())));
        $this->expectExceptionObjectClass(Exception::class, fn () => iterator_to_array((new TokenSieve(['dialect' => 'hermes']))->stream(new MemoryStream('x'), 0)));
    }

    public function testNoDefaultDialect(): void
    {
        try {
            new TokenSieve([]);
            self::fail('no exception');
        } catch (ConfigException $e) {
            self::assertStringContainsString('is required, one of', $e->getMessage());
            self::assertStringContainsString('anthropic-xml', $e->getMessage());
            self::assertStringContainsString('hermes', $e->getMessage());
        }
    }

    /** @param class-string<\Throwable> $class */
    private function expectExceptionObjectClass(string $class, callable $f): void
    {
        try {
            $f();
        } catch (\Throwable $t) {
            self::assertInstanceOf($class, $t, $t->getMessage());
            self::assertInstanceOf(Exception::class, $t);
            return;
        }
        self::fail("no $class");
    }
}
