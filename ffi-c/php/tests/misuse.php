<?php
/** PHP binding: misuse and API shape. Prints "N passed, M failed". */

declare(strict_types=1);

require __DIR__ . '/../autoload.php';

use TokenSieve\Decoder;
use TokenSieve\TokenSieve;
use TokenSieve\Exception as TokenSieveError;

$passed = $failed = 0;
function check(bool $ok, string $what): void
{
    global $passed, $failed;
    if ($ok) {
        $passed++;
    } else {
        $failed++;
        fwrite(STDERR, "FAIL $what\n");
    }
}
function throws(callable $f, string $needle, string $what): void
{
    try {
        $f();
        check(false, "$what: no exception");
    } catch (TokenSieveError $e) {
        check(str_contains($e->getMessage(), $needle), "$what: message '{$e->getMessage()}' lacks '$needle'");
    }
}

$ax = ['dialect' => 'anthropic-xml'];

// Bad configs name the key.
throws(fn () => new TokenSieve(['dialect' => 'klingon']), 'dialect', 'unknown dialect');
throws(fn () => new TokenSieve(['dialect' => 'anthropic-xml', 'colour' => 1]), 'colour', 'unknown key');
throws(fn () => new TokenSieve('{"dialect":'), 'JSON', 'broken JSON');
throws(fn () => new TokenSieve(['dialect' => 'passthrough', 'stop_sequences' => ['']]), 'stop_sequences', 'empty stop');
if (!TokenSieve::load()->tokensieve_dialect_supported(4)) {
    throws(fn () => new TokenSieve(['dialect' => 'qwen3-coder']), 'not supported', 'unsupported dialect');
} else {
    check(true, 'qwen3-coder supported');
}

// Configs PHP cannot write as JSON, or that C would cut at a NUL, are refused by the class.
throws(fn () => new TokenSieve(['dialect' => 'hermes', 'max_call_bytes' => NAN]), 'config', 'NaN in config');
throws(fn () => new TokenSieve(['dialect' => "hermes\xff"]), 'config', 'non-UTF-8 config value');
throws(fn () => new TokenSieve("{\"dialect\":\"hermes\"}\0{"), 'NUL', 'NUL byte in config text');

// Lifetime: a clone would share the C parser (both would free it); a destroyed object refuses.
$s = new TokenSieve($ax);
throws(fn () => clone $s, 'cloned', 'clone');
check($s->feed('still') !== [], 'original works after a refused clone');
$s->__destruct();
throws(fn () => $s->feed('x'), 'destroyed', 'feed after __destruct');
throws(fn () => $s->finish(), 'destroyed', 'finish after __destruct');
throws(fn () => $s->reset(), 'destroyed', 'reset after __destruct');
throws(fn () => $s->prefill('x'), 'destroyed', 'prefill after __destruct');
$s->__destruct();
unset($s);
check(true, 'double __destruct and release are harmless');

$s = new TokenSieve($ax);
$s->feed('Hello');
throws(fn () => $s->prefill('x'), 'prefill', 'prefill after feed');
$s->finish();
throws(fn () => $s->feed('more'), 'after tokensieve_finish', 'feed after finish');
check($s->finish() === [], 'finish twice gives nothing');
$s->reset();
$s->prefill('<thinking>');
$evs = [...$s->feed('deep'), ...$s->finish()];
check($evs[0] === ['event' => 'block_start', 'index' => 0, 'type' => 'thinking'], 'prefill into thinking');

// Shapes, tools, accumulation.
$cfg = ['dialect' => 'anthropic-xml', 'tools' => [['name' => 'get_weather', 'schema' => [
    'type' => 'object', 'properties' => ['city' => ['type' => 'string'], 'days' => ['type' => 'integer']]]]]];
$text = 'Checking.<function_calls><invoke name="get_weather"><parameter name="city">Paris</parameter>'
      . '<parameter name="days">3</parameter></invoke></function_calls>';
$evs = TokenSieve::parse($cfg, $text);
$call = array_values(array_filter($evs, fn ($e) => $e['event'] === 'block_complete' && $e['type'] === 'tool_call'))[0];
check($call['input'] === ['city' => 'Paris', 'days' => 3], 'typed input decoded');
check($call['input_json'] === '{"city":"Paris","days":3}', 'input_json compact');
check($call['tool_name'] === 'get_weather' && $call['tool_id'] === 'call_0', 'names');
check($evs[1] === ['event' => 'chunk', 'text' => 'Checking.', 'type' => 'text', 'visible' => true, 'block' => 0, 'depth' => 0], 'chunk shape');
check($evs[2] === ['event' => 'block_complete', 'index' => 0, 'type' => 'text', 'content' => 'Checking.'], 'content');

// The generator gives the same events as feed + finish, for any chunking.
$gen = new TokenSieve($cfg);
$chunks = (function () use ($text) {
    foreach (str_split($text, 3) as $c) {
        yield $c;
    }
})();
$streamed = iterator_to_array($gen->stream($chunks), false);
$coalesce = function (array $evs): array {
    $out = [];
    foreach ($evs as $e) {
        $n = count($out);
        if ($n && $e['event'] === 'chunk' && $out[$n - 1]['event'] === 'chunk'
            && array_diff_key($e, ['text' => 1]) == array_diff_key($out[$n - 1], ['text' => 1])) {
            $out[$n - 1]['text'] .= $e['text'];
        } else {
            $out[] = $e;
        }
    }
    return $out;
};
check($coalesce($streamed) == $coalesce($evs), 'stream() equals parse()');

// A failed call: error with raw bytes, raw re-emitted as text; without accumulation no content.
$plain = new TokenSieve($ax, false);
$evs = [...$plain->feed("<function_calls><invoke>oops</invoke></function_calls>"), ...$plain->finish()];
$failedCall = array_values(array_filter($evs, fn ($e) => isset($e['error'])))[0] ?? null;
check($failedCall !== null && $failedCall['error']['raw'] === '<invoke>oops</invoke>', 'error raw');
check(!array_key_exists('content', end($evs)), 'no accumulation when off');

// Stop sequences end the stream; input after that is ignored.
$st = new TokenSieve(['dialect' => 'passthrough', 'stop_sequences' => ["\nHuman:"]]);
$evs = $st->feed("Bye.\nHuman: more");
check(end($evs) === ['event' => 'stop', 'sequence' => "\nHuman:"], 'stop event');
check($st->feed('ignored') === [] && $st->finish() === [], 'after stop');

// Split UTF-8 characters come out whole.
$u = new TokenSieve($ax);
$out = '';
foreach (str_split("na\u{ef}ve \u{1F600}", 1) as $b) {
    foreach ($u->feed($b) as $e) {
        if ($e['event'] === 'chunk') {
            check(preg_match('//u', $e['text']) === 1, 'chunk is whole UTF-8');
            $out .= $e['text'];
        }
    }
}
foreach ($u->finish() as $e) {
    if ($e['event'] === 'chunk') {
        $out .= $e['text'];
    }
}
check($out === "na\u{ef}ve \u{1F600}", 'split characters reassembled');

// The decoder: bad configs name the key; lifetime and states as TokenSieve's.
$oc = ['provider' => 'openai-chat'];
throws(fn () => new Decoder([]), 'provider', 'decoder without provider');
throws(fn () => new Decoder(['provider' => 'openai']), 'provider', 'unknown provider');
throws(fn () => new Decoder(['provider' => 'openai-chat', 'dialect' => 'hermes']), 'text_dialect', 'dialect key');
throws(fn () => new Decoder(['provider' => 'openai-chat', 'text_dialect' => 'nope']), 'text_dialect', 'bad text dialect');
throws(fn () => new Decoder(['provider' => 'openai-chat', 'colour' => 1]), 'colour', 'unknown decoder key');
throws(fn () => new Decoder('{"provider":'), 'JSON', 'broken decoder JSON');
check(Decoder::supported('openai-chat') && !Decoder::supported('klingon'), 'Decoder::supported');
foreach (['openai-responses', 'anthropic', 'gemini', 'bedrock', 'ollama'] as $p) {
    if (!Decoder::supported($p)) {
        throws(fn () => new Decoder(['provider' => $p]), 'provider', "unsupported provider $p");
    }
}
$d = new Decoder($oc);
throws(fn () => clone $d, 'cloned', 'decoder clone');
$body = "data: {\"id\":\"r1\",\"model\":\"m\",\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n"
      . "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
      . "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n";
$evs = [...$d->feed($body), ...$d->finish()];
check(end($evs) === ['event' => 'finish', 'reason' => 'stop', 'raw_reason' => 'stop',
    'usage' => ['input_tokens' => 5, 'output_tokens' => 2], 'response_id' => 'r1', 'model' => 'm'], 'finish shape');
check($evs[2] === ['event' => 'block_complete', 'index' => 0, 'type' => 'text', 'content' => 'Hi'], 'decoder content');
throws(fn () => $d->feed('more'), 'after tokensieve_decoder_finish', 'decoder feed after finish');
check($d->finish() === [], 'decoder finish twice');
$d->reset();
$evs = Decoder::decode($oc, "data: {\"error\":{\"message\":\"Slow down\",\"code\":\"rate_limit_exceeded\"}}\n\n");
$errs = array_values(array_filter($evs, fn ($e) => $e['event'] === 'error'));
check(count($errs) === 1 && $errs[0] === ['event' => 'error', 'source' => 'provider',
    'code' => 'rate_limit_exceeded', 'message' => 'Slow down'], 'error shape');
throws(fn () => iterator_to_array($d->stream(new \stdClass())), 'iterable', 'stream of a non-stream');
$d->__destruct();
throws(fn () => $d->feed('x'), 'destroyed', 'decoder feed after __destruct');
$d->__destruct();
unset($d);
// The generator over reads equals decode(), for any chunking.
$g = new Decoder($oc);
$streamed = iterator_to_array($g->stream(str_split($body, 3)), false);
check($coalesce($streamed) == $coalesce(Decoder::decode($oc, $body)), 'Decoder::stream() equals decode()');

echo "php misuse: $passed passed, $failed failed\n";
exit($failed ? 1 : 0);
