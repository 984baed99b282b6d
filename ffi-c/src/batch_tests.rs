//! `*_next_batch` against `*_next`: the records, read back, are the same events, on every
//! conformance vector (dialects and providers), whole and in 7-byte feeds, at buffer sizes
//! that force every path (full buffer, one event too large, records of any size).

use std::ffi::CString;
use std::path::{Path, PathBuf};

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

/// Reads the events of one `*_next_batch` call (the layout of `tokensieve_record_bit`).
fn read_records(records: &[tokensieve_record], b: &[u8], out: &mut Vec<Owned>) {
    const NAME: u32 = tokensieve_record_bit::TOKENSIEVE_RECORD_NAME as u32;
    const ID: u32 = tokensieve_record_bit::TOKENSIEVE_RECORD_ID as u32;
    const EXT: u32 = tokensieve_record_bit::TOKENSIEVE_RECORD_EXT as u32;
    const STRINGS: u32 = tokensieve_record_bit::TOKENSIEVE_RECORD_STRINGS as u32;
    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_ne_bytes(b[at..at + 4].try_into().unwrap())
    }
    let mut at = 0;
    let mut take = |len: usize| {
        let s = b[at..at + len].to_vec();
        at += len;
        s
    };
    for r in records {
        let head = r.head;
        let mut e = Owned::default();
        let kind = head & 15;
        e.ints[0] = kind;
        e.ints[1] = (head >> 4) & 15;
        e.ints[5] = (head >> 8) & 15;
        e.ints[2] = (head >> 16) & 255;
        e.ints[4] = head >> 24;
        e.ints[3] = r.index;
        let text = take(r.text_len as usize);
        if kind == 2 || kind == 4 {
            e.strs[0] = Some(text);
        } else {
            assert!(text.is_empty(), "text only on chunks and stops");
        }
        let name = take(r.name_len as usize);
        if head & NAME != 0 {
            e.strs[1] = Some(name);
        }
        let id = take(r.id_len as usize);
        if head & ID != 0 {
            e.strs[2] = Some(id);
        }
        let rest = take(r.rest_len as usize);
        let mut ra = 0;
        if head & EXT != 0 {
            e.ints[7] = u32_at(&rest, 0);
            e.ints[4] = u32_at(&rest, 4);
            e.ints[6] = u32_at(&rest, 8);
            e.ints[8] = u32_at(&rest, 12);
            e.ints[9] = u32_at(&rest, 16);
            e.ints[10] = u32_at(&rest, 20);
            ra = 24;
            if e.ints[10] != 0 {
                for t in 0..5 {
                    e.tokens[t] = u64::from_ne_bytes(rest[ra..ra + 8].try_into().unwrap());
                    ra += 8;
                }
            }
        }
        if head & STRINGS != 0 {
            let mask = u32_at(&rest, ra);
            ra += 4;
            assert_eq!(mask & 7, 0, "text, name and id are never in the table");
            let mut lens = Vec::new();
            for i in 3..15 {
                if mask & (1 << i) != 0 {
                    lens.push((i, u32_at(&rest, ra) as usize));
                    ra += 4;
                }
            }
            for (i, len) in lens {
                e.strs[i] = Some(rest[ra..ra + len].to_vec());
                ra += len;
            }
        }
        assert_eq!(ra, rest.len(), "the rest is read whole");
        out.push(e);
    }
    assert_eq!(at, b.len(), "the byte area is read whole");
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
    fn batch(
        self,
        recs: &mut [tokensieve_record],
        buf: &mut [u8],
        n: &mut usize,
        len: &mut usize,
    ) -> i32 {
        let mut b = batch_of(recs, buf);
        // SAFETY: test: live handle, buffers writable for their lengths.
        let rc = unsafe {
            match self {
                H::P(p) => tokensieve_next_batch(p, &mut b),
                H::D(d) => tokensieve_decoder_next_batch(d, &mut b),
            }
        };
        (*n, *len) = (b.n_records, b.n_bytes);
        rc
    }
    /// `*_feed_batch` with room for `cap` records and `cap` bytes; the events go to `out`,
    /// and the status is returned (EVENT: keep draining with `*_next_batch`).
    fn feed_batch(self, data: &[u8], cap: usize, out: &mut Vec<Owned>) -> i32 {
        let mut recs = vec![tokensieve_record::default(); cap];
        let mut buf = vec![0u8; cap];
        let mut b = batch_of(&mut recs, &mut buf);
        let d = data.as_ptr().cast();
        // SAFETY: test: live handle; `data` outlives the drain; buffers writable.
        let rc = unsafe {
            match self {
                H::P(p) => tokensieve_feed_batch(p, d, data.len(), &mut b),
                H::D(h) => tokensieve_decoder_feed_batch(h, d, data.len(), &mut b),
            }
        };
        if rc >= 0 {
            let (n, len) = (b.n_records, b.n_bytes);
            read_records(&recs[..n], &buf[..len], out);
        }
        rc
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

fn batch_of(recs: &mut [tokensieve_record], buf: &mut [u8]) -> tokensieve_batch {
    tokensieve_batch {
        records: recs.as_mut_ptr(),
        records_cap: recs.len(),
        bytes: buf.as_mut_ptr(),
        bytes_cap: buf.len(),
        n_records: usize::MAX,
        n_bytes: usize::MAX,
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

/// Drains with `*_next_batch`, `cap` records and `cap` bytes (the bytes grown for one call
/// when an event does not fit) until `want`.
fn drain_batch(h: H, cap: usize, want: i32, out: &mut Vec<Owned>) {
    let mut recs = vec![tokensieve_record::default(); cap];
    let mut buf = vec![0u8; cap];
    loop {
        let (mut n, mut len) = (usize::MAX, usize::MAX);
        let rc = h.batch(&mut recs, &mut buf, &mut n, &mut len);
        if rc == Error::Buffer.code() {
            assert_eq!(n, 1);
            assert!(
                len > buf.len() || recs.is_empty(),
                "E_BUFFER names what is missing"
            );
            let mut one = [tokensieve_record::default()];
            let mut big = vec![0u8; len];
            let (mut n2, mut len2) = (0, 0);
            let rc2 = h.batch(&mut one, &mut big, &mut n2, &mut len2);
            assert!(rc2 >= 0, "what it named is enough");
            read_records(&one[..n2], &big[..len2], out);
            if rc2 == want || rc2 == DONE {
                return;
            }
            continue;
        }
        assert!(n <= recs.len() && len <= buf.len());
        read_records(&recs[..n], &buf[..len], out);
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
        Some(FEED_BATCH) => drain_batch(h, 300, want, out),
        None => drain_next(h, want, out),
        Some(c) => drain_batch(h, c, want, out),
    };
    for p in input.chunks(piece.max(1)) {
        match cap {
            // Through `*_feed_batch` (room for 300: big events are E_BUFFER, then drained).
            Some(c) if c == FEED_BATCH => {
                let rc = h.feed_batch(p, 300, &mut out);
                assert!(rc >= 0 || rc == Error::Buffer.code(), "status {rc}");
                if rc == EVENT || rc == Error::Buffer.code() {
                    drain_batch(h, 300, NEED_MORE, &mut out);
                }
            }
            _ => {
                assert_eq!(h.feed(p), OK);
                drain(&mut out, NEED_MORE);
            }
        }
    }
    assert_eq!(h.finish(), OK);
    drain(&mut out, DONE);
    out
}

/// The `cap` that makes [`run`] feed through `*_feed_batch`.
const FEED_BATCH: usize = usize::MAX;

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
            for cap in [0, 1, 16, 200, 1 << 16, FEED_BATCH] {
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
    let (mut n, mut len) = (0, 0);
    let mut recs = [tokensieve_record::default(); 4];
    let mut small = [0u8; 4];
    // The block start needs no bytes; the chunk after it does: the buffer is full.
    assert_eq!(h.batch(&mut recs, &mut [], &mut n, &mut len), EVENT);
    assert_eq!((n, len), (1, 0));
    assert_eq!(
        recs[0].head & 15,
        tokensieve_kind::TOKENSIEVE_KIND_BLOCK_START as u32
    );
    // Now the chunk is first and does not fit: E_BUFFER with the bytes it needs; it waits.
    assert_eq!(
        h.batch(&mut recs, &mut small, &mut n, &mut len),
        Error::Buffer.code()
    );
    assert_eq!((n, len), (1, "Hello there, a long enough text.".len()));
    assert_eq!(h.feed(b"x"), Error::State.code());
    assert_eq!(h.finish(), Error::State.code());
    // `next` takes the waiting event.
    let mut ev = types::EMPTY_EVENT;
    assert_eq!(h.next(&mut ev), EVENT);
    assert_eq!(ev.kind, tokensieve_kind::TOKENSIEVE_KIND_CHUNK as u32);
    assert_eq!(ev.text.len, len);
    // No record room at all: E_BUFFER too.
    assert_eq!(
        h.batch(&mut [], &mut small, &mut n, &mut len),
        Error::Buffer.code()
    );
    assert_eq!(h.reset(), OK);
    assert_eq!(h.feed(b"y"), OK);
    // NULL batch, NULL buffers with room.
    use core::ptr::null_mut;
    let mut b = batch_of(&mut recs, &mut small);
    b.records = null_mut();
    let mut c = batch_of(&mut recs, &mut small);
    c.bytes = null_mut();
    // SAFETY: test: live parser; the NULLs are the point.
    unsafe {
        assert_eq!(tokensieve_next_batch(p, null_mut()), Error::Null.code());
        assert_eq!(tokensieve_next_batch(p, &mut b), Error::Null.code());
        assert_eq!(tokensieve_next_batch(p, &mut c), Error::Null.code());
        assert_eq!(
            tokensieve_next_batch(null_mut(), &mut c),
            Error::Null.code()
        );
    }
    h.free();
}
