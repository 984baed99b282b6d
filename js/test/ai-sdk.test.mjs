// The AI SDK middleware through `ai`'s own wrapLanguageModel, streamText and generateText
// (ai 7.0.173, a devDependency) over a mock model replaying recorded model outputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { wrapLanguageModel, streamText, generateText, simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { tokensieveMiddleware } from '../src/ai-sdk.js';

const vector = (p) => JSON.parse(readFileSync(new URL(`../../conformance/cases/${p}`, import.meta.url), 'utf8'));
const usage = { inputTokens: { total: 1 }, outputTokens: { total: 1 } };

function mock(text, size) {
  const deltas = [];
  for (let i = 0; i < text.length; i += size) deltas.push(text.slice(i, i + size));
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: simulateReadableStream({
        chunks: [
          { type: 'stream-start', warnings: [] },
          { type: 'text-start', id: 't' },
          ...deltas.map((delta) => ({ type: 'text-delta', id: 't', delta })),
          { type: 'text-end', id: 't' },
          { type: 'finish', usage, finishReason: { unified: 'stop', raw: 'stop' } },
        ],
      }),
    }),
    doGenerate: async () => ({
      content: [{ type: 'text', text }],
      usage,
      finishReason: { unified: 'stop', raw: 'stop' },
      warnings: [],
    }),
  });
}

const recorded = 'Let me look.<think>The user wants weather.</think>'
  + '<tool_call>{"name":"get_weather","arguments":{"city":"Paris","days":3}}</tool_call>';

test('wrapStream: text, reasoning and tool-call parts in order, at several chunk sizes', async () => {
  for (const size of [1, 7, 1000]) {
    const model = wrapLanguageModel({ model: mock(recorded, size), middleware: tokensieveMiddleware({ dialect: 'hermes' }) });
    const { stream } = await model.doStream({ prompt: [] });
    const parts = [];
    for await (const p of stream) parts.push(p);
    const types = parts.map((p) => p.type).filter((t, i, a) => !t.endsWith('-delta') || a[i - 1] !== t);
    assert.deepEqual(types, ['stream-start', 'text-start', 'text-delta', 'text-end',
      'reasoning-start', 'reasoning-delta', 'reasoning-end',
      'tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-call', 'finish'], `size ${size}`);
    const text = parts.filter((p) => p.type === 'text-delta').map((p) => p.delta).join('');
    assert.equal(text, 'Let me look.');
    const call = parts.find((p) => p.type === 'tool-call');
    assert.equal(call.toolName, 'get_weather');
    assert.deepEqual(JSON.parse(call.input), { city: 'Paris', days: 3 });
    assert.equal(parts.at(-1).finishReason.unified, 'tool-calls');
  }
});

test('streamText end to end', async () => {
  const model = wrapLanguageModel({ model: mock(recorded, 5), middleware: tokensieveMiddleware({ dialect: 'hermes' }) });
  const r = streamText({ model, prompt: 'weather?' });
  assert.equal(await r.text, 'Let me look.');
  const calls = await r.toolCalls;
  assert.equal(calls.length, 1);
  assert.equal(calls[0].toolName, 'get_weather');
});

test('wrapGenerate on recorded vectors (hermes, qwen3-coder)', async () => {
  const picked = [];
  for (const d of ['hermes', 'qwen3-coder', 'morph-xml']) {
    const dir = new URL(`../../conformance/cases/${d}/`, import.meta.url);
    for (const f of readdirSync(dir).sort()) {
      const v = vector(`${d}/${f}`);
      if (v.input !== undefined && v.prefill == null && !v.config.stop_sequences
          && v.events.some((e) => e.type === 'tool_call')) picked.push([`${d}/${f}`, v]);
    }
  }
  assert.ok(picked.length > 30);
  for (const [p, v] of picked) {
    const mw = tokensieveMiddleware(v.config);
    const r = await mw.wrapGenerate({ doGenerate: () => mock(v.input, 1).doGenerate({ prompt: [] }) });
    const expectedCalls = v.events.filter((e) => e.event === 'block_complete' && e.type === 'tool_call' && !e.error);
    const calls = r.content.filter((c) => c.type === 'tool-call');
    assert.deepEqual(calls.map((c) => [c.toolName, c.toolCallId, JSON.parse(c.input)]),
      expectedCalls.map((e) => [e.tool_name, e.tool_id, e.input]), p);
    assert.equal(r.finishReason.unified, calls.length ? 'tool-calls' : 'stop');
  }
  const model = wrapLanguageModel({ model: mock(recorded, 1), middleware: tokensieveMiddleware({ dialect: 'hermes' }) });
  const g = await generateText({ model, prompt: 'x' });
  assert.equal(g.text, 'Let me look.');
  assert.equal(g.reasoningText, 'The user wants weather.');
  assert.equal(g.toolCalls[0].toolName, 'get_weather');
  assert.equal(g.finishReason, 'tool-calls');
});
