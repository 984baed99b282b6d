// The writers are a second module (tokensieve-format.wasm), instantiated on the first writer
// call, so a host that only parses never compiles it; `tokensieve/format` is the writers alone,
// `tokensieve/parse` the parser alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as main from '../src/index.js';
import * as format from 'tokensieve/format';
import * as parse from 'tokensieve/parse';

test('the writers module loads on the first writer call, not on import', () => {
  new main.Sieve({ dialect: 'hermes' }).free();
  assert.equal(main.formatInstantiateMs, 0, 'parsing alone does not instantiate the writers');
  assert.deepEqual(main.stopSequences('harmony'), ['<|return|>', '<|call|>']);
  assert.ok(main.formatInstantiateMs > 0, `instantiated on first use (${main.formatInstantiateMs} ms)`);
  // index.js re-exports format.js: one instance, the same functions.
  assert.equal(format.formatToolCalls, main.formatToolCalls);
  assert.equal(format.formatInstantiateMs, main.formatInstantiateMs);
});

test('tokensieve/format writes what index.js writes; loadWriters() resolves once loaded', async () => {
  await format.loadWriters();
  assert.equal(
    format.formatToolCalls('hermes', [{ name: 'f', input: { a: 1 } }]),
    '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>',
  );
  assert.equal(format.formatToolResults('hermes', [{ content: 'ok' }]), '<tool_response>\nok\n</tool_response>');
  // A long input grows the writers' own input buffer (their memory is not the parser's).
  const long = 'x'.repeat(100_000);
  assert.ok(format.formatToolResults('hermes', [{ content: long }]).includes(long));
  assert.throws(() => format.formatToolResults('nope', []), /unknown dialect "nope"/);
});

test('tokensieve/parse is the parser alone: the same classes, no writers', () => {
  assert.equal(parse.Sieve, main.Sieve);
  assert.equal(parse.stream, main.stream);
  assert.equal(parse.instantiateMs, main.instantiateMs);
  assert.ok(!('formatToolCalls' in parse) && !('loadWriters' in parse));
  assert.deepEqual(Object.keys(main).sort(), [...Object.keys(parse), ...Object.keys(format)].sort());
});
