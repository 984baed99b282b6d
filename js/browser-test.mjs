// Headless Chromium loads the playground, streams conformance vectors through the JS API in
// the browser at chunk sizes 1, 7 and whole, and compares the events (node js/browser-test.mjs
// [--screenshot FILE]). Needs Debian's `chromium`. test.sh --full runs it.
import { execFileSync, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { serve } from './playground/serve.mjs';
import { coalesce } from './test/support.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const chrome = ['chromium', 'chromium-browser', 'google-chrome'].find((c) => {
  try { execFileSync('which', [c], { stdio: 'ignore' }); return true; } catch { return false; }
});
if (!chrome) { console.error('chromium not installed'); process.exit(1); }
const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];
// Asynchronous: the page's server runs in this process.
const run = async (args) => (await promisify(execFile)(chrome,
  [...flags, `--user-data-dir=${mkdtempSync(join(tmpdir(), 'ts-chr-'))}`, ...args],
  { encoding: 'utf8', timeout: 60000, maxBuffer: 64 << 20 })).stdout;

// The page's events as it wrote them into #result ('' while it has not finished). On a loaded
// machine the dump can come before the page's fetches and the .wasm's compilation are done
// (an empty #result, seen once in CI): that is the page not finished, not a wrong answer, so
// the page is loaded again with more virtual time, up to ATTEMPTS times.
const ATTEMPTS = 4;
const result = async (url) => {
  for (let attempt = 1; ; attempt++) {
    const dom = await run([`--virtual-time-budget=${10000 * attempt}`, '--dump-dom', url]);
    const m = dom.match(/<pre id="result" hidden="">([\s\S]*?)<\/pre>/);
    const text = m ? m[1].replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&') : '';
    if (text !== '' || attempt === ATTEMPTS) return text;
    console.error(`(${url}: the page had not finished; loading it again, attempt ${attempt + 1})`);
  }
};

const server = await serve(0);
const base = `http://127.0.0.1:${server.address().port}`;
try {
  const vectors = [];
  for (const d of ['hermes', 'anthropic-xml', 'qwen3-coder']) {
    const files = readdirSync(join(here, '..', 'conformance', 'cases', d)).filter((f) => f.endsWith('.json')).sort();
    vectors.push(...files.slice(0, 2).map((f) => `conformance/cases/${d}/${f}`));
  }
  // Provider bodies: the Decoder's own module (tokensieve-decode.wasm), compiled synchronously
  // on the page's main thread by the first `new Decoder`.
  for (const p of ['openai-chat', 'anthropic']) {
    const files = readdirSync(join(here, '..', 'conformance', 'providers', p)).filter((f) => f.endsWith('.json')).sort();
    vectors.push(...files.slice(0, 2).map((f) => `conformance/providers/${p}/${f}`));
  }
  let n = 0;
  for (const v of vectors) {
    const expected = JSON.parse(readFileSync(join(here, '..', v), 'utf8')).events;
    for (const size of [1, 7, 0]) {
      const text = await result(`${base}/js/playground/?vector=/${v}&size=${size}`);
      assert.ok(text !== '', `${v}: no result in the page after ${ATTEMPTS} attempts`);
      assert.deepEqual(coalesce(JSON.parse(text)), expected, `${v} at chunk size ${size}`);
      n++;
    }
  }
  console.log(`chromium: ${vectors.length} vectors × 3 chunk sizes through the playground: ${n} ok`);
  // The writers' module, compiled synchronously on the page's main thread at the first call:
  // the same texts as in Node (the page's writersSample() run here on the same functions).
  const page = await result(`${base}/js/playground/?writers=1`);
  const w = await import('./src/format.js');
  const calls = [{ name: 'get_weather', input: { city: 'Paris', n: 1.50 } }];
  const want = [
    w.formatToolCalls('hermes', calls),
    w.formatToolCalls({ dialect: 'qwen3-coder', tools: [{ name: 'get_weather' }] }, calls),
    w.formatToolDefinitions('kimi-k2', [{ name: 'ping', description: 'Is it up?', schema: { type: 'object' } }]),
    w.formatToolResults('harmony', [{ content: '18°C', name: 'get_weather' }]),
    w.stopSequences('harmony'),
  ];
  assert.deepEqual(JSON.parse(page), want, 'the writers in Chromium');
  console.log('chromium: the writers\' module (loaded on first use) writes what Node writes: ok');
  const shot = process.argv.indexOf('--screenshot');
  if (shot > 0) {
    await run(['--window-size=1200,820', '--virtual-time-budget=15000', `--screenshot=${process.argv[shot + 1]}`, `${base}/js/playground/`]);
    console.log(`screenshot: ${process.argv[shot + 1]}`);
  }
} finally {
  server.close();
}
