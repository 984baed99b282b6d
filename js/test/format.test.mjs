// The writers: formatToolCalls, formatToolResults, stopSequences. What they write, a Sieve
// of the same config reads back as the same calls and results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sieve, formatToolCalls, formatToolResults, stopSequences } from '../src/index.js';

const CALLS = [
  { name: 'get_weather', id: 'call_0', input: { city: 'Paris', days: 3, t: 1.5 } },
  { name: 'search', input: { q: 'a </tool_call> <|call|> "b"', tags: ['x', null], o: { k: true } } },
];
const WANT = CALLS.map((c) => [c.name, c.input]);
const TYPED = {
  name: 'get_weather',
  schema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' }, t: { type: 'number' } } },
};

function callsBack(config, text) {
  const s = new Sieve(config);
  const evs = [...s.feed(text), ...s.finish()];
  s.free();
  return evs
    .filter((e) => e.event === 'block_complete' && e.type === 'tool_call')
    .map((e) => {
      assert.equal(e.error, undefined, text);
      return [e.tool_name, e.input];
    });
}

test('calls round-trip through the parser', () => {
  for (const dialect of ['hermes', 'kimi-k2', 'mistral', 'harmony', 'pythonic', 'deepseek-v3.1', 'gemma-4']) {
    const text = formatToolCalls(dialect, CALLS);
    assert.deepEqual(callsBack({ dialect }, text), WANT, `${dialect}: ${text}`);
  }
  for (const dialect of ['qwen3-coder', 'anthropic-xml', 'glm-4.5', 'minimax-m2']) {
    const config = { dialect, tools: [TYPED] };
    const text = formatToolCalls(config, CALLS);
    assert.deepEqual(callsBack(config, text), WANT, `${dialect}: ${text}`);
  }
  const described = { dialect: { shape: 'json-call', wrapper: ['<call>', '</call>'] } };
  const text = formatToolCalls(described, CALLS);
  assert.ok(text.startsWith('<call>'));
  assert.deepEqual(callsBack(described, text), WANT);
});

test('exact text', () => {
  assert.equal(
    formatToolCalls('hermes', [{ name: 'f', input: { a: 'é', n: null } }]),
    '<tool_call>\n{"name": "f", "arguments": {"a": "é", "n": null}}\n</tool_call>',
  );
  assert.equal(formatToolCalls('mistral', [{ name: 'f', id: 'abcdefghi' }]), '[TOOL_CALLS]f[CALL_ID]abcdefghi[ARGS]{}');
  assert.equal(formatToolCalls('hermes', []), '');
});

test('results', () => {
  assert.equal(
    formatToolResults('kimi-k2', [
      { tool_use_id: 'functions.get_weather:0', name: 'get_weather', content: '18°C' },
      { content: 'ENOENT', is_error: true },
    ]),
    '<|im_system|>get_weather<|im_middle|>## Return of functions.get_weather:0\n18°C<|im_end|>'
      + '<|im_system|>tool<|im_middle|>ENOENT<|im_end|>',
  );
  const s = new Sieve({ dialect: 'hermes' });
  const text = formatToolResults('hermes', [{ content: 'a </tool_response> b' }]);
  const evs = [...s.feed(text), ...s.finish()];
  assert.equal(evs.filter((e) => e.event === 'block_complete' && e.type === 'tool_result').length, 1);
});

test('stop sequences', () => {
  assert.deepEqual(stopSequences('harmony'), ['<|return|>', '<|call|>']);
  assert.deepEqual(stopSequences('anthropic-xml'), ['\nHuman:', '\nUser:']);
  assert.deepEqual(stopSequences('passthrough'), []);
  assert.deepEqual(stopSequences('glm-4.7'), stopSequences('glm-4.5'));
});

test('errors name what was wrong', () => {
  assert.throws(() => formatToolCalls('nope', CALLS), /config: .*dialect/);
  assert.throws(() => formatToolResults('nope', []), /unknown dialect "nope"/);
  assert.throws(() => stopSequences('nope'), /unknown dialect "nope"/);
  assert.throws(() => stopSequences(3), TypeError);
  assert.throws(() => formatToolCalls('hermes', [{ input: {} }]), /calls: \[0\]: no "name" string/);
  assert.throws(() => formatToolCalls('hermes', [{ name: 'f', input: [1] }]), /calls: \[0\]: "input" is not an object/);
  assert.throws(() => formatToolCalls('pythonic', [{ name: 'a b' }]), /calls: call 0: the name cannot be written/);
  assert.throws(() => formatToolCalls('hermes', { name: 'f' }), TypeError);
  assert.throws(() => formatToolResults('hermes', [{ name: 'f' }]), /results: \[0\]: no "content" string/);
});
