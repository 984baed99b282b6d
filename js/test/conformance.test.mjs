// Every conformance vector (model-text dialects and provider streams) through the object
// API (Sieve / Decoder .feed() / .finish()) at chunk sizes 1, 7 and whole, in one process.
// (`conformance/check.py --cmd "node js/cli.mjs"` runs the same vectors through the JSON-lines
// form with the runner's exact comparison; test.sh --full does that.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Sieve, Decoder } from '../src/index.js';
import { coalesce } from './support.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'conformance');
const DECODER_CODES = new Set(['unexpected-message-start']);

function* vectors(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* vectors(p);
    else if (name.endsWith('.json')) yield p;
  }
}

function load(path) {
  const v = JSON.parse(readFileSync(path, 'utf8'));
  let data;
  if ('input' in v) data = new TextEncoder().encode(v.input);
  else if ('input_hex' in v) data = new Uint8Array(Buffer.from(v.input_hex, 'hex'));
  else data = new Uint8Array(readFileSync(join(dirname(path), v.input_file)));
  return { ...v, data };
}

function run(v, size) {
  const feeder = 'provider' in v.config ? new Decoder(v.config) : new Sieve(v.config);
  try {
    if (v.prefill != null) feeder.prefill(v.prefill);
    const evs = [];
    const n = size > 0 ? size : Math.max(v.data.length, 1);
    for (let i = 0; i < v.data.length; i += n) evs.push(...feeder.feed(v.data.subarray(i, i + n)));
    evs.push(...feeder.finish());
    return coalesce(evs);
  } finally {
    feeder.free();
  }
}

/**
 * The object API's events (binary records decoded in JS) against the JSON lines of feedJson
 * (the CLI's form), fed the same chunks, uncoalesced: every field, in the same key order.
 */
function sameAsJson(v, size, label) {
  const make = () => ('provider' in v.config ? new Decoder(v.config) : new Sieve(v.config));
  const a = make();
  const b = make();
  try {
    if (v.prefill != null) {
      a.prefill(v.prefill);
      b.prefill(v.prefill);
    }
    const objects = [];
    let lines = '';
    const n = size > 0 ? size : Math.max(v.data.length, 1);
    for (let i = 0; i < v.data.length; i += n) {
      const evs = a.feed(v.data.subarray(i, i + n));
      const text = b.feedJson(v.data.subarray(i, i + n));
      assert.equal(evs.length, text ? text.split('\n').length - 1 : 0, `${label}: feed at ${i}`);
      objects.push(...evs);
      lines += text;
    }
    objects.push(...a.finish());
    lines += b.finishJson();
    const want = lines.split('\n').slice(0, -1);
    assert.equal(objects.length, want.length, `${label}: events`);
    for (let i = 0; i < want.length; i++) {
      assert.equal(JSON.stringify(objects[i]), JSON.stringify(JSON.parse(want[i])),
        `${label}, event ${i}: binary records vs the JSON line`);
    }
  } finally {
    a.free();
    b.free();
  }
}

const parsed = (s) => { try { return JSON.parse(s); } catch { return undefined; } };

/** Mirrors check.py's allowances: decoder-written error messages, transcoded JSON. */
function normalise(exp, act, provider) {
  const a = { ...act };
  if (exp.event === 'error' && (exp.source === 'framing' || DECODER_CODES.has(exp.code))
      && typeof a.message === 'string' && a.message) a.message = exp.message;
  for (const k of ['text', 'content']) {
    if (typeof exp[k] === 'string' && typeof a[k] === 'string' && exp[k] !== a[k]
        && (provider && exp.type === 'tool_result' || exp.part === 'input')) {
      const e = parsed(exp[k]);
      if (e !== undefined) assert.deepEqual(parsed(a[k]), e);
      a[k] = exp[k];
    }
  }
  if (exp.error && a.error) a.error = { ...a.error, reason: exp.error.reason };
  return a;
}

for (const kind of ['cases', 'providers']) {
  for (const path of vectors(join(root, kind))) {
    const v = load(path);
    test(path.slice(root.length + 1), () => {
      for (const size of [1, 7, 0]) {
        const actual = run(v, size);
        const expected = v.events;
        const label = `chunk size ${size || 'whole'}`;
        sameAsJson(v, size, label);
        assert.equal(actual.length, expected.length,
          `${label}: ${actual.length} events, expected ${expected.length}\n` +
          JSON.stringify(actual, null, 0));
        for (let i = 0; i < expected.length; i++) {
          assert.deepEqual(normalise(expected[i], actual[i], 'provider' in v.config),
            expected[i], `${label}, event ${i}`);
        }
      }
    });
  }
}
