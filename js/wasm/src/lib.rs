//! WebAssembly exports of tokensieve for the npm package `tokensieve` (`js/`).
//!
//! Raw `extern "C"` functions (no wasm-bindgen): the JS glue (`js/src/index.js`) copies input
//! into a buffer from [`ts_alloc`], calls one function per feed, and reads that call's events
//! from the output buffer ([`ts_out_ptr`], the returned length) as JSON objects separated by
//! commas — exactly the CLI's `--json` form — so it parses them with one `JSON.parse`.
//!
//! A negative return value means an error; the output buffer then holds its message (UTF-8).
//! Handles are pointers to boxed states; the glue frees them with the `*_drop` functions.

use tokensieve::accumulate::Collector;
use tokensieve::config::ConfigBuf;
use tokensieve::provider::{Decoder, DecoderConfig, Provider};
use tokensieve::{Event, Sieve};

/// The output of the last call (events or an error message).
struct Out {
    buf: Vec<u8>,
}

static mut OUT: Out = Out { buf: Vec::new() };

fn out() -> &'static mut Vec<u8> {
    // SAFETY: wasm32-unknown-unknown is single-threaded and no reference to OUT outlives
    // one exported call; on the host (tests) the functions are called from one thread.
    unsafe { &mut *core::ptr::addr_of_mut!(OUT.buf) }
}

fn set_error(msg: &str) -> i32 {
    let o = out();
    o.clear();
    o.extend_from_slice(msg.as_bytes());
    -1
}

fn push_event(collector: &mut Collector, ev: &Event<'_>) {
    let o = out();
    if !o.is_empty() {
        o.push(b',');
    }
    o.extend_from_slice(collector.push(ev).to_json().as_bytes());
}

/// Reserves `len` bytes in wasm memory for input (a config, a chunk) and returns where.
#[unsafe(no_mangle)]
pub extern "C" fn ts_alloc(len: usize) -> *mut u8 {
    let mut v = Vec::<u8>::with_capacity(len.max(1));
    let p = v.as_mut_ptr();
    core::mem::forget(v);
    p
}

/// Frees a buffer from [`ts_alloc`].
///
/// # Safety
/// `ptr` and `len` must be a pair returned by / passed to [`ts_alloc`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_free(ptr: *mut u8, len: usize) {
    // SAFETY: the caller passes back what ts_alloc returned, with its capacity.
    drop(unsafe { Vec::from_raw_parts(ptr, 0, len.max(1)) });
}

/// Where the output of the last call starts.
#[unsafe(no_mangle)]
pub extern "C" fn ts_out_ptr() -> *const u8 {
    out().as_ptr()
}

/// # Safety
/// `ptr..ptr+len` must be readable (a [`ts_alloc`] buffer, or any when `len` is 0).
unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if len == 0 {
        &[]
    } else {
        // SAFETY: per the caller's contract.
        unsafe { core::slice::from_raw_parts(ptr, len) }
    }
}

/// A parser of model text and the accumulation of its blocks.
pub struct SieveState {
    sieve: Sieve<'static>,
    collector: Collector,
}

/// A parser from a JSON config (the conformance vectors' `config`); null on error (message in
/// the output buffer, its length from [`ts_out_len`]).
///
/// # Safety
/// See [`bytes`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_sieve_new(ptr: *const u8, len: usize) -> *mut SieveState {
    out().clear();
    // SAFETY: per the caller's contract.
    let text = match core::str::from_utf8(unsafe { bytes(ptr, len) }) {
        Ok(t) => t,
        Err(_) => {
            set_error("config: not UTF-8");
            return core::ptr::null_mut();
        }
    };
    let made = ConfigBuf::from_json(text)
        .map_err(|e| format!("config: {e}"))
        .and_then(|c| Sieve::from_config_buf(c).map_err(|e| format!("config: {e}")));
    match made {
        Ok(sieve) => Box::into_raw(Box::new(SieveState {
            sieve,
            collector: Collector::new(),
        })),
        Err(e) => {
            set_error(&e);
            core::ptr::null_mut()
        }
    }
}

/// The length of the output buffer (after an error from a constructor).
#[unsafe(no_mangle)]
pub extern "C" fn ts_out_len() -> usize {
    out().len()
}

/// Text the template already wrote (silent); 0, or -1 with the message.
///
/// # Safety
/// `h` from [`ts_sieve_new`], not dropped; the input as in [`bytes`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_sieve_prefill(h: *mut SieveState, ptr: *const u8, len: usize) -> i32 {
    // SAFETY: per the caller's contract.
    let (s, input) = unsafe { (&mut *h, bytes(ptr, len)) };
    out().clear();
    match s.sieve.prefill(input) {
        Ok(()) => 0,
        Err(e) => set_error(&format!("prefill: {e}")),
    }
}

/// Feeds a chunk; returns the length of the events written to the output buffer.
///
/// # Safety
/// As [`ts_sieve_prefill`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_sieve_feed(h: *mut SieveState, ptr: *const u8, len: usize) -> i32 {
    // SAFETY: per the caller's contract.
    let (s, mut input) = unsafe { (&mut *h, bytes(ptr, len)) };
    out().clear();
    while let Some(ev) = s.sieve.next(&mut input) {
        push_event(&mut s.collector, &ev);
    }
    out().len() as i32
}

/// Ends the stream: flushes what is held, completes open blocks.
///
/// # Safety
/// As [`ts_sieve_prefill`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_sieve_finish(h: *mut SieveState) -> i32 {
    // SAFETY: per the caller's contract.
    let s = unsafe { &mut *h };
    out().clear();
    s.sieve.finish();
    while let Some(ev) = s.sieve.next(&mut &b""[..]) {
        push_event(&mut s.collector, &ev);
    }
    out().len() as i32
}

/// Back to the state after construction (same config).
///
/// # Safety
/// As [`ts_sieve_prefill`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_sieve_reset(h: *mut SieveState) {
    // SAFETY: per the caller's contract.
    let s = unsafe { &mut *h };
    s.sieve.reset();
    s.collector = Collector::new();
}

/// Frees a parser.
///
/// # Safety
/// `h` from [`ts_sieve_new`], dropped once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_sieve_drop(h: *mut SieveState) {
    if !h.is_null() {
        // SAFETY: per the caller's contract.
        drop(unsafe { Box::from_raw(h) });
    }
}

/// A provider-stream decoder and the accumulation of its blocks.
pub struct DecoderState {
    decoder: Decoder<'static>,
    collector: Collector,
}

/// The decoder config: the same keys as the CLI's `decode --config` (docs/providers.md).
fn decoder_of(text: &str) -> Result<Decoder<'static>, String> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("config: {e}"))?;
    let mut obj = v
        .as_object()
        .ok_or("config: must be a JSON object")?
        .clone();
    let name = obj
        .remove("provider")
        .and_then(|p| p.as_str().map(str::to_owned))
        .ok_or("config: `provider` (a string) is required")?;
    let provider = Provider::from_name(&name)
        .filter(|p| p.is_supported())
        .ok_or_else(|| format!("config: unknown provider {name:?}"))?;
    let max_frame_bytes = match obj.remove("max_frame_bytes") {
        None => None,
        Some(v) => Some(
            v.as_u64()
                .ok_or("config: `max_frame_bytes` must be a non-negative integer")?
                .min(u32::MAX.into()) as u32,
        ),
    };
    let invoke_format = match obj.remove("invoke_format") {
        None => None,
        Some(v) => {
            let name = v
                .as_str()
                .ok_or("config: `invoke_format` must be a string")?;
            Some(
                Provider::from_name(name)
                    .ok_or_else(|| format!("config: unknown invoke_format {name:?}"))?,
            )
        }
    };
    if obj.contains_key("dialect") {
        return Err("config: unknown key \"dialect\" (the decoder's is `text_dialect`)".into());
    }
    let dialect = obj
        .remove("text_dialect")
        .unwrap_or_else(|| serde_json::Value::from("passthrough"));
    obj.insert("dialect".into(), dialect);
    let options = ConfigBuf::from_value(&serde_json::Value::Object(obj))
        .map_err(|e| format!("config: {e}"))?;
    let mut config = DecoderConfig::new(provider);
    config.options = options.config();
    if let Some(n) = max_frame_bytes {
        config.max_frame_bytes = n;
    }
    if let Some(f) = invoke_format {
        config.invoke_format = f;
    }
    Decoder::owned(&config).map_err(|e| format!("config: {e}"))
}

/// A decoder from a JSON config; null on error (message in the output buffer).
///
/// # Safety
/// See [`bytes`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_decoder_new(ptr: *const u8, len: usize) -> *mut DecoderState {
    out().clear();
    // SAFETY: per the caller's contract.
    let made = core::str::from_utf8(unsafe { bytes(ptr, len) })
        .map_err(|_| "config: not UTF-8".to_string())
        .and_then(decoder_of);
    match made {
        Ok(decoder) => Box::into_raw(Box::new(DecoderState {
            decoder,
            collector: Collector::new(),
        })),
        Err(e) => {
            set_error(&e);
            core::ptr::null_mut()
        }
    }
}

/// Feeds body bytes; returns the length of the events written to the output buffer.
///
/// # Safety
/// `h` from [`ts_decoder_new`], not dropped; the input as in [`bytes`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_decoder_feed(h: *mut DecoderState, ptr: *const u8, len: usize) -> i32 {
    // SAFETY: per the caller's contract.
    let (s, input) = unsafe { (&mut *h, bytes(ptr, len)) };
    out().clear();
    let c = &mut s.collector;
    s.decoder.feed_with(input, |ev| push_event(c, &ev));
    out().len() as i32
}

/// Ends the body.
///
/// # Safety
/// As [`ts_decoder_feed`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_decoder_finish(h: *mut DecoderState) -> i32 {
    // SAFETY: per the caller's contract.
    let s = unsafe { &mut *h };
    out().clear();
    let c = &mut s.collector;
    s.decoder.finish_with(|ev| push_event(c, &ev));
    out().len() as i32
}

/// Back to the state after construction.
///
/// # Safety
/// As [`ts_decoder_feed`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_decoder_reset(h: *mut DecoderState) {
    // SAFETY: per the caller's contract.
    let s = unsafe { &mut *h };
    s.decoder.reset();
    s.collector = Collector::new();
}

/// Frees a decoder.
///
/// # Safety
/// `h` from [`ts_decoder_new`], dropped once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_decoder_drop(h: *mut DecoderState) {
    if !h.is_null() {
        // SAFETY: per the caller's contract.
        drop(unsafe { Box::from_raw(h) });
    }
}
