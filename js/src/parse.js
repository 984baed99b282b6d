// tokensieve for JavaScript: the Rust core compiled to WebAssembly (js/wasm), synchronous
// and batched — one call across the boundary per feed, its events parsed with one JSON.parse.
// This file is the parser alone (`tokensieve/parse`); index.js adds the writers (format.js).
import { wasm, instantiateMs } from './wasm.js';

export { instantiateMs };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

let inPtr = 0;
let inCap = 0;

/** Copies `data` (string or bytes) into wasm memory; returns its length. */
function put(data) {
  const bytes = typeof data === 'string' ? encoder.encode(data) : data;
  if (!(bytes instanceof Uint8Array)) throw new TypeError('expected a string or a Uint8Array');
  if (bytes.length > inCap) {
    if (inCap) wasm.ts_free(inPtr, inCap);
    inCap = Math.max(bytes.length, 2 * inCap, 4096);
    inPtr = wasm.ts_alloc(inCap);
  }
  new Uint8Array(wasm.memory.buffer, inPtr, bytes.length).set(bytes);
  return bytes.length;
}

function outText(len) {
  return decoder.decode(new Uint8Array(wasm.memory.buffer, wasm.ts_out_ptr(), len));
}

function events(len) {
  if (len < 0) throw new Error(outText(wasm.ts_out_len()));
  return len === 0 ? [] : JSON.parse('[' + outText(len) + ']');
}

/** The events as JSON text, one object per line: the CLI's `--json` form, byte for byte. */
function eventsJson(len) {
  if (len < 0) throw new Error(outText(wasm.ts_out_len()));
  return len === 0 ? '' : outText(len).replace(/\},\{"event"/g, '}\n{"event"') + '\n';
}

function configText(config) {
  if (config == null || typeof config !== 'object') throw new TypeError('config must be an object');
  return JSON.stringify(config);
}

const registry = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((h) => wasm.ts_drop(h))
  : null;

/** A parser or decoder in wasm memory: one base, one export set (ts_feed, ts_finish, …). */
class Handle {
  constructor(make, config) {
    const n = put(configText(config));
    const h = make(inPtr, n);
    if (h === 0) throw new Error(outText(wasm.ts_out_len()));
    this._h = h;
    this.config = config;
    registry?.register(this, h, this);
  }
  _live() {
    if (!this._h) throw new Error('used after free()');
    return this._h;
  }
  /** Feeds a chunk (split anywhere, also inside a UTF-8 character); returns its events. */
  feed(chunk) {
    const n = put(chunk);
    return events(wasm.ts_feed(this._live(), inPtr, n));
  }
  /**
   * As feed(), the events as JSON lines (numbers in `input` kept as written, which
   * JSON.parse cannot promise).
   */
  feedJson(chunk) {
    const n = put(chunk);
    return eventsJson(wasm.ts_feed(this._live(), inPtr, n));
  }
  finishJson() {
    return eventsJson(wasm.ts_finish(this._live()));
  }
  /** Ends the stream: what is held is emitted, open blocks complete. */
  finish() {
    return events(wasm.ts_finish(this._live()));
  }
  /** Back to the state after construction (same config). */
  reset() {
    if (wasm.ts_reset(this._live()) < 0) throw new Error(outText(wasm.ts_out_len()));
  }
  /** A TransformStream: strings or Uint8Arrays in, events out (finish() at the end). */
  transform() {
    const feeder = this;
    return new TransformStream({
      transform(chunk, controller) {
        for (const ev of feeder.feed(chunk)) controller.enqueue(ev);
      },
      flush(controller) {
        for (const ev of feeder.finish()) controller.enqueue(ev);
      },
    });
  }
  /** Frees the wasm memory now (else the garbage collector does, eventually). */
  free() {
    if (this._h) {
      registry?.unregister(this);
      wasm.ts_drop(this._h);
      this._h = 0;
    }
  }
}

/** A parser of model text (`config`: the JSON form's config, e.g. `{dialect: "hermes"}`). */
export class Sieve extends Handle {
  constructor(config) {
    super(wasm.ts_sieve_new, config);
  }
  /** Text the prompt template already wrote (silent); before any feed. */
  prefill(text) {
    const n = put(text);
    if (wasm.ts_prefill(this._live(), inPtr, n) < 0) throw new Error(outText(wasm.ts_out_len()));
  }
}

/** A decoder of a provider's streaming HTTP body (`config`: `{provider, text_dialect?, …}`). */
export class Decoder extends Handle {
  constructor(config) {
    super(wasm.ts_decoder_new, config);
  }
}

/**
 * Events of a whole stream, as an async iterable: `body` is a ReadableStream (e.g.
 * `(await fetch(url)).body`), an (async) iterable of strings/bytes, or one string/bytes.
 * `config` with `provider` decodes a provider body; with `dialect`, model text.
 */
export async function* stream(body, config, options = {}) {
  const feeder = 'provider' in config ? new Decoder(config) : new Sieve(config);
  try {
    if (options.prefill != null && feeder instanceof Sieve) feeder.prefill(options.prefill);
    if (typeof body === 'string' || body instanceof Uint8Array) {
      yield* feeder.feed(body);
    } else if (body && typeof body.getReader === 'function' && !(Symbol.asyncIterator in body)) {
      const reader = body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          yield* feeder.feed(value);
        }
      } finally {
        reader.releaseLock();
      }
    } else {
      for await (const chunk of body) yield* feeder.feed(chunk);
    }
    yield* feeder.finish();
  } finally {
    feeder.free();
  }
}
