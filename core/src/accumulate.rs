//! (alloc) Owned events with the accumulated fields: a block's `content`, a call's `input`.
//!
//! The core's events borrow and carry no accumulated text (that would need a heap). A
//! [`Collector`] watches the events of one stream and turns each into an [`OwnedEvent`],
//! adding `content` (text, thinking, tool_result) and `input` (tool_call, as the compact
//! JSON text its input chunks concatenate to) to completions. [`OwnedEvent::to_json`] writes
//! the JSON form of docs/design.md that the CLI, the conformance vectors and the bindings share.

use alloc::string::String;
use alloc::vec::Vec;

use crate::event::{BlockType, ErrorReason, ErrorSource, Event, FinishReason, Part, Usage};
use crate::json::escape_piece;

/// An event that owns its texts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OwnedEvent {
    /// A block begins.
    BlockStart {
        /// Block index.
        index: u32,
        /// Block type.
        block_type: BlockType,
        /// The choice (provider streams with `n > 1`; else 0).
        choice: u32,
    },
    /// A piece of the open block.
    Chunk {
        /// The text.
        text: String,
        /// The block's type.
        block_type: BlockType,
        /// The block's index.
        block: u32,
        /// Nesting depth.
        depth: u8,
        /// For tool calls: the part.
        part: Option<Part>,
        /// The tool name, once known.
        tool_name: Option<String>,
        /// The tool id, once known.
        tool_id: Option<String>,
        /// The choice.
        choice: u32,
    },
    /// A block ends.
    BlockComplete {
        /// Block index.
        index: u32,
        /// Block type.
        block_type: BlockType,
        /// The concatenated chunks (text, thinking, tool_result).
        content: Option<String>,
        /// Tool name.
        tool_name: Option<String>,
        /// Tool id.
        tool_id: Option<String>,
        /// A successful call's input: compact JSON text of an object.
        input: Option<String>,
        /// A failed call: why, and its raw bytes.
        error: Option<(ErrorReason, Vec<u8>)>,
        /// An error result.
        is_error: bool,
        /// The choice.
        choice: u32,
        /// A refusal text block.
        refusal: bool,
        /// A server-side tool call or result.
        server: bool,
        /// Opaque signature to send back.
        signature: Option<String>,
        /// Redacted thinking to send back.
        redacted: Option<String>,
        /// A thinking block that is a compaction.
        compaction: bool,
        /// A text block's citations to send back: a JSON array, compact, as the provider
        /// sent each citation ([`BlockComplete::citations`](crate::BlockComplete::citations)).
        citations: Option<String>,
    },
    /// A stop sequence ended the stream.
    Stop {
        /// The stop sequence.
        sequence: String,
    },
    /// A provider response (or choice) ended.
    Finish {
        /// Normalised reason.
        reason: FinishReason,
        /// The provider's word.
        raw_reason: Option<String>,
        /// Token counts.
        usage: Option<Usage>,
        /// Response id.
        response_id: Option<String>,
        /// Model.
        model: Option<String>,
        /// The choice.
        choice: u32,
    },
    /// A provider or framing error; the stream went on.
    Error {
        /// Who reported it.
        source: ErrorSource,
        /// Code or type.
        code: Option<String>,
        /// What was wrong.
        message: String,
    },
}

/// Accumulates block contents over one stream.
///
/// ```
/// use tokensieve::{Config, Dialect, Sieve};
/// use tokensieve::accumulate::Collector;
/// let config = Config::new(Dialect::Passthrough);
/// let mut sieve = Sieve::new(&config).unwrap();
/// let mut collector = Collector::new();
/// let mut lines = Vec::new();
/// sieve.feed_with(b"Hi <thinking>hmm</thinking>", |ev| lines.push(collector.push(&ev).to_json()));
/// sieve.finish_with(|ev| lines.push(collector.push(&ev).to_json()));
/// assert_eq!(lines[2], r#"{"event":"block_complete","index":0,"type":"text","content":"Hi "}"#);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Collector {
    content: String,
    input: String,
}

impl Collector {
    /// A collector for a new stream.
    pub fn new() -> Collector {
        Collector::default()
    }

    /// Records `event` and returns it owned, with accumulated fields on completions.
    pub fn push(&mut self, event: &Event<'_>) -> OwnedEvent {
        match *event {
            Event::BlockStart {
                index,
                block_type,
                choice,
            } => {
                self.content.clear();
                self.input.clear();
                OwnedEvent::BlockStart {
                    index,
                    block_type,
                    choice,
                }
            }
            Event::Chunk(c) => {
                if c.part == Some(Part::Input) {
                    self.input.push_str(c.text);
                } else if c.part.is_none() {
                    self.content.push_str(c.text);
                }
                OwnedEvent::Chunk {
                    text: c.text.into(),
                    block_type: c.block_type,
                    block: c.block,
                    depth: c.depth,
                    part: c.part,
                    tool_name: c.tool_name.map(Into::into),
                    tool_id: c.tool_id.map(Into::into),
                    choice: c.choice,
                }
            }
            Event::BlockComplete(b) => {
                let tool = b.block_type == BlockType::ToolCall;
                OwnedEvent::BlockComplete {
                    index: b.index,
                    block_type: b.block_type,
                    content: (!tool).then(|| core::mem::take(&mut self.content)),
                    tool_name: b.tool_name.map(Into::into),
                    tool_id: b.tool_id.map(Into::into),
                    input: (tool && b.error.is_none()).then(|| core::mem::take(&mut self.input)),
                    error: b.error.map(|e| (e.reason, e.raw.into())),
                    is_error: b.is_error,
                    choice: b.choice,
                    refusal: b.refusal,
                    server: b.server,
                    signature: b.signature.map(Into::into),
                    redacted: b.redacted().map(Into::into),
                    compaction: b.compaction,
                    citations: b.citations().map(Into::into),
                }
            }
            Event::Stop { sequence } => OwnedEvent::Stop {
                sequence: sequence.into(),
            },
            Event::Finish(f) => OwnedEvent::Finish {
                reason: f.reason,
                raw_reason: f.raw_reason.map(Into::into),
                usage: f.usage.copied(),
                response_id: f.response_id.map(Into::into),
                model: f.model.map(Into::into),
                choice: f.choice,
            },
            Event::Error(e) => OwnedEvent::Error {
                source: e.source,
                code: e.code.map(Into::into),
                message: e.message.into(),
            },
        }
    }
}

/// Appends `s` as a JSON string literal.
pub fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    let mut rest = s.as_bytes();
    while !rest.is_empty() {
        match escape_piece(rest) {
            crate::json::EscapePiece::Run(n) => {
                // `n` ends before an ASCII byte or at the end: a char boundary.
                out.push_str(core::str::from_utf8(&rest[..n]).unwrap_or("\u{FFFD}"));
                rest = &rest[n..];
            }
            crate::json::EscapePiece::Escape(e) => {
                out.push_str(e);
                rest = &rest[1..];
            }
        }
    }
    out.push('"');
}

impl OwnedEvent {
    /// The JSON form of docs/design.md: one object, keys as in its table, absent fields omitted.
    pub fn to_json(&self) -> String {
        let mut o = String::new();
        let kv_str = |o: &mut String, k: &str, v: &str| {
            o.push_str(",\"");
            o.push_str(k);
            o.push_str("\":");
            write_json_string(o, v);
        };
        let kv_raw = |o: &mut String, k: &str, v: &str| {
            o.push_str(",\"");
            o.push_str(k);
            o.push_str("\":");
            o.push_str(v);
        };
        match self {
            OwnedEvent::BlockStart {
                index,
                block_type,
                choice,
            } => {
                o.push_str("{\"event\":\"block_start\"");
                kv_raw(&mut o, "index", &itoa(*index));
                kv_str(&mut o, "type", block_type.as_str());
                choice_json(&mut o, *choice);
            }
            OwnedEvent::Chunk {
                text,
                block_type,
                block,
                depth,
                part,
                tool_name,
                tool_id,
                choice,
            } => {
                o.push_str("{\"event\":\"chunk\"");
                kv_str(&mut o, "text", text);
                kv_str(&mut o, "type", block_type.as_str());
                let visible = if *block_type == BlockType::Text {
                    "true"
                } else {
                    "false"
                };
                kv_raw(&mut o, "visible", visible);
                kv_raw(&mut o, "block", &itoa(*block));
                kv_raw(&mut o, "depth", &itoa(u32::from(*depth)));
                if let Some(p) = part {
                    kv_str(&mut o, "part", p.as_str());
                }
                if let Some(n) = tool_name {
                    kv_str(&mut o, "tool_name", n);
                }
                if let Some(i) = tool_id {
                    kv_str(&mut o, "tool_id", i);
                }
                choice_json(&mut o, *choice);
            }
            OwnedEvent::BlockComplete {
                index,
                block_type,
                content,
                tool_name,
                tool_id,
                input,
                error,
                is_error,
                choice,
                refusal,
                server,
                signature,
                redacted,
                compaction,
                citations,
            } => {
                o.push_str("{\"event\":\"block_complete\"");
                kv_raw(&mut o, "index", &itoa(*index));
                kv_str(&mut o, "type", block_type.as_str());
                if let Some(c) = content {
                    kv_str(&mut o, "content", c);
                }
                if let Some(n) = tool_name {
                    kv_str(&mut o, "tool_name", n);
                }
                if let Some(i) = tool_id {
                    kv_str(&mut o, "tool_id", i);
                }
                if let Some(i) = input {
                    kv_raw(&mut o, "input", i);
                }
                if let Some((reason, raw)) = error {
                    o.push_str(",\"error\":{\"reason\":");
                    write_json_string(&mut o, reason.as_str());
                    o.push_str(",\"raw\":");
                    write_json_string(&mut o, &String::from_utf8_lossy(raw));
                    o.push('}');
                }
                if *is_error {
                    kv_raw(&mut o, "is_error", "true");
                }
                choice_json(&mut o, *choice);
                if *refusal {
                    kv_raw(&mut o, "refusal", "true");
                }
                if *server {
                    kv_raw(&mut o, "server", "true");
                }
                if let Some(s) = signature {
                    kv_str(&mut o, "signature", s);
                }
                if let Some(r) = redacted {
                    kv_str(&mut o, "redacted", r);
                }
                if *compaction {
                    kv_raw(&mut o, "compaction", "true");
                }
                if let Some(c) = citations {
                    // Already compact JSON (an array the decoder assembled).
                    kv_raw(&mut o, "citations", c);
                }
            }
            OwnedEvent::Stop { sequence } => {
                o.push_str("{\"event\":\"stop\"");
                kv_str(&mut o, "sequence", sequence);
            }
            OwnedEvent::Finish {
                reason,
                raw_reason,
                usage,
                response_id,
                model,
                choice,
            } => {
                o.push_str("{\"event\":\"finish\"");
                kv_str(&mut o, "reason", reason.as_str());
                if let Some(r) = raw_reason {
                    kv_str(&mut o, "raw_reason", r);
                }
                if let Some(u) = usage {
                    o.push_str(",\"usage\":");
                    usage_json(&mut o, u);
                }
                if let Some(r) = response_id {
                    kv_str(&mut o, "response_id", r);
                }
                if let Some(m) = model {
                    kv_str(&mut o, "model", m);
                }
                choice_json(&mut o, *choice);
            }
            OwnedEvent::Error {
                source,
                code,
                message,
            } => {
                o.push_str("{\"event\":\"error\"");
                kv_str(&mut o, "source", source.as_str());
                if let Some(c) = code {
                    kv_str(&mut o, "code", c);
                }
                kv_str(&mut o, "message", message);
            }
        }
        o.push('}');
        o
    }
}

fn choice_json(o: &mut String, choice: u32) {
    if choice != 0 {
        o.push_str(",\"choice\":");
        o.push_str(&itoa(choice));
    }
}

fn usage_json(o: &mut String, u: &Usage) {
    use core::fmt::Write;
    o.push('{');
    let fields = [
        ("input_tokens", u.input_tokens),
        ("output_tokens", u.output_tokens),
        ("cache_read_tokens", u.cache_read_tokens),
        ("cache_write_tokens", u.cache_write_tokens),
        ("reasoning_tokens", u.reasoning_tokens),
    ];
    let mut first = true;
    for (k, v) in fields {
        if let Some(v) = v {
            if !first {
                o.push(',');
            }
            first = false;
            let _ = write!(o, "\"{k}\":{v}");
        }
    }
    o.push('}');
}

fn itoa(n: u32) -> String {
    use core::fmt::Write;
    let mut s = String::new();
    let _ = write!(s, "{n}");
    s
}
