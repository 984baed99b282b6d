//! `mistral` (Mistral, Mixtral, Ministral, Devstral, Magistral): tool calls after the
//! `[TOOL_CALLS]` special token, in one of two wire forms, and `[THINK]…[/THINK]` thinking
//! (Magistral).
//!
//! - Tokenizers before v11: `[TOOL_CALLS][{"name": N, "arguments": {…}}, …]` (also written
//!   `[TOOL_CALLS] [` with a space), one JSON array of call objects.
//! - v11 and later: `[TOOL_CALLS]NAME[ARGS]{…}`, repeated for several calls
//!   (`[TOOL_CALLS]a[ARGS]{…}[TOOL_CALLS]b[ARGS]{…}`); some templates put `[CALL_ID]ID` between
//!   the name and `[ARGS]`. `[TOOL_CALLS]NAME{…}` (what a detokenizer that drops `[ARGS]`
//!   leaves, and what vLLM splits at the first `{`) is read the same.
//!
//! The JSON is read by the shared JSON call reader ([`super::json_call`], exactly as hermes
//! reads its bodies: relaxed JSON, `parameters` for `arguments`, JSON-encoded `arguments`,
//! first of a repeated key wins, an array's failure ends it). Choices the design rules leave
//! open (docs/design.md records them):
//!
//! - `[TOOL_CALLS]` is a special token: it is structural wherever it appears outside thinking
//!   (no look-ahead), also inside a JSON string of a call — there it ends the call being read,
//!   which fails as `malformed-body`, and starts the next one. After it and optional
//!   whitespace, `[` starts an array of call objects and `{` one call object (the pre-v11
//!   form); anything else is a name.
//! - A name runs to `[ARGS]`, `[CALL_ID]` or `{`; whitespace may follow it, not split it. An
//!   empty name, or one holding whitespace, `[`, `]`, `}` or `"`, fails the call as
//!   `missing-name`; invalid UTF-8 in a name or id becomes U+FFFD (rule 7). The id is the text between `[CALL_ID]` and `[ARGS]`, trimmed: the
//!   tool id when there is one (an empty one gets `{id_prefix}{n}`; one holding whitespace
//!   fails the call as `malformed-body`), else the id is `{id_prefix}{n}`.
//! - A v11 call's arguments are one JSON value (an object, or a string encoding one) and the
//!   call ends where that value ends: nothing closes it. What follows — whitespace, the next
//!   `[TOOL_CALLS]`, the end of input, or anything else — is top-level text as everywhere
//!   else (whitespace included), so a partial `[TOOL_CALLS]` at the end of input after a
//!   complete call (max_tokens) completes the call and is kept as text. The same holds after
//!   the pre-v11 array's `]` or a single call object's `}`.
//! - Failures (docs/design.md rule 10): the format has no closer, so a call that fails while
//!   its JSON is read ends where that JSON value ends ([`json_call::skip`]: bracket depth and
//!   strings tracked in four bytes, no buffering): a v11 call's arguments or a call object at
//!   its closing bracket, an array element before the `,` that follows it (the next elements
//!   are read as calls) or, the last one, with the array's `]`. Its raw text runs from its
//!   `[TOOL_CALLS]` (for an array element, from the first byte no completed call owns) to
//!   there and is re-emitted as a top-level text block with `on_malformed = "text"`; what
//!   follows is read as after a complete call. vLLM, SGLang and llama.cpp give up the whole
//!   message on a bad element (every call, the valid ones too, becomes content); reading on
//!   is sound because a failed element's end is where the JSON grammar puts it — where the
//!   brackets do not balance (a closer below the value's own level), or the failure is not in
//!   the JSON (a name, an id), or the value is a bare word, the call is skipped to the next
//!   `[TOOL_CALLS]` or the end of input as before, and nothing is ever lost either way. A call
//!   still being read at the end of input (a name, an id, unfinished JSON, a lone
//!   `[TOOL_CALLS]`) fails as `unfinished`; in an array, the end of input between elements
//!   ends the array.
//! - Stop sequences apply to top-level text only; `tools` neither restricts nor coerces
//!   mistral calls (as hermes).

use crate::config::Config;
use crate::config::Settings;
use crate::emit::{Act, Emitter, STR_CAP};
use crate::event::{BlockType, ErrorReason, Part};
use crate::scan::{Decision, Vocab};

use super::json_call::{self, JsonCall, Phase, fail};
use super::value::trim;
use super::{Cut, Machine};

const CALLS: &[u8] = b"[TOOL_CALLS]";
const ARGS: &[u8] = b"[ARGS]";
const CALL_ID: &[u8] = b"[CALL_ID]";

/// Literal indices in the text context's vocabulary.
const LIT_THINK: usize = 0;
const LIT_CALLS: usize = 1;
/// Literal indices in a call's vocabularies (`[TOOL_CALLS]` first in each).
const LIT_NEXT: usize = 0;
const LIT_ARGS: usize = 1;
const LIT_CALL_ID: usize = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    Text,
    Thinking,
    /// After `[TOOL_CALLS]`: whitespace, then JSON or a name (held in the value buffer).
    Name,
    /// Whitespace followed the name: only `[ARGS]`, `[CALL_ID]` or `{` may come now.
    NameEnd,
    /// After `[CALL_ID]`: the id, held in the value buffer (the name is set already).
    CallId,
    /// Reading JSON (`call.phase`): a call object, an array of them, or bare arguments.
    Json,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct State {
    /// The call being read, with the context (`call.host`).
    call: JsonCall<Ctx>,
}

impl Machine for State {
    const CALL_DEPTH: u8 = 0;

    fn new(cfg: &Config<'_>) -> State {
        State {
            call: JsonCall::new(cfg.start_in.pick(Ctx::Text, Ctx::Thinking)),
        }
    }

    fn vocab_key(&self) -> u32 {
        let phase = if self.call.host == Ctx::Json {
            self.call.phase as u32 + 1
        } else {
            0
        };
        self.call.host as u32 | phase << 4
    }

    fn vocab<'m>(&self, cfg: &'m Settings<'_>, _out: &'m Emitter<'_>) -> Vocab<'m> {
        match self.call.host {
            Ctx::Text => Vocab {
                stops: cfg.stops(),
                ..Vocab::EMPTY
            }
            .with_literal(cfg.thinking_tags().0.as_bytes())
            .with_literal(CALLS),
            Ctx::Thinking => Vocab::EMPTY.with_literal(cfg.thinking_tags().1.as_bytes()),
            Ctx::Name | Ctx::NameEnd => Vocab::EMPTY
                .with_literal(CALLS)
                .with_literal(ARGS)
                .with_literal(CALL_ID),
            Ctx::CallId => Vocab::EMPTY.with_literal(CALLS).with_literal(ARGS),
            Ctx::Json => Vocab::EMPTY.with_literal(CALLS),
        }
    }

    fn act(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        d: Decision,
        window: &[u8],
    ) -> Act {
        let skipping = self.call.host == Ctx::Json && self.call.phase == Phase::Skip;
        if out.call_too_large() && !skipping {
            self.fail(out, ErrorReason::TooLarge);
            return Act::WAIT;
        }
        if self.call.host == Ctx::Json && self.call.phase == Phase::After {
            // The call (or array) ended with its JSON value: what follows is top-level text.
            self.end_json(cfg, out);
            return Act::WAIT;
        }
        match d {
            Decision::Literal { index, len } => self.literal(cfg, out, index, len),
            Decision::Text(n) | Decision::Invalid(n) => match self.call.host {
                Ctx::Text => out.content(BlockType::Text, 0, d),
                Ctx::Thinking => out.content(BlockType::Thinking, 0, d),
                Ctx::Name | Ctx::NameEnd => self.name_text(cfg, out, d, window, n),
                Ctx::CallId => {
                    // Invalid bytes stay in the id (it is written lossily, rule 7).
                    if !out.value.push(&window[..n]) {
                        self.fail(out, ErrorReason::TooLarge);
                        return Act::WAIT;
                    }
                    Act::skip(n)
                }
                Ctx::Json => match self.call.phase {
                    Phase::Skip => json_call::skip(out, &mut self.call, d, window),
                    // Invalid bytes go to the lexer as they are: it decodes strings lossily.
                    _ => json_call::body(cfg, out, &mut self.call, window, n),
                },
            },
            _ => Act::WAIT,
        }
    }

    /// Between an array's elements, a `[TOOL_CALLS]` cut off by the end of input: the array
    /// ends there and the partial marker is text (the shared path, as hermes's arrays).
    fn cut_closer(&mut self, _cfg: &Settings<'_>, out: &mut Emitter<'_>, _cut: &[u8]) -> Cut {
        let c = &self.call;
        if c.host != Ctx::Json || c.phase != Phase::Body || !c.array() || c.call_open {
            return Cut::No;
        }
        out.stop_capture();
        self.call.host = Ctx::Text;
        Cut::Done
    }

    fn end_of_input(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) {
        match (self.call.host, self.call.phase) {
            (Ctx::Name | Ctx::NameEnd | Ctx::CallId, _) => {
                self.fail(out, ErrorReason::Unfinished);
                out.fail_call(self.call.reason, false);
            }
            (Ctx::Json, _) => self.call.end_of_input(cfg, out),
            _ => {}
        }
        self.call.call_open = false;
        self.call.host = Ctx::Text;
        out.stop_capture();
    }

    fn plain_block(&self) -> Option<(BlockType, u8)> {
        match self.call.host {
            Ctx::Text => Some((BlockType::Text, 0)),
            Ctx::Thinking => Some((BlockType::Thinking, 0)),
            _ => None,
        }
    }
}

impl State {
    /// The current call fails (a block opens for it if none is open yet); the rest is
    /// skipped to the next `[TOOL_CALLS]` or the end of input.
    fn fail(&mut self, out: &mut Emitter<'_>, reason: ErrorReason) {
        fail(out, &mut self.call, reason);
        self.call.host = Ctx::Json;
    }

    /// The JSON value ended: a single call completes; what follows is top-level text.
    fn end_json(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) {
        if self.call.call_open {
            out.complete_call(cfg);
            self.call.call_open = false;
        } else {
            out.stop_capture();
        }
        self.call.host = Ctx::Text;
    }

    fn literal(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        index: usize,
        len: usize,
    ) -> Act {
        match (self.call.host, index) {
            (Ctx::Text, LIT_THINK) => {
                out.close_content();
                self.call.host = Ctx::Thinking;
            }
            (Ctx::Text, LIT_CALLS) => {
                out.close_content();
                out.begin_capture();
                out.value.clear();
                self.call = JsonCall::new(Ctx::Name);
                self.call.host = Ctx::Name;
            }
            (Ctx::Thinking, _) => {
                out.close_content();
                self.call.host = Ctx::Text;
            }
            (Ctx::Name | Ctx::NameEnd | Ctx::CallId, LIT_NEXT) => {
                // The next call begins before this one had its arguments.
                let reason = if !self.call.call_open {
                    ErrorReason::MissingName
                } else {
                    ErrorReason::MalformedBody
                };
                self.fail(out, reason);
                return self.next_call(out);
            }
            (Ctx::Name | Ctx::NameEnd, LIT_CALL_ID) => self.id_follows(out),
            (Ctx::Name | Ctx::NameEnd | Ctx::CallId, LIT_ARGS) => self.arguments_follow(cfg, out),
            (Ctx::Json, _) => {
                match self.call.phase {
                    // Between the elements of an array: it just ends.
                    Phase::Body if self.call.array() && !self.call.call_open => out.stop_capture(),
                    Phase::Body => {
                        self.fail(out, ErrorReason::MalformedBody);
                        return self.next_call(out);
                    }
                    Phase::Skip => return self.next_call(out),
                    Phase::After => self.end_json(cfg, out),
                }
                // The marker is read again as the start of the next call.
                self.call.host = Ctx::Text;
                return Act::WAIT;
            }
            _ => {}
        }
        Act::skip(len)
    }

    /// The failed call ends before the next `[TOOL_CALLS]`, which is read again in text.
    fn next_call(&mut self, out: &mut Emitter<'_>) -> Act {
        self.call.call_open = false;
        self.call.host = Ctx::Text;
        out.close_skipped(self.call.reason, 0, false)
    }

    /// Text after `[TOOL_CALLS]`: whitespace, then `[` or `{` (JSON) or a name.
    fn name_text(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        d: Decision,
        window: &[u8],
        n: usize,
    ) -> Act {
        if matches!(d, Decision::Invalid(_)) {
            // Invalid bytes stay in the name (it is written lossily, rule 7).
            if !self.call.call_open {
                json_call::start_call(out, &mut self.call);
            }
            if self.call.host == Ctx::NameEnd {
                self.fail(out, ErrorReason::MissingName);
                return Act::WAIT;
            }
            if out.value.len() + n >= STR_CAP || !out.value.push(&window[..n]) {
                self.fail(out, ErrorReason::TooLarge);
                return Act::WAIT;
            }
            return Act::skip(n);
        }
        for (i, &b) in window[..n].iter().enumerate() {
            let ws = b.is_ascii_whitespace();
            if !self.call.call_open {
                if ws {
                    continue;
                }
                if b == b'[' || b == b'{' {
                    if truncated_marker(d, window, i, &[CALLS, ARGS, CALL_ID]) {
                        // `[TOOL_CALLS][AR` at the end of input: no name.
                        self.fail(out, ErrorReason::Unfinished);
                        return Act::skip(i);
                    }
                    self.call.begin(b == b'[');
                    self.call.host = Ctx::Json;
                    return Act::skip(i);
                }
                // A name begins: its block opens.
                json_call::start_call(out, &mut self.call);
            }
            if b == b'{' {
                // `NAME{…}`: the arguments begin without `[ARGS]`.
                self.arguments_follow(cfg, out);
                return Act::skip(i);
            }
            if ws {
                self.call.host = Ctx::NameEnd;
                continue;
            }
            let reason = if truncated_marker(d, window, i, &[CALLS, ARGS, CALL_ID]) {
                Some(ErrorReason::Unfinished)
            } else if self.call.host == Ctx::NameEnd || matches!(b, b'[' | b']' | b'}' | b'"') {
                Some(ErrorReason::MissingName)
            } else if out.value.len() + 1 >= STR_CAP || !out.value.push(&[b]) {
                Some(ErrorReason::TooLarge)
            } else {
                None
            };
            if let Some(reason) = reason {
                self.fail(out, reason);
                return Act::skip(i);
            }
        }
        Act::skip(n)
    }

    /// `[CALL_ID]`: the name is complete; the id follows.
    fn id_follows(&mut self, out: &mut Emitter<'_>) {
        if self.take_name(out) {
            self.call.host = Ctx::CallId;
        }
    }

    /// `[ARGS]` (or the `{` after a name): the name and id stream; the arguments follow.
    fn arguments_follow(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) {
        if self.announce(cfg, out) {
            self.call.begin_arguments();
            self.call.host = Ctx::Json;
        }
    }

    /// The held name becomes the call's name (set, not streamed yet), or the call fails as
    /// `missing-name` when there is none; the value buffer is free again.
    fn take_name(&mut self, out: &mut Emitter<'_>) -> bool {
        if !self.call.call_open || out.value.len() == 0 {
            self.fail(out, ErrorReason::MissingName);
            return false;
        }
        let mut name = [0u8; STR_CAP];
        let held = out.value.bytes();
        let n = held.len().min(STR_CAP);
        name[..n].copy_from_slice(&held[..n]);
        out.set_name(&name[..n]);
        out.value.clear();
        true
    }

    /// The name (and id) are read: they stream; the arguments follow.
    fn announce(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) -> bool {
        if self.call.host != Ctx::CallId && !self.take_name(out) {
            return false;
        }
        // The value buffer holds the id (after `[CALL_ID]`) or nothing.
        let mut id = [0u8; STR_CAP];
        let held = out.value.bytes();
        let (a, b) = trim(held);
        let id_bytes = &held[a..b];
        if id_bytes.len() >= STR_CAP || id_bytes.iter().any(u8::is_ascii_whitespace) {
            self.fail(out, ErrorReason::MalformedBody);
            return false;
        }
        id[..id_bytes.len()].copy_from_slice(id_bytes);
        let id = &id[..id_bytes.len()];
        out.queue_chunk(Some(Part::Name), out.name_spool());
        if id.is_empty() {
            out.next_call_id(cfg);
        } else {
            out.set_id(id);
            out.calls += 1;
        }
        out.queue_chunk(Some(Part::Id), out.id_spool());
        out.value.clear();
        true
    }
}

/// Whether the text decision `d` about `window` holds, from byte `at` to its end, a partial
/// marker at the end of input. `markers` must be literals of the vocabulary `d` was decided
/// in: a partial one short of the end of input is still undecided, so a text decision
/// reaching the window's end with one is the end.
fn truncated_marker(d: Decision, window: &[u8], at: usize, markers: &[&[u8]]) -> bool {
    let Decision::Text(n) = d else {
        return false;
    };
    let rest = &window[at.min(window.len())..];
    n == window.len()
        && !rest.is_empty()
        && markers
            .iter()
            .any(|m| rest.len() < m.len() && m.starts_with(rest))
}
