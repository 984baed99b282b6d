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
//!   `response.function_call_arguments.delta` and `response.mcp_call_arguments.delta` (the
//!   call's arguments), `response.custom_tool_call_input.delta` (a custom call's free-form
//!   input, escaped into the string of its input object `{"input": …}`).
//! - `item` (2, `response.output_item.added` / `.done`): `type`, `name`, `call_id` (the
//!   call's tool id), `id`; `encrypted_content` of a done reasoning item (its `signature`) or
//!   `compaction` item (an empty thinking block, `compaction: true`, `redacted`); a done `mcp_call`'s
//!   `output` / `error` (a server tool_result block); every member of a done host tool item
//!   (`computer_call`, `local_shell_call`, `shell_call`, `apply_patch_call`: `WHOLE_ITEMS`), its
//!   block's input.
//! - The response object, `response` (2, lifecycle events) or the document itself (1, a whole
//!   body): `id`, `model`, `status`, `incomplete_details.reason`, `usage`, `error`.
//! - A whole body's `output[i]` (3): the item's fields as above, its `arguments`, its parts
//!   `summary[j].text` / `content[j].text` / `content[j].refusal` (5).
//! - An `error` event: its own `code`, `message`, `type`, or its `error` member.
//!
//! Snapshots are not content (docs/providers.md, "Readings the vectors pin"): the `*.done`
//! events, the item of `output_item.done` and the lifecycle events' `output` are read only
//! for ids, status, usage, errors and `encrypted_content` — except a call's arguments:
//! deltas win, and a call without deltas takes its item's (`whole.rs`: the added item's
//! non-empty `arguments` / `input` open it, else the `*_arguments.done` /
//! `custom_tool_call_input.done` event's, else the done item's; `Call::fed` says which
//! came first, and nothing after it is read). Each content part is one block
//! (a delta of another part completes the open one); an item's blocks complete at its
//! `output_item.done`, where a reasoning item's `encrypted_content` becomes the `signature`
//! of its last thinking block (or of a thinking block of its own when it has none).

use heapless::Vec;

use super::error_fields::ErrorFields;
use super::out::{Out, Slot, escape_byte};
use super::path::{Key, Path};
use super::{Capture, DocInfo, Map, Scalar, Sink, ValueStart};
use crate::event::{BlockType, FinishReason};

mod whole;
mod wire;
use wire::{CUSTOM_CLOSE, CUSTOM_OPEN, Ev, Kind, WHOLE_ITEMS, ev_of, kind_of};

/// Calls remembered per stream (the oldest is forgotten past this).
const CALLS: usize = 8;

/// An index that was not given.
const NONE: u32 = u32::MAX;

/// What a `Collect` string is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum What {
    None,
    EvType,
    ItemType,
    ItemName,
    CallId,
    ItemId,
    /// A whole body's custom call input before its name: escaped into `out.held`.
    HeldCustom,
    /// A done item's arguments for its open call that had none (`item_args`).
    StreamArgs,
    StreamCustom,
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
    /// Run by the server (`mcp_call`).
    server: bool,
    /// A custom tool call (free-form input, see `CUSTOM_OPEN`).
    custom: bool,
    /// Its arguments began: a delta came, or its `output_item.added` item carried them.
    /// Snapshots of a fed call are not read (deltas win; docs/providers.md).
    fed: bool,
}

/// The output item being read (`item` of an item event, a whole body's `output[i]`).
#[derive(Clone, Copy)]
struct Item {
    kind: Kind,
    name: Slot,
    /// Its `call_id`.
    id: Slot,
    /// Its `id`.
    item_id: Slot,
    /// Members written into a whole item's input so far.
    members: u32,
    /// Its arguments (a whole body's, before its name) are held in `out.held`.
    holding: bool,
    overflow: bool,
    /// Its call block was opened (a whole body's).
    opened: bool,
    /// A whole item that could not be made (see `whole_open`): the rest of it is skipped.
    skipped: bool,
}

const ITEM: Item = Item {
    kind: Kind::Unknown,
    name: Slot::EMPTY,
    id: Slot::EMPTY,
    item_id: Slot::EMPTY,
    members: 0,
    holding: false,
    overflow: false,
    opened: false,
    skipped: false,
};

const WHOLE_SKIPPED: &str = "a built-in tool item came while a call of an earlier item was still open (its output_item.done never came); that call fails and this item is skipped";

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
    /// Calls the host must answer (all but server-run ones): `completed` → tool_calls.
    host_calls: u32,
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
    /// A whole body's custom call item streams its `input` (its name came first).
    item_custom_streaming: bool,
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
            host_calls: 0,
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
            item_custom_streaming: false,
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

    fn remember(&mut self, at: u32, name: Slot, id: Slot, server: bool, custom: bool) -> usize {
        if self.calls.is_full() {
            self.calls.remove(0);
        }
        let _ = self.calls.push(Call {
            at,
            id,
            name,
            n: self.next_call,
            server,
            custom,
            fed: false,
        });
        self.next_call += 1;
        if !server {
            self.host_calls += 1;
        }
        self.calls.len() - 1
    }

    /// Makes the remembered call's block the open one; a custom call's block opens with the
    /// start of its input (`CUSTOM_OPEN`) unless `raw` (its held input has it).
    fn open_call_with(&self, pos: usize, raw: bool, out: &mut Out) {
        let Some(c) = self.calls.get(pos) else {
            return;
        };
        let open = matches!(out.open, Some(o) if o.ty == BlockType::ToolCall && o.call == c.n);
        if !open {
            out.open_call(0, c.n, c.server, c.name.bytes(), c.id.bytes());
            if c.custom && !raw {
                out.args_text(CUSTOM_OPEN);
            }
        }
    }

    fn open_call(&self, pos: usize, out: &mut Out) {
        self.open_call_with(pos, false, out);
    }

    /// Is the open block the call of `pos`?
    fn is_open_call(&self, pos: Option<usize>, out: &Out) -> bool {
        let n = pos.and_then(|i| self.calls.get(i)).map(|c| c.n);
        matches!(out.open, Some(o) if o.ty == BlockType::ToolCall && Some(o.call) == n)
    }

    /// The name, tool id and flags of the call item being read (function, custom, MCP).
    fn item_call(&self) -> (Slot, Slot, bool, bool) {
        let item = &self.item;
        match item.kind {
            Kind::Mcp => (item.name, item.item_id, true, false),
            Kind::Custom => (item.name, item.id, false, true),
            _ => (item.name, item.id, false, false),
        }
    }

    /// A whole item's block (`WHOLE_ITEMS[k]`), opened once, its input object begun (with
    /// the item's `id` when the tool id is its `call_id`).
    fn whole_open(&mut self, k: usize, out: &mut Out) -> bool {
        if self.item.opened {
            return !self.item.skipped;
        }
        self.item.opened = true;
        if matches!(out.open, Some(o) if o.ty == BlockType::ToolCall) {
            // A stream that reused an output index before the earlier item was done: the
            // open call can no longer complete, and its block's buffers are needed for it to
            // fail whole — so it fails here, and this item is skipped with an error event
            // (fuzz: decode_openai_responses smoke, 2026-11-28: the item's input had been
            // written into the open call).
            self.item.skipped = true;
            out.fault("item-while-call-open", WHOLE_SKIPPED);
            return false;
        }
        let (_, name, server) = WHOLE_ITEMS[k];
        let mut slot = Slot::EMPTY;
        slot.set(name.as_bytes());
        let item = self.item;
        let by_call_id = !item.id.is_empty();
        let id = if by_call_id { item.id } else { item.item_id };
        let pos = self.remember(self.at, slot, id, server, false);
        self.open_call(pos, out);
        // The item's id goes in plain (ids are short ASCII tokens): an id that would need
        // escaping or is long is left out, so the input's first piece stays one step's
        // chunk (fuzz F21: a long escaped id overflowed it and the next member's key was
        // lost).
        let plain_id = item.item_id.bytes().len() <= 48
            && item
                .item_id
                .bytes()
                .iter()
                .all(|&b| b.is_ascii_graphic() && b != b'"' && b != b'\\');
        if by_call_id && !item.item_id.is_empty() && plain_id {
            out.args_parts(&[
                (b"{\"id\":\"", false),
                (item.item_id.bytes(), true),
                (b"\"", false),
            ]);
            self.item.members = 1;
        } else {
            out.args_text(b"{");
        }
        true
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
            None => self.remember(self.at, Slot::EMPTY, Slot::EMPTY, false, false),
        };
        self.calls[pos].fed = true;
        if self.calls[pos].custom {
            // Not the kind of delta its item streams: the call fails as malformed.
            self.open_call_with(pos, true, out);
        } else {
            self.open_call(pos, out);
        }
        Sink::Args
    }

    /// A custom tool call's input delta: free-form text inside its input's JSON string.
    fn custom_delta(&mut self, out: &mut Out) -> Sink {
        let pos = match self.call_at(self.at) {
            Some(pos) => pos,
            None => self.remember(self.at, Slot::EMPTY, Slot::EMPTY, false, true),
        };
        self.calls[pos].fed = true;
        self.open_call(pos, out);
        if self.calls[pos].custom {
            Sink::ArgsString
        } else {
            // A function call's item: its arguments are JSON text (they fail if not).
            Sink::Args
        }
    }

    /// An output item opens.
    fn item_open(&mut self, out: &mut Out) {
        self.item = ITEM;
        self.item_custom_streaming = false;
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
            (Ev::ItemAdded, Kind::FunctionCall | Kind::Custom | Kind::Mcp) => self.added_call(out),
            (Ev::ItemDone, Kind::FunctionCall | Kind::Custom) if item.holding => {
                self.done_call(out)
            }
            (Ev::ItemAdded, _) => {}
            (Ev::ItemDone | Ev::Unknown, Kind::Whole(k)) => {
                if self.whole_open(usize::from(k), out) {
                    out.args_text(b"}");
                    out.close();
                }
            }
            (Ev::Unknown, Kind::Custom | Kind::Mcp) if item.opened => {
                // Its block stays open until the next item or the end (as a function call's).
                if item.kind == Kind::Custom && self.item_custom_streaming {
                    out.args_text(CUSTOM_CLOSE);
                }
            }
            (Ev::ItemDone | Ev::Unknown, Kind::Compaction) => {
                // The encrypted_content was read as a reasoning item's (into `signature`,
                // whatever the members' order); a compaction's goes back as `redacted`.
                out.open_text(BlockType::Thinking, 0, false);
                let Some(open) = out.open.as_mut() else {
                    return;
                };
                open.compaction = true;
                out.sig_block = Some(open.index);
                out.redacted.clear();
                let kept = out.redacted.push(out.signature.bytes());
                out.signature.clear();
                if !kept {
                    // (The buffers have one bound, so this is not expected: never silent.)
                    out.redacted.clear();
                    out.fault("max-call-bytes", SIG_DROPPED);
                }
                out.close();
            }
            (Ev::ItemDone | Ev::Unknown, Kind::Reasoning) => {
                Self::attach_signature(out);
                out.close();
            }
            (Ev::Unknown, Kind::FunctionCall | Kind::Custom | Kind::Mcp) => {
                if item.overflow {
                    out.held.clear();
                    out.fault("max-call-bytes", ARGS_DROPPED);
                    return;
                }
                if !item.opened {
                    let (name, id, server, custom) = self.item_call();
                    let pos = self.remember(NONE, name, id, server, custom);
                    if custom && item.holding {
                        // The held input is whole: `{"input":"…"}`.
                        if !out.held.push(CUSTOM_CLOSE) {
                            out.held.clear();
                            out.fault("max-call-bytes", ARGS_DROPPED);
                            return;
                        }
                        self.open_call_with(pos, true, out);
                    } else {
                        self.open_call(pos, out);
                        if custom {
                            out.args_text(CUSTOM_CLOSE);
                        }
                    }
                    if item.holding {
                        // Completes when the next item opens or at the end.
                        out.replay_held();
                    }
                }
            }
            (Ev::ItemDone, Kind::FunctionCall | Kind::Custom | Kind::Mcp) => {
                // Its own call's block (a block of another kind is not this item's); an MCP
                // call's result block (its `output`) completes too.
                let pos = self.call_at(self.at);
                if self.is_open_call(pos, out) {
                    if pos
                        .and_then(|i| self.calls.get(i))
                        .is_some_and(|c| c.custom)
                    {
                        out.args_text(CUSTOM_CLOSE);
                    }
                    out.close();
                } else if matches!(out.open, Some(o) if o.ty == BlockType::ToolResult) {
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
            b"completed" if self.host_calls > 0 => FinishReason::ToolCalls,
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
                Ev::CustomDelta => return self.custom_delta(out),
                _ => {}
            }
        } else if d == 1 && key == Key::Arguments && self.ev == Ev::ArgsDone {
            return self.done_args(false, out);
        } else if d == 1 && key == Key::Input && self.ev == Ev::CustomDone {
            return self.done_args(true, out);
        } else if let Some(level) = self.item_level(p).filter(|&l| l == d) {
            let kind = self.item.kind;
            self.what = match key {
                Key::Type => What::ItemType,
                Key::Name => What::ItemName,
                Key::CallId => What::CallId,
                Key::Id => What::ItemId,
                Key::EncryptedContent if self.ev != Ev::ItemAdded => What::Signature,
                Key::Arguments if level == 2 && matches!(kind, Kind::FunctionCall | Kind::Mcp) => {
                    match self.item_args(out) {
                        What::StreamArgs => return Sink::Args,
                        w => w,
                    }
                }
                Key::Input if level == 2 && kind == Kind::Custom => match self.item_args(out) {
                    What::StreamCustom => return Sink::ArgsString,
                    w => w,
                },
                Key::Arguments if level == 3 && matches!(kind, Kind::FunctionCall | Kind::Mcp) => {
                    let (name, id, server, custom) = self.item_call();
                    if !self.item.opened && !name.is_empty() && !id.is_empty() {
                        let pos = self.remember(NONE, name, id, server, custom);
                        self.item.opened = true;
                        self.open_call(pos, out);
                        return Sink::Args;
                    }
                    self.item.holding = true;
                    out.held.clear();
                    What::HeldArgs
                }
                Key::Input if level == 3 && kind == Kind::Custom && !self.item.opened => {
                    let (name, id, server, custom) = self.item_call();
                    if !name.is_empty() && !id.is_empty() {
                        let pos = self.remember(NONE, name, id, server, custom);
                        self.item.opened = true;
                        self.item_custom_streaming = true;
                        self.open_call(pos, out);
                        return Sink::ArgsString;
                    }
                    self.item.holding = true;
                    out.held.clear();
                    if !out.held.push(CUSTOM_OPEN) {
                        self.item.overflow = true;
                    }
                    What::HeldCustom
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
            What::ItemId => self.item.item_id.clear(),
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
            What::None | What::StreamArgs | What::StreamCustom => {}
            What::ItemName => self.item.name.push(bytes),
            What::CallId => self.item.id.push(bytes),
            What::ItemId => self.item.item_id.push(bytes),
            What::HeldCustom => {
                for &b in bytes {
                    let mut esc = [0u8; 6];
                    if !out.held.push(escape_byte(b, &mut esc)) {
                        self.item.overflow = true;
                    }
                }
            }
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
            What::ItemName
                if self.ev == Ev::Unknown
                    && self.item.kind == Kind::Mcp
                    && self.item.holding
                    && !self.item.opened
                    && !self.item.item_id.is_empty() =>
            {
                // A whole body's MCP call written in key order (`arguments` before `name`):
                // it opens now, its held arguments replayed before the document reads on,
                // so its `output` (after `name`) can follow it as a result.
                self.item.opened = true;
                if self.item.overflow {
                    out.held.clear();
                    out.fault("max-call-bytes", ARGS_DROPPED);
                } else {
                    let (name, id, server, custom) = self.item_call();
                    let pos = self.remember(NONE, name, id, server, custom);
                    self.open_call(pos, out);
                    out.replay_held();
                }
            }
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
        let level = self.item_level(p).filter(|&l| l == p.depth())?;
        let whole_doc = matches!(self.ev, Ev::ItemDone | Ev::Unknown);
        match self.item.kind {
            Kind::Whole(k) if whole_doc => {
                let key = p.last_key();
                let naming = !self.item.opened && matches!(key, Key::Id | Key::CallId);
                if matches!(key, Key::Type | Key::Status) || naming {
                    return None;
                }
                // A member whose key is over 40 bytes is not kept (docs/providers.md).
                let name = p.last_key_bytes()?;
                let mut key_buf = [0u8; 40];
                let n = name.len().min(40);
                key_buf[..n].copy_from_slice(&name[..n]);
                if !self.whole_open(usize::from(k), out) {
                    return None;
                }
                let comma: &[u8] = if self.item.members > 0 { b",\"" } else { b"\"" };
                self.item.members += 1;
                out.args_parts(&[(comma, false), (&key_buf[..n], true), (b"\":", false)]);
                return Some(Capture::Args);
            }
            // An MCP call's result (`output`, or `error` when it failed): a server tool_result
            // block, after its call's block.
            Kind::Mcp
                if whole_doc
                    && v != ValueStart::Scalar
                    && matches!(p.last_key(), Key::Output | Key::Error) =>
            {
                let (name, id, ..) = self.item_call();
                let pos = self.call_at(if level == 3 { NONE } else { self.at });
                let ours = pos
                    .and_then(|i| self.calls.get(i))
                    .is_some_and(|c| c.id.bytes() == id.bytes());
                if level == 3 && !ours {
                    // A whole body's call whose name came after its output opens at its
                    // item's end: its result cannot come before it.
                    return None;
                }
                out.open_result(0, true, name.bytes(), id.bytes());
                return Some(Capture::Text);
            }
            _ => {}
        }
        // A whole body's `arguments` written as an object (compatible servers).
        if level != 3 {
            return None;
        }
        let named = !self.item.name.is_empty() && !self.item.opened;
        if level == 3
            && v == ValueStart::Object
            && p.last_key() == Key::Arguments
            && matches!(self.item.kind, Kind::FunctionCall | Kind::Mcp)
            && named
        {
            let (name, id, server, custom) = self.item_call();
            let pos = self.remember(NONE, name, id, server, custom);
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
