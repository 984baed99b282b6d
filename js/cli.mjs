#!/usr/bin/env node
// conformance/check.py's command contract over the JS API:
//   node js/cli.mjs --config CONFIG.json [--prefill FILE] --chunk N --json INPUT_FILE
// One JSON event per line on stdout. A config with `provider` goes through a Decoder,
// one with `dialect` through a Sieve. (Node-only: the package itself never reads files.)
import { readFileSync } from 'node:fs';
import { Sieve, Decoder } from './src/parse.js';

const args = process.argv.slice(2);
let config, prefill, chunk = 0, file;
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--config') config = JSON.parse(readFileSync(args[++i], 'utf8'));
  else if (a === '--prefill') prefill = readFileSync(args[++i]);
  else if (a === '--chunk') chunk = Number(args[++i]);
  else if (a === '--json') continue;
  else file = a;
}
if (!config || !file) {
  process.stderr.write('usage: cli.mjs --config FILE [--prefill FILE] --chunk N --json FILE\n');
  process.exit(2);
}
const input = new Uint8Array(readFileSync(file));
const out = [];
try {
  const feeder = 'provider' in config ? new Decoder(config) : new Sieve(config);
  if (prefill) feeder.prefill(new Uint8Array(prefill));
  const size = chunk > 0 ? chunk : Math.max(input.length, 1);
  for (let i = 0; i < input.length; i += size) {
    out.push(feeder.feedJson(input.subarray(i, i + size)));
  }
  out.push(feeder.finishJson());
} catch (e) {
  process.stderr.write(`tokensieve: ${e.message}\n`);
  process.exit(2);
}
process.stdout.write(out.join(''));
