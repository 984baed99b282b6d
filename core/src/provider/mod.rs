//! Provider streams ("chat mode"): the HTTP body of a streaming LLM API → the same events as
//! a dialect gives (docs/design.md "Provider streams"; the decisions in docs/providers.md).
//!
//! Data flows one way: body bytes → `frame` (SSE, JSON array, AWS event stream; the first
//! byte decides, see [`Decoder`]) → JSON documents → the relaxed JSON [`Lexer`] with the
//! token's `path` → one mapper per provider format → `out` (blocks, queued events) →
//! [`Event`]s. Nothing is buffered per event: text fields stream out as they are unescaped,
//! straight from the input when the JSON string needs no unescaping.
//!
//! Bedrock's InvokeModelWithResponseStream frames wrap one event of another format as
//! base64 (`{"bytes": …}`): that string goes to a second reader (`Nested`: its own lexer,
//! path and mapper, the same `out`), decoded as it streams through a 64-byte buffer.
//!
//! ```
//! use tokensieve::provider::{Decoder, DecoderConfig, Provider};
//! use tokensieve::Event;
//!
//! let config = DecoderConfig::new(Provider::OpenAiChat);
//! let mut decoder = Decoder::new(&config).unwrap();
//! let body = b"data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n\
//!              data: {\"choices\":[{\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n\
//!              data: [DONE]\n\n";
//! let mut text = String::new();
//! let mut finished = false;
//! for read in body.chunks(7) {
//!     let mut input = read;
//!     while let Some(event) = decoder.next(&mut input) {
//!         match event {
//!             Event::Chunk(c) if c.visible() => text.push_str(c.text),
//!             Event::Finish(f) => finished = f.reason == tokensieve::FinishReason::Stop,
//!             _ => {}
//!         }
//!     }
//! }
//! decoder.finish_with(|_| {});
//! assert_eq!((text.as_str(), finished), ("Hello", true));
//! ```

use crate::buf::Buf;
use crate::config::{Config, ConfigError, Dialect};
use crate::event::{BlockType, Event};
use crate::json::relaxed::{Lex, Lexer, Literal, Piece, Quick, Text, Token, Writer};
use crate::sieve::{Detached, Sieve};

mod anthropic;
pub(crate) mod base64;
mod bedrock;
mod error_fields;
pub(crate) mod frame;
mod gemini;
mod openai_chat;
mod openai_responses;
mod out;
mod path;

use base64::Base64Stream;
use frame::{Framed, event_stream::EventStreamFramer, json_array::JsonArrayFramer, sse::SseFramer};
use out::{ARGS_STEP, Out, SMALL};
use path::Path;

/// The provider formats a [`Decoder`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Provider {
    /// OpenAI Chat Completions and every compatible server (vLLM, SGLang, llama.cpp, …).
    OpenAiChat = 0,
    /// OpenAI Responses.
    OpenAiResponses = 1,
    /// Anthropic Messages.
    Anthropic = 2,
    /// Google Gemini (`alt=sse` or the streamed JSON array).
    Gemini = 3,
    /// AWS Bedrock (the AWS event stream).
    Bedrock = 4,
}

impl Provider {
    /// Every provider, in the order of their numbers.
    pub const ALL: [Provider; 5] = [
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Bedrock,
    ];

    /// The config name (`openai-chat`, `openai-responses`, `anthropic`, `gemini`, `bedrock`).
    ///
    /// ```
    /// use tokensieve::provider::Provider;
    /// assert_eq!(Provider::from_name("anthropic"), Some(Provider::Anthropic));
    /// assert_eq!(Provider::OpenAiChat.name(), "openai-chat");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Provider::OpenAiChat => "openai-chat",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::Bedrock => "bedrock",
        }
    }

    /// Whether this build decodes the provider (the others are refused by
    /// [`Decoder::new`] with a [`ConfigError`] naming `provider`).
    ///
    /// ```
    /// use tokensieve::provider::Provider;
    /// assert!(Provider::OpenAiChat.is_supported());
    /// ```
    pub fn is_supported(self) -> bool {
        Mapper::new(self, Provider::Anthropic).is_some()
    }

    /// The provider with this config name.
    pub fn from_name(name: &str) -> Option<Provider> {
        Provider::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// How a [`Decoder`] is set up (docs/providers.md, "Input and configuration").
#[derive(Clone, Copy, Debug)]
pub struct DecoderConfig<'a> {
    /// The body's format.
    pub provider: Provider,
    /// Options shared with the dialects (`id_prefix`, `on_malformed`, `max_call_bytes`), and
    /// the *text dialect*: the provider's text deltas run through `options.dialect` (with its
    /// `tools`, `thinking_tags`, …), its blocks in the decoder's index space — for a server
    /// that passes `<tool_call>…` or `<think>` through as content (docs/providers.md, "Text
    /// dialect"). [`Dialect::Passthrough`], the default, leaves text as it is.
    pub options: Config<'a>,
    /// AWS event stream: the largest frame accepted.
    pub max_frame_bytes: u32,
    /// Bedrock InvokeModelWithResponseStream: the format of the event each `chunk` frame
    /// wraps ([`Provider::Anthropic`], the default, or [`Provider::OpenAiChat`]).
    pub invoke_format: Provider,
}

impl DecoderConfig<'_> {
    /// The defaults for a provider.
    pub const fn new(provider: Provider) -> DecoderConfig<'static> {
        DecoderConfig {
            provider,
            options: Config::new(Dialect::Passthrough),
            max_frame_bytes: frame::event_stream::DEFAULT_MAX_FRAME_BYTES,
            invoke_format: Provider::Anthropic,
        }
    }

    fn validate(&self) -> Result<(), ConfigError> {
        self.options.validate()?;
        if !self.provider.is_supported() {
            return Err(ConfigError::new("provider", "is not decoded yet"));
        }
        if !matches!(
            self.invoke_format,
            Provider::Anthropic | Provider::OpenAiChat
        ) {
            return Err(ConfigError::new(
                "invoke_format",
                "must be \"anthropic\" or \"openai-chat\"",
            ));
        }
        Ok(())
    }
}

/// What a string value that starts now is for (the mapper decides at its first byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sink {
    /// Not needed.
    Skip,
    /// Content of a text or thinking block.
    Text {
        ty: BlockType,
        choice: u32,
        refusal: bool,
    },
    /// Arguments text of the open tool call (JSON text, transcoded to compact JSON).
    Args,
    /// Handed to the mapper piece by piece (`Map::piece`), then `Map::string_end`.
    Collect,
    /// As `Collect`, in pieces of at most `SMALL` bytes (so the mapper can send each one on
    /// with `Out::text_as`): text whose block type is known only later (Gemini writes a
    /// part's `thought` flag after its `text`).
    Hold,
    /// Base64 text of a nested JSON document (Bedrock's `chunk` frames), read by the nested
    /// reader and mapper (`Nested`).
    Inner,
}

/// A number or literal value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scalar {
    /// A non-negative integer that fits u64.
    Int(u64),
    /// Any other number.
    Number,
    Literal(Literal),
}

/// How a whole JSON value is taken (`Map::value`): rendered as compact JSON text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Capture {
    /// The open tool call's arguments (an inline `input` / `args` object).
    Args,
    /// Content chunks of the open block (a server tool result's `content`).
    Text,
    /// As `Args`, except that an empty object gives nothing (Anthropic's
    /// `content_block_start` says `input: {}` and the input streams after it).
    InitialArgs,
}

/// What kind of value starts (`Map::value`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ValueStart {
    Object,
    Array,
    String,
    /// A number or literal.
    Scalar,
}

/// Per-document facts from the framing (all empty for a whole JSON body).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DocInfo<'a> {
    /// SSE `event:` name; AWS event stream: the frame's `:event-type` header.
    pub event: &'a [u8],
    /// AWS `:message-type` (`event`, `exception`, `error`).
    pub message_type: &'a [u8],
    /// AWS `:exception-type`.
    pub exception_type: &'a [u8],
    /// AWS `:error-code`.
    pub error_code: &'a [u8],
    /// AWS `:error-message`.
    pub error_message: &'a [u8],
}

/// One provider format's mapping from JSON tokens to events (see `openai_chat.rs`).
pub(crate) trait Map {
    /// Back to the initial state.
    fn reset_state(&mut self);
    /// A document begins.
    fn begin(&mut self, doc: DocInfo<'_>, out: &mut Out);
    /// A container opened; `p.depth()` counts it.
    fn open(&mut self, p: &Path, out: &mut Out);
    /// A container is about to close; `p.depth()` still counts it.
    fn close(&mut self, p: &Path, out: &mut Out);
    /// A string value starts at `p`.
    fn string(&mut self, p: &Path, out: &mut Out) -> Sink;
    /// A decoded piece of a `Collect` string.
    fn piece(&mut self, bytes: &[u8], out: &mut Out);
    /// A `Collect` string ended.
    fn string_end(&mut self, p: &Path, out: &mut Out);
    /// A number or literal at `p`.
    fn scalar(&mut self, p: &Path, v: Scalar, out: &mut Out);
    /// The document ended.
    fn end(&mut self, out: &mut Out);
    /// SSE `data: [DONE]`.
    fn done(&mut self, out: &mut Out);
    /// The body ended.
    fn eof(&mut self, out: &mut Out);
    /// A value of any kind starts at `p` (before `open`, `string` or `scalar`). `Some`: the
    /// whole value is rendered as compact JSON into the open block (`Capture`); the mapper
    /// sees none of its tokens, then `value_end`.
    fn value(&mut self, _p: &Path, _v: ValueStart, _out: &mut Out) -> Option<Capture> {
        None
    }
    /// A captured value ended (`p` is where it was).
    fn value_end(&mut self, _p: &Path, _out: &mut Out) {}
}

/// A value being captured: how, the depth it started at, and its renderer.
#[derive(Clone, Copy, Debug)]
struct Captured {
    kind: Capture,
    depth: u32,
    writer: Writer,
    /// `InitialArgs`: the value's `{` waits for the next token (an empty object is nothing).
    deferred: bool,
}

/// One variant per provider format (a mapper is added here, in `Mapper::new` and `get`).
// no_std without a heap: the decoder's state is fixed-size (tests/provider.rs bounds it).
#[allow(clippy::large_enum_variant)]
enum Mapper {
    OpenAiChat(openai_chat::OpenAiChat),
    Anthropic(anthropic::Anthropic),
    /// The ConverseStream mapper, and the reader of the documents `chunk` frames wrap
    /// (`None` while the `invoke_format` mapper is not built).
    Bedrock(bedrock::Bedrock, Option<Nested>),
    OpenAiResponses(openai_responses::OpenAiResponses),
    Gemini(gemini::Gemini),
}

impl Mapper {
    /// The mapper of a provider; `None` while it is not built. `invoke`: Bedrock's
    /// `invoke_format`.
    fn new(provider: Provider, invoke: Provider) -> Option<Mapper> {
        match provider {
            Provider::OpenAiChat => Some(Mapper::OpenAiChat(openai_chat::OpenAiChat::new())),
            Provider::Anthropic => Some(Mapper::Anthropic(anthropic::Anthropic::new())),
            Provider::Bedrock => Some(Mapper::Bedrock(
                bedrock::Bedrock::new(),
                Nested::new(invoke),
            )),
            Provider::OpenAiResponses => Some(Mapper::OpenAiResponses(
                openai_responses::OpenAiResponses::new(),
            )),
            Provider::Gemini => Some(Mapper::Gemini(gemini::Gemini::new())),
        }
    }

    fn get(&mut self) -> &mut dyn Map {
        match self {
            Mapper::OpenAiChat(m) => m,
            Mapper::Gemini(m) => m,
            Mapper::Anthropic(m) => m,
            Mapper::Bedrock(m, _) => m,
            Mapper::OpenAiResponses(m) => m,
        }
    }

    /// The nested reader, for a format whose documents wrap others.
    fn nested(&mut self) -> Option<&mut Nested> {
        match self {
            Mapper::Bedrock(_, n) => n.as_mut(),
            _ => None,
        }
    }

    fn reset_state(&mut self) {
        self.get().reset_state();
        if let Some(n) = self.nested() {
            n.reset();
        }
    }
}

/// The mappers a nested document can be read with (Bedrock `invoke_format`).
// No heap: held by value, sized for the larger.
#[allow(clippy::large_enum_variant)]
enum InnerMapper {
    Anthropic(anthropic::Anthropic),
    OpenAiChat(openai_chat::OpenAiChat),
}

impl InnerMapper {
    fn get(&mut self) -> &mut dyn Map {
        match self {
            InnerMapper::Anthropic(m) => m,
            InnerMapper::OpenAiChat(m) => m,
        }
    }
}

/// Decoded bytes of a nested document held at once: what one step of the outer reader
/// (at most `NESTED_STEP` base64 characters, plus a carried group) decodes to.
const NESTED_BUF: usize = 64;
/// Base64 characters of a `Sink::Inner` string read per outer step.
const NESTED_STEP: usize = 60;

/// A JSON document nested in a string value of the outer document, as base64 (Bedrock
/// InvokeModelWithResponseStream: `{"bytes":"<base64 of one event>"}`). It has its own
/// reading state and mapper and shares `Out` with the outer mapper. The base64 text is
/// decoded as it streams into a small buffer, which the decoder drains one token per step
/// before it reads on in the outer document: nothing is buffered per frame.
struct Nested {
    reader: Reader,
    map: InnerMapper,
    b64: Base64Stream,
    buf: [u8; NESTED_BUF],
    at: u8,
    len: u8,
    /// The base64 string ended: the document ends when `buf` is drained.
    end: bool,
    /// The base64 text is invalid: reported, and the document skipped, once the bytes
    /// decoded before the bad group are read (so that where reads are cut changes nothing).
    failed: bool,
    /// A document began since the start (the inner mapper gets `eof`).
    used: bool,
}

impl Nested {
    fn new(format: Provider) -> Option<Nested> {
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

    fn reset(&mut self) {
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
    fn pending(&self) -> bool {
        self.at < self.len || self.end || self.failed
    }

    /// The base64 string starts: a document begins.
    fn begin(&mut self, out: &mut Out) {
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
    fn feed(&mut self, text: &[u8]) {
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
    fn end_text(&mut self) {
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
    fn step(&mut self, to: TextTo<'_, '_, '_>) {
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
    fn abort(&mut self, to: TextTo<'_, '_, '_>) {
        self.at = 0;
        self.len = 0;
        self.end = false;
        self.failed = false;
        // The outer document's end, or its fault, reports it.
        self.reader.quiet();
        self.reader.end(self.map.get(), to);
    }

    /// The body ended.
    fn eof(&mut self, out: &mut Out) {
        if self.used {
            self.map.get().eof(out);
        }
    }
}

/// How the body is cut into documents (decided by its first meaningful byte).
// no_std without a heap: the framer is held by value (the AWS one holds its headers).
#[allow(clippy::large_enum_variant)]
enum Framing {
    /// Nothing but BOM and whitespace seen yet.
    Detect {
        bom: u8,
    },
    /// Whole JSON documents, one after another (a non-streaming body, a bare error).
    Whole,
    Sse(SseFramer),
    /// A streamed JSON array (Gemini).
    JsonArray(JsonArrayFramer),
    /// The AWS event stream (Bedrock).
    EventStream(EventStreamFramer),
}

/// Where the reader is in the current document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DocState {
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
struct Reader {
    lexer: Lexer,
    path: Path,
    doc: DocState,
    sink: Sink,
    num: [u8; 24],
    num_len: u8,
    capture: Option<Captured>,
}

impl Reader {
    const fn new() -> Reader {
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

    fn reset(&mut self) {
        self.lexer.reset();
        self.path.reset();
        self.doc = DocState::Between;
        self.sink = Sink::Skip;
        self.capture = None;
    }

    /// A document begins (the caller tells the mapper).
    fn begin(&mut self) {
        self.lexer.reset();
        self.path.reset();
        self.sink = Sink::Skip;
        self.capture = None;
        self.doc = DocState::Open;
    }

    /// The document ends: a top-level number completes, the mapper is told.
    fn end(&mut self, map: &mut dyn Map, mut to: TextTo<'_, '_, '_>) {
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
    fn quiet(&mut self) {
        if self.doc == DocState::Open {
            self.doc = DocState::Skip;
        }
    }

    fn json_error(&mut self, out: &mut Out) {
        self.doc = DocState::Skip;
        out.fault("json", "undecodable JSON in one event; skipped");
    }

    /// Handles one token; returns a text piece when it is content of a `Sink::Text` string
    /// or base64 text of a `Sink::Inner` string (the caller decides how it goes on).
    #[inline(always)]
    fn token<'i>(&mut self, t: Token<'i>, map: &mut dyn Map, out: &mut Out) -> Option<TextOut<'i>> {
        if self.capture.is_none() && t.starts_value() {
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
    /// done): renders it into the open block and ends the capture with the value.
    fn captured(&mut self, t: Token<'_>, first: bool, map: &mut dyn Map, out: &mut Out) {
        let Some(cap) = &mut self.capture else {
            return;
        };
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
            }
        }
        if t.ends_value() && p.depth() == cap.depth {
            self.capture = None;
            map.value_end(&self.path, out);
        }
    }

    fn text<'i>(
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
struct TextTo<'r, 'a, 'o> {
    route: &'r mut Option<Route<'a>>,
    route_in: &'r mut [u8; ROUTE_INPUT],
    out: &'r mut Out<'o>,
}

impl<'a, 'o> TextTo<'_, 'a, 'o> {
    fn re(&mut self) -> TextTo<'_, 'a, 'o> {
        TextTo {
            route: &mut *self.route,
            route_in: &mut *self.route_in,
            out: &mut *self.out,
        }
    }
}

/// Text of a `Sink::Text` string that is not handed out straight from the input (at most
/// `SMALL` bytes, or `ROUTE_IN` for the text dialect).
fn text_bytes(sink: Sink, to: TextTo<'_, '_, '_>, text: &[u8]) {
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
        if ty == BlockType::Text && !refusal {
            if let Some(r) = route {
                if !out.is_routed(choice) {
                    out.open_routed(choice);
                }
                if r.at >= r.len {
                    r.behind_flush = out.flush_queued();
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

/// Decodes a provider's HTTP response body into [`Event`]s (see the module docs).
pub struct Decoder<'a> {
    framing: Framing,
    reader: Reader,
    /// The text dialect, when one is set.
    route: Option<Route<'a>>,
    route_in: [u8; ROUTE_INPUT],
    map: Mapper,
    out: Out<'a>,
    /// Bedrock: the body is the AWS event stream unless it starts with `{`.
    aws: bool,
    max_frame_bytes: u32,
    /// A framing fault to report in the next step.
    fault: Option<frame::Fault>,
    finishing: bool,
    finished: bool,
}

/// What the quick path read (`Decoder::quick`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum QuickRead {
    No,
    /// A whole key (only the path changed).
    Key,
    /// A value or a token of one (the mapper was told).
    Value,
}

/// Result of one step of the reader.
enum Step<'i> {
    Again,
    Chunk(&'i str),
    NeedMore,
}

impl<'a> Decoder<'a> {
    /// A decoder whose held bytes live on the heap, bounded by `max_call_bytes`.
    #[cfg(feature = "alloc")]
    pub fn new(config: &'a DecoderConfig<'a>) -> Result<Decoder<'a>, ConfigError> {
        config.validate()?;
        let limit = config.options.max_call_bytes;
        let route = match config.options.dialect {
            Dialect::Passthrough => None,
            _ => Some(Route::new(Sieve::new(&config.options)?)),
        };
        Ok(Decoder::build(
            config,
            [
                Buf::heap(limit),
                Buf::heap(limit),
                Buf::heap(limit),
                Buf::heap(limit),
                Buf::heap(limit),
            ],
            route,
        ))
    }

    /// A decoder that owns what it needs of `config` (a copy of the text dialect's options):
    /// for bindings and hosts that keep a decoder longer than its configuration.
    ///
    /// ```
    /// use tokensieve::provider::{Decoder, DecoderConfig, Provider};
    /// fn make() -> Decoder<'static> {
    ///     let mut config = DecoderConfig::new(Provider::OpenAiChat);
    ///     config.options.dialect = tokensieve::Dialect::Hermes;
    ///     Decoder::owned(&config).unwrap()
    /// }
    /// let mut decoder = make();
    /// let mut input = &b"data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n"[..];
    /// assert!(decoder.next(&mut input).is_some());
    /// ```
    #[cfg(feature = "alloc")]
    pub fn owned(config: &DecoderConfig<'_>) -> Result<Decoder<'static>, ConfigError> {
        config.validate()?;
        let limit = config.options.max_call_bytes;
        let route = match config.options.dialect {
            Dialect::Passthrough => None,
            _ => Some(Route::new(Sieve::from_config_buf(
                crate::config::ConfigBuf::from_config(&config.options),
            )?)),
        };
        Ok(Decoder::build(
            config,
            [
                Buf::heap(limit),
                Buf::heap(limit),
                Buf::heap(limit),
                Buf::heap(limit),
                Buf::heap(limit),
            ],
            route,
        ))
    }

    /// A decoder that uses `memory` for its held bytes and never touches the heap (at least
    /// 640 bytes; a fifth each for raw arguments, held fragments, signatures, redacted data
    /// and error messages). With a text dialect, half of it (at least [`MIN_MEMORY`]) is
    /// the dialect's, and `memory` must hold 640 bytes more than that.
    ///
    /// [`MIN_MEMORY`]: crate::MIN_MEMORY
    ///
    /// ```
    /// use tokensieve::provider::{Decoder, DecoderConfig, Provider};
    /// let config = DecoderConfig::new(Provider::OpenAiChat);
    /// let mut memory = [0u8; 4096];
    /// let mut decoder = Decoder::with_memory(&config, &mut memory).unwrap();
    /// let mut input = &b"data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n"[..];
    /// assert!(decoder.next(&mut input).is_some());
    /// ```
    pub fn with_memory(
        config: &'a DecoderConfig<'a>,
        memory: &'a mut [u8],
    ) -> Result<Decoder<'a>, ConfigError> {
        config.validate()?;
        let (route, memory) = match config.options.dialect {
            Dialect::Passthrough => (None, memory),
            _ => {
                let half = (memory.len() / 2).max(crate::MIN_MEMORY);
                if memory.len() < half + 640 {
                    return Err(ConfigError::new(
                        "memory",
                        "is smaller than MIN_MEMORY + 640 bytes (a text dialect is set)",
                    ));
                }
                let (dialect, rest) = memory.split_at_mut(half);
                let sieve = Sieve::with_memory(&config.options, dialect)?;
                (Some(Route::new(sieve)), rest)
            }
        };
        if memory.len() < 640 {
            return Err(ConfigError::new("memory", "is smaller than 640 bytes"));
        }
        let part = memory.len() / 5;
        let (a, rest) = memory.split_at_mut(part);
        let (b, rest) = rest.split_at_mut(part);
        let (c, rest) = rest.split_at_mut(part);
        let (d, e) = rest.split_at_mut(part);
        Ok(Decoder::build(
            config,
            [
                Buf::slice(a),
                Buf::slice(b),
                Buf::slice(c),
                Buf::slice(d),
                Buf::slice(e),
            ],
            route,
        ))
    }

    fn build(
        config: &DecoderConfig<'_>,
        bufs: [Buf<'a>; 5],
        route: Option<Route<'a>>,
    ) -> Decoder<'a> {
        // `validate` let only the providers built so far through.
        let map = Mapper::new(config.provider, config.invoke_format)
            .unwrap_or(Mapper::OpenAiChat(openai_chat::OpenAiChat::new()));
        let mut out = Out::new(bufs, config.options.id_prefix, config.options.on_malformed);
        out.routes_text = route.is_some();
        Decoder {
            framing: Framing::Detect { bom: 0 },
            reader: Reader::new(),
            route,
            route_in: [0; ROUTE_INPUT],
            map,
            out,
            aws: config.provider == Provider::Bedrock,
            max_frame_bytes: config.max_frame_bytes,
            fault: None,
            finishing: false,
            finished: false,
        }
    }

    /// Back to the initial state, keeping configuration and memory.
    pub fn reset(&mut self) {
        self.framing = Framing::Detect { bom: 0 };
        self.reader.reset();
        if let Some(r) = &mut self.route {
            r.reset();
        }
        self.out.reset();
        self.map.reset_state();
        self.fault = None;
        self.finishing = false;
        self.finished = false;
    }

    /// Says the body ended; then call [`next`](Self::next) with empty input until `None`.
    pub fn finish(&mut self) {
        self.finishing = true;
    }

    /// Feeds one read and hands every event it completes to `f`.
    pub fn feed_with(&mut self, input: &[u8], mut f: impl FnMut(Event<'_>)) {
        let mut input = input;
        while let Some(ev) = self.next(&mut input) {
            f(ev);
        }
    }

    /// Ends the body and hands the remaining events to `f`.
    pub fn finish_with(&mut self, mut f: impl FnMut(Event<'_>)) {
        self.finish();
        let mut empty: &[u8] = &[];
        while let Some(ev) = self.next(&mut empty) {
            f(ev);
        }
    }

    /// The next event from `input` (consumed from its front), or `None` when the input is
    /// used up (feed the next read) or, after [`finish`](Self::finish), the stream is over.
    pub fn next<'s, 'i: 's>(&'s mut self, input: &mut &'i [u8]) -> Option<Event<'s>> {
        loop {
            // The text dialect: its end (drained before what follows), then its input. The
            // step borrows nothing, so the event is made in a branch of its own.
            let mut step = None;
            if let Some(r) = &mut self.route {
                if r.draining {
                    let mut at = 0;
                    step = r.sieve.step_detached(&[], &mut at);
                    if step.is_none() {
                        r.end_run();
                        self.out.settle();
                        continue;
                    }
                } else if r.at < r.len
                    && (!self.out.has_pending()
                        || (self.out.flush_next() && !r.behind_flush)
                        || self.out.route_next())
                {
                    // Input queued before the run's end (`FlushText`) is fed before it; input
                    // of the next run waits for it.
                    r.choice = r.input_choice;
                    let mut at = r.at as usize;
                    step = r
                        .sieve
                        .step_detached(&self.route_in[..r.len as usize], &mut at);
                    r.at = at as u16;
                    if step.is_none() {
                        r.at = 0;
                        r.len = 0;
                    }
                } else if self.out.route_next() {
                    // Text a mapper held (`Out::text_as`), fed a piece at a time once the
                    // dialect has taken the last one; no run's end is queued before it.
                    if let Some((piece, choice)) = self.out.route_piece(ROUTE_IN) {
                        r.input_choice = choice;
                        r.behind_flush = false;
                        r.push(&mut self.route_in, piece);
                    }
                    continue;
                } else if self.out.flush_next() {
                    self.out.take_flush();
                    r.sieve.finish();
                    r.draining = true;
                    continue;
                }
            }
            if step.is_none() && self.out.route_next() {
                continue;
            }
            if let Some(step) = step {
                // A step came from the route, so it is there; the borrow that makes the event
                // must not be taken on a path that goes on with the loop.
                let r = self.route.as_mut()?;
                return Some(r.event(step, &self.route_in, &mut self.out));
            }
            if self.out.has_pending() {
                return self.out.pop();
            }
            if self.out.replaying() {
                self.out.replay_step();
                continue;
            }
            match self.step(input) {
                Step::Again => {}
                Step::NeedMore => return None,
                Step::Chunk(text) => return self.out.chunk(None, text),
            }
        }
    }

    /// One framing or JSON step.
    fn step<'i>(&mut self, input: &mut &'i [u8]) -> Step<'i> {
        if self.finished {
            *input = &[];
            return Step::NeedMore;
        }
        if let Some(f) = self.fault.take() {
            self.out.fault(f.code(), f.message());
            return Step::Again;
        }
        // A nested document's decoded bytes are read before the outer one goes on.
        if let Some(n) = self.map.nested() {
            if n.pending() {
                n.step(TextTo {
                    route: &mut self.route,
                    route_in: &mut self.route_in,
                    out: &mut self.out,
                });
                return Step::Again;
            }
        }
        let aws = self.aws;
        let framed = match &mut self.framing {
            Framing::Detect { bom } => {
                if input.is_empty() {
                    if self.finishing {
                        self.framing = Framing::Whole;
                        return Step::Again;
                    }
                    return Step::NeedMore;
                }
                let b = input[0];
                if aws {
                    // The event stream's first byte is its length's high byte: no BOM or
                    // whitespace skipping.
                    self.framing = if b == b'{' {
                        Framing::Whole
                    } else {
                        Framing::EventStream(EventStreamFramer::new(self.max_frame_bytes))
                    };
                    return Step::Again;
                }
                const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
                if (*bom as usize) < 3 && b == BOM[*bom as usize] {
                    *bom += 1;
                    *input = &input[1..];
                    return Step::Again;
                }
                if matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
                    *input = &input[1..];
                    return Step::Again;
                }
                self.framing = if b == b'{' {
                    Framing::Whole
                } else if b == b'[' {
                    Framing::JsonArray(JsonArrayFramer::new())
                } else {
                    Framing::Sse(SseFramer::new())
                };
                return Step::Again;
            }
            Framing::Whole => {
                if input.is_empty() {
                    if self.finishing {
                        if self.reader.doc == DocState::Open {
                            Framed::End
                        } else {
                            Framed::Finished
                        }
                    } else {
                        Framed::NeedMore
                    }
                } else if self.reader.doc == DocState::Between {
                    // Whitespace between whole documents is not a document.
                    let ws = input
                        .iter()
                        .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
                        .unwrap_or(input.len());
                    if ws > 0 {
                        *input = &input[ws..];
                        return Step::Again;
                    }
                    Framed::Begin
                } else {
                    Framed::Payload(input.len())
                }
            }
            Framing::Sse(f) => {
                if self.finishing && input.is_empty() {
                    f.finish()
                } else {
                    f.next(input)
                }
            }
            Framing::JsonArray(f) => {
                if self.finishing && input.is_empty() {
                    f.finish()
                } else {
                    f.next(input)
                }
            }
            Framing::EventStream(f) => {
                if self.finishing && input.is_empty() {
                    f.finish()
                } else {
                    f.next(input)
                }
            }
        };
        match framed {
            Framed::NeedMore => Step::NeedMore,
            Framed::Begin => {
                self.begin_doc();
                Step::Again
            }
            Framed::Payload(n) => self.payload(input, n),
            Framed::Held => {
                if let Framing::Sse(f) = &mut self.framing {
                    let mut held = [0u8; 8];
                    let h = f.held();
                    let n = h.len().min(8);
                    held[..n].copy_from_slice(&h[..n]);
                    self.bytes_from_self(&held[..n]);
                }
                Step::Again
            }
            Framed::Newline => {
                self.bytes_from_self(b"\n");
                Step::Again
            }
            Framed::End => {
                self.end_doc();
                Step::Again
            }
            Framed::Done => {
                self.map.get().done(&mut self.out);
                Step::Again
            }
            Framed::Fault(f) => {
                if self.reader.doc != DocState::Between {
                    // A document cut by the fault is not also reported as bad JSON.
                    self.reader.quiet();
                    self.end_doc();
                    // What the document's end queued (an exception frame's error) goes out
                    // before the fault is reported.
                    self.fault = Some(f);
                } else {
                    self.out.fault(f.code(), f.message());
                }
                Step::Again
            }
            Framed::Finished => {
                if self.reader.doc != DocState::Between {
                    self.end_doc();
                }
                if let Some(n) = self.map.nested() {
                    n.eof(&mut self.out);
                }
                self.map.get().eof(&mut self.out);
                self.finished = true;
                Step::Again
            }
        }
    }

    fn begin_doc(&mut self) {
        self.reader.begin();
        let info = match &self.framing {
            Framing::Sse(f) => DocInfo {
                event: f.event_name(),
                ..DocInfo::default()
            },
            Framing::EventStream(f) => DocInfo {
                event: f.event_type(),
                message_type: f.message_type(),
                exception_type: f.exception_type(),
                error_code: f.error_code(),
                error_message: f.error_message(),
            },
            _ => DocInfo::default(),
        };
        self.map.get().begin(info, &mut self.out);
    }

    fn end_doc(&mut self) {
        let inner = self.reader.sink == Sink::Inner;
        let to = TextTo {
            route: &mut self.route,
            route_in: &mut self.route_in,
            out: &mut self.out,
        };
        self.reader.end(self.map.get(), to);
        if inner {
            // The document ended inside its nested one's base64 text.
            if let Some(n) = self.map.nested() {
                n.abort(TextTo {
                    route: &mut self.route,
                    route_in: &mut self.route_in,
                    out: &mut self.out,
                });
            }
        }
    }

    /// Payload bytes that are not in the input (an SSE line join, held `[DONE]` look-alike).
    fn bytes_from_self(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        while !rest.is_empty() && self.reader.doc == DocState::Open {
            match self.reader.lexer.next(&mut rest) {
                Lex::Token(t) => {
                    if let Some(text) = self.token(t) {
                        // Only text pieces of a string can come from these bytes; route
                        // them through the queue (they are not in the input).
                        text_bytes(self.reader.sink, self.text_to(), text.bytes());
                    }
                }
                Lex::NeedMore => break,
                Lex::Done => {
                    self.reader.doc = DocState::Skip;
                }
                Lex::Error(_) => self.reader.json_error(&mut self.out),
            }
        }
    }

    fn payload<'i>(&mut self, input: &mut &'i [u8], n: usize) -> Step<'i> {
        let n = n.min(input.len());
        if self.reader.doc != DocState::Open {
            // Skipping a failed document (or bytes after its value).
            self.consume(input, n);
            return Step::Again;
        }
        // The framing is told once what the step used.
        let start: &'i [u8] = input;
        let step = self.payload_run(input, n);
        let used = start.len() - input.len();
        self.consumed(&start[..used]);
        step
    }

    /// Tokens that make no event are handled in the same step (no trip through the framing
    /// for each). Advances `input` without telling the framing.
    fn payload_run<'i>(&mut self, input: &mut &'i [u8], n: usize) -> Step<'i> {
        let mut n = n;
        loop {
            if self.reader.capture.is_none() {
                let before = input.len();
                let (read, chunk) = self.quick(input, n);
                n -= before - input.len();
                if let Some(s) = chunk {
                    return Step::Chunk(s);
                }
                if n == 0 {
                    return Step::Again;
                }
                match read {
                    // A key changes the path only: nothing to hand out.
                    QuickRead::Key => continue,
                    QuickRead::Value if self.may_go_on() => continue,
                    QuickRead::Value => return Step::Again,
                    QuickRead::No => {}
                }
            }
            let before = input.len();
            let (step, quiet) = self.payload_token(input, n);
            n -= before - input.len();
            if !quiet || n == 0 || !self.may_go_on() {
                return step;
            }
        }
    }

    /// Can `payload` read on after a token: the document is open and nothing waits to be
    /// handed out or read first (queued events, held text to replay, text dialect input, a
    /// nested document's bytes).
    fn may_go_on(&mut self) -> bool {
        self.reader.doc == DocState::Open
            && !self.out.has_pending()
            && !self.out.replaying()
            && self.fault.is_none()
            && self.map.nested().is_none_or(|n| !n.pending())
            && self
                .route
                .as_ref()
                .is_none_or(|r| !r.draining && r.at >= r.len)
    }

    /// The lexer's fast path for strict JSON ([`Quick`]): whole keys, plain strings that are
    /// not text, integers and literals, handed to `token` as `next` would give them. `true`
    /// when it read a value or key.
    fn quick<'i>(&mut self, input: &mut &'i [u8], n: usize) -> (QuickRead, Option<&'i str>) {
        let all: &'i [u8] = &input[..n];
        let mut rest = all;
        let mut chunk = None;
        let q = self.reader.lexer.quick(&mut rest);
        let read = match q {
            Quick::No => QuickRead::No,
            Quick::Key(k) => {
                // What `token` does with its KeyStart, Text and KeyEnd (no value is captured).
                self.reader.path.whole_key(k);
                QuickRead::Key
            }
            Quick::Str(c) => {
                self.token(Token::StringStart);
                // Text goes out through `payload_token` (zero-copy chunks), and so does a
                // nested document's base64; the lexer is inside the string then.
                if self.reader.capture.is_none() && self.may_go_on() {
                    match self.reader.sink {
                        // What `Reader::token` does with its Text (nothing) and StringEnd.
                        Sink::Skip => self.reader.lexer.quick_string_end(&mut rest, c.len()),
                        Sink::Collect => {
                            // What `Reader::token` does with its Text and StringEnd.
                            self.reader.lexer.quick_string_end(&mut rest, c.len());
                            let map = self.map.get();
                            if !c.is_empty() {
                                map.piece(c, &mut self.out);
                            }
                            map.string_end(&self.reader.path, &mut self.out);
                            self.reader.sink = Sink::Skip;
                        }
                        // Text of the open block: handed out without a copy, as
                        // `payload_token` does.
                        Sink::Text {
                            ty,
                            choice,
                            refusal,
                        } if !c.is_empty()
                            && !self.routes(ty, refusal)
                            && self.out.is_open(ty, choice, refusal) =>
                        {
                            self.reader.lexer.quick_text(&mut rest, c.len());
                            let t = Token::Text(Text::Plain(Piece::Input(c)));
                            if let Some(TextOut::Input(s)) =
                                self.reader.token(t, self.map.get(), &mut self.out)
                            {
                                chunk = Some(s);
                            }
                        }
                        _ => {}
                    }
                }
                QuickRead::Value
            }
            Quick::Int(d) => {
                let map = self.map.get();
                self.reader.token(Token::NumberStart, map, &mut self.out);
                if self.reader.capture.is_none() && self.may_go_on() {
                    // What `Reader::token` does with its Number pieces and NumberEnd.
                    self.reader.lexer.quick_word_end();
                    let mut v = Some(0u64);
                    for &b in d {
                        v = v
                            .and_then(|v| v.checked_mul(10))
                            .and_then(|v| v.checked_add(u64::from(b - b'0')));
                    }
                    let v = v.map_or(Scalar::Number, Scalar::Int);
                    self.map.get().scalar(&self.reader.path, v, &mut self.out);
                }
                QuickRead::Value
            }
            Quick::Literal(l) => {
                // Not a string: `Decoder::token`'s nested-document work does not apply.
                let t = Token::Literal(l);
                self.reader.token(t, self.map.get(), &mut self.out);
                QuickRead::Value
            }
            Quick::Token(t @ (Token::StringEnd | Token::KeyEnd)) => {
                self.token(t);
                QuickRead::Value
            }
            Quick::Token(t) => {
                // A container's start or end (see above).
                self.reader.token(t, self.map.get(), &mut self.out);
                QuickRead::Value
            }
        };
        let used = n - rest.len();
        *input = &input[used..];
        (read, chunk)
    }

    /// One token of a payload; `true` with it when it was a token that made no event.
    fn payload_token<'i>(&mut self, input: &mut &'i [u8], n: usize) -> (Step<'i>, bool) {
        // Text that must first open its block, arguments and nested base64 text are read in
        // small steps (their bytes are copied; see `out.rs`).
        let limit = match self.reader.sink {
            // Text for the text dialect is copied to its input.
            Sink::Text { ty, refusal, .. } if self.routes(ty, refusal) => ROUTE_IN,
            Sink::Text {
                ty,
                choice,
                refusal,
            } if !self.out.is_open(ty, choice, refusal) => SMALL,
            Sink::Args => ARGS_STEP,
            Sink::Inner => NESTED_STEP,
            Sink::Hold => SMALL,
            // A captured value's output pieces are copied (one token's text ≤ ARGS_STEP).
            _ if self.reader.capture.is_some() => ARGS_STEP,
            _ => n,
        };
        let all = &input[..n];
        let mut rest = &all[..n.min(limit)];
        let lexed = self.reader.lexer.next(&mut rest);
        let used = n.min(limit) - rest.len();
        let mut quiet = false;
        let step = match lexed {
            Lex::Token(t) => match self.token(t) {
                Some(text) => {
                    if let Sink::Text {
                        ty,
                        choice,
                        refusal,
                    } = self.reader.sink
                    {
                        if self.out.is_open(ty, choice, refusal) && !self.out.has_pending() {
                            if let TextOut::Input(s) = text {
                                // `s` borrows the input: handed out without a copy.
                                *input = &input[used..];
                                return (Step::Chunk(s), false);
                            }
                        }
                    }
                    text_bytes(self.reader.sink, self.text_to(), text.bytes());
                    Step::Again
                }
                None => {
                    quiet = true;
                    Step::Again
                }
            },
            Lex::NeedMore => Step::Again,
            Lex::Done => {
                if matches!(self.framing, Framing::Whole) {
                    // Whole documents one after another: the next byte may start the next.
                    *input = &input[used..];
                    self.end_doc();
                    return (Step::Again, false);
                }
                self.reader.doc = DocState::Skip;
                Step::Again
            }
            Lex::Error(_) => {
                self.reader.json_error(&mut self.out);
                Step::Again
            }
        };
        *input = &input[used..];
        (step, quiet)
    }

    fn text_to(&mut self) -> TextTo<'_, 'a, 'a> {
        TextTo {
            route: &mut self.route,
            route_in: &mut self.route_in,
            out: &mut self.out,
        }
    }

    /// Does text of this kind run through the text dialect? (A provider's text does; its
    /// thinking and refusals do not.)
    fn routes(&self, ty: BlockType, refusal: bool) -> bool {
        ty == BlockType::Text && !refusal && self.route.is_some()
    }

    fn consume(&mut self, input: &mut &[u8], n: usize) {
        self.consumed(&input[..n]);
        *input = &input[n..];
    }

    /// Tells the framing that these payload bytes were used.
    fn consumed(&mut self, payload: &[u8]) {
        match &mut self.framing {
            Framing::Sse(f) => f.consumed(payload),
            Framing::JsonArray(f) => f.consumed(payload),
            Framing::EventStream(f) => f.consumed(payload),
            _ => {}
        }
    }

    /// One token of the body's document. A `Sink::Inner` string's start, base64 text and
    /// end go to the nested reader.
    #[inline(always)]
    fn token<'i>(&mut self, t: Token<'i>) -> Option<TextOut<'i>> {
        let before = self.reader.sink;
        let text = self.reader.token(t, self.map.get(), &mut self.out);
        let after = self.reader.sink;
        if before != Sink::Inner && after != Sink::Inner {
            return text;
        }
        if let Some(n) = self.map.nested() {
            if before != Sink::Inner {
                n.begin(&mut self.out);
            }
            if let Some(text) = &text {
                n.feed(text.bytes());
            }
            if after != Sink::Inner {
                n.end_text();
            }
        }
        None
    }
}

/// How many bytes of text one step hands to the text dialect.
const ROUTE_IN: usize = 256;
/// Its input buffer (a step's text, and a few held bytes the framing adds).
const ROUTE_INPUT: usize = ROUTE_IN + 16;

/// The text dialect: a [`Sieve`] fed the provider's text deltas (copied, `ROUTE_IN` bytes a
/// step), its block indices mapped into the decoder's.
struct Route<'a> {
    sieve: Sieve<'a>,
    /// Its input is `Decoder::route_in[at..len]`.
    at: u16,
    len: u16,
    /// `finish` was called on the sieve; its last events are being handed out.
    draining: bool,
    /// The choice whose text it reads.
    choice: u32,
    /// The choice of the text in its input (it becomes `choice` when that text is fed, after
    /// the last run has been drained).
    input_choice: u32,
    /// Its input came after a `FlushText` was queued: it is the next run's.
    behind_flush: bool,
    /// The sieve's open block and the decoder's index for it.
    block: Option<(u32, u32)>,
}

impl<'a> Route<'a> {
    fn new(sieve: Sieve<'a>) -> Self {
        Route {
            sieve,
            at: 0,
            len: 0,
            draining: false,
            choice: 0,
            input_choice: 0,
            behind_flush: false,
            block: None,
        }
    }

    fn reset(&mut self) {
        self.end_run();
        self.at = 0;
        self.len = 0;
    }

    /// The run is drained: the next text starts a fresh one (text already in the input
    /// stays).
    fn end_run(&mut self) {
        self.sieve.reset();
        self.draining = false;
        self.block = None;
    }

    /// Appends text (the decoder feeds it before its next step, so it always fits).
    fn push(&mut self, input: &mut [u8; ROUTE_INPUT], text: &[u8]) {
        if self.at >= self.len {
            // All fed: start over at the front (the sieve forgot the old bytes, see
            // `Sieve::step_detached`).
            self.at = 0;
            self.len = 0;
        }
        let at = self.len as usize;
        let n = text.len().min(ROUTE_INPUT - at);
        input[at..at + n].copy_from_slice(&text[..n]);
        self.len += n as u16;
    }

    /// The sieve's event with the decoder's block index and the choice.
    fn event<'s>(&'s mut self, step: Detached, input: &'s [u8], out: &mut Out) -> Event<'s> {
        let choice = self.choice;
        let ev = self.sieve.event_detached(step, &input[..self.len as usize]);
        let block = &mut self.block;
        let mut index_of = |i: u32| match *block {
            Some((s, ours)) if s == i => ours,
            _ => {
                let ours = out.take_index(choice);
                *block = Some((i, ours));
                ours
            }
        };
        match ev {
            Event::BlockStart {
                index, block_type, ..
            } => Event::BlockStart {
                index: index_of(index),
                block_type,
                choice,
            },
            Event::Chunk(mut c) => {
                c.block = index_of(c.block);
                c.choice = choice;
                Event::Chunk(c)
            }
            Event::BlockComplete(mut c) => {
                c.index = index_of(c.index);
                c.choice = choice;
                Event::BlockComplete(c)
            }
            other => other,
        }
    }
}

/// A text piece of a `Sink::Text` string: borrowed from the input, or a few decoded bytes.
enum TextOut<'i> {
    Input(&'i str),
    Owned { buf: [u8; 16], len: u8 },
}

impl TextOut<'_> {
    fn owned(bytes: &[u8]) -> Self {
        let mut buf = [0u8; 16];
        let n = crate::emit::floor_char_boundary(bytes, bytes.len().min(16));
        buf[..n].copy_from_slice(&bytes[..n]);
        TextOut::Owned { buf, len: n as u8 }
    }

    fn bytes(&self) -> &[u8] {
        match self {
            TextOut::Input(s) => s.as_bytes(),
            TextOut::Owned { buf, len } => &buf[..*len as usize],
        }
    }
}
