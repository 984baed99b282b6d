// tokensieve alone, for comparing builds (e.g. opt-levels: `TS_WASM_OPT=2 bash js/build.sh`,
// then `node js/bench-levels.mjs`): bench-side-by-side.mjs's own inputs and runners, CPU
// time, best of 5 (3 for the SSE body), one line. js/README.md, "Size and start-up".
import { SAMPLES, TOOLS, runTokensieve, openaiBody, runDecoder } from './bench-side-by-side.mjs';
import { instantiateMs, decodeInstantiateMs, Decoder } from './src/parse.js';
import os from 'node:os';
const best = (f, runs = 5) => { f(); let b = Infinity; for (let i = 0; i < runs; i++) b = Math.min(b, f()[0]); return b; };
const out = [`load ${os.loadavg()[0].toFixed(1)} inst ${instantiateMs.toFixed(1)}ms`];
const repeat = (s, n) => s.repeat(Math.ceil(n / s.length));
for (const d of Object.keys(SAMPLES)) {
  const t = repeat(SAMPLES[d], 256e3);
  out.push(`${d} 4B ${(best(() => runTokensieve(d, TOOLS.weather, t, 4)) / Math.ceil(t.length / 4)).toFixed(0)} ns`);
  const t2 = repeat(SAMPLES[d], 2e6);
  out.push(`${d} 64K ${(t2.length / best(() => runTokensieve(d, TOOLS.weather, t2, 65536)) * 1e3).toFixed(1)} MB/s`);
}
new Decoder({ provider: 'openai-chat' }).free();
out.push(`decode inst ${decodeInstantiateMs.toFixed(1)}ms`);
const body = new TextEncoder().encode(openaiBody(20000));
for (const c of [4, 64, 65536]) out.push(`sse ${c} ${(body.length / best(() => runDecoder(body, c), 3) * 1e3).toFixed(1)} MB/s`);
console.log(out.join('; '));
