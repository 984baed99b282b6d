//! The C ABI of tokensieve (`libtokensieve.so`, `libtokensieve.a`, header `include/tokensieve.h`).
//!
//! A pull API over [`tokensieve::Sieve`]: `tokensieve_feed` hands the parser a piece of model
//! output, `tokensieve_next` returns one event at a time until it says "need more". Events are
//! a fixed-layout struct whose strings are `(ptr, len)` slices into the fed input or the
//! parser's memory, valid until the next call on that parser.
//!
//! Memory: `tokensieve_new`/`tokensieve_free` (heap), or caller-provided memory
//! (`tokensieve_state_size` + `tokensieve_state_align` + `tokensieve_init`), in which case
//! the parser, a copy of its configuration, its buffers and (optionally) the accumulation
//! buffer all live in that one block and nothing touches the heap: not at init, not while
//! feeding.
//!
//! Every entry point checks its pointers and the parser's state, returns a negative status
//! with a message for `tokensieve_last_error`, and catches panics (a panic poisons the
//! parser until `tokensieve_reset`).
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]
#![allow(non_camel_case_types)]

use core::cell::RefCell;
use core::ffi::{CStr, c_char};
use core::fmt;
use core::mem::{align_of, size_of};
use core::ptr;
use std::alloc::Layout;
use std::panic::{AssertUnwindSafe, catch_unwind};

use tokensieve::{
    BlockType, Config, ConfigBuf, ConfigError, Dialect, ErrorReason, Event, OnMalformed, Param,
    Part, Sieve, StartIn, StrList, Tool, ToolList,
};

mod schema;

// --- constants (enums, so that both headers, C and PHP, carry them) ---------------------

/// The version of this ABI: bumped on any change to a struct layout or a signature.
#[repr(C)]
pub enum tokensieve_abi {
    /// Compare with `tokensieve_abi_version()` at start-up.
    TOKENSIEVE_ABI_VERSION = 1,
}

/// Status of `tokensieve_next`.
#[repr(C)]
pub enum tokensieve_next_status {
    /// An event was written to `*out`.
    TOKENSIEVE_EVENT = 0,
    /// All fed input is consumed: feed more (or finish).
    TOKENSIEVE_NEED_MORE = 1,
    /// The stream has ended (finish drained, or a stop sequence); nothing more will come.
    TOKENSIEVE_DONE = 2,
}

/// Status of the other calls; the negative values are also returned by `tokensieve_next`.
#[repr(C)]
pub enum tokensieve_status {
    /// Success.
    TOKENSIEVE_OK = 0,
    /// A required pointer argument was NULL.
    TOKENSIEVE_E_NULL = -1,
    /// The call is not allowed in the parser's state (feed after finish, next before feed,
    /// feed before the previous input was drained, prefill after feeding).
    TOKENSIEVE_E_STATE = -2,
    /// The configuration was rejected.
    TOKENSIEVE_E_CONFIG = -3,
    /// Memory too small, misaligned, or the heap refused.
    TOKENSIEVE_E_MEMORY = -4,
    /// The pointer is not a live parser (never initialised, or freed).
    TOKENSIEVE_E_INVALID = -5,
    /// An internal error (a Rust panic) was caught; the parser is poisoned until reset.
    TOKENSIEVE_E_PANIC = -6,
}

/// `tokensieve_event.kind`.
#[repr(C)]
pub enum tokensieve_kind {
    /// A block begins: `index`, `block_type`.
    TOKENSIEVE_KIND_BLOCK_START = 1,
    /// A piece of the open block: `text`, `block_type`, `index` (the block), `depth`, `part`,
    /// `tool_name`, `tool_id`.
    TOKENSIEVE_KIND_CHUNK = 2,
    /// The open block ends: `index`, `block_type`, `tool_name`, `tool_id`, the error fields,
    /// `content`/`input` when accumulating.
    TOKENSIEVE_KIND_BLOCK_COMPLETE = 3,
    /// A stop sequence matched (`text` is the sequence); it is the last event.
    TOKENSIEVE_KIND_STOP = 4,
}

/// `tokensieve_event.block_type`.
#[repr(C)]
pub enum tokensieve_block_type {
    /// Visible text.
    TOKENSIEVE_BLOCK_TEXT = 0,
    /// Thinking.
    TOKENSIEVE_BLOCK_THINKING = 1,
    /// A tool call.
    TOKENSIEVE_BLOCK_TOOL_CALL = 2,
    /// A tool result.
    TOKENSIEVE_BLOCK_TOOL_RESULT = 3,
}

/// `tokensieve_event.part` (tool_call chunks).
#[repr(C)]
pub enum tokensieve_part {
    /// Not a tool_call chunk.
    TOKENSIEVE_PART_NONE = 0,
    /// The tool's name.
    TOKENSIEVE_PART_NAME = 1,
    /// The call id.
    TOKENSIEVE_PART_ID = 2,
    /// A piece of the input JSON object.
    TOKENSIEVE_PART_INPUT = 3,
}

/// `tokensieve_event.error_code`: why a tool call failed (0: it did not).
#[repr(C)]
pub enum tokensieve_call_error {
    /// No error.
    TOKENSIEVE_CALL_OK = 0,
    /// `malformed-body`.
    TOKENSIEVE_CALL_MALFORMED_BODY = 1,
    /// `missing-name`.
    TOKENSIEVE_CALL_MISSING_NAME = 2,
    /// `malformed-parameter`.
    TOKENSIEVE_CALL_MALFORMED_PARAMETER = 3,
    /// `unexpected-content`.
    TOKENSIEVE_CALL_UNEXPECTED_CONTENT = 4,
    /// `unfinished`.
    TOKENSIEVE_CALL_UNFINISHED = 5,
    /// `too-large`.
    TOKENSIEVE_CALL_TOO_LARGE = 6,
    /// `nesting-too-deep`.
    TOKENSIEVE_CALL_NESTING_TOO_DEEP = 7,
}

/// Bits of `tokensieve_event.flags`.
#[repr(C)]
pub enum tokensieve_flag {
    /// The event belongs to a text block (what a text-to-speech engine speaks).
    TOKENSIEVE_FLAG_VISIBLE = 1,
    /// block_complete of a tool result that reports an error.
    TOKENSIEVE_FLAG_IS_ERROR = 2,
    /// block_complete of a failed call whose `error_raw` was cut (it outgrew the buffer).
    TOKENSIEVE_FLAG_RAW_TRUNCATED = 4,
    /// block_complete whose accumulated `content`/`input` was cut (caller memory only: it
    /// outgrew `accumulate_size`; the slice holds whole characters up to that point).
    TOKENSIEVE_FLAG_ACCUMULATED_TRUNCATED = 8,
}

/// `tokensieve_config.dialect`.
#[repr(C)]
pub enum tokensieve_dialect {
    /// All text, plus thinking markers and stop sequences.
    TOKENSIEVE_DIALECT_PASSTHROUGH = 0,
    /// `<thinking>`, `<function_calls><invoke name=…>`, `<function_results>`.
    TOKENSIEVE_DIALECT_ANTHROPIC_XML = 1,
    /// `<tool_call>{json}</tool_call>`.
    TOKENSIEVE_DIALECT_HERMES = 2,
    /// `<tool_name><arg>…</arg></tool_name>`.
    TOKENSIEVE_DIALECT_MORPH_XML = 3,
    /// `<tool_call><function=N><parameter=K>…`.
    TOKENSIEVE_DIALECT_QWEN3_CODER = 4,
}

/// `tokensieve_config.start_in`.
#[repr(C)]
pub enum tokensieve_start_in {
    /// The stream starts in text.
    TOKENSIEVE_START_IN_TEXT = 0,
    /// The prompt template already opened the thinking tag.
    TOKENSIEVE_START_IN_THINKING = 1,
}

/// `tokensieve_config.on_malformed`.
#[repr(C)]
pub enum tokensieve_on_malformed {
    /// A failed call's raw text is also emitted as a visible text block.
    TOKENSIEVE_ON_MALFORMED_TEXT = 0,
    /// Only the failed tool_call block reports it.
    TOKENSIEVE_ON_MALFORMED_DROP = 1,
}

const OK: i32 = tokensieve_status::TOKENSIEVE_OK as i32;
const E_NULL: i32 = tokensieve_status::TOKENSIEVE_E_NULL as i32;
const E_STATE: i32 = tokensieve_status::TOKENSIEVE_E_STATE as i32;
const E_CONFIG: i32 = tokensieve_status::TOKENSIEVE_E_CONFIG as i32;
const E_MEMORY: i32 = tokensieve_status::TOKENSIEVE_E_MEMORY as i32;
const E_INVALID: i32 = tokensieve_status::TOKENSIEVE_E_INVALID as i32;
const E_PANIC: i32 = tokensieve_status::TOKENSIEVE_E_PANIC as i32;
const EVENT: i32 = tokensieve_next_status::TOKENSIEVE_EVENT as i32;
const NEED_MORE: i32 = tokensieve_next_status::TOKENSIEVE_NEED_MORE as i32;
const DONE: i32 = tokensieve_next_status::TOKENSIEVE_DONE as i32;

// --- structs --------------------------------------------------------------------------

/// A tool the model may call: its name and the JSON Schema of its input object.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct tokensieve_tool {
    /// NUL-terminated UTF-8, not empty. Copied at init: need not outlive the call.
    pub name: *const c_char,
    /// NUL-terminated JSON Schema text of the input object, or NULL (no declared
    /// parameters). Only `properties` → `type` (and `items.type`) are read. Copied at init.
    pub schema: *const c_char,
}

/// Parser configuration. Fill it with `tokensieve_config_default`, then set fields. Every
/// string is NUL-terminated UTF-8 and is copied by `tokensieve_new`/`tokensieve_init`: none
/// of it needs to outlive that call.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct tokensieve_config {
    /// A `TOKENSIEVE_DIALECT_*` value (default anthropic-xml).
    pub dialect: u32,
    /// A `TOKENSIEVE_START_IN_*` value (default text).
    pub start_in: u32,
    /// A `TOKENSIEVE_ON_MALFORMED_*` value (default text).
    pub on_malformed: u32,
    /// Non-zero: block_complete events carry `content` (text, thinking, tool_result) and
    /// `input` (successful tool_call), as in the JSON form (default 0).
    pub accumulate: u32,
    /// Thinking markers: both NULL for the dialect's default, or both set.
    pub thinking_open: *const c_char,
    /// See `thinking_open`.
    pub thinking_close: *const c_char,
    /// hermes only: tool-call markers, both NULL (`<tool_call>`, `</tool_call>`) or both set.
    pub tool_call_open: *const c_char,
    /// See `tool_call_open`.
    pub tool_call_close: *const c_char,
    /// Prefix of generated call ids; NULL for `call_`.
    pub id_prefix: *const c_char,
    /// `stop_sequences_len` stop sequences (matched in text blocks only), or NULL when 0.
    pub stop_sequences: *const *const c_char,
    /// Number of stop sequences.
    pub stop_sequences_len: usize,
    /// `tools_len` tools, or NULL when 0.
    pub tools: *const tokensieve_tool,
    /// Number of tools.
    pub tools_len: usize,
    /// Heap parsers: how many bytes of one call may be held (default 1 MiB; 0 = default).
    pub max_call_bytes: usize,
    /// Caller memory: bytes for held parameter values and a failed call's raw text (default
    /// 2048, minimum 1028; 0 = default; below the minimum the config is rejected with
    /// TOKENSIEVE_E_CONFIG). A raw text beyond ~3/4 of it is cut and flagged.
    pub buffer_size: usize,
    /// Caller memory with `accumulate`: bytes for one block's `content`/`input` (default
    /// 4096; 0 = default). Beyond it the block is flagged ACCUMULATED_TRUNCATED and carries
    /// the longest prefix of its text (whole characters) that fits, whatever the chunking.
    pub accumulate_size: usize,
}

/// A string slice: `len` bytes at `ptr`, not NUL-terminated. `ptr == NULL` means absent;
/// a present empty string has a non-NULL `ptr` and `len == 0`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct tokensieve_str {
    /// The bytes (UTF-8, except `error_raw`, which is the call's bytes as received).
    pub ptr: *const c_char,
    /// Their number.
    pub len: usize,
}

/// One event. Every slice points into the input given to `tokensieve_feed` or into the
/// parser's memory: valid until the next call on the same parser (any call, including
/// `tokensieve_next`, `tokensieve_reset` and `tokensieve_free`). Copy what you keep.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct tokensieve_event {
    /// A `TOKENSIEVE_KIND_*` value.
    pub kind: u32,
    /// A `TOKENSIEVE_BLOCK_*` value (all kinds but STOP).
    pub block_type: u32,
    /// `TOKENSIEVE_FLAG_*` bits.
    pub flags: u32,
    /// The block's index (for chunks: the index of the block they belong to).
    pub index: u32,
    /// Chunks: nesting depth (0 top level, 1 inside a tool region or call).
    pub depth: u32,
    /// Chunks: a `TOKENSIEVE_PART_*` value.
    pub part: u32,
    /// block_complete: a `TOKENSIEVE_CALL_*` value (non-zero: the call failed).
    pub error_code: u32,
    /// Always 0.
    pub reserved: u32,
    /// Chunks: the text (whole UTF-8 characters, never empty). STOP: the stop sequence.
    pub text: tokensieve_str,
    /// The tool's name, once known (never on `name` chunks).
    pub tool_name: tokensieve_str,
    /// The call or result id, once known.
    pub tool_id: tokensieve_str,
    /// block_complete of text, thinking, tool_result with `accumulate`: the block's text.
    pub content: tokensieve_str,
    /// block_complete of a successful tool_call with `accumulate`: compact JSON object text.
    pub input: tokensieve_str,
    /// block_complete of a failed call: the reason name (`malformed-body`, …).
    pub error_reason: tokensieve_str,
    /// block_complete of a failed call: its raw bytes (may be invalid UTF-8).
    pub error_raw: tokensieve_str,
}

const NO_STR: tokensieve_str = tokensieve_str {
    ptr: ptr::null(),
    len: 0,
};

fn some_str(s: &[u8]) -> tokensieve_str {
    tokensieve_str {
        ptr: s.as_ptr().cast(),
        len: s.len(),
    }
}

fn opt_str(s: Option<&str>) -> tokensieve_str {
    s.map_or(NO_STR, |s| some_str(s.as_bytes()))
}

const EMPTY_EVENT: tokensieve_event = tokensieve_event {
    kind: 0,
    block_type: 0,
    flags: 0,
    index: 0,
    depth: 0,
    part: 0,
    error_code: 0,
    reserved: 0,
    text: NO_STR,
    tool_name: NO_STR,
    tool_id: NO_STR,
    content: NO_STR,
    input: NO_STR,
    error_reason: NO_STR,
    error_raw: NO_STR,
};

// --- error messages -------------------------------------------------------------------

const ERR_CAP: usize = 256;

/// A NUL-terminated message in fixed storage (no heap).
struct ErrBuf {
    buf: [u8; ERR_CAP],
    len: usize,
}

impl ErrBuf {
    const fn new() -> ErrBuf {
        ErrBuf {
            buf: [0; ERR_CAP],
            len: 0,
        }
    }

    fn set(&mut self, args: fmt::Arguments<'_>) {
        self.len = 0;
        let _ = fmt::write(self, args);
        self.buf[self.len] = 0;
    }
}

impl fmt::Write for ErrBuf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = ERR_CAP - 1 - self.len;
        let mut n = s.len().min(room);
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

std::thread_local! {
    /// The message of the last failure that had no parser to hold it (NULL or invalid
    /// parser, failed new/init/state_size), per thread. No destructor: no registration,
    /// no heap.
    static LAST: RefCell<ErrBuf> = const { RefCell::new(ErrBuf::new()) };
}

fn set_global(args: fmt::Arguments<'_>) {
    let _ = LAST.try_with(|l| {
        if let Ok(mut e) = l.try_borrow_mut() {
            e.set(args);
        }
    });
}

/// Records `args` as the thread's last error and returns `code`.
fn gerr(code: i32, args: fmt::Arguments<'_>) -> i32 {
    set_global(args);
    code
}

fn config_err(e: &ConfigError) -> i32 {
    gerr(
        E_CONFIG,
        format_args!("config key `{}`: {}", e.key(), e.message()),
    )
}

// --- the parser -----------------------------------------------------------------------

const MAGIC: u64 = 0x7473_6965_7665_3031; // "tsieve01"

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Created or reset: prefill and feed allowed; next is not.
    Fresh,
    /// Fed at least once.
    Fed,
    /// `finish` called: only next, reset, free.
    Finished,
    /// A panic was caught: only reset and free.
    Poisoned,
}

/// The accumulated text of the open block.
enum Acc {
    Off,
    Heap(Vec<u8>),
    Fixed {
        ptr: *mut u8,
        cap: usize,
        len: usize,
        cut: bool,
    },
}

impl Acc {
    fn clear(&mut self) {
        match self {
            Acc::Off => {}
            Acc::Heap(v) => v.clear(),
            Acc::Fixed { len, cut, .. } => {
                *len = 0;
                *cut = false;
            }
        }
    }

    fn push(&mut self, s: &str) {
        match self {
            Acc::Off => {}
            Acc::Heap(v) => v.extend_from_slice(s.as_bytes()),
            Acc::Fixed { ptr, cap, len, cut } => {
                if *cut {
                    return;
                }
                // What fits, cut at a character boundary: the kept text is the longest
                // prefix of the block's text (whole characters) within `cap`, whatever the
                // chunking (rule 4; keeping whole chunks only made it depend on where the
                // chunks happened to end).
                let mut n = s.len().min(*cap - *len);
                while !s.is_char_boundary(n) {
                    n -= 1;
                }
                // SAFETY: `ptr..ptr+cap` is the accumulation region of the parser's block,
                // owned by this parser and disjoint from `s` (input or parser buffers);
                // `len + n <= cap` by the `min` above.
                unsafe { ptr::copy_nonoverlapping(s.as_ptr(), ptr.add(*len), n) };
                *len += n;
                *cut = n < s.len();
            }
        }
    }

    /// The accumulated bytes and whether they were cut; `None` when not accumulating.
    fn view(&self) -> Option<(tokensieve_str, bool)> {
        match self {
            Acc::Off => None,
            Acc::Heap(v) => Some((some_str(v), false)),
            Acc::Fixed { ptr, len, cut, .. } => Some((
                tokensieve_str {
                    ptr: ptr.cast_const().cast(),
                    len: *len,
                },
                *cut,
            )),
        }
    }
}

/// The opaque parser. Lives at the start of its memory block (heap or caller's), followed
/// by its configuration copy and buffers.
pub struct tokensieve_parser {
    magic: u64,
    /// `'static` stands for "as long as this parser": the configuration and buffers it
    /// borrows live in the same block (or, for JSON configs, inside the sieve) and are
    /// released only after the parser is dropped.
    sieve: Sieve<'static>,
    /// The unread part of the last `tokensieve_feed` (the caller keeps it alive).
    input: *const u8,
    input_len: usize,
    phase: Phase,
    acc: Acc,
    err: ErrBuf,
    /// Size of the heap block holding this parser; 0 for caller memory.
    alloc_size: usize,
}

impl tokensieve_parser {
    fn fail(&mut self, code: i32, args: fmt::Arguments<'_>) -> i32 {
        self.err.set(args);
        code
    }
}

const STATE_ALIGN: usize = {
    let a = align_of::<tokensieve_parser>();
    if a > 16 { a } else { 16 }
};

/// Checks `p` and runs `f` on it, catching panics (which poison the parser).
///
/// # Safety
/// `p` is NULL or points to a parser made by `tokensieve_new*`/`tokensieve_init` that was
/// not released, used by one thread at a time.
unsafe fn with_parser(
    p: *mut tokensieve_parser,
    what: &str,
    allow_poisoned: bool,
    f: impl FnOnce(&mut tokensieve_parser) -> i32,
) -> i32 {
    if p.is_null() {
        return gerr(E_NULL, format_args!("{what}: the parser is NULL"));
    }
    // SAFETY: non-NULL, and by this function's contract a live parser not used elsewhere
    // right now; the magic check below catches some (not all) violations.
    let parser = unsafe { &mut *p };
    if parser.magic != MAGIC {
        return gerr(
            E_INVALID,
            format_args!("{what}: not a live tokensieve parser (freed or never initialised)"),
        );
    }
    if parser.phase == Phase::Poisoned && !allow_poisoned {
        return parser.fail(
            E_PANIC,
            format_args!(
                "{what}: the parser is poisoned by an earlier internal error; reset or free it"
            ),
        );
    }
    match catch_unwind(AssertUnwindSafe(|| f(parser))) {
        Ok(r) => r,
        Err(_) => {
            parser.phase = Phase::Poisoned;
            parser.fail(
                E_PANIC,
                format_args!("{what}: internal error (panic); the parser is poisoned until reset"),
            )
        }
    }
}

/// Runs `f`, turning a panic into `fallback` with a thread error.
fn guard<T>(what: &str, fallback: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        set_global(format_args!("{what}: internal error (panic)"));
        fallback
    })
}

// --- reading a C config ---------------------------------------------------------------

/// A C config read into Rust views of the caller's strings (valid during the call).
struct Read<'c> {
    dialect: Dialect,
    thinking: Option<(&'c str, &'c str)>,
    markers: Option<(&'c str, &'c str)>,
    start_in: StartIn,
    on_malformed: OnMalformed,
    id_prefix: Option<&'c str>,
    max_call_bytes: usize,
    stops: &'c [*const c_char],
    tools: &'c [tokensieve_tool],
    accumulate: bool,
    buffer_size: usize,
    accumulate_size: usize,
}

/// # Safety
/// `p` is NULL or a NUL-terminated string that outlives `'c`.
unsafe fn cstr<'c>(p: *const c_char, what: &str) -> Result<Option<&'c str>, i32> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: non-NULL and NUL-terminated by the caller's contract.
    let c = unsafe { CStr::from_ptr(p) };
    c.to_str()
        .map(Some)
        .map_err(|_| gerr(E_CONFIG, format_args!("config: {what} is not valid UTF-8")))
}

fn pair<'c>(
    a: Option<&'c str>,
    b: Option<&'c str>,
    what: &str,
) -> Result<Option<(&'c str, &'c str)>, i32> {
    match (a, b) {
        (None, None) => Ok(None),
        (Some(a), Some(b)) => Ok(Some((a, b))),
        _ => Err(gerr(
            E_CONFIG,
            format_args!("config: {what} markers must both be set or both be NULL"),
        )),
    }
}

/// # Safety
/// `c` is a valid config whose pointers follow the documented contract.
unsafe fn read_config(c: &tokensieve_config) -> Result<Read<'_>, i32> {
    let dialect = match Dialect::ALL.get(c.dialect as usize) {
        Some(d) => *d,
        None => {
            return Err(gerr(
                E_CONFIG,
                format_args!(
                    "config: dialect {} is not a TOKENSIEVE_DIALECT_* value",
                    c.dialect
                ),
            ));
        }
    };
    let start_in = match c.start_in {
        0 => StartIn::Text,
        1 => StartIn::Thinking,
        n => {
            return Err(gerr(
                E_CONFIG,
                format_args!("config: start_in {n} is not a TOKENSIEVE_START_IN_* value"),
            ));
        }
    };
    let on_malformed = match c.on_malformed {
        0 => OnMalformed::Text,
        1 => OnMalformed::Drop,
        n => {
            return Err(gerr(
                E_CONFIG,
                format_args!("config: on_malformed {n} is not a TOKENSIEVE_ON_MALFORMED_* value"),
            ));
        }
    };
    // The config's strings are NULL or NUL-terminated and live during this call
    // (documented contract of tokensieve_config).
    let s = |p: *const c_char, what: &str| {
        // SAFETY: see above.
        unsafe { cstr(p, what) }
    };
    let thinking = pair(
        s(c.thinking_open, "thinking_open")?,
        s(c.thinking_close, "thinking_close")?,
        "thinking",
    )?;
    let markers = pair(
        s(c.tool_call_open, "tool_call_open")?,
        s(c.tool_call_close, "tool_call_close")?,
        "tool_call",
    )?;
    let id_prefix = s(c.id_prefix, "id_prefix")?;
    let stops: &[*const c_char] = if c.stop_sequences_len == 0 {
        &[]
    } else if c.stop_sequences.is_null() {
        return Err(gerr(
            E_NULL,
            format_args!("config: stop_sequences is NULL but stop_sequences_len > 0"),
        ));
    } else {
        // SAFETY: the caller provides `stop_sequences_len` readable pointers.
        unsafe { core::slice::from_raw_parts(c.stop_sequences, c.stop_sequences_len) }
    };
    let tools: &[tokensieve_tool] = if c.tools_len == 0 {
        &[]
    } else if c.tools.is_null() {
        return Err(gerr(
            E_NULL,
            format_args!("config: tools is NULL but tools_len > 0"),
        ));
    } else {
        // SAFETY: the caller provides `tools_len` readable tools.
        unsafe { core::slice::from_raw_parts(c.tools, c.tools_len) }
    };
    let or = |v: usize, d: usize| if v == 0 { d } else { v };
    Ok(Read {
        dialect,
        thinking,
        markers,
        start_in,
        on_malformed,
        id_prefix,
        max_call_bytes: or(c.max_call_bytes, tokensieve::config::DEFAULT_MAX_CALL_BYTES),
        stops,
        tools,
        accumulate: c.accumulate != 0,
        buffer_size: or(c.buffer_size, tokensieve::DEFAULT_MEMORY),
        accumulate_size: or(c.accumulate_size, DEFAULT_ACCUMULATE),
    })
}

const DEFAULT_ACCUMULATE: usize = 4096;

impl<'c> Read<'c> {
    fn stop(&self, i: usize) -> Result<&'c str, i32> {
        // SAFETY: entries are NULL or NUL-terminated strings (config contract).
        match unsafe { cstr(self.stops[i], "a stop sequence") }? {
            Some(s) => Ok(s),
            None => Err(gerr(
                E_NULL,
                format_args!("config: stop_sequences[{i}] is NULL"),
            )),
        }
    }

    fn tool(&self, i: usize) -> Result<(&'c str, &'c [u8]), i32> {
        let t = self.tools[i];
        // SAFETY: tool strings are NULL or NUL-terminated (config contract).
        let name = unsafe { cstr(t.name, "a tool name") }?.unwrap_or("");
        if name.is_empty() {
            return Err(gerr(
                E_CONFIG,
                format_args!("config: tools[{i}] needs a non-empty name"),
            ));
        }
        let schema = if t.schema.is_null() {
            &[][..]
        } else {
            // SAFETY: as above.
            unsafe { CStr::from_ptr(t.schema) }.to_bytes()
        };
        Ok((name, schema))
    }

    fn base_config(&self) -> Config<'c> {
        Config {
            dialect: self.dialect,
            thinking_tags: self.thinking,
            tool_call_markers: self.markers,
            start_in: self.start_in,
            stop_sequences: StrList::Strs(&[]),
            id_prefix: self.id_prefix.unwrap_or("call_"),
            on_malformed: self.on_malformed,
            max_call_bytes: self.max_call_bytes,
            tools: ToolList::Tools(&[]),
        }
    }
}

// --- layout of a parser's block -------------------------------------------------------

/// Where everything goes in a parser's block (offsets from its start).
struct Plan {
    total: usize,
    config: usize,
    stops: usize,
    tools: usize,
    params: usize,
    bytes: usize,
    n_bytes: usize,
    sieve: usize,
    sieve_len: usize,
    acc: usize,
    acc_len: usize,
}

fn align_up(n: usize, a: usize) -> Option<usize> {
    n.checked_add(a - 1).map(|v| v & !(a - 1))
}

/// Validates the config (without a heap) and lays out its block. `fixed`: caller memory
/// (sieve buffers and accumulation live in the block).
fn plan(r: &Read<'_>, fixed: bool) -> Result<Plan, i32> {
    let base = r.base_config();
    let dummy = [Tool {
        name: "x",
        params: &[],
    }];
    let probe = Config {
        tools: if r.tools.is_empty() {
            ToolList::Tools(&[])
        } else {
            ToolList::Tools(&dummy)
        },
        ..base
    };
    probe.validate().map_err(|e| config_err(&e))?;
    let mut n_bytes = 0usize;
    for s in [r.thinking.map(|t| t.0), r.thinking.map(|t| t.1)]
        .into_iter()
        .chain([r.markers.map(|t| t.0), r.markers.map(|t| t.1), r.id_prefix])
        .flatten()
    {
        n_bytes += s.len();
    }
    for i in 0..r.stops.len() {
        let s = r.stop(i)?;
        let one = [s];
        Config {
            stop_sequences: StrList::Strs(&one),
            ..probe
        }
        .validate()
        .map_err(|e| config_err(&e))?;
        n_bytes += s.len();
    }
    let mut n_params = 0usize;
    for i in 0..r.tools.len() {
        let (name, schema) = r.tool(i)?;
        n_bytes += name.len();
        if !schema.is_empty() {
            schema::scan(schema, |f| {
                if let schema::Found::Param(raw, _, _) = f {
                    n_params += 1;
                    n_bytes += raw.len(); // decoded names are never longer
                }
            })
            .map_err(|m| {
                gerr(
                    E_CONFIG,
                    format_args!("config: the schema of tools[{i}] (`{name}`) {m}"),
                )
            })?;
        }
    }
    if fixed && r.buffer_size < tokensieve::MIN_MEMORY {
        return Err(gerr(
            E_CONFIG,
            format_args!(
                "config: buffer_size {} is below the minimum {}",
                r.buffer_size,
                tokensieve::MIN_MEMORY
            ),
        ));
    }
    let sieve_len = if fixed { r.buffer_size } else { 0 };
    let acc_len = if fixed && r.accumulate {
        r.accumulate_size
    } else {
        0
    };
    let too_big = || gerr(E_MEMORY, format_args!("config: the state size overflows"));
    let arr = |at: usize, align: usize, n: usize, size: usize| -> Option<(usize, usize)> {
        let start = align_up(at, align)?;
        Some((start, start.checked_add(n.checked_mul(size)?)?))
    };
    let (config, end) = arr(
        size_of::<tokensieve_parser>(),
        align_of::<Config<'static>>(),
        1,
        size_of::<Config<'static>>(),
    )
    .ok_or_else(too_big)?;
    let (stops, end) =
        arr(end, align_of::<&str>(), r.stops.len(), size_of::<&str>()).ok_or_else(too_big)?;
    let (tools, end) = arr(
        end,
        align_of::<Tool<'static>>(),
        r.tools.len(),
        size_of::<Tool<'static>>(),
    )
    .ok_or_else(too_big)?;
    let (params, end) = arr(
        end,
        align_of::<Param<'static>>(),
        n_params,
        size_of::<Param<'static>>(),
    )
    .ok_or_else(too_big)?;
    let (bytes, end) = arr(end, 1, n_bytes, 1).ok_or_else(too_big)?;
    let (sieve, end) = arr(end, 8, sieve_len, 1).ok_or_else(too_big)?;
    let (acc, end) = arr(end, 1, acc_len, 1).ok_or_else(too_big)?;
    let total = align_up(end, STATE_ALIGN).ok_or_else(too_big)?;
    Ok(Plan {
        total,
        config,
        stops,
        tools,
        params,
        bytes,
        n_bytes,
        sieve,
        sieve_len,
        acc,
        acc_len,
    })
}

/// Appends strings to the block's byte region.
struct Bytes {
    base: *mut u8,
    cap: usize,
    len: usize,
}

impl Bytes {
    /// Copies `s` into the block; the result lives as long as the block.
    fn put(&mut self, s: &[u8]) -> &'static str {
        let start = self.len;
        self.append(s);
        self.finish(start)
    }

    fn append(&mut self, s: &[u8]) {
        let n = s.len().min(self.cap - self.len);
        // SAFETY: `base..base+cap` is this block's byte region (planned to hold every
        // string); `n` keeps the copy inside it; `s` is caller or block memory elsewhere.
        unsafe { ptr::copy_nonoverlapping(s.as_ptr(), self.base.add(self.len), n) };
        self.len += n;
    }

    fn finish(&self, start: usize) -> &'static str {
        // SAFETY: `start..len` was written above and is never written again while the
        // parser lives; the block outlives every user of the returned `&'static str`
        // (the parser's config), see `tokensieve_parser::sieve`.
        let b: &'static [u8] =
            unsafe { core::slice::from_raw_parts(self.base.add(start), self.len - start) };
        core::str::from_utf8(b).unwrap_or("")
    }
}

/// Builds a parser in `mem` (aligned to STATE_ALIGN, at least `plan.total` bytes).
///
/// # Safety
/// `mem` is valid for writes of `plan.total` bytes, aligned, and stays allocated and
/// untouched by anyone else until the parser is dropped. `r` views the caller's config.
unsafe fn build(
    mem: *mut u8,
    plan: &Plan,
    r: &Read<'_>,
    fixed: bool,
    alloc_size: usize,
) -> Result<*mut tokensieve_parser, i32> {
    let mut bytes = Bytes {
        // SAFETY: inside the block (plan offsets are within `total`).
        base: unsafe { mem.add(plan.bytes) },
        cap: plan.n_bytes,
        len: 0,
    };
    let thinking = r
        .thinking
        .map(|(a, b)| (bytes.put(a.as_bytes()), bytes.put(b.as_bytes())));
    let markers = r
        .markers
        .map(|(a, b)| (bytes.put(a.as_bytes()), bytes.put(b.as_bytes())));
    let id_prefix = match r.id_prefix {
        Some(s) => bytes.put(s.as_bytes()),
        None => "call_",
    };
    // SAFETY: the stop array region is inside the block, aligned for `&str` (plan).
    let stops_ptr = unsafe { mem.add(plan.stops) }.cast::<&'static str>();
    for i in 0..r.stops.len() {
        let s = bytes.put(r.stop(i)?.as_bytes());
        // SAFETY: `i < stops.len()`, the planned number of slots.
        unsafe { stops_ptr.add(i).write(s) };
    }
    // SAFETY: all `stops.len()` slots were written just above; aligned and non-NULL even
    // when empty; nothing writes them again.
    let stops: &'static [&'static str] =
        unsafe { core::slice::from_raw_parts(stops_ptr, r.stops.len()) };
    // SAFETY: tool and param array regions are inside the block and aligned (plan).
    let tools_ptr = unsafe { mem.add(plan.tools) }.cast::<Tool<'static>>();
    // SAFETY: as above.
    let params_ptr = unsafe { mem.add(plan.params) }.cast::<Param<'static>>();
    let mut used = 0usize;
    for i in 0..r.tools.len() {
        let (name, schema) = r.tool(i)?;
        let name = bytes.put(name.as_bytes());
        let start = used;
        let mut count = 0usize;
        if !schema.is_empty() {
            let res = schema::scan(schema, |f| match f {
                schema::Found::Reset => count = 0,
                schema::Found::Param(raw, value_type, items) => {
                    let at = bytes.len;
                    schema::decode(raw, |piece| bytes.append(piece));
                    let pname = bytes.finish(at);
                    // SAFETY: `start + count` slots stay within the planned number of
                    // params (plan counted every property, resets only lower `count`);
                    // slots `start..start+count` were written before being read.
                    unsafe {
                        let slots = params_ptr.add(start);
                        match (0..count).find(|&j| (*slots.add(j)).name == pname) {
                            // A later duplicate replaces the earlier (as serde_json does).
                            Some(j) => {
                                (*slots.add(j)).value_type = value_type;
                                (*slots.add(j)).items = items;
                            }
                            None => {
                                slots.add(count).write(Param {
                                    name: pname,
                                    value_type,
                                    items,
                                });
                                count += 1;
                            }
                        }
                    }
                }
            });
            res.map_err(|m| gerr(E_CONFIG, format_args!("config: tools[{i}] schema {m}")))?;
        }
        used = start + count;
        // SAFETY: slots `start..start+count` were written above and are not written again.
        let params: &'static [Param<'static>] =
            unsafe { core::slice::from_raw_parts(params_ptr.add(start), count) };
        // SAFETY: `i < tools.len()`, the planned number of tool slots.
        unsafe { tools_ptr.add(i).write(Tool { name, params }) };
    }
    // SAFETY: every tool slot was written above; never written again.
    let tools: &'static [Tool<'static>] =
        unsafe { core::slice::from_raw_parts(tools_ptr, r.tools.len()) };
    let config = Config {
        dialect: r.dialect,
        thinking_tags: thinking,
        tool_call_markers: markers,
        start_in: r.start_in,
        stop_sequences: StrList::Strs(stops),
        id_prefix,
        on_malformed: r.on_malformed,
        max_call_bytes: r.max_call_bytes,
        tools: ToolList::Tools(tools),
    };
    // SAFETY: the config slot is inside the block and aligned for `Config` (plan).
    let config_ptr = unsafe { mem.add(plan.config) }.cast::<Config<'static>>();
    // SAFETY: as above; written once, then only read (through the sieve's reference).
    unsafe { config_ptr.write(config) };
    // SAFETY: just written; the block outlives the parser (see `tokensieve_parser::sieve`).
    let config: &'static Config<'static> = unsafe { &*config_ptr };
    let sieve = if fixed {
        // SAFETY: the sieve region is inside the block, used by this sieve only.
        let memory: &'static mut [u8] =
            unsafe { core::slice::from_raw_parts_mut(mem.add(plan.sieve), plan.sieve_len) };
        Sieve::with_memory(config, memory)
    } else {
        Sieve::new(config)
    }
    .map_err(|e| config_err(&e))?;
    let acc = match (r.accumulate, fixed) {
        (false, _) => Acc::Off,
        (true, false) => Acc::Heap(Vec::new()),
        (true, true) => Acc::Fixed {
            // SAFETY: the accumulation region is inside the block.
            ptr: unsafe { mem.add(plan.acc) },
            cap: plan.acc_len,
            len: 0,
            cut: false,
        },
    };
    let p = mem.cast::<tokensieve_parser>();
    // SAFETY: the block starts with room for the parser and is aligned for it.
    unsafe { p.write(new_parser(sieve, acc, alloc_size)) };
    Ok(p)
}

fn new_parser(sieve: Sieve<'static>, acc: Acc, alloc_size: usize) -> tokensieve_parser {
    tokensieve_parser {
        magic: MAGIC,
        sieve,
        input: ptr::null(),
        input_len: 0,
        phase: Phase::Fresh,
        acc,
        err: ErrBuf::new(),
        alloc_size,
    }
}

fn heap_alloc(size: usize) -> Result<(*mut u8, Layout), i32> {
    let layout = Layout::from_size_align(size.max(1), STATE_ALIGN)
        .map_err(|_| gerr(E_MEMORY, format_args!("the state size overflows")))?;
    // SAFETY: the layout has a non-zero size.
    let mem = unsafe { std::alloc::alloc(layout) };
    if mem.is_null() {
        return Err(gerr(E_MEMORY, format_args!("out of memory ({size} bytes)")));
    }
    Ok((mem, layout))
}

// --- entry points ---------------------------------------------------------------------

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
    Dialect::ALL
        .get(dialect as usize)
        .is_some_and(|d| d.is_supported()) as i32
}

/// Fills `*out` with the defaults: anthropic-xml, start in text, malformed calls re-emitted
/// as text, no accumulation, no markers/stops/tools (NULL), `call_` ids, 1 MiB per call,
/// 2048 buffer bytes and 4096 accumulation bytes for caller memory.
///
/// Returns TOKENSIEVE_OK, or TOKENSIEVE_E_NULL when `out` is NULL.
///
/// # Safety
/// `out` is NULL or points to writable memory for one `tokensieve_config`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_config_default(out: *mut tokensieve_config) -> i32 {
    if out.is_null() {
        return gerr(
            E_NULL,
            format_args!("tokensieve_config_default: out is NULL"),
        );
    }
    let c = tokensieve_config {
        dialect: tokensieve_dialect::TOKENSIEVE_DIALECT_ANTHROPIC_XML as u32,
        start_in: 0,
        on_malformed: 0,
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
        max_call_bytes: tokensieve::config::DEFAULT_MAX_CALL_BYTES,
        buffer_size: tokensieve::DEFAULT_MEMORY,
        accumulate_size: DEFAULT_ACCUMULATE,
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
            gerr(
                E_NULL,
                format_args!("tokensieve_state_size: config is NULL"),
            );
            return 0;
        }
        // SAFETY: non-NULL, valid by the contract.
        let c = unsafe { &*config };
        // SAFETY: as above.
        match unsafe { read_config(c) }.and_then(|r| plan(&r, true)) {
            Ok(p) => p.total,
            Err(_) => 0,
        }
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
        if mem.is_null() || config.is_null() {
            gerr(
                E_NULL,
                format_args!("tokensieve_init: mem and config must not be NULL"),
            );
            return ptr::null_mut();
        }
        if (mem as usize) % STATE_ALIGN != 0 {
            gerr(
                E_MEMORY,
                format_args!(
                    "tokensieve_init: mem is not aligned to tokensieve_state_align() ({STATE_ALIGN})"
                ),
            );
            return ptr::null_mut();
        }
        // SAFETY: non-NULL, valid by the contract.
        let c = unsafe { &*config };
        // SAFETY: as above.
        let r = match unsafe { read_config(c) } {
            Ok(r) => r,
            Err(_) => return ptr::null_mut(),
        };
        let plan = match plan(&r, true) {
            Ok(p) => p,
            Err(_) => return ptr::null_mut(),
        };
        if len < plan.total {
            gerr(
                E_MEMORY,
                format_args!(
                    "tokensieve_init: len is {len} bytes, tokensieve_state_size says {}",
                    plan.total
                ),
            );
            return ptr::null_mut();
        }
        // SAFETY: `mem` is writable for `len >= plan.total` bytes, aligned, and the
        // caller's contract keeps it alive and untouched while the parser lives.
        unsafe { build(mem.cast(), &plan, &r, true, 0) }.unwrap_or(ptr::null_mut())
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
        if config.is_null() {
            gerr(E_NULL, format_args!("tokensieve_new: config is NULL"));
            return ptr::null_mut();
        }
        // SAFETY: non-NULL, valid by the contract.
        let c = unsafe { &*config };
        // SAFETY: as above.
        let r = match unsafe { read_config(c) } {
            Ok(r) => r,
            Err(_) => return ptr::null_mut(),
        };
        let plan = match plan(&r, false) {
            Ok(p) => p,
            Err(_) => return ptr::null_mut(),
        };
        let Ok((mem, layout)) = heap_alloc(plan.total) else {
            return ptr::null_mut();
        };
        // SAFETY: a fresh heap block of `plan.total` bytes, aligned; freed only by
        // tokensieve_free after the parser is dropped.
        match unsafe { build(mem, &plan, &r, false, layout.size()) } {
            Ok(p) => p,
            Err(_) => {
                // SAFETY: allocated above with `layout`; nothing in it needs dropping
                // (the parser was not written).
                unsafe { std::alloc::dealloc(mem, layout) };
                ptr::null_mut()
            }
        }
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
        // SAFETY: NULL or NUL-terminated by the contract.
        let text = match unsafe { cstr(config_json, "config_json") } {
            Ok(Some(t)) => t,
            Ok(None) => {
                gerr(
                    E_NULL,
                    format_args!("tokensieve_new_json: config_json is NULL"),
                );
                return ptr::null_mut();
            }
            Err(_) => return ptr::null_mut(),
        };
        let sieve = match ConfigBuf::from_json(text).and_then(Sieve::from_config_buf) {
            Ok(s) => s,
            Err(e) => {
                config_err(&e);
                return ptr::null_mut();
            }
        };
        let Ok((mem, layout)) = heap_alloc(size_of::<tokensieve_parser>()) else {
            return ptr::null_mut();
        };
        let acc = if accumulate != 0 {
            Acc::Heap(Vec::new())
        } else {
            Acc::Off
        };
        let p = mem.cast::<tokensieve_parser>();
        // SAFETY: a fresh block sized and aligned for one parser.
        unsafe { p.write(new_parser(sieve, acc, layout.size())) };
        p
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
    if parser.magic != MAGIC {
        set_global(format_args!(
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
        if let Ok(layout) = Layout::from_size_align(size, STATE_ALIGN) {
            // SAFETY: allocated by `heap_alloc` with this very layout; dropped above.
            unsafe { std::alloc::dealloc(p.cast(), layout) };
        }
    }
}

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
            if data.is_null() && len > 0 {
                return parser.fail(
                    E_NULL,
                    format_args!("tokensieve_feed: data is NULL but len is {len}"),
                );
            }
            if parser.phase == Phase::Finished {
                return parser.fail(
                    E_STATE,
                    format_args!(
                        "tokensieve_feed after tokensieve_finish (reset to start a new stream)"
                    ),
                );
            }
            if parser.input_len > 0 {
                return parser.fail(
                    E_STATE,
                    format_args!(
                        "tokensieve_feed before the previous input was drained (call tokensieve_next until it returns TOKENSIEVE_NEED_MORE)"
                    ),
                );
            }
            parser.input = data.cast();
            parser.input_len = if data.is_null() { 0 } else { len };
            parser.phase = Phase::Fed;
            OK
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
    unsafe {
        with_parser(p, "tokensieve_next", false, |parser| {
            if out.is_null() {
                return parser.fail(E_NULL, format_args!("tokensieve_next: out is NULL"));
            }
            if parser.phase == Phase::Fresh {
                return parser.fail(
                    E_STATE,
                    format_args!("tokensieve_next before tokensieve_feed or tokensieve_finish"),
                );
            }
            let tokensieve_parser {
                sieve,
                input,
                input_len,
                acc,
                ..
            } = parser;
            let mut rest: &[u8] = if *input_len == 0 {
                &[]
            } else {
                // SAFETY: set by tokensieve_feed from the caller's `data`, which the
                // caller keeps alive until the input is drained (feed's contract).
                core::slice::from_raw_parts(*input, *input_len)
            };
            let ev = sieve.next(&mut rest);
            *input = rest.as_ptr();
            *input_len = rest.len();
            let Some(ev) = ev else {
                return if sieve.is_done() { DONE } else { NEED_MORE };
            };
            let e = convert(&ev, acc);
            // SAFETY: non-NULL and writable by the contract.
            out.write(e);
            EVENT
        })
    }
}

fn block_code(t: BlockType) -> u32 {
    t as u32
}

fn part_code(p: Option<Part>) -> u32 {
    match p {
        None => tokensieve_part::TOKENSIEVE_PART_NONE as u32,
        Some(Part::Name) => tokensieve_part::TOKENSIEVE_PART_NAME as u32,
        Some(Part::Id) => tokensieve_part::TOKENSIEVE_PART_ID as u32,
        Some(Part::Input) => tokensieve_part::TOKENSIEVE_PART_INPUT as u32,
    }
}

fn reason_code(r: ErrorReason) -> u32 {
    r as u32 + 1
}

fn convert(ev: &Event<'_>, acc: &mut Acc) -> tokensieve_event {
    let mut e = EMPTY_EVENT;
    let vis = |t: BlockType| {
        if t == BlockType::Text {
            tokensieve_flag::TOKENSIEVE_FLAG_VISIBLE as u32
        } else {
            0
        }
    };
    match *ev {
        Event::BlockStart { index, block_type } => {
            acc.clear();
            e.kind = tokensieve_kind::TOKENSIEVE_KIND_BLOCK_START as u32;
            e.block_type = block_code(block_type);
            e.index = index;
            e.flags = vis(block_type);
        }
        Event::Chunk(c) => {
            if matches!(c.part, None | Some(Part::Input)) {
                acc.push(c.text);
            }
            e.kind = tokensieve_kind::TOKENSIEVE_KIND_CHUNK as u32;
            e.block_type = block_code(c.block_type);
            e.index = c.block;
            e.depth = u32::from(c.depth);
            e.part = part_code(c.part);
            e.flags = vis(c.block_type);
            e.text = some_str(c.text.as_bytes());
            e.tool_name = opt_str(c.tool_name);
            e.tool_id = opt_str(c.tool_id);
        }
        Event::BlockComplete(b) => {
            e.kind = tokensieve_kind::TOKENSIEVE_KIND_BLOCK_COMPLETE as u32;
            e.block_type = block_code(b.block_type);
            e.index = b.index;
            e.flags = vis(b.block_type);
            e.tool_name = opt_str(b.tool_name);
            e.tool_id = opt_str(b.tool_id);
            if b.is_error {
                e.flags |= tokensieve_flag::TOKENSIEVE_FLAG_IS_ERROR as u32;
            }
            if let Some(err) = b.error {
                e.error_code = reason_code(err.reason);
                e.error_reason = some_str(err.reason.as_str().as_bytes());
                e.error_raw = some_str(err.raw);
                if err.raw_truncated {
                    e.flags |= tokensieve_flag::TOKENSIEVE_FLAG_RAW_TRUNCATED as u32;
                }
            }
            if let Some((view, cut)) = acc.view() {
                let tool = b.block_type == BlockType::ToolCall;
                if !tool {
                    e.content = view;
                } else if b.error.is_none() {
                    e.input = view;
                }
                if cut && (!tool || b.error.is_none()) {
                    e.flags |= tokensieve_flag::TOKENSIEVE_FLAG_ACCUMULATED_TRUNCATED as u32;
                }
            }
        }
        Event::Stop { sequence } => {
            e.kind = tokensieve_kind::TOKENSIEVE_KIND_STOP as u32;
            e.text = some_str(sequence.as_bytes());
        }
    }
    e
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
    unsafe {
        with_parser(p, "tokensieve_finish", false, |parser| {
            parser.sieve.finish();
            parser.phase = Phase::Finished;
            OK
        })
    }
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
    unsafe {
        with_parser(p, "tokensieve_reset", true, |parser| {
            parser.sieve.reset();
            parser.input = ptr::null();
            parser.input_len = 0;
            parser.acc.clear();
            parser.phase = Phase::Fresh;
            OK
        })
    }
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
                return parser.fail(
                    E_NULL,
                    format_args!("tokensieve_prefill: data is NULL but len is {len}"),
                );
            }
            if parser.phase != Phase::Fresh {
                return parser.fail(
                    E_STATE,
                    format_args!("tokensieve_prefill after feeding started (reset first)"),
                );
            }
            if len > 0 {
                // SAFETY: readable for `len` bytes during this call (contract).
                let bytes = core::slice::from_raw_parts(data.cast::<u8>(), len);
                parser.sieve.prefill(bytes);
            }
            OK
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
        if parser.magic == MAGIC {
            return parser.err.buf.as_ptr().cast();
        }
    }
    LAST.try_with(|l| l.as_ptr().cast_const())
        .map(|e| {
            // SAFETY: thread-local storage lives as long as the thread; we take the
            // address of its buffer without creating a reference that outlives the call.
            unsafe { ptr::addr_of!((*e).buf) }.cast::<c_char>()
        })
        .unwrap_or(c"".as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_poisons_until_reset() {
        let mut c = EMPTY_CONFIG;
        // SAFETY: test: valid config pointer.
        unsafe { tokensieve_config_default(&mut c) };
        // SAFETY: as above.
        let p = unsafe { tokensieve_new(&c) };
        assert!(!p.is_null());
        // SAFETY: live parser.
        let rc = unsafe { with_parser(p, "test", false, |_| panic!("boom")) };
        assert_eq!(rc, E_PANIC);
        // SAFETY: live parser.
        assert_eq!(unsafe { tokensieve_feed(p, c"x".as_ptr(), 1) }, E_PANIC);
        // SAFETY: live parser.
        assert_eq!(unsafe { tokensieve_reset(p) }, OK);
        // SAFETY: live parser.
        assert_eq!(unsafe { tokensieve_feed(p, c"x".as_ptr(), 1) }, OK);
        // SAFETY: live parser, freed once.
        unsafe { tokensieve_free(p) };
    }

    const EMPTY_CONFIG: tokensieve_config = tokensieve_config {
        dialect: 0,
        start_in: 0,
        on_malformed: 0,
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
        max_call_bytes: 0,
        buffer_size: 0,
        accumulate_size: 0,
    };

    /// The headers state the minimum `buffer_size` as a number (C has no `MIN_MEMORY`); it
    /// moves whenever the core's fixed buffers do (it was stale at 448 until 2026-11-22).
    #[test]
    fn headers_state_the_minimum_buffer_size() {
        let stated = format!("minimum {};", tokensieve::MIN_MEMORY);
        for (name, header) in [
            ("tokensieve.h", include_str!("../../include/tokensieve.h")),
            (
                "tokensieve_php.h",
                include_str!("../../include/tokensieve_php.h"),
            ),
        ] {
            assert!(
                header.contains(&stated),
                "{name} does not say \"{stated}\": update tokensieve_config::buffer_size's doc"
            );
        }
    }

    /// Caller memory with `accumulate`: the `content` of a block cut at `accumulate_size`
    /// is the longest prefix (whole characters) of its text that fits, fed whole or a byte
    /// at a time. (Found by the `ffi` fuzz target: whole chunks only were kept, so the cut
    /// moved with the chunking.)
    #[test]
    fn a_cut_accumulation_does_not_depend_on_the_chunking() {
        let text = "ab\u{e9}cdefgh\u{1F600}ijklmnopqrstuvwxyz";
        let content = |piece: usize| -> (Vec<u8>, bool) {
            let mut c = EMPTY_CONFIG;
            // SAFETY: test: valid config pointer.
            unsafe { tokensieve_config_default(&mut c) };
            c.dialect = tokensieve_dialect::TOKENSIEVE_DIALECT_PASSTHROUGH as u32;
            c.accumulate = 1;
            c.accumulate_size = 13;
            // SAFETY: as above.
            let size = unsafe { tokensieve_state_size(&c) };
            let layout = Layout::from_size_align(size, STATE_ALIGN).expect("layout");
            // SAFETY: non-zero size.
            let mem = unsafe { std::alloc::alloc_zeroed(layout) };
            // SAFETY: `mem` is aligned and writable for `size` bytes.
            let p = unsafe { tokensieve_init(mem.cast(), size, &c) };
            assert!(!p.is_null());
            let mut ev = EMPTY_EVENT;
            let mut got = None;
            let mut feed = |bytes: &[u8]| {
                // SAFETY: live parser; `bytes` outlives the draining below.
                let rc = unsafe { tokensieve_feed(p, bytes.as_ptr().cast(), bytes.len()) };
                assert_eq!(rc, OK);
                // SAFETY: live parser, writable event.
                while unsafe { tokensieve_next(p, &mut ev) } == EVENT {}
            };
            for chunk in text.as_bytes().chunks(piece) {
                feed(chunk);
            }
            // SAFETY: live parser.
            assert_eq!(unsafe { tokensieve_finish(p) }, OK);
            // SAFETY: live parser, writable event.
            while unsafe { tokensieve_next(p, &mut ev) } == EVENT {
                if ev.kind == tokensieve_kind::TOKENSIEVE_KIND_BLOCK_COMPLETE as u32 {
                    // SAFETY: the ABI's slice, valid until the next call.
                    let bytes = unsafe {
                        std::slice::from_raw_parts(ev.content.ptr.cast::<u8>(), ev.content.len)
                    };
                    got = Some((
                        bytes.to_vec(),
                        ev.flags & tokensieve_flag::TOKENSIEVE_FLAG_ACCUMULATED_TRUNCATED as u32
                            != 0,
                    ));
                }
            }
            // SAFETY: caller-memory parser: only invalidated; then the memory is freed.
            unsafe {
                tokensieve_free(p);
                std::alloc::dealloc(mem, layout);
            }
            got.expect("a block_complete")
        };
        // 13 bytes: "ab", "é" (2), "cdefgh", then the 4-byte emoji does not fit (12 + 4).
        let want = ("ab\u{e9}cdefgh".as_bytes().to_vec(), true);
        for piece in [1, 2, 3, 5, 7, text.len()] {
            assert_eq!(content(piece), want, "fed in pieces of {piece}");
        }
    }

    #[test]
    fn abi_facts() {
        assert_eq!(tokensieve_event_size(), 32 + 7 * 2 * size_of::<usize>());
        assert!(STATE_ALIGN.is_power_of_two());
    }
}
