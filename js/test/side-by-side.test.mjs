// bench-side-by-side.mjs (issue 26's speed proof; the timing itself is not a test) runs, and
// on a tiny input tokensieve and @ai-sdk-tool/parser find the same calls with equal inputs;
// the Decoder and eventsource-parser read the same OpenAI body.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SAMPLES, LONG, TOOLS, runTokensieve, runAisdk, openaiBody, runDecoder, runEventsource } from '../bench-side-by-side.mjs';

const calls = (run, d, tools, text, chunk) => run(d, tools, text, chunk, true)[1]
  .map(([name, input]) => [name, JSON.parse(input)]);

test('side by side: both parsers find the same calls', () => {
  for (const d of Object.keys(SAMPLES)) {
    const text = SAMPLES[d].repeat(3);
    for (const chunk of [4, 65536]) {
      const ts = calls(runTokensieve, d, TOOLS.weather, text, chunk);
      assert.equal(ts.length, 3, `${d} at ${chunk}`);
      assert.deepEqual(ts, calls(runAisdk, d, TOOLS.weather, text, chunk), `${d} at ${chunk}`);
    }
    const long = LONG[d](1000);
    const ts = calls(runTokensieve, d, TOOLS.write, long, 4);
    assert.deepEqual(ts, [['write', { path: 'a', body: 'x'.repeat(1000) }]], d);
    assert.deepEqual(ts, calls(runAisdk, d, TOOLS.write, long, 4), d);
  }
});

test('side by side: the Decoder and eventsource-parser read the OpenAI body', () => {
  const body = new TextEncoder().encode(openaiBody(10));
  // 10 deltas + the role's, 4 argument pieces, the name, the finish: 17 data events.
  assert.equal(runEventsource(body, 7)[1], 17);
  const [, events] = runDecoder(body, 7);
  assert.ok(events > 17, `${events} events`);
});

test('side by side: the script runs (--quick)', async () => {
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync(process.execPath, [new URL('../bench-side-by-side.mjs', import.meta.url).pathname, '--quick'],
    { encoding: 'utf8' });
  assert.match(out, /hermes transcript/);
  assert.match(out, /openai-chat SSE/);
  assert.doesNotMatch(out, /\b0 \/ /, out);
});
