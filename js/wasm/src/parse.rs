//! The parser's exports (feature `parse`): a [`Sieve`] or a [`Decoder`] behind a handle, fed
//! chunk by chunk, its events as JSON into the output buffer. The npm package's main module
//! (`tokensieve.wasm`) is this feature alone; the writers are a second module (js/README.md).

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use tokensieve::accumulate::Collector;
use tokensieve::config::ConfigBuf;
use tokensieve::provider::{Decoder, DecoderConfigBuf};
use tokensieve::{Event, Sieve};

use crate::{bytes, out, set_error};

fn push_event(collector: &mut Collector, ev: &Event<'_>) {
    let o = out();
    if !o.is_empty() {
        o.push(b',');
    }
    o.extend_from_slice(collector.push(ev).to_json().as_bytes());
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
