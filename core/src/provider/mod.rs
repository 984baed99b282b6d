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
use crate::source::{EventSource, Misuse, Pull};

mod anthropic;
pub(crate) mod base64;
mod bedrock;
mod cite;
#[cfg(feature = "alloc")]
mod config_json;
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
mod step;

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
#[cfg(feature = "alloc")]
pub use config_json::{DecoderConfigBuf, DecoderConfigError};
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
    ///
    /// The decoder keeps what it needs of `config` (the text dialect's options are copied),
    /// so the configuration may be a temporary:
    ///
    /// ```
    /// use tokensieve::provider::{Decoder, DecoderConfig, Provider};
    /// let mut decoder = Decoder::new(&DecoderConfig::new(Provider::OpenAiChat)).unwrap();
    /// let mut input = &b"data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n"[..];
    /// assert!(decoder.next(&mut input).is_some());
    /// ```
    #[cfg(feature = "alloc")]
    pub fn new(config: &DecoderConfig<'_>) -> Result<Decoder<'static>, ConfigError> {
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

    /// A decoder that owns its configuration (for bindings and long-lived hosts; the
    /// parser's is [`Sieve::from_config_buf`]).
    ///
    /// ```
    /// use tokensieve::provider::{Decoder, DecoderConfigBuf};
    /// fn make() -> Decoder<'static> {
    ///     let config = DecoderConfigBuf::from_json(
    ///         r#"{"provider":"openai-chat","text_dialect":"hermes"}"#).unwrap();
    ///     Decoder::from_config_buf(config).unwrap()
    /// }
    /// let mut decoder = make();
    /// let mut input = &b"data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n"[..];
    /// assert!(decoder.next(&mut input).is_some());
    /// ```
    #[cfg(feature = "alloc")]
    pub fn from_config_buf(config: DecoderConfigBuf) -> Result<Decoder<'static>, ConfigError> {
        Decoder::new(&config.config())
    }

    /// The old owned constructor: [`new`](Decoder::new) now keeps what it needs of its
    /// configuration, and [`from_config_buf`](Decoder::from_config_buf) is the owned
    /// constructor's name on both `Sieve` and `Decoder`.
    #[cfg(feature = "alloc")]
    #[deprecated(
        since = "0.1.0",
        note = "use `Decoder::new` (it copies what it needs) or `Decoder::from_config_buf`"
    )]
    pub fn owned(config: &DecoderConfig<'_>) -> Result<Decoder<'static>, ConfigError> {
        Decoder::new(config)
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
    pub fn pull<'s, 'i: 's>(&'s mut self, input: &mut &'i [u8]) -> Result<Pull<'s>, Misuse> {
        if self.is_done() && !input.is_empty() {
            return Err(Misuse::InputAfterFinish);
        }
        let finishing = self.finishing;
        Ok(match self.next(input) {
            Some(event) => Pull::Event(event),
            None if finishing => Pull::Done,
            None => Pull::NeedMore,
        })
    }

    /// Feeds one read and hands every event it completes to `f`
    /// ([`EventSource::feed_with`]).
    #[inline]
    pub fn feed_with(&mut self, input: &[u8], f: impl FnMut(Event<'_>)) {
        EventSource::feed_with(self, input, f)
    }

    /// Ends the body and hands the remaining events to `f` ([`EventSource::finish_with`]).
    #[inline]
    pub fn finish_with(&mut self, f: impl FnMut(Event<'_>)) {
        EventSource::finish_with(self, f)
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
                        // Round again: a `FlushText` at the queue's front is the decoder's to
                        // take (finish and drain the dialect), not `pop`'s to skip (F23: the
                        // dialect's open call never completed before an error or the finish).
                        continue;
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

/// Bedrock InvokeModelWithResponseStream's `amazon-bedrock-invocationMetrics` (in the last
/// chunk, whatever the model family's format): `inputTokenCount` and `outputTokenCount` are
/// the usage Bedrock bills, so they are the usage (the last value wins, as for every usage
/// field; for Anthropic models they equal the message's own counts). True when `n` was one.
fn invocation_metrics(p: &path::Path, n: u64, out: &mut out::Out) -> bool {
    if p.depth() != 2 || p.key(1) != path::Key::InvocationMetrics {
        return false;
    }
    match p.key(2) {
        path::Key::InputTokenCount => out.usage.input_tokens = Some(n),
        path::Key::OutputTokenCount => out.usage.output_tokens = Some(n),
        _ => {}
    }
    true
}
