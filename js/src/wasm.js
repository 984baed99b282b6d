// Instantiates the parser's embedded WebAssembly once (top-level await: ESM in Node, Deno, Bun,
// browsers and module workers; no fs, no fetch, no bundler plugin). The writers are another
// module, instantiated on first use (format.js).
import { WASM_BASE64 } from './wasm.generated.js';
import { decodeBase64 } from './base64.js';

const t0 = globalThis.performance ? performance.now() : 0;
const { instance } = await WebAssembly.instantiate(decodeBase64(WASM_BASE64), {});
/** Milliseconds spent decoding and instantiating the module. */
export const instantiateMs = globalThis.performance ? performance.now() - t0 : 0;
export const wasm = instance.exports;
