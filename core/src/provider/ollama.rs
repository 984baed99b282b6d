//! Ollama's native API: the NDJSON stream of `/api/chat` and `/api/generate` (or one whole
//! body with `"stream": false`).
//!
//! Paths read (depth = containers open at the value): `model`, `done`, `done_reason`,
//! `prompt_eval_count`, `eval_count`, `error` (1); `/api/generate`: `response` → text,
//! `thinking` → thinking (1); `/api/chat`: `message` (1): `content` → text, `thinking` →
//! thinking (2), `tool_calls[j]` (4): `id`, `function` (5): `name`, `arguments`.
//!
//! Ollama sends each tool call whole, its `arguments` an object (a JSON string is read as
//! arguments text), after its `name` (the field order of Ollama's own encoder): each
//! `tool_calls` element is one complete tool_call block, its id the element's `id` or
//! `{id_prefix}{n}`. A call whose `arguments` come before its `name` (another encoder) is
//! opened without one and fails as `missing-name` (design.md rule 10); an element without
//! `arguments` has the input `{}`.
//!
//! There is no end marker: the last line says `"done": true` with `done_reason` and the
//! counts, and the finish comes at the end of the body. `done_reason` `stop` → stop
//! (tool_calls when the response made tool calls), `length` → length, others (`load`,
//! `unload`) → other; `"done": true` without `done_reason` (older servers) is `stop`, with
//! no raw reason. `{"error": "…"}` (a line or the whole body) is a provider error without a
//! code.

use super::error_fields::ErrorFields;
use super::out::{Out, Slot};
use super::path::{Key, Path};
use super::{Capture, DocInfo, Map, Scalar, Sink, ValueStart};
use crate::event::{BlockType, FinishReason};
use crate::json::relaxed::Literal;

/// What a `Collect` string is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum What {
    None,
    Model,
    DoneReason,
    CallId,
    CallName,
    ErrMessage,
}

pub(crate) struct Ollama {
    what: What,
    err: ErrorFields,
    /// The `tool_calls` element being read: its id and name, and whether its block opened.
    id: Slot,
    name: Slot,
    opened: bool,
    /// Tool calls made (the call number of the next one).
    calls: u32,
    /// This document said `"done": true`, and gave a `done_reason`.
    done: bool,
    reason_given: bool,
    reason: Slot,
}

impl Ollama {
    pub(crate) const fn new() -> Ollama {
        Ollama {
            what: What::None,
            err: ErrorFields::NEW,
            id: Slot::EMPTY,
            name: Slot::EMPTY,
            opened: false,
            calls: 0,
            done: false,
            reason_given: false,
            reason: Slot::EMPTY,
        }
    }

    /// In `message.tool_calls[j]` (the element's members are at depth 4).
    fn in_call(p: &Path) -> bool {
        p.depth() >= 4 && p.key(1) == Key::Message && p.key(2) == Key::ToolCalls
    }

    /// `message.tool_calls[j].function.<key>` (depth 5).
    fn call_field(p: &Path, key: Key) -> bool {
        p.depth() == 5 && Self::in_call(p) && p.key(4) == Key::Function && p.key(5) == key
    }

    /// Opens the element's block (once).
    fn open_call(&mut self, out: &mut Out) {
        if !self.opened {
            self.opened = true;
            out.open_call(0, self.calls, false, self.name.bytes(), self.id.bytes());
            self.calls += 1;
        }
    }

    fn reason_of(&self, raw: &[u8]) -> FinishReason {
        match raw {
            b"stop" if self.calls > 0 => FinishReason::ToolCalls,
            b"stop" => FinishReason::Stop,
            b"length" => FinishReason::Length,
            _ => FinishReason::Other,
        }
    }
}

impl Map for Ollama {
    fn reset_state(&mut self) {
        *self = Ollama::new();
    }

    fn begin(&mut self, _doc: DocInfo<'_>, _out: &mut Out) {
        self.what = What::None;
        self.err.depth = 0;
        self.err.seen = false;
        self.done = false;
        self.reason_given = false;
    }

    fn open(&mut self, p: &Path, _out: &mut Out) {
        if p.depth() == 4 && Self::in_call(p) {
            self.id.clear();
            self.name.clear();
            self.opened = false;
        }
    }

    fn close(&mut self, p: &Path, out: &mut Out) {
        if p.depth() == 4 && Self::in_call(p) {
            // A whole call: complete now (no `arguments`: the input `{}`).
            self.open_call(out);
            out.close();
        }
    }

    fn string(&mut self, p: &Path, out: &mut Out) -> Sink {
        let d = p.depth();
        self.what = What::None;
        let text = |ty| Sink::Text {
            ty,
            choice: 0,
            refusal: false,
        };
        if d == 1 {
            match p.key(1) {
                Key::Response => return text(BlockType::Text),
                Key::Thinking => return text(BlockType::Thinking),
                Key::Model => {
                    out.model.clear();
                    self.what = What::Model;
                }
                Key::DoneReason => {
                    self.reason.clear();
                    self.what = What::DoneReason;
                }
                Key::Error => {
                    self.err.start(1, out);
                    self.what = What::ErrMessage;
                }
                _ => {}
            }
        } else if d == 2 && p.key(1) == Key::Message {
            match p.key(2) {
                Key::Content => return text(BlockType::Text),
                Key::Thinking => return text(BlockType::Thinking),
                _ => {}
            }
        } else if d == 4 && Self::in_call(p) && p.key(4) == Key::Id {
            self.id.clear();
            self.what = What::CallId;
        } else if Self::call_field(p, Key::Name) {
            self.name.clear();
            self.what = What::CallName;
        } else if Self::call_field(p, Key::Arguments) && !self.opened {
            // Arguments written as a JSON string (as OpenAI's API does).
            self.open_call(out);
            return Sink::Args;
        }
        if self.what == What::None {
            Sink::Skip
        } else {
            Sink::Collect
        }
    }

    fn piece(&mut self, bytes: &[u8], out: &mut Out) {
        match self.what {
            What::None => {}
            What::Model => out.model.push(bytes),
            What::DoneReason => self.reason.push(bytes),
            What::CallId => self.id.push(bytes),
            What::CallName => self.name.push(bytes),
            What::ErrMessage => {
                let _ = out.message.push(bytes);
            }
        }
    }

    fn string_end(&mut self, _p: &Path, out: &mut Out) {
        match self.what {
            What::DoneReason if !self.reason.is_empty() => {
                self.reason_given = true;
                let raw = self.reason;
                out.choice_reason(0, self.reason_of(raw.bytes()), raw.bytes());
            }
            What::ErrMessage => self.err.report(out),
            _ => {}
        }
        self.what = What::None;
    }

    fn scalar(&mut self, p: &Path, v: Scalar, out: &mut Out) {
        if p.depth() != 1 {
            return;
        }
        match (p.key(1), v) {
            (Key::Done, Scalar::Literal(Literal::True)) => self.done = true,
            (Key::PromptEvalCount, Scalar::Int(n)) => out.usage.input_tokens = Some(n),
            (Key::EvalCount, Scalar::Int(n)) => out.usage.output_tokens = Some(n),
            _ => {}
        }
    }

    fn value(&mut self, p: &Path, v: ValueStart, out: &mut Out) -> Option<Capture> {
        if v == ValueStart::Object && Self::call_field(p, Key::Arguments) && !self.opened {
            self.open_call(out);
            return Some(Capture::Args);
        }
        None
    }

    fn end(&mut self, out: &mut Out) {
        if self.done && !self.reason_given {
            let reason = self.reason_of(b"stop");
            out.choice_reason(0, reason, b"");
        }
        self.done = false;
        self.err.depth = 0;
    }
}
