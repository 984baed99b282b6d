//! Server-Sent Events (WHATWG "event stream" parsing, on bytes): each event's data is one
//! document (docs/design.md, "Provider streams", Framing).
//!
//! * One leading UTF-8 BOM is stripped; lines end at CR, LF or CRLF. A CR ends its line at
//!   once and the LF right after it, in this read or the next, is swallowed.
//! * Comment lines (`:` first) and `id:`, `retry:` and unknown fields are skipped as they
//!   stream by: no line is ever buffered.
//! * `data:` (one space after the colon optional): [`Framed::Begin`] before an event's first
//!   data value (an empty one included), the values as payload, [`Framed::Newline`] between
//!   two data lines, [`Framed::End`] at the blank line that dispatches the event.
//! * `data: [DONE]` as an event's first data value is [`Framed::Done`], not a document. The
//!   value counts as `[DONE]` when the six bytes are followed by the line end or a space or
//!   tab (what follows the whitespace is ignored); `[DONE]x` is an ordinary value. A read
//!   that ends inside the first six bytes of a value makes the framer hold them; if they
//!   turn out to be payload they come back as [`Framed::Held`].
//! * `event:` keeps the event's name (its first [`EVENT_NAME_CAP`] bytes): [`SseFramer::event_name`].
//! * A line outside any event (no field line since the last blank line) that starts with `{`
//!   or `[` after optional spaces or tabs is a bare JSON document (Vertex writes a
//!   pretty-printed `{"error":…}` after good events): Begin, that line (from its bracket)
//!   and every following line as payload joined by Newline, then End at a blank line, at a
//!   line that starts with `data:`, `event:` or `:`, or at the end of the body. A line that
//!   starts with a prefix of `data:` or `event:` when a read ends is held until it can be
//!   told apart, as for `[DONE]`.
//! * Any other line outside an event that is not a field — no colon and not a field name
//!   (`data` alone is a data line with an empty value, as WHATWG says) — is
//!   [`Fault::NotSse`], once per line, and skipped. Inside an event it is ignored, as are
//!   lines made only of spaces and tabs.
//! * At the end of the body an unfinished line is a whole line and an open event is
//!   dispatched (lenient: several SDK fixtures end without the last blank line).

#![forbid(unsafe_code)]

use memchr::{memchr2, memchr3};

use super::{Fault, Framed};

/// How many bytes of an `event:` name are kept.
pub(crate) const EVENT_NAME_CAP: usize = 64;
/// Field names longer than this are unknown (the known ones have at most 5 bytes).
const NAME_CAP: usize = 8;

const BOM: &[u8] = b"\xEF\xBB\xBF";
const DONE: &[u8] = b"[DONE]";
const CR: u8 = b'\r';
const LF: u8 = b'\n';

/// Where the bytes the framer holds come from: they are always a prefix of one of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hold {
    /// A data value that may be `[DONE]`.
    Done,
    /// A bare document's line that may start a `data:` field.
    Data,
    /// A bare document's line that may start an `event:` field.
    Event,
}

impl Hold {
    const fn source(self) -> &'static [u8] {
        match self {
            Hold::Done => DONE,
            Hold::Data => b"data:",
            Hold::Event => b"event:",
        }
    }
}

/// The value after a field name's colon that the framer reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    Data,
    Event,
}

/// A field line's name, classified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Data,
    Event,
    /// `id`, `retry`: fields this framer has no use for.
    Ignored,
    Unknown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    /// Body start: this many bytes of the BOM matched.
    Bom(u8),
    /// At the start of a line.
    LineStart,
    /// In a field name (`name`, `name_len`, `name_ws`).
    Name,
    /// In a name too long to be known: looking for its colon or the line end.
    LongName,
    /// After `data:` or `event:`: one optional space.
    Space(Value),
    /// The first bytes of an event's first data value: `[DONE]` or not (`held`).
    DoneMatch,
    /// A data value: payload up to the line end.
    Data,
    /// An `event:` value up to the line end.
    EventName,
    /// Up to the line end, ignored.
    Skip,
    /// A bare JSON document, at a line start: held bytes (a prefix of `data:`/`event:`)
    /// decide whether the line ends the document.
    BareStart,
    /// A bare JSON document's line: payload up to the line end.
    BareLine,
    Finished,
}

/// The SSE framer (see the module docs). Fixed size, no heap.
#[derive(Clone, Debug)]
pub(crate) struct SseFramer {
    st: St,
    /// Payload bytes already scanned and reported, not yet consumed.
    known: usize,
    /// The current field name's first bytes, and its length (saturating).
    name: [u8; NAME_CAP],
    name_len: u16,
    /// The current event's name.
    event: [u8; EVENT_NAME_CAP],
    event_len: u8,
    event_truncated: bool,
    /// Held payload bytes: `held_src.source()[..held_len]`.
    held_src: Hold,
    held_len: u8,
    /// The name read so far is only spaces and tabs.
    name_ws: bool,
    /// A field line came since the last blank line.
    in_event: bool,
    /// A document (data or bare JSON) is open.
    doc: bool,
    /// A data line of the open document ended: the next one starts with a Newline.
    newline_pending: bool,
    /// A CR ended the last line: an LF next is part of that line end.
    skip_lf: bool,
    /// The event ended: its name is cleared when the next line starts.
    name_stale: bool,
}

impl Default for SseFramer {
    fn default() -> Self {
        Self::new()
    }
}

impl SseFramer {
    pub(crate) const fn new() -> Self {
        SseFramer {
            st: St::Bom(0),
            known: 0,
            name: [0; NAME_CAP],
            name_len: 0,
            event: [0; EVENT_NAME_CAP],
            event_len: 0,
            event_truncated: false,
            held_src: Hold::Done,
            held_len: 0,
            name_ws: true,
            in_event: false,
            doc: false,
            newline_pending: false,
            skip_lf: false,
            name_stale: false,
        }
    }

    pub(crate) fn reset(&mut self) {
        *self = Self::new();
    }

    /// The name of the current event (`event:`, its first [`EVENT_NAME_CAP`] bytes; empty
    /// when it has none): valid from the event's first line until the next event starts, so
    /// it can be read at Begin and again at End (an `event:` line may follow `data:` lines).
    pub(crate) fn event_name(&self) -> &[u8] {
        &self.event[..usize::from(self.event_len)]
    }

    /// The event's name was longer than [`EVENT_NAME_CAP`] bytes.
    pub(crate) fn event_name_truncated(&self) -> bool {
        self.event_truncated
    }

    /// The payload bytes a [`Framed::Held`] stands for; they are consumed by this call.
    pub(crate) fn held(&mut self) -> &'static [u8] {
        let src = self.held_src.source();
        let n = usize::from(self.held_len).min(src.len());
        self.held_len = 0;
        &src[..n]
    }

    /// Looks at the front of `input`; consumes framing bytes itself, never payload bytes.
    pub(crate) fn next(&mut self, input: &mut &[u8]) -> Framed {
        self.step(input, false)
    }

    /// The caller used the first `k ≤ n` bytes of a `Payload(n)` (it advances its input itself).
    pub(crate) fn consumed(&mut self, payload: &[u8]) {
        self.known = self.known.saturating_sub(payload.len());
    }

    /// The body ended. Call repeatedly until `Finished` (an unfinished line and an open event
    /// are dispatched first).
    pub(crate) fn finish(&mut self) -> Framed {
        self.step(&mut &[][..], true)
    }

    /// One pull. At `eof` the end of the input is the end of the body: it ends the line.
    fn step(&mut self, input: &mut &[u8], eof: bool) -> Framed {
        loop {
            if self.skip_lf {
                if let Some(&b) = input.first() {
                    self.skip_lf = false;
                    if b == LF {
                        advance(input, 1);
                    }
                } else if eof {
                    self.skip_lf = false;
                }
            }
            match self.st {
                St::Finished => return Framed::Finished,
                St::Bom(n) => {
                    let n = usize::from(n);
                    match input.first() {
                        Some(&b) if Some(&b) == BOM.get(n) => {
                            advance(input, 1);
                            self.st = if n + 1 == BOM.len() {
                                St::LineStart
                            } else {
                                St::Bom(n as u8 + 1)
                            };
                        }
                        None if !eof => return Framed::NeedMore,
                        _ if n == 0 => self.st = St::LineStart,
                        _ => {
                            // Not a BOM after all: its bytes begin the first line's name
                            // (which cannot be a known field or a JSON document).
                            self.name[..n].copy_from_slice(&BOM[..n]);
                            self.name_len = n as u16;
                            self.name_ws = false;
                            self.st = St::Name;
                        }
                    }
                }
                St::LineStart => {
                    let Some(&b) = input.first() else {
                        if !eof {
                            return Framed::NeedMore;
                        }
                        self.st = St::Finished;
                        if self.doc {
                            // Lenient: the last event is dispatched without its blank line.
                            self.end_event();
                            return Framed::End;
                        }
                        return Framed::Finished;
                    };
                    if b == CR || b == LF {
                        self.eat_line_end(input);
                        let had_doc = self.doc;
                        self.end_event();
                        if had_doc {
                            return Framed::End;
                        }
                        continue;
                    }
                    if self.name_stale {
                        self.clear_event_name();
                    }
                    if b == b':' {
                        self.st = St::Skip;
                        continue;
                    }
                    self.name_len = 0;
                    self.name_ws = true;
                    self.st = St::Name;
                }
                St::Name => loop {
                    let Some(&b) = input.first() else {
                        if !eof {
                            return Framed::NeedMore;
                        }
                        if let Some(fault) = self.line_without_colon() {
                            return fault;
                        }
                        break;
                    };
                    match b {
                        b':' => {
                            advance(input, 1);
                            self.after_colon();
                            break;
                        }
                        CR | LF => {
                            if let Some(fault) = self.line_without_colon() {
                                return fault;
                            }
                            break;
                        }
                        b'{' | b'[' if self.name_ws && !self.in_event => {
                            // A bare JSON document; the spaces before its bracket are framing.
                            self.doc = true;
                            self.newline_pending = false;
                            self.held_len = 0;
                            self.st = St::BareLine;
                            return Framed::Begin;
                        }
                        _ => {
                            advance(input, 1);
                            if b != b' ' && b != b'\t' {
                                self.name_ws = false;
                            }
                            if let Some(slot) = self.name.get_mut(usize::from(self.name_len)) {
                                *slot = b;
                            }
                            self.name_len = self.name_len.saturating_add(1);
                            // Leading spaces before a bare document's bracket may run long.
                            let may_be_doc = self.name_ws && !self.in_event;
                            if usize::from(self.name_len) > NAME_CAP && !may_be_doc {
                                self.st = St::LongName;
                                break;
                            }
                        }
                    }
                },
                St::LongName => match memchr3(b':', CR, LF, input) {
                    Some(at) => {
                        advance(input, at);
                        if input.first() == Some(&b':') {
                            advance(input, 1);
                            self.in_event = true;
                            self.st = St::Skip;
                        } else if let Some(fault) = self.line_without_colon() {
                            return fault;
                        }
                    }
                    None => {
                        advance(input, input.len());
                        if !eof {
                            return Framed::NeedMore;
                        }
                        if let Some(fault) = self.line_without_colon() {
                            return fault;
                        }
                    }
                },
                St::Space(value) => {
                    match input.first() {
                        Some(b' ') => advance(input, 1),
                        None if !eof => return Framed::NeedMore,
                        _ => {}
                    }
                    match value {
                        Value::Data => self.data_start(),
                        Value::Event => self.st = St::EventName,
                    }
                }
                St::DoneMatch => return self.done_match(input, eof),
                St::Data | St::BareLine => {
                    if self.newline_pending {
                        self.newline_pending = false;
                        return Framed::Newline;
                    }
                    if self.held_len > 0 {
                        return Framed::Held;
                    }
                    if eof {
                        // The caller stopped short of what it was shown.
                        self.known = 0;
                    } else if self.known > 0 {
                        // Known to hold no line end: not scanned again.
                        let n = self.known.min(input.len());
                        if n > 0 {
                            return Framed::Payload(n);
                        }
                        self.known = 0;
                    }
                    match memchr2(CR, LF, input) {
                        Some(0) => self.eat_line_end(input),
                        Some(n) => {
                            self.known = n;
                            return Framed::Payload(n);
                        }
                        None if !input.is_empty() => {
                            self.known = input.len();
                            return Framed::Payload(input.len());
                        }
                        None if !eof => return Framed::NeedMore,
                        None => {}
                    }
                    // The line ended.
                    self.newline_pending = true;
                    self.st = if self.st == St::Data {
                        St::LineStart
                    } else {
                        St::BareStart
                    };
                }
                St::EventName => {
                    let end = memchr2(CR, LF, input);
                    let n = end.unwrap_or(input.len());
                    self.keep_event_name(&input[..n]);
                    advance(input, n);
                    if end.is_some() {
                        self.eat_line_end(input);
                    } else if !eof {
                        return Framed::NeedMore;
                    }
                    self.st = St::LineStart;
                }
                St::Skip => match memchr2(CR, LF, input) {
                    Some(at) => {
                        advance(input, at);
                        self.eat_line_end(input);
                        self.st = St::LineStart;
                    }
                    None => {
                        advance(input, input.len());
                        if !eof {
                            return Framed::NeedMore;
                        }
                        self.st = St::LineStart;
                    }
                },
                St::BareStart => {
                    if let Some(item) = self.bare_start(input, eof) {
                        return item;
                    }
                }
            }
        }
    }

    /// `[DONE]` or not: compares the held bytes and then the input with `[DONE]` followed by
    /// whitespace or the line end.
    fn done_match(&mut self, input: &mut &[u8], eof: bool) -> Framed {
        let have = usize::from(self.held_len);
        let mut i = 0;
        let done = loop {
            let at = have + i;
            match input.get(i) {
                None if !eof => {
                    // The read ended before the value showed what it is: hold its bytes (a
                    // prefix of `[DONE]`, at most 6).
                    self.held_len = at as u8;
                    advance(input, i);
                    return Framed::NeedMore;
                }
                None => break at == DONE.len(),
                Some(&b) => match DONE.get(at) {
                    Some(&want) if b == want => i += 1,
                    Some(_) => break false,
                    None => break matches!(b, b' ' | b'\t' | CR | LF),
                },
            }
        };
        if done {
            advance(input, i);
            self.held_len = 0;
            self.st = St::Skip;
            return Framed::Done;
        }
        // An ordinary value: the held bytes (if any) come out as Held, then the input.
        self.doc = true;
        self.st = St::Data;
        Framed::Begin
    }

    /// At the start of a bare JSON document's line: does the line end the document? Returns
    /// what to report, or `None` to carry on in the new state.
    fn bare_start(&mut self, input: &mut &[u8], eof: bool) -> Option<Framed> {
        let have = usize::from(self.held_len);
        if have == 0 {
            match input.first() {
                None if !eof => return Some(Framed::NeedMore),
                None => {
                    self.end_event();
                    self.st = St::LineStart;
                    return Some(Framed::End);
                }
                Some(&(CR | LF)) => {
                    self.eat_line_end(input);
                    self.end_event();
                    self.st = St::LineStart;
                    return Some(Framed::End);
                }
                Some(b':') => {
                    self.end_event();
                    self.st = St::LineStart;
                    return Some(Framed::End);
                }
                Some(b'd') => self.held_src = Hold::Data,
                Some(b'e') => self.held_src = Hold::Event,
                Some(_) => {
                    self.st = St::BareLine;
                    return None;
                }
            }
        }
        let field = self.held_src.source();
        let mut i = 0;
        loop {
            let at = have + i;
            if at == field.len() {
                // The line is a `data:` or `event:` field: the document ended before it.
                self.end_event();
                if have == 0 {
                    self.st = St::LineStart;
                } else {
                    // Part of the name is held, not in the input: the name resumes with it.
                    self.clear_event_name();
                    self.name[..have].copy_from_slice(&field[..have]);
                    self.name_len = have as u16;
                    self.name_ws = false;
                    self.held_len = 0;
                    self.st = St::Name;
                }
                return Some(Framed::End);
            }
            match input.get(i) {
                None if !eof => {
                    self.held_len = at as u8;
                    advance(input, i);
                    return Some(Framed::NeedMore);
                }
                Some(&b) if Some(&b) == field.get(at) => i += 1,
                _ => {
                    // A payload line: Newline, the held bytes, then the input.
                    self.st = St::BareLine;
                    return None;
                }
            }
        }
    }

    /// After a field name's colon.
    fn after_colon(&mut self) {
        self.in_event = true;
        self.st = match self.field() {
            Field::Data => St::Space(Value::Data),
            Field::Event => {
                self.clear_event_name();
                St::Space(Value::Event)
            }
            Field::Ignored | Field::Unknown => St::Skip,
        };
    }

    /// A line without a colon ends here (its line end not consumed): WHATWG reads it as a
    /// field with an empty value; a name that is no field is not SSE.
    fn line_without_colon(&mut self) -> Option<Framed> {
        self.st = St::Skip;
        match self.field() {
            Field::Data => {
                self.in_event = true;
                self.data_start();
            }
            Field::Event => {
                self.in_event = true;
                self.clear_event_name();
            }
            Field::Ignored => self.in_event = true,
            Field::Unknown if self.name_ws || self.in_event => {}
            Field::Unknown => return Some(Framed::Fault(Fault::NotSse)),
        }
        None
    }

    fn field(&self) -> Field {
        let n = usize::from(self.name_len);
        if n > NAME_CAP {
            return Field::Unknown;
        }
        match &self.name[..n] {
            b"data" => Field::Data,
            b"event" => Field::Event,
            b"id" | b"retry" => Field::Ignored,
            _ => Field::Unknown,
        }
    }

    /// A data value starts: the event's first one may be `[DONE]`.
    fn data_start(&mut self) {
        self.held_src = Hold::Done;
        self.held_len = 0;
        self.st = if self.doc { St::Data } else { St::DoneMatch };
    }

    fn keep_event_name(&mut self, bytes: &[u8]) {
        let at = usize::from(self.event_len);
        let room = EVENT_NAME_CAP - at;
        let n = bytes.len().min(room);
        self.event[at..at + n].copy_from_slice(&bytes[..n]);
        self.event_len = (at + n) as u8;
        if bytes.len() > room {
            self.event_truncated = true;
        }
    }

    fn clear_event_name(&mut self) {
        self.event_len = 0;
        self.event_truncated = false;
        self.name_stale = false;
    }

    /// The event (or bare document) ended; its name stays readable until the next line.
    fn end_event(&mut self) {
        self.doc = false;
        self.newline_pending = false;
        self.in_event = false;
        self.name_stale = true;
    }

    /// Consumes the CR or LF at the front.
    fn eat_line_end(&mut self, input: &mut &[u8]) {
        if input.first() == Some(&CR) {
            self.skip_lf = true;
        }
        advance(input, 1);
    }
}

fn advance(input: &mut &[u8], n: usize) {
    *input = input.get(n..).unwrap_or(&[]);
}

#[cfg(test)]
mod tests {
    use super::super::testing::{Framer, Out, count, every_split, run};
    use super::*;

    impl Framer for SseFramer {
        fn next(&mut self, input: &mut &[u8]) -> Framed {
            SseFramer::next(self, input)
        }
        fn consumed(&mut self, payload: &[u8]) {
            SseFramer::consumed(self, payload)
        }
        fn finish(&mut self) -> Framed {
            SseFramer::finish(self)
        }
        fn held(&mut self) -> &'static [u8] {
            SseFramer::held(self)
        }
        fn name(&self) -> &[u8] {
            self.event_name()
        }
    }

    /// The normalised result of `body`, checked to be the same at every split.
    fn sse(body: &[u8]) -> Out {
        every_split(SseFramer::new, body)
    }

    fn chunks(reads: &[&[u8]]) -> Out {
        let all = run(&mut SseFramer::new(), reads.iter().copied(), usize::MAX);
        let one = run(&mut SseFramer::new(), reads.iter().copied(), 1);
        assert_eq!(all, one);
        all
    }

    #[test]
    fn state_is_small() {
        assert!(core::mem::size_of::<SseFramer>() <= 128);
    }

    #[test]
    fn events_become_documents() {
        assert_eq!(sse(b"data: {\"a\":1}\n\n"), "«{\"a\":1}»");
        assert_eq!(sse(b"data:{}\n\ndata: []\n\n"), "«{}»«[]»");
        // Only one space is framing.
        assert_eq!(sse(b"data:  x\n\n"), "« x»");
        assert_eq!(sse(b"data:x \n\n"), "«x »");
    }

    #[test]
    fn line_ends_are_cr_lf_or_crlf() {
        let want = "«a\nb»«c»";
        assert_eq!(sse(b"data: a\ndata: b\n\ndata: c\n\n"), want);
        assert_eq!(sse(b"data: a\rdata: b\r\rdata: c\r\r"), want);
        assert_eq!(sse(b"data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n"), want);
        assert_eq!(sse(b"data: a\r\ndata: b\n\rdata: c\r\n\n"), want);
        // A CR ending a read: the LF starting the next is the same line end, not a blank line.
        assert_eq!(
            chunks(&[b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]),
            "«a\nb»"
        );
        assert_eq!(chunks(&[b"data: a\r", b"\r"]), "«a»");
    }

    #[test]
    fn one_leading_bom_is_stripped() {
        assert_eq!(sse(b"\xEF\xBB\xBFdata: x\n\n"), "«x»");
        assert_eq!(chunks(&[b"\xEF", b"\xBB", b"\xBF", b"data: x\n\n"]), "«x»");
        assert_eq!(chunks(&[b"\xEF\xBB", b"\xBFdata: x\n\n"]), "«x»");
        // Only one, and only at the start: a second one is part of a field name.
        assert_eq!(sse(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: x\n\n"), "");
        assert_eq!(sse(b"\xEF\xBB\xBF\xEF\xBB\xBFdata\n\n"), "⟪not-sse⟫");
        assert_eq!(sse(b"data: \xEF\xBB\xBFx\n\n"), "«\u{FEFF}x»");
        // A broken BOM begins the first line's name: not a field.
        assert_eq!(sse(b"\xEF\xBBdata: x\n\ndata: y\n\n"), "«y»");
        assert_eq!(sse(b"\xEF\xBB\n\ndata: y\n\n"), "⟪not-sse⟫«y»");
        assert_eq!(sse(b"\xEF"), "⟪not-sse⟫");
        assert_eq!(sse(b""), "");
    }

    #[test]
    fn comments_and_other_fields_are_skipped() {
        let body = b": ping\nid: 7\nretry: 100\ndata: x\nfoo: bar\n: mid\ndata: y\n\n: bye\n";
        assert_eq!(sse(body), "«x\ny»");
        // A field name of any length, with or without a value.
        assert_eq!(
            sse(b"data: x\nextraordinarily_long_name: v\nid\nretry\n\n"),
            "«x»"
        );
        assert_eq!(sse(b"id\n\nunknown_field_name: 1\n\n"), "");
        assert_eq!(sse(b":\n\n"), "");
    }

    #[test]
    fn data_lines_join_with_newline() {
        assert_eq!(sse(b"data: {\"a\":\ndata: 1}\n\n"), "«{\"a\":\n1}»");
        // Empty data lines count (WHATWG: the value then LF each).
        assert_eq!(sse(b"data\ndata\n\n"), "«\n»");
        assert_eq!(sse(b"data: a\ndata:\ndata: b\n\n"), "«a\n\nb»");
        assert_eq!(sse(b"data: a\ndata\n\n"), "«a\n»");
        // Other lines between data lines do not break the document.
        assert_eq!(sse(b"data: a\n: c\nevent: e\ndata: b\n\n"), "«a\nb|e»");
    }

    #[test]
    fn an_empty_data_line_begins_a_document() {
        assert_eq!(sse(b"data:\n\n"), "«»");
        assert_eq!(sse(b"data\n\n"), "«»");
        assert_eq!(sse(b"data: \n\n"), "«»");
        // A blank line alone, or an event without data, dispatches nothing.
        assert_eq!(sse(b"\n\n\nevent: x\n\nid: 1\n\n"), "");
    }

    #[test]
    fn done_is_the_end_marker() {
        assert_eq!(sse(b"data: [DONE]\n\n"), "‡");
        assert_eq!(sse(b"data:[DONE]\r\n\r\n"), "‡");
        assert_eq!(sse(b"data: [DONE]  \n\n"), "‡");
        assert_eq!(sse(b"data: [DONE]\t\n\n"), "‡");
        assert_eq!(sse(b"data: [DONE]"), "‡");
        assert_eq!(sse(b"data: x\n\ndata: [DONE]\n\n: after\n"), "«x»‡");
        // Not the marker: ordinary values, held bytes included.
        assert_eq!(sse(b"data: [DONE]x\n\n"), "«[DONE]x»");
        assert_eq!(sse(b"data: [DONE\n\n"), "«[DONE»");
        assert_eq!(sse(b"data: [DON"), "«[DON»");
        assert_eq!(sse(b"data: [1,2]\n\n"), "«[1,2]»");
        assert_eq!(sse(b"data: [\n\n"), "«[»");
        assert_eq!(sse(b"data:  [DONE]\n\n"), "« [DONE]»");
        assert_eq!(sse(b"data: [done]\n\n"), "«[done]»");
        // Only as an event's first data value.
        assert_eq!(sse(b"data: a\ndata: [DONE]\n\n"), "«a\n[DONE]»");
        assert_eq!(sse(b"data: [DONE]\ndata: a\n\n"), "‡«a»");
    }

    #[test]
    fn done_split_at_every_position_holds_at_most_six_bytes() {
        for body in [
            &b"data: [DONE]\n\n"[..],
            b"data: [DONE]x\n\n",
            b"data: [DONE",
            b"data: [DON]\n\ndata: [DONE] \n\n",
        ] {
            sse(body);
        }
        // The held bytes come back as Held, before the rest of the line.
        let mut f = SseFramer::new();
        let mut input = &b"data: [DO"[..];
        assert_eq!(f.next(&mut input), Framed::NeedMore);
        let mut input = &b"NX\n"[..];
        assert_eq!(f.next(&mut input), Framed::Begin);
        assert_eq!(f.next(&mut input), Framed::Held);
        assert_eq!(f.held(), b"[DO");
        assert_eq!(f.next(&mut input), Framed::Payload(2));
    }

    #[test]
    fn event_names_are_kept_per_event() {
        let body = b"event: error\ndata: {\"e\":1}\n\ndata: {}\n\nevent:ping\n\n";
        assert_eq!(sse(body), "«error|{\"e\":1}|error»«{}»");
        // Known at End when the event: line comes after the data.
        assert_eq!(sse(b"data: x\nevent: late\n\n"), "«x|late»");
        // The last one wins; `event` alone clears it.
        assert_eq!(sse(b"event: a\nevent: b\ndata: x\n\n"), "«b|x|b»");
        assert_eq!(sse(b"event: a\nevent\ndata: x\n\n"), "«x»");
        // Readable right after End, cleared when the next event starts.
        let mut f = SseFramer::new();
        let mut input = &b"event: e\ndata: x\n\n"[..];
        assert_eq!(f.next(&mut input), Framed::Begin);
        assert_eq!(f.event_name(), b"e");
        assert_eq!(f.next(&mut input), Framed::Payload(1));
        f.consumed(b"x");
        input = &input[1..];
        assert_eq!(f.next(&mut input), Framed::End);
        assert_eq!(f.event_name(), b"e");
        assert_eq!(f.next(&mut input), Framed::NeedMore);
        assert_eq!(f.event_name(), b"e");
        let mut input = &b"data: y\n\n"[..];
        assert_eq!(f.next(&mut input), Framed::Begin);
        assert_eq!(f.event_name(), b"");
    }

    #[test]
    fn long_event_names_are_truncated() {
        let mut body = [b'n'; 100 + 20];
        body[..7].copy_from_slice(b"event: ");
        body[107..].copy_from_slice(b"\ndata: x\n\n\n\n\n");
        let out = sse(&body);
        assert_eq!(&out.bytes()[..2], "«".as_bytes());
        let mut f = SseFramer::new();
        let mut input = &body[..];
        assert_eq!(f.next(&mut input), Framed::Begin);
        assert_eq!(f.event_name(), &[b'n'; EVENT_NAME_CAP][..]);
        assert!(f.event_name_truncated());
        let mut input = &b"event: short\ndata: x\n"[..];
        let mut f = SseFramer::new();
        assert_eq!(f.next(&mut input), Framed::Begin);
        assert!(!f.event_name_truncated());
    }

    #[test]
    fn a_bare_json_document_outside_events_is_framed() {
        // Vertex: a pretty-printed error after good events.
        let body = b"data: {\"a\":1}\n\n{\n  \"error\": {\n    \"code\": 429\n  }\n}\n";
        assert_eq!(
            sse(body),
            "«{\"a\":1}»«{\n  \"error\": {\n    \"code\": 429\n  }\n}»"
        );
        // Leading spaces before the bracket are framing; `[` too.
        assert_eq!(sse(b"  [{\"error\":1}]\n\n"), "«[{\"error\":1}]»");
        // It ends at a blank line, at data:, event: or a comment, or at the end.
        assert_eq!(sse(b"{\"e\":1}\n\ndata: x\n\n"), "«{\"e\":1}»«x»");
        assert_eq!(sse(b"{\"e\":\n1}\ndata: x\n\n"), "«{\"e\":\n1}»«x»");
        assert_eq!(
            sse(b"{\"e\":1}\nevent: e\ndata: x\n\n"),
            "«{\"e\":1}»«e|x|e»"
        );
        assert_eq!(sse(b"{\"e\":1}\n: c\ndata: x\n\n"), "«{\"e\":1}»«x»");
        assert_eq!(sse(b"{\"e\":1}"), "«{\"e\":1}»");
        // Lines that only start like a field are payload.
        assert_eq!(
            sse(b"{\n\"d\":1,\nda\ndat\ndata\ne\nevent\n}\n\n"),
            "«{\n\"d\":1,\nda\ndat\ndata\ne\nevent\n}»"
        );
        assert_eq!(sse(b"[\nd"), "«[\nd»");
        assert_eq!(sse(b"[\ndata"), "«[\ndata»");
        assert_eq!(sse(b"[\ndata:"), "«[»«»");
        // Inside an event a `{` line is not a document: an ignored line.
        assert_eq!(sse(b"data: x\n{\"e\":1}\n\n"), "«x»");
        assert_eq!(sse(b"id: 1\n{\"e\":1}\n\n"), "");
    }

    #[test]
    fn the_held_start_of_a_bare_line_is_payload_or_a_field() {
        let mut f = SseFramer::new();
        assert_eq!(
            run(&mut f, [&b"{\nda"[..], b"ta: x\n\n"], usize::MAX),
            "«{»«x»"
        );
        let mut f = SseFramer::new();
        assert_eq!(
            run(&mut f, [&b"{\neve"[..], b"n\n}"], usize::MAX),
            "«{\neven\n}»"
        );
        let mut f = SseFramer::new();
        let mut input = &b"{\neve"[..];
        assert_eq!(f.next(&mut input), Framed::Begin);
        assert_eq!(f.next(&mut input), Framed::Payload(1));
        f.consumed(b"{");
        input = &input[1..];
        assert_eq!(f.next(&mut input), Framed::NeedMore);
        let mut input = &b"x"[..];
        assert_eq!(f.next(&mut input), Framed::Newline);
        assert_eq!(f.next(&mut input), Framed::Held);
        assert_eq!(f.held(), b"eve");
        assert_eq!(f.next(&mut input), Framed::Payload(1));
    }

    #[test]
    fn other_lines_outside_events_are_not_sse() {
        assert_eq!(sse(b"garbage\ndata: x\n\n"), "⟪not-sse⟫«x»");
        assert_eq!(sse(b"garbage\r\nmore\r\n\r\n"), "⟪not-sse⟫⟪not-sse⟫");
        assert_eq!(sse(b"a_very_long_line_that_is_not_a_field\n"), "⟪not-sse⟫");
        assert_eq!(sse(b"a_very_long_line_that_is_not_a_field"), "⟪not-sse⟫");
        assert_eq!(sse(b"<html>"), "⟪not-sse⟫");
        // A line with a colon is a field (unknown, ignored); spaces alone are ignored.
        assert_eq!(sse(b"<html lang=\"x:y\">\n"), "");
        assert_eq!(sse(b"   \n\t\n"), "");
        // Inside an event such lines are ignored.
        assert_eq!(sse(b"data: x\ngarbage\n\n"), "«x»");
    }

    #[test]
    fn an_open_event_is_dispatched_at_the_end() {
        assert_eq!(sse(b"data: x\n"), "«x»");
        assert_eq!(sse(b"data: x"), "«x»");
        assert_eq!(sse(b"data: x\r"), "«x»");
        assert_eq!(sse(b"data: x\ndata: y"), "«x\ny»");
        assert_eq!(sse(b"data"), "«»");
        assert_eq!(sse(b"event: e\ndata: x"), "«e|x|e»");
        assert_eq!(sse(b"data: x\n\n: tail"), "«x»");
    }

    #[test]
    fn partly_consumed_payload_is_not_rescanned_and_may_be_abandoned() {
        let mut f = SseFramer::new();
        let mut input = &b"data: abcdef"[..];
        assert_eq!(f.next(&mut input), Framed::Begin);
        assert_eq!(f.next(&mut input), Framed::Payload(6));
        f.consumed(&input[..2]);
        input = &input[2..];
        assert_eq!(f.next(&mut input), Framed::Payload(4));
        assert_eq!(f.known, 4);
        // The caller stops: the event is still dispatched.
        assert_eq!(f.finish(), Framed::End);
        assert_eq!(f.finish(), Framed::Finished);
        f.reset();
        let mut input = &b"data: x\n\n"[..];
        assert_eq!(f.next(&mut input), Framed::Begin);
    }

    #[test]
    fn tricky_bodies_at_every_split() {
        for body in [
            &b"\xEF\xBB\xBF: c\r\nevent: error\r\ndata:{\"a\":\r\ndata: 1}\r\n\r\ndata: [DONE]\r\n\r\n"[..],
            b"data: [DONE]\r\r\rdata:[DONE\r\r",
            b"data: x\r\n\r\n{\r\n \"error\": [1]\r\n}\r\ndata: y\r\r",
            b"garbage\rid\r\ndata\n\n  {\"e\"}\ndat\nevent\n\n",
            b"\xEF\xBB\xBF{\n}\n\xEF\xBB\n",
            b"event: 0123456789012345678901234567890123456789012345678901234567890123456789\ndata: z\n",
        ] {
            sse(body);
        }
    }

    #[test]
    fn long_comments_and_lines_stream_in_linear_time() {
        let mut comments = [b'c'; 4096];
        comments[0] = b':';
        comments[2047] = b'\n';
        comments[2048] = b':';
        comments[4095] = b'\n';
        let (payload, items) = count(&mut SseFramer::new(), b"", &comments, 256, b"data: x\n\n");
        assert_eq!((payload, items), (1, 2));
        // A 1 MiB comment line.
        let (payload, items) = count(&mut SseFramer::new(), b":", &[b'c'; 4096], 256, b"\n");
        assert_eq!((payload, items), (0, 0));
        // A 20 MiB data line in 4 KiB reads.
        let reads = 20 * 256;
        let (payload, items) = count(
            &mut SseFramer::new(),
            b"data: ",
            &[b'x'; 4096],
            reads,
            b"\n\n",
        );
        assert_eq!((payload, items), (reads * 4096, 2));
    }

    #[cfg(feature = "std")]
    mod props {
        use super::super::super::testing::same_at_any_cut;
        use super::*;
        use proptest::prelude::*;
        use std::vec::Vec;

        const ATOMS: &[&[u8]] = &[
            b"data: {\"a\":1}",
            b"data:x",
            b"data:",
            b"data",
            b"data: [DONE]",
            b"data: [DONE] ",
            b"data: [DONE]x",
            b"data: [DON",
            b"data: [",
            b"event: error",
            b"event:",
            b"event",
            b": keep-alive",
            b":",
            b"id: 5",
            b"retry: 10",
            b"garbage",
            b"{\"error\":1}",
            b"  [1,",
            b"  \"x\": 2",
            b"}",
            b"da",
            b"eve",
            b"long_field_name_here: v",
            b"\xEF\xBB\xBF",
            b"\n",
            b"\n",
            b"\r\n",
            b"\r",
            b"",
        ];

        fn body() -> impl Strategy<Value = Vec<u8>> {
            prop::collection::vec(prop::sample::select(ATOMS), 0..40).prop_map(|v| v.concat())
        }

        /// Bytes from SSE's own alphabet, for bodies no atom list thinks of.
        fn soup() -> impl Strategy<Value = Vec<u8>> {
            let alphabet = b"data:event[DONE] \t\r\n{}:x\xEF\xBB\xBF";
            prop::collection::vec(prop::sample::select(&alphabet[..]), 0..200)
        }

        fn cuts() -> impl Strategy<Value = Vec<usize>> {
            prop::collection::vec(0usize..400, 0..10)
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

            #[test]
            fn chunking_never_matters(body in body(), cuts in cuts(), step in 1usize..4) {
                same_at_any_cut(SseFramer::new, &body, &cuts, step);
                let whole = run(&mut SseFramer::new(), [&body[..]], usize::MAX);
                let bytes = run(&mut SseFramer::new(), body.chunks(1), usize::MAX);
                prop_assert_eq!(whole, bytes);
            }

            #[test]
            fn any_bytes_frame_the_same_at_any_cut(body in soup(), cuts in cuts(), step in 1usize..4) {
                same_at_any_cut(SseFramer::new, &body, &cuts, step);
            }
        }
    }
}
