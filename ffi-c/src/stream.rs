//! The entry points of a stream: feed, next, finish, reset, prefill, and the last error's
//! message.

use core::ffi::c_char;
use core::ptr;

use tokensieve::EventSource;

use crate::batch;
use crate::error::{DONE, EVENT, Error, NEED_MORE, OK, Result, thread_message};
use crate::event::{Acc, convert};
use crate::panic::{Handle, with_parser};
use crate::parser::{Phase, tokensieve_parser};
use crate::types::{tokensieve_batch, tokensieve_event, tokensieve_record};

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

/// Drains events in batches, many per call: for hosts where each call across the boundary
/// or each field read costs more than the event (PHP's FFI). Each event becomes one
/// `tokensieve_record` in `batch->records[0..records_cap)` and its strings are copied into
/// `batch->bytes[0..bytes_cap)`, one event after the other in record order: `text_len`
/// bytes of text, `name_len` of tool name, `id_len` of tool id, `rest_len` of the rest. The
/// rest (present for block completions with content, input or an error, finishes, errors,
/// and events of a choice other than 0) is described at `tokensieve_record_bit`. The counts
/// written go to `batch->n_records` and `batch->n_bytes`. Unlike `tokensieve_next`'s
/// slices, the copies stay valid after the call.
///
/// Returns TOKENSIEVE_NEED_MORE or TOKENSIEVE_DONE (as `tokensieve_next`) once every event
/// of the fed input is written, or TOKENSIEVE_EVENT (0) when a buffer is full and events
/// remain: read them, then call again. Mixing it with `tokensieve_next` is allowed.
///
/// Errors: TOKENSIEVE_E_NULL (`p` or `batch` NULL, a buffer NULL with a capacity above 0),
/// TOKENSIEVE_E_STATE (before any feed or finish), TOKENSIEVE_E_BUFFER when not even the
/// next event fits: nothing is written, `n_records` is 1 and `n_bytes` the bytes it needs
/// (call again with that much; the event waits). While an event waits, `tokensieve_feed`
/// and `tokensieve_finish` return TOKENSIEVE_E_STATE.
///
/// ```c
/// tokensieve_record recs[256]; uint8_t bytes[16384];
/// tokensieve_batch b = { recs, 256, bytes, sizeof bytes, 0, 0 };
/// int rc;
/// do {
///     rc = tokensieve_next_batch(p, &b);
///     size_t at = 0;
///     for (size_t i = 0; i < b.n_records; i++) {
///         const uint8_t *text = bytes + at;   // recs[i].text_len bytes
///         at += recs[i].text_len + recs[i].name_len + recs[i].id_len + recs[i].rest_len;
///     }
/// } while (rc == TOKENSIEVE_EVENT);   // E_BUFFER: grow `bytes` to b.n_bytes, call again
/// ```
///
/// # Safety
/// `p` is NULL or a live parser; `batch` is NULL or a valid `tokensieve_batch` whose
/// `records` is NULL or writable for `records_cap` records and `bytes` NULL or writable for
/// `bytes_cap` bytes; the input of the last `tokensieve_feed` is still alive.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_next_batch(
    p: *mut tokensieve_parser,
    batch: *mut tokensieve_batch,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        with_parser(p, "tokensieve_next_batch", false, |parser| {
            next_batch(parser, batch)
        })
    }
}

/// `tokensieve_feed`, then `tokensieve_next_batch`, in one call (one call per piece of the
/// stream instead of two, for hosts where a call is dear). Same contracts: `data` stays alive
/// and unchanged until a call returns TOKENSIEVE_NEED_MORE or TOKENSIEVE_DONE (on
/// TOKENSIEVE_EVENT, keep calling `tokensieve_next_batch`); the statuses of both: a refused
/// feed returns its error before anything is drained, and TOKENSIEVE_E_BUFFER means the
/// input was taken and the first event waits for a larger byte area.
///
/// # Safety
/// As `tokensieve_feed` and `tokensieve_next_batch`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_feed_batch(
    p: *mut tokensieve_parser,
    data: *const c_char,
    len: usize,
    batch: *mut tokensieve_batch,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        with_parser(p, "tokensieve_feed_batch", false, |parser| {
            feed(parser, data, len)?;
            next_batch(parser, batch)
        })
    }
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
    unsafe { with_parser(p, "tokensieve_finish", false, finish) }
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
    /// An event `*_next_batch` pulled but had no room for: handed out first by the next
    /// `*_next` or `*_next_batch`. Its slices stay valid because nothing touches the source
    /// until then (`feed` and `finish` refuse while it waits).
    pub(crate) pending: &'h mut Option<tokensieve_event>,
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
    let undrained = {
        let s = h.parts();
        *s.input_len > 0 || s.pending.is_some()
    };
    if undrained {
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
    check_pull(h, "next")?;
    // SAFETY: forwarded contract (the last feed's input is alive).
    let status = match unsafe { pull(h) } {
        Pulled::Event(e) => {
            // SAFETY: non-NULL and writable by the contract.
            unsafe { out.write(e) };
            EVENT
        }
        Pulled::End(status) => status,
    };
    Ok(status)
}

/// `*_next_batch`: events as records (`batch`) into `records[..records_cap]` and their
/// strings into `bytes[..bytes_cap]` until the input is drained (NEED_MORE / DONE) or the
/// next event does not fit (EVENT: call again); the counts go to `n_records` and `n_bytes`.
/// When not even the first event fits: E_BUFFER, nothing written, `n_records` 1 and
/// `n_bytes` the bytes it needs (the event waits for the next call).
///
/// # Safety
/// `batch` is NULL or a valid `tokensieve_batch` whose `records` is NULL or writable for
/// `records_cap` records and `bytes` NULL or writable for `bytes_cap` bytes; the input of
/// the last feed is still alive.
pub(crate) unsafe fn next_batch<H: Driven>(h: &mut H, batch: *mut tokensieve_batch) -> Result<i32> {
    let p = H::PREFIX;
    if batch.is_null() {
        return Err(h.fail(Error::Null, format_args!("{p}next_batch: batch is NULL")));
    }
    // SAFETY: non-NULL, and a valid `tokensieve_batch` by the contract.
    let b = unsafe { &mut *batch };
    if (b.records.is_null() && b.records_cap > 0) || (b.bytes.is_null() && b.bytes_cap > 0) {
        return Err(h.fail(
            Error::Null,
            format_args!("{p}next_batch: records or bytes is NULL with a capacity above 0"),
        ));
    }
    check_pull(h, "next_batch")?;
    let records: &mut [tokensieve_record] = if b.records_cap == 0 {
        &mut []
    } else {
        // SAFETY: non-NULL (checked) and writable for `records_cap` records (contract).
        unsafe { core::slice::from_raw_parts_mut(b.records, b.records_cap) }
    };
    let bytes: &mut [u8] = if b.bytes_cap == 0 {
        &mut []
    } else {
        // SAFETY: non-NULL (checked) and writable for `bytes_cap` bytes (contract).
        unsafe { core::slice::from_raw_parts_mut(b.bytes, b.bytes_cap) }
    };
    let (mut n, mut len) = (0usize, 0usize);
    let status = loop {
        // SAFETY: forwarded contract (the last feed's input is alive).
        let ev = match unsafe { pull(h) } {
            Pulled::Event(e) => e,
            Pulled::End(status) => break Ok(status),
        };
        let laid = batch::lay(&ev);
        let fits = laid
            .bytes
            .is_some_and(|size| n < records.len() && size <= bytes.len() - len);
        if !fits {
            // No room: it waits (its slices stay valid: the source is not touched until it
            // is handed out).
            *h.parts().pending = Some(ev);
            if n > 0 {
                break Ok(EVENT);
            }
            let Some(size) = laid.bytes else {
                break Err(h.fail(
                    Error::Buffer,
                    format_args!(
                        "{p}next_batch: the next event has a string over 4 GiB: take it with {p}next"
                    ),
                ));
            };
            (n, len) = (1, size);
            break Err(h.fail(
                Error::Buffer,
                format_args!(
                    "{p}next_batch: the next event needs 1 record and {size} bytes; the buffers hold {} and {}",
                    records.len(),
                    bytes.len()
                ),
            ));
        };
        let size = laid.bytes.unwrap_or(0);
        // SAFETY: `ev` was just pulled (or kept untouched since): its slices are valid.
        unsafe { batch::write(&ev, &laid, &mut bytes[len..len + size]) };
        records[n] = laid.record;
        n += 1;
        len += size;
    };
    b.n_records = n;
    b.n_bytes = len;
    status
}

/// What [`pull`] found.
// Returned once per event and moved straight out: boxing would allocate, which caller-memory
// handles never do.
#[allow(clippy::large_enum_variant)]
enum Pulled {
    Event(tokensieve_event),
    /// NEED_MORE or DONE.
    End(i32),
}

/// The state check of `*_next` and `*_next_batch`.
fn check_pull<H: Driven>(h: &mut H, call: &str) -> Result<()> {
    let p = H::PREFIX;
    if h.phase() == Phase::Fresh {
        return Err(h.fail(
            Error::State,
            format_args!("{p}{call} before {p}feed or {p}finish"),
        ));
    }
    Ok(())
}

/// The waiting event, else the next one from the source, converted (and accumulated).
///
/// # Safety
/// The input of the last feed is still alive.
unsafe fn pull<H: Driven>(h: &mut H) -> Pulled {
    let Parts {
        source,
        input,
        input_len,
        phase,
        acc,
        pending,
    } = h.parts();
    if let Some(e) = pending.take() {
        return Pulled::Event(e);
    }
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
        return Pulled::End(if finished || source.is_done() {
            DONE
        } else {
            NEED_MORE
        });
    };
    Pulled::Event(convert(&ev, acc))
}

/// `*_finish`: the end of input; `next` drains. Refused while an event `*_next_batch`
/// had no room for waits (finishing could move the bytes it points to).
pub(crate) fn finish<H: Driven>(h: &mut H) -> Result<i32> {
    if h.parts().pending.is_some() {
        let p = H::PREFIX;
        return Err(h.fail(
            Error::State,
            format_args!(
                "{p}finish while an event waits: call {p}next_batch (or {p}next) until it returns TOKENSIEVE_NEED_MORE first"
            ),
        ));
    }
    let s = h.parts();
    s.source.finish();
    *s.phase = Phase::Finished;
    Ok(OK)
}

/// `*_reset`: a new stream, keeping configuration and memory; forgets undrained input.
pub(crate) fn reset<H: Driven>(h: &mut H) -> i32 {
    let s = h.parts();
    s.source.reset();
    *s.input = ptr::null();
    *s.input_len = 0;
    s.acc.clear();
    *s.pending = None;
    *s.phase = Phase::Fresh;
    OK
}
