//! Anthropic Messages: the streamed events (`message_start`, `content_block_start` /
//! `_delta` / `_stop`, `message_delta`, `message_stop`, `ping`, `error`), one whole
//! non-streaming `message` body, or a bare error body.
//!
//! Decisions go by the JSON `type` fields, never by the SSE event name alone: Bedrock's
//! InvokeModelWithResponseStream wraps these same event documents without SSE names.
//!
//! Paths read (depth = containers open at the value):
//! - `type` (1): the event (or `message` for a whole body, `error` for an error body).
//! - `message` (2, `message_start`): `id`, `model`, `usage` (3). Its `content` is a snapshot,
//!   not content. A second `message_start` is an error (`unexpected-message-start`).
//! - A content block: `content_block` (2, `content_block_start`) or `content[i]` (3, a whole
//!   body): `type`, `text` → text, `thinking` → thinking, `signature` and `data`
//!   (`redacted_thinking`) → the thinking block's `signature` / `redacted`, `id`, `name`,
//!   `input` (the call's initial arguments: nothing when `{}`), `tool_use_id` and `content`
//!   of a `*_tool_result` block (a `tool_result` block, `server: true`); a `compaction`
//!   block's `content` → thinking and `encrypted_content` → `redacted` (`compaction: true`).
//! - `delta` (2): `type`, `text`, `thinking`, `signature`, `partial_json` (the open call's
//!   arguments), `content` and `encrypted_content` (`compaction_delta`), `citation`
//!   (`citations_delta`: captured into the text block's citations, `cite`), `stop_reason`
//!   (`message_delta`). A text block's `citations` elements are captured the same way.
//! - `usage` (2, `message_delta` and a whole body), `stop_reason` (1, a whole body).
//! - `error` (2): `type`, `message`, `code`; an `error` document without one: its own fields.
//!
//! Blocks follow the wire's: a `content_block_start` completes the open block, a
//! `content_block_stop` completes it; a block still open at `message_delta` was cut short
//! (`max_tokens`), so a call in it fails as `unfinished` unless its input parses.

use super::cite;
use super::error_fields::ErrorFields;
use super::out::{Out, Slot};
use super::path::{Key, Keys, Path, keys, unread_by};
use super::{Capture, DocInfo, Map, Scalar, Sink, ValueStart};
use crate::event::{BlockType, ErrorSource, FinishReason};

/// The document's event (its top-level `type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    Unknown,
    MessageStart,
    ContentBlockStart,
    ContentBlockDelta,
    ContentBlockStop,
    MessageDelta,
    MessageStop,
    Error,
    /// A whole non-streaming body.
    Message,
}

/// A content block's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Its `type` is not read yet (its keys decide).
    Unknown,
    Text,
    Thinking,
    Redacted,
    /// `tool_use`; a server's (`server_tool_use`, `mcp_tool_use`, …) when `server`.
    ToolUse {
        server: bool,
    },
    /// A server tool's `*_tool_result`.
    ToolResult,
    /// `compaction`: a thinking block marked `compaction` (docs/providers.md).
    Compaction,
    /// A type this mapping does not know: skipped.
    Other,
}

fn kind_of(ty: &[u8]) -> Kind {
    match ty {
        b"text" => Kind::Text,
        b"thinking" => Kind::Thinking,
        b"redacted_thinking" => Kind::Redacted,
        b"compaction" => Kind::Compaction,
        b"tool_use" => Kind::ToolUse { server: false },
        t if t.ends_with(b"_tool_use") => Kind::ToolUse { server: true },
        t if t.ends_with(b"_tool_result") => Kind::ToolResult,
        _ => Kind::Other,
    }
}

/// A delta's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Delta {
    Unknown,
    Text,
    Thinking,
    Signature,
    InputJson,
    Compaction,
    Citations,
    Other,
}

fn delta_of(ty: &[u8]) -> Delta {
    match ty {
        b"text_delta" => Delta::Text,
        b"thinking_delta" => Delta::Thinking,
        b"signature_delta" => Delta::Signature,
        b"input_json_delta" => Delta::InputJson,
        b"compaction_delta" => Delta::Compaction,
        b"citations_delta" => Delta::Citations,
        _ => Delta::Other,
    }
}

/// What a `Collect` string is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum What {
    None,
    /// The top-level `type`.
    EvType,
    BlockType,
    DeltaType,
    /// A block's `id` or `tool_use_id`.
    BlockId,
    BlockName,
    Signature,
    Redacted,
    /// A compaction's `encrypted_content`: each value replaces the one before.
    Encrypted,
    StopReason,
    ResponseId,
    Model,
    ErrMessage,
    ErrCode,
    ErrType,
}

/// The content block being read (the last one the wire opened).
#[derive(Clone, Copy)]
struct Block {
    kind: Kind,
    ty: Slot,
    id: Slot,
    name: Slot,
    /// Its tool_call / tool_result block was opened.
    opened: bool,
    /// Its call number (`OpenBlock::call`).
    call: u32,
}

const BLOCK: Block = Block {
    kind: Kind::Unknown,
    ty: Slot::EMPTY,
    id: Slot::EMPTY,
    name: Slot::EMPTY,
    opened: false,
    call: 0,
};

const RESTARTED: &[u8] = b"a second message_start: the message restarted";
const SIG_DROPPED: &str =
    "a thinking block's signature or redacted data exceeded max_call_bytes; it is dropped";
const ENC_DROPPED: &str =
    "a compaction block's encrypted_content exceeded max_call_bytes; it is dropped";

pub(crate) struct Anthropic {
    ev: Ev,
    what: What,
    /// A collected word: a `type`, a stop reason, an id or model.
    word: Slot,
    block: Block,
    delta: Delta,
    next_call: u32,
    /// A `message_start` was read.
    started: bool,
    /// The content block's signature (or redacted data) outgrew its memory.
    sig_dropped: bool,
    /// The document's top-level value completed.
    complete: bool,
    err: ErrorFields,
    /// The document is an SSE `event: error`.
    event_error: bool,
    /// The document's top-level `index` (a content block event's block).
    doc_index: Option<u64>,
    /// The wire index of the content block started and not stopped.
    open_index: Option<u64>,
    /// A `partial_json` was skipped: the block it names is not a tool call.
    args_skipped: bool,
    /// An `encrypted_content` string began: its first piece replaces the value held.
    enc_fresh: bool,
    /// The value captured is a citation (`cite`).
    citing: bool,
}

/// The decoder's own error for a content block event whose `index` names no open block.
const BAD_INDEX: &[u8] = b"a content block event names a block that is not open";
const BAD_INDEX_CODE: &[u8] = b"unexpected-block-index";

impl Anthropic {
    pub(crate) const fn new() -> Anthropic {
        Anthropic {
            ev: Ev::Unknown,
            what: What::None,
            word: Slot::EMPTY,
            block: BLOCK,
            delta: Delta::Unknown,
            next_call: 0,
            started: false,
            sig_dropped: false,
            complete: false,
            err: ErrorFields::NEW,
            event_error: false,
            doc_index: None,
            open_index: None,
            args_skipped: false,
            enc_fresh: false,
            citing: false,
        }
    }

    /// Reports a content block event whose `index` is not the open block's (the open
    /// block completes first, as before any error).
    fn bad_index(out: &mut Out) {
        out.message.clear();
        let _ = out.message.push(BAD_INDEX);
        out.error_held(ErrorSource::Provider, Some(BAD_INDEX_CODE));
    }

    /// The depth of the content block object `p` is in: 2 (`content_block`), 3 (a whole
    /// body's `content[i]`).
    fn block_level(p: &Path) -> Option<u32> {
        let d = p.depth();
        match p.key(1) {
            Key::ContentBlock if d >= 2 => Some(2),
            Key::Content if d >= 3 && p.key(2) == Key::Other => Some(3),
            _ => None,
        }
    }

    /// `p` is a member of the content block object.
    fn in_block(p: &Path) -> bool {
        Self::block_level(p) == Some(p.depth())
    }

    /// `p` is a member of a content block delta.
    fn in_delta(p: &Path) -> bool {
        p.depth() == 2 && p.key(1) == Key::Delta
    }

    /// The block kind, or what the key says when its `type` is not read yet.
    fn kind_or(&self, guess: Kind) -> Kind {
        match self.block.kind {
            Kind::Unknown => guess,
            k => k,
        }
    }

    fn delta_or(&self, guess: Delta) -> Delta {
        match self.delta {
            Delta::Unknown => guess,
            d => d,
        }
    }

    /// Makes the block's tool_call (or tool_result) block the open one.
    fn open_tool(&mut self, out: &mut Out) {
        let b = &mut self.block;
        match b.kind {
            Kind::ToolUse { server } => {
                let open =
                    matches!(out.open, Some(o) if o.ty == BlockType::ToolCall && o.call == b.call);
                if !open {
                    if !b.opened {
                        b.call = self.next_call;
                        self.next_call += 1;
                    }
                    out.open_call(0, b.call, server, b.name.bytes(), b.id.bytes());
                }
            }
            Kind::ToolResult => {
                if !b.opened {
                    out.open_result(0, true, b.ty.bytes(), b.id.bytes());
                }
            }
            _ => return,
        }
        b.opened = true;
    }

    /// The thinking block a signature or redacted data belongs to: the open one, else a new
    /// one (a block with nothing but a signature still appears).
    fn sig_block(out: &mut Out) {
        let index = match out.open {
            Some(o) if o.ty == BlockType::Thinking && o.choice == 0 && !o.refusal => o.index,
            _ => {
                out.open_text(BlockType::Thinking, 0, false);
                out.open.map_or(0, |o| o.index)
            }
        };
        if out.sig_block != Some(index) {
            out.sig_block = Some(index);
            out.signature.clear();
            out.redacted.clear();
        }
    }

    /// The compaction block is the open block (one is opened unless open): compaction text
    /// and `encrypted_content` go to it, not to a thinking block open before.
    fn compaction_block(out: &mut Out) {
        if !matches!(out.open, Some(o) if o.compaction && o.choice == 0) {
            out.open_text(BlockType::Thinking, 0, false);
            if let Some(o) = out.open.as_mut() {
                o.compaction = true;
            }
        }
    }

    /// A `content_block_delta` that names another block than the open one (an
    /// `unexpected-block-index` error at its end).
    fn foreign_delta(&self) -> bool {
        self.ev == Ev::ContentBlockDelta
            && self.doc_index.is_some()
            && self.doc_index != self.open_index
    }

    /// A citation object starts: it is captured into the text block's citations (a text
    /// block is opened unless one is: the citation comes before the text it cites).
    fn citation(&mut self, out: &mut Out) -> Option<Capture> {
        if self.sig_dropped {
            return None;
        }
        if !out.is_open(BlockType::Text, 0, false) || self.foreign_delta() {
            // A citation of another block than the open text block goes on a block of its
            // own (never on the open one's list).
            out.open_text(BlockType::Text, 0, false);
        }
        self.citing = cite::begin(out);
        self.citing.then_some(Capture::Citation)
    }

    /// A content block object opens: the open block completes.
    fn block_open(&mut self, out: &mut Out) {
        out.close();
        self.block = Block {
            call: self.block.call,
            ..BLOCK
        };
        self.delta = Delta::Unknown;
        self.sig_dropped = false;
    }

    /// A content block object closes: a call or result with nothing in it still appears;
    /// a whole body's block completes.
    fn block_close(&mut self, level: u32, out: &mut Out) {
        if matches!(self.block.kind, Kind::ToolUse { .. } | Kind::ToolResult) && !self.block.opened
        {
            self.open_tool(out);
        }
        if level == 3 {
            out.close();
        }
    }
}

fn reason_of(raw: &[u8]) -> FinishReason {
    match raw {
        b"end_turn" | b"stop_sequence" => FinishReason::Stop,
        b"max_tokens" | b"model_context_window_exceeded" => FinishReason::Length,
        b"tool_use" => FinishReason::ToolCalls,
        b"refusal" => FinishReason::Refusal,
        _ => FinishReason::Other,
    }
}

fn ev_of(ty: &[u8]) -> Ev {
    match ty {
        b"message_start" => Ev::MessageStart,
        b"content_block_start" => Ev::ContentBlockStart,
        b"content_block_delta" => Ev::ContentBlockDelta,
        b"content_block_stop" => Ev::ContentBlockStop,
        b"message_delta" => Ev::MessageDelta,
        b"message_stop" => Ev::MessageStop,
        b"error" => Ev::Error,
        b"message" => Ev::Message,
        _ => Ev::Unknown,
    }
}

/// A member whose value this mapper reads nothing of, at any depth (`Capture::Skip`): at the
/// top level every key but the paths of the module docs, in `message_start`'s `message`
/// all but `id`, `model` and `usage` (its `content` is a snapshot, `role`, `stop_sequence`,
/// … are not read). Deeper values are read as before.
fn unread(p: &Path, k: Key) -> bool {
    const TOP: Keys = keys(&[
        Key::Type,
        Key::Index,
        Key::Message,
        Key::ContentBlock,
        Key::Delta,
        Key::Usage,
        Key::Error,
        Key::Content,
        Key::StopReason,
        Key::Id,
        Key::Model,
        Key::Code,
        // Bedrock InvokeModel's Anthropic-format chunks (`invocation_metrics`).
        Key::InvocationMetrics,
    ]);
    const MESSAGE: Keys = keys(&[Key::Id, Key::Model, Key::Usage]);
    let read = match p.depth() {
        1 => Some(TOP),
        2 if p.key(1) == Key::Message => Some(MESSAGE),
        _ => None,
    };
    unread_by(read, k)
}

impl Map for Anthropic {
    fn reset_state(&mut self) {
        *self = Anthropic::new();
    }

    fn begin(&mut self, doc: DocInfo<'_>, out: &mut Out) {
        self.ev = Ev::Unknown;
        self.what = What::None;
        self.complete = false;
        self.err.seen = false;
        self.event_error = doc.event == b"error";
        self.doc_index = None;
        self.args_skipped = false;
        // The document's own fields are collected: whether it is an error may be known
        // only at its end.
        self.err.start(1, out);
    }

    fn open(&mut self, p: &Path, out: &mut Out) {
        let d = p.depth();
        if Self::block_level(p) == Some(d) {
            self.block_open(out);
        } else if d == 2 && p.key(1) == Key::Delta {
            self.delta = Delta::Unknown;
            if self.foreign_delta() && out.open.is_some_and(|o| out.sig_block == Some(o.index)) {
                // A delta of another block than the open one (its stop and the next start
                // left out) while the open block holds citations or a signature: it
                // completes here, at a token boundary, so they are handed out before the
                // next block's claim the buffers they share (docs/providers.md, "Citations").
                out.close();
            }
        } else if d == 2 && p.key(1) == Key::Message {
            if self.started {
                // docs/providers.md: the decoder's own error; the new message goes on in
                // the same index space.
                out.message.clear();
                let _ = out.message.push(RESTARTED);
                out.error_held(ErrorSource::Provider, Some(b"unexpected-message-start"));
            }
            self.started = true;
            self.open_index = None;
        } else if d == 2 && p.key(1) == Key::Error && self.err.depth == 1 {
            self.err.start(2, out);
        }
    }

    fn close(&mut self, p: &Path, out: &mut Out) {
        let d = p.depth();
        if let Some(level) = Self::block_level(p).filter(|&l| l == d) {
            self.block_close(level, out);
        } else if d == 2 && self.err.depth == 2 && p.key(1) == Key::Error {
            self.err.report(out);
        } else if d == 1 {
            self.complete = true;
        }
    }

    fn string(&mut self, p: &Path, out: &mut Out) -> Sink {
        let d = p.depth();
        let key = p.last_key();
        self.what = What::None;
        let err_field = match key {
            Key::Message => What::ErrMessage,
            Key::Code => What::ErrCode,
            Key::Type => What::ErrType,
            _ => What::None,
        };
        if self.err.depth == 2 && d == 2 && p.key(1) == Key::Error && err_field != What::None {
            self.what = err_field;
        } else if d == 1 {
            self.what = match key {
                Key::Type => What::EvType,
                Key::Message | Key::Code => err_field,
                Key::Error => {
                    // `{"error": "text"}`
                    self.err.start(1, out);
                    What::ErrMessage
                }
                Key::Id => What::ResponseId,
                Key::Model => What::Model,
                Key::StopReason => What::StopReason,
                _ => What::None,
            };
        } else if d == 2 && p.key(1) == Key::Message {
            self.what = match key {
                Key::Id => What::ResponseId,
                Key::Model => What::Model,
                _ => What::None,
            };
        } else if Self::in_block(p) {
            let text = |ty| Sink::Text {
                ty,
                choice: 0,
                refusal: false,
            };
            match (key, self.block.kind) {
                (Key::Type, _) => self.what = What::BlockType,
                (Key::Text, _) if self.kind_or(Kind::Text) == Kind::Text => {
                    return text(BlockType::Text);
                }
                (Key::Thinking, _) if self.kind_or(Kind::Thinking) == Kind::Thinking => {
                    return text(BlockType::Thinking);
                }
                (Key::Signature, _) if self.kind_or(Kind::Thinking) == Kind::Thinking => {
                    self.what = What::Signature;
                }
                (Key::Data, Kind::Redacted) => self.what = What::Redacted,
                (Key::Content, Kind::Compaction) => {
                    Self::compaction_block(out);
                    return text(BlockType::Thinking);
                }
                (Key::EncryptedContent, Kind::Compaction) => self.what = What::Encrypted,
                (Key::Id | Key::ToolUseId, _) => self.what = What::BlockId,
                (Key::Name, _) => self.what = What::BlockName,
                _ => {}
            }
        } else if Self::in_delta(p) {
            let text = |ty| Sink::Text {
                ty,
                choice: 0,
                refusal: false,
            };
            match key {
                Key::Type => self.what = What::DeltaType,
                Key::Text if self.delta_or(Delta::Text) == Delta::Text => {
                    return text(BlockType::Text);
                }
                Key::Thinking if self.delta_or(Delta::Thinking) == Delta::Thinking => {
                    return text(BlockType::Thinking);
                }
                Key::Signature if self.delta_or(Delta::Signature) == Delta::Signature => {
                    self.what = What::Signature;
                }
                Key::Content if self.delta == Delta::Compaction => {
                    Self::compaction_block(out);
                    return text(BlockType::Thinking);
                }
                Key::EncryptedContent if self.delta == Delta::Compaction => {
                    self.what = What::Encrypted;
                }
                Key::PartialJson if self.delta_or(Delta::InputJson) == Delta::InputJson => {
                    if !matches!(self.block.kind, Kind::ToolUse { .. }) {
                        // (A block of a type this mapping does not know is skipped whole.)
                        self.args_skipped = self.block.kind != Kind::Other;
                        return Sink::Skip;
                    }
                    self.open_tool(out);
                    return Sink::Args;
                }
                Key::StopReason => self.what = What::StopReason,
                _ => {}
            }
        }
        match self.what {
            What::None => return Sink::Skip,
            What::BlockType => self.block.ty.clear(),
            What::BlockId => self.block.id.clear(),
            What::BlockName => self.block.name.clear(),
            What::Encrypted => self.enc_fresh = true,
            _ => self.word.clear(),
        }
        Sink::Collect
    }

    fn piece(&mut self, bytes: &[u8], out: &mut Out) {
        match self.what {
            What::None => {}
            What::BlockType => self.block.ty.push(bytes),
            What::BlockId => self.block.id.push(bytes),
            What::BlockName => self.block.name.push(bytes),
            What::Signature | What::Redacted if !bytes.is_empty() && !self.sig_dropped => {
                Self::sig_block(out);
                let buf = if self.what == What::Signature {
                    &mut out.signature
                } else {
                    &mut out.redacted
                };
                if !buf.push(bytes) {
                    // A cut signature is worse than none (the API refuses it): dropped and
                    // reported; the rest of this block's pieces are ignored.
                    buf.clear();
                    self.sig_dropped = true;
                    out.fault("max-call-bytes", SIG_DROPPED);
                }
            }
            What::Signature | What::Redacted => {}
            What::Encrypted if !bytes.is_empty() && !self.sig_dropped => {
                Self::compaction_block(out);
                Self::sig_block(out);
                if self.enc_fresh {
                    // A whole value, not a delta: a later one replaces it (the SDKs keep the
                    // latest).
                    self.enc_fresh = false;
                    out.redacted.clear();
                }
                if !out.redacted.push(bytes) {
                    // As a signature: the block completes without it, then the error; the
                    // rest of this content block's encrypted_content is ignored.
                    out.redacted.clear();
                    self.sig_dropped = true;
                    out.fault("max-call-bytes", ENC_DROPPED);
                }
            }
            What::Encrypted => {}
            What::ErrMessage => {
                let _ = out.message.push(bytes);
            }
            What::ErrCode => self.err.code.push(bytes),
            What::ErrType => self.err.ty.push(bytes),
            What::EvType | What::DeltaType | What::StopReason | What::ResponseId | What::Model => {
                self.word.push(bytes)
            }
        }
    }

    fn string_end(&mut self, p: &Path, out: &mut Out) {
        let word = self.word;
        match self.what {
            What::EvType => {
                self.ev = ev_of(word.bytes());
                self.err.ty = word;
            }
            What::BlockType => {
                self.block.kind = kind_of(self.block.ty.bytes());
                if self.block.kind == Kind::Compaction {
                    // It appears even when it carries nothing (a failed compaction, `content`
                    // null): the host sends it back as it came.
                    Self::compaction_block(out);
                }
            }
            What::DeltaType => {
                self.delta = delta_of(word.bytes());
                // The same, when the delta's `index` comes after it: a signature for a block
                // that is not thinking, a citation for one that is not text, completes the
                // open block first when it holds such data (its completion reads it).
                let wants = match self.delta {
                    Delta::Signature => Some(BlockType::Thinking),
                    Delta::Citations => Some(BlockType::Text),
                    _ => None,
                };
                if let (Some(ty), Some(o)) = (wants, out.open)
                    && (o.ty != ty || o.refusal || o.compaction)
                    && out.sig_block == Some(o.index)
                {
                    out.close();
                }
            }
            What::ResponseId if !word.is_empty() => out.response_id = word,
            What::Model if !word.is_empty() => out.model = word,
            What::StopReason if !word.is_empty() => {
                // A block still open at the stop reason was cut short (max_tokens).
                out.close_with(true);
                out.choice_reason(0, reason_of(word.bytes()), word.bytes());
            }
            What::ErrMessage if self.err.depth == 1 && p.key(1) == Key::Error => {
                self.err.report(out);
            }
            _ => {}
        }
        self.what = What::None;
    }

    fn scalar(&mut self, p: &Path, v: Scalar, out: &mut Out) {
        let d = p.depth();
        let Scalar::Int(n) = v else {
            return;
        };
        let usage = (d == 2 && p.key(1) == Key::Usage)
            || (d == 3 && p.key(1) == Key::Message && p.key(2) == Key::Usage);
        if d == 1 && p.key(1) == Key::Index {
            self.doc_index = Some(n);
            return;
        }
        if super::invocation_metrics(p, n, out) {
            return;
        }
        if usage {
            // Cumulative counts: the last value wins (message_delta's replace message_start's).
            let u = &mut out.usage;
            match p.last_key() {
                Key::InputTokens => u.input_tokens = Some(n),
                Key::OutputTokens => u.output_tokens = Some(n),
                Key::CacheReadInputTokens => u.cache_read_tokens = Some(n),
                Key::CacheCreationInputTokens => u.cache_write_tokens = Some(n),
                _ => {}
            }
        } else if self.err.depth > 0 && d == self.err.depth && p.last_key() == Key::Code {
            self.err.number(n);
        }
    }

    fn value(&mut self, p: &Path, v: ValueStart, out: &mut Out) -> Option<Capture> {
        let d = p.depth();
        // A citation: a `citations_delta`'s `citation`, an element of a block's `citations`.
        let citation = v == ValueStart::Object
            && if Self::in_delta(p) {
                p.last_key() == Key::Citation
                    && matches!(self.delta, Delta::Unknown | Delta::Citations)
            } else {
                d >= 3
                    && Self::block_level(p) == Some(d - 1)
                    && p.key(d - 1) == Key::Citations
                    && self.kind_or(Kind::Text) == Kind::Text
            };
        if citation {
            return self.citation(out);
        }
        let level = Self::block_level(p).filter(|&l| l == d)?;
        match (p.last_key(), self.block.kind) {
            (Key::Input, Kind::ToolUse { .. }) if v == ValueStart::Object => {
                // Without its name the call opens at the block's end (input `{}`).
                if self.block.name.is_empty() {
                    return None;
                }
                self.open_tool(out);
                // A whole body's input is the input; a stream's start says `{}`, then
                // the input streams (a non-empty one is the call's initial arguments).
                Some(if level == 3 {
                    Capture::Args
                } else {
                    Capture::InitialArgs
                })
            }
            (Key::Content, Kind::ToolResult) => {
                self.open_tool(out);
                Some(Capture::Text)
            }
            _ => None,
        }
    }

    fn unread(&self, p: &Path, key: Key) -> bool {
        unread(p, key)
    }

    fn value_end(&mut self, _p: &Path, out: &mut Out) {
        if core::mem::take(&mut self.citing) && !cite::end(out) {
            // As a signature: the block completes without them, then the error; the rest
            // of this content block's citations are ignored.
            self.sig_dropped = true;
            out.fault("max-call-bytes", cite::DROPPED);
        }
    }

    fn end(&mut self, out: &mut Out) {
        if !self.err.seen && (self.event_error || self.ev == Ev::Error) {
            self.err.report(out);
        }
        // docs/providers.md: a block event whose index is not the open block's is an
        // error (what it carried stays where it went: text in a block, arguments of no
        // tool call skipped).
        let bad = match (self.ev, self.doc_index) {
            (Ev::ContentBlockStart, i) => {
                self.open_index = i;
                false
            }
            (Ev::ContentBlockDelta | Ev::ContentBlockStop, Some(i)) => {
                self.open_index != Some(i) || self.args_skipped
            }
            (Ev::ContentBlockDelta, None) => self.args_skipped,
            _ => false,
        };
        if bad {
            Self::bad_index(out);
        }
        match self.ev {
            Ev::ContentBlockStop if !bad => {
                out.close();
                self.open_index = None;
            }
            Ev::MessageStop => out.finish_all(false),
            Ev::Message if self.complete => out.finish_all(false),
            _ => {}
        }
        self.event_error = false;
        self.err.depth = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::unread;
    use crate::provider::path::table_tests::check;

    #[test]
    fn the_keys_it_reads_are_not_skipped() {
        check(
            unread,
            &[
                &["role"][..],
                &["stop_sequence"],
                &["context_management"],
                &["message", "content"],
                &["message", "role"],
                &["message", "stop_sequence"],
            ],
            &[
                &["type"][..],
                &["index"],
                &["message"],
                &["content_block"],
                &["delta"],
                &["usage"],
                &["error"],
                &["content"],
                &["stop_reason"],
                &["id"],
                &["model"],
                &["code"],
                &["amazon-bedrock-invocationMetrics"],
                &["message", "id"],
                &["message", "model"],
                &["message", "usage"],
                &["content_block", "citations"],
                &["delta", "x"],
                &["error", "x"],
            ],
        );
    }
}
