//! Provider streams ("chat mode"): the HTTP body of a streaming LLM API → the same events as
//! a dialect gives (docs/design.md "Provider streams"; the decisions in docs/providers.md).
//!
//! Data flows one way: body bytes → `frame` (SSE, JSON array, AWS event stream, NDJSON; the
//! first byte decides, and for `{` what follows the first document: see docs/providers.md) → JSON documents → the relaxed JSON [`Lexer`] with the
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
use crate::json::relaxed::{Lex, Lexer, Piece, Quick, Text, Token, Writer};
use crate::sieve::{Detached, Sieve};

mod anthropic;
pub(crate) mod base64;
mod bedrock;
mod error_fields;
pub(crate) mod frame;
mod gemini;
mod map;
mod nested;
mod ollama;
mod openai_chat;
mod openai_responses;
mod out;
mod path;
mod reader;
mod route;
mod setup;
mod slot;

use base64::Base64Stream;
use frame::{
    Framed, event_stream::EventStreamFramer, json_array::JsonArrayFramer, ndjson::NdjsonFramer,
    sse::SseFramer,
};
pub(crate) use map::{Capture, DocInfo, Map, Scalar, Sink, ValueStart};
use nested::{NESTED_STEP, Nested};
use out::{ARGS_STEP, Out, SMALL};

/// Room kept in the gathered text for what a read's piece may add beyond its input bytes
/// (a character completed across reads, a bare word's held bytes).
const ACC_MARGIN: usize = 32;
use path::Path;
use reader::{DocState, Reader, TextOut, TextTo, text_bytes};
use route::{ROUTE_IN, ROUTE_INPUT, Route};
pub use setup::{DecoderConfig, Provider};

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
    Ollama(ollama::Ollama),
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
            Provider::Ollama => Some(Mapper::Ollama(ollama::Ollama::new())),
        }
    }

    fn get(&mut self) -> &mut dyn Map {
        match self {
            Mapper::OpenAiChat(m) => m,
            Mapper::Gemini(m) => m,
            Mapper::Anthropic(m) => m,
            Mapper::Bedrock(m, _) => m,
            Mapper::OpenAiResponses(m) => m,
            Mapper::Ollama(m) => m,
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
    /// Newline-delimited JSON (Ollama): a `{`-first body whose first document is followed
    /// by a line end and more.
    Ndjson(NdjsonFramer),
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
    /// The provider's end marker (`[DONE]`) came: later documents are not decoded.
    ended: bool,
    /// Whole documents: one has ended (a line end after it, then more, means NDJSON).
    whole_seen: bool,
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
        Ok(Decoder::build(config, heap_bufs(limit), route))
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
        Ok(Decoder::build(config, heap_bufs(limit), route))
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
            // docs/providers.md: 0 is the default in every front end.
            max_frame_bytes: match config.max_frame_bytes {
                0 => frame::event_stream::DEFAULT_MAX_FRAME_BYTES,
                n => n,
            },
            fault: None,
            finishing: false,
            finished: false,
            ended: false,
            whole_seen: false,
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
        self.ended = false;
        self.whole_seen = false;
    }

    /// Says the body ended; then call [`next`](Self::next) with empty input until `None`.
    pub fn finish(&mut self) {
        self.finishing = true;
    }

    /// True once the stream has ended: `finish` was called and everything is handed out.
    pub fn is_done(&self) -> bool {
        self.finished
            && !self.out.has_pending()
            && !self.out.replaying()
            && self
                .route
                .as_ref()
                .is_none_or(|r| !r.draining && r.at >= r.len)
    }

    /// [`next`](Self::next) with every outcome named, as [`Sieve::pull`]: an event, "feed
    /// more", "the stream is done" — and input given after the stream was finished, which
    /// `next` leaves unread, refused as [`Misuse::InputAfterFinish`].
    ///
    /// [`Misuse::InputAfterFinish`]: crate::Misuse::InputAfterFinish
    ///
    /// ```
    /// use tokensieve::provider::{Decoder, DecoderConfig, Provider};
    /// use tokensieve::{Misuse, Pull};
    /// let config = DecoderConfig::new(Provider::OpenAiChat);
    /// let mut decoder = Decoder::new(&config).unwrap();
    /// let mut input = &b"data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n"[..];
    /// while let Pull::Event(_) = decoder.pull(&mut input).unwrap() {}
    /// decoder.finish();
    /// while let Pull::Event(_) = decoder.pull(&mut &b""[..]).unwrap() {}
    /// assert!(matches!(decoder.pull(&mut &b""[..]), Ok(Pull::Done)));
    /// assert!(matches!(decoder.pull(&mut &b"late"[..]), Err(Misuse::InputAfterFinish)));
    /// ```
    pub fn pull<'s, 'i: 's>(
        &'s mut self,
        input: &mut &'i [u8],
    ) -> Result<crate::Pull<'s>, crate::Misuse> {
        if self.is_done() && !input.is_empty() {
            return Err(crate::Misuse::InputAfterFinish);
        }
        let finishing = self.finishing;
        Ok(match self.next(input) {
            Some(event) => crate::Pull::Event(event),
            None if finishing => crate::Pull::Done,
            None => crate::Pull::NeedMore,
        })
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
    /// used up (feed the next read) or, after [`finish`](Self::finish), the stream is over
    /// (input given then is left unread: [`pull`](Self::pull) refuses it).
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
                Step::NeedMore if self.out.acc_pending() => {
                    // The read is used up: gathered text goes out now (rule 5).
                    self.out.flush_acc();
                }
                Step::NeedMore => return None,
                Step::Chunk(text) => return self.out.chunk(None, text),
            }
        }
    }

    /// One framing or JSON step.
    fn step<'i>(&mut self, input: &mut &'i [u8]) -> Step<'i> {
        if self.finished {
            // Input after the end is left unread, as `Sieve::next` does (`pull` refuses it).
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
                        if self.whole_seen && input[..ws].contains(&b'\n') {
                            // A line end after a whole document, and more: newline-delimited
                            // JSON (docs/providers.md), so a bad line costs only that line.
                            self.framing = Framing::Ndjson(NdjsonFramer::new());
                        }
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
            Framing::Ndjson(f) => {
                if self.finishing && input.is_empty() {
                    f.finish()
                } else {
                    f.next(input)
                }
            }
        };
        match framed {
            Framed::NeedMore => Step::NeedMore,
            Framed::Begin if self.ended => {
                // Data after the end marker is not decoded: the response is over and its
                // finish is out, which stays the last event (docs/providers.md). The
                // document stays `Between`, so its bytes are consumed unread.
                Step::Again
            }
            Framed::Begin => {
                self.begin_doc();
                Step::Again
            }
            Framed::Payload(n) => self.payload(input, n),
            Framed::Held => {
                let mut held = [0u8; 8];
                let h = match &mut self.framing {
                    Framing::Sse(f) => f.held(),
                    Framing::Ndjson(f) => f.held(),
                    _ => &[],
                };
                let n = h.len().min(8);
                held[..n].copy_from_slice(&h[..n]);
                self.bytes_from_self(&held[..n]);
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
                if !self.ended {
                    self.ended = true;
                    self.map.get().done(&mut self.out);
                }
                Step::Again
            }
            // After the end marker nothing is decoded, broken framing included.
            Framed::Fault(_) if self.ended => Step::Again,
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
            // (Not while text is gathered: a plain string would be handed out before it.)
            if self.reader.capture.is_none() && !self.out.acc_pending() {
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
            // Text gathered behind an escape (`Out::text_via_queue`): what still fits.
            Sink::Text { .. } if self.out.acc_pending() => match self.out.acc_room() {
                room if room < ACC_MARGIN * 2 => {
                    self.out.flush_acc();
                    return (Step::Again, false);
                }
                room => room - ACC_MARGIN,
            },
            Sink::Args => ARGS_STEP,
            // Escaping may grow text six-fold; one step's stays within one `args_text`.
            Sink::ArgsString => ARGS_STEP / 6,
            Sink::Inner => NESTED_STEP,
            // A mapper's held text (Gemini) goes to the text dialect a `small` at a time,
            // else it is gathered.
            Sink::Hold if self.route.is_some() => SMALL,
            Sink::Hold => match self.out.acc_room() {
                room if room < ACC_MARGIN * 2 => {
                    self.out.flush_acc();
                    return (Step::Again, false);
                }
                room => room - ACC_MARGIN,
            },
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
                        if self.out.is_open(ty, choice, refusal)
                            && !self.out.has_pending()
                            && !self.out.acc_pending()
                        {
                            if let TextOut::Input(s) = text {
                                if self.out.gathering && s.len() < out::GATHER_PLAIN {
                                    self.out.text_via_queue(s.as_bytes());
                                    *input = &input[used..];
                                    return (Step::Again, false);
                                }
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
                    self.whole_seen = true;
                    return (Step::Again, false);
                }
                self.reader.doc = DocState::Skip;
                Step::Again
            }
            Lex::Error(e) => {
                if e.kind == crate::json::relaxed::ErrorKind::TooDeep
                    && self
                        .reader
                        .capture
                        .is_some_and(|c| matches!(c.kind, Capture::Args | Capture::InitialArgs))
                {
                    // An inline arguments value (Gemini's `args`) nested past the lexer's
                    // bound: the call fails as too deep (the document is lost with it).
                    self.out.fail_args_nesting();
                }
                self.reader.json_error(&mut self.out);
                if matches!(self.framing, Framing::Whole) {
                    // A `{`-first body whose document failed: the rest of this line goes
                    // with it, and the next line is read as a document of its own (NDJSON),
                    // not skipped with the rest of the body.
                    self.framing = Framing::Ndjson(NdjsonFramer::in_line());
                }
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
            Framing::Ndjson(f) => f.consumed(payload),
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

/// The decoder's five held-bytes buffers on the heap, each bounded by `limit`.
#[cfg(feature = "alloc")]
fn heap_bufs<'a>(limit: usize) -> [Buf<'a>; 5] {
    [
        Buf::heap(limit),
        Buf::heap(limit),
        Buf::heap(limit),
        Buf::heap(limit),
        Buf::heap(limit),
    ]
}
