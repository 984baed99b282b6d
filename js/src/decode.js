// The provider decoder's WebAssembly module (tokensieve-decode.wasm, js/wasm's feature
// `decode`): a Decoder holds its own sieve for text dialects plus every provider's framing, so
// it is a module of its own, instantiated synchronously from its embedded bytes on the first
// `new Decoder` (as the writers' module is on the first writer call, format.js). A host that
// only parses model text never compiles it; `loadDecoder()` compiles it ahead, off the call.
import { DECODE_WASM_BASE64 } from './decode.generated.js';
import { decodeBase64 } from './base64.js';

/** Milliseconds spent decoding and instantiating the decoder's module (0 until loaded). */
export let decodeInstantiateMs = 0;

let wasm = null;
const now = () => (globalThis.performance ? performance.now() : 0);

function loaded(instance, t0) {
  if (!wasm) {
    wasm = instance.exports;
    decodeInstantiateMs = now() - t0;
  }
  return wasm;
}

/** The module's exports, compiled and instantiated synchronously on the first call. */
export function decodeExports() {
  if (wasm) return wasm;
  const t0 = now();
  return loaded(new WebAssembly.Instance(new WebAssembly.Module(decodeBase64(DECODE_WASM_BASE64)), {}), t0);
}

/**
 * Compiles and instantiates the decoder's module asynchronously, ahead of the first
 * `new Decoder` (optional: `stream()` does it for a provider body by itself).
 */
export async function loadDecoder() {
  if (wasm) return;
  const t0 = now();
  const { instance } = await WebAssembly.instantiate(decodeBase64(DECODE_WASM_BASE64), {});
  loaded(instance, t0);
}
