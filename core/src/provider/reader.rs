//! Reading one stream of JSON documents: the lexer, the path of the current token, what the
//! current string is for, captured values; and where text goes that is not handed out
//! straight from the input.

use super::*;

/// A value being captured: how, the depth it started at, and its renderer.
#[derive(Clone, Copy, Debug)]
pub(super) struct Captured {
    pub(super) kind: Capture,
    pub(super) depth: u32,
    pub(super) writer: Writer,
    /// `InitialArgs`: the value's `{` waits for the next token (an empty object is nothing).
    pub(super) deferred: bool,
}

/// Where the reader is in the current document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DocState {
    /// No document open.
    Between,
    /// Reading a document.
    Open,
    /// The document's JSON failed or completed; its remaining bytes are skipped.
    Skip,
}

/// The JSON-reading state of one stream of documents: the lexer, the token's path, what the
/// current string is for, a number's digits, a value being captured. The decoder has one
/// for the body's documents and, for Bedrock, one for the documents nested in them.
pub(super) struct Reader {
    pub(super) lexer: Lexer,
    pub(super) path: Path,
    pub(super) doc: DocState,
    pub(super) sink: Sink,
    pub(super) num: [u8; 24],
    pub(super) num_len: u8,
    /// A value being captured, or skipped (`Capture::Skip`: a value the mapper does not
    /// read; `depth` counts the containers open around it, and a document is never
    /// skipped). A skipped value's tokens change nothing (no path, no mapper call) until
    /// the one that ends it; `Lexer::skip` reads whole runs of it at once. Kept here, not
    /// apart, so a token outside any captured value pays for one test, not two.
    pub(super) capture: Option<Captured>,
}

impl Reader {
    pub(super) const fn new() -> Reader {
        Reader {
            lexer: Lexer::new(),
            path: Path::new(),
            doc: DocState::Between,
            sink: Sink::Skip,
            num: [0; 24],
            num_len: 0,
            capture: None,
        }
    }

    pub(super) fn reset(&mut self) {
        self.lexer.reset();
        self.path.reset();
        self.doc = DocState::Between;
        self.sink = Sink::Skip;
        self.capture = None;
    }

    /// A document begins (the caller tells the mapper).
    pub(super) fn begin(&mut self) {
        self.lexer.reset();
        self.path.reset();
        self.sink = Sink::Skip;
        self.capture = None;
        self.doc = DocState::Open;
    }

    /// The document ends: a top-level number completes, the mapper is told.
    pub(super) fn end(&mut self, map: &mut dyn Map, mut to: TextTo<'_, '_, '_>) {
        if self.doc == DocState::Open {
            loop {
                match self.lexer.finish() {
                    Lex::Token(t) => {
                        // Text the lexer held to the end (a string cut by the document's end).
                        if let Some(text) = self.token(t, map, to.out) {
                            text_bytes(self.sink, to.re(), text.bytes());
                        }
                    }
                    Lex::Done | Lex::NeedMore => break,
                    Lex::Error(_) => {
                        if self.lexer.offset() > 0 {
                            to.out
                                .fault("json", "undecodable JSON in one event; skipped");
                        }
                        break;
                    }
                }
            }
        }
        if self.doc != DocState::Between {
            map.end(to.out);
        }
        self.doc = DocState::Between;
        self.sink = Sink::Skip;
        self.capture = None;
    }

    /// The document ends cut short (a framing fault says so): its JSON is not reported.
    pub(super) fn quiet(&mut self) {
        if self.doc == DocState::Open {
            self.doc = DocState::Skip;
        }
    }

    pub(super) fn json_error(&mut self, out: &mut Out) {
        self.doc = DocState::Skip;
        out.fault("json", "undecodable JSON in one event; skipped");
    }

    /// Handles one token; returns a text piece when it is content of a `Sink::Text` string
    /// or base64 text of a `Sink::Inner` string (the caller decides how it goes on).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn token<'i>(
        &mut self,
        t: Token<'i>,
        map: &mut dyn Map,
        out: &mut Out,
    ) -> Option<TextOut<'i>> {
        if self.capture.is_none() && t.starts_value() {
            if self.path.depth() == 0 && !matches!(t, Token::ObjectStart | Token::ArrayStart) {
                // Every provider document is an object (or an array of them): a bare word,
                // string or number (`data: Internal Server Error`) is not JSON here.
                self.json_error(out);
                return None;
            }
            self.path.value_start();
            let v = match t {
                Token::ObjectStart => ValueStart::Object,
                Token::ArrayStart => ValueStart::Array,
                Token::StringStart => ValueStart::String,
                _ => ValueStart::Scalar,
            };
            self.capture = map.value(&self.path, v, out).map(|kind| Captured {
                kind,
                depth: self.path.depth(),
                writer: Writer::new(),
                deferred: false,
            });
            if self.capture.is_some() {
                self.captured(t, true, map, out);
                return None;
            }
        } else if self.capture.is_some() {
            self.captured(t, false, map, out);
            return None;
        }
        let p = &mut self.path;
        match t {
            Token::ObjectStart | Token::ArrayStart => {
                if p.member_key().is_some_and(|k| map.unread(p, k)) {
                    // Skipped to its end (a document is never skipped: no member).
                    self.capture = Some(Captured {
                        kind: Capture::Skip,
                        depth: p.depth(),
                        writer: Writer::new(),
                        deferred: false,
                    });
                    return None;
                }
                p.open(t == Token::ObjectStart);
                map.open(p, out);
            }
            Token::ObjectEnd | Token::ArrayEnd => {
                map.close(p, out);
                p.close();
            }
            Token::KeyStart => p.key_start(),
            Token::KeyEnd => p.key_end(),
            Token::StringStart => {
                self.sink = map.string(p, out);
            }
            Token::StringEnd => {
                if matches!(self.sink, Sink::Collect | Sink::Hold) {
                    map.string_end(p, out);
                }
                if matches!(self.sink, Sink::Text { .. }) {
                    // A delta's text ends here: what was gathered of it goes out.
                    out.flush_acc();
                    out.gathering = false;
                }
                self.sink = Sink::Skip;
            }
            Token::Text(text) => return self.text(text, map, out),
            Token::NumberStart => {
                self.num_len = 0;
            }
            Token::Number(piece) => {
                let b = piece.as_bytes();
                let at = self.num_len as usize;
                if let Some(dst) = self.num.get_mut(at..at + b.len()) {
                    dst.copy_from_slice(b);
                    self.num_len += b.len() as u8;
                } else {
                    self.num_len = u8::MAX;
                }
            }
            Token::NumberEnd => {
                let v = self
                    .num
                    .get(..self.num_len as usize)
                    .and_then(|d| core::str::from_utf8(d).ok())
                    .and_then(|d| d.parse::<u64>().ok())
                    .map_or(Scalar::Number, Scalar::Int);
                map.scalar(p, v, out);
            }
            Token::Literal(l) => {
                map.scalar(p, Scalar::Literal(l), out);
            }
        }
        None
    }

    /// A token of a captured value (`first`: the one that starts it, its `value_start`
    /// done): renders it into the open block and ends the capture with the value. A
    /// skipped value's tokens change nothing but the end of the skip.
    pub(super) fn captured(&mut self, t: Token<'_>, first: bool, map: &mut dyn Map, out: &mut Out) {
        let Some(cap) = &mut self.capture else {
            return;
        };
        if cap.kind == Capture::Skip {
            if t.ends_value() && self.lexer.depth() as u32 <= cap.depth {
                self.capture = None;
            }
            return;
        }
        let p = &mut self.path;
        // The path keeps counting containers, so the value's end is found.
        match t {
            Token::ObjectStart | Token::ArrayStart => {
                if !first {
                    p.value_start();
                }
                p.open(t == Token::ObjectStart);
            }
            Token::ObjectEnd | Token::ArrayEnd => p.close(),
            Token::KeyStart | Token::KeyEnd => {}
            _ if t.starts_value() && !first => p.value_start(),
            _ => {}
        }
        let mut piece = cap.writer.render(t);
        if cap.kind == Capture::InitialArgs {
            if first {
                cap.deferred = t == Token::ObjectStart;
                if cap.deferred {
                    piece = None;
                }
            } else if cap.deferred {
                cap.deferred = false;
                if t == Token::ObjectEnd {
                    piece = None;
                } else {
                    out.args_text(b"{");
                }
            }
        }
        if let Some(piece) = piece {
            match cap.kind {
                Capture::Args | Capture::InitialArgs => {
                    out.args_text(piece.as_bytes());
                }
                Capture::Text => out.json_text(piece.as_bytes()),
                Capture::Citation => super::cite::piece(out, piece.as_bytes()),
                // Never rendered (a skipped value returns above).
                Capture::Skip => {}
            }
        }
        if t.ends_value() && p.depth() == cap.depth {
            self.capture = None;
            map.value_end(&self.path, out);
        }
    }

    pub(super) fn text<'i>(
        &mut self,
        text: Text<'i>,
        map: &mut dyn Map,
        out: &mut Out,
    ) -> Option<TextOut<'i>> {
        let mut scratch = [0u8; 4];
        if self.path.in_key() {
            let d = text.decoded(&mut scratch);
            self.path.key_piece(d);
            return None;
        }
        match self.sink {
            Sink::Skip => None,
            Sink::Text { .. } | Sink::Inner => Some(match text {
                Text::Plain(Piece::Input(b)) => TextOut::Input(crate::emit::str_of(b)),
                // A decoded escape, a character completed across reads, a bare word's
                // held bytes: at most a dozen bytes.
                other => TextOut::owned(other.decoded(&mut scratch)),
            }),
            Sink::Args => {
                let d = text.decoded(&mut scratch);
                out.args_text(d);
                None
            }
            Sink::ArgsString => {
                let d = text.decoded(&mut scratch);
                out.args_escaped(d);
                None
            }
            Sink::Collect | Sink::Hold => {
                let d = text.decoded(&mut scratch);
                map.piece(d, out);
                None
            }
        }
    }
}

/// Where text goes that is not handed out straight from the input: the text dialect's
/// input, or a queued chunk (opening its block if needed).
pub(super) struct TextTo<'r, 'a, 'o> {
    pub(super) route: &'r mut Option<Route<'a>>,
    pub(super) route_in: &'r mut [u8; ROUTE_INPUT],
    pub(super) out: &'r mut Out<'o>,
}

impl<'a, 'o> TextTo<'_, 'a, 'o> {
    pub(super) fn re(&mut self) -> TextTo<'_, 'a, 'o> {
        TextTo {
            route: &mut *self.route,
            route_in: &mut *self.route_in,
            out: &mut *self.out,
        }
    }
}

/// Text of a `Sink::Text` string that is not handed out straight from the input (at most
/// `SMALL` bytes, or `ROUTE_IN` for the text dialect).
pub(super) fn text_bytes(sink: Sink, to: TextTo<'_, '_, '_>, text: &[u8]) {
    let TextTo {
        route,
        route_in,
        out,
    } = to;
    if let Sink::Text {
        ty,
        choice,
        refusal,
    } = sink
    {
        if !out.admit(choice) {
            // A choice past the limit: not decoded (reported once).
            return;
        }
        if ty == BlockType::Text && !refusal {
            if let Some(r) = route {
                if !out.is_routed(choice) {
                    out.open_routed(choice);
                }
                if r.at >= r.len {
                    // Input of the next run while a run's end is queued or being drained.
                    r.behind_flush = out.flush_queued() || r.draining;
                }
                r.input_choice = choice;
                r.push(route_in, text);
                return;
            }
        }
        if !out.is_open(ty, choice, refusal) {
            out.open_text(ty, choice, refusal);
        }
        out.text_via_queue(text);
    }
}

/// A text piece of a `Sink::Text` string: borrowed from the input, or a few decoded bytes.
pub(super) enum TextOut<'i> {
    Input(&'i str),
    Owned { buf: [u8; 16], len: u8 },
}

impl TextOut<'_> {
    pub(super) fn owned(bytes: &[u8]) -> Self {
        let mut buf = [0u8; 16];
        let n = crate::emit::floor_char_boundary(bytes, bytes.len().min(16));
        buf[..n].copy_from_slice(&bytes[..n]);
        TextOut::Owned { buf, len: n as u8 }
    }

    pub(super) fn bytes(&self) -> &[u8] {
        match self {
            TextOut::Input(s) => s.as_bytes(),
            TextOut::Owned { buf, len } => &buf[..*len as usize],
        }
    }
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    extern crate std;
    use std::string::String;

    use crate::Event;
    use crate::provider::{Capture, Decoder, DecoderConfig, Provider};

    /// A member the mapper reads nothing of is skipped (a read that ends inside it leaves
    /// the reader in a `Capture::Skip`), and the skip ends with the value: what follows is
    /// read.
    #[test]
    fn an_unread_member_is_skipped_to_its_end() {
        let body = b"data: {\"choices\":[{\"index\":0,\"logprobs\":{\"content\":[{\"token\":\"a\",\"top_logprobs\":[]}]},\"delta\":{\"content\":\"hi\"}}]}\n\n";
        let inside = body.windows(4).position(|w| w == b"\"tok").unwrap();
        for read in [1, 3, 7, inside, body.len()] {
            let mut d = Decoder::new(&DecoderConfig::new(Provider::OpenAiChat)).unwrap();
            let mut skipped = false;
            let mut text = String::new();
            for chunk in body.chunks(read) {
                let mut input = chunk;
                loop {
                    let event = d.next(&mut input);
                    let more = event.is_some();
                    if let Some(Event::Chunk(c)) = event {
                        text.push_str(c.text);
                    }
                    skipped |= d.reader.capture.is_some_and(|c| c.kind == Capture::Skip);
                    if !more {
                        break;
                    }
                }
            }
            // (A whole body is read in one go: nothing to see between its tokens.)
            assert!(skipped || read == body.len(), "read {read}");
            assert!(d.reader.capture.is_none(), "read {read}");
            assert_eq!(text, "hi", "read {read}");
        }
    }
}
