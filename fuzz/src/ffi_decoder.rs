//! The `ffi` target's provider-decoder inputs: the `tokensieve_decoder_*` functions of the
//! C ABI, called as C calls them, under AddressSanitizer (issue 25: the target called only
//! the parser's functions before).
//!
//! Input: `[0xE0..=0xEF, flags, seed, body…]`: the first byte's low nibble mod 6 is the
//! `TOKENSIEVE_PROVIDER_*` code; `flags` bit 0 the hermes text dialect, 1 a tiny
//! `max_call_bytes` (64), 2 `on_malformed` drop (bits 0–2 as the `decode_*` targets), 3
//! caller memory (`tokensieve_decoder_state_size` + `tokensieve_decoder_init`,
//! `buffer_size` 1 668 + 13·seed: the least a text dialect needs, and more), 4
//! `accumulate` (`accumulate_size` 64 + 7·seed), 5 (heap) the decoder made by
//! `tokensieve_decoder_new_json` from the same settings, 6 the misuse schedule; `seed`
//! picks the read sizes.
//!
//! What it checks: every fed piece is its own exact-size allocation, freed once drained,
//! and every slice of every event is copied out (the read the sanitizer checks); whole and
//! in random reads the coalesced events are equal (rule 4); the events are well formed
//! (blocks start, chunk and complete in order, indices 0, 1, 2…, no finish or error with a
//! block open, the stream ends with a finish, strings UTF-8, with `accumulate` a block's
//! `content`/`input` is its chunks); heap decoders give the core `Decoder`'s events; caller
//! memory: `reset` gives the same events again, `next` after `free` is `E_INVALID`; misuse
//! (`next` before feed, feed before drained, feed after finish, `next` after DONE, NULL
//! decoder/out, memory one byte short) gets its documented status and changes nothing.

use std::collections::VecDeque;
use std::ffi::CStr;
use std::ptr;

use tokensieve::provider::{Decoder, DecoderConfig, Provider};
use tokensieve::{Event, OnMalformed};
use tokensieve_ffi as c;

use crate::c_record::{
    self as record, CEvent, DONE, E_INVALID, E_NULL, E_STATE, EVENT, NEED_MORE, OK, Open, blank,
    block_code, coalesce_c, copy, part_code,
};
use crate::ffi::Memory;
use crate::{assert_same, splits};

/// First bytes from here to `CONFIG_TEXT` (exclusive) are decoder inputs.
pub const DECODER: u8 = 0xE0;

/// One decoder event: the parser's fields and the provider-stream ones.
#[derive(Clone, Debug, PartialEq, Eq)]
struct DEvent {
    ev: CEvent,
    choice: u32,
    finish_reason: u32,
    error_source: u32,
    usage: [u64; 6],
    raw_reason: Option<Vec<u8>>,
    response_id: Option<Vec<u8>>,
    model: Option<Vec<u8>>,
    code: Option<Vec<u8>>,
}

impl DEvent {
    fn of(e: &c::tokensieve_event) -> DEvent {
        DEvent {
            ev: CEvent::of(e),
            choice: e.choice,
            finish_reason: e.finish_reason,
            error_source: e.error_source,
            usage: [
                u64::from(e.usage_present),
                e.input_tokens,
                e.output_tokens,
                e.cache_read_tokens,
                e.cache_write_tokens,
                e.reasoning_tokens,
            ],
            raw_reason: copy(e.raw_reason),
            response_id: copy(e.response_id),
            model: copy(e.model),
            code: copy(e.code),
        }
    }
}

/// The message of the decoder's last failed call: NUL-terminated UTF-8.
fn last_error(d: *const c::tokensieve_decoder) -> String {
    // SAFETY: `d` is NULL or a decoder that is live (or caller-memory and freed).
    let msg = unsafe { c::tokensieve_decoder_last_error(d) };
    assert!(
        !msg.is_null(),
        "tokensieve_decoder_last_error returned NULL"
    );
    // SAFETY: the ABI promises a NUL-terminated string valid until the next call.
    unsafe { CStr::from_ptr(msg) }
        .to_str()
        .expect("tokensieve_decoder_last_error is not UTF-8")
        .to_owned()
}

fn expect_failure(d: *const c::tokensieve_decoder, rc: i32, want: i32, what: &str) {
    assert_eq!(rc, want, "{what}: status");
    assert!(!last_error(d).is_empty(), "{what}: no message");
}

struct Setup {
    provider: Provider,
    flags: u8,
    seed: u8,
    body: Vec<u8>,
}

impl Setup {
    fn has(&self, bit: u8) -> bool {
        self.flags & bit != 0
    }

    fn config(&self) -> c::tokensieve_decoder_config {
        let mut config = std::mem::MaybeUninit::<c::tokensieve_decoder_config>::uninit();
        // SAFETY: writable memory for one config.
        assert_eq!(
            unsafe { c::tokensieve_decoder_config_default(config.as_mut_ptr()) },
            OK
        );
        // SAFETY: it returned OK: it wrote the whole struct.
        let mut config = unsafe { config.assume_init() };
        config.provider = provider_code(self.provider);
        if self.has(1) {
            config.text.dialect = 2; // TOKENSIEVE_DIALECT_HERMES
        }
        if self.has(2) {
            config.text.max_call_bytes = 64;
        }
        if self.has(4) {
            config.text.on_malformed = 1;
        }
        if self.has(16) {
            config.text.accumulate = 1;
            config.text.accumulate_size = 64 + self.seed as usize * 7;
        }
        if self.has(8) {
            config.text.buffer_size = 640 + 1028 + self.seed as usize * 13;
        }
        config
    }

    /// The same settings as JSON (`tokensieve_decoder_new_json`).
    fn json(&self) -> String {
        let mut v = serde_json::json!({ "provider": self.provider.name() });
        if self.has(1) {
            v["text_dialect"] = "hermes".into();
        }
        if self.has(2) {
            v["max_call_bytes"] = 64.into();
        }
        if self.has(4) {
            v["on_malformed"] = "drop".into();
        }
        v.to_string()
    }

    /// The core's decoder with the same settings.
    fn core(&self) -> Option<Vec<String>> {
        let mut config = DecoderConfig::new(self.provider);
        if self.has(1) {
            config.options.dialect = tokensieve::Dialect::Hermes;
        }
        if self.has(2) {
            config.options.max_call_bytes = 64;
        }
        if self.has(4) {
            config.options.on_malformed = OnMalformed::Drop;
        }
        let mut d = Decoder::new(&config).ok()?;
        let mut out = Vec::new();
        crate::pump(&mut d, &self.body, &[], |ev| out.push(core_line(ev)));
        Some(join_chunks(out))
    }
}

fn provider_code(p: Provider) -> u32 {
    Provider::ALL
        .iter()
        .position(|&q| q == p)
        .expect("a provider") as u32
}

/// An event as the comparison with the core sees it.
fn core_line(ev: &Event<'_>) -> String {
    match ev {
        Event::BlockStart {
            index,
            block_type,
            choice,
        } => format!("start {index} {} {choice}", block_code(*block_type)),
        Event::Chunk(c) => format!(
            "chunk {} {} {} {}\t{}",
            c.block,
            block_code(c.block_type),
            part_code(c.part),
            c.choice,
            c.text
        ),
        Event::BlockComplete(c) => format!(
            "complete {} {} {:?} {:?} {:?}",
            c.index,
            block_code(c.block_type),
            c.tool_name,
            c.tool_id,
            c.error
                .as_ref()
                .map(|e| String::from_utf8_lossy(e.raw).into_owned())
        ),
        Event::Stop { .. } => "stop".to_owned(),
        Event::Finish(f) => format!("finish {}", f.choice),
        Event::Error(_) => "error".to_owned(),
    }
}

fn c_line(e: &DEvent) -> String {
    let s = record::lossy;
    let ev = &e.ev;
    match ev.kind {
        1 => format!("start {} {} {}", ev.index, ev.block_type, e.choice),
        2 => format!(
            "chunk {} {} {} {}\t{}",
            ev.index,
            ev.block_type,
            ev.part,
            e.choice,
            s(&ev.text).unwrap_or_default()
        ),
        3 => format!(
            "complete {} {} {:?} {:?} {:?}",
            ev.index,
            ev.block_type,
            s(&ev.tool_name).as_deref(),
            s(&ev.tool_id).as_deref(),
            (ev.error_code != 0).then(|| s(&ev.error_raw).unwrap_or_default())
        ),
        4 => "stop".to_owned(),
        5 => format!("finish {}", e.choice),
        _ => "error".to_owned(),
    }
}

/// Joins consecutive chunk lines of one block, part and choice.
fn join_chunks(lines: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in lines {
        if let (Some(last), Some((key, text))) = (out.last_mut(), l.split_once('\t')) {
            if l.starts_with("chunk ") && last.split_once('\t').is_some_and(|(k, _)| k == key) {
                last.push_str(text);
                continue;
            }
        }
        out.push(l);
    }
    out
}

/// Coalesced: adjacent chunks of one block and part joined.
fn coalesce_d(events: &[DEvent]) -> Vec<DEvent> {
    let evs: Vec<CEvent> = events.iter().map(|e| e.ev.clone()).collect();
    let joined = coalesce_c(&evs);
    // Each joined event stands for a run of events with the same non-text fields; the
    // run's first decoder fields go with it.
    let mut out = Vec::with_capacity(joined.len());
    let mut i = 0;
    for ev in joined {
        let first = events[i].clone();
        let mut n = 1;
        if ev.kind == 2 {
            let len = ev.text.as_ref().map_or(0, Vec::len);
            let mut got = first.ev.text.as_ref().map_or(0, Vec::len);
            while got < len {
                got += events[i + n].ev.text.as_ref().map_or(0, Vec::len);
                n += 1;
            }
        }
        i += n;
        out.push(DEvent { ev, ..first });
    }
    out
}

/// The event model for a decoder's events.
fn lint_d(events: &[DEvent], accumulate: bool) {
    let mut open: Open = None;
    let mut next = 0;
    for (i, d) in events.iter().enumerate() {
        let e = &d.ev;
        record::strings_utf8(i, e, &[&d.raw_reason, &d.response_id, &d.model, &d.code]);
        match e.kind {
            1 => {
                assert!(open.is_none(), "#{i}: blocks interleave");
                assert_eq!(e.index, next, "#{i}: indices count up from 0");
                next += 1;
                open = Some((e.index, e.block_type, Vec::new()));
            }
            2 => record::chunk(i, e, &mut open),
            3 => {
                if let Some((acc, Some(got))) = record::complete(i, e, &mut open, accumulate) {
                    record::accumulated(i, e, got, &acc);
                }
            }
            4 => assert!(open.is_none(), "#{i}: stop inside a block"),
            5 | 6 => assert!(open.is_none(), "#{i}: finish or error with a block open"),
            k => panic!("#{i}: unknown kind {k}"),
        }
    }
    assert!(open.is_none(), "the stream ended with a block open");
    assert!(
        events.iter().any(|e| e.ev.kind == 5),
        "the stream ended without a finish"
    );
}

/// One body through the decoder: pieces of `sizes` (then the rest whole), finish, DONE.
fn stream(
    d: *mut c::tokensieve_decoder,
    body: &[u8],
    sizes: &[usize],
    misuse: bool,
) -> Vec<DEvent> {
    let mut out = blank();
    let mut events = Vec::new();
    if misuse {
        // SAFETY: `d` is live, `out` writable.
        let rc = unsafe { c::tokensieve_decoder_next(d, ptr::null_mut()) };
        expect_failure(d, rc, E_NULL, "next with out NULL");
        // SAFETY: NULL decoder is the misuse under test.
        let rc = unsafe { c::tokensieve_decoder_feed(ptr::null_mut(), c"x".as_ptr(), 1) };
        expect_failure(ptr::null(), rc, E_NULL, "feed with d NULL");
    }
    // Each piece in its own exact-size allocation, freed once drained.
    let mut pieces: VecDeque<Box<[u8]>> = crate::pieces(body, sizes).map(Into::into).collect();
    let mut current: Box<[u8]> = pieces.pop_front().unwrap_or_default();
    // SAFETY: `d` is live; `current` stays alive and unchanged until drained.
    let rc = unsafe { c::tokensieve_decoder_feed(d, current.as_ptr().cast(), current.len()) };
    assert_eq!(rc, OK, "feed: {}", last_error(d));
    if misuse && !current.is_empty() {
        // SAFETY: as above; nothing pulled yet, so not drained: refused.
        let rc = unsafe { c::tokensieve_decoder_feed(d, c"y".as_ptr(), 1) };
        expect_failure(d, rc, E_STATE, "feed before drained");
    }
    loop {
        // SAFETY: `d` is live; `out` is writable; `current` is alive.
        match unsafe { c::tokensieve_decoder_next(d, &mut out) } {
            EVENT => events.push(DEvent::of(&out)),
            NEED_MORE => {
                let Some(next) = pieces.pop_front() else {
                    break;
                };
                current = next;
                // SAFETY: as above.
                let rc = unsafe {
                    c::tokensieve_decoder_feed(d, current.as_ptr().cast(), current.len())
                };
                assert_eq!(rc, OK, "feed: {}", last_error(d));
            }
            other => panic!("tokensieve_decoder_next: {other}: {}", last_error(d)),
        }
    }
    drop(current);
    // SAFETY: `d` is live.
    assert_eq!(unsafe { c::tokensieve_decoder_finish(d) }, OK);
    if misuse {
        // SAFETY: `d` is live.
        let rc = unsafe { c::tokensieve_decoder_feed(d, c"z".as_ptr(), 1) };
        expect_failure(d, rc, E_STATE, "feed after finish");
    }
    loop {
        // SAFETY: `d` is live; no input is pending.
        match unsafe { c::tokensieve_decoder_next(d, &mut out) } {
            EVENT => events.push(DEvent::of(&out)),
            DONE => break,
            other => panic!(
                "tokensieve_decoder_next after finish: {other}: {}",
                last_error(d)
            ),
        }
    }
    // SAFETY: `d` is live.
    assert_eq!(
        unsafe { c::tokensieve_decoder_next(d, &mut out) },
        DONE,
        "next after DONE"
    );
    events
}

/// The body through the ABI; `None` when this build does not decode the provider.
fn run(s: &Setup, sizes: &[usize]) -> Option<Vec<DEvent>> {
    let config = s.config();
    let misuse = s.has(64);
    if c::tokensieve_provider_supported(config.provider) == 0 {
        let mut d = ptr::null_mut();
        // SAFETY: `config` is valid; `d` writable.
        let rc = unsafe { c::tokensieve_decoder_new(&config, &mut d) };
        assert!(
            rc < 0 && d.is_null(),
            "a decoder for an unsupported provider"
        );
        return None;
    }
    if !s.has(8) {
        let mut d = ptr::null_mut();
        let rc = if s.has(32) {
            let json = s.json();
            // SAFETY: `json` is readable for its length; `d` writable.
            unsafe {
                c::tokensieve_decoder_new_json(
                    json.as_ptr().cast(),
                    json.len(),
                    u32::from(s.has(16)),
                    &mut d,
                )
            }
        } else {
            // SAFETY: `config` is valid; `d` writable.
            unsafe { c::tokensieve_decoder_new(&config, &mut d) }
        };
        assert_eq!(rc, OK, "decoder_new: {}", last_error(ptr::null()));
        let events = stream(d, &s.body, sizes, misuse);
        // SAFETY: a live heap decoder, freed once.
        unsafe { c::tokensieve_decoder_free(d) };
        return Some(events);
    }
    // SAFETY: `config` is valid.
    let size = unsafe { c::tokensieve_decoder_state_size(&config) };
    assert!(size > 0, "decoder_state_size: {}", last_error(ptr::null()));
    if misuse {
        let spare = Memory::new(size);
        let mut d = ptr::null_mut();
        // SAFETY: `spare` is writable for `size` bytes; the call must refuse one byte less.
        let rc = unsafe { c::tokensieve_decoder_init(spare.ptr.cast(), size - 1, &config, &mut d) };
        assert!(rc < 0 && d.is_null(), "init accepted memory one byte short");
        assert!(!last_error(ptr::null()).is_empty());
    }
    // Exactly `size` bytes: a decoder that writes past them is a sanitizer report.
    let mem = Memory::new(size);
    let mut d = ptr::null_mut();
    // SAFETY: `mem` is aligned and writable for `size` bytes.
    let rc = unsafe { c::tokensieve_decoder_init(mem.ptr.cast(), size, &config, &mut d) };
    assert_eq!(rc, OK, "decoder_init: {}", last_error(ptr::null()));
    let events = stream(d, &s.body, sizes, misuse);
    // SAFETY: a live decoder.
    assert_eq!(unsafe { c::tokensieve_decoder_reset(d) }, OK);
    let again = stream(d, &s.body, sizes, misuse);
    assert_eq!(
        coalesce_d(&events),
        coalesce_d(&again),
        "tokensieve_decoder_reset did not give a fresh stream"
    );
    // SAFETY: a live caller-memory decoder: only invalidated.
    unsafe { c::tokensieve_decoder_free(d) };
    let mut out = blank();
    // SAFETY: the memory is unchanged since the free, which the ABI allows calling on.
    let rc = unsafe { c::tokensieve_decoder_next(d, &mut out) };
    expect_failure(d, rc, E_INVALID, "next after free");
    drop(mem);
    Some(events)
}

/// The whole check of one decoder input (`mode` from `DECODER` on).
pub fn check_decoder(mode: u8, data: &[u8]) {
    let [flags, seed, body @ ..] = data else {
        return;
    };
    let s = Setup {
        provider: Provider::ALL[usize::from(mode & 0x0F) % Provider::ALL.len()],
        flags: *flags,
        seed: *seed,
        body: body.to_vec(),
    };
    let Some(whole) = run(&s, &[]) else {
        return;
    };
    let sizes = splits(body.len(), u64::from(*seed));
    let split = run(&s, &sizes).expect("the same config");
    let accumulate = s.has(16);
    lint_d(&whole, accumulate);
    lint_d(&split, accumulate);
    let (a, b) = (coalesce_d(&whole), coalesce_d(&split));
    assert_same(
        &a,
        &b,
        &format!("chunking changed the decoder's events (rule 4); sizes {sizes:?}"),
    );
    if !s.has(8) {
        let want = s.core().expect("the core decodes what the ABI decodes");
        let got = join_chunks(whole.iter().map(c_line).collect());
        assert_same(
            &want,
            &got,
            "the ABI's decoder differs from the core's (first: core, second: ABI)",
        );
    }
}
