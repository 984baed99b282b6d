// The core API beyond the vectors: errors, UTF-8 split across feeds, reset, prefill,
// TransformStream and the async iterable over a fetch-like body.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sieve, Decoder, stream, instantiateMs } from '../src/index.js';
import { coalesce } from './support.mjs';

const text = (evs) => evs.filter((e) => e.event === 'chunk' && e.visible).map((e) => e.text).join('');

test('a bad config throws with the message', () => {
  assert.throws(() => new Sieve({ dialect: 'nope' }), /dialect/);
  assert.throws(() => new Decoder({ provider: 'nope' }), /provider/);
  assert.throws(() => new Sieve({ dialect: 'morph-xml', tools: 3 }), /config/);
});

test('a character split between feeds', () => {
  const s = new Sieve({ dialect: 'passthrough' });
  const b = new TextEncoder().encode('a😀b');
  const evs = [];
  for (const x of b) evs.push(...s.feed(new Uint8Array([x])));
  evs.push(...s.finish());
  assert.equal(text(evs), 'a😀b');
});

test('reset, prefill and the JSON-lines form', () => {
  const s = new Sieve({ dialect: 'anthropic-xml' });
  s.prefill('Human: hi\n\nAssistant: <thinking>');
  const a = coalesce([...s.feed('hmm</thinking>Hi'), ...s.finish()]);
  assert.deepEqual(a.map((e) => e.type), ['thinking', 'thinking', 'thinking', 'text', 'text', 'text']);
  s.reset();
  const j = s.feedJson('x') + s.finishJson();
  assert.equal(j, '{"event":"block_start","index":0,"type":"text"}\n'
    + '{"event":"chunk","text":"x","type":"text","visible":true,"block":0,"depth":0}\n'
    + '{"event":"block_complete","index":0,"type":"text","content":"x"}\n');
  s.free();
  assert.throws(() => s.feed('x'), /free/);
});

test('transform() and stream() over a ReadableStream of bytes', async () => {
  const input = 'Hi <tool_call>{"name":"f","arguments":{"a":1}}</tool_call>';
  const bytes = new TextEncoder().encode(input);
  const body = () => new ReadableStream({
    start(c) {
      for (let i = 0; i < bytes.length; i += 5) c.enqueue(bytes.subarray(i, i + 5));
      c.close();
    },
  });
  const viaTransform = [];
  const reader = body().pipeThrough(new Sieve({ dialect: 'hermes' }).transform()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    viaTransform.push(value);
  }
  const viaIter = [];
  for await (const ev of stream(body(), { dialect: 'hermes' })) viaIter.push(ev);
  const whole = new Sieve({ dialect: 'hermes' });
  const expected = coalesce([...whole.feed(input), ...whole.finish()]);
  assert.deepEqual(coalesce(viaTransform), expected);
  assert.deepEqual(coalesce(viaIter), expected);
  assert.equal(expected.at(-1).input.a, 1);
});

test('stream() decodes a provider body (a Response, as fetch gives)', async () => {
  const sse = 'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n'
    + 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}\n\n'
    + 'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n';
  const evs = [];
  for await (const ev of stream(new Response(sse).body, { provider: 'anthropic' })) evs.push(ev);
  assert.equal(text(evs), 'Hello');
});

test('instantiation time is measured', () => {
  assert.ok(instantiateMs >= 0);
});

test('the wasm exports take a null handle as an error, never undefined behaviour', async () => {
  const { wasm } = await import('../src/wasm.js');
  const message = () => new TextDecoder().decode(new Uint8Array(wasm.memory.buffer, wasm.ts_out_ptr(), wasm.ts_out_len()));
  for (const call of [() => wasm.ts_feed(0, 0, 0), () => wasm.ts_finish(0), () => wasm.ts_reset(0), () => wasm.ts_prefill(0, 0, 0)]) {
    assert.equal(call(), -1);
    assert.equal(message(), 'null handle');
  }
  wasm.ts_drop(0); // null: nothing
});

test('a Decoder has no prefill; Sieve and Decoder share one base', () => {
  const d = new Decoder({ provider: 'openai-chat' });
  assert.equal(typeof d.prefill, 'undefined');
  assert.equal(Object.getPrototypeOf(Sieve.prototype), Object.getPrototypeOf(Decoder.prototype));
  d.reset();
  d.free();
});
