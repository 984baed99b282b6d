//! `*_next_batch` against `*_next`: the records, read back, are the same events, on every
//! conformance vector (dialects and providers), whole and in 7-byte feeds, at buffer sizes
//! that force every path (full buffer, one event too large, records of any size).

use std::ffi::CString;
use std::path::{Path, PathBuf};

use crate::batch::{EXT, STRS};
use crate::error::{DONE, EVENT, Error, NEED_MORE, OK};
use crate::types::tokensieve_str;
use crate::*;

/// An event with its strings copied: what both ways of draining must agree on.
#[derive(Debug, PartialEq, Eq, Clone, Default)]
struct Owned {
    ints: [u32; 11],
    tokens: [u64; 5],
    strs: [Option<Vec<u8>>; 15],
}

fn copy(s: tokensieve_str) -> Option<Vec<u8>> {
    if s.ptr.is_null() {
        return None;
    }
    // SAFETY: test: a present slice of an event just handed out.
    Some(unsafe { std::slice::from_raw_parts(s.ptr.cast::<u8>(), s.len) }.to_vec())
}

fn owned(e: &tokensieve_event) -> Owned {
    let present = e.usage_present != 0;
    Owned {
        ints: [
            e.kind,
            e.block_type,
            e.flags,
            e.index,
            e.depth,
            e.part,
            e.error_code,
            e.choice,
            e.finish_reason,
            e.error_source,
            e.usage_present,
        ],
        tokens: if present {
            [
                e.input_tokens,
                e.output_tokens,
                e.cache_read_tokens,
                e.cache_write_tokens,
                e.reasoning_tokens,
            ]
        } else {
            [0; 5]
        },
        strs: [
            copy(e.text),
            copy(e.tool_name),
            copy(e.tool_id),
            copy(e.content),
            copy(e.input),
            copy(e.error_reason),
            copy(e.error_raw),
            copy(e.raw_reason),
            copy(e.response_id),
            copy(e.model),
            copy(e.code),
            copy(e.message),
            copy(e.signature),
            copy(e.redacted),
            copy(e.citations),
        ],
    }
}

/// Reads the records of one `*_next_batch` call (the layout of `batch`'s module docs).
fn read_records(mut b: &[u8], out: &mut Vec<Owned>) {
    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }
    while !b.is_empty() {
        let size = u32_at(b, 0) as usize;
        let head = u32_at(b, 4);
        let rec = &b[..size];
        let mut e = Owned::default();
        let kind = head & 15;
        e.ints[0] = kind;
        e.ints[1] = (head >> 4) & 15;
        e.ints[5] = (head >> 8) & 15;
        e.ints[2] = (head >> 16) & 255;
        e.ints[4] = head >> 24;
        e.ints[3] = u32_at(rec, 8);
        let mut at = 12;
        if head & EXT != 0 {
            e.ints[7] = u32_at(rec, at);
            e.ints[4] = u32_at(rec, at + 4);
            e.ints[6] = u32_at(rec, at + 8);
            e.ints[8] = u32_at(rec, at + 12);
            e.ints[9] = u32_at(rec, at + 16);
            e.ints[10] = u32_at(rec, at + 20);
            at += 24;
            if e.ints[10] != 0 {
                for t in 0..5 {
                    e.tokens[t] = u64::from_le_bytes(rec[at..at + 8].try_into().unwrap());
                    at += 8;
                }
            }
        }
        if head & STRS != 0 {
            let mask = u32_at(rec, at);
            at += 4;
            let mut lens = Vec::new();
            for i in 0..15 {
                if mask & (1 << i) != 0 {
                    lens.push((i, u32_at(rec, at) as usize));
                    at += 4;
                }
            }
            for (i, len) in lens {
                e.strs[i] = Some(rec[at..at + len].to_vec());
                at += len;
            }
            assert_eq!(at, size, "a record's strings end where it does");
        } else {
            assert_eq!(kind, 2, "only a chunk has no string table");
            e.strs[0] = Some(rec[at..].to_vec());
        }
        out.push(e);
        b = &b[size..];
    }
}

/// The two handle kinds, driven through the same calls.
#[derive(Clone, Copy)]
enum H {
    P(*mut tokensieve_parser),
    D(*mut tokensieve_decoder),
}

impl H {
    fn feed(self, data: &[u8]) -> i32 {
        // SAFETY: test: live handle; `data` outlives the drain that follows.
        unsafe {
            match self {
                H::P(p) => tokensieve_feed(p, data.as_ptr().cast(), data.len()),
                H::D(d) => tokensieve_decoder_feed(d, data.as_ptr().cast(), data.len()),
            }
        }
    }
    fn finish(self) -> i32 {
        // SAFETY: test: live handle.
        unsafe {
            match self {
                H::P(p) => tokensieve_finish(p),
                H::D(d) => tokensieve_decoder_finish(d),
            }
        }
    }
    fn next(self, ev: &mut tokensieve_event) -> i32 {
        // SAFETY: test: live handle, writable event.
        unsafe {
            match self {
                H::P(p) => tokensieve_next(p, ev),
                H::D(d) => tokensieve_decoder_next(d, ev),
            }
        }
    }
    fn batch(self, buf: &mut [u8], written: &mut usize) -> i32 {
        // SAFETY: test: live handle, `buf` writable for its length.
        unsafe {
            match self {
                H::P(p) => tokensieve_next_batch(p, buf.as_mut_ptr(), buf.len(), written),
                H::D(d) => tokensieve_decoder_next_batch(d, buf.as_mut_ptr(), buf.len(), written),
            }
        }
    }
    fn reset(self) -> i32 {
        // SAFETY: test: live handle.
        unsafe {
            match self {
                H::P(p) => tokensieve_reset(p),
                H::D(d) => tokensieve_decoder_reset(d),
            }
        }
    }
    fn free(self) {
        // SAFETY: test: live handle, freed once.
        unsafe {
            match self {
                H::P(p) => tokensieve_free(p),
                H::D(d) => tokensieve_decoder_free(d),
            }
        }
    }
}

/// Drains with `*_next` until `want` (NEED_MORE or DONE; DONE early after a stop sequence).
fn drain_next(h: H, want: i32, out: &mut Vec<Owned>) {
    let mut ev = types::EMPTY_EVENT;
    loop {
        let rc = h.next(&mut ev);
        if rc == EVENT {
            out.push(owned(&ev));
            continue;
        }
        assert!(rc == want || rc == DONE, "status {rc}");
        return;
    }
}

/// Drains with `*_next_batch` and a buffer of `cap` bytes (grown for one call when an event
/// does not fit) until `want`.
fn drain_batch(h: H, cap: usize, want: i32, out: &mut Vec<Owned>) {
    let mut buf = vec![0u8; cap];
    loop {
        let mut written = usize::MAX;
        let rc = h.batch(&mut buf, &mut written);
        if rc == Error::Buffer.code() {
            assert!(written > buf.len(), "E_BUFFER names a larger size");
            let mut big = vec![0u8; written];
            let mut w2 = 0;
            let rc2 = h.batch(&mut big, &mut w2);
            assert!(rc2 >= 0, "the size it named is enough");
            read_records(&big[..w2], out);
            if rc2 == want || rc2 == DONE {
                return;
            }
            continue;
        }
        assert!(written <= buf.len());
        read_records(&buf[..written], out);
        if rc == EVENT {
            continue;
        }
        assert!(rc == want || rc == DONE, "status {rc}");
        return;
    }
}

/// Runs `input` through `h` in `piece`-byte feeds, draining with `next` (cap `None`) or
/// `next_batch`.
fn run(h: H, input: &[u8], piece: usize, cap: Option<usize>) -> Vec<Owned> {
    assert_eq!(h.reset(), OK);
    let mut out = Vec::new();
    let drain = |out: &mut Vec<Owned>, want| match cap {
        None => drain_next(h, want, out),
        Some(c) => drain_batch(h, c, want, out),
    };
    for p in input.chunks(piece.max(1)) {
        assert_eq!(h.feed(p), OK);
        drain(&mut out, NEED_MORE);
    }
    assert_eq!(h.finish(), OK);
    drain(&mut out, DONE);
    out
}

fn vectors(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../conformance")
        .join(dir);
    let mut v = Vec::new();
    for d in std::fs::read_dir(root).unwrap() {
        let d = d.unwrap().path();
        if !d.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&d).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "json") {
                v.push(f);
            }
        }
    }
    v.sort();
    v
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A handle for a vector (accumulating), and its input; `None` when this build lacks it.
fn open(path: &Path, provider: bool) -> Option<(H, Vec<u8>)> {
    // A few vectors hold lone surrogate escapes, which serde_json refuses: skipped here.
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).ok()?;
    let config = v["config"].to_string();
    let input = if let Some(f) = v["input_file"].as_str() {
        std::fs::read(path.with_file_name(f)).unwrap()
    } else if let Some(h) = v["input_hex"].as_str() {
        hex(h)
    } else {
        v["input"].as_str()?.as_bytes().to_vec()
    };
    if provider {
        let mut d = core::ptr::null_mut();
        // SAFETY: test: config bytes and out pointer valid.
        let rc =
            unsafe { tokensieve_decoder_new_json(config.as_ptr().cast(), config.len(), 1, &mut d) };
        (rc == OK).then_some((H::D(d), input))
    } else {
        let c = CString::new(config).unwrap();
        // SAFETY: test: NUL-terminated config.
        let p = unsafe { tokensieve_new_json(c.as_ptr(), 1) };
        (!p.is_null()).then_some((H::P(p), input))
    }
}

fn check_all(dir: &str, provider: bool) {
    let mut n = 0;
    for path in vectors(dir) {
        let Some((h, input)) = open(&path, provider) else {
            continue;
        };
        for piece in [7, input.len().max(1)] {
            let want = run(h, &input, piece, None);
            for cap in [0, 1, 16, 200, 1 << 16] {
                let got = run(h, &input, piece, Some(cap));
                assert_eq!(
                    got,
                    want,
                    "{}: feeds of {piece}, buffer {cap}",
                    path.display()
                );
            }
        }
        h.free();
        n += 1;
    }
    assert!(n > 50, "{dir}: only {n} vectors ran");
}

#[test]
fn batch_records_are_the_events_of_every_dialect_vector() {
    check_all("cases", false);
}

#[test]
fn batch_records_are_the_events_of_every_provider_vector() {
    check_all("providers", true);
}

/// While an event waits for room, feed and finish are refused (they could move its bytes);
/// `next` hands it out; reset forgets it.
#[test]
fn a_waiting_event_blocks_feed_and_finish() {
    let c = CString::new(r#"{"dialect": "hermes"}"#).unwrap();
    // SAFETY: test: NUL-terminated config.
    let p = unsafe { tokensieve_new_json(c.as_ptr(), 0) };
    let h = H::P(p);
    let input = b"Hello there, a long enough text.<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>";
    assert_eq!(h.feed(input), OK);
    let mut written = 0;
    let mut small = [0u8; 4];
    assert_eq!(h.batch(&mut small, &mut written), Error::Buffer.code());
    assert!(written > 12);
    assert_eq!(h.feed(b"x"), Error::State.code());
    assert_eq!(h.finish(), Error::State.code());
    // `next` takes the waiting event: the first, a block start.
    let mut ev = types::EMPTY_EVENT;
    assert_eq!(h.next(&mut ev), EVENT);
    assert_eq!(ev.kind, tokensieve_kind::TOKENSIEVE_KIND_BLOCK_START as u32);
    assert_eq!(h.batch(&mut small, &mut written), Error::Buffer.code());
    assert_eq!(h.reset(), OK);
    assert_eq!(h.feed(b"y"), OK);
    // NULL `written`, NULL `buf` with room.
    // SAFETY: test: live parser; the NULLs are the point.
    unsafe {
        assert_eq!(
            tokensieve_next_batch(p, small.as_mut_ptr(), 4, core::ptr::null_mut()),
            Error::Null.code()
        );
        assert_eq!(
            tokensieve_next_batch(p, core::ptr::null_mut(), 4, &mut written),
            Error::Null.code()
        );
        assert_eq!(
            tokensieve_next_batch(core::ptr::null_mut(), small.as_mut_ptr(), 4, &mut written),
            Error::Null.code()
        );
    }
    h.free();
}
