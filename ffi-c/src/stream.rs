//! The entry points of a stream: feed, next, finish, reset, prefill, and the last error's
//! message.

use core::ffi::c_char;
use core::ptr;

use tokensieve::EventSource;

use crate::error::{DONE, EVENT, Error, NEED_MORE, OK, Result, thread_message};
use crate::event::{Acc, convert};
use crate::panic::{Handle, with_parser};
use crate::parser::{Phase, tokensieve_parser};
use crate::types::tokensieve_event;

/// Hands the parser the next piece of the stream: `len` bytes at `data` (any chunking,
/// UTF-8 characters may be split). Nothing is parsed yet: call `tokensieve_next` until it
/// returns TOKENSIEVE_NEED_MORE.
///
/// Zero-copy: the parser reads `data` in place, so the caller keeps it alive and unchanged
/// until `tokensieve_next` has returned TOKENSIEVE_NEED_MORE or TOKENSIEVE_DONE (or until
/// reset/free). Events may point into it.
///
/// Errors: TOKENSIEVE_E_NULL (`p` NULL, or `data` NULL with `len > 0`);
/// TOKENSIEVE_E_STATE after `tokensieve_finish`, or while the previous input is not yet
/// drained. After a stop sequence the stream is done: feeding is allowed and ignored.
///
/// # Safety
/// `p` is NULL or a live parser; `data` is NULL or readable for `len` bytes for as long as
/// described above.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_feed(
    p: *mut tokensieve_parser,
    data: *const c_char,
    len: usize,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        with_parser(p, "tokensieve_feed", false, |parser| {
            feed(parser, data, len)
        })
    }
}

/// Writes the next event to `*out`. Returns TOKENSIEVE_EVENT (0) with `*out` written,
/// TOKENSIEVE_NEED_MORE (1) when the fed input is consumed, TOKENSIEVE_DONE (2) when the
/// stream has ended, or a negative error (`*out` untouched): TOKENSIEVE_E_NULL,
/// TOKENSIEVE_E_STATE (before any feed or finish).
///
/// The event's slices are valid until the next call on this parser.
///
/// # Safety
/// `p` is NULL or a live parser; `out` is NULL or writable for one event; the input of
/// the last `tokensieve_feed` is still alive (see there).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_next(
    p: *mut tokensieve_parser,
    out: *mut tokensieve_event,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe { with_parser(p, "tokensieve_next", false, |parser| next(parser, out)) }
}

/// Marks the end of input: keep calling `tokensieve_next` to drain (held bytes are
/// emitted, open blocks complete) until TOKENSIEVE_DONE. Input fed but not yet drained is
/// still parsed first. Calling it again is harmless. TOKENSIEVE_OK or a negative error.
///
/// # Safety
/// `p` is NULL or a live parser.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_finish(p: *mut tokensieve_parser) -> i32 {
    // SAFETY: forwarded contract.
    unsafe { with_parser(p, "tokensieve_finish", false, |parser| Ok(finish(parser))) }
}

/// Back to the initial state for a new stream, keeping configuration and memory (also
/// clears a poisoned parser). Forgets any undrained input. TOKENSIEVE_OK or a negative
/// error.
///
/// # Safety
/// `p` is NULL or a live parser.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_reset(p: *mut tokensieve_parser) -> i32 {
    // SAFETY: forwarded contract.
    unsafe { with_parser(p, "tokensieve_reset", true, |parser| Ok(reset(parser))) }
}

/// Advances the parser silently over `len` bytes of assistant prefill (text the prompt
/// already put in the model's mouth, e.g. `<thinking>`), before the first feed. The bytes
/// are read during the call only. TOKENSIEVE_OK, or TOKENSIEVE_E_STATE after feeding
/// started, or TOKENSIEVE_E_NULL.
///
/// # Safety
/// `p` is NULL or a live parser; `data` is NULL or readable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_prefill(
    p: *mut tokensieve_parser,
    data: *const c_char,
    len: usize,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        with_parser(p, "tokensieve_prefill", false, |parser| {
            if data.is_null() && len > 0 {
                return Err(parser.fail(
                    Error::Null,
                    format_args!("tokensieve_prefill: data is NULL but len is {len}"),
                ));
            }
            if parser.phase != Phase::Fresh {
                return Err(parser.fail(
                    Error::State,
                    format_args!("tokensieve_prefill after feeding started (reset first)"),
                ));
            }
            if len > 0 {
                // SAFETY: readable for `len` bytes during this call (contract).
                let bytes = core::slice::from_raw_parts(data.cast::<u8>(), len);
                if let Err(e) = parser.sieve.prefill(bytes) {
                    // A second prefill after one that began the stream (a block or held bytes).
                    return Err(parser.fail(Error::State, format_args!("tokensieve_prefill: {e}")));
                }
            }
            Ok(OK)
        })
    }
}

/// The message of the last failed call on `p` (NUL-terminated UTF-8, "" if none), valid
/// until the next call on `p`. With `p` NULL (or not a live parser): the message of the
/// last failure on this thread that had no parser to hold it (a failed
/// `tokensieve_new`/`tokensieve_init`/`tokensieve_state_size`, a NULL or invalid
/// parser), valid until the next failing call on this thread. Never NULL.
///
/// # Safety
/// `p` is NULL or a pointer that was a parser (a freed heap parser is undefined).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_last_error(p: *const tokensieve_parser) -> *const c_char {
    if !p.is_null() {
        // SAFETY: a live (or caller-memory, invalidated) parser by the contract.
        let parser = unsafe { &*p };
        if parser.is_live() {
            return parser.message();
        }
    }
    thread_message()
}

/// What the drive loop needs of a handle's state: its event source, the unread input of its
/// last feed, its phase and its accumulator — the same for the parser and the decoder.
pub(crate) struct Parts<'h, S> {
    pub(crate) source: &'h mut S,
    pub(crate) input: &'h mut *const u8,
    pub(crate) input_len: &'h mut usize,
    pub(crate) phase: &'h mut Phase,
    pub(crate) acc: &'h mut Acc,
}

/// A handle the stream entry points drive ([`feed`], [`next`], [`finish`], [`reset`]): one
/// implementation for `tokensieve_parser` and `tokensieve_decoder`.
pub(crate) trait Driven: Handle {
    /// What it pulls events from (`Sieve`, `Decoder`).
    type Source: EventSource;
    /// The entry points' common prefix, for messages ("tokensieve_", "tokensieve_decoder_").
    const PREFIX: &'static str;
    /// Its state, split into the parts the loop uses.
    fn parts(&mut self) -> Parts<'_, Self::Source>;
}

/// `*_feed`: records the caller's input (read in place by `next`).
pub(crate) fn feed<H: Driven>(h: &mut H, data: *const c_char, len: usize) -> Result<i32> {
    let p = H::PREFIX;
    if data.is_null() && len > 0 {
        return Err(h.fail(
            Error::Null,
            format_args!("{p}feed: data is NULL but len is {len}"),
        ));
    }
    if h.phase() == Phase::Finished {
        return Err(h.fail(
            Error::State,
            format_args!("{p}feed after {p}finish (reset to start a new stream)"),
        ));
    }
    if *h.parts().input_len > 0 {
        return Err(h.fail(
            Error::State,
            format_args!(
                "{p}feed before the previous input was drained (call {p}next until it returns TOKENSIEVE_NEED_MORE)"
            ),
        ));
    }
    let s = h.parts();
    *s.input = data.cast();
    *s.input_len = if data.is_null() { 0 } else { len };
    *s.phase = Phase::Fed;
    Ok(OK)
}

/// `*_next`: the next event into `*out`, or NEED_MORE / DONE.
///
/// # Safety
/// `out` is NULL or writable for one event; the input of the last feed is still alive.
pub(crate) unsafe fn next<H: Driven>(h: &mut H, out: *mut tokensieve_event) -> Result<i32> {
    let p = H::PREFIX;
    if out.is_null() {
        return Err(h.fail(Error::Null, format_args!("{p}next: out is NULL")));
    }
    if h.phase() == Phase::Fresh {
        return Err(h.fail(
            Error::State,
            format_args!("{p}next before {p}feed or {p}finish"),
        ));
    }
    let Parts {
        source,
        input,
        input_len,
        phase,
        acc,
    } = h.parts();
    let finished = *phase == Phase::Finished;
    let mut rest: &[u8] = if *input_len == 0 {
        &[]
    } else {
        // SAFETY: set by feed from the caller's `data`, which the caller keeps alive until
        // the input is drained (feed's contract).
        unsafe { core::slice::from_raw_parts(*input, *input_len) }
    };
    let ev = source.next(&mut rest);
    *input = rest.as_ptr();
    *input_len = rest.len();
    let Some(ev) = ev else {
        // Done once finished and drained, or (a parser) stopped by a stop sequence.
        return Ok(if finished || source.is_done() {
            DONE
        } else {
            NEED_MORE
        });
    };
    let e = convert(&ev, acc);
    // SAFETY: non-NULL and writable by the contract.
    unsafe { out.write(e) };
    Ok(EVENT)
}

/// `*_finish`: the end of input; `next` drains.
pub(crate) fn finish<H: Driven>(h: &mut H) -> i32 {
    let s = h.parts();
    s.source.finish();
    *s.phase = Phase::Finished;
    OK
}

/// `*_reset`: a new stream, keeping configuration and memory; forgets undrained input.
pub(crate) fn reset<H: Driven>(h: &mut H) -> i32 {
    let s = h.parts();
    s.source.reset();
    *s.input = ptr::null();
    *s.input_len = 0;
    s.acc.clear();
    *s.phase = Phase::Fresh;
    OK
}
