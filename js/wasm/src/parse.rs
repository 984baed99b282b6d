//! The parser's exports: a [`Sieve`] (feature `parse`) or a [`Decoder`] (feature `decode`)
//! behind a handle, fed chunk by chunk, its events into the output buffer — as JSON text (the
//! CLI's form) or as binary records (the JS object API's form, below). The npm package's main
//! module (`tokensieve.wasm`) is feature `parse` alone; the provider decoder is a second module
//! (`tokensieve-decode.wasm`, feature `decode`: the decoder holds its own sieve for text
//! dialects), the writers a third (js/README.md, "Why this design").
//!
//! # Binary records (`json` = 0)
//!
//! Why: rendering each event to JSON text and `JSON.parse`-ing it in JS was most of a small
//! feed's cost (js/README.md, "Why this design"). The output is little-endian `u32` words:
//! `[R][R words of records][string area]`. The string area is the UTF-8 of every string of
//! the feed's events, in record order; a record gives each string's length in UTF-16 code
//! units, so JS decodes the area once and slices it. A record's first word is `kind | a << 8
//! | b << 16 | c << 24`:
//!
//! | kind | a | b | c | then |
//! | --- | --- | --- | --- | --- |
//! | 0 block_start | type | | | index, choice |
//! | 1 chunk | type | part (0 none, 1 + [`Part`]) | depth | block, choice, mask (1 tool_name, 2 tool_id), text's length, the masked strings' lengths |
//! | 2 block_complete | type | error reason (0 none, 1 + [`ErrorReason`](tokensieve::ErrorReason)) | flags (1 is_error, 2 refusal, 4 server, 8 compaction) | index, choice, mask (1 content, 2 tool_name, 4 tool_id, 8 input, 16 error raw, 32 signature, 64 redacted, 128 citations), the masked strings' lengths |
//! | 3 any other event | | | | its JSON text's length |
//!
//! `input` and `citations` are JSON texts (JS parses each); an error's raw bytes are decoded
//! lossily, as the JSON form does. Types and parts are the core's codes ([`BlockType`]).

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
#[cfg(feature = "parse")]
use tokensieve::Sieve;
use tokensieve::accumulate::{Collector, OwnedEvent};
#[cfg(feature = "parse")]
use tokensieve::config::ConfigBuf;
#[cfg(feature = "decode")]
use tokensieve::provider::{Decoder, DecoderConfigBuf};
use tokensieve::{BlockType, Event, Part};

use crate::{bytes, out, set_error};

/// The accumulated fields of completions (a block's `content`, a call's `input`): the core's
/// [`Collector`] without its owned copy of every event.
#[derive(Default)]
struct Acc {
    content: String,
    input: String,
}

impl Acc {
    /// Records a block start or a chunk (what [`Collector::push`] accumulates).
    fn observe(&mut self, ev: &Event<'_>) {
        match ev {
            Event::BlockStart { .. } => {
                self.content.clear();
                self.input.clear();
            }
            Event::Chunk(c) if c.part == Some(Part::Input) => self.input.push_str(c.text),
            Event::Chunk(c) if c.part.is_none() => self.content.push_str(c.text),
            _ => {}
        }
    }
}

/// Appends `ev` to the output buffer as JSON (comma-separated): the CLI's line.
fn push_json(acc: &mut Acc, ev: &Event<'_>) {
    acc.observe(ev);
    let mut owned = Collector::new().push(ev);
    if let OwnedEvent::BlockComplete { content, input, .. } = &mut owned {
        // A fresh collector completed with nothing accumulated: put ours in.
        if let Some(c) = content {
            *c = core::mem::take(&mut acc.content);
        }
        if let Some(i) = input {
            *i = core::mem::take(&mut acc.input);
        }
    }
    let o = out();
    if !o.is_empty() {
        o.push(b',');
    }
    o.extend_from_slice(owned.to_json().as_bytes());
}

/// The string area of a binary feed (moved behind the records at its end).
static mut STRS: Vec<u8> = Vec::new();

fn strs() -> &'static mut Vec<u8> {
    // SAFETY: as `out()`: single-threaded, no reference outlives one exported call.
    unsafe { &mut *core::ptr::addr_of_mut!(STRS) }
}

/// The length of `s` in UTF-16 code units (what JS's `String.prototype.slice` counts).
fn utf16_len(s: &str) -> u32 {
    s.as_bytes()
        .iter()
        .map(|&b| u32::from(b & 0xC0 != 0x80) + u32::from(b >= 0xF0))
        .sum()
}

/// A record being written: its words gathered on the stack, then appended in one copy (a
/// `Vec::extend_from_slice` per word was a tenth of a 4-byte feed's time in wasm).
struct Rec {
    bytes: [u8; 4 * 13],
    len: usize,
}

impl Rec {
    fn new() -> Rec {
        Rec {
            bytes: [0; 4 * 13],
            len: 0,
        }
    }

    fn word(&mut self, w: u32) {
        // At most 13 words: the feed's header, 4 fixed, 8 strings (block_complete's mask).
        if let Some(b) = self.bytes.get_mut(self.len..self.len + 4) {
            b.copy_from_slice(&w.to_le_bytes());
            self.len += 4;
        }
    }

    /// A string: its bytes to the string area, its UTF-16 length to the record.
    fn string(&mut self, s: &str) {
        strs().extend_from_slice(s.as_bytes());
        self.word(utf16_len(s));
    }

    fn end(&self, o: &mut Vec<u8>) {
        o.extend_from_slice(&self.bytes[..self.len]);
    }
}

/// Appends `ev` to the output buffer as a binary record (module docs).
fn push_binary(acc: &mut Acc, ev: &Event<'_>) {
    acc.observe(ev);
    let o = out();
    let mut r = Rec::new();
    if o.is_empty() {
        r.word(0); // the records' length, written at the end (`end_binary`)
    }
    match ev {
        Event::BlockStart {
            index,
            block_type,
            choice,
        } => {
            r.word((*block_type as u32) << 8);
            r.word(*index);
            r.word(*choice);
        }
        Event::Chunk(c) => {
            let part = c.part.map_or(0, |p| p as u32 + 1);
            r.word(1 | (c.block_type as u32) << 8 | part << 16 | u32::from(c.depth) << 24);
            r.word(c.block);
            r.word(c.choice);
            r.word(u32::from(c.tool_name.is_some()) | u32::from(c.tool_id.is_some()) << 1);
            r.string(c.text);
            for s in [c.tool_name, c.tool_id].into_iter().flatten() {
                r.string(s);
            }
        }
        Event::BlockComplete(b) => {
            let tool = b.block_type == BlockType::ToolCall;
            let reason = b.error.map_or(0, |e| e.reason as u32 + 1);
            let flags = u32::from(b.is_error)
                | u32::from(b.refusal) << 1
                | u32::from(b.server) << 2
                | u32::from(b.compaction) << 3;
            r.word(2 | (b.block_type as u32) << 8 | reason << 16 | flags << 24);
            r.word(b.index);
            r.word(b.choice);
            let raw = b.error.map(|e| String::from_utf8_lossy(e.raw));
            let content = (!tool).then_some(acc.content.as_str());
            let input = (tool && b.error.is_none()).then_some(acc.input.as_str());
            let fields: [Option<&str>; 8] = [
                content,
                b.tool_name,
                b.tool_id,
                input,
                raw.as_ref().map(Cow::as_ref),
                b.signature,
                b.redacted(),
                b.citations(),
            ];
            let mask = fields
                .iter()
                .enumerate()
                .fold(0, |m, (i, f)| m | u32::from(f.is_some()) << i);
            r.word(mask);
            for s in fields.into_iter().flatten() {
                r.string(s);
            }
            acc.content.clear();
            acc.input.clear();
        }
        _ => {
            r.word(3);
            r.string(&Collector::new().push(ev).to_json());
        }
    }
    r.end(o);
}

/// Ends a feed's output: the records' length first, the string area after them.
fn end_binary() {
    let o = out();
    if o.is_empty() {
        return;
    }
    let records = (o.len() - 4) as u32;
    o[..4].copy_from_slice(&(records / 4).to_le_bytes());
    let s = strs();
    o.extend_from_slice(s);
    s.clear();
}

/// Feeds (`Some(input)`) or finishes (`None`) `s`, its events in the form `json` asks.
fn run(s: &mut State, input: Option<&[u8]>, json: bool) -> i32 {
    let acc = &mut s.acc;
    let push: fn(&mut Acc, &Event<'_>) = if json { push_json } else { push_binary };
    strs().clear();
    match (&mut s.parser, input) {
        #[cfg(feature = "parse")]
        (Parser::Sieve(p), Some(i)) => p.feed_with(i, |ev| push(acc, &ev)),
        #[cfg(feature = "parse")]
        (Parser::Sieve(p), None) => p.finish_with(|ev| push(acc, &ev)),
        #[cfg(feature = "decode")]
        (Parser::Decoder(p), Some(i)) => p.feed_with(i, |ev| push(acc, &ev)),
        #[cfg(feature = "decode")]
        (Parser::Decoder(p), None) => p.finish_with(|ev| push(acc, &ev)),
    }
    if !json {
        end_binary();
    }
    out().len() as i32
}

/// What a handle holds: a parser of model text or a provider-stream decoder (each in the
/// module of its feature).
// The whole State is boxed behind the handle, so the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
enum Parser {
    #[cfg(feature = "parse")]
    Sieve(Sieve<'static>),
    #[cfg(feature = "decode")]
    Decoder(Decoder<'static>),
}

/// A parser or decoder and the accumulation of its blocks (the target of a handle).
pub struct State {
    parser: Parser,
    acc: Acc,
}

/// Boxes a made parser into a handle, or null with the error in the output buffer.
fn handle(made: Result<Parser, String>) -> *mut State {
    match made {
        Ok(parser) => Box::into_raw(Box::new(State {
            parser,
            acc: Acc::default(),
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
/// error (message in the output buffer, its length from [`ts_out_len`](crate::ts_out_len)).
///
/// # Safety
/// See [`bytes`].
#[cfg(feature = "parse")]
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
#[cfg(feature = "decode")]
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
#[cfg(feature = "parse")]
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
        #[cfg(feature = "decode")]
        Parser::Decoder(_) => set_error("prefill: a decoder has no prefill"),
    }
}

/// Feeds a chunk; returns the length of the events written to the output buffer (-1:
/// error): JSON text when `json` is 1 (the CLI's form), binary records when 0 (module docs).
///
/// # Safety
/// As [`ts_prefill`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_feed(h: *mut State, ptr: *const u8, len: usize, json: i32) -> i32 {
    // SAFETY: per the caller's contract.
    let Some(s) = (unsafe { state(h) }) else {
        return -1;
    };
    // SAFETY: per the caller's contract.
    let input = unsafe { bytes(ptr, len) };
    run(s, Some(input), json != 0)
}

/// Ends the stream: flushes what is held, completes open blocks; output as [`ts_feed`]'s
/// (-1: error).
///
/// # Safety
/// `h` null or a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_finish(h: *mut State, json: i32) -> i32 {
    // SAFETY: per the caller's contract.
    let Some(s) = (unsafe { state(h) }) else {
        return -1;
    };
    run(s, None, json != 0)
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
        #[cfg(feature = "parse")]
        Parser::Sieve(sieve) => sieve.reset(),
        #[cfg(feature = "decode")]
        Parser::Decoder(d) => d.reset(),
    }
    s.acc = Acc::default();
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
#[cfg(feature = "decode")]
fn decoder_of(text: &str) -> Result<Decoder<'static>, String> {
    let c = DecoderConfigBuf::from_json(text).map_err(|e| format!("config: {e}"))?;
    Decoder::new(&c.config()).map_err(|e| format!("config: {e}"))
}
