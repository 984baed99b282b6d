//! The `ffi` target: the C ABI (`ffi-c/src`, the only crate with `unsafe` code),
//! called as C would call it, under AddressSanitizer.
//!
//! Input: `[dialect, flags, seed, (prefill length)?, input…]`, `[0xE0..=0xEF, flags, seed,
//! body…]` (a provider decoder: `crate::ffi_decoder`), or `[0xF0..=0xFF, config text…]`
//! (below). `dialect` (mod 14, the length of `DIALECTS`) is a `TOKENSIEVE_DIALECT_*` code; `flags`: bit 0 stop sequences, 1 typed tools (morph-xml
//! always gets tools), 2 start in thinking, 3 drop malformed calls, 4 accumulate, 5 caller
//! memory (`tokensieve_state_size` + `tokensieve_init`, `buffer_size` `MIN_MEMORY` +
//! 13·seed) instead of the heap, 6 a prefill (the next byte mod 48 is its length), 7 the
//! misuse schedule (below). Bits 0–3 and 6 mean what they mean for the stream targets, so
//! their seeds carry over.
//!
//! What it checks:
//! - memory: every fed piece lives in its own exact-size heap allocation, freed as soon as
//!   `tokensieve_next` said NEED_MORE; caller memory is an exact-size allocation; every
//!   slice of every event is copied out. A slice into freed or foreign memory, or a parser
//!   that writes past its memory, is a sanitizer report (or a crash without one).
//! - rule 4 through the ABI: whole and in random pieces (empty ones included), the
//!   coalesced events are equal; with the misuse schedule the next piece is fed as soon as
//!   `tokensieve_feed` accepts it (after the input is drained, before NEED_MORE), which
//!   must not change them either.
//! - the ABI says what the core says: heap parsers give the core's events (same config
//!   through the JSON form), field by field; with an odd seed the heap parser is made by
//!   `tokensieve_new_json` from that JSON (as the PHP binding makes it).
//! - a first byte from 0xF0 on: the rest, up to a NUL, is a config text for
//!   `tokensieve_new_json` (bit 0: accumulate) — a parser exactly when the core takes the
//!   config, else NULL with a message; a parser it makes reads a transcript to the end.
//! - events are well formed: chunk texts non-empty UTF-8, `tool_name`/`tool_id`/`content`/
//!   `input` UTF-8, `error_reason` on failed calls only; with `accumulate`, a block's
//!   `content`/`input` is its chunks' text (a prefix of it when flagged truncated).
//! - misuse gets its documented status and changes nothing: NULL parser/out/data
//!   (E_NULL), `next` before any feed (E_STATE), a second feed before the input is drained
//!   (E_STATE), prefill after feeding (E_STATE), feed after finish (E_STATE), `next` after
//!   DONE (DONE), memory one byte short or misaligned (NULL); `tokensieve_last_error` is
//!   always a NUL-terminated UTF-8 string, non-empty after a failure; a freed caller-memory
//!   parser answers E_INVALID; `reset` gives a fresh stream (the same events again).

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::ffi::{CStr, CString, c_char};
use std::ptr;

use serde_json::Value;
use tokensieve::{Dialect, MIN_MEMORY};
use tokensieve_ffi as c;

pub use crate::c_record::CEvent;
use crate::c_record::{E_BUFFER, 
    self as record, DONE, E_INVALID, E_NULL, E_STATE, EVENT, NEED_MORE, OK, Open, blank,
    block_code, coalesce_c, part_code,
};
use crate::{Ev, STOPS, Setup, assert_same, coalesce, splits};

const DIALECTS: [Dialect; 14] = [
    Dialect::Passthrough,
    Dialect::AnthropicXml,
    Dialect::Hermes,
    Dialect::MorphXml,
    Dialect::Qwen3Coder,
    Dialect::MinimaxM2,
    Dialect::Glm45,
    Dialect::Harmony,
    Dialect::KimiK2,
    Dialect::DeepSeekV31,
    Dialect::DeepSeekV3,
    Dialect::Mistral,
    Dialect::Llama3Json,
    Dialect::Pythonic,
];

/// The decoded input: the dialect, the flags, and (bits 0–3 and 6, read as the stream
/// targets read them) the core's setup — config in the JSON form, prefill, input, seed.
struct FfiSetup {
    /// The `TOKENSIEVE_DIALECT_*` code.
    dialect: u32,
    flags: u8,
    seed: u8,
    core: Setup,
}

impl FfiSetup {
    fn decode(data: &[u8]) -> Option<FfiSetup> {
        let (&d, rest) = data.split_first()?;
        let (&flags, tail) = rest.split_first()?;
        let flags = flags & !crate::flag_mask();
        let &seed = tail.first()?;
        // The bits that mean something else here (4, 5, 7) are cleared for Setup.
        let mut shared = rest.to_vec();
        shared[0] = flags & 0b0100_1111;
        let dialect = d as usize % DIALECTS.len();
        let core = Setup::decode(DIALECTS[dialect], &shared)?;
        Some(FfiSetup {
            dialect: dialect as u32,
            flags,
            seed,
            core,
        })
    }

    fn has(&self, bit: u8) -> bool {
        self.flags & bit != 0
    }

    fn caller_memory(&self) -> bool {
        self.has(32)
    }

    fn misuse(&self) -> bool {
        self.has(128)
    }

    /// Seed bit 1: drain with `tokensieve_next_batch`, room for `1 + seed / 4` records and
    /// as many bytes (so events wait for room, and the first too large gets E_BUFFER).
    fn batch(&self) -> Option<usize> {
        (self.seed & 2 != 0).then_some(1 + usize::from(self.seed / 4))
    }
}

/// The C strings a `tokensieve_config` points to, kept alive while it is used.
struct CConfig {
    config: c::tokensieve_config,
    _strings: Vec<CString>,
    _stops: Vec<*const c_char>,
    _tools: Vec<c::tokensieve_tool>,
}

impl CConfig {
    fn new(s: &FfiSetup) -> CConfig {
        let mut config = std::mem::MaybeUninit::<c::tokensieve_config>::uninit();
        // SAFETY: a valid pointer to writable memory for one config.
        assert_eq!(
            unsafe { c::tokensieve_config_default(config.as_mut_ptr()) },
            OK
        );
        // SAFETY: tokensieve_config_default returned OK: it wrote the whole struct.
        let mut config = unsafe { config.assume_init() };
        let mut strings = Vec::new();
        let mut stops = Vec::new();
        let mut tools = Vec::new();
        config.dialect = s.dialect;
        if s.core.config.get("stop_sequences").is_some() {
            for stop in STOPS {
                let cs = CString::new(stop).expect("no NUL");
                stops.push(cs.as_ptr());
                strings.push(cs);
            }
            config.stop_sequences = stops.as_ptr();
            config.stop_sequences_len = stops.len();
        }
        if let Some(Value::Array(list)) = s.core.config.get("tools") {
            for t in list {
                let name = CString::new(t["name"].as_str().expect("name")).expect("no NUL");
                let schema = CString::new(t["schema"].to_string()).expect("no NUL");
                tools.push(c::tokensieve_tool {
                    name: name.as_ptr(),
                    schema: schema.as_ptr(),
                });
                strings.push(name);
                strings.push(schema);
            }
            config.tools = tools.as_ptr();
            config.tools_len = tools.len();
        }
        if s.core.config.get("start_in").is_some() {
            config.start_in = 1;
        }
        if s.core.config.get("on_malformed").is_some() {
            config.on_malformed = 1;
        }
        if s.has(16) {
            config.accumulate = 1;
            // Small enough for long inputs to hit ACCUMULATED_TRUNCATED with caller memory.
            config.accumulate_size = 64 + s.seed as usize * 7;
        }
        if s.caller_memory() {
            config.buffer_size = MIN_MEMORY + s.seed as usize * 13;
        }
        CConfig {
            config,
            _strings: strings,
            _stops: stops,
            _tools: tools,
        }
    }
}

/// Caller memory: an exact-size, `tokensieve_state_align()`-aligned allocation.
pub(crate) struct Memory {
    pub(crate) ptr: *mut u8,
    layout: Layout,
}

impl Memory {
    pub(crate) fn new(size: usize) -> Memory {
        let layout =
            Layout::from_size_align(size, c::tokensieve_state_align()).expect("valid layout");
        // SAFETY: `size` > 0 (tokensieve_state_size never says 0 for a valid config).
        let ptr = unsafe { alloc_zeroed(layout) };
        assert!(!ptr.is_null(), "out of memory");
        Memory { ptr, layout }
    }
}

impl Drop for Memory {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout, freed once.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

/// The last error message: always a NUL-terminated UTF-8 string.
fn last_error(p: *const c::tokensieve_parser) -> String {
    // SAFETY: `p` is NULL or a parser that is live (or caller-memory and freed, which the
    // ABI allows).
    let msg = unsafe { c::tokensieve_last_error(p) };
    assert!(!msg.is_null(), "tokensieve_last_error returned NULL");
    // SAFETY: the ABI promises a NUL-terminated string valid until the next call.
    let msg = unsafe { CStr::from_ptr(msg) };
    msg.to_str()
        .expect("tokensieve_last_error is not UTF-8")
        .to_owned()
}

/// A status that must be a failure with a message.
fn expect_failure(p: *const c::tokensieve_parser, rc: i32, want: i32, what: &str) {
    assert_eq!(rc, want, "{what}: status");
    assert!(!last_error(p).is_empty(), "{what}: no message");
}

/// One stream through the ABI: creates the parser, prefill, the input in pieces of `sizes`
/// (then the rest whole), finish; returns the events. With caller memory, also `reset` and
/// the same stream again (same events), then free (E_INVALID after it).
fn run_c(s: &FfiSetup, sizes: &[usize], misuse: bool) -> Option<Vec<CEvent>> {
    let cfg = CConfig::new(s);
    if c::tokensieve_dialect_supported(cfg.config.dialect) == 0 {
        // SAFETY: `cfg.config` and everything it points to are alive for the call.
        let p = unsafe { c::tokensieve_new(&cfg.config) };
        assert!(p.is_null(), "a parser for an unsupported dialect");
        assert!(!last_error(ptr::null()).is_empty());
        return None;
    }
    if !s.caller_memory() {
        // Odd seeds: the same config as JSON text, the way the PHP binding creates parsers.
        let p = if s.seed & 1 == 1 {
            let text = CString::new(s.core.config.to_string()).expect("JSON has no NUL");
            // SAFETY: a NUL-terminated string, alive for the call.
            unsafe { c::tokensieve_new_json(text.as_ptr(), u32::from(s.has(16))) }
        } else {
            // SAFETY: as above.
            unsafe { c::tokensieve_new(&cfg.config) }
        };
        assert!(!p.is_null(), "tokensieve_new: {}", last_error(ptr::null()));
        let events = stream(p, &s.core.prefill, &s.core.input, sizes, misuse, s.batch());
        // SAFETY: a live heap parser, freed once.
        unsafe { c::tokensieve_free(p) };
        return Some(events);
    }
    // SAFETY: as above.
    let size = unsafe { c::tokensieve_state_size(&cfg.config) };
    assert!(
        size > 0,
        "tokensieve_state_size: {}",
        last_error(ptr::null())
    );
    if misuse {
        // A block one byte larger, so that both refused calls stay inside it.
        let spare = Memory::new(size + 1);
        // SAFETY: `spare` is writable for `size + 1` bytes; the calls must refuse it.
        let short = unsafe { c::tokensieve_init(spare.ptr.cast(), size - 1, &cfg.config) };
        assert!(short.is_null(), "init accepted memory one byte short");
        assert!(!last_error(ptr::null()).is_empty());
        // SAFETY: as above (`spare + 1` is writable for `size` bytes).
        let skew = unsafe { c::tokensieve_init(spare.ptr.add(1).cast(), size, &cfg.config) };
        assert!(skew.is_null(), "init accepted misaligned memory");
        assert!(!last_error(ptr::null()).is_empty());
    }
    // Exactly `size` bytes: a parser that writes past what it asked for is a sanitizer
    // report.
    let mem = Memory::new(size);
    // SAFETY: `mem` is aligned and writable for `size` bytes.
    let p = unsafe { c::tokensieve_init(mem.ptr.cast(), size, &cfg.config) };
    assert!(!p.is_null(), "tokensieve_init: {}", last_error(ptr::null()));
    assert_eq!(
        p.cast::<u8>(),
        mem.ptr,
        "the parser lives at the start of its memory"
    );
    let events = stream(p, &s.core.prefill, &s.core.input, sizes, misuse, s.batch());
    // SAFETY: a live parser.
    assert_eq!(unsafe { c::tokensieve_reset(p) }, OK);
    let again = stream(p, &s.core.prefill, &s.core.input, sizes, misuse, s.batch());
    assert_eq!(
        coalesce_c(&events),
        coalesce_c(&again),
        "tokensieve_reset did not give a fresh stream"
    );
    // SAFETY: a live caller-memory parser: only invalidated.
    unsafe { c::tokensieve_free(p) };
    let mut out = blank();
    // SAFETY: the memory is unchanged since the free, which the ABI allows calling on.
    let rc = unsafe { c::tokensieve_next(p, &mut out) };
    expect_failure(p, rc, E_INVALID, "next after free");
    drop(mem);
    Some(events)
}

/// Drives one stream on a fresh (or reset) parser.
fn stream(
    p: *mut c::tokensieve_parser,
    prefill: &[u8],
    input: &[u8],
    sizes: &[usize],
    misuse: bool,
    batch: Option<usize>,
) -> Vec<CEvent> {
    let mut out = blank();
    let mut events = Vec::new();
    if misuse {
        misuse_before_feed(p);
    }
    if !prefill.is_empty() {
        let pre: Box<[u8]> = prefill.into();
        // SAFETY: `p` is live; `pre` is readable for its length during the call.
        assert_eq!(
            unsafe { c::tokensieve_prefill(p, pre.as_ptr().cast(), pre.len()) },
            OK,
            "prefill: {}",
            last_error(p)
        );
    }
    // Each piece in its own exact-size allocation, freed once the parser is done with it:
    // a slice that outlives it is a use after free.
    let mut pieces: std::collections::VecDeque<Box<[u8]>> =
        crate::pieces(input, sizes).map(Into::into).collect();
    let mut current: Box<[u8]> = pieces.pop_front().unwrap_or_default();
    // SAFETY: `p` is live; `current` stays alive and unchanged until replaced below, which
    // happens only once the parser said NEED_MORE or accepted the next feed (drained).
    let rc = unsafe { c::tokensieve_feed(p, current.as_ptr().cast(), current.len()) };
    assert_eq!(rc, OK, "feed: {}", last_error(p));
    if misuse {
        misuse_after_first_feed(p, current.is_empty());
    }
    loop {
        let rc = pull(p, &mut out, batch, &mut events);
        let early = match rc {
            EVENT => {
                // The misuse schedule feeds the next piece as soon as it is accepted.
                misuse
            }
            NEED_MORE => true,
            DONE => break,
            other => panic!("tokensieve_next: {other}: {}", last_error(p)),
        };
        if !early {
            continue;
        }
        let Some(next) = pieces.front() else {
            if rc == NEED_MORE {
                break;
            }
            continue;
        };
        // SAFETY: `p` is live; `next` is alive and unchanged until replaced in turn.
        let fed = unsafe { c::tokensieve_feed(p, next.as_ptr().cast(), next.len()) };
        match fed {
            OK => current = pieces.pop_front().unwrap_or_default(),
            E_STATE if rc == EVENT => {}
            other => panic!("feed: {other}: {}", last_error(p)),
        }
    }
    drop(current);
    // SAFETY: `p` is live.
    assert_eq!(
        unsafe { c::tokensieve_finish(p) },
        OK,
        "finish: {}",
        last_error(p)
    );
    if misuse {
        // SAFETY: `p` is live.
        let rc = unsafe { c::tokensieve_feed(p, c"z".as_ptr(), 1) };
        let done = events.last().is_some_and(|e: &CEvent| e.kind == 4);
        if !done {
            expect_failure(p, rc, E_STATE, "feed after finish");
        }
    }
    drain_finished(p, &mut out, batch, &mut events);
    events
}

/// One pull: `tokensieve_next`, its event appended; or, with `batch` = `Some(cap)`, one
/// `tokensieve_next_batch` into exact-size allocations of `cap` records and `cap` bytes
/// (the bytes grown to what `TOKENSIEVE_E_BUFFER` names), its records read back as events.
fn pull(
    p: *mut c::tokensieve_parser,
    out: &mut c::tokensieve_event,
    batch: Option<usize>,
    events: &mut Vec<CEvent>,
) -> i32 {
    let Some(cap) = batch else {
        // SAFETY: `p` is live; `out` is writable; the fed piece is alive.
        let rc = unsafe { c::tokensieve_next(p, out) };
        if rc == EVENT {
            events.push(CEvent::of(out));
        }
        return rc;
    };
    let mut bytes_cap = cap;
    loop {
        let mut recs: Box<[c::tokensieve_record]> =
            vec![c::tokensieve_record::default(); cap.max(1)].into();
        let mut bytes: Box<[u8]> = vec![0u8; bytes_cap].into();
        let mut b = c::tokensieve_batch {
            records: recs.as_mut_ptr(),
            records_cap: recs.len(),
            bytes: bytes.as_mut_ptr(),
            bytes_cap: bytes.len(),
            n_records: usize::MAX,
            n_bytes: usize::MAX,
        };
        // SAFETY: `p` is live; the buffers are writable for their capacities; the fed
        // piece is alive.
        let rc = unsafe { c::tokensieve_next_batch(p, &mut b) };
        if rc == E_BUFFER {
            assert_eq!(b.n_records, 1, "E_BUFFER names one event");
            assert!(b.n_bytes > bytes_cap, "E_BUFFER names a larger size");
            bytes_cap = b.n_bytes;
            continue;
        }
        if rc < 0 {
            return rc;
        }
        assert!(b.n_records <= recs.len() && b.n_bytes <= bytes.len());
        assert!(rc != EVENT || b.n_records > 0, "EVENT with no record");
        crate::c_record::read_records(&recs[..b.n_records], &bytes[..b.n_bytes], events);
        return rc;
    }
}

/// Calls that are refused before the first feed: next, NULL out, NULL parser, NULL data.
fn misuse_before_feed(p: *mut c::tokensieve_parser) {
    let mut out = blank();
    // SAFETY: `p` is live; `out` is writable.
    let rc = unsafe { c::tokensieve_next(p, &mut out) };
    expect_failure(p, rc, E_STATE, "next before feed");
    // SAFETY: `p` is live; NULL out is the misuse under test.
    let rc = unsafe { c::tokensieve_next(p, ptr::null_mut()) };
    expect_failure(p, rc, E_NULL, "next with out NULL");
    // SAFETY: NULL parser is the misuse under test.
    let rc = unsafe { c::tokensieve_feed(ptr::null_mut(), c"x".as_ptr(), 1) };
    expect_failure(ptr::null(), rc, E_NULL, "feed with p NULL");
    // SAFETY: `p` is live; NULL data with a length is the misuse under test.
    let rc = unsafe { c::tokensieve_feed(p, ptr::null(), 3) };
    expect_failure(p, rc, E_NULL, "feed with data NULL");
}

/// Calls that are refused right after the first feed: a prefill, and (when that piece is not
/// empty, so not drained) a second feed.
fn misuse_after_first_feed(p: *mut c::tokensieve_parser, first_was_empty: bool) {
    let pre = b"<thinking>";
    // SAFETY: `p` is live; `pre` is readable.
    let rc = unsafe { c::tokensieve_prefill(p, pre.as_ptr().cast(), pre.len()) };
    expect_failure(p, rc, E_STATE, "prefill after feed");
    if !first_was_empty {
        // Nothing pulled yet, so not drained: a second feed is refused.
        // SAFETY: `p` is live; the data is readable.
        let rc = unsafe { c::tokensieve_feed(p, c"y".as_ptr(), 1) };
        expect_failure(p, rc, E_STATE, "feed before drained");
    }
}

/// After `finish`: every remaining event, then DONE, and DONE again.
fn drain_finished(
    p: *mut c::tokensieve_parser,
    out: &mut c::tokensieve_event,
    batch: Option<usize>,
    events: &mut Vec<CEvent>,
) {
    loop {
        match pull(p, out, batch, events) {
            EVENT => {}
            DONE => break,
            other => panic!("tokensieve_next after finish: {other}: {}", last_error(p)),
        }
    }
    assert_eq!(pull(p, out, batch, events), DONE, "next after DONE");
}

/// Checks one event list on its own.
fn lint_c(events: &[CEvent], accumulate: bool) {
    let mut open: Open = None;
    for (i, e) in events.iter().enumerate() {
        record::strings_utf8(i, e, &[]);
        match e.kind {
            1 => open = Some((e.index, e.block_type, Vec::new())),
            2 => record::chunk(i, e, &mut open),
            3 => {
                let failed = e.error_code != 0;
                assert!(
                    failed || e.error_raw.is_none(),
                    "#{i}: error_raw on a good block"
                );
                let other = if e.block_type == 2 {
                    &e.content
                } else {
                    &e.input
                };
                assert!(
                    other.is_none(),
                    "#{i}: content/input on the wrong block type"
                );
                if let Some((acc, got)) = record::complete(i, e, &mut open, accumulate) {
                    let got = got.expect("accumulate: content/input missing");
                    record::accumulated(i, e, got, &acc);
                }
            }
            4 => assert!(open.is_none(), "#{i}: stop inside a block"),
            k => panic!("#{i}: unknown kind {k}"),
        }
    }
}

/// The core's events in the ABI's terms (the fields both have).
fn core_view(events: &[Ev]) -> Vec<String> {
    events
        .iter()
        .map(|e| match e {
            Ev::Start(i, t) => format!("start {i} {}", block_code(*t)),
            Ev::Chunk {
                text,
                ty,
                block,
                depth,
                part,
                name,
                id,
            } => format!(
                "chunk {block} {} {depth} {} {name:?} {id:?} {text:?}",
                block_code(*ty),
                part_code(*part)
            ),
            Ev::Complete {
                index,
                ty,
                name,
                id,
                error,
                is_error,
            } => format!(
                "complete {index} {} {name:?} {id:?} {:?} {is_error}",
                block_code(*ty),
                error
                    .as_ref()
                    .map(|(r, raw, cut)| (r.as_str(), raw.clone(), *cut))
            ),
            Ev::Stop(s) => format!("stop {s:?}"),
        })
        .collect()
}

fn c_view(events: &[CEvent]) -> Vec<String> {
    let s = record::lossy;
    events
        .iter()
        .map(|e| match e.kind {
            1 => format!("start {} {}", e.index, e.block_type),
            2 => format!(
                "chunk {} {} {} {} {:?} {:?} {:?}",
                e.index,
                e.block_type,
                e.depth,
                e.part,
                s(&e.tool_name),
                s(&e.tool_id),
                s(&e.text).unwrap_or_default()
            ),
            3 => format!(
                "complete {} {} {:?} {:?} {:?} {}",
                e.index,
                e.block_type,
                s(&e.tool_name),
                s(&e.tool_id),
                (e.error_code != 0).then(|| (
                    s(&e.error_reason).unwrap_or_default(),
                    e.error_raw.clone().unwrap_or_default(),
                    e.flags & 4 != 0
                )),
                e.flags & 2 != 0
            ),
            _ => format!("stop {:?}", s(&e.text).unwrap_or_default()),
        })
        .collect()
}

/// The whole check of one `ffi` input.
pub fn check_ffi(data: &[u8]) {
    if let Some((&mode, text)) = data.split_first() {
        if mode >= CONFIG_TEXT {
            return check_config_text(mode, text);
        }
        if mode >= crate::ffi_decoder::DECODER {
            return crate::ffi_decoder::check_decoder(mode, text);
        }
    }
    let Some(s) = FfiSetup::decode(data) else {
        return;
    };
    // Whole, plainly.
    let Some(whole) = run_c(&s, &[], false) else {
        return;
    };
    let sizes = splits(s.core.input.len(), s.core.seed);
    let split = run_c(&s, &sizes, s.misuse()).expect("the same config");
    let accumulate = s.has(16);
    lint_c(&whole, accumulate);
    lint_c(&split, accumulate);
    let (a, b) = (coalesce_c(&whole), coalesce_c(&split));
    assert_same(
        &a,
        &b,
        &format!("chunking changed the ABI's events (rule 4); sizes {sizes:?}"),
    );
    if !s.caller_memory() {
        let core = crate::run(&s.core, &[]).expect("the core takes the same config");
        let (want, got) = (core_view(&coalesce(&core)), c_view(&a));
        assert_same(
            &want,
            &got,
            "the ABI differs from the core (first: core, second: ABI)",
        );
    }
}

/// A first byte from here on: the rest is a JSON config text for `tokensieve_new_json`.
pub const CONFIG_TEXT: u8 = 0xF0;

/// `tokensieve_new_json` on arbitrary text (up to its first NUL, as C sees it): a parser
/// exactly when the core takes the config, else NULL with a message; a parser it makes
/// parses a transcript to the end.
fn check_config_text(mode: u8, text: &[u8]) {
    let text = &text[..text.iter().position(|&b| b == 0).unwrap_or(text.len())];
    let cs = CString::new(text).expect("cut at the first NUL");
    let accumulate = u32::from(mode & 1);
    // SAFETY: a NUL-terminated string, alive for the call.
    let p = unsafe { c::tokensieve_new_json(cs.as_ptr(), accumulate) };
    let core = std::str::from_utf8(text)
        .ok()
        .map(|t| tokensieve::ConfigBuf::from_json(t).and_then(tokensieve::Sieve::from_config_buf));
    if p.is_null() {
        assert!(
            !last_error(ptr::null()).is_empty(),
            "refused without a message"
        );
        assert!(
            !matches!(core, Some(Ok(_))),
            "the ABI refused a config the core takes: {:?}",
            String::from_utf8_lossy(text)
        );
        return;
    }
    assert!(
        matches!(core, Some(Ok(_))),
        "the ABI took a config the core refuses: {:?}",
        String::from_utf8_lossy(text)
    );
    let transcript = b"Hi <think>hmm</think><thinking>a</thinking>\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"s\": \"x\"}}\n</tool_call>\n<function_calls><invoke name=\"f\"><parameter name=\"s\">x</parameter></invoke></function_calls><f><s>x</s></f>\n<tool_call>\n<function=f>\n<parameter=s>\nx\n</parameter>\n</function>\n</tool_call> end";
    // Pieces of 7 bytes, each in its own allocation (see `stream`).
    let sizes = vec![7; transcript.len().div_ceil(7)];
    // Draining with `tokensieve_next_batch` (room for 3 records and bytes) when the config
    // text's length is odd.
    let batch = (text.len() % 2 == 1).then_some(3);
    let events = stream(p, &[], transcript, &sizes, false, batch);
    lint_c(&events, accumulate == 1);
    // SAFETY: a live heap parser, freed once.
    unsafe { c::tokensieve_free(p) };
}
