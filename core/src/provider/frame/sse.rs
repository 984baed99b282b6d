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

    /// The name of the current event (`event:`, its first [`EVENT_NAME_CAP`] bytes; empty
    /// when it has none): valid from the event's first line until the next event starts, so
    /// it can be read at Begin and again at End (an `event:` line may follow `data:` lines).
    pub(crate) fn event_name(&self) -> &[u8] {
        &self.event[..usize::from(self.event_len)]
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
                    // `data:` and `event:` read at once (what `Name` does byte by byte).
                    let known: Option<&[u8]> = if input.starts_with(b"data:") {
                        Some(b"data")
                    } else if input.starts_with(b"event:") {
                        Some(b"event")
                    } else {
                        None
                    };
                    if let Some(name) = known {
                        self.name[..name.len()].copy_from_slice(name);
                        self.name_len = name.len() as u16;
                        self.name_ws = false;
                        advance(input, name.len() + 1);
                        self.after_colon();
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
        if bytes.len() > room {}
    }

    fn clear_event_name(&mut self) {
        self.event_len = 0;
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
mod tests;
