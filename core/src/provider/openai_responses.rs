//! OpenAI Responses: the streamed events (`response.created` … `response.completed`), one
//! whole non-streaming `response` body, or a bare error body.
//!
//! Decisions go by the JSON `type` field (compatible servers write no `event:` lines and no
//! `sequence_number`); the SSE event name stands in only until a `type` is read.
//!
//! Paths read (depth = containers open at the value):
//! - `type` (1): the event. `output_index` and `content_index` / `summary_index` (1) say
//!   which part a delta belongs to; `delta` (1) is content for `response.output_text.delta`
//!   (text), `response.refusal.delta` (a refusal text block),
//!   `response.reasoning_summary_text.delta` and `response.reasoning_text.delta` (thinking),
//!   `response.function_call_arguments.delta` (the call's arguments).
//! - `item` (2, `response.output_item.added` / `.done`): `type`, `name`, `call_id` (the
//!   call's tool id); `encrypted_content` of a done reasoning item.
//! - The response object, `response` (2, lifecycle events) or the document itself (1, a whole
//!   body): `id`, `model`, `status`, `incomplete_details.reason`, `usage`, `error`.
//! - A whole body's `output[i]` (3): the item's fields as above, its `arguments`, its parts
//!   `summary[j].text` / `content[j].text` / `content[j].refusal` (5).
//! - An `error` event: its own `code`, `message`, `type`, or its `error` member.
//!
//! Snapshots are not content (docs/providers.md, "Readings the vectors pin"): the `*.done`
//! events, the item of `output_item.done` and the lifecycle events' `output` are read only
//! for ids, status, usage, errors and `encrypted_content`. Each content part is one block
//! (a delta of another part completes the open one); an item's blocks complete at its
//! `output_item.done`, where a reasoning item's `encrypted_content` becomes the `signature`
//! of its last thinking block (or of a thinking block of its own when it has none).

use heapless::Vec;

use super::error_fields::ErrorFields;
use super::out::{Out, Slot};
use super::path::{Key, Path};
use super::{Capture, DocInfo, Map, Scalar, Sink, ValueStart};
use crate::event::{BlockType, FinishReason};

/// Calls remembered per stream (the oldest is forgotten past this).
const CALLS: usize = 8;

/// An index that was not given.
const NONE: u32 = u32::MAX;

/// The document's event (its `type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    /// No `type` (yet): a whole response body, or a bare error body.
    Unknown,
    /// `response.created`, `.in_progress`, `.queued`: read for id, model, usage.
    Lifecycle,
    Completed,
    Incomplete,
    Failed,
    ItemAdded,
    ItemDone,
    TextDelta,
    RefusalDelta,
    /// `reasoning_summary_text.delta`, `reasoning_text.delta`.
    ThinkingDelta,
    ArgsDelta,
    Error,
    /// An event this mapping does not use.
    Other,
}

fn ev_of(ty: &[u8]) -> Ev {
    match ty {
        b"response.created" | b"response.in_progress" | b"response.queued" => Ev::Lifecycle,
        b"response.completed" => Ev::Completed,
        b"response.incomplete" => Ev::Incomplete,
        b"response.failed" => Ev::Failed,
        b"response.output_item.added" => Ev::ItemAdded,
        b"response.output_item.done" => Ev::ItemDone,
        b"response.output_text.delta" => Ev::TextDelta,
        b"response.refusal.delta" => Ev::RefusalDelta,
        b"response.reasoning_summary_text.delta" | b"response.reasoning_text.delta" => {
            Ev::ThinkingDelta
        }
        b"response.function_call_arguments.delta" => Ev::ArgsDelta,
        b"error" => Ev::Error,
        _ => Ev::Other,
    }
}

/// An output item's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Unknown,
    Message,
    Reasoning,
    FunctionCall,
    /// `web_search_call`, …: skipped.
    Other,
}

fn kind_of(ty: &[u8]) -> Kind {
    match ty {
        b"message" => Kind::Message,
        b"reasoning" => Kind::Reasoning,
        b"function_call" => Kind::FunctionCall,
        _ => Kind::Other,
    }
}

/// What a `Collect` string is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum What {
    None,
    EvType,
    ItemType,
    ItemName,
    CallId,
    Signature,
    HeldArgs,
    Status,
    Reason,
    ResponseId,
    Model,
    ErrMessage,
    ErrCode,
    ErrType,
}

#[derive(Clone, Copy)]
struct Call {
    /// The item's `output_index` (`NONE` when not given).
    at: u32,
    id: Slot,
    name: Slot,
    /// The decoder-wide call number (`OpenBlock::call`).
    n: u32,
}

/// The output item being read (`item` of an item event, a whole body's `output[i]`).
#[derive(Clone, Copy)]
struct Item {
    kind: Kind,
    name: Slot,
    id: Slot,
    /// Its arguments (a whole body's, before its name) are held in `out.held`.
    holding: bool,
    overflow: bool,
    /// Its call block was opened (a whole body's).
    opened: bool,
}

const ITEM: Item = Item {
    kind: Kind::Unknown,
    name: Slot::EMPTY,
    id: Slot::EMPTY,
    holding: false,
    overflow: false,
    opened: false,
};

const SIG_DROPPED: &str =
    "a reasoning item's encrypted_content exceeded max_call_bytes; it is dropped";
const ARGS_DROPPED: &str = "a function call's arguments came before its name and exceeded max_call_bytes; they are dropped";

pub(crate) struct OpenAiResponses {
    ev: Ev,
    what: What,
    word: Slot,
    item: Item,
    calls: Vec<Call, CALLS>,
    next_call: u32,
    /// The document's `output_index` and `content_index` / `summary_index`.
    at: u32,
    part: u32,
    /// The part the open text or thinking block belongs to.
    open_part: (u32, u32),
    /// The response's `status` and `incomplete_details.reason`.
    status: Slot,
    reason: Slot,
    /// The encrypted_content outgrew its memory.
    sig_dropped: bool,
    /// The document's top-level value completed.
    complete: bool,
    /// It is a whole response body (`status` or `output` at the top level).
    whole: bool,
    err: ErrorFields,
    event_error: bool,
}

impl OpenAiResponses {
    pub(crate) const fn new() -> OpenAiResponses {
        OpenAiResponses {
            ev: Ev::Unknown,
            what: What::None,
            word: Slot::EMPTY,
            item: ITEM,
            calls: Vec::new(),
            next_call: 0,
            at: NONE,
            part: NONE,
            open_part: (NONE, NONE),
            status: Slot::EMPTY,
            reason: Slot::EMPTY,
            sig_dropped: false,
            complete: false,
            whole: false,
            err: ErrorFields::NEW,
            event_error: false,
        }
    }

    /// The depth of the response object's members: 1 (a whole body), 2 (`response` of a
    /// lifecycle event).
    fn resp_level(&self, p: &Path) -> Option<u32> {
        match self.ev {
            Ev::Unknown => Some(1),
            Ev::Lifecycle | Ev::Completed | Ev::Incomplete | Ev::Failed
                if p.depth() >= 2 && p.key(1) == Key::Response =>
            {
                Some(2)
            }
            _ => None,
        }
    }

    /// The depth of the output item object's members: 2 (`item`), 3 (a whole body's
    /// `output[i]`).
    fn item_level(&self, p: &Path) -> Option<u32> {
        let d = p.depth();
        match self.ev {
            Ev::ItemAdded | Ev::ItemDone if d >= 2 && p.key(1) == Key::Item => Some(2),
            Ev::Unknown if d >= 3 && p.key(1) == Key::Output => Some(3),
            _ => None,
        }
    }

    /// The remembered call of output item `at` (the last one when `at` is not given).
    fn call_at(&self, at: u32) -> Option<usize> {
        if at == NONE {
            return self.calls.len().checked_sub(1);
        }
        self.calls.iter().rposition(|c| c.at == at)
    }

    fn remember(&mut self, at: u32, name: Slot, id: Slot) -> usize {
        if self.calls.is_full() {
            self.calls.remove(0);
        }
        let _ = self.calls.push(Call {
            at,
            id,
            name,
            n: self.next_call,
        });
        self.next_call += 1;
        self.calls.len() - 1
    }

    /// Makes the remembered call's block the open one.
    fn open_call(&self, pos: usize, out: &mut Out) {
        let Some(c) = self.calls.get(pos) else {
            return;
        };
        let open = matches!(out.open, Some(o) if o.ty == BlockType::ToolCall && o.call == c.n);
        if !open {
            out.open_call(0, c.n, false, c.name.bytes(), c.id.bytes());
        }
    }

    /// A delta of a text or thinking part: a block of another part completes first.
    fn text_part(&mut self, ty: BlockType, refusal: bool, out: &mut Out) -> Sink {
        let key = (
            if self.at == NONE {
                self.open_part.0
            } else {
                self.at
            },
            if self.part == NONE {
                self.open_part.1
            } else {
                self.part
            },
        );
        if out.open.is_some() && key != self.open_part {
            out.close();
        }
        self.open_part = key;
        Sink::Text {
            ty,
            choice: 0,
            refusal,
        }
    }

    /// A function call's arguments delta.
    fn args_delta(&mut self, out: &mut Out) -> Sink {
        let pos = match self.call_at(self.at) {
            Some(pos) => pos,
            // No output_item.added named it: an unnamed call (it fails as missing-name).
            None => self.remember(self.at, Slot::EMPTY, Slot::EMPTY),
        };
        self.open_call(pos, out);
        Sink::Args
    }

    /// An output item opens.
    fn item_open(&mut self, out: &mut Out) {
        self.item = ITEM;
        self.sig_dropped = false;
        if self.ev != Ev::ItemAdded {
            // The encrypted_content read is this item's (none until it names one).
            out.signature.clear();
            out.sig_block = None;
        }
        if self.ev == Ev::Unknown {
            // A whole body's items follow each other: the previous one's blocks complete.
            out.close();
            out.held.clear();
        }
    }

    /// An output item closes.
    fn item_close(&mut self, out: &mut Out) {
        let item = self.item;
        match (self.ev, item.kind) {
            (Ev::ItemAdded, Kind::FunctionCall) => {
                let pos = self.remember(self.at, item.name, item.id);
                self.open_call(pos, out);
            }
            (Ev::ItemAdded, _) => {}
            (Ev::ItemDone | Ev::Unknown, Kind::Reasoning) => {
                Self::attach_signature(out);
                out.close();
            }
            (Ev::Unknown, Kind::FunctionCall) => {
                if item.overflow {
                    out.held.clear();
                    out.fault("max-call-bytes", ARGS_DROPPED);
                    return;
                }
                if !item.opened {
                    let pos = self.remember(NONE, item.name, item.id);
                    self.open_call(pos, out);
                    if item.holding {
                        // Completes when the next item opens or at the end.
                        out.replay_held();
                    }
                }
            }
            (Ev::ItemDone, Kind::FunctionCall) => {
                // Its own call's block (a block of another kind is not this item's).
                let n = self
                    .call_at(self.at)
                    .and_then(|i| self.calls.get(i))
                    .map(|c| c.n);
                if matches!(out.open, Some(o) if o.ty == BlockType::ToolCall && Some(o.call) == n) {
                    out.close();
                }
            }
            _ => out.close(),
        }
    }

    /// The collected `encrypted_content` goes on the open thinking block, else on a thinking
    /// block of its own.
    fn attach_signature(out: &mut Out) {
        if out.signature.len() == 0 {
            return;
        }
        let open_thinking =
            matches!(out.open, Some(o) if o.ty == BlockType::Thinking && o.choice == 0);
        if !open_thinking {
            out.open_text(BlockType::Thinking, 0, false);
        }
        out.sig_block = out.open.map(|o| o.index);
    }

    /// The response ended (`response.completed` / `incomplete` / `failed`, or a whole body).
    fn finish(&mut self, fallback: &[u8], out: &mut Out) {
        let status = if self.status.is_empty() {
            fallback
        } else {
            self.status.bytes()
        };
        let reason = match status {
            b"completed" if self.next_call > 0 => FinishReason::ToolCalls,
            b"completed" => FinishReason::Stop,
            b"failed" => FinishReason::Error,
            b"incomplete" => match self.reason.bytes() {
                b"max_output_tokens" => FinishReason::Length,
                b"content_filter" => FinishReason::ContentFilter,
                _ => FinishReason::Other,
            },
            _ => FinishReason::Other,
        };
        let raw = if self.reason.is_empty() {
            status
        } else {
            self.reason.bytes()
        };
        let mut word = Slot::EMPTY;
        word.set(raw);
        out.close();
        out.choice_reason(0, reason, word.bytes());
        out.finish_all(false);
    }
}

impl Map for OpenAiResponses {
    fn reset_state(&mut self) {
        *self = OpenAiResponses::new();
    }

    fn begin(&mut self, doc: DocInfo<'_>, out: &mut Out) {
        self.ev = match doc.event {
            b"" => Ev::Unknown,
            e => ev_of(e),
        };
        self.what = What::None;
        self.at = NONE;
        self.part = NONE;
        self.complete = false;
        self.whole = false;
        self.status.clear();
        self.reason.clear();
        self.err.seen = false;
        self.event_error = doc.event == b"error";
        // The document's own fields are collected: an `error` event names its error there.
        self.err.start(1, out);
    }

    fn open(&mut self, p: &Path, out: &mut Out) {
        let d = p.depth();
        if self.item_level(p) == Some(d) {
            self.item_open(out);
        } else if self.ev == Ev::Unknown
            && d == 5
            && p.key(1) == Key::Output
            && matches!(p.key(3), Key::Summary | Key::Content)
        {
            // A whole body's content part: one block each (the last thinking one stays open
            // for the item's encrypted_content).
            out.close();
        } else if let Some(r) = self.resp_level(p) {
            if d == r + 1 && p.key(r) == Key::Error {
                self.err.start(d, out);
            } else if d == 2 && r == 1 && p.key(1) == Key::Output {
                self.whole = true;
            }
        } else if d == 2 && p.key(1) == Key::Error && self.ev == Ev::Error {
            self.err.start(2, out);
        }
    }

    fn close(&mut self, p: &Path, out: &mut Out) {
        let d = p.depth();
        if self.item_level(p) == Some(d) {
            self.item_close(out);
        } else if d == 1 {
            self.complete = true;
        } else if self.err.depth > 1 && d == self.err.depth && p.key(d - 1) == Key::Error {
            self.err.report(out);
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
        if self.err.depth > 1 && d == self.err.depth && p.key(d - 1) == Key::Error {
            self.what = err_field;
        } else if d == 1 && key == Key::Type {
            self.what = What::EvType;
        } else if d == 1 && key == Key::Delta {
            match self.ev {
                Ev::TextDelta => return self.text_part(BlockType::Text, false, out),
                Ev::RefusalDelta => return self.text_part(BlockType::Text, true, out),
                Ev::ThinkingDelta => return self.text_part(BlockType::Thinking, false, out),
                Ev::ArgsDelta => return self.args_delta(out),
                _ => {}
            }
        } else if let Some(level) = self.item_level(p).filter(|&l| l == d) {
            let kind = self.item.kind;
            self.what = match key {
                Key::Type => What::ItemType,
                Key::Name => What::ItemName,
                Key::CallId => What::CallId,
                Key::EncryptedContent if self.ev != Ev::ItemAdded => What::Signature,
                Key::Arguments if level == 3 && kind == Kind::FunctionCall => {
                    if !self.item.opened && !self.item.name.is_empty() && !self.item.id.is_empty() {
                        let pos = self.remember(NONE, self.item.name, self.item.id);
                        self.item.opened = true;
                        self.open_call(pos, out);
                        return Sink::Args;
                    }
                    self.item.holding = true;
                    out.held.clear();
                    What::HeldArgs
                }
                _ => What::None,
            };
        } else if self.ev == Ev::Unknown
            && d == 5
            && p.key(1) == Key::Output
            && matches!(p.key(3), Key::Summary | Key::Content)
        {
            let thinking = p.key(3) == Key::Summary || self.item.kind == Kind::Reasoning;
            match (key, self.item.kind) {
                (_, Kind::Other | Kind::FunctionCall) => {}
                (Key::Text, _) => {
                    let ty = if thinking {
                        BlockType::Thinking
                    } else {
                        BlockType::Text
                    };
                    return Sink::Text {
                        ty,
                        choice: 0,
                        refusal: false,
                    };
                }
                (Key::Refusal, _) => {
                    return Sink::Text {
                        ty: BlockType::Text,
                        choice: 0,
                        refusal: true,
                    };
                }
                _ => {}
            }
        } else if let Some(r) = self.resp_level(p) {
            if d == r {
                self.what = match key {
                    Key::Id => What::ResponseId,
                    Key::Model => What::Model,
                    Key::Status => What::Status,
                    Key::Message | Key::Code if r == 1 => err_field,
                    Key::Error if r == 1 => {
                        // `{"error": "text"}`
                        self.err.start(1, out);
                        self.event_error = true;
                        What::ErrMessage
                    }
                    _ => What::None,
                };
            } else if d == r + 1 && p.key(r) == Key::IncompleteDetails && key == Key::Reason {
                self.what = What::Reason;
            }
        }
        if d == 1 && self.ev == Ev::Error && self.what == What::None {
            self.what = err_field;
        }
        match self.what {
            What::None => return Sink::Skip,
            What::ItemType => self.word.clear(),
            What::ItemName => self.item.name.clear(),
            What::CallId => self.item.id.clear(),
            What::Signature => {
                out.sig_block = None;
                out.signature.clear();
                out.redacted.clear();
            }
            What::Status => self.status.clear(),
            What::Reason => self.reason.clear(),
            _ => self.word.clear(),
        }
        Sink::Collect
    }

    fn piece(&mut self, bytes: &[u8], out: &mut Out) {
        match self.what {
            What::None => {}
            What::ItemName => self.item.name.push(bytes),
            What::CallId => self.item.id.push(bytes),
            What::Signature if !self.sig_dropped => {
                if !out.signature.push(bytes) {
                    // A cut signature is worse than none (the API refuses it): dropped and
                    // reported.
                    out.signature.clear();
                    self.sig_dropped = true;
                    out.fault("max-call-bytes", SIG_DROPPED);
                }
            }
            What::Signature => {}
            What::HeldArgs => {
                if !out.held.push(bytes) {
                    self.item.overflow = true;
                }
            }
            What::Status => self.status.push(bytes),
            What::Reason => self.reason.push(bytes),
            What::ErrMessage => {
                let _ = out.message.push(bytes);
            }
            What::ErrCode => self.err.code.push(bytes),
            What::ErrType => self.err.ty.push(bytes),
            What::EvType | What::ItemType | What::ResponseId | What::Model => self.word.push(bytes),
        }
    }

    fn string_end(&mut self, _p: &Path, out: &mut Out) {
        let word = self.word;
        match self.what {
            What::EvType => {
                self.ev = ev_of(word.bytes());
                if self.ev == Ev::Error {
                    self.err.ty = word;
                }
            }
            What::ItemType => self.item.kind = kind_of(word.bytes()),
            What::ResponseId if !word.is_empty() => out.response_id = word,
            What::Model if !word.is_empty() => out.model = word,
            What::Status if self.ev == Ev::Unknown => self.whole = true,
            What::ErrMessage
                if self.err.depth == 1 && self.event_error && self.ev == Ev::Unknown =>
            {
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
        let n32 = n.min(u64::from(NONE - 1)) as u32;
        if d == 1 {
            match p.key(1) {
                Key::OutputIndex => self.at = n32,
                Key::ContentIndex | Key::SummaryIndex => self.part = n32,
                Key::Code if self.err.depth == 1 => {
                    self.err.number(n);
                }
                _ => {}
            }
            return;
        }
        if self.err.depth > 1 && d == self.err.depth && p.last_key() == Key::Code {
            self.err.number(n);
            return;
        }
        let Some(r) = self.resp_level(p) else {
            return;
        };
        if d == r + 1 && p.key(r) == Key::Usage {
            match p.key(d) {
                Key::InputTokens => out.usage.input_tokens = Some(n),
                Key::OutputTokens => out.usage.output_tokens = Some(n),
                _ => {}
            }
        } else if d == r + 2 && p.key(r) == Key::Usage {
            match (p.key(r + 1), p.key(d)) {
                (Key::InputTokensDetails, Key::CachedTokens) => {
                    out.usage.cache_read_tokens = Some(n)
                }
                (Key::OutputTokensDetails, Key::ReasoningTokens) => {
                    out.usage.reasoning_tokens = Some(n)
                }
                _ => {}
            }
        }
    }

    fn value(&mut self, p: &Path, v: ValueStart, out: &mut Out) -> Option<Capture> {
        // A whole body's `arguments` written as an object (compatible servers).
        let level = self.item_level(p).filter(|&l| l == p.depth() && l == 3)?;
        let named = !self.item.name.is_empty() && !self.item.opened;
        if level == 3
            && v == ValueStart::Object
            && p.last_key() == Key::Arguments
            && self.item.kind == Kind::FunctionCall
            && named
        {
            let pos = self.remember(NONE, self.item.name, self.item.id);
            self.item.opened = true;
            self.open_call(pos, out);
            return Some(Capture::Args);
        }
        None
    }

    fn end(&mut self, out: &mut Out) {
        if !self.err.seen && (self.event_error || self.ev == Ev::Error) {
            self.err.report(out);
        }
        match self.ev {
            Ev::Completed => self.finish(b"completed", out),
            Ev::Incomplete => self.finish(b"incomplete", out),
            Ev::Failed => self.finish(b"failed", out),
            Ev::Unknown if self.whole && self.complete => self.finish(b"completed", out),
            _ => {}
        }
        self.event_error = false;
        self.err.depth = 0;
    }
}
