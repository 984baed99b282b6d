//! Events in batches: what `tokensieve_next_batch` and `tokensieve_decoder_next_batch` write,
//! many events per call, for hosts where each call across the boundary or each field read
//! costs more than the event itself (PHP's FFI: issue 28, item 4).
//!
//! Each event becomes a fixed `tokensieve_record` (numbers, and the lengths of its strings)
//! in one caller array, and its strings go, copied, into one caller byte area, in record
//! order: text, tool name, tool id, then the rest — the extension words and a string table,
//! present only when the event has more than the common fields. A host reads the records
//! as one array and cuts the strings from the area with a running offset: a chunk, a block
//! start or a text block's completion needs nothing else. Numbers in the rest are in native
//! byte order and unaligned (read them with `memcpy`).

use core::slice;

use crate::types::{tokensieve_event, tokensieve_record, tokensieve_record_bit, tokensieve_str};

const NAME: u32 = tokensieve_record_bit::TOKENSIEVE_RECORD_NAME as u32;
const ID: u32 = tokensieve_record_bit::TOKENSIEVE_RECORD_ID as u32;
const EXT: u32 = tokensieve_record_bit::TOKENSIEVE_RECORD_EXT as u32;
const STRINGS: u32 = tokensieve_record_bit::TOKENSIEVE_RECORD_STRINGS as u32;

/// The largest string or rest a record can describe (its length is a u32).
pub(crate) const MAX_LEN: usize = u32::MAX as usize;

/// The strings of the rest's table, by their bit (3..=14; bits 0–2 are text, name, id).
fn table(ev: &tokensieve_event) -> [tokensieve_str; 15] {
    let none = crate::types::NO_STR;
    [
        none,
        none,
        none,
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

fn len_of(s: tokensieve_str) -> usize {
    if s.ptr.is_null() { 0 } else { s.len }
}

/// An event laid out as a record and its bytes.
pub(crate) struct Laid {
    pub(crate) record: tokensieve_record,
    mask: u32,
    table: [tokensieve_str; 15],
    /// The bytes it takes in the byte area (text + name + id + rest); `None` when a length
    /// does not fit a u32.
    pub(crate) bytes: Option<usize>,
}

/// Lays `ev` out.
pub(crate) fn lay(ev: &tokensieve_event) -> Laid {
    let table = table(ev);
    let mut mask = 0u32;
    let mut strings = 0usize;
    let mut count = 0usize;
    for (i, s) in table.iter().enumerate() {
        if !s.ptr.is_null() {
            mask |= 1 << i;
            strings += s.len;
            count += 1;
        }
    }
    let ext = ev.choice != 0
        || ev.depth > 255
        || ev.error_code != 0
        || ev.finish_reason != 0
        || ev.error_source != 0
        || ev.usage_present != 0;
    let mut head = (ev.kind & 15)
        | (ev.block_type & 15) << 4
        | (ev.part & 15) << 8
        | (ev.flags & 255) << 16
        | ev.depth.min(255) << 24;
    if !ev.tool_name.ptr.is_null() {
        head |= NAME;
    }
    if !ev.tool_id.ptr.is_null() {
        head |= ID;
    }
    let mut rest = 0usize;
    if ext {
        head |= EXT;
        rest += 24;
        if ev.usage_present != 0 {
            rest += 40;
        }
    }
    if mask != 0 {
        head |= STRINGS;
        rest += 4 + 4 * count + strings;
    }
    let (text, name, id) = (len_of(ev.text), len_of(ev.tool_name), len_of(ev.tool_id));
    let fits = [text, name, id, rest].iter().all(|&l| l <= MAX_LEN);
    Laid {
        record: tokensieve_record {
            head,
            index: ev.index,
            text_len: text as u32,
            name_len: name as u32,
            id_len: id as u32,
            rest_len: rest as u32,
        },
        mask,
        table,
        bytes: fits.then(|| text + name + id + rest),
    }
}

/// Writes the bytes of `ev` (laid out as `l`) into `out`, exactly `l.bytes` long.
///
/// # Safety
/// Every present string of `ev` is readable for its length (an event just converted from
/// the core's, or one kept since without a call on its handle: see `Parts::pending`).
pub(crate) unsafe fn write(ev: &tokensieve_event, l: &Laid, out: &mut [u8]) {
    let mut w = Writer { out, at: 0 };
    // SAFETY: this function's contract, for each present string.
    unsafe {
        w.str(ev.text);
        w.str(ev.tool_name);
        w.str(ev.tool_id);
    }
    if l.record.head & EXT != 0 {
        for v in [
            ev.choice,
            ev.depth,
            ev.error_code,
            ev.finish_reason,
            ev.error_source,
            ev.usage_present,
        ] {
            w.bytes(&v.to_ne_bytes());
        }
        if ev.usage_present != 0 {
            for v in [
                ev.input_tokens,
                ev.output_tokens,
                ev.cache_read_tokens,
                ev.cache_write_tokens,
                ev.reasoning_tokens,
            ] {
                w.bytes(&v.to_ne_bytes());
            }
        }
    }
    if l.mask != 0 {
        w.bytes(&l.mask.to_ne_bytes());
        for s in l.table.iter().filter(|s| !s.ptr.is_null()) {
            w.bytes(&(s.len as u32).to_ne_bytes());
        }
        for s in l.table {
            // SAFETY: this function's contract.
            unsafe { w.str(s) };
        }
    }
    debug_assert_eq!(Some(w.at), l.bytes);
}

struct Writer<'a> {
    out: &'a mut [u8],
    at: usize,
}

impl Writer<'_> {
    fn bytes(&mut self, b: &[u8]) {
        self.out[self.at..self.at + b.len()].copy_from_slice(b);
        self.at += b.len();
    }

    /// # Safety
    /// `s` is absent (NULL) or readable for its length.
    unsafe fn str(&mut self, s: tokensieve_str) {
        if !s.ptr.is_null() && s.len > 0 {
            // SAFETY: present, so readable for `len` bytes (contract).
            self.bytes(unsafe { slice::from_raw_parts(s.ptr.cast::<u8>(), s.len) });
        }
    }
}
