// The JS API on @ai-sdk-tool/parser's own bench samples (node js/bench-samples.mjs DIR, where
// DIR holds sample.<protocol>.txt from `node harness.mjs sample <protocol>` of
// shared/anchors/aisdk and its cases/bench_tools.json): each sample repeated up to 2 MB, fed in
// 4-byte and 64 KiB chunks, best of 3 — the same shape as `harness.mjs bench --size-mb 2`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Sieve } from './src/parse.js';

const dir = process.argv[2] ?? '/tmp';
const tools = JSON.parse(readFileSync(process.argv[3] ?? join(dir, 'aisdk/cases/bench_tools.json'), 'utf8'))
  .map((t) => ({ name: t.name, schema: t.inputSchema }));
for (const [proto, dialect] of [['hermes', 'hermes'], ['morph-xml', 'morph-xml'], ['qwen3coder', 'qwen3-coder']]) {
  const sample = readFileSync(join(dir, `sample.${proto}.txt`), 'utf8');
  const text = sample.repeat(Math.ceil(2e6 / sample.length));
  const bytes = new TextEncoder().encode(text);
  for (const chunk of [4, 65536]) {
    const times = [];
    for (let r = 0; r < 4; r++) {
      const s = new Sieve({ dialect, tools });
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < bytes.length; i += chunk) s.feed(bytes.subarray(i, i + chunk));
      s.finish();
      times.push(Number(process.hrtime.bigint() - t0));
      s.free();
    }
    const ns = Math.min(...times.slice(1));
    console.log(`${dialect} chunk ${chunk}: ${(ns / 1e6).toFixed(0)} ms, ${(bytes.length / ns * 1e3).toFixed(1)} MB/s, `
      + `${(ns / Math.ceil(bytes.length / chunk)).toFixed(0)} ns per chunk`);
  }
}
