// tokensieve's JS API and @ai-sdk-tool/parser side by side, in one process, on the same inputs
// (issue 26's speed proof; figures in js/README.md and benches/README.md, "JS"):
//   node js/bench-side-by-side.mjs [--quick]
// - transcripts: prose + one tool call, repeated (the anchor harness's bench samples, its
//   get_weather tool) in hermes, morph-xml and qwen3-coder: ns per 4-byte chunk, MB/s at 64 KiB;
// - one long argument (N bytes of `x` in a `write` call): ns per 4-byte chunk at 16 KiB, and
//   linearity (ns/byte at 64 KiB feeds for a 256 KiB and a 1 MB argument);
// - provider decoding: an OpenAI chat SSE body through `new Decoder({provider: 'openai-chat'})`
//   vs eventsource-parser + JSON.parse of each event's data.
// Times are CPU time of the process (process.cpuUsage: user + system), best of a few runs:
// the machine this was measured on is shared (load 7–14 on 2 cores), where wall-clock time
// mostly measures the other processes. Both parsers get the same strings (the AI SDK's text deltas are strings); the AI SDK's
// stream parser is driven as /work/shared/anchors/aisdk/harness.mjs's `--feed direct` does:
// its transformer called synchronously, no Web Streams machinery (its fastest form).
// Not part of test.sh (timing); test/side-by-side.test.mjs runs it on a tiny input.
import { pathToFileURL } from 'node:url';
import os from 'node:os';
import * as aisdk from '@ai-sdk-tool/parser';
import { createParser } from 'eventsource-parser';
import { Sieve, Decoder } from './src/parse.js';

const WEATHER = {
  type: 'object',
  properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] }, days: { type: 'number' } },
  required: ['city'],
};
const WRITE = { type: 'object', properties: { path: { type: 'string' }, body: { type: 'string' } } };
/** The tools of each input: [name, JSON schema]. */
export const TOOLS = { weather: [['get_weather', WEATHER]], write: [['write', WRITE]] };

const PROSE = 'Sure, let me look that up for you. I will check the current conditions first, '
  + 'then summarise the forecast for the next few days.\n';
const AFTER = '\nThe call has been issued; I will report back once the result arrives.\n\n';
/** The anchor harness's bench samples (prose, one get_weather call, prose). */
export const SAMPLES = {
  hermes: `${PROSE}<tool_call>\n{"name": "get_weather", "arguments": {"city": "Seoul", "unit": "celsius", "days": 3}}\n</tool_call>${AFTER}`,
  'morph-xml': `${PROSE}<get_weather>\n<city>Seoul</city>\n<unit>celsius</unit>\n<days>3</days>\n</get_weather>${AFTER}`,
  'qwen3-coder': `${PROSE}<tool_call>\n<function=get_weather>\n<parameter=city>\nSeoul\n</parameter>\n<parameter=unit>\ncelsius\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>${AFTER}`,
};
/** A `write` call whose body is `n` bytes of `x` (js/bench.mjs's inputs). */
export const LONG = {
  hermes: (n) => `Sure.<tool_call>{"name":"write","arguments":{"path":"a","body":"${'x'.repeat(n)}"}}</tool_call>Done.`,
  'morph-xml': (n) => `Sure.<write><path>a</path><body>${'x'.repeat(n)}</body></write>Done.`,
  'qwen3-coder': (n) => `Sure.<tool_call>\n<function=write>\n<parameter=path>\na\n</parameter>\n<parameter=body>\n${'x'.repeat(n)}\n</parameter>\n</function>\n</tool_call>Done.`,
};

const PROTOCOLS = {
  hermes: () => aisdk.hermesProtocol({}),
  'morph-xml': () => aisdk.morphXmlProtocol({}),
  'qwen3-coder': () => aisdk.qwen3CoderProtocol(),
};

/** CPU time of this process so far, in ns. */
function cpuNs() {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1e3;
}

const FINISH_PART = {
  type: 'finish',
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: {
    inputTokens: { total: 0, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 0, text: undefined, reasoning: undefined },
  },
};

/** The AI SDK parser's transformer object (as the harness's captureTransformer). */
function aisdkTransformer(dialect, tools, onCall) {
  const Orig = globalThis.TransformStream;
  let captured = null;
  globalThis.TransformStream = class extends Orig {
    constructor(transformer = {}, ...rest) {
      captured = transformer;
      super(transformer, ...rest);
    }
  };
  try {
    PROTOCOLS[dialect]().createStreamParser({
      tools: tools.map(([name, inputSchema]) => ({ type: 'function', name, description: '', inputSchema })),
      options: { onError: () => {} },
    });
  } finally {
    globalThis.TransformStream = Orig;
  }
  const ctrl = {
    enqueue(p) {
      if (p.type === 'tool-call') onCall(p.toolName, p.input);
    },
    error() {},
    terminate() {},
    desiredSize: 1,
  };
  return { transformer: captured, ctrl };
}

/**
 * Feeds `text` in `chunk`-unit strings through the AI SDK parser; returns [ns, calls] with
 * calls [name, input JSON text] (the input only when `keep`).
 */
export function runAisdk(dialect, tools, text, chunk, keep = false) {
  const calls = [];
  const { transformer, ctrl } = aisdkTransformer(dialect, tools,
    (name, input) => calls.push(keep ? [name, input] : name));
  const t0 = cpuNs();
  for (let i = 0; i < text.length; i += chunk) {
    transformer.transform({ type: 'text-delta', id: 't', delta: text.slice(i, i + chunk) }, ctrl);
  }
  transformer.transform(FINISH_PART, ctrl);
  transformer.flush?.(ctrl);
  return [cpuNs() - t0, calls];
}

/** The same through tokensieve's `Sieve` (`feed(string)` → events). */
export function runTokensieve(dialect, tools, text, chunk, keep = false) {
  const calls = [];
  // max_call_bytes above the default 1 MiB: the linearity run's argument is 1 MiB.
  const s = new Sieve({ dialect, tools: tools.map(([name, schema]) => ({ name, schema })), max_call_bytes: 4 << 20 });
  const take = (evs) => {
    for (const ev of evs) {
      if (ev.event === 'block_complete' && ev.type === 'tool_call' && ev.input) {
        calls.push(keep ? [ev.tool_name, JSON.stringify(ev.input)] : ev.tool_name);
      }
    }
  };
  const t0 = cpuNs();
  for (let i = 0; i < text.length; i += chunk) take(s.feed(text.slice(i, i + chunk)));
  take(s.finish());
  const ns = cpuNs() - t0;
  s.free();
  return [ns, calls];
}

/** An OpenAI chat completions SSE body: `n` text deltas, then a streamed tool call. */
export function openaiBody(n) {
  const head = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":';
  const ev = (delta, finish = null) => `data: ${head}${JSON.stringify(delta)},"finish_reason":${JSON.stringify(finish)}}]}\n\n`;
  let body = ev({ role: 'assistant', content: '' });
  const words = ['The', ' weather', ' in', ' Seoul', ' is', ' mild', ' today', ',', ' with', ' a'];
  for (let i = 0; i < n; i++) body += ev({ content: words[i % words.length] });
  body += ev({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] });
  for (const a of ['{"city"', ': "Seoul"', ', "days"', ': 3}']) body += ev({ tool_calls: [{ index: 0, function: { arguments: a } }] });
  body += ev({}, 'tool_calls');
  return `${body}data: [DONE]\n\n`;
}

/** The body's bytes in `chunk`-byte pieces through the Decoder; returns [ns, events]. */
export function runDecoder(bytes, chunk) {
  const d = new Decoder({ provider: 'openai-chat' });
  let n = 0;
  const t0 = cpuNs();
  for (let i = 0; i < bytes.length; i += chunk) n += d.feed(bytes.subarray(i, i + chunk)).length;
  n += d.finish().length;
  const ns = cpuNs() - t0;
  d.free();
  return [ns, n];
}

/** The same bytes through TextDecoder (streaming) + eventsource-parser + JSON.parse. */
export function runEventsource(bytes, chunk) {
  let n = 0;
  const text = new TextDecoder();
  const p = createParser({ onEvent: (e) => { if (e.data !== '[DONE]') n += JSON.parse(e.data).choices.length; } });
  const t0 = cpuNs();
  for (let i = 0; i < bytes.length; i += chunk) p.feed(text.decode(bytes.subarray(i, i + chunk), { stream: true }));
  p.feed(text.decode());
  const ns = cpuNs() - t0;
  return [ns, n];
}

/** Best of `runs` (after one warm-up unless `warm` is false) of f() → [ns, result]. */
function best(runs, f, warm = true) {
  if (warm) f();
  let out = null;
  for (let r = 0; r < runs; r++) {
    const x = f();
    if (!out || x[0] < out[0]) out = x;
  }
  return out;
}

function main() {
  const quick = process.argv.includes('--quick');
  const runs = quick ? 1 : 3;
  const rows = [];
  const row = (...cells) => {
    rows.push(cells);
    console.log(cells.join(' | '));
  };
  console.log(`node ${process.version}, ${os.cpus().length} cpus, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.log('input | chunk | tokensieve | @ai-sdk-tool/parser | ratio | calls (ts / ai-sdk)');
  const repeat = (s, bytes) => s.repeat(Math.ceil(bytes / s.length));
  for (const d of Object.keys(SAMPLES)) {
    for (const [chunk, size] of [[4, quick ? 8e3 : 256e3], [65536, quick ? 64e3 : 2e6]]) {
      const text = repeat(SAMPLES[d], size);
      const [a, ca] = best(runs, () => runTokensieve(d, TOOLS.weather, text, chunk));
      const [b, cb] = best(runs, () => runAisdk(d, TOOLS.weather, text, chunk));
      const chunks = Math.ceil(text.length / chunk);
      const fig = (ns) => (chunk === 4 ? `${(ns / chunks).toFixed(0)} ns/chunk` : `${(text.length / ns * 1e3).toFixed(1)} MB/s`);
      row(`${d} transcript ${(text.length / 1e3).toFixed(0)} kB`, chunk, fig(a), fig(b), `${(b / a).toFixed(1)}×`, `${ca.length} / ${cb.length}`);
    }
  }
  // One long argument: the AI SDK's parser re-reads its buffer on every delta (quadratic), so
  // its runs are single and its linearity run stops at 256 KiB (1 MiB would take minutes).
  const arg = quick ? 1024 : 16 * 1024;
  for (const d of Object.keys(LONG)) {
    const text = LONG[d](arg);
    const [a, ca] = best(runs, () => runTokensieve(d, TOOLS.write, text, 4));
    const [b, cb] = best(1, () => runAisdk(d, TOOLS.write, text, 4), false);
    const chunks = Math.ceil(text.length / 4);
    row(`${d} ${arg / 1024} KiB argument`, 4, `${(a / chunks).toFixed(0)} ns/chunk`, `${(b / chunks).toFixed(0)} ns/chunk`, `${(b / a).toFixed(1)}×`, `${ca.length} / ${cb.length}`);
    const sizes = quick ? [4096, 16384] : [65536, 256 * 1024, 1 << 20];
    const ts = sizes.map((n) => {
      const t = LONG[d](n);
      const [x, cx] = best(runs, () => runTokensieve(d, TOOLS.write, t, 65536));
      return [x / t.length, cx.length];
    });
    const ai = sizes.slice(0, 2).map((n) => {
      const t = LONG[d](n);
      const [y, cy] = best(1, () => runAisdk(d, TOOLS.write, t, 65536), false);
      return [y / t.length, cy.length];
    });
    const kib = (n) => (n >= 1 << 20 ? `${n >> 20} MiB` : `${n >> 10} KiB`);
    row(`${d} argument, ns/byte at ${sizes.map(kib).join(' → ')}`, 65536,
      ts.map((x) => x[0].toFixed(2)).join(' → '), ai.map((x) => x[0].toFixed(2)).join(' → '),
      `${(ai[1][0] / ts[1][0]).toFixed(1)}× at ${kib(sizes[1])}`, `${ts.map((x) => x[1]).join(',')} / ${ai.map((x) => x[1]).join(',')}`);
  }
  const body = new TextEncoder().encode(openaiBody(quick ? 200 : 20000));
  for (const chunk of [4, 64, 65536]) {
    const [a, na] = best(runs, () => runDecoder(body, chunk));
    const [b, nb] = best(runs, () => runEventsource(body, chunk));
    row(`openai-chat SSE ${(body.length / 1e6).toFixed(1)} MB`, chunk, `${(body.length / a * 1e3).toFixed(1)} MB/s`,
      `${(body.length / b * 1e3).toFixed(1)} MB/s (eventsource-parser + JSON.parse)`, `${(b / a).toFixed(2)}×`, `${na} events / ${nb} choices`);
  }
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
