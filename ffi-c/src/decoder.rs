//! The provider-stream decoder: an opaque `tokensieve_decoder` over
//! [`tokensieve::provider::Decoder`] with the parser's pull shape (feed, next until
//! NEED_MORE, finish, next until DONE). Its events are `tokensieve_event`s, with the
//! provider fields (kinds FINISH and ERROR, `choice`, usage, …).

use core::ffi::c_char;
use core::fmt;
use core::ptr;
use std::panic::{AssertUnwindSafe, catch_unwind};

use tokensieve::provider::{Decoder, Provider};

use crate::config::json_decoder;
use crate::error::{DONE, EVENT, ErrBuf, Error, NEED_MORE, OK, set_thread_message, thread_message};
use crate::event::{Acc, convert};
use crate::panic::{Handle, guard, with_parser};
use crate::parser::Phase;
use crate::types::{tokensieve_event, tokensieve_provider};

const MAGIC: u64 = 0x7473_6465_636f_6431; // "tsdecod1"

/// The opaque decoder (heap). Its configuration is owned by the decoder itself
/// (`Decoder::owned`): nothing borrows the caller's config.
pub struct tokensieve_decoder {
    magic: u64,
    decoder: Decoder<'static>,
    /// The unread part of the last `tokensieve_decoder_feed` (the caller keeps it alive).
    input: *const u8,
    input_len: usize,
    phase: Phase,
    acc: Acc,
    err: ErrBuf,
}

impl Handle for tokensieve_decoder {
    const NOUN: &'static str = "decoder";
    fn is_live(&self) -> bool {
        self.magic == MAGIC
    }
    fn phase(&self) -> Phase {
        self.phase
    }
    fn poison(&mut self) {
        self.phase = Phase::Poisoned;
    }
    fn fail(&mut self, e: Error, args: fmt::Arguments<'_>) -> Error {
        self.err.set(args);
        e
    }
}

/// 1 when this build decodes `provider` (a `TOKENSIEVE_PROVIDER_*` value), else 0.
#[unsafe(no_mangle)]
pub extern "C" fn tokensieve_provider_supported(provider: u32) -> i32 {
    tokensieve_provider::decode(provider).is_some_and(Provider::is_supported) as i32
}

/// Creates a heap decoder from a JSON config object of `len` bytes at `config_json` (not
/// NUL-terminated; docs/providers.md): `{"provider": "openai-chat", "text_dialect":
/// "hermes", "tools": […], "max_frame_bytes": …}` — `provider` is required; every key of a
/// parser's JSON config but `dialect` applies to the text dialect. `accumulate` non-zero:
/// block_complete events carry `content`/`input`. On success `*out` is the decoder and the
/// result TOKENSIEVE_OK; else `*out` is NULL and the status negative (TOKENSIEVE_E_NULL,
/// TOKENSIEVE_E_CONFIG: an unknown or bad key, or a provider this build does not decode),
/// with `tokensieve_last_error(NULL)` naming the key. Release with
/// `tokensieve_decoder_free`. The config is copied: it need not outlive the call.
///
/// # Safety
/// `config_json` is NULL or readable for `len` bytes; `out` is NULL or writable for one
/// pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_decoder_new_json(
    config_json: *const c_char,
    len: usize,
    accumulate: u32,
    out: *mut *mut tokensieve_decoder,
) -> i32 {
    if out.is_null() {
        return Error::Null
            .report(format_args!("tokensieve_decoder_new_json: out is NULL"))
            .code();
    }
    // SAFETY: non-NULL and writable by the contract.
    unsafe { out.write(ptr::null_mut()) };
    if config_json.is_null() {
        return Error::Null
            .report(format_args!(
                "tokensieve_decoder_new_json: config_json is NULL"
            ))
            .code();
    }
    let r = guard(
        "tokensieve_decoder_new_json",
        Err(Error::Panic),
        || -> Result<*mut tokensieve_decoder, Error> {
            // SAFETY: readable for `len` bytes by the contract.
            let text = unsafe { core::slice::from_raw_parts(config_json.cast::<u8>(), len) };
            let settings = json_decoder(text)?;
            let decoder = Decoder::owned(&settings.config()).map_err(|e| {
                Error::Config.report(format_args!("config key `{}`: {}", e.key(), e.message()))
            })?;
            let acc = if accumulate != 0 {
                Acc::Heap(Vec::new())
            } else {
                Acc::Off
            };
            Ok(Box::into_raw(Box::new(tokensieve_decoder {
                magic: MAGIC,
                decoder,
                input: ptr::null(),
                input_len: 0,
                phase: Phase::Fresh,
                acc,
                err: ErrBuf::new(),
            })))
        },
    );
    match r {
        Ok(d) => {
            // SAFETY: as above.
            unsafe { out.write(d) };
            OK
        }
        Err(e) => e.code(),
    }
}

/// Hands the decoder the next read of the response body: `len` bytes at `data` (any
/// chunking). Then call `tokensieve_decoder_next` until TOKENSIEVE_NEED_MORE. Zero-copy as
/// `tokensieve_feed`: `data` stays alive and unchanged until the input is drained.
///
/// Errors: TOKENSIEVE_E_NULL, TOKENSIEVE_E_STATE (after finish, or before the previous
/// input was drained), TOKENSIEVE_E_INVALID, TOKENSIEVE_E_PANIC (poisoned).
///
/// # Safety
/// `d` is NULL or a live decoder; `data` is NULL or readable for `len` bytes until drained.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_decoder_feed(
    d: *mut tokensieve_decoder,
    data: *const c_char,
    len: usize,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        with_parser(d, "tokensieve_decoder_feed", false, |dec| {
            if data.is_null() && len > 0 {
                return Err(dec.fail(
                    Error::Null,
                    format_args!("tokensieve_decoder_feed: data is NULL but len is {len}"),
                ));
            }
            if dec.phase == Phase::Finished {
                return Err(dec.fail(
                    Error::State,
                    format_args!(
                        "tokensieve_decoder_feed after tokensieve_decoder_finish (reset to start a new stream)"
                    ),
                ));
            }
            if dec.input_len > 0 {
                return Err(dec.fail(
                    Error::State,
                    format_args!(
                        "tokensieve_decoder_feed before the previous input was drained (call tokensieve_decoder_next until it returns TOKENSIEVE_NEED_MORE)"
                    ),
                ));
            }
            dec.input = data.cast();
            dec.input_len = if data.is_null() { 0 } else { len };
            dec.phase = Phase::Fed;
            Ok(OK)
        })
    }
}

/// Writes the next event to `*out`: TOKENSIEVE_EVENT with `*out` written,
/// TOKENSIEVE_NEED_MORE when the fed input is consumed, TOKENSIEVE_DONE after
/// `tokensieve_decoder_finish` once everything is out, or a negative error (`*out`
/// untouched). The event's slices are valid until the next call on this decoder.
///
/// # Safety
/// `d` is NULL or a live decoder; `out` is NULL or writable for one event; the input of
/// the last feed is still alive.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_decoder_next(
    d: *mut tokensieve_decoder,
    out: *mut tokensieve_event,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        with_parser(d, "tokensieve_decoder_next", false, |dec| {
            if out.is_null() {
                return Err(dec.fail(
                    Error::Null,
                    format_args!("tokensieve_decoder_next: out is NULL"),
                ));
            }
            if dec.phase == Phase::Fresh {
                return Err(dec.fail(
                    Error::State,
                    format_args!(
                        "tokensieve_decoder_next before tokensieve_decoder_feed or tokensieve_decoder_finish"
                    ),
                ));
            }
            let finished = dec.phase == Phase::Finished;
            let tokensieve_decoder {
                decoder,
                input,
                input_len,
                acc,
                ..
            } = dec;
            let mut rest: &[u8] = if *input_len == 0 {
                &[]
            } else {
                // SAFETY: set by feed from the caller's `data`, alive until drained.
                core::slice::from_raw_parts(*input, *input_len)
            };
            let ev = decoder.next(&mut rest);
            *input = rest.as_ptr();
            *input_len = rest.len();
            let Some(ev) = ev else {
                return Ok(if finished { DONE } else { NEED_MORE });
            };
            let e = convert(&ev, acc);
            // SAFETY: non-NULL and writable by the contract.
            out.write(e);
            Ok(EVENT)
        })
    }
}

/// Says the body ended: keep calling `tokensieve_decoder_next` until TOKENSIEVE_DONE (open
/// blocks complete, pending finishes come out). Input fed but not drained is decoded
/// first. Calling it again is harmless.
///
/// # Safety
/// `d` is NULL or a live decoder.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_decoder_finish(d: *mut tokensieve_decoder) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        with_parser(d, "tokensieve_decoder_finish", false, |dec| {
            dec.decoder.finish();
            dec.phase = Phase::Finished;
            Ok(OK)
        })
    }
}

/// Back to the initial state for a new body, keeping the configuration (also clears a
/// poisoned decoder). Forgets undrained input.
///
/// # Safety
/// `d` is NULL or a live decoder.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_decoder_reset(d: *mut tokensieve_decoder) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        with_parser(d, "tokensieve_decoder_reset", true, |dec| {
            dec.decoder.reset();
            dec.input = ptr::null();
            dec.input_len = 0;
            dec.acc.clear();
            dec.phase = Phase::Fresh;
            Ok(OK)
        })
    }
}

/// The message of the last failed call on `d` (NUL-terminated, "" if none), valid until
/// the next call on `d`; with `d` NULL, the thread's last error (as
/// `tokensieve_last_error(NULL)`). Never NULL.
///
/// # Safety
/// `d` is NULL or a live decoder.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_decoder_last_error(
    d: *const tokensieve_decoder,
) -> *const c_char {
    if !d.is_null() {
        // SAFETY: a live decoder by the contract.
        let dec = unsafe { &*d };
        if dec.is_live() {
            return dec.err.as_ptr();
        }
    }
    thread_message()
}

/// Releases a decoder (drops it and frees its memory). NULL is a no-op. Using it after
/// this call is undefined behaviour.
///
/// # Safety
/// `d` is NULL or a live decoder, not in use by another thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_decoder_free(d: *mut tokensieve_decoder) {
    if d.is_null() {
        return;
    }
    // SAFETY: a live decoder by the contract; the magic tells some misuse.
    if !unsafe { &*d }.is_live() {
        set_thread_message(format_args!(
            "tokensieve_decoder_free: not a live tokensieve decoder"
        ));
        return;
    }
    // SAFETY: made by Box::into_raw in tokensieve_decoder_new_json; not used again.
    let mut b = unsafe { Box::from_raw(d) };
    b.magic = 0;
    let _ = catch_unwind(AssertUnwindSafe(move || drop(b)));
}
