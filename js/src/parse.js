// tokensieve for JavaScript: the Rust core compiled to WebAssembly (js/wasm), synchronous
// and batched — one call across the boundary per feed, its events binary records decoded with
// typed arrays and one TextDecoder call (JSON text for feedJson, the CLI's form).
// This file is the parser alone (`tokensieve/parse`); index.js adds the writers (format.js).
// Two modules serve it, with the same handle exports: the Sieve's (wasm.js, instantiated at
// import) and the Decoder's (decode.js, instantiated on the first Decoder); `glue(exports)`
// is the JS side of one of them.
import { wasm as sieveWasm, instantiateMs } from './wasm.js';
import { decodeExports, loadDecoder, decodeInstantiateMs } from './decode.js';

export { instantiateMs, loadDecoder, decodeInstantiateMs };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const TYPES = ['text', 'thinking', 'tool_call', 'tool_result'];
const PARTS = [undefined, 'name', 'id', 'input'];
const REASONS = [undefined, 'malformed-body', 'missing-name', 'malformed-parameter',
  'unexpected-content', 'unfinished', 'too-large', 'nesting-too-deep', 'unknown-tool'];

/**
 * The JS side of one module (the Sieve's or the Decoder's): its input buffer, its memory
 * views, the decoding of its output; the Handle methods' bodies.
 */
function glue(wasm) {
  let inPtr = 0;
  let inCap = 0;
  // Views of wasm memory, made again when it grows (growth detaches the old buffer).
  let mem = null;
  let u8 = null;
  let u32 = null;

  function views() {
    // Growth detaches the old buffer, and its views' length becomes 0: cheaper to test than
    // reading `memory.buffer` on every call.
    if (u8 === null || u8.length === 0) {
      mem = wasm.memory.buffer;
      u8 = new Uint8Array(mem);
      u32 = new Uint32Array(mem);
    }
  }

  function reserve(len) {
    if (len > inCap) {
      if (inCap) wasm.ts_free(inPtr, inCap);
      inCap = Math.max(len, 2 * inCap, 4096);
      inPtr = wasm.ts_alloc(inCap);
    }
  }

  /** Copies `data` (string or bytes) into wasm memory at `inPtr`; returns its length. */
  function put(data) {
    if (typeof data === 'string') {
      // At most 3 bytes per UTF-16 unit; encoded straight into wasm memory.
      reserve(3 * data.length);
      views();
      if (data.length < 64) {
        // Short strings: a loop is cheaper than encodeInto's call, while they are ASCII.
        let i = 0;
        for (; i < data.length; i++) {
          const c = data.charCodeAt(i);
          if (c > 0x7f) break;
          u8[inPtr + i] = c;
        }
        if (i === data.length) return i;
      }
      return encoder.encodeInto(data, u8.subarray(inPtr, inPtr + inCap)).written;
    }
    if (!(data instanceof Uint8Array)) throw new TypeError('expected a string or a Uint8Array');
    reserve(data.length);
    views();
    u8.set(data, inPtr);
    return data.length;
  }

  function outText(len) {
    return decoder.decode(new Uint8Array(wasm.memory.buffer, wasm.ts_out_ptr(), len));
  }

  /** The UTF-8 at u8[from..to] as a string: short ASCII by hand (TextDecoder's call costs more). */
  function text(from, to) {
    if (to - from <= 16) {
      let s = '';
      for (let i = from; i < to; i++) {
        const c = u8[i];
        if (c > 0x7f) return decoder.decode(u8.subarray(from, to));
        s += String.fromCharCode(c);
      }
      return s;
    }
    return decoder.decode(u8.subarray(from, to));
  }

  /**
   * A feed's events from its binary records (js/wasm/src/parse.rs describes them): plain
   * objects with the JSON form's fields, in its key order.
   */
  function events(len) {
    if (len < 0) throw new Error(outText(wasm.ts_out_len()));
    if (len === 0) return [];
    views();
    const p = wasm.ts_out_ptr();
    let w = p >>> 2;
    const end = w + 1 + u32[w];
    w++;
    const area = end * 4;
    const all = area < p + len ? text(area, p + len) : '';
    let at = 0;
    const next = () => all.slice(at, (at += u32[w++]));
    const out = [];
    while (w < end) {
      const head = u32[w];
      const kind = head & 0xff;
      const type = TYPES[(head >>> 8) & 0xff];
      if (kind === 1) {
        const block = u32[w + 1];
        const choice = u32[w + 2];
        const mask = u32[w + 3];
        w += 4;
        const ev = { event: 'chunk', text: next(), type, visible: type === 'text', block,
          depth: head >>> 24 };
        const part = (head >>> 16) & 0xff;
        if (part) ev.part = PARTS[part];
        if (mask & 1) ev.tool_name = next();
        if (mask & 2) ev.tool_id = next();
        if (choice) ev.choice = choice;
        out.push(ev);
      } else if (kind === 0) {
        const ev = { event: 'block_start', index: u32[w + 1], type };
        if (u32[w + 2]) ev.choice = u32[w + 2];
        w += 3;
        out.push(ev);
      } else if (kind === 2) {
        const ev = { event: 'block_complete', index: u32[w + 1], type };
        const choice = u32[w + 2];
        const mask = u32[w + 3];
        const flags = head >>> 24;
        w += 4;
        if (mask & 1) ev.content = next();
        if (mask & 2) ev.tool_name = next();
        if (mask & 4) ev.tool_id = next();
        if (mask & 8) ev.input = JSON.parse(next());
        if (mask & 16) ev.error = { reason: REASONS[(head >>> 16) & 0xff], raw: next() };
        if (flags & 1) ev.is_error = true;
        if (choice) ev.choice = choice;
        if (flags & 2) ev.refusal = true;
        if (flags & 4) ev.server = true;
        if (mask & 32) ev.signature = next();
        if (mask & 64) ev.redacted = next();
        if (flags & 8) ev.compaction = true;
        if (mask & 128) ev.citations = JSON.parse(next());
        out.push(ev);
      } else {
        w++;
        out.push(JSON.parse(next()));
      }
    }
    return out;
  }

  /** The events as JSON text, one object per line: the CLI's `--json` form, byte for byte. */
  function eventsJson(len) {
    if (len < 0) throw new Error(outText(wasm.ts_out_len()));
    return len === 0 ? '' : outText(len).replace(/\},\{"event"/g, '}\n{"event"') + '\n';
  }

  const registry = typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry((h) => wasm.ts_drop(h))
    : null;

  return {
    wasm,
    registry,
    /** A handle from constructor export `make`, or throws the config's error. */
    make(make, config) {
      const n = put(configText(config));
      const h = wasm[make](inPtr, n);
      if (h === 0) throw new Error(outText(wasm.ts_out_len()));
      return h;
    },
    feed(h, chunk) {
      const n = put(chunk);
      return events(wasm.ts_feed(h, inPtr, n, 0));
    },
    feedJson(h, chunk) {
      const n = put(chunk);
      return eventsJson(wasm.ts_feed(h, inPtr, n, 1));
    },
    finish: (h) => events(wasm.ts_finish(h, 0)),
    finishJson: (h) => eventsJson(wasm.ts_finish(h, 1)),
    reset(h) {
      if (wasm.ts_reset(h) < 0) throw new Error(outText(wasm.ts_out_len()));
    },
    prefill(h, text) {
      const n = put(text);
      if (wasm.ts_prefill(h, inPtr, n) < 0) throw new Error(outText(wasm.ts_out_len()));
    },
  };
}

function configText(config) {
  if (config == null || typeof config !== 'object') throw new TypeError('config must be an object');
  return JSON.stringify(config);
}

const sieveGlue = glue(sieveWasm);
let decodeGlue = null;

/** A parser or decoder in wasm memory: one base over its module's glue (ts_feed, ts_finish, …). */
class Handle {
  constructor(g, make, config) {
    const h = g.make(make, config);
    this._g = g;
    this._h = h;
    this.config = config;
    g.registry?.register(this, h, this);
  }
  _live() {
    if (!this._h) throw new Error('used after free()');
    return this._h;
  }
  /** Feeds a chunk (split anywhere, also inside a UTF-8 character); returns its events. */
  feed(chunk) {
    return this._g.feed(this._live(), chunk);
  }
  /**
   * As feed(), the events as JSON lines (numbers in `input` kept as written, which
   * JSON.parse cannot promise).
   */
  feedJson(chunk) {
    return this._g.feedJson(this._live(), chunk);
  }
  finishJson() {
    return this._g.finishJson(this._live());
  }
  /** Ends the stream: what is held is emitted, open blocks complete. */
  finish() {
    return this._g.finish(this._live());
  }
  /** Back to the state after construction (same config). */
  reset() {
    this._g.reset(this._live());
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
      this._g.registry?.unregister(this);
      this._g.wasm.ts_drop(this._h);
      this._h = 0;
    }
  }
}

/** A parser of model text (`config`: the JSON form's config, e.g. `{dialect: "hermes"}`). */
export class Sieve extends Handle {
  constructor(config) {
    super(sieveGlue, 'ts_sieve_new', config);
  }
  /** Text the prompt template already wrote (silent); before any feed. */
  prefill(text) {
    this._g.prefill(this._live(), text);
  }
}

/**
 * A decoder of a provider's streaming HTTP body (`config`: `{provider, text_dialect?, …}`).
 * Its module is the package's second (decode.js): the first Decoder instantiates it.
 */
export class Decoder extends Handle {
  constructor(config) {
    decodeGlue ??= glue(decodeExports());
    super(decodeGlue, 'ts_decoder_new', config);
  }
}

/**
 * Events of a whole stream, as an async iterable: `body` is a ReadableStream (e.g.
 * `(await fetch(url)).body`), an (async) iterable of strings/bytes, or one string/bytes.
 * `config` with `provider` decodes a provider body; with `dialect`, model text.
 */
export async function* stream(body, config, options = {}) {
  // A provider body's module compiles off the main thread's critical path (await, not sync).
  if ('provider' in config) await loadDecoder();
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
