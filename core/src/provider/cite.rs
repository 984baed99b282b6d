//! A text block's citations (Anthropic `citations_delta` and a block's `citations`, Bedrock
//! `citation` deltas): each citation object is captured as compact JSON, as it came, into
//! the decoder's `redacted` buffer — a text block never has redacted data, and the open
//! text block is `sig_block` — where they make one JSON array, `[{…},{…}]`, handed out
//! on the block's `block_complete` (docs/providers.md, "Citations").
//!
//! The array stays whole while a citation is read: `[a]` is followed by the new object's
//! pieces (`[a]{c…`), and when the object ends the `]` before it becomes a `,` and a `]`
//! closes it (`[a,{c}]`). A citation cut short (a broken document) is not in the array.

use super::out::Out;
use crate::emit::str_of;
use crate::event::BlockType;

/// The error message when a block's citations outgrow `max_call_bytes`.
pub(crate) const DROPPED: &str =
    "a text block's citations exceeded max_call_bytes; they are dropped";

/// Where the citations in the `redacted` buffer stand.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cites {
    /// Bytes of the buffer that are the whole array (0: no citation yet).
    end: u32,
    /// A citation object is being read.
    reading: bool,
    /// A piece of it did not fit.
    full: bool,
}

impl Cites {
    pub(crate) const NEW: Cites = Cites {
        end: 0,
        reading: false,
        full: false,
    };

    /// The array, when the block has one (`bytes` is the `redacted` buffer).
    pub(crate) fn array<'b>(&self, bytes: &'b [u8]) -> Option<&'b str> {
        let a = bytes.get(..self.end as usize).filter(|a| !a.is_empty())?;
        Some(str_of(a))
    }
}

/// A citation object begins: it belongs to the open text block (the mapper opened it).
/// False when there is none (text run through a text dialect has no block here).
pub(crate) fn begin(out: &mut Out) -> bool {
    let Some(o) = out.open.filter(|o| o.ty == BlockType::Text && !o.routed) else {
        return false;
    };
    if out.sig_block != Some(o.index) {
        out.sig_block = Some(o.index);
        out.signature.clear();
        out.redacted.clear();
        out.cite = Cites::NEW;
    }
    // What a citation cut short left after the array goes.
    out.redacted.truncate(out.cite.end as usize);
    out.cite.reading = true;
    out.cite.full = out.cite.end == 0 && !out.redacted.push(b"[");
    true
}

/// A piece of the citation's compact JSON.
pub(crate) fn piece(out: &mut Out, bytes: &[u8]) {
    if out.cite.reading && !out.cite.full {
        out.cite.full = !out.redacted.push(bytes);
    }
}

/// The citation object ended: it joins the array. False when the citations outgrew the
/// buffer: all of the block's are dropped (a partial list would be sent back wrong); the
/// mapper reports it and ignores the block's later ones.
pub(crate) fn end(out: &mut Out) -> bool {
    if !out.cite.reading {
        return true;
    }
    out.cite.reading = false;
    let end = out.cite.end as usize;
    let fits = !out.cite.full && (end == 0 || out.redacted.write_at(end - 1, b","));
    if fits && out.redacted.push(b"]") {
        out.cite.end = out.redacted.len() as u32;
        return true;
    }
    out.redacted.clear();
    out.cite = Cites::NEW;
    false
}
