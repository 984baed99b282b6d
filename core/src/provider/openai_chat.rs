//! OpenAI Chat Completions (and every compatible server): `chat.completion.chunk` events,
//! or one whole `chat.completion` body.
//!
//! Paths read (depth = containers open at the value):
//! `id`, `model` (1); `choices[i]` (3): `index`, `finish_reason`; `choices[i].delta` or
//! `.message` (4): `content` → text, `reasoning_content` (DeepSeek) / `reasoning`
//! (OpenRouter) → thinking, `refusal` → a refusal text block; `tool_calls[j]` (6): `index`,
//! `id`, `function` (7): `name`, `arguments`; `extra_content.google.thought_signature` (8,
//! Gemini's OpenAI-compatible API: the `signature` of the call's `block_complete`, which the
//! next request must send back); `reasoning_details[k]` (6, OpenRouter): `signature` and
//! `data` (`reasoning.encrypted`) → the thinking block's `signature` / `redacted` (its text
//! is read from `reasoning`, which OpenRouter writes alongside); `usage` (2, 3); `error` (2) or, in an SSE `event: error`,
//! the top level.
//!
//! Tool-call fragments are keyed by `index` (docs/providers.md): arguments stream straight
//! into the call's block when the fragment has named its call before them; otherwise they
//! are held until the fragment ends (proxies send `arguments` before `name`, `index` last).

use heapless::Vec;

use super::error_fields::ErrorFields;
use super::out::{Out, Slot};
use super::path::{Key, Keys, Path, keys, unread_by};
use super::{Capture, DocInfo, Map, Scalar, Sink, ValueStart};
use crate::event::{BlockType, FinishReason};

/// Calls remembered per stream (the oldest is forgotten past this).
const CALLS: usize = 8;

#[derive(Clone, Copy)]
struct Call {
    choice: u32,
    index: u32,
    id: Slot,
    name: Slot,
    /// The decoder-wide call number (`OpenBlock::call`).
    n: u32,
    /// Its arguments were cut (held past `max_call_bytes` before its name came): it fails
    /// as `too-large` when it opens.
    cut: bool,
    /// Its thought signature is in `out.signature`, to sign its block once it opens.
    signed: bool,
}

/// The tool-call fragment being read.
#[derive(Clone, Copy)]
struct Frag {
    index: Option<u32>,
    id: Slot,
    name: Slot,
    /// Its arguments are held in `out.held`.
    holding: bool,
    /// They did not fit (`max_call_bytes`).
    overflow: bool,
    /// It had any field at all.
    any: bool,
    /// It carried a whole thought signature (now in `out.signature`).
    sig: bool,
    /// Its thought signature outgrew `out.signature`.
    sig_over: bool,
}

const FRAG: Frag = Frag {
    index: None,
    id: Slot::EMPTY,
    name: Slot::EMPTY,
    holding: false,
    overflow: false,
    any: false,
    sig: false,
    sig_over: false,
};

/// What a `Collect` string is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum What {
    None,
    ResponseId,
    Model,
    FinishReason,
    FragId,
    FragName,
    HeldArgs,
    Signature,
    /// OpenRouter `reasoning_details[k].signature`.
    DetailSignature,
    /// OpenRouter `reasoning_details[k].data` (`reasoning.encrypted`).
    DetailData,
    ErrMessage,
    ErrCode,
    ErrType,
    /// Top-level `object` (vLLM's error document says `"error"`).
    Object,
}

pub(crate) struct OpenAiChat {
    choice: u32,
    what: What,
    frag: Frag,
    calls: Vec<Call, CALLS>,
    next_call: u32,
    reason: Slot,
    err: ErrorFields,
    /// The document is an SSE `event: error`.
    event_error: bool,
    /// Top-level `object` value.
    object: Slot,
    /// The document says `"object": "error"` (vLLM): its top-level fields are the error.
    object_error: bool,
    /// `out.held` keeps the first bytes of a cut call's arguments (its `raw`) until the
    /// call opens.
    cut_held: bool,
    /// A thought signature (or OpenRouter reasoning data) outgrew `max_call_bytes`: what is
    /// reported once no block is open (an error event would complete the open call early).
    sig_dropped: Option<&'static str>,
    /// The `reasoning_details` value being read outgrew its memory.
    sig_over: bool,
}

impl OpenAiChat {
    pub(crate) const fn new() -> OpenAiChat {
        OpenAiChat {
            choice: 0,
            what: What::None,
            frag: FRAG,
            calls: Vec::new(),
            next_call: 0,
            reason: Slot::EMPTY,
            err: ErrorFields::NEW,
            event_error: false,
            object: Slot::EMPTY,
            object_error: false,
            cut_held: false,
            sig_dropped: None,
            sig_over: false,
        }
    }

    /// A `reasoning_details` signature or encrypted data begins: it belongs to the open
    /// thinking block of the choice, or — with none open — to a thinking block of its own,
    /// opened when the value turns out non-empty (`detail_end`). Another block that holds
    /// the signature buffers (a signed call) completes first, keeping its own.
    fn detail_start(&mut self, out: &mut Out) {
        let choice = self.choice;
        let target = match out.open {
            Some(o) if o.ty == BlockType::Thinking && o.choice == choice && !o.routed => {
                Some(o.index)
            }
            _ => None,
        };
        if target.is_none() || out.sig_block != target {
            close_signed_block(out);
            out.signature.clear();
            out.redacted.clear();
            out.sig_block = target;
        }
    }

    /// A `reasoning_details` value ended: a non-empty one without an open thinking block
    /// is a thinking block of its own (nothing but its signature or data).
    fn detail_end(&mut self, out: &mut Out) {
        let filled = out.signature.len() > 0 || out.redacted.len() > 0;
        if filled && out.sig_block.is_none() {
            out.open_text(BlockType::Thinking, self.choice, false);
            out.sig_block = out.open.map(|o| o.index);
            out.close();
        }
    }

    /// Reports a dropped thought signature, once no block is open.
    fn report_dropped(&mut self, out: &mut Out) {
        if out.open.is_none() {
            if let Some(message) = self.sig_dropped.take() {
                out.fault("max-call-bytes", message);
            }
        }
    }

    /// `choices[i].delta` / `.message` at `level`.
    fn in_message(p: &Path, level: u32) -> bool {
        p.depth() >= level
            && p.key(1) == Key::Choices
            && matches!(p.key(3), Key::Delta | Key::Message)
    }

    /// The table position of the fragment's call. `last`: the fragment has ended, so an
    /// absent index means the choice's current call.
    fn resolve(&mut self, last: bool) -> Option<usize> {
        let choice = self.choice;
        let index = match self.frag.index {
            Some(i) => i,
            None if last => self
                .calls
                .iter()
                .rev()
                .find(|c| c.choice == choice)
                .map_or(0, |c| c.index),
            None => return None,
        };
        let found = self
            .calls
            .iter()
            .rposition(|c| c.choice == choice && c.index == index);
        if let Some(pos) = found {
            let c = &mut self.calls[pos];
            // A call known only by its cut arguments takes the id its name comes with.
            let adopt = c.cut && c.name.is_empty() && c.id.is_empty();
            if adopt || self.frag.id.is_empty() || self.frag.id.bytes() == c.id.bytes() {
                if c.name.is_empty() && !self.frag.name.is_empty() {
                    c.name = self.frag.name;
                }
                if adopt {
                    c.id = self.frag.id;
                }
                return Some(pos);
            }
        }
        // A new call: a new index, or a new id on a used index.
        if !last && self.frag.name.is_empty() {
            return None;
        }
        if self.calls.is_full() {
            self.calls.remove(0);
        }
        let call = Call {
            choice,
            index,
            id: self.frag.id,
            name: self.frag.name,
            n: self.next_call,
            cut: false,
            signed: false,
        };
        self.next_call += 1;
        let _ = self.calls.push(call);
        Some(self.calls.len() - 1)
    }

    /// Makes the call's block the open one.
    fn open_call(&mut self, pos: usize, out: &mut Out) {
        let c = &self.calls[pos];
        let open = matches!(out.open, Some(o) if o.ty == BlockType::ToolCall && o.call == c.n);
        if !open {
            out.open_call(c.choice, c.n, false, c.name.bytes(), c.id.bytes());
            if c.cut {
                out.cut_args(self.cut_held);
                self.cut_held = false;
            }
        }
        if self.calls[pos].signed {
            self.calls[pos].signed = false;
            out.sig_block = out.open.map(|o| o.index);
        }
    }

    /// The fragment's thought signature goes to its call: it signs the call's block (now,
    /// if it is open; else when it opens). One signature is kept at a time — Gemini signs
    /// the first call of a step only — so a new one completes the block the last one
    /// signs first, which keeps that signature with its call.
    fn sign(&mut self, pos: usize, out: &mut Out) {
        let c = &self.calls[pos];
        if matches!(out.open, Some(o) if o.ty == BlockType::ToolCall && o.call == c.n) {
            out.sig_block = out.open.map(|o| o.index);
        } else {
            self.calls[pos].signed = true;
        }
    }
}

/// The signature buffers are about to take a new value: the open block the held one signs
/// completes first, keeping it (one signature is held at a time).
fn close_signed_block(out: &mut Out) {
    if out
        .sig_block
        .is_some_and(|i| out.open.is_some_and(|o| o.index == i))
    {
        out.close();
    }
}

/// A member whose value this mapper reads nothing of, at any depth (`Capture::Skip`): every
/// member of the objects below but the keys listed (the paths in the module docs; the
/// top level's `message`, `code` and `type` are an error document's fields). Values deeper
/// than these objects, and members of objects not listed, are read as before.
fn unread(p: &Path, k: Key) -> bool {
    const TOP: Keys = keys(&[
        Key::Id,
        Key::Model,
        Key::Object,
        Key::Choices,
        Key::Usage,
        Key::Error,
        Key::Message,
        Key::Code,
        Key::Type,
        // Bedrock InvokeModel's OpenAI-format chunks (`invocation_metrics`).
        Key::InvocationMetrics,
    ]);
    const USAGE: Keys = keys(&[
        Key::PromptTokens,
        Key::CompletionTokens,
        Key::PromptTokensDetails,
        Key::CompletionTokensDetails,
    ]);
    // `choices[i]`: `logprobs`, `content_filter_results`, … are not read.
    const CHOICE: Keys = keys(&[Key::Index, Key::FinishReason, Key::Delta, Key::Message]);
    const MESSAGE: Keys = keys(&[
        Key::Content,
        Key::ReasoningContent,
        Key::Reasoning,
        Key::Refusal,
        Key::ToolCalls,
        Key::ReasoningDetails,
    ]);
    const CALL: Keys = keys(&[Key::Index, Key::Id, Key::Function, Key::ExtraContent]);
    let read = match p.depth() {
        1 => Some(TOP),
        2 if p.key(1) == Key::Usage => Some(USAGE),
        3 if p.key(1) == Key::Choices => Some(CHOICE),
        4 if OpenAiChat::in_message(p, 4) => Some(MESSAGE),
        6 if OpenAiChat::in_message(p, 6) && p.key(4) == Key::ToolCalls => Some(CALL),
        _ => None,
    };
    unread_by(read, k)
}

fn reason_of(raw: &[u8]) -> FinishReason {
    match raw {
        b"stop" => FinishReason::Stop,
        b"length" => FinishReason::Length,
        b"tool_calls" | b"function_call" => FinishReason::ToolCalls,
        b"content_filter" => FinishReason::ContentFilter,
        b"error" => FinishReason::Error,
        _ => FinishReason::Other,
    }
}

impl Map for OpenAiChat {
    fn reset_state(&mut self) {
        *self = OpenAiChat::new();
    }

    fn begin(&mut self, doc: DocInfo<'_>, out: &mut Out) {
        self.choice = 0;
        self.what = What::None;
        self.err.depth = 0;
        self.err.seen = false;
        self.event_error = doc.event == b"error";
        self.object_error = false;
        // Top-level error fields are collected in every document: whether they are an
        // error (`event: error`, `"object": "error"`) may be known only at its end.
        self.err.start(1, out);
    }

    fn open(&mut self, p: &Path, out: &mut Out) {
        let d = p.depth();
        if d == 3 && p.key(1) == Key::Choices {
            self.choice = p.index(2);
        } else if d == 6 && Self::in_message(p, 6) && p.key(4) == Key::ToolCalls {
            self.frag = FRAG;
            if !self.cut_held {
                out.held.clear();
            }
        } else if d == 2 && p.key(1) == Key::Error && self.err.depth == 1 {
            // `{"error": {…}}`, also inside an `event: error`.
            self.err.start(2, out);
        }
    }

    fn close(&mut self, p: &Path, out: &mut Out) {
        let d = p.depth();
        if d == 6 && Self::in_message(p, 6) && p.key(4) == Key::ToolCalls {
            let frag = self.frag;
            if !(frag.any || frag.holding) {
                return;
            }
            if frag.overflow {
                // Arguments that came before their call's name and outgrew the memory for
                // holding them: reported, and the call fails as `too-large` (never a
                // call with part of its input).
                self.cut_held = true;
                out.fault(
                    "max-call-bytes",
                    "a tool call's arguments came before its name and exceeded max_call_bytes; the call fails as too-large",
                );
                if let Some(pos) = self.resolve(true) {
                    self.calls[pos].cut = true;
                    if !self.calls[pos].name.is_empty() {
                        self.open_call(pos, out);
                    }
                }
                return;
            }
            if let Some(pos) = self.resolve(true) {
                if frag.holding || !self.calls[pos].name.is_empty() {
                    self.open_call(pos, out);
                    if frag.holding {
                        out.replay_held();
                    }
                }
                if frag.sig {
                    self.sign(pos, out);
                }
            }
            if frag.sig_over {
                // A cut signature would be refused when sent back: the call completes
                // unsigned and the limit is reported once its block has completed.
                self.sig_dropped =
                    Some("a thought_signature exceeded max_call_bytes; it is dropped");
                self.report_dropped(out);
            }
        } else if d == 2 && self.err.depth == 2 && p.key(1) == Key::Error {
            self.err.report(out);
        }
    }

    fn string(&mut self, p: &Path, out: &mut Out) -> Sink {
        let d = p.depth();
        self.what = What::None;
        let err_field = match p.last_key() {
            Key::Message => What::ErrMessage,
            Key::Code => What::ErrCode,
            Key::Type => What::ErrType,
            _ => What::None,
        };
        if self.err.depth > 0 && d == self.err.depth && err_field != What::None {
            self.what = err_field;
        } else if d == 1 && p.key(1) == Key::Error && self.err.depth == 1 {
            // `{"error": "text"}`
            self.err.start(1, out);
            self.what = What::ErrMessage;
        } else if d == 1 {
            self.what = match p.key(1) {
                Key::Id => What::ResponseId,
                Key::Model => What::Model,
                Key::Object => What::Object,
                _ => What::None,
            };
        } else if d == 3 && p.key(1) == Key::Choices && p.key(3) == Key::FinishReason {
            self.what = What::FinishReason;
        } else if d == 4 && Self::in_message(p, 4) {
            let choice = self.choice;
            let (ty, refusal) = match p.key(4) {
                Key::Content => (BlockType::Text, false),
                Key::ReasoningContent | Key::Reasoning => (BlockType::Thinking, false),
                Key::Refusal => (BlockType::Text, true),
                _ => return Sink::Skip,
            };
            return Sink::Text {
                ty,
                choice,
                refusal,
            };
        } else if d == 6 && Self::in_message(p, 6) && p.key(4) == Key::ToolCalls {
            if p.key(6) == Key::Id {
                self.what = What::FragId;
                self.frag.id.clear();
                self.frag.any = true;
            }
        } else if d == 6
            && Self::in_message(p, 6)
            && p.key(4) == Key::ReasoningDetails
            && matches!(p.key(6), Key::Signature | Key::Data)
        {
            self.detail_start(out);
            self.sig_over = false;
            self.what = if p.key(6) == Key::Signature {
                What::DetailSignature
            } else {
                What::DetailData
            };
        } else if d == 8
            && Self::in_message(p, 8)
            && p.key(4) == Key::ToolCalls
            && (p.key(6), p.key(7), p.key(8))
                == (Key::ExtraContent, Key::Google, Key::ThoughtSignatureSnake)
        {
            // A signature still waiting for its block (it signs one block at a time): that
            // block completes first, with it.
            close_signed_block(out);
            out.signature.clear();
            out.sig_block = None;
            self.frag.any = true;
            self.frag.sig = false;
            self.frag.sig_over = false;
            self.what = What::Signature;
        } else if d == 7
            && Self::in_message(p, 7)
            && p.key(4) == Key::ToolCalls
            && p.key(6) == Key::Function
        {
            self.frag.any = true;
            match p.key(7) {
                Key::Name => {
                    self.what = What::FragName;
                    self.frag.name.clear();
                }
                Key::Arguments => {
                    if !self.frag.holding {
                        if let Some(pos) = self.resolve(false) {
                            self.open_call(pos, out);
                            return Sink::Args;
                        }
                    }
                    if self.cut_held {
                        // Another call's arguments to hold: a cut call's first bytes
                        // (its raw) are given up.
                        out.held.clear();
                        self.cut_held = false;
                    }
                    self.frag.holding = true;
                    self.what = What::HeldArgs;
                }
                _ => {}
            }
        }
        match self.what {
            What::None => return Sink::Skip,
            What::FinishReason => self.reason.clear(),
            What::ResponseId => out.response_id.clear(),
            What::Model => out.model.clear(),
            What::Object => self.object.clear(),
            _ => {}
        }
        Sink::Collect
    }

    fn piece(&mut self, bytes: &[u8], out: &mut Out) {
        match self.what {
            What::None => {}
            What::ResponseId => out.response_id.push(bytes),
            What::Model => out.model.push(bytes),
            What::FinishReason => self.reason.push(bytes),
            What::FragId => self.frag.id.push(bytes),
            What::FragName => self.frag.name.push(bytes),
            What::HeldArgs => {
                if !out.held.push(bytes) {
                    self.frag.overflow = true;
                }
            }
            What::Signature => {
                if !out.signature.push(bytes) {
                    self.frag.sig_over = true;
                }
            }
            What::DetailSignature => {
                if !out.signature.push(bytes) {
                    self.sig_over = true;
                }
            }
            What::DetailData => {
                if !out.redacted.push(bytes) {
                    self.sig_over = true;
                }
            }
            What::ErrMessage => {
                let _ = out.message.push(bytes);
            }
            What::ErrCode => self.err.code.push(bytes),
            What::ErrType => self.err.ty.push(bytes),
            What::Object => self.object.push(bytes),
        }
    }

    fn string_end(&mut self, p: &Path, out: &mut Out) {
        match self.what {
            What::FinishReason if !self.reason.is_empty() => {
                let raw = self.reason;
                out.choice_reason(self.choice, reason_of(raw.bytes()), raw.bytes());
                self.report_dropped(out);
            }
            What::ErrMessage if self.err.depth == 1 && p.key(1) == Key::Error => {
                self.err.report(out);
            }
            What::Object => self.object_error = self.object.bytes() == b"error",
            What::Signature => {
                // An empty signature is none (docs/providers.md).
                self.frag.sig = out.signature.len() > 0 && !self.frag.sig_over;
                if self.frag.sig_over {
                    out.signature.clear();
                }
            }
            What::DetailSignature | What::DetailData => {
                if self.sig_over {
                    // Cut data would be refused when sent back: dropped, and reported once
                    // no block is open.
                    out.signature.clear();
                    out.redacted.clear();
                    self.sig_dropped = Some(
                        "a reasoning_details signature or data exceeded max_call_bytes; it is dropped",
                    );
                }
                self.detail_end(out);
                self.report_dropped(out);
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
        if super::invocation_metrics(p, n, out) {
            return;
        }
        if d == 3 && p.key(1) == Key::Choices && p.key(3) == Key::Index {
            self.choice = n.min(u64::from(u32::MAX)) as u32;
        } else if d == 6 && Self::in_message(p, 6) && p.key(4) == Key::ToolCalls {
            if p.key(6) == Key::Index {
                self.frag.index = Some(n.min(u64::from(u32::MAX)) as u32);
                self.frag.any = true;
            }
        } else if d == 2 && p.key(1) == Key::Usage {
            match p.key(2) {
                Key::PromptTokens => out.usage.input_tokens = Some(n),
                Key::CompletionTokens => out.usage.output_tokens = Some(n),
                _ => {}
            }
        } else if d == 3 && p.key(1) == Key::Usage {
            match (p.key(2), p.key(3)) {
                (Key::PromptTokensDetails, Key::CachedTokens) => {
                    out.usage.cache_read_tokens = Some(n)
                }
                (Key::CompletionTokensDetails, Key::ReasoningTokens) => {
                    out.usage.reasoning_tokens = Some(n)
                }
                _ => {}
            }
        } else if self.err.depth > 0 && d == self.err.depth && p.last_key() == Key::Code {
            self.err.number(n);
        }
    }

    fn value(&mut self, p: &Path, v: ValueStart, out: &mut Out) -> Option<Capture> {
        // Some compatible servers write `arguments` as an object, not a JSON string.
        if v == ValueStart::Object
            && p.depth() == 7
            && Self::in_message(p, 7)
            && p.key(4) == Key::ToolCalls
            && p.key(6) == Key::Function
            && p.key(7) == Key::Arguments
            && !self.frag.holding
        {
            self.frag.any = true;
            let pos = self.resolve(false)?;
            self.open_call(pos, out);
            return Some(Capture::Args);
        }
        None
    }

    fn unread(&self, p: &Path, key: Key) -> bool {
        unread(p, key)
    }

    fn end(&mut self, out: &mut Out) {
        self.report_dropped(out);
        if self.event_error || self.object_error {
            self.err.report(out);
        }
        self.event_error = false;
        self.object_error = false;
        self.err.depth = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::unread;
    use crate::provider::path::table_tests::check;

    /// Skipped: the members no path of the module docs goes through; every other value is
    /// read as before.
    #[test]
    fn the_keys_it_reads_are_not_skipped() {
        check(
            unread,
            &[
                &["created"][..],
                &["system_fingerprint"],
                &["service_tier"],
                &["obfuscation"],
                &["choices", "0", "logprobs"],
                &["choices", "1", "content_filter_results"],
                &["choices", "0", "delta", "role"],
                &["choices", "0", "message", "annotations"],
                &["choices", "0", "delta", "tool_calls", "0", "type"],
                &["usage", "total_tokens"],
            ],
            &[
                &["id"][..],
                &["model"],
                &["object"],
                &["error"],
                &["message"],
                &["code"],
                &["type"],
                &["amazon-bedrock-invocationMetrics"],
                &["choices"],
                &["choices", "0"],
                &["choices", "0", "index"],
                &["choices", "0", "finish_reason"],
                &["choices", "0", "delta"],
                &["choices", "0", "delta", "content"],
                &["choices", "0", "delta", "reasoning_content"],
                &["choices", "0", "delta", "reasoning"],
                &["choices", "0", "delta", "refusal"],
                &["choices", "0", "delta", "reasoning_details"],
                &["choices", "0", "delta", "tool_calls", "0", "function"],
                &["choices", "0", "delta", "tool_calls", "0", "extra_content"],
                &["choices", "0", "delta", "tool_calls", "0", "id"],
                &["choices", "0", "delta", "tool_calls", "0", "index"],
                &["choices", "0", "delta", "tool_calls", "0", "function", "x"],
                &["usage", "prompt_tokens"],
                &["usage", "completion_tokens_details"],
                &["usage", "prompt_tokens_details", "audio_tokens"],
                &["error", "param"],
                &["x", "y"],
            ],
        );
    }
}
