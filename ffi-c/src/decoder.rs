//! The provider-stream decoder: an opaque `tokensieve_decoder` over
//! [`tokensieve::provider::Decoder`] with the parser's pull shape (feed, next until
//! NEED_MORE, finish, next until DONE). Its events are `tokensieve_event`s, with the
//! provider fields (kinds FINISH and ERROR, `choice`, usage, …).

use core::ffi::c_char;
use core::fmt;
use core::ptr;
use std::panic::{AssertUnwindSafe, catch_unwind};

use tokensieve::provider::{Decoder, DecoderConfig, Provider};
use tokensieve::{ConfigError, Dialect};

use crate::config::{Read, json_decoder, read_config};
use crate::error::{ErrBuf, Error, OK, Result, config_err, set_thread_message, thread_message};
use crate::event::Acc;
use crate::memory::{
    Plan, STATE_ALIGN, block_acc, copy_config, decoder_shape, heap_alloc, heap_free, plan,
};
use crate::panic::{Handle, guard, with_parser};
use crate::parser::{Phase, tokensieve_config_default};
use crate::stream::{Driven, Parts, feed, finish, next, next_batch, reset};
use crate::types::{
    tokensieve_batch, tokensieve_decoder_config, tokensieve_dialect, tokensieve_event,
    tokensieve_provider,
};

/// The default `text.buffer_size` of a decoder config (caller memory).
const DEFAULT_DECODER_MEMORY: usize = 8192;

/// Where a decoder's memory came from, so that `free` releases it the right way.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Alloc {
    /// `Box` (`tokensieve_decoder_new_json`).
    Boxed,
    /// A heap block of this many bytes (`tokensieve_decoder_new`).
    Block(usize),
    /// The caller's memory (`tokensieve_decoder_init`).
    Caller,
}

const MAGIC: u64 = 0x7473_6465_636f_6431; // "tsdecod1"

/// The opaque decoder. Nothing borrows the caller's config: a JSON decoder owns its
/// configuration (`Decoder::new` copies what it keeps); a struct-configured one lives at the start of its block
/// (heap or caller's), followed by its configuration copy and buffers.
pub struct tokensieve_decoder {
    // The state, the magic first, at offset 0: see `tokensieve_parser` (issue 25, R11).
    s: DecoderState,
}

const _: () = assert!(core::mem::offset_of!(tokensieve_decoder, s) == 0);
const _: () = assert!(core::mem::offset_of!(DecoderState, magic) == 0);

impl core::ops::Deref for tokensieve_decoder {
    type Target = DecoderState;
    fn deref(&self) -> &DecoderState {
        &self.s
    }
}

impl core::ops::DerefMut for tokensieve_decoder {
    fn deref_mut(&mut self) -> &mut DecoderState {
        &mut self.s
    }
}

/// What a handle holds, the magic first.
#[repr(C)]
pub struct DecoderState {
    magic: u64,
    /// `'static` stands for "as long as this decoder" (its block, or its own heap copy).
    decoder: Decoder<'static>,
    alloc: Alloc,
    /// The unread part of the last `tokensieve_decoder_feed` (the caller keeps it alive).
    input: *const u8,
    input_len: usize,
    phase: Phase,
    acc: Acc,
    /// See `stream::Parts::pending`.
    pending: Option<tokensieve_event>,
    err: ErrBuf,
}

impl tokensieve_decoder {
    fn new(decoder: Decoder<'static>, acc: Acc, alloc: Alloc) -> tokensieve_decoder {
        tokensieve_decoder {
            s: DecoderState {
                magic: MAGIC,
                decoder,
                alloc,
                input: ptr::null(),
                input_len: 0,
                phase: Phase::Fresh,
                acc,
                pending: None,
                err: ErrBuf::new(),
            },
        }
    }
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

impl Driven for tokensieve_decoder {
    type Source = Decoder<'static>;
    const PREFIX: &'static str = "tokensieve_decoder_";
    fn parts(&mut self) -> Parts<'_, Decoder<'static>> {
        let s = &mut self.s;
        Parts {
            source: &mut s.decoder,
            input: &mut s.input,
            input_len: &mut s.input_len,
            phase: &mut s.phase,
            acc: &mut s.acc,
            pending: &mut s.pending,
        }
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
        || -> Result<*mut tokensieve_decoder> {
            // SAFETY: readable for `len` bytes by the contract.
            let text = unsafe { core::slice::from_raw_parts(config_json.cast::<u8>(), len) };
            let settings = json_decoder(text)?;
            let decoder = Decoder::new(&settings.config()).map_err(|e| {
                Error::Config.report(format_args!("config key `{}`: {}", e.key(), e.message()))
            })?;
            let acc = if accumulate != 0 {
                Acc::Heap(Vec::new())
            } else {
                Acc::Off
            };
            Ok(Box::into_raw(Box::new(tokensieve_decoder::new(
                decoder,
                acc,
                Alloc::Boxed,
            ))))
        },
    );
    finish_new(r, out)
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
            feed(dec, data, len)
        })
    }
}

/// `tokensieve_decoder_feed`, then `tokensieve_decoder_next_batch`, in one call (see
/// `tokensieve_feed_batch`).
///
/// # Safety
/// As `tokensieve_decoder_feed` and `tokensieve_decoder_next_batch`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_decoder_feed_batch(
    d: *mut tokensieve_decoder,
    data: *const c_char,
    len: usize,
    batch: *mut tokensieve_batch,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        with_parser(d, "tokensieve_decoder_feed_batch", false, |dec| {
            feed(dec, data, len)?;
            next_batch(dec, batch)
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
    unsafe { with_parser(d, "tokensieve_decoder_next", false, |dec| next(dec, out)) }
}

/// `tokensieve_next_batch` for a decoder: its events as `tokensieve_record`s and their
/// strings in one byte area, many per call (described there). Returns TOKENSIEVE_NEED_MORE /
/// TOKENSIEVE_DONE once drained, TOKENSIEVE_EVENT when a buffer is full and events remain,
/// TOKENSIEVE_E_BUFFER (`batch->n_bytes`: the bytes needed) when not even the next fits.
///
/// # Safety
/// `d` is NULL or a live decoder; `batch` is NULL or a valid `tokensieve_batch` (see
/// `tokensieve_next_batch`); the input of the last feed is still alive.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_decoder_next_batch(
    d: *mut tokensieve_decoder,
    batch: *mut tokensieve_batch,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        with_parser(d, "tokensieve_decoder_next_batch", false, |dec| {
            next_batch(dec, batch)
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
    unsafe { with_parser(d, "tokensieve_decoder_finish", false, finish) }
}

/// Back to the initial state for a new body, keeping the configuration (also clears a
/// poisoned decoder). Forgets undrained input.
///
/// # Safety
/// `d` is NULL or a live decoder.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_decoder_reset(d: *mut tokensieve_decoder) -> i32 {
    // SAFETY: forwarded contract.
    unsafe { with_parser(d, "tokensieve_decoder_reset", true, |dec| Ok(reset(dec))) }
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

/// Releases a decoder. Heap decoders (`tokensieve_decoder_new*`) are dropped and their
/// memory freed; caller-memory decoders (`tokensieve_decoder_init`) are only invalidated
/// (later calls return TOKENSIEVE_E_INVALID while the memory is unchanged). NULL is a no-op.
/// Using a heap decoder after this call is undefined behaviour.
///
/// # Safety
/// `d` is NULL or a live decoder, not in use by another thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_decoder_free(d: *mut tokensieve_decoder) {
    if d.is_null() {
        return;
    }
    // SAFETY: a live decoder by the contract; the magic tells an invalidated one.
    let dec = unsafe { &mut *d };
    if !dec.is_live() {
        set_thread_message(format_args!(
            "tokensieve_decoder_free: not a live tokensieve decoder"
        ));
        return;
    }
    dec.magic = 0;
    let alloc = dec.alloc;
    let _ = catch_unwind(AssertUnwindSafe(|| match alloc {
        // SAFETY: made by Box::into_raw in tokensieve_decoder_new_json; not used again.
        Alloc::Boxed => drop(unsafe { Box::from_raw(d) }),
        // SAFETY: valid, and not used again (heap blocks are freed below; caller blocks
        // are marked dead, so every later call stops at the magic check).
        Alloc::Block(_) | Alloc::Caller => unsafe { ptr::drop_in_place(d) },
    }));
    if let Alloc::Block(size) = alloc {
        // SAFETY: a heap block of `size` bytes from `heap_alloc`; its decoder dropped above.
        unsafe { heap_free(d.cast(), size) };
    }
}

/// Fills `*out` with the defaults: openai-chat, the default frame limit, and as `text`
/// `tokensieve_config_default`'s values but dialect PASSTHROUGH (no text dialect) and
/// `buffer_size` 8192. TOKENSIEVE_OK, or TOKENSIEVE_E_NULL when `out` is NULL.
///
/// # Safety
/// `out` is NULL or writable for one `tokensieve_decoder_config`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_decoder_config_default(
    out: *mut tokensieve_decoder_config,
) -> i32 {
    if out.is_null() {
        return Error::Null
            .report(format_args!(
                "tokensieve_decoder_config_default: out is NULL"
            ))
            .code();
    }
    let mut text = core::mem::MaybeUninit::uninit();
    // SAFETY: writable for one config.
    unsafe { tokensieve_config_default(text.as_mut_ptr()) };
    // SAFETY: written by the call above.
    let mut text = unsafe { text.assume_init() };
    text.dialect = tokensieve_dialect::TOKENSIEVE_DIALECT_PASSTHROUGH as u32;
    text.buffer_size = DEFAULT_DECODER_MEMORY;
    let c = tokensieve_decoder_config {
        provider: tokensieve_provider::TOKENSIEVE_PROVIDER_OPENAI_CHAT as u32,
        max_frame_bytes: 0,
        invoke_format: tokensieve_provider::TOKENSIEVE_PROVIDER_ANTHROPIC as u32,
        text,
    };
    // SAFETY: non-NULL and writable by the contract.
    unsafe { out.write(c) };
    OK
}

/// A decoder config read: the provider (decoded by this build) and the text config's view.
struct DecRead<'c> {
    provider: Provider,
    max_frame_bytes: u32,
    invoke_format: Provider,
    text: Read<'c>,
}

/// Checks a decoder config and views its strings; lays out its block.
///
/// # Safety
/// `c` is a valid config whose pointers follow the documented contract.
unsafe fn read_decoder(c: &tokensieve_decoder_config, fixed: bool) -> Result<(DecRead<'_>, Plan)> {
    let provider = tokensieve_provider::decode(c.provider).ok_or_else(|| {
        Error::Config.report(format_args!(
            "config: provider {} is not a TOKENSIEVE_PROVIDER_* value",
            c.provider
        ))
    })?;
    if !provider.is_supported() {
        return Err(Error::Config.report(format_args!(
            "config key `provider`: {} is not decoded by this build",
            provider.name()
        )));
    }
    let invoke_format = match tokensieve_provider::decode(c.invoke_format) {
        Some(p @ (Provider::Anthropic | Provider::OpenAiChat)) => p,
        _ => {
            return Err(Error::Config.report(format_args!(
                "config key `invoke_format`: {} is not TOKENSIEVE_PROVIDER_ANTHROPIC or \
                 TOKENSIEVE_PROVIDER_OPENAI_CHAT",
                c.invoke_format
            )));
        }
    };
    // SAFETY: forwarded contract.
    let mut r = unsafe { read_config(&c.text) }?;
    if c.text.buffer_size == 0 {
        r.buffer_size = DEFAULT_DECODER_MEMORY;
    }
    let p = plan(&r, fixed, decoder_shape(r.dialect != Dialect::Passthrough))?;
    Ok((
        DecRead {
            provider,
            max_frame_bytes: c.max_frame_bytes,
            invoke_format,
            text: r,
        },
        p,
    ))
}

/// Builds a decoder in `mem` (aligned to STATE_ALIGN, at least `plan.total` bytes): the
/// config copied into the block, the decoder at its start.
///
/// # Safety
/// `mem` is valid for writes of `plan.total` bytes, aligned, and stays allocated and
/// untouched by anyone else until the decoder is dropped. `r` views the caller's config.
unsafe fn build(
    mem: *mut u8,
    plan: &Plan,
    r: &DecRead<'_>,
    fixed: bool,
    alloc: Alloc,
) -> Result<*mut tokensieve_decoder> {
    // SAFETY: forwarded contract.
    let options = unsafe { copy_config(mem, plan, &r.text) }?;
    let mut config = DecoderConfig::new(r.provider);
    config.options = options;
    if r.max_frame_bytes != 0 {
        config.max_frame_bytes = r.max_frame_bytes;
    }
    config.invoke_format = r.invoke_format;
    // SAFETY: the config slot is inside the block and aligned for `DecoderConfig` (plan).
    let slot = unsafe { mem.add(plan.config) }.cast::<DecoderConfig<'static>>();
    // SAFETY: as above; written once, then only read (through the decoder's reference).
    unsafe { slot.write(config) };
    // SAFETY: just written; the block outlives the decoder (see `tokensieve_decoder::decoder`).
    let config: &'static DecoderConfig<'static> = unsafe { &*slot };
    let decoder = if fixed {
        // SAFETY: the memory region is inside the block, used by this decoder only.
        let memory: &'static mut [u8] =
            unsafe { core::slice::from_raw_parts_mut(mem.add(plan.sieve), plan.sieve_len) };
        Decoder::with_memory(config, memory)
    } else {
        Decoder::new(config)
    }
    .map_err(|e: ConfigError| config_err(&e))?;
    // SAFETY: forwarded contract.
    let acc = unsafe { block_acc(mem, plan, &r.text, fixed) };
    let d = mem.cast::<tokensieve_decoder>();
    // SAFETY: the block starts with room for the decoder and is aligned for it.
    unsafe { d.write(tokensieve_decoder::new(decoder, acc, alloc)) };
    Ok(d)
}

/// Bytes of caller memory a decoder with `config` needs (the decoder, a copy of the config,
/// `text.buffer_size` bytes of buffers, the accumulation buffer). 0 when `config` is NULL
/// or invalid (see `tokensieve_decoder_last_error(NULL)`). Never allocates. The alignment is
/// `tokensieve_state_align()`.
///
/// # Safety
/// `config` is NULL or a valid config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_decoder_state_size(
    config: *const tokensieve_decoder_config,
) -> usize {
    guard("tokensieve_decoder_state_size", 0, || {
        if config.is_null() {
            Error::Null.report(format_args!(
                "tokensieve_decoder_state_size: config is NULL"
            ));
            return 0;
        }
        // SAFETY: non-NULL, valid by the contract.
        unsafe { read_decoder(&*config, true) }.map_or(0, |(_, p)| p.total)
    })
}

/// Creates a decoder inside caller memory `mem` of `len` bytes, aligned to
/// `tokensieve_state_align()`, with `len >= tokensieve_decoder_state_size(config)`. On
/// success `*out` is the decoder (at `mem`) and the result TOKENSIEVE_OK; else `*out` is
/// NULL and the status negative (TOKENSIEVE_E_NULL, TOKENSIEVE_E_CONFIG,
/// TOKENSIEVE_E_MEMORY), with `tokensieve_decoder_last_error(NULL)` set.
///
/// Neither this call nor any later call on the decoder allocates from the heap. `config`
/// and its strings are copied into `mem`. `mem` stays the caller's: it must outlive the
/// decoder and not be touched while it is in use; `tokensieve_decoder_free` only
/// invalidates it.
///
/// # Safety
/// `mem` is NULL or valid for writes of `len` bytes; `config` is NULL or a valid config;
/// `out` is NULL or writable for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_decoder_init(
    mem: *mut core::ffi::c_void,
    len: usize,
    config: *const tokensieve_decoder_config,
    out: *mut *mut tokensieve_decoder,
) -> i32 {
    if out.is_null() {
        return Error::Null
            .report(format_args!("tokensieve_decoder_init: out is NULL"))
            .code();
    }
    // SAFETY: non-NULL and writable by the contract.
    unsafe { out.write(ptr::null_mut()) };
    let r = guard("tokensieve_decoder_init", Err(Error::Panic), || {
        if mem.is_null() || config.is_null() {
            return Err(Error::Null.report(format_args!(
                "tokensieve_decoder_init: mem and config must not be NULL"
            )));
        }
        let mem = mem.cast::<u8>();
        if (mem as usize) % STATE_ALIGN != 0 {
            return Err(Error::Memory.report(format_args!(
                "tokensieve_decoder_init: mem is not aligned to tokensieve_state_align() ({STATE_ALIGN})"
            )));
        }
        // SAFETY: non-NULL, valid by the contract.
        let (r, plan) = unsafe { read_decoder(&*config, true) }?;
        if len < plan.total {
            return Err(Error::Memory.report(format_args!(
                "tokensieve_decoder_init: len is {len} bytes, tokensieve_decoder_state_size says {}",
                plan.total
            )));
        }
        // SAFETY: writable for `len >= plan.total` bytes, aligned; the caller keeps it
        // alive and untouched while the decoder lives.
        unsafe { build(mem, &plan, &r, true, Alloc::Caller) }
    });
    finish_new(r, out)
}

/// Creates a heap decoder from a struct config (as `tokensieve_decoder_init`, but one heap
/// block; buffers grow as needed, bounded by `text.max_call_bytes`; `buffer_size` and
/// `accumulate_size` do not apply). Status and `*out` as `tokensieve_decoder_init`.
/// Release with `tokensieve_decoder_free`.
///
/// # Safety
/// `config` is NULL or a valid config; `out` is NULL or writable for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_decoder_new(
    config: *const tokensieve_decoder_config,
    out: *mut *mut tokensieve_decoder,
) -> i32 {
    if out.is_null() {
        return Error::Null
            .report(format_args!("tokensieve_decoder_new: out is NULL"))
            .code();
    }
    // SAFETY: non-NULL and writable by the contract.
    unsafe { out.write(ptr::null_mut()) };
    let r = guard("tokensieve_decoder_new", Err(Error::Panic), || {
        if config.is_null() {
            return Err(Error::Null.report(format_args!("tokensieve_decoder_new: config is NULL")));
        }
        // SAFETY: non-NULL, valid by the contract.
        let (r, plan) = unsafe { read_decoder(&*config, false) }?;
        let (mem, layout) = heap_alloc(plan.total)?;
        // SAFETY: a fresh heap block of `plan.total` bytes, aligned; freed only by
        // tokensieve_decoder_free after the decoder is dropped.
        unsafe { build(mem, &plan, &r, false, Alloc::Block(layout.size())) }.inspect_err(|_| {
            // SAFETY: allocated above with `layout`; nothing in it needs dropping.
            unsafe { std::alloc::dealloc(mem, layout) };
        })
    });
    finish_new(r, out)
}

/// Writes a made decoder to `*out` and returns the status.
fn finish_new(r: Result<*mut tokensieve_decoder>, out: *mut *mut tokensieve_decoder) -> i32 {
    match r {
        Ok(d) => {
            // SAFETY: `out` was checked non-NULL and writable by the entry point.
            unsafe { out.write(d) };
            OK
        }
        Err(e) => e.code(),
    }
}
