//! The machine shared by the special-token dialects (`kimi-k2`, `deepseek-v3.1`,
//! `deepseek-v3`): a tool-calls *section* between two special tokens holds *calls*, each a
//! header (the name, or an id naming it) and a JSON body between two more:
//!
//! ```text
//! SECTION_OPEN  CALL_OPEN header HEADER_END [fence] {json} [fence] CALL_CLOSE  …  SECTION_CLOSE
//! ```
//!
//! Each dialect's file describes its markers as a [`Format`]; the decisions they share
//! (docs/design.md records them, and the vectors of each dialect pin them):
//!
//! - **Markers are special tokens, so they are always structural.** A model emits
//!   `<|tool_calls_section_begin|>` or `<｜tool▁calls▁begin｜>` only as structure (prose
//!   cannot spell a special token), so unlike hermes' `<tool_call>` there is no look-ahead:
//!   the section opener opens a section wherever it appears outside thinking, and a call's
//!   closer ends the call wherever it appears, also inside a JSON string of its body. A
//!   section closer or call closer with no opener is text (docs/design.md: a closer without
//!   its opener is text).
//! - **Depth.** The section is a tool region like anthropic-xml's `<function_calls>`: its
//!   calls are depth-1 tool_call blocks; whitespace between its markers is dropped; other
//!   text directly inside it is a depth-1 text block (from its first non-whitespace byte to
//!   the next marker); stop sequences do not apply there. A call opener outside a section
//!   (a *bare* call, which DeepSeek V3.1 writes) opens a call without a section; its
//!   tool_call block is depth 1 like every call's, and a failed bare call's raw text comes
//!   back at depth 0, where it sat.
//! - **Header.** Leading and trailing ASCII whitespace of each header part is dropped; the
//!   name (or id) keeps at most 127 bytes (a longer one fails the call as `too-large`); an
//!   empty name fails it as `missing-name`. The name and id parts stream when the header
//!   ends.
//! - **Body.** Relaxed JSON, transcoded to strict compact JSON as it streams, through the
//!   hermes machinery ([`super::json_body`]). It must be an object (else `malformed-body`);
//!   whitespace around it is dropped; a call closer right after the header (no body) means
//!   `{}`; non-whitespace text after the body fails the call (`unexpected-content`).
//! - **A call whose closer never comes** ends at the next structural marker — another call
//!   opener, the section closer or a section opener, which then acts as usual (a section
//!   opener inside a section is dropped as wire syntax) — or at the end of input: it
//!   completes normally when its body is complete, and fails otherwise (`unfinished`; a
//!   call closer inside an incomplete body fails it as `malformed-body`). A failed call's raw
//!   text runs from its opener to its closer (included), or to the marker or end of input
//!   that cut it off (not included).
//! - **Truncation.** A complete call followed at the end of input by a truncated closer
//!   (`…}<|tool_call_e`, `…}<`) completes, and the partial closer is text where the call
//!   sat (max_tokens truncation).
//! - Thinking is `<think>…</think>` and opaque (a call written inside thinking is thinking).

use core::marker::PhantomData;

use crate::config::Config;
use crate::emit::{Act, Emitter, STR_CAP, Spool};
use crate::event::{BlockType, ErrorReason, Part};
use crate::json::relaxed::{Lexer, Writer};
use crate::scan::{Decision, Vocab};

use super::Machine;
use super::json_body::{self, BodyEnd};
use super::value::{leading_ws, trim};

/// The section openers DeepSeek's distilled models write as text instead of the special
/// token (llama.cpp accepts the same four); the calls inside keep the special tokens.
pub(crate) const DEEPSEEK_OPEN_ALT: &[&[u8]] = &[
    "<｜tool_calls_begin｜>".as_bytes(),
    "<｜tool calls begin｜>".as_bytes(),
    "<｜tool\\_calls\\_begin｜>".as_bytes(),
    "<｜tool▁calls｜>".as_bytes(),
];

/// A special-token dialect's markers (see the module docs).
pub(crate) trait Format: Copy + core::fmt::Debug {
    /// Opens the tool-calls section.
    const SECTION_OPEN: &'static [u8];
    /// Other spellings that open the section in text (at most four): what llama.cpp accepts
    /// for DeepSeek, whose distilled models write the opener as plain text.
    const SECTION_OPEN_ALT: &'static [&'static [u8]] = &[];
    /// Closes the tool-calls section.
    const SECTION_CLOSE: &'static [u8];
    /// Opens a call.
    const CALL_OPEN: &'static [u8];
    /// Closes a call.
    const CALL_CLOSE: &'static [u8];
    /// What ends each part of a call's header, in order; the last part names the call.
    const HEADER_ENDS: &'static [&'static [u8]];
    /// A code fence that may come before the body (empty: none).
    const FENCE_OPEN: &'static [u8];
    /// A code fence that may come after the body (empty: none).
    const FENCE_CLOSE: &'static [u8];
    /// The header's last part is the call's id on the wire, which [`Format::name`] derives
    /// the name from; otherwise it is the name and the id is `{id_prefix}{n}`.
    const WIRE_ID: bool;

    /// The call's name, from its (trimmed, non-empty) header's last part.
    fn name(header: &[u8]) -> &[u8] {
        header
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    Text,
    Thinking,
    /// Inside a section, between calls.
    Section,
    /// Reading a call's header (part `State::part`).
    Head,
    /// After the header, before the body's first byte.
    BeforeBody,
    /// Reading the body with the lexer.
    Body,
    /// After the body, before the call's closer.
    After,
    /// A failed call, skipped to its closer.
    Skip,
}

/// Literal indices in the text context.
const LIT_THINK: usize = 0;
const LIT_SECTION_OPEN: usize = 1;
const LIT_CALL_OPEN: usize = 2;
/// The alternative section openers follow ([`Format::SECTION_OPEN_ALT`]).
const LIT_SECTION_OPEN_ALT: usize = 3;
/// Literal indices in thinking.
const THINK_CLOSE: usize = 0;
const THINK_REOPEN: usize = 3;
/// Literal indices in the section.
const SEC_CALL_OPEN: usize = 0;
const SEC_CLOSE: usize = 1;
/// Literal indices inside a call (the header's end, or a fence, last).
const CALL_CLOSE: usize = 0;
const CALL_EXTRA: usize = 4;

/// The state of a special-token dialect with markers `F`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct State<F: Format> {
    ctx: Ctx,
    /// The open call sits in a section (else it is a bare call at top level).
    in_section: bool,
    /// The header part being read.
    part: u8,
    /// The body's first token was read.
    started: bool,
    lexer: Lexer,
    writer: Writer,
    /// Why the current call failed (in `Skip`).
    reason: ErrorReason,
    /// Nothing decided yet: a thinking closer here has no opener and is dropped.
    fresh: bool,
    /// A tool call ended the thinking it was opened in: the thinking closer the model may
    /// still write is wire syntax too (dropped once).
    yielded: bool,
    format: PhantomData<F>,
}

impl<F: Format> Machine for State<F> {
    const CALL_DEPTH: u8 = 1;

    fn new(cfg: &Config<'_>) -> State<F> {
        State {
            ctx: cfg.start_in.pick(Ctx::Text, Ctx::Thinking),
            in_section: false,
            part: 0,
            started: false,
            lexer: Lexer::new(),
            writer: Writer::new(),
            reason: ErrorReason::MalformedBody,
            fresh: true,
            yielded: false,
            format: PhantomData,
        }
    }

    fn vocab_key(&self) -> u32 {
        self.ctx as u32 | (self.part as u32) << 8 | ((self.fresh | self.yielded) as u32) << 16
    }

    fn vocab<'m>(&self, out: &'m Emitter<'_>) -> Vocab<'m> {
        let (think_open, think_close) = out.thinking_tags();
        // Inside a call: its closer, and the markers that cut it off; then `extra`.
        let call = |extra: &'static [u8]| {
            let v = Vocab::EMPTY
                .with_literal(F::CALL_CLOSE)
                .with_literal(F::CALL_OPEN)
                .with_literal(F::SECTION_CLOSE)
                .with_literal(F::SECTION_OPEN);
            if extra.is_empty() {
                v
            } else {
                v.with_literal(extra)
            }
        };
        match self.ctx {
            Ctx::Text => {
                let mut v = Vocab {
                    stops: out.stops(),
                    ..Vocab::EMPTY
                }
                .with_literal(think_open.as_bytes())
                .with_literal(F::SECTION_OPEN)
                .with_literal(F::CALL_OPEN);
                for alt in F::SECTION_OPEN_ALT {
                    v = v.with_literal(alt);
                }
                if self.fresh || self.yielded {
                    v = v.with_literal(think_close.as_bytes());
                }
                v
            }
            // The section and call openers are special tokens, never prose: inside thinking
            // they open calls wherever they stand.
            Ctx::Thinking => Vocab::EMPTY
                .with_literal(think_close.as_bytes())
                .with_literal(F::SECTION_OPEN)
                .with_literal(F::CALL_OPEN)
                .with_literal(think_open.as_bytes()),
            Ctx::Section => Vocab::EMPTY
                .with_literal(F::CALL_OPEN)
                .with_literal(F::SECTION_CLOSE)
                .with_literal(F::SECTION_OPEN),
            Ctx::Head => {
                // After the part's end (index 4): the end of the part before (a repeated
                // separator, dropped), then the body's opening fence, which ends the name too.
                let mut v = call(F::HEADER_ENDS[self.part_index()]);
                if self.part > 0 {
                    v = v.with_literal(F::HEADER_ENDS[self.part_index() - 1]);
                }
                if self.in_name() && !F::FENCE_OPEN.is_empty() {
                    v = v.with_literal(F::FENCE_OPEN);
                }
                v
            }
            Ctx::BeforeBody => call(F::FENCE_OPEN),
            Ctx::After => call(F::FENCE_CLOSE),
            Ctx::Body | Ctx::Skip => call(&[]),
        }
    }

    fn act(&mut self, out: &mut Emitter<'_>, d: Decision, window: &[u8]) -> Act {
        self.fresh = false;
        let in_call = matches!(
            self.ctx,
            Ctx::Head | Ctx::BeforeBody | Ctx::Body | Ctx::After
        );
        if in_call && out.call_too_large() {
            // The call outgrew max_call_bytes: it fails here; the rest is skipped to its closer.
            fail(out, self, ErrorReason::TooLarge);
            return Act::WAIT;
        }
        match d {
            Decision::Literal { index, len } => literal(out, self, index, len),
            Decision::Text(n) | Decision::Invalid(n) => text(out, self, d, window, n),
            Decision::NeedMore | Decision::Stop { .. } | Decision::Element(_) => Act::WAIT,
        }
    }

    fn end_of_input(&mut self, out: &mut Emitter<'_>) {
        match self.ctx {
            Ctx::Head | Ctx::BeforeBody | Ctx::Body => {
                fail(out, self, ErrorReason::Unfinished);
                out.fail_call(self.reason, false);
            }
            Ctx::After => complete(out),
            Ctx::Skip => out.fail_call(self.reason, false),
            Ctx::Text | Ctx::Thinking | Ctx::Section => {}
        }
        self.ctx = Ctx::Text;
    }

    fn plain_block(&self) -> Option<(BlockType, u8)> {
        match self.ctx {
            Ctx::Text => Some((BlockType::Text, 0)),
            Ctx::Thinking => Some((BlockType::Thinking, 0)),
            _ => None,
        }
    }
}

impl<F: Format> State<F> {
    /// The header part being read, as an index into [`Format::HEADER_ENDS`].
    fn part_index(&self) -> usize {
        (self.part as usize).min(F::HEADER_ENDS.len() - 1)
    }

    /// The header part being read is the last one: the name (or id).
    fn in_name(&self) -> bool {
        self.part as usize + 1 >= F::HEADER_ENDS.len()
    }

    /// Where the stream goes on once the current call has ended.
    fn home(&self) -> Ctx {
        if self.in_section {
            Ctx::Section
        } else {
            Ctx::Text
        }
    }
}

fn literal<F: Format>(out: &mut Emitter<'_>, s: &mut State<F>, index: usize, len: usize) -> Act {
    match (s.ctx, index) {
        (Ctx::Text, LIT_THINK) => {
            out.close_content();
            s.ctx = Ctx::Thinking;
        }
        (Ctx::Text, LIT_SECTION_OPEN) => {
            out.close_content();
            s.ctx = Ctx::Section;
        }
        (Ctx::Text, LIT_CALL_OPEN) => {
            out.close_content();
            open_call(out, s, false);
        }
        // A thinking closer at the very start of the stream, with no opener: wire syntax.
        (Ctx::Text, i) if i == LIT_SECTION_OPEN_ALT + F::SECTION_OPEN_ALT.len() => {
            s.yielded = false
        }
        (Ctx::Text, i) => {
            debug_assert!(i >= LIT_SECTION_OPEN_ALT);
            out.close_content();
            s.ctx = Ctx::Section;
        }
        (Ctx::Thinking, THINK_CLOSE) => {
            out.close_content();
            s.ctx = Ctx::Text;
        }
        (Ctx::Thinking, THINK_REOPEN) => {
            return super::thinking_marker(out, false, len).unwrap_or(Act::WAIT);
        }
        // A section or call opener: the thinking ends, the text context opens the call.
        (Ctx::Thinking, _) => {
            out.close_content();
            s.ctx = Ctx::Text;
            s.yielded = true;
            return Act::WAIT;
        }
        (Ctx::Section, SEC_CALL_OPEN) => {
            out.close_content();
            open_call(out, s, true);
        }
        (Ctx::Section, SEC_CLOSE) => {
            out.close_content();
            s.ctx = Ctx::Text;
        }
        // A repeated section opener is wire syntax.
        (Ctx::Section, _) => {}
        (Ctx::Head, CALL_EXTRA) => header_end(out, s, false),
        // A repeated separator: wire syntax.
        (Ctx::Head, i) if i == CALL_EXTRA + 1 && s.part > 0 => {}
        (Ctx::Head, i) if i > CALL_EXTRA => header_end(out, s, true),
        // Fences around the body are wire syntax.
        (Ctx::BeforeBody | Ctx::After, CALL_EXTRA) => {}
        (_, CALL_CLOSE) => return call_closer(out, s, len),
        // Another call's opener or a section marker: the call ends here (without the marker,
        // which acts again in the context the call returns to).
        _ => {
            cut_off(out, s);
            return Act::WAIT;
        }
    }
    Act::skip(len)
}

/// The call's closer (`len` bytes, part of the call).
fn call_closer<F: Format>(out: &mut Emitter<'_>, s: &mut State<F>, len: usize) -> Act {
    let home = s.home();
    let act = match s.ctx {
        Ctx::BeforeBody => {
            // No body: no arguments.
            out.queue_chunk(Some(Part::Input), Spool::Static("{}"));
            complete(out);
            Act::skip(len)
        }
        Ctx::After => {
            complete(out);
            Act::skip(len)
        }
        Ctx::Skip => out.close_skipped(s.reason, len, true),
        _ => {
            let reason = match s.ctx {
                Ctx::Head if out.name_len == 0 => ErrorReason::MissingName,
                _ => ErrorReason::MalformedBody,
            };
            fail(out, s, reason);
            out.fail_call(reason, true);
            Act::skip(len)
        }
    };
    s.ctx = home;
    act
}

/// The call was cut off by the next structural marker (not consumed).
fn cut_off<F: Format>(out: &mut Emitter<'_>, s: &mut State<F>) {
    let home = s.home();
    match s.ctx {
        Ctx::After => complete(out),
        Ctx::Skip => {
            out.close_skipped(s.reason, 0, false);
        }
        _ => {
            fail(out, s, ErrorReason::Unfinished);
            out.fail_call(ErrorReason::Unfinished, false);
        }
    }
    s.ctx = home;
}

fn text<F: Format>(
    out: &mut Emitter<'_>,
    s: &mut State<F>,
    d: Decision,
    window: &[u8],
    n: usize,
) -> Act {
    let ws = leading_ws(d, window);
    match s.ctx {
        Ctx::Text => out.content(BlockType::Text, 0, d),
        Ctx::Thinking => out.content(BlockType::Thinking, 0, d),
        Ctx::Section => {
            // Whitespace between markers is formatting; other text is a stray text block.
            let stray = matches!(out.open, Some(o) if o.ty == BlockType::Text && o.depth == 1);
            if ws > 0 && !stray {
                return Act::skip(ws);
            }
            out.content(BlockType::Text, 1, d)
        }
        Ctx::Head => header_text(out, s, d, window, ws),
        Ctx::BeforeBody => {
            if ws > 0 {
                return Act::skip(ws);
            }
            s.ctx = Ctx::Body;
            s.lexer = Lexer::new();
            s.writer = Writer::new();
            s.started = false;
            Act::WAIT
        }
        // Invalid bytes go to the lexer as they are: it decodes strings lossily.
        Ctx::Body => body(out, s, window, n),
        Ctx::After => {
            if ws > 0 {
                return Act::skip(ws);
            }
            if partial_marker::<F>(window) {
                // The end of input cut a closer short (max_tokens): the call is complete,
                // and the partial closer is text where the call sat.
                complete(out);
                s.ctx = s.home();
                return Act::WAIT;
            }
            fail(out, s, ErrorReason::UnexpectedContent);
            Act::WAIT
        }
        Ctx::Skip => out.skip(d, s.reason),
    }
}

/// `window` (what is left of the input) is a proper prefix of a marker that may follow a
/// body — possibly cut inside a character. A window that is one can reach an act only at the
/// end of input: before it, the scanner holds such a prefix back instead of deciding it.
fn partial_marker<F: Format>(window: &[u8]) -> bool {
    [
        F::CALL_CLOSE,
        F::CALL_OPEN,
        F::SECTION_CLOSE,
        F::FENCE_CLOSE,
    ]
    .iter()
    .any(|m| window.len() < m.len() && m.starts_with(window))
}

/// Header text: kept in the name slot (leading whitespace dropped) until the part's end.
fn header_text<F: Format>(
    out: &mut Emitter<'_>,
    s: &mut State<F>,
    d: Decision,
    window: &[u8],
    ws: usize,
) -> Act {
    if out.name_len == 0 && ws > 0 {
        return Act::skip(ws);
    }
    let (bytes, n): (&[u8], usize) = match d {
        Decision::Text(n) => (&window[..n], n),
        Decision::Invalid(n) => ("\u{FFFD}".as_bytes(), n),
        _ => return Act::WAIT,
    };
    let fit = out.append_name(bytes);
    if fit < bytes.len() {
        // Longer than a name or id keeps: the call fails from the first byte that did not fit
        // (the same byte whatever the chunking); the rest is skipped with it.
        fail(out, s, ErrorReason::TooLarge);
        return match d {
            Decision::Text(_) => Act::skip(fit),
            _ => Act::WAIT,
        };
    }
    Act::skip(n)
}

/// A header part's end marker (`fence`: the body's opening fence, which ends the name too).
fn header_end<F: Format>(out: &mut Emitter<'_>, s: &mut State<F>, fence: bool) {
    let mut buf = [0u8; STR_CAP];
    let slot = out.strs.bytes().get(..out.name_len as usize).unwrap_or(&[]);
    let held = slot.len().min(STR_CAP);
    buf[..held].copy_from_slice(&slot[..held]);
    let (a, b) = trim(&buf[..held]);
    let header = &buf[a..b];
    let last = s.in_name();
    let end = F::HEADER_ENDS[s.part_index()];
    if header.is_empty() && !fence && end.iter().all(u8::is_ascii_whitespace) {
        // A line break before the name: formatting.
        return;
    }
    if !last {
        // A part before the name (deepseek-v3's `function`): read and dropped.
        s.part += 1;
        out.name_len = 0;
        return;
    }
    let name = F::name(header);
    if name.is_empty() {
        fail(out, s, ErrorReason::MissingName);
        return;
    }
    if F::WIRE_ID {
        out.set_name(name);
        out.queue_chunk(Some(Part::Name), out.name_spool());
        out.set_wire_id(header);
        out.queue_chunk(Some(Part::Id), out.id_spool());
    } else {
        out.announce_call(name);
    }
    s.ctx = Ctx::BeforeBody;
}

fn body<F: Format>(out: &mut Emitter<'_>, s: &mut State<F>, window: &[u8], n: usize) -> Act {
    let (act, end) =
        json_body::object_step(out, &mut s.lexer, &mut s.writer, &mut s.started, window, n);
    match end {
        BodyEnd::Open => {}
        BodyEnd::Closed => s.ctx = Ctx::After,
        BodyEnd::Failed(reason) => fail(out, s, reason),
    }
    act
}

/// Opens a call at its opener (`in_section`: inside a section, else bare at top level).
fn open_call<F: Format>(out: &mut Emitter<'_>, s: &mut State<F>, in_section: bool) {
    s.in_section = in_section;
    out.set_call_depth(u8::from(in_section));
    out.open_call(1);
    s.ctx = Ctx::Head;
    s.part = 0;
    s.started = false;
}

/// Completes the open call successfully.
fn complete(out: &mut Emitter<'_>) {
    out.complete_call();
}

/// Fails the open call: it is skipped to its closer (or the marker that cuts it off).
fn fail<F: Format>(out: &mut Emitter<'_>, s: &mut State<F>, reason: ErrorReason) {
    if s.ctx == Ctx::Head {
        // The header held in the name slot never named the call.
        out.name_len = 0;
    }
    if out.id_len == 0 {
        // Failed calls are counted too, also when they never got an id.
        out.calls += 1;
    }
    s.reason = reason;
    s.ctx = Ctx::Skip;
}
