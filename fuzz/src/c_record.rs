//! The C event record both `ffi` inputs read (the parser's and the provider decoder's
//! `tokensieve_event`): the ABI's status codes, the record copied out of the ABI's memory
//! (the read the sanitizer checks), coalescing, and the event-model checks of one record
//! that `ffi::lint_c` and `ffi_decoder::lint_d` share.

use tokensieve::{BlockType, Part};
use tokensieve_ffi as c;

/// `TOKENSIEVE_EVENT`.
pub(crate) const EVENT: i32 = 0;
/// `TOKENSIEVE_NEED_MORE`.
pub(crate) const NEED_MORE: i32 = 1;
/// `TOKENSIEVE_DONE`.
pub(crate) const DONE: i32 = 2;
/// `TOKENSIEVE_OK`.
pub(crate) const OK: i32 = 0;
/// `TOKENSIEVE_E_NULL`.
pub(crate) const E_NULL: i32 = -1;
/// `TOKENSIEVE_E_STATE`.
pub(crate) const E_STATE: i32 = -2;
/// `TOKENSIEVE_E_INVALID`.
pub(crate) const E_INVALID: i32 = -5;
/// `TOKENSIEVE_E_BUFFER`.
pub(crate) const E_BUFFER: i32 = -7;

/// One C event, copied out of the parser's and the caller's memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CEvent {
    /// `kind`.
    pub kind: u32,
    /// `block_type`.
    pub block_type: u32,
    /// `flags`.
    pub flags: u32,
    /// `index`.
    pub index: u32,
    /// `depth`.
    pub depth: u32,
    /// `part`.
    pub part: u32,
    /// `error_code`.
    pub error_code: u32,
    /// `text`.
    pub text: Option<Vec<u8>>,
    /// `tool_name`.
    pub tool_name: Option<Vec<u8>>,
    /// `tool_id`.
    pub tool_id: Option<Vec<u8>>,
    /// `content`.
    pub content: Option<Vec<u8>>,
    /// `input`.
    pub input: Option<Vec<u8>>,
    /// `error_reason`.
    pub error_reason: Option<Vec<u8>>,
    /// `error_raw`.
    pub error_raw: Option<Vec<u8>>,
}

/// Copies a slice out (the read the sanitizer checks).
pub(crate) fn copy(s: c::tokensieve_str) -> Option<Vec<u8>> {
    if s.ptr.is_null() {
        assert_eq!(s.len, 0, "a NULL slice with a length");
        return None;
    }
    // SAFETY: the ABI promises `len` readable bytes at a non-NULL `ptr` until the next call
    // on the parser; this is the claim under test (AddressSanitizer checks the read).
    Some(unsafe { std::slice::from_raw_parts(s.ptr.cast::<u8>(), s.len) }.to_vec())
}

impl CEvent {
    pub(crate) fn of(e: &c::tokensieve_event) -> CEvent {
        assert_eq!(e.reserved, 0, "reserved is not 0");
        CEvent {
            kind: e.kind,
            block_type: e.block_type,
            flags: e.flags,
            index: e.index,
            depth: e.depth,
            part: e.part,
            error_code: e.error_code,
            text: copy(e.text),
            tool_name: copy(e.tool_name),
            tool_id: copy(e.tool_id),
            content: copy(e.content),
            input: copy(e.input),
            error_reason: copy(e.error_reason),
            error_raw: copy(e.error_raw),
        }
    }

    /// The fields that rule 4 allows to differ between chunkings of the same stream: none
    /// but a chunk's text, which coalescing joins.
    fn chunk_key(&self) -> Option<ChunkKey<'_>> {
        (self.kind == 2).then_some((
            self.block_type,
            self.index,
            self.depth,
            self.part,
            &self.tool_name,
            &self.tool_id,
        ))
    }
}

/// Reads the records and byte area of one `*_next_batch` call back into events (the layout
/// of `tokensieve_record_bit` in the header), appending them to `out`; the whole byte area
/// must be accounted for.
pub(crate) fn read_records(recs: &[c::tokensieve_record], bytes: &[u8], out: &mut Vec<CEvent>) {
    const NAME: u32 = 1 << 12;
    const ID: u32 = 1 << 13;
    const EXT: u32 = 1 << 14;
    const STRINGS: u32 = 1 << 15;
    let word = |b: &[u8], at: usize| u32::from_ne_bytes(b[at..at + 4].try_into().unwrap());
    let mut at = 0;
    for r in recs {
        let mut take = |len: u32| {
            let s = bytes[at..at + len as usize].to_vec();
            at += len as usize;
            s
        };
        let (text, name, id, rest) = (
            take(r.text_len),
            take(r.name_len),
            take(r.id_len),
            take(r.rest_len),
        );
        let kind = r.head & 15;
        let mut e = CEvent {
            kind,
            block_type: (r.head >> 4) & 15,
            flags: (r.head >> 16) & 255,
            index: r.index,
            depth: r.head >> 24,
            part: (r.head >> 8) & 15,
            error_code: 0,
            text: (kind == 2 || kind == 4).then_some(text),
            tool_name: (r.head & NAME != 0).then_some(name),
            tool_id: (r.head & ID != 0).then_some(id),
            content: None,
            input: None,
            error_reason: None,
            error_raw: None,
        };
        let mut ra = 0;
        if r.head & EXT != 0 {
            e.depth = word(&rest, 4);
            e.error_code = word(&rest, 8);
            ra = if word(&rest, 20) != 0 { 64 } else { 24 };
        }
        if r.head & STRINGS != 0 {
            let mask = word(&rest, ra);
            ra += 4;
            assert_eq!(mask & 7, 0, "text, name and id are never in the table");
            let bits: Vec<usize> = (3..15).filter(|i| mask & (1 << i) != 0).collect();
            let mut lens = Vec::new();
            for _ in &bits {
                lens.push(word(&rest, ra) as usize);
                ra += 4;
            }
            for (bit, len) in bits.into_iter().zip(lens) {
                let s = Some(rest[ra..ra + len].to_vec());
                ra += len;
                match bit {
                    3 => e.content = s,
                    4 => e.input = s,
                    5 => e.error_reason = s,
                    6 => e.error_raw = s,
                    _ => {}
                }
            }
        }
        assert_eq!(ra, rest.len(), "a record's rest is read whole");
        out.push(e);
    }
    assert_eq!(at, bytes.len(), "the byte area is read whole");
}

/// Block type, index, depth, part, tool name, tool id.
type ChunkKey<'a> = (u32, u32, u32, u32, &'a Option<Vec<u8>>, &'a Option<Vec<u8>>);

/// Merges adjacent chunks whose fields other than the text are equal.
pub(crate) fn coalesce_c(events: &[CEvent]) -> Vec<CEvent> {
    let mut out: Vec<CEvent> = Vec::new();
    for ev in events {
        if let Some(last) = out.last_mut() {
            if last.chunk_key().is_some() && last.chunk_key() == ev.chunk_key() {
                let more = ev.text.clone().unwrap_or_default();
                last.text.get_or_insert_with(Vec::new).extend(more);
                continue;
            }
        }
        out.push(ev.clone());
    }
    out
}

/// An empty event to write into.
pub(crate) fn blank() -> c::tokensieve_event {
    // SAFETY: tokensieve_event is plain old data (integers and raw pointers): all zeroes is
    // a valid value.
    unsafe { std::mem::zeroed() }
}

pub(crate) fn part_code(p: Option<Part>) -> u32 {
    match p {
        None => 0,
        Some(Part::Name) => 1,
        Some(Part::Id) => 2,
        Some(Part::Input) => 3,
    }
}

pub(crate) fn block_code(t: BlockType) -> u32 {
    match t {
        BlockType::Text => 0,
        BlockType::Thinking => 1,
        BlockType::ToolCall => 2,
        BlockType::ToolResult => 3,
    }
}

/// A byte string of a record as text (lossy), for the comparisons with the core.
pub(crate) fn lossy(b: &Option<Vec<u8>>) -> Option<String> {
    b.as_ref().map(|b| String::from_utf8_lossy(b).into_owned())
}

/// The block a list of records has open: its index, its type, and the text of its chunks
/// that accumulation collects.
pub(crate) type Open = Option<(u32, u32, Vec<u8>)>;

/// Record `#i`'s strings are UTF-8: the parser's fields and `more` (the decoder's).
pub(crate) fn strings_utf8(i: usize, e: &CEvent, more: &[&Option<Vec<u8>>]) {
    for b in [
        &e.tool_name,
        &e.tool_id,
        &e.content,
        &e.input,
        &e.error_reason,
    ]
    .into_iter()
    .chain(more.iter().copied())
    .flatten()
    {
        assert!(
            std::str::from_utf8(b).is_ok(),
            "#{i}: a string is not UTF-8"
        );
    }
}

/// A chunk record: non-empty UTF-8 text of the open block; what accumulation collects (text,
/// thinking and result chunks, and the input part of a call) is added to it.
pub(crate) fn chunk(i: usize, e: &CEvent, open: &mut Open) {
    let text = e.text.as_deref().expect("a chunk without text");
    assert!(!text.is_empty(), "#{i}: empty chunk");
    assert!(std::str::from_utf8(text).is_ok(), "#{i}: chunk not UTF-8");
    let (index, ty, acc) = open.as_mut().expect("chunk outside a block");
    assert_eq!(
        (e.index, e.block_type),
        (*index, *ty),
        "#{i}: another block's chunk"
    );
    if e.part == 0 || e.part == 3 {
        acc.extend_from_slice(text);
    }
}

/// A block-complete record: it completes the open block (which it closes), `error_reason`
/// iff `error_code`. Returns the open block's chunk text and the accumulated field (`input`
/// for a call, else `content`) when the record may carry it; without `accumulate`, and on a
/// failed call, it must not (checked here, and `None` is returned).
pub(crate) fn complete<'e>(
    i: usize,
    e: &'e CEvent,
    open: &mut Open,
    accumulate: bool,
) -> Option<(Vec<u8>, Option<&'e [u8]>)> {
    let (index, ty, acc) = open.take().expect("completes an unopened block");
    assert_eq!(
        (e.index, e.block_type),
        (index, ty),
        "#{i}: completes another block"
    );
    let failed = e.error_code != 0;
    assert_eq!(
        failed,
        e.error_reason.is_some(),
        "#{i}: error_reason iff error_code"
    );
    let collected = if ty == 2 { &e.input } else { &e.content };
    if !accumulate || (ty == 2 && failed) {
        assert!(collected.is_none(), "#{i}: accumulated without accumulate");
        return None;
    }
    Some((acc, collected.as_deref()))
}

/// An accumulated `content`/`input` is its block's chunk text (a prefix of it when flagged
/// truncated).
pub(crate) fn accumulated(i: usize, e: &CEvent, got: &[u8], acc: &[u8]) {
    if e.flags & 8 != 0 {
        assert!(
            acc.starts_with(got),
            "#{i}: truncated content is not a prefix"
        );
    } else {
        assert_eq!(got, acc, "#{i}: content/input differs from the chunks");
    }
}
