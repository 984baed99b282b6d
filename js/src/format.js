// The writers (issue 27): what the model writes or reads, in its wire format. They are the
// package's second WebAssembly module (tokensieve-format.wasm, js/wasm's feature `writers`),
// instantiated synchronously from its embedded bytes on the first call, so a host that only
// parses never compiles it, and a bundler drops it (and its bytes) when no writer is imported.
// `tokensieve/format` is this file alone: writers without the parser's module.
import { FORMAT_WASM_BASE64 } from './format.generated.js';
import { decodeBase64 } from './base64.js';

/** Milliseconds spent decoding and instantiating the writers' module (0 until loaded). */
export let formatInstantiateMs = 0;

let wasm = null;
const now = () => (globalThis.performance ? performance.now() : 0);

function loaded(instance, t0) {
  if (!wasm) {
    wasm = instance.exports;
    formatInstantiateMs = now() - t0;
  }
  return wasm;
}

/** The module's exports, compiled and instantiated synchronously on the first call. */
function exportsNow() {
  if (wasm) return wasm;
  const t0 = now();
  return loaded(new WebAssembly.Instance(new WebAssembly.Module(decodeBase64(FORMAT_WASM_BASE64)), {}), t0);
}

/**
 * Compiles and instantiates the writers' module asynchronously, ahead of the first writer call
 * (optional: for a page that would rather not compile ~200 KB on its main thread at that call).
 */
export async function loadWriters() {
  if (wasm) return;
  const t0 = now();
  const { instance } = await WebAssembly.instantiate(decodeBase64(FORMAT_WASM_BASE64), {});
  loaded(instance, t0);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
let inPtr = 0;
let inCap = 0;

function outText(len) {
  return decoder.decode(new Uint8Array(wasm.memory.buffer, wasm.ts_out_ptr(), len));
}

/** Two texts back to back in the module's input buffer; calls export `f(ptr, lenA, lenB)`, returns its text. */
function writer(f, a, b) {
  const w = exportsNow();
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  const n = x.length + y.length;
  if (n > inCap) {
    if (inCap) w.ts_free(inPtr, inCap);
    inCap = Math.max(n, 2 * inCap, 4096);
    inPtr = w.ts_alloc(inCap);
  }
  const mem = new Uint8Array(w.memory.buffer, inPtr, n);
  mem.set(x);
  mem.set(y, x.length);
  const len = w[f](inPtr, x.length, y.length);
  if (len < 0) throw new Error(outText(w.ts_out_len()));
  return outText(len);
}

function configText(config) {
  if (config == null || typeof config !== 'object') throw new TypeError('config must be an object');
  return JSON.stringify(config);
}

function list(items, what) {
  if (!Array.isArray(items)) throw new TypeError(`${what} must be an array`);
  return JSON.stringify(items);
}

function dialectName(dialect) {
  if (typeof dialect !== 'string') throw new TypeError('dialect must be a string');
  return dialect;
}

/**
 * The assistant's past tool calls written as the model writes them (what the family's chat
 * template renders), for a host that builds the prompt itself; a Sieve of the same config
 * reads the text back as the same calls. `config`: a dialect name or a Sieve config (its
 * `dialect`, a name or a description, and its `tools`); `calls`: `[{name, id?, input?}]`.
 */
export function formatToolCalls(config, calls) {
  const c = typeof config === 'string' ? { dialect: config } : config;
  return writer('ts_format_calls', configText(c), list(calls, 'calls'));
}

/**
 * The prompt's tool-definition section as the family's chat template renders the tools
 * (the section only, placed where the template places it), for a host that builds the
 * prompt itself. `config`: a dialect name or a Sieve config (its `dialect`, a name or a
 * description, and `tool_call_markers`); `tools`: the config's tool form
 * `[{name, description?, schema?}]`, or its JSON text (numbers kept as spelled there).
 */
export function formatToolDefinitions(config, tools) {
  const c = typeof config === 'string' ? { dialect: config } : config;
  const text = typeof tools === 'string' ? tools : list(tools, 'tools');
  return writer('ts_format_tool_definitions', configText(c), text);
}

/** Tool results as the family's template gives them back: `[{content, tool_use_id?, name?, is_error?}]`. */
export function formatToolResults(dialect, results) {
  return writer('ts_format_results', dialectName(dialect), list(results, 'results'));
}

/** The stop sequences a host sets when it runs a model of the dialect in completions mode. */
export function stopSequences(dialect) {
  return JSON.parse(writer('ts_stop_sequences', dialectName(dialect), ''));
}
