// Throughput of the JS API (node js/bench.mjs): ns per 4-byte chunk and MB/s at 64 KiB feeds
// on hermes, morph-xml and qwen3-coder transcripts, and a 1 MB argument (linearity).
// `--cpu`: CPU time of the process (process.cpuUsage) instead of wall-clock time, for a
// loaded machine, where wall-clock time mostly measures the other processes.
import { Sieve, instantiateMs } from './src/parse.js';

const tools = [{ name: 'write', schema: { type: 'object', properties: { path: { type: 'string' }, body: { type: 'string' } } } }];
const arg = (n) => 'x'.repeat(n);
const inputs = {
  hermes: (n) => `Sure.<tool_call>{"name":"write","arguments":{"path":"a","body":"${arg(n)}"}}</tool_call>Done.`,
  'morph-xml': (n) => `Sure.<write><path>a</path><body>${arg(n)}</body></write>Done.`,
  'qwen3-coder': (n) => `Sure.<tool_call>\n<function=write>\n<parameter=path>\na\n</parameter>\n<parameter=body>\n${arg(n)}\n</parameter>\n</function>\n</tool_call>Done.`,
};

const cpu = process.argv.includes('--cpu');
function now() {
  if (!cpu) return process.hrtime.bigint();
  const u = process.cpuUsage();
  return BigInt(u.user + u.system) * 1000n;
}

function run(dialect, bytes, chunk) {
  const s = new Sieve({ dialect, tools });
  const t0 = now();
  let n = 0;
  for (let i = 0; i < bytes.length; i += chunk) n += s.feed(bytes.subarray(i, i + chunk)).length;
  n += s.finish().length;
  const ns = Number(now() - t0);
  s.free();
  return ns;
}

console.log(`instantiation: ${instantiateMs.toFixed(1)} ms`);
for (const [d, make] of Object.entries(inputs)) {
  const small = new TextEncoder().encode(make(64 * 1024));
  run(d, small, 4);
  const ns4 = Math.min(...[0, 1, 2].map(() => run(d, small, 4)));
  const big = new TextEncoder().encode(make(4 << 20));
  run(d, big, 65536);
  const ns64 = Math.min(...[0, 1, 2].map(() => run(d, big, 65536)));
  const lin = [1 << 20, 2 << 20].map((n) => {
    const b = new TextEncoder().encode(make(n));
    return Math.min(...[0, 1].map(() => run(d, b, 65536))) / b.length;
  });
  console.log(`${d}: ${(ns4 / (small.length / 4)).toFixed(0)} ns per 4-byte chunk; `
    + `${(big.length / ns64 * 1e3).toFixed(0)} MB/s at 64 KiB; `
    + `ns/byte at 1 MB ${lin[0].toFixed(2)}, at 2 MB ${lin[1].toFixed(2)}`);
}
