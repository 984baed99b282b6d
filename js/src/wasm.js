// Instantiates the embedded WebAssembly once (top-level await: ESM in Node, Deno, Bun,
// browsers and module workers; no fs, no fetch, no bundler plugin).
import { WASM_BASE64 } from './wasm.generated.js';

function decodeBase64(s) {
  const bin = atob(s);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

const t0 = globalThis.performance ? performance.now() : 0;
const { instance } = await WebAssembly.instantiate(decodeBase64(WASM_BASE64), {});
/** Milliseconds spent decoding and instantiating the module. */
export const instantiateMs = globalThis.performance ? performance.now() - t0 : 0;
export const wasm = instance.exports;
