//! Documents nested in a string of the outer document, as base64 (Bedrock
//! InvokeModelWithResponseStream): their own reader and mapper, the outer decoder's `Out`.

use super::*;

/// The mappers a nested document can be read with (Bedrock `invoke_format`).
// No heap: held by value, sized for the larger.
#[allow(clippy::large_enum_variant)]
pub(super) enum InnerMapper {
    Anthropic(anthropic::Anthropic),
    OpenAiChat(openai_chat::OpenAiChat),
}

impl InnerMapper {
    pub(super) fn get(&mut self) -> &mut dyn Map {
        match self {
            InnerMapper::Anthropic(m) => m,
            InnerMapper::OpenAiChat(m) => m,
        }
    }
}

/// Decoded bytes of a nested document held at once: what one step of the outer reader
/// (at most `NESTED_STEP` base64 characters, plus a carried group) decodes to.
pub(super) const NESTED_BUF: usize = 64;
/// Base64 characters of a `Sink::Inner` string read per outer step.
pub(super) const NESTED_STEP: usize = 60;

/// A JSON document nested in a string value of the outer document, as base64 (Bedrock
/// InvokeModelWithResponseStream: `{"bytes":"<base64 of one event>"}`). It has its own
/// reading state and mapper and shares `Out` with the outer mapper. The base64 text is
/// decoded as it streams into a small buffer, which the decoder drains one token per step
/// before it reads on in the outer document: nothing is buffered per frame.
pub(super) struct Nested {
    pub(super) reader: Reader,
    pub(super) map: InnerMapper,
    pub(super) b64: Base64Stream,
    pub(super) buf: [u8; NESTED_BUF],
    pub(super) at: u8,
    pub(super) len: u8,
    /// The base64 string ended: the document ends when `buf` is drained.
    pub(super) end: bool,
    /// The base64 text is invalid: reported, and the document skipped, once the bytes
    /// decoded before the bad group are read (so that where reads are cut changes nothing).
    pub(super) failed: bool,
    /// A document began since the start (the inner mapper gets `eof`).
    pub(super) used: bool,
}

impl Nested {
    pub(super) fn new(format: Provider) -> Option<Nested> {
        let map = match format {
            Provider::Anthropic => InnerMapper::Anthropic(anthropic::Anthropic::new()),
            Provider::OpenAiChat => InnerMapper::OpenAiChat(openai_chat::OpenAiChat::new()),
            _ => return None,
        };
        Some(Nested {
            reader: Reader::new(),
            map,
            b64: Base64Stream::new(),
            buf: [0; NESTED_BUF],
            at: 0,
            len: 0,
            end: false,
            failed: false,
            used: false,
        })
    }

    pub(super) fn reset(&mut self) {
        self.reader.reset();
        self.map.get().reset_state();
        self.b64 = Base64Stream::new();
        self.at = 0;
        self.len = 0;
        self.end = false;
        self.failed = false;
        self.used = false;
    }

    /// Bytes to read or a document to end.
    pub(super) fn pending(&self) -> bool {
        self.at < self.len || self.end || self.failed
    }

    /// The base64 string starts: a document begins.
    pub(super) fn begin(&mut self, out: &mut Out) {
        self.reader.begin();
        self.b64 = Base64Stream::new();
        self.at = 0;
        self.len = 0;
        self.end = false;
        self.failed = false;
        self.used = true;
        self.map.get().begin(DocInfo::default(), out);
    }

    /// A decoded piece of the base64 string (at most `NESTED_STEP` bytes; `buf` is drained).
    pub(super) fn feed(&mut self, text: &[u8]) {
        if self.at >= self.len {
            self.at = 0;
            self.len = 0;
        }
        let mut rest = text;
        while !rest.is_empty() && self.reader.doc == DocState::Open && !self.failed {
            let room = self.buf.get_mut(self.len as usize..).unwrap_or(&mut []);
            match self.b64.decode(rest, room) {
                Ok((used, written)) => {
                    self.len += written as u8;
                    rest = rest.get(used..).unwrap_or(&[]);
                    if used == 0 {
                        break;
                    }
                }
                Err(_) => self.failed = true,
            }
        }
    }

    /// The base64 string ended.
    pub(super) fn end_text(&mut self) {
        if self.at >= self.len {
            self.at = 0;
            self.len = 0;
        }
        let mut tail = [0u8; 3];
        match self.b64.finish(&mut tail) {
            Ok(n) => {
                let at = self.len as usize;
                if let Some(dst) = self.buf.get_mut(at..at + n) {
                    dst.copy_from_slice(&tail[..n]);
                    self.len += n as u8;
                }
            }
            Err(_) => self.failed = true,
        }
        self.end = true;
    }

    /// One token of the held bytes, or the document's end.
    pub(super) fn step(&mut self, to: TextTo<'_, '_, '_>) {
        let Nested {
            reader,
            map,
            buf,
            at,
            len,
            end,
            failed,
            ..
        } = self;
        if *at < *len {
            let all = buf.get(*at as usize..*len as usize).unwrap_or(&[]);
            if reader.doc != DocState::Open {
                *at = *len;
                return;
            }
            let mut rest = all;
            match reader.lexer.next(&mut rest) {
                Lex::Token(t) => {
                    if let Some(text) = reader.token(t, map.get(), to.out) {
                        text_bytes(reader.sink, to, text.bytes());
                    }
                }
                Lex::NeedMore => rest = &[],
                Lex::Done => reader.doc = DocState::Skip,
                Lex::Error(_) => reader.json_error(to.out),
            }
            *at += (all.len() - rest.len()) as u8;
        } else if *failed {
            *failed = false;
            if reader.doc == DocState::Open {
                reader.doc = DocState::Skip;
                to.out
                    .fault("base64", "undecodable base64 in a chunk frame; skipped");
            }
        } else if *end {
            *end = false;
            reader.end(map.get(), to);
        }
    }

    /// The outer document ended (or failed) with this one still open.
    pub(super) fn abort(&mut self, to: TextTo<'_, '_, '_>) {
        self.at = 0;
        self.len = 0;
        self.end = false;
        self.failed = false;
        // The outer document's end, or its fault, reports it.
        self.reader.quiet();
        self.reader.end(self.map.get(), to);
    }

    /// The body ended.
    pub(super) fn eof(&mut self, out: &mut Out) {
        if self.used {
            self.map.get().eof(out);
        }
    }
}
