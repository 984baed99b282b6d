//! The opaque parser and the entry points that describe the ABI, make parsers and release
//! them. The streaming calls are in `stream`.

use core::ffi::c_char;
use core::fmt;
use core::mem::size_of;
use core::ptr;
use std::panic::{AssertUnwindSafe, catch_unwind};

use tokensieve::Sieve;
use tokensieve::config::DEFAULT_MAX_CALL_BYTES;

use crate::config::{DEFAULT_ACCUMULATE, json_sieve, read_config};
use crate::error::{ErrBuf, Error, OK, set_thread_message};
use crate::event::Acc;
use crate::memory::{PARSER, STATE_ALIGN, heap_free, heap_parser, init, new_on_heap, plan};
use crate::panic::guard;
use crate::types::{
    tokensieve_abi, tokensieve_config, tokensieve_dialect, tokensieve_dialect_unset,
    tokensieve_event, tokensieve_on_malformed, tokensieve_start_in, tokensieve_unknown_tools,
};

const MAGIC: u64 = 0x7473_6965_7665_3031; // "tsieve01"

/// Where a parser is in its stream: what calls it takes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Created or reset: prefill and feed allowed; next is not.
    Fresh,
    /// Fed at least once.
    Fed,
    /// `finish` called: only next, reset, free.
    Finished,
    /// A panic was caught: only reset and free.
    Poisoned,
}

/// The opaque parser. Lives at the start of its memory block (heap or caller's), followed
/// by its configuration copy and buffers.
pub struct tokensieve_parser {
    // Its state, whose first field is the magic (issue 25, R11: a handle of the other kind
    // passed by mistake is told by its first 8 bytes, never read past its end). One field,
    // so the state sits at offset 0 (asserted below); `repr(C)` is on the state, not here,
    // so cbindgen keeps this type opaque.
    s: ParserState,
}

const _: () = assert!(core::mem::offset_of!(tokensieve_parser, s) == 0);
const _: () = assert!(core::mem::offset_of!(ParserState, magic) == 0);

impl core::ops::Deref for tokensieve_parser {
    type Target = ParserState;
    fn deref(&self) -> &ParserState {
        &self.s
    }
}

impl core::ops::DerefMut for tokensieve_parser {
    fn deref_mut(&mut self) -> &mut ParserState {
        &mut self.s
    }
}

/// What a handle holds, the magic first.
#[repr(C)]
pub struct ParserState {
    magic: u64,
    /// `'static` stands for "as long as this parser": the configuration and buffers it
    /// borrows live in the same block (or, for JSON configs, inside the sieve) and are
    /// released only after the parser is dropped.
    pub(crate) sieve: Sieve<'static>,
    /// The unread part of the last `tokensieve_feed` (the caller keeps it alive).
    pub(crate) input: *const u8,
    pub(crate) input_len: usize,
    pub(crate) phase: Phase,
    pub(crate) acc: Acc,
    /// See `stream::Parts::pending`.
    pub(crate) pending: Option<tokensieve_event>,
    err: ErrBuf,
    /// Size of the heap block holding this parser; 0 for caller memory.
    alloc_size: usize,
}

impl crate::panic::Handle for tokensieve_parser {
    const NOUN: &'static str = "parser";
    fn is_live(&self) -> bool {
        self.is_live()
    }
    fn phase(&self) -> Phase {
        self.phase
    }
    fn poison(&mut self) {
        self.phase = Phase::Poisoned;
    }
    fn fail(&mut self, e: Error, args: fmt::Arguments<'_>) -> Error {
        self.fail(e, args)
    }
}

impl crate::stream::Driven for tokensieve_parser {
    type Source = Sieve<'static>;
    const PREFIX: &'static str = "tokensieve_";
    fn parts(&mut self) -> crate::stream::Parts<'_, Sieve<'static>> {
        let s = &mut self.s;
        crate::stream::Parts {
            source: &mut s.sieve,
            input: &mut s.input,
            input_len: &mut s.input_len,
            phase: &mut s.phase,
            acc: &mut s.acc,
            pending: &mut s.pending,
        }
    }
}

impl tokensieve_parser {
    pub(crate) fn new(sieve: Sieve<'static>, acc: Acc, alloc_size: usize) -> tokensieve_parser {
        tokensieve_parser {
            s: ParserState {
                magic: MAGIC,
                sieve,
                input: ptr::null(),
                input_len: 0,
                phase: Phase::Fresh,
                acc,
                pending: None,
                err: ErrBuf::new(),
                alloc_size,
            },
        }
    }

    /// Not freed (nor never initialised, as far as the magic tells).
    pub(crate) fn is_live(&self) -> bool {
        self.magic == MAGIC
    }

    /// Records `args` as this parser's last error and returns `e`.
    pub(crate) fn fail(&mut self, e: Error, args: fmt::Arguments<'_>) -> Error {
        self.err.set(args);
        e
    }

    /// The message of the last failed call on this parser (NUL-terminated).
    pub(crate) fn message(&self) -> *const c_char {
        self.err.as_ptr()
    }
}

/// The ABI version of the library (`TOKENSIEVE_ABI_VERSION` of the header it was built
/// with). A host compares it with the header's at start-up.
#[unsafe(no_mangle)]
pub extern "C" fn tokensieve_abi_version() -> u32 {
    tokensieve_abi::TOKENSIEVE_ABI_VERSION as u32
}

/// `sizeof(tokensieve_event)` as the library sees it; a host compares it with its own.
#[unsafe(no_mangle)]
pub extern "C" fn tokensieve_event_size() -> usize {
    size_of::<tokensieve_event>()
}

/// 1 when this build parses `dialect` (a `TOKENSIEVE_DIALECT_*` value), else 0.
#[unsafe(no_mangle)]
pub extern "C" fn tokensieve_dialect_supported(dialect: u32) -> i32 {
    tokensieve_dialect::decode(dialect).is_some_and(|d| d.is_supported()) as i32
}

/// Fills `*out` with the defaults: no dialect (TOKENSIEVE_DIALECT_NONE: set `dialect`, a
/// parser is refused without one), start in text, malformed calls re-emitted as text, no accumulation, no markers/stops/tools (NULL), `call_` ids, 1 MiB per call,
/// 2048 buffer bytes and 4096 accumulation bytes for caller memory.
///
/// Returns TOKENSIEVE_OK, or TOKENSIEVE_E_NULL when `out` is NULL.
///
/// # Safety
/// `out` is NULL or points to writable memory for one `tokensieve_config`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_config_default(out: *mut tokensieve_config) -> i32 {
    if out.is_null() {
        return Error::Null
            .report(format_args!("tokensieve_config_default: out is NULL"))
            .code();
    }
    let c = tokensieve_config {
        dialect: tokensieve_dialect_unset::TOKENSIEVE_DIALECT_NONE as u32,
        start_in: tokensieve_start_in::TOKENSIEVE_START_IN_TEXT as u32,
        on_malformed: tokensieve_on_malformed::TOKENSIEVE_ON_MALFORMED_TEXT as u32,
        accumulate: 0,
        thinking_open: ptr::null(),
        thinking_close: ptr::null(),
        tool_call_open: ptr::null(),
        tool_call_close: ptr::null(),
        id_prefix: ptr::null(),
        stop_sequences: ptr::null(),
        stop_sequences_len: 0,
        tools: ptr::null(),
        tools_len: 0,
        max_call_bytes: DEFAULT_MAX_CALL_BYTES,
        buffer_size: tokensieve::DEFAULT_MEMORY,
        accumulate_size: DEFAULT_ACCUMULATE,
        unknown_tools: tokensieve_unknown_tools::TOKENSIEVE_UNKNOWN_TOOLS_CALL as u32,
    };
    // SAFETY: non-NULL and writable by the contract above.
    unsafe { out.write(c) };
    OK
}

/// Bytes of caller memory a parser with `config` needs (parser, a copy of the config, its
/// buffers, the accumulation buffer). 0 when `config` is NULL or invalid (see
/// `tokensieve_last_error(NULL)`). Never allocates.
///
/// # Safety
/// `config` is NULL or a valid config (see `tokensieve_config`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_state_size(config: *const tokensieve_config) -> usize {
    guard("tokensieve_state_size", 0, || {
        if config.is_null() {
            Error::Null.report(format_args!("tokensieve_state_size: config is NULL"));
            return 0;
        }
        // SAFETY: non-NULL, valid by the contract.
        let r = unsafe { read_config(&*config) };
        r.and_then(|r| plan(&r, true, PARSER))
            .map_or(0, |p| p.total)
    })
}

/// The alignment caller memory for `tokensieve_init` must have (a power of two, ≥ 16).
#[unsafe(no_mangle)]
pub extern "C" fn tokensieve_state_align() -> usize {
    STATE_ALIGN
}

/// Creates a parser inside caller memory `mem` of `len` bytes, aligned to
/// `tokensieve_state_align()`, with `len >= tokensieve_state_size(config)`. Returns the
/// parser (at `mem`), or NULL with `tokensieve_last_error(NULL)` set.
///
/// Ownership: `mem` stays the caller's; it must outlive the parser and not be touched
/// while the parser is in use. Neither this call nor any later call on the parser
/// allocates from the heap. `config` and its strings are copied into `mem` and need not
/// outlive this call. Releasing: just stop using it (or call `tokensieve_free`, which
/// only invalidates it).
///
/// # Safety
/// `mem` is NULL or valid for writes of `len` bytes; `config` is NULL or a valid config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_init(
    mem: *mut core::ffi::c_void,
    len: usize,
    config: *const tokensieve_config,
) -> *mut tokensieve_parser {
    guard("tokensieve_init", ptr::null_mut(), || {
        // SAFETY: forwarded contract.
        unsafe { init(mem.cast(), len, config) }.unwrap_or(ptr::null_mut())
    })
}

/// Creates a parser on the heap. Returns it, or NULL with `tokensieve_last_error(NULL)`
/// set. `config` and its strings are copied. Release with `tokensieve_free`.
///
/// Heap parsers grow their buffers as needed (bounded by `max_call_bytes`); `buffer_size`
/// and `accumulate_size` do not apply (accumulation is unbounded).
///
/// # Safety
/// `config` is NULL or a valid config.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_new(
    config: *const tokensieve_config,
) -> *mut tokensieve_parser {
    guard("tokensieve_new", ptr::null_mut(), || {
        // SAFETY: forwarded contract.
        unsafe { new_on_heap(config) }.unwrap_or(ptr::null_mut())
    })
}

/// Creates a heap parser from a JSON config object, the `config` of the conformance
/// vectors: `{"dialect": "hermes", "tools": [{"name", "schema"}], "stop_sequences": […],
/// …}`. `accumulate` non-zero: completions carry `content`/`input`. Returns the parser or
/// NULL with `tokensieve_last_error(NULL)` naming the bad key. Release with
/// `tokensieve_free`. This is what the PHP binding uses.
///
/// # Safety
/// `config_json` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_new_json(
    config_json: *const c_char,
    accumulate: u32,
) -> *mut tokensieve_parser {
    guard("tokensieve_new_json", ptr::null_mut(), || {
        let acc = if accumulate != 0 {
            Acc::Heap(Vec::new())
        } else {
            Acc::Off
        };
        // SAFETY: forwarded contract.
        unsafe { json_sieve(config_json) }
            .and_then(|sieve| heap_parser(sieve, acc))
            .unwrap_or(ptr::null_mut())
    })
}

/// Releases a parser. Heap parsers (`tokensieve_new*`) are dropped and their memory freed;
/// caller-memory parsers (`tokensieve_init`) are only invalidated (later calls return
/// TOKENSIEVE_E_INVALID while the memory is unchanged); the memory stays the caller's.
/// NULL is a no-op. Using a heap parser after this call is undefined behaviour.
///
/// # Safety
/// `p` is NULL or a live parser, not in use by another thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_free(p: *mut tokensieve_parser) {
    if p.is_null() {
        return;
    }
    // SAFETY: a live parser by the contract; its magic tells an invalidated one.
    let parser = unsafe { &mut *p };
    if !parser.is_live() {
        set_thread_message(format_args!(
            "tokensieve_free: not a live tokensieve parser"
        ));
        return;
    }
    let size = parser.alloc_size;
    parser.magic = 0;
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the parser is valid and is not used again: heap blocks are freed below,
        // caller blocks are marked dead (magic 0), so every later call stops at the check.
        unsafe { ptr::drop_in_place(p) };
    }));
    if size > 0 {
        // SAFETY: a heap parser's block, of `size` bytes; dropped above.
        unsafe { heap_free(p.cast(), size) };
    }
}
