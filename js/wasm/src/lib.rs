//! WebAssembly exports of tokensieve for the npm package `tokensieve` (`js/`).
//!
//! Raw `extern "C"` functions (no wasm-bindgen): the JS glue (`js/src/index.js`) copies input
//! into a buffer from [`ts_alloc`], calls one function per feed, and reads that call's events
//! from the output buffer ([`ts_out_ptr`], the returned length) as JSON objects separated by
//! commas — exactly the CLI's `--json` form — so it parses them with one `JSON.parse`.
//!
//! A negative return value means an error; the output buffer then holds its message (UTF-8).
//! Handles are pointers to boxed [`State`]s (a parser or a decoder, made by [`ts_sieve_new`] or
//! [`ts_decoder_new`]); one export set serves both ([`ts_feed`], [`ts_finish`], [`ts_reset`],
//! [`ts_drop`]). A null handle is an error (-1, "null handle"), never undefined behaviour.
//!
//! On wasm32 the crate is `no_std` (the core without its `std` feature): std's panic
//! machinery and its formatting code would be about 15 % of the .wasm, and a panic only
//! traps anyway (`panic = "abort"`). The allocator is std's own, dlmalloc.

#![cfg_attr(target_arch = "wasm32", no_std)]

extern crate alloc;

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use tokensieve::accumulate::Collector;
use tokensieve::config::ConfigBuf;
use tokensieve::provider::{Decoder, DecoderConfigBuf};
use tokensieve::{Event, Sieve};

#[cfg(feature = "writers")]
pub mod writers;

/// A panic (which the core must never reach) traps, as `panic = "abort"` did with std.
#[cfg(all(target_arch = "wasm32", not(test)))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOC: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

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

/// What a handle holds: a parser of model text or a provider-stream decoder.
// The whole State is boxed behind the handle, so the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
enum Parser {
    Sieve(Sieve<'static>),
    Decoder(Decoder<'static>),
}

/// A parser or decoder and the accumulation of its blocks (the target of a handle).
pub struct State {
    parser: Parser,
    collector: Collector,
}

/// Boxes a made parser into a handle, or null with the error in the output buffer.
fn handle(made: Result<Parser, String>) -> *mut State {
    match made {
        Ok(parser) => Box::into_raw(Box::new(State {
            parser,
            collector: Collector::new(),
        })),
        Err(e) => {
            set_error(&e);
            core::ptr::null_mut()
        }
    }
}

/// The config text of a constructor.
///
/// # Safety
/// See [`bytes`].
unsafe fn config_text<'a>(ptr: *const u8, len: usize) -> Result<&'a str, String> {
    out().clear();
    // SAFETY: per the caller's contract.
    core::str::from_utf8(unsafe { bytes(ptr, len) }).map_err(|_| "config: not UTF-8".into())
}

/// The state behind a handle; `None` (and the error in the output buffer) when it is null.
///
/// # Safety
/// `h` is null or from a constructor, not dropped.
unsafe fn state<'a>(h: *mut State) -> Option<&'a mut State> {
    out().clear();
    if h.is_null() {
        set_error("null handle");
        return None;
    }
    // SAFETY: non-null, and per the caller's contract a live handle.
    Some(unsafe { &mut *h })
}

/// A parser of model text from a JSON config (the conformance vectors' `config`); null on
/// error (message in the output buffer, its length from [`ts_out_len`]).
///
/// # Safety
/// See [`bytes`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_sieve_new(ptr: *const u8, len: usize) -> *mut State {
    // SAFETY: per the caller's contract.
    let made = unsafe { config_text(ptr, len) }.and_then(|text| {
        let c = ConfigBuf::from_json(text).map_err(|e| format!("config: {e}"))?;
        Sieve::from_config_buf(c).map_err(|e| format!("config: {e}"))
    });
    handle(made.map(Parser::Sieve))
}

/// A provider-stream decoder from a JSON config (`decode --config`'s keys); null on error.
///
/// # Safety
/// See [`bytes`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_decoder_new(ptr: *const u8, len: usize) -> *mut State {
    // SAFETY: per the caller's contract.
    let made = unsafe { config_text(ptr, len) }.and_then(decoder_of);
    handle(made.map(Parser::Decoder))
}

/// The length of the output buffer (after an error).
#[unsafe(no_mangle)]
pub extern "C" fn ts_out_len() -> usize {
    out().len()
}

/// Text the template already wrote (silent; a parser's only); 0, or -1 with the message.
///
/// # Safety
/// `h` null or a live handle; the input as in [`bytes`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_prefill(h: *mut State, ptr: *const u8, len: usize) -> i32 {
    // SAFETY: per the caller's contract.
    let Some(s) = (unsafe { state(h) }) else {
        return -1;
    };
    // SAFETY: per the caller's contract.
    let input = unsafe { bytes(ptr, len) };
    match &mut s.parser {
        Parser::Sieve(sieve) => match sieve.prefill(input) {
            Ok(()) => 0,
            Err(e) => set_error(&format!("prefill: {e}")),
        },
        Parser::Decoder(_) => set_error("prefill: a decoder has no prefill"),
    }
}

/// Feeds a chunk; returns the length of the events written to the output buffer (-1: error).
///
/// # Safety
/// As [`ts_prefill`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_feed(h: *mut State, ptr: *const u8, len: usize) -> i32 {
    // SAFETY: per the caller's contract.
    let Some(s) = (unsafe { state(h) }) else {
        return -1;
    };
    // SAFETY: per the caller's contract.
    let input = unsafe { bytes(ptr, len) };
    let c = &mut s.collector;
    match &mut s.parser {
        Parser::Sieve(sieve) => sieve.feed_with(input, |ev| push_event(c, &ev)),
        Parser::Decoder(d) => d.feed_with(input, |ev| push_event(c, &ev)),
    }
    out().len() as i32
}

/// Ends the stream: flushes what is held, completes open blocks (-1: error).
///
/// # Safety
/// `h` null or a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_finish(h: *mut State) -> i32 {
    // SAFETY: per the caller's contract.
    let Some(s) = (unsafe { state(h) }) else {
        return -1;
    };
    let c = &mut s.collector;
    match &mut s.parser {
        Parser::Sieve(sieve) => sieve.finish_with(|ev| push_event(c, &ev)),
        Parser::Decoder(d) => d.finish_with(|ev| push_event(c, &ev)),
    }
    out().len() as i32
}

/// Back to the state after construction (same config); 0, or -1 for a null handle.
///
/// # Safety
/// `h` null or a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_reset(h: *mut State) -> i32 {
    // SAFETY: per the caller's contract.
    let Some(s) = (unsafe { state(h) }) else {
        return -1;
    };
    match &mut s.parser {
        Parser::Sieve(sieve) => sieve.reset(),
        Parser::Decoder(d) => d.reset(),
    }
    s.collector = Collector::new();
    0
}

/// Frees a handle (null: nothing).
///
/// # Safety
/// `h` null or a live handle, dropped once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_drop(h: *mut State) {
    if !h.is_null() {
        // SAFETY: per the caller's contract.
        drop(unsafe { Box::from_raw(h) });
    }
}

/// The decoder config: the same keys as the CLI's `decode --config` (docs/providers.md), read
/// by the core's [`DecoderConfigBuf::from_json`] (one reader for the CLI and this crate).
fn decoder_of(text: &str) -> Result<Decoder<'static>, String> {
    let c = DecoderConfigBuf::from_json(text).map_err(|e| format!("config: {e}"))?;
    Decoder::new(&c.config()).map_err(|e| format!("config: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_null_handle_is_an_error_and_a_decoder_has_no_prefill() {
        // SAFETY: a null handle is allowed by every export's contract; no input bytes.
        unsafe {
            let null = core::ptr::null_mut();
            assert_eq!(ts_feed(null, core::ptr::null(), 0), -1);
            assert_eq!(out().as_slice(), b"null handle");
            assert_eq!(ts_finish(null), -1);
            assert_eq!(ts_reset(null), -1);
            assert_eq!(ts_prefill(null, core::ptr::null(), 0), -1);
            ts_drop(null);
        }
        // One test: the output buffer is one static, shared by test threads.
        let cfg = br#"{"provider":"openai-chat"}"#;
        // SAFETY: cfg is readable for its length; the handle is live until dropped once.
        unsafe {
            let h = ts_decoder_new(cfg.as_ptr(), cfg.len());
            assert!(!h.is_null());
            assert_eq!(ts_prefill(h, core::ptr::null(), 0), -1);
            assert_eq!(ts_reset(h), 0);
            ts_drop(h);
        }
        #[cfg(feature = "writers")]
        writers_write();
    }

    /// The writers (called from the test above: the one output buffer).
    #[cfg(feature = "writers")]
    fn writers_write() {
        use crate::writers::*;
        let input = br#"{"dialect":"hermes"}[{"name":"f","input":{"a":1.50}}]"#;
        // SAFETY: `input` is readable for its length.
        let n = unsafe { ts_format_calls(input.as_ptr(), 20, input.len() - 20) };
        assert_eq!(
            &out()[..n as usize],
            b"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1.50}}\n</tool_call>"
        );
        let input = b"harmony";
        // SAFETY: as above.
        let n = unsafe { ts_stop_sequences(input.as_ptr(), input.len()) };
        assert_eq!(&out()[..n as usize], br#"["<|return|>","<|call|>"]"#);
        let input = b"anthropic-xml";
        // SAFETY: as above.
        let n = unsafe { ts_stop_sequences(input.as_ptr(), input.len()) };
        assert_eq!(&out()[..n as usize], br#"["\nHuman:","\nUser:"]"#);
        let input = br#"nope[]"#;
        // SAFETY: as above.
        assert_eq!(unsafe { ts_format_results(input.as_ptr(), 4, 2) }, -1);
        assert_eq!(out().as_slice(), br#"unknown dialect "nope""#);
    }
}
