//! `harmony` — OpenAI's gpt-oss response format: messages
//! `<|start|>{header}<|message|>{content}<|end|>`, where the header names the author, a
//! channel (`<|channel|>analysis`, `commentary`, `final`), an optional recipient
//! (`to=functions.NAME`) and an optional content type (`<|constrain|>json`).
//!
//! ```text
//! <|channel|>analysis<|message|>User asks for the weather.<|end|>
//! <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>
//! <|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>
//! ```
//!
//! What each message is (decided when its header ends at `<|message|>`):
//!
//! - A recipient `to=R` makes the message a tool call, whatever its channel (gpt-oss also
//!   writes calls on `analysis`, as vLLM's tests show). The tool name is `R` without a
//!   leading `functions.` (`to=functions.get_weather` → `get_weather`, as vLLM, SGLang and
//!   llama.cpp name it); any other recipient is kept whole (`to=browser.search` →
//!   `browser.search`, `to=python` → `python`): the host sees the built-in tool it must run,
//!   and `browser.open` never collides with a function `open`. The recipient may stand
//!   before or after `<|channel|>`; the content type (`<|constrain|>json`, ` json`, `code`,
//!   with or without a space before `<|constrain|>`) is not needed and ignored. The id is
//!   `{id_prefix}{n}` (the format carries none).
//! - `to=assistant` is a tool's answer (`<|start|>functions.get_weather to=assistant…`): a
//!   tool_result block, named after its author (`functions.` removed).
//! - Otherwise the channel decides: `analysis` is thinking; `final`, `commentary` (a
//!   preamble meant for the user), a header without a channel and an unknown channel name
//!   are visible text (a host expects to show what the model says; only `analysis` is the
//!   hidden chain of thought).
//!
//! The call body is relaxed JSON, transcoded to strict compact JSON as it streams (the same
//! [`Lexer`] and [`Writer`] as hermes' `arguments`); it must be an object. An empty body
//! (`<|message|><|call|>`) is `{}`. A body that is not an object (raw code for `python`,
//! say) fails as `malformed-body`, text after a complete body as `unexpected-content`, a
//! recipient with no name (`to=`, `to=functions.`) as `missing-name`; a failed call's raw
//! text runs from its header's first marker to its terminator (docs/design.md rule 10).
//!
//! The markers are special tokens, never prose — so they count everywhere, inside JSON
//! strings too, and a marker that means nothing where it stands is dropped as wire syntax
//! instead of shown:
//!
//! - `<|end|>`, `<|return|>` and `<|call|>` end whatever message is open, whichever it is: a
//!   call whose body is complete (or empty: `{}`) completes at any of them (at `<|end|>`
//!   too), an unfinished one fails as `malformed-body` (the marker in its raw text).
//!   Outside a message they are dropped.
//! - `<|start|>` and `<|channel|>` begin a header anywhere: inside a message they end it
//!   first (a model that skips `<|end|>` before its next message loses nothing); a call
//!   with a complete body completes there, any other fails as `unfinished` (the marker is
//!   not part of its raw text).
//! - `<|message|>` and `<|constrain|>` outside a header are dropped; inside a call they fail
//!   it (`malformed-body` in the body, `unexpected-content` after it).
//! - At the end of input a call completes when its body is complete, else it fails as
//!   `unfinished` (an empty body too: nothing of it was written); a marker cut off after a
//!   complete body (`…}<|ca`) completes the call and is dropped as wire syntax (max_tokens
//!   truncation).
//! - Plain text outside any message — the stream's first bytes when no header comes, text
//!   between messages — is visible text at depth 0 (whitespace included, as at top level in
//!   every dialect).
//!
//! The header is wire syntax, never content, and it is short: it holds at most
//! [`HEADER_CAP`] bytes after its first marker (the inner markers not counted). A header
//! that grows past that is not one — the model is writing prose without a `<|message|>` —
//! and its text (its markers and any part of it that came in the prefill left out) is
//! visible text, the stream going on as top-level text. A header ended by `<|end|>`,
//! `<|return|>`, `<|call|>`, a new `<|start|>`, a second `<|channel|>` or the end of input is
//! dropped when it is one (a header cut off or abandoned: it holds `<|channel|>` or
//! `<|constrain|>`, or only the role and `to=…` recipients); otherwise it is prose written
//! without a header — after a prefill ending in `<|start|>assistant`, `It is 4.<|end|>` — and
//! its text is visible text the same way (rule 6). A `<|start|>` or `<|channel|>` that ended
//! it begins the next header.
//!
//! Prefill: a prompt ending in `<|start|>assistant` leaves the stream inside a header, one
//! ending in `…<|channel|>final<|message|>` inside a text message (and one ending in a
//! call's `<|message|>` inside that call). `start_in = "thinking"` starts inside an
//! `analysis` message. `thinking_tags` is not used: the channel says what is thinking (the
//! default pair, `<|channel|>analysis<|message|>` and `<|end|>`, only describes it).
//! Stop sequences apply in visible text (top level and text messages), not in thinking,
//! calls or results.

use crate::config::Config;
use crate::config::Settings;
use crate::emit::{Act, Emitter, STR_CAP, Spool, SpoolMode, floor_char_boundary};
use crate::event::{BlockType, ErrorReason};
use crate::json::relaxed::{Lexer, Writer};
use crate::scan::{Decision, Vocab};

use super::json_body::{self, BodyEnd};
use super::{Cut, Machine};

/// The most header bytes kept (after its first marker; inner markers not counted).
pub(crate) const HEADER_CAP: usize = STR_CAP;

/// Where the header is kept: the emitter's parameter-key slot (harmony has no keys).
const HEADER_AT: usize = 2 * STR_CAP;

const START: &[u8] = b"<|start|>";
const CHANNEL: &[u8] = b"<|channel|>";
const MESSAGE: &[u8] = b"<|message|>";
const CONSTRAIN: &[u8] = b"<|constrain|>";
const END: &[u8] = b"<|end|>";
const RETURN: &[u8] = b"<|return|>";
const CALL: &[u8] = b"<|call|>";

/// Every marker, in literal order (the index a decision reports).
const MARKERS: [&[u8]; 7] = [START, CHANNEL, MESSAGE, CONSTRAIN, END, RETURN, CALL];
const LIT_START: usize = 0;
const LIT_CHANNEL: usize = 1;
const LIT_MESSAGE: usize = 2;
const LIT_CONSTRAIN: usize = 3;

/// What a marker does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Marker {
    /// `<|start|>`, `<|channel|>`: a header begins.
    Open,
    /// `<|message|>`.
    Message,
    /// `<|constrain|>`.
    Constrain,
    /// `<|end|>`, `<|return|>`, `<|call|>`: the message ends.
    Close,
}

fn marker(index: usize) -> Marker {
    match index {
        LIT_START | LIT_CHANNEL => Marker::Open,
        LIT_MESSAGE => Marker::Message,
        LIT_CONSTRAIN => Marker::Constrain,
        _ => Marker::Close,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    /// Outside any message: top-level text.
    Outside,
    /// Reading a header (up to `<|message|>`).
    Header,
    /// A message whose content is visible text.
    Text,
    /// An `analysis` message: thinking.
    Thinking,
    /// A tool's answer (`to=assistant`).
    Result,
    /// A call's body, read by the lexer.
    Body,
    /// After a complete body, before its terminator.
    After,
    /// A failed call, skipped to its terminator.
    Skip,
}

/// No position recorded.
const NONE: u8 = u8::MAX;

#[derive(Clone, Copy, Debug)]
pub(crate) struct State {
    ctx: Ctx,
    lexer: Lexer,
    writer: Writer,
    /// The body's object has begun.
    opened: bool,
    /// Header bytes kept (in the key slot).
    hdr_len: u8,
    /// How many of them came in the prefill (never shown).
    hdr_prefill: u8,
    /// Where `<|channel|>` stood in the kept header ([`NONE`]: nowhere).
    chan_at: u8,
    /// Where `<|constrain|>` stood.
    cons_at: u8,
    reason: ErrorReason,
}

impl Machine for State {
    const CALL_DEPTH: u8 = 0;

    fn new(cfg: &Config<'_>) -> State {
        State {
            ctx: cfg.start_in.pick(Ctx::Outside, Ctx::Thinking),
            lexer: Lexer::new(),
            writer: Writer::new(),
            opened: false,
            hdr_len: 0,
            hdr_prefill: 0,
            chan_at: NONE,
            cons_at: NONE,
            reason: ErrorReason::MalformedBody,
        }
    }

    fn vocab_key(&self) -> u32 {
        self.ctx as u32
    }

    fn vocab<'m>(&self, cfg: &'m Settings<'_>, _out: &'m Emitter<'_>) -> Vocab<'m> {
        let stops = match self.ctx {
            Ctx::Outside | Ctx::Text => cfg.stops(),
            _ => Vocab::EMPTY.stops,
        };
        let mut v = Vocab {
            stops,
            ..Vocab::EMPTY
        };
        for m in MARKERS {
            v = v.with_literal(m);
        }
        v
    }

    fn plain_block(&self) -> Option<(BlockType, u8)> {
        match self.ctx {
            Ctx::Outside | Ctx::Text => Some((BlockType::Text, 0)),
            Ctx::Thinking => Some((BlockType::Thinking, 0)),
            Ctx::Result => Some((BlockType::ToolResult, 1)),
            _ => None,
        }
    }

    fn act(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        d: Decision,
        window: &[u8],
    ) -> Act {
        if matches!(self.ctx, Ctx::Body | Ctx::After) && out.call_too_large() {
            fail(out, self, ErrorReason::TooLarge);
            return Act::WAIT;
        }
        match d {
            Decision::Literal { index, len } => self.on_marker(cfg, out, marker(index), index, len),
            Decision::Text(n) | Decision::Invalid(n) => self.on_text(cfg, out, d, window, n),
            Decision::NeedMore | Decision::Element(_) | Decision::Stop { .. } => Act::WAIT,
        }
    }

    /// A marker cut off by the end of input after a complete body (`…}<|ca`: max_tokens)
    /// completes the call; the cut bytes are top-level text.
    fn cut_closer(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>, _cut: &[u8]) -> Cut {
        if self.ctx != Ctx::After {
            return Cut::No;
        }
        out.complete_call(cfg);
        self.ctx = Ctx::Outside;
        Cut::Done
    }

    fn end_of_input(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) {
        match self.ctx {
            // An unfinished header is dropped (unless it is text); so is an empty body's
            // call (nothing of it).
            Ctx::Header => {
                out.stop_capture();
                self.unended_header(out);
            }
            Ctx::Body => {
                fail(out, self, ErrorReason::Unfinished);
                out.fail_call(self.reason, false);
            }
            Ctx::After | Ctx::Result => {
                out.complete_call(cfg);
            }
            Ctx::Skip => out.fail_call(self.reason, false),
            Ctx::Outside | Ctx::Text | Ctx::Thinking => {}
        }
        self.ctx = Ctx::Outside;
    }
}

impl State {
    fn on_marker(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        m: Marker,
        index: usize,
        len: usize,
    ) -> Act {
        match (self.ctx, m) {
            (Ctx::Outside, Marker::Open) => {
                out.close_content();
                self.begin_header(out, index == LIT_START, len)
            }
            (Ctx::Outside, _) => Act::skip(len),
            (Ctx::Header, Marker::Open) if index == LIT_CHANNEL && self.chan_at == NONE => {
                self.chan_at = self.hdr_len;
                Act::skip(len)
            }
            // A new `<|start|>` or a second `<|channel|>`: the header so far is dropped
            // (unless it is text).
            (Ctx::Header, Marker::Open) => {
                self.unended_header(out);
                out.close_content();
                self.begin_header(out, index == LIT_START, len)
            }
            (Ctx::Header, Marker::Constrain) => {
                if self.cons_at == NONE {
                    self.cons_at = self.hdr_len;
                }
                Act::skip(len)
            }
            (Ctx::Header, Marker::Message) => {
                self.header_done(cfg, out);
                Act::skip(len)
            }
            (Ctx::Header, Marker::Close) => {
                out.stop_capture();
                self.unended_header(out);
                self.ctx = Ctx::Outside;
                Act::skip(len)
            }
            (Ctx::Text | Ctx::Thinking, Marker::Close) => {
                out.close_content();
                self.ctx = Ctx::Outside;
                Act::skip(len)
            }
            (Ctx::Text | Ctx::Thinking, Marker::Open) => {
                out.close_content();
                self.ctx = Ctx::Outside;
                Act::WAIT
            }
            (Ctx::Result, Marker::Close) => {
                out.complete_tool(cfg, None, false);
                self.ctx = Ctx::Outside;
                Act::skip(len)
            }
            (Ctx::Result, Marker::Open) => {
                out.complete_tool(cfg, None, false);
                self.ctx = Ctx::Outside;
                Act::WAIT
            }
            (Ctx::Text | Ctx::Thinking | Ctx::Result, _) => Act::skip(len),
            (Ctx::Body, Marker::Close) if !self.opened => {
                // An empty body: no arguments.
                out.finish_call(cfg, false);
                self.ctx = Ctx::Outside;
                Act::skip(len)
            }
            (Ctx::Body, Marker::Close) => {
                fail(out, self, ErrorReason::MalformedBody);
                out.fail_call(self.reason, true);
                self.ctx = Ctx::Outside;
                Act::skip(len)
            }
            (Ctx::Body, Marker::Open) => {
                fail(out, self, ErrorReason::Unfinished);
                out.fail_call(self.reason, false);
                self.ctx = Ctx::Outside;
                Act::WAIT
            }
            (Ctx::After, Marker::Close) => {
                out.complete_call(cfg);
                self.ctx = Ctx::Outside;
                Act::skip(len)
            }
            (Ctx::After, Marker::Open) => {
                out.complete_call(cfg);
                self.ctx = Ctx::Outside;
                Act::WAIT
            }
            (Ctx::Body | Ctx::After, _) => {
                // `<|message|>` or `<|constrain|>` inside a call.
                let reason = if self.ctx == Ctx::Body {
                    ErrorReason::MalformedBody
                } else {
                    ErrorReason::UnexpectedContent
                };
                fail(out, self, reason);
                Act::skip(len)
            }
            (Ctx::Skip, Marker::Close) => {
                self.ctx = Ctx::Outside;
                out.close_skipped(self.reason, len, true)
            }
            (Ctx::Skip, Marker::Open) => {
                self.ctx = Ctx::Outside;
                out.close_skipped(self.reason, 0, false)
            }
            // `<|message|>`, `<|constrain|>`: part of the failed call's text.
            (Ctx::Skip, _) => out.skip(Decision::Text(len), self.reason),
        }
    }

    fn on_text(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        d: Decision,
        window: &[u8],
        n: usize,
    ) -> Act {
        match self.ctx {
            Ctx::Outside | Ctx::Text => out.content(BlockType::Text, 0, d),
            Ctx::Thinking => out.content(BlockType::Thinking, 0, d),
            Ctx::Result => out.content(BlockType::ToolResult, 1, d),
            Ctx::Header => self.header_text(cfg, out, d, &window[..n]),
            // Invalid bytes go to the lexer as they are: it decodes strings lossily.
            Ctx::Body => body(out, self, window, n),
            Ctx::After => after_body(out, self, d, &window[..n]),
            Ctx::Skip => out.skip(d, self.reason),
        }
    }

    /// A header begins at its first marker (`len` bytes; `start`: `<|start|>`, else
    /// `<|channel|>`). Its raw text is captured, in case it is a call's.
    fn begin_header(&mut self, out: &mut Emitter<'_>, start: bool, len: usize) -> Act {
        out.begin_capture();
        self.ctx = Ctx::Header;
        self.hdr_len = 0;
        self.hdr_prefill = 0;
        self.chan_at = if start { NONE } else { 0 };
        self.cons_at = NONE;
        Act::skip(len)
    }

    /// Header text: kept while it fits; past [`HEADER_CAP`] it was not a header.
    fn header_text(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        d: Decision,
        text: &[u8],
    ) -> Act {
        let len = self.hdr_len as usize;
        let room = HEADER_CAP - len;
        let fit = match d {
            Decision::Text(_) => floor_char_boundary(text, room),
            _ if text.len() <= room => text.len(),
            _ => 0,
        };
        if fit > 0 {
            out.strs.write_at(HEADER_AT + len, &text[..fit]);
            self.hdr_len += fit as u8;
            if cfg.prefilling() {
                self.hdr_prefill = self.hdr_len;
            }
        }
        if fit == text.len() {
            return Act::skip(fit);
        }
        // Too long: its text so far is visible text, and so is what follows.
        out.stop_capture();
        self.ctx = Ctx::Outside;
        self.header_as_text(out);
        Act::skip(fit)
    }

    /// A header that ended without `<|message|>` (at `<|end|>`, `<|return|>`, `<|call|>`, a
    /// new header or the end of input) is dropped when it is one: it holds `<|channel|>` or
    /// `<|constrain|>`, or its words are only the role (its first word, when its
    /// `<|start|>` came in the stream) and recipients (`to=…`) — a header cut off or
    /// abandoned. Anything else is not a header but a message written without one — after a
    /// prefill ending in `<|start|>assistant`, `Hello there.<|end|>` — and its text after
    /// the prefill (markers left out) is visible text at depth 0, as for a header that grew
    /// past [`HEADER_CAP`] (rule 6: no byte of it is lost).
    fn unended_header(&mut self, out: &mut Emitter<'_>) {
        let (from, to) = (self.hdr_prefill as usize, self.hdr_len as usize);
        if self.chan_at != NONE || self.cons_at != NONE || to <= from {
            return;
        }
        let Some(text) = out.strs.bytes().get(HEADER_AT + from..HEADER_AT + to) else {
            return;
        };
        let role_first = from == 0 && text.first().is_some_and(|b| !b.is_ascii_whitespace());
        let header = text
            .split(u8::is_ascii_whitespace)
            .filter(|w| !w.is_empty())
            .enumerate()
            .all(|(i, w)| (i == 0 && role_first) || w.starts_with(b"to="));
        if !header {
            self.header_as_text(out);
        }
    }

    /// The header's text after the prefill (markers left out) as a visible depth-0 text
    /// block: what was read as a header is not one (rule 6).
    fn header_as_text(&self, out: &mut Emitter<'_>) {
        let (from, to) = (self.hdr_prefill as usize, self.hdr_len as usize);
        if to > from {
            out.start_block(BlockType::Text, 0);
            out.queue_chunk(
                None,
                Spool::buf(
                    crate::emit::BufId::Strs,
                    SpoolMode::Lossy,
                    (HEADER_AT + from) as u32,
                    (HEADER_AT + to) as u32,
                ),
            );
        }
    }

    /// `<|message|>`: the header says what the message is.
    fn header_done(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) {
        let mut buf = [0u8; HEADER_CAP];
        let len = self.hdr_len as usize;
        let kept = out
            .strs
            .bytes()
            .get(HEADER_AT..HEADER_AT + len)
            .unwrap_or(&[]);
        buf[..kept.len()].copy_from_slice(kept);
        let h = parse_header(&buf[..kept.len()], self.chan_at, self.cons_at);
        match h.recipient {
            Some(r) if &buf[r.0..r.1] == b"assistant" => {
                out.stop_capture();
                out.start_block(BlockType::ToolResult, 1);
                out.clear_tool_strs();
                if let Some(role) = h.role {
                    out.set_name(strip_functions(&buf[role.0..role.1]));
                }
                self.ctx = Ctx::Result;
            }
            Some(r) => {
                out.start_block(BlockType::ToolCall, 1);
                out.clear_tool_strs();
                out.value.clear();
                self.lexer = Lexer::new();
                self.writer = Writer::new();
                self.opened = false;
                self.ctx = Ctx::Body;
                let name = strip_functions(&buf[r.0..r.1]);
                if name.is_empty() {
                    out.calls += 1;
                    self.reason = ErrorReason::MissingName;
                    self.ctx = Ctx::Skip;
                } else {
                    out.announce_call(cfg, name);
                }
            }
            None => {
                out.stop_capture();
                self.ctx = if h.channel == b"analysis" {
                    Ctx::Thinking
                } else {
                    Ctx::Text
                };
            }
        }
    }
}

/// A tool name without the `functions.` namespace every function tool is declared in.
fn strip_functions(name: &[u8]) -> &[u8] {
    name.strip_prefix(b"functions.").unwrap_or(name)
}

/// What a header names (spans of the kept header).
struct Header<'h> {
    channel: &'h [u8],
    role: Option<(usize, usize)>,
    recipient: Option<(usize, usize)>,
}

/// Reads a kept header: words split at ASCII whitespace and where the inner markers stood
/// (`chan_at`, `cons_at`). The word right after `<|channel|>` is the channel; the first
/// `to=R` word the recipient; a first word before the channel that is no `to=` the role;
/// everything else (the content type) is ignored.
fn parse_header(h: &[u8], chan_at: u8, cons_at: u8) -> Header<'_> {
    let mut out = Header {
        channel: &[],
        role: None,
        recipient: None,
    };
    let cut = |i: usize| i == chan_at as usize || i == cons_at as usize;
    let mut i = 0;
    let mut first = true;
    while i < h.len() {
        if h[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < h.len() && !h[i].is_ascii_whitespace() && !cut(i) {
            i += 1;
        }
        let word = &h[start..i];
        if start == chan_at as usize {
            if out.channel.is_empty() {
                out.channel = word;
            }
        } else if let Some(r) = word.strip_prefix(b"to=") {
            if out.recipient.is_none() {
                out.recipient = Some((i - r.len(), i));
            }
        } else if first && (chan_at == NONE || start < chan_at as usize) {
            out.role = Some((start, i));
        }
        first = false;
    }
    out
}

/// Fails the open call: the rest is skipped to its terminator.
fn fail(out: &mut Emitter<'_>, s: &mut State, reason: ErrorReason) {
    if out.id_len == 0 {
        out.calls += 1;
    }
    s.reason = reason;
    s.ctx = Ctx::Skip;
}

/// Body text: one token of the lexer, streamed as input.
fn body(out: &mut Emitter<'_>, s: &mut State, window: &[u8], n: usize) -> Act {
    let (act, end) =
        json_body::object_step(out, &mut s.lexer, &mut s.writer, &mut s.opened, window, n);
    match end {
        BodyEnd::Open => {}
        BodyEnd::Closed => s.ctx = Ctx::After,
        BodyEnd::Failed(reason) => fail(out, s, reason),
    }
    act
}

/// After a complete body: whitespace is formatting; anything else fails the call (a marker
/// cut off by the end of input is [`Machine::cut_closer`]'s).
fn after_body(out: &mut Emitter<'_>, s: &mut State, d: Decision, text: &[u8]) -> Act {
    if matches!(d, Decision::Text(_)) {
        let ws = text.iter().take_while(|b| b.is_ascii_whitespace()).count();
        if ws > 0 {
            return Act::skip(ws);
        }
    }
    fail(out, s, ErrorReason::UnexpectedContent);
    Act::WAIT
}
