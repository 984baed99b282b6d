//! `llama3-json` (Llama 3.1, 3.2, 3.3 with JSON tool calling): a call is a JSON object
//! `{"name": N, "parameters": {…}}` (or `"arguments"`) written as the whole message, or after
//! the `<|python_tag|>` special token; several calls are separated by `;` (`;`, `; `, ` ; `,
//! `;\n`) or a newline, or each gets its own `<|python_tag|>`.
//!
//! The JSON is read by the shared JSON call reader ([`super::json_call`]), exactly as hermes
//! and mistral read theirs: relaxed JSON, `parameters` or `arguments`, JSON-encoded
//! arguments, first of a repeated key wins, other keys (`"type": "function"`, …) ignored, an
//! array of call objects read as one call each. Choices the design rules leave open
//! (docs/design.md records them):
//!
//! - When a bare JSON message is a call. vLLM's streaming parser takes any message that
//!   starts with `{` for calls (and its whole-text parser any `{` anywhere), SGLang any message
//!   that starts with `{` or `[`, llama.cpp a message that starts (after whitespace) with
//!   `{"name": …` (optionally `"type": "function"` first). A host asking for JSON output would
//!   not expect `{"answer": 42}` to vanish into a failed call, so tokensieve follows llama.cpp:
//!   at the start of the message — nothing but whitespace and thinking before it — `{` opens a
//!   call only when its first key is `name` (quoted or not) followed by `:`, or `type` with the
//!   value `"function"`, and `[` only before such an object. After prose, `{` opens a call
//!   only when its first member is `name` and its quoted value is a configured tool's name
//!   (docs/design.md, "Lenient recovery"); otherwise JSON in text is text
//!   (`Here it is: {"name": …}` without that tool configured).
//! - `<|python_tag|>` (a special token) opens calls wherever it appears in text, but only
//!   before (optional whitespace and) such an object or array; otherwise — Llama 3.1's
//!   built-in tools write Python after it (`<|python_tag|>brave_search.call(query="…")`) —
//!   the tag and what follows are text, unchanged.
//! - Leading whitespace of the message is text, as at top level everywhere (it is not held
//!   back); a call may still follow it.
//! - A call ends where its JSON value ends (nothing closes it). After it, separators
//!   (whitespace and `;`) followed by another call are wire syntax; anything else — including
//!   whitespace or a `;` not followed by a call — is top-level text, and from there on JSON
//!   is text again (only `<|python_tag|>` opens calls). So a cut-off `<|python_tag|>` at the
//!   end of input after a complete call is text, and the call completes.
//! - Failures (docs/design.md rule 10): there is no closer, so a failed call ends where its
//!   JSON object ends ([`json_call::skip`]: bracket depth and strings tracked in four bytes,
//!   as mistral does); an array element before the `,` after it (the next elements are read)
//!   or, the last one, with the array's `]`. What follows is read as after a complete call:
//!   separators and the next call of the sequence, or text. Where that end cannot be found
//!   (brackets that do not balance) the call is skipped to the next `<|python_tag|>` or the
//!   end of input. Its raw text runs from its first byte (for an array element, from the
//!   first byte no completed call owns) and comes back as a top-level text block with
//!   `on_malformed = "text"`. A JSON value still open at the end of input
//!   fails as `unfinished`; in an array the end of input between elements ends it.
//!   `<|python_tag|>` inside a call's JSON (a special token: structural) fails the call as
//!   `malformed-body` and opens the next one.
//! - Thinking: Llama 3 does not think; the default thinking tags are `<think>`/`</think>`
//!   (harmless: Llama 3 never writes them; DeepSeek-R1's Llama distills do). The message
//!   start is also right after thinking that nothing but whitespace preceded.
//! - Stop sequences apply to top-level text only; `tools` neither restricts nor coerces calls.

use crate::config::{Config, Settings};
use crate::emit::{Act, Emitter};
use crate::event::{BlockType, ErrorReason};
use crate::scan::{Decision, Names, Vocab};

use super::Machine;
use super::json_call::{self, JsonCall, Phase, fail};
use super::value::leading_ws;

const PYTHON_TAG: &[u8] = b"<|python_tag|>";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    /// The start of the message: nothing but whitespace and thinking so far.
    Start,
    /// Top-level text after the start.
    Text,
    /// Thinking entered at the start of the message (it ends back there).
    StartThinking,
    /// Thinking entered after text.
    Thinking,
    /// Reading a call's JSON (`call.phase`).
    Json,
    /// After a call: separators before the next call, or text.
    After,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct State {
    /// The call being read, with the context (`call.host`).
    call: JsonCall<Ctx>,
}

/// Literal indices in the start and text contexts (the thinking tag first).
const LIT_THINK: usize = 0;
const LIT_TAG: usize = 1;
/// Separators, then `{`, `[` and the tag after a call.
const AFTER_LITERALS: [&[u8]; 8] = [b";", b" ", b"\n", b"\r", b"\t", b"{", b"[", PYTHON_TAG];
const AFTER_SEPARATORS: usize = 5;
const AFTER_TAG: usize = 7;

/// An answer about the bytes after a literal: yes, no, or more bytes could tell.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Look {
    Yes,
    No,
    Need,
}

fn any(a: Look, b: Look) -> Look {
    match (a, b) {
        (Look::Yes, _) | (_, Look::Yes) => Look::Yes,
        (Look::Need, _) | (_, Look::Need) => Look::Need,
        _ => Look::No,
    }
}

fn ws(r: &[u8]) -> usize {
    r.iter().take_while(|b| b.is_ascii_whitespace()).count()
}

/// `r` starts with `word` (`Need` when `r` is a proper prefix of it).
fn word(r: &[u8], w: &[u8]) -> (Look, usize) {
    if r.starts_with(w) {
        (Look::Yes, w.len())
    } else if r.len() < w.len() && w.starts_with(r) {
        (Look::Need, 0)
    } else {
        (Look::No, 0)
    }
}

/// `r` starts with a member key `k` (`"k"`, `'k'` or `k`) and optional whitespace and `:`;
/// the number of bytes through the `:`.
fn key(r: &[u8], k: &[u8]) -> (Look, usize) {
    let mut best = Look::No;
    for q in [&b"\""[..], b"'", b""] {
        let (l, n) = word(r, q);
        if l != Look::Yes {
            best = any(best, l);
            continue;
        }
        let (l, m) = word(&r[n..], k);
        if l != Look::Yes {
            best = any(best, l);
            continue;
        }
        let (l, o) = word(&r[n + m..], q);
        if l != Look::Yes {
            best = any(best, l);
            continue;
        }
        let at = n + m + o;
        let at = at + ws(&r[at..]);
        match r.get(at) {
            Some(b':') => return (Look::Yes, at + 1),
            Some(_) => {}
            None => best = any(best, Look::Need),
        }
    }
    (best, 0)
}

/// The first member of a call object (after its `{`): `name:` or `type: "function"`.
fn call_key(r: &[u8]) -> Look {
    let i = ws(r);
    let r = &r[i..];
    if r.is_empty() {
        return Look::Need;
    }
    let (name, _) = key(r, b"name");
    let (ty, n) = key(r, b"type");
    let ty = if ty == Look::Yes {
        let r = &r[n..];
        let r = &r[ws(r)..];
        any(word(r, b"\"function\"").0, word(r, b"'function'").0)
    } else {
        ty
    };
    any(name, ty)
}

/// `{` and a call's first member, after optional whitespace.
fn object(r: &[u8]) -> Look {
    let i = ws(r);
    match r.get(i) {
        None => Look::Need,
        Some(b'{') => call_key(&r[i + 1..]),
        Some(_) => Look::No,
    }
}

/// `[` and a call object, after optional whitespace.
fn array(r: &[u8]) -> Look {
    let i = ws(r);
    match r.get(i) {
        None => Look::Need,
        Some(b'[') => object(&r[i + 1..]),
        Some(_) => Look::No,
    }
}

/// Separators (whitespace and `;`), then a call object or `<|python_tag|>` before one.
fn next_call(r: &[u8]) -> Look {
    let i = r
        .iter()
        .take_while(|&&b| b == b';' || b.is_ascii_whitespace())
        .count();
    let r = &r[i..];
    if r.is_empty() {
        return Look::Need;
    }
    let (tag, n) = word(r, PYTHON_TAG);
    let tag = if tag == Look::Yes {
        any(object(&r[n..]), array(&r[n..]))
    } else {
        tag
    };
    any(any(object(r), array(r)), tag)
}

/// After `{`: a `name` member whose value is the name of a configured tool (`names`), in
/// quotes: `"name": "get_weather"` (the call key of a call that prose precedes).
fn named_call(r: &[u8], names: &Names<'_>) -> Look {
    let Names::Tools(tools) = names else {
        return Look::No;
    };
    let r = &r[ws(r)..];
    let (l, n) = key(r, b"name");
    if l != Look::Yes {
        return l;
    }
    let r = &r[n..];
    let r = &r[ws(r)..];
    let Some((&q, value)) = r.split_first() else {
        return Look::Need;
    };
    if q != b'"' && q != b'\'' {
        return Look::No;
    }
    match value.iter().position(|&b| b == q) {
        Some(end) => {
            if tools.find(&value[..end]).is_some() {
                Look::Yes
            } else {
                Look::No
            }
        }
        // Undecided while a configured name could still be spelled.
        None if (0..tools.len()).any(|i| {
            tools
                .name(i)
                .is_some_and(|t| t.as_bytes().starts_with(value))
        }) =>
        {
            Look::Need
        }
        None => Look::No,
    }
}

/// The look-ahead test of top-level text after the start: after `<|python_tag|>`, a call
/// object (or array) to come; after `{`, a `name` member naming a configured tool.
fn text_follows(rest: &[u8], v: &Vocab<'_>, eof: bool) -> Option<bool> {
    match any(next_call(rest), named_call(rest, &v.dynamic)) {
        Look::Yes => Some(true),
        Look::No => Some(false),
        Look::Need if eof => Some(false),
        Look::Need => None,
    }
}

/// The look-ahead test of every marked literal (module docs): after `{`, a call's first
/// member; after `[`, `<|python_tag|>` or a separator, a call object (or array) to come.
fn call_follows(rest: &[u8], _: &Vocab<'_>, eof: bool) -> Option<bool> {
    match any(call_key(rest), next_call(rest)) {
        Look::Yes => Some(true),
        Look::No => Some(false),
        Look::Need if eof => Some(false),
        Look::Need => None,
    }
}

impl Machine for State {
    const CALL_DEPTH: u8 = 0;

    fn new(cfg: &Config<'_>) -> State {
        State {
            call: JsonCall::new(cfg.start_in.pick(Ctx::Start, Ctx::StartThinking)),
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
        // Built in place, the thinking markers read only where they count: this runs for
        // every decision.
        let mut v = Vocab::EMPTY;
        match self.call.host {
            Ctx::Start => {
                v.stops = cfg.stops();
                v.add_literal(cfg.thinking_tags().0.as_bytes());
                v.add_literal_when(PYTHON_TAG, call_follows);
                v.add_literal_when(b"{", call_follows);
                v.add_literal_when(b"[", call_follows);
            }
            Ctx::Text => {
                v.stops = cfg.stops();
                v.add_literal(cfg.thinking_tags().0.as_bytes());
                v.add_literal_when(PYTHON_TAG, text_follows);
                // After prose, a call object counts when it names a configured tool.
                let tools = cfg.tools();
                if !tools.is_empty() {
                    v.dynamic = Names::Tools(tools);
                    v.add_literal_when(b"{", text_follows);
                }
            }
            Ctx::StartThinking | Ctx::Thinking => v.add_literal(cfg.thinking_tags().1.as_bytes()),
            Ctx::Json => v.add_literal(PYTHON_TAG),
            Ctx::After => {
                for lit in AFTER_LITERALS {
                    v.add_literal_when(lit, call_follows);
                }
            }
        }
        v
    }

    fn act(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        d: Decision,
        window: &[u8],
    ) -> Act {
        let host = self.call.host;
        let skipping = host == Ctx::Json && self.call.phase == Phase::Skip;
        if out.call_too_large() && !skipping {
            self.fail(out, ErrorReason::TooLarge);
            return Act::WAIT;
        }
        if host == Ctx::Json && self.call.phase == Phase::After {
            self.end_json(cfg, out);
            return Act::WAIT;
        }
        match d {
            Decision::Literal { index, len } => self.literal(cfg, out, index, len, window),
            Decision::Text(n) | Decision::Invalid(n) => match host {
                Ctx::Start => {
                    // Whitespace keeps the message at its start; anything else is text.
                    let ws = leading_ws(d, window);
                    if ws == 0 {
                        self.call.host = Ctx::Text;
                        return Act::WAIT;
                    }
                    out.content(BlockType::Text, 0, Decision::Text(ws))
                }
                Ctx::Text => out.content(BlockType::Text, 0, d),
                Ctx::StartThinking | Ctx::Thinking => out.content(BlockType::Thinking, 0, d),
                Ctx::After => {
                    // No call follows: text, and JSON is text from here on.
                    self.call.host = Ctx::Text;
                    Act::WAIT
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

    fn end_of_input(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) {
        if self.call.host == Ctx::Json {
            self.call.end_of_input(cfg, out);
            self.call.host = Ctx::After;
        }
        out.stop_capture();
    }

    fn plain_block(&self) -> Option<(BlockType, u8)> {
        match self.call.host {
            Ctx::Text => Some((BlockType::Text, 0)),
            Ctx::StartThinking | Ctx::Thinking => Some((BlockType::Thinking, 0)),
            _ => None,
        }
    }
}

impl State {
    /// The current call fails (a block opens for it if none is open yet); the rest is
    /// skipped to the next `<|python_tag|>` or the end of input.
    fn fail(&mut self, out: &mut Emitter<'_>, reason: ErrorReason) {
        fail(out, &mut self.call, reason);
        self.call.host = Ctx::Json;
    }

    /// The JSON value ended: a single call completes; separators or text follow.
    fn end_json(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) {
        if self.call.call_open {
            out.complete_call(cfg);
            self.call.call_open = false;
        } else {
            out.stop_capture();
        }
        self.call.host = Ctx::After;
    }

    /// A call (or array of calls) starts here; `skip`: bytes of wire syntax before its JSON.
    fn begin(&mut self, out: &mut Emitter<'_>, array: bool, skip: usize) -> Act {
        out.close_content();
        out.begin_capture();
        self.call.begin(array);
        self.call.host = Ctx::Json;
        Act::skip(skip)
    }

    fn literal(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        index: usize,
        len: usize,
        window: &[u8],
    ) -> Act {
        let after = window.get(len..).unwrap_or(&[]);
        let array_after = || {
            after
                .iter()
                .find(|b| !b.is_ascii_whitespace())
                .is_some_and(|&b| b == b'[')
        };
        match (self.call.host, index) {
            (Ctx::Start | Ctx::Text, LIT_THINK) => {
                out.close_content();
                self.call.host = if self.call.host == Ctx::Start {
                    Ctx::StartThinking
                } else {
                    Ctx::Thinking
                };
                Act::skip(len)
            }
            (Ctx::StartThinking | Ctx::Thinking, _) => {
                out.close_content();
                self.call.host = if self.call.host == Ctx::StartThinking {
                    Ctx::Start
                } else {
                    Ctx::Text
                };
                Act::skip(len)
            }
            (Ctx::Start | Ctx::Text, LIT_TAG) => self.begin(out, array_after(), len),
            // `{` or `[` at the start of the message, or `{` naming a configured tool after
            // prose: the lexer reads it.
            (Ctx::Start | Ctx::Text, _) => self.begin(out, window.first() == Some(&b'['), 0),
            (Ctx::After, i) if i < AFTER_SEPARATORS => Act::skip(len),
            (Ctx::After, AFTER_TAG) => self.begin(out, array_after(), len),
            (Ctx::After, _) => self.begin(out, window.first() == Some(&b'['), 0),
            (Ctx::Json, _) => {
                match self.call.phase {
                    // Between the elements of an array: it just ends.
                    Phase::Body if self.call.array() && !self.call.call_open => {
                        out.stop_capture();
                    }
                    Phase::Body => {
                        self.fail(out, ErrorReason::MalformedBody);
                        self.call.call_open = false;
                        self.call.host = Ctx::After;
                        return out.close_skipped(self.call.reason, 0, false);
                    }
                    Phase::Skip => {
                        self.call.call_open = false;
                        self.call.host = Ctx::After;
                        return out.close_skipped(self.call.reason, 0, false);
                    }
                    Phase::After => self.end_json(cfg, out),
                }
                // The tag is read again as the start of the next call.
                self.call.host = Ctx::After;
                Act::WAIT
            }
        }
    }
}
