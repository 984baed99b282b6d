// The provider decoder is a module of its own (tokensieve-decode.wasm), instantiated on the
// first Decoder, so a host that parses model text never compiles it (and the parser's module
// stays within issue 26's size budget at opt-level s). Its own process (node --test runs each
// file apart): nothing here has made a Decoder before the first test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as main from '../src/index.js';
import { Sieve, Decoder, stream, loadDecoder } from 'tokensieve/parse';

const sse = 'data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\ndata: [DONE]\n\n';
const text = (evs) => evs.filter((e) => e.event === 'chunk').map((e) => e.text).join('');

test('the decoder\'s module loads on the first Decoder (synchronously), not on import', () => {
  const s = new Sieve({ dialect: 'hermes' });
  assert.equal(text(s.feed('plain')), 'plain');
  s.free();
  assert.equal(main.decodeInstantiateMs, 0, 'parsing alone does not instantiate the decoder');
  const d = new Decoder({ provider: 'openai-chat' });
  assert.ok(main.decodeInstantiateMs > 0, `instantiated by the constructor (${main.decodeInstantiateMs} ms)`);
  assert.equal(text([...d.feed(sse), ...d.finish()]), 'Hi');
  d.free();
  assert.throws(() => new Decoder({ provider: 'nope' }), /config/);
});

test('a Decoder and a Sieve each use their own module\'s memory, interleaved', async () => {
  await loadDecoder(); // loaded already: resolves at once
  const d = new Decoder({ provider: 'openai-chat' });
  const s = new Sieve({ dialect: 'hermes' });
  // A long chunk grows the decoder's input buffer, not the parser's.
  const long = 'x'.repeat(200_000);
  const body = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: long } }] })}\n\n`;
  const got = [];
  const fromSieve = [];
  for (let i = 0; i < body.length; i += 50_000) {
    got.push(...d.feed(body.slice(i, i + 50_000)));
    fromSieve.push(...s.feed('é'));
  }
  got.push(...d.finish());
  fromSieve.push(...s.finish());
  assert.equal(text(got), long);
  assert.equal(text(fromSieve), 'é'.repeat(Math.ceil(body.length / 50_000)));
  d.free();
  s.free();
});

test('stream() of a provider body and decoder.transform() run on the decoder\'s module', async () => {
  const evs = [];
  for await (const ev of stream(new Response(sse).body, { provider: 'openai-chat' })) evs.push(ev);
  assert.equal(text(evs), 'Hi');
  const out = new Response(sse).body.pipeThrough(new TextDecoderStream())
    .pipeThrough(new Decoder({ provider: 'openai-chat' }).transform());
  const viaTransform = [];
  for await (const ev of out) viaTransform.push(ev);
  assert.deepEqual(viaTransform, evs);
});

test('the decoder\'s module exports take a null handle as an error', async () => {
  const { decodeExports } = await import('../src/decode.js');
  const wasm = decodeExports();
  const message = () => new TextDecoder().decode(new Uint8Array(wasm.memory.buffer, wasm.ts_out_ptr(), wasm.ts_out_len()));
  for (const call of [() => wasm.ts_feed(0, 0, 0), () => wasm.ts_finish(0), () => wasm.ts_reset(0)]) {
    assert.equal(call(), -1);
    assert.equal(message(), 'null handle');
  }
  assert.ok(!('ts_sieve_new' in wasm) && !('ts_prefill' in wasm), 'the decoder module has no Sieve exports');
  const { wasm: parser } = await import('../src/wasm.js');
  assert.ok(!('ts_decoder_new' in parser), 'the parser module has no Decoder exports');
});
