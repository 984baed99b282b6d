//! Packed event records: what `tokensieve_next_batch` and `tokensieve_decoder_next_batch`
//! write, many events per call, for hosts where each call across the boundary or each field
//! read costs more than the event itself (PHP's FFI: issue 28, item 4).
//!
//! A record is a copy of one `tokensieve_event`, strings included, little-endian, with no
//! padding (read its words with `memcpy` in C):
//!
//! | bytes | what |
//! | --- | --- |
//! | 4 | `size`: the record's length in bytes; the next record starts there |
//! | 4 | `head`: bits 0–3 `kind`, 4–7 `block_type`, 8–11 `part`, 12 [`EXT`], 13 [`STRS`], 16–23 `flags`, 24–31 `depth` (255 when larger: the exact value is in the extension) |
//! | 4 | `index` |
//! | 24 | with [`EXT`]: `choice`, `depth`, `error_code`, `finish_reason`, `error_source`, `usage_present` |
//! | 40 | with [`EXT`] and `usage_present` ≠ 0: `input_tokens`, `output_tokens`, `cache_read_tokens`, `cache_write_tokens`, `reasoning_tokens` (u64 each) |
//! | 4 + 4·n | with [`STRS`]: a mask of the strings present (bit *i*: the struct's *i*-th string: `text`, `tool_name`, `tool_id`, `content`, `input`, `error_reason`, `error_raw`, `raw_reason`, `response_id`, `model`, `code`, `message`, `signature`, `redacted`, `citations`), then the length of each present string in that order |
//! | … | the present strings' bytes, in that order |
//!
//! Without [`STRS`] the record is a chunk whose only string is its text: the bytes after the
//! header, up to `size`. Without [`EXT`], `choice`, `error_code`, `finish_reason`,
//! `error_source` and `usage_present` are 0 and `depth` is the head's. A string that is
//! absent (NULL in the struct) has its bit clear; a present empty string has its bit set and
//! length 0.

use core::slice;

use crate::types::{tokensieve_event, tokensieve_kind, tokensieve_str};

/// `head` bit: the extension words follow the index.
pub(crate) const EXT: u32 = 1 << 12;
/// `head` bit: a string table follows (else the rest of the record is a chunk's text).
pub(crate) const STRS: u32 = 1 << 13;

/// The event's strings, in mask-bit order (the struct's order).
fn strings(ev: &tokensieve_event) -> [tokensieve_str; 15] {
    [
        ev.text,
        ev.tool_name,
        ev.tool_id,
        ev.content,
        ev.input,
        ev.error_reason,
        ev.error_raw,
        ev.raw_reason,
        ev.response_id,
        ev.model,
        ev.code,
        ev.message,
        ev.signature,
        ev.redacted,
        ev.citations,
    ]
}

/// How an event is laid out as a record.
pub(crate) struct Layout {
    head: u32,
    mask: u32,
    strs: [tokensieve_str; 15],
    /// The record's length in bytes.
    pub(crate) size: usize,
}

/// The record layout of `ev`.
pub(crate) fn layout(ev: &tokensieve_event) -> Layout {
    let strs = strings(ev);
    let mut mask = 0u32;
    let mut bytes = 0usize;
    for (i, s) in strs.iter().enumerate() {
        if !s.ptr.is_null() {
            mask |= 1 << i;
            bytes += s.len;
        }
    }
    let ext = ev.choice != 0
        || ev.depth > 255
        || ev.error_code != 0
        || ev.finish_reason != 0
        || ev.error_source != 0
        || ev.usage_present != 0;
    // The short form: a chunk with its text and nothing else.
    let table = !(ev.kind == tokensieve_kind::TOKENSIEVE_KIND_CHUNK as u32 && mask == 1);
    let mut head = (ev.kind & 15)
        | (ev.block_type & 15) << 4
        | (ev.part & 15) << 8
        | (ev.flags & 255) << 16
        | ev.depth.min(255) << 24;
    let mut size = 12 + bytes;
    if ext {
        head |= EXT;
        size += 24;
        if ev.usage_present != 0 {
            size += 40;
        }
    }
    if table {
        head |= STRS;
        size += 4 + 4 * mask.count_ones() as usize;
    }
    Layout {
        head,
        mask,
        strs,
        size,
    }
}

/// Writes `ev`'s record (laid out as `l`) into `out`, which is exactly `l.size` bytes.
///
/// # Safety
/// Every present string of `ev` is readable for its length (an event just converted from
/// the core's, or one kept since without a call on its handle: see `Parts::pending`).
pub(crate) unsafe fn write(ev: &tokensieve_event, l: &Layout, out: &mut [u8]) {
    let mut w = Writer { out, at: 0 };
    w.u32(l.size as u32);
    w.u32(l.head);
    w.u32(ev.index);
    if l.head & EXT != 0 {
        for v in [
            ev.choice,
            ev.depth,
            ev.error_code,
            ev.finish_reason,
            ev.error_source,
            ev.usage_present,
        ] {
            w.u32(v);
        }
        if ev.usage_present != 0 {
            for v in [
                ev.input_tokens,
                ev.output_tokens,
                ev.cache_read_tokens,
                ev.cache_write_tokens,
                ev.reasoning_tokens,
            ] {
                w.bytes(&v.to_le_bytes());
            }
        }
    }
    if l.head & STRS != 0 {
        w.u32(l.mask);
        for s in l.strs.iter().filter(|s| !s.ptr.is_null()) {
            w.u32(s.len as u32);
        }
    }
    for s in l.strs.iter().filter(|s| !s.ptr.is_null() && s.len > 0) {
        // SAFETY: a present string is readable for `len` bytes (this function's contract).
        w.bytes(unsafe { slice::from_raw_parts(s.ptr.cast::<u8>(), s.len) });
    }
    debug_assert_eq!(w.at, l.size);
}

struct Writer<'a> {
    out: &'a mut [u8],
    at: usize,
}

impl Writer<'_> {
    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }

    fn bytes(&mut self, b: &[u8]) {
        self.out[self.at..self.at + b.len()].copy_from_slice(b);
        self.at += b.len();
    }
}

/// The largest record: its `size` is a u32 (an event this large is refused with
/// TOKENSIEVE_E_BUFFER; `*_next` hands it out).
pub(crate) const MAX_RECORD: usize = u32::MAX as usize;
