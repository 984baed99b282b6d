//! The machine shared by the special-token dialects (`kimi-k2`, `deepseek-v3.1`,
//! `deepseek-v3`): a tool-calls *section* between two special tokens holds *calls*, each a
//! header (the name, or an id naming it) and a JSON body between two more:
//!
//! ```text
//! SECTION_OPEN  CALL_OPEN header HEADER_END [fence] {json} [fence] CALL_CLOSE  …  SECTION_CLOSE
//! ```
//!
//! This is the sectioned shape's machine ([`crate::Shape::Sectioned`]): the markers come from
//! the description in force (kimi-k2's, deepseek-v3.1's, deepseek-v3's or a host's), read per
//! vocabulary; each preset's file documents its format. The decisions they share
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
//!   (`…}<|tool_call_e`, `…}<`) completes, and the partial closer is dropped as wire
//!   syntax (max_tokens truncation; docs/design.md "Lenient recovery").
//! - Thinking is `<think>…</think>` and opaque (a call written inside thinking is thinking).

use crate::config::Config;
use crate::config::Settings;
use crate::emit::{Act, Emitter, STR_CAP, Spool};
use crate::event::{BlockType, ErrorReason, Part};
use crate::json::relaxed::{Lexer, Writer};
use crate::scan::{Decision, Vocab};
use crate::spec::{self, StrList};

use super::json_body::{self, BodyEnd};
use super::value::{leading_ws, trim};
use super::{Cut, Machine};

/// A sectioned dialect's markers, from the description in force (see the module docs and
/// [`crate::Description`]'s sectioned fields).
#[derive(Clone, Copy)]
struct Markers<'m> {
    section_open: &'m [u8],
    section_close: &'m [u8],
    call_open: &'m [u8],
    call_close: &'m [u8],
    /// What ends each part of a call's header, in order; the last part names the call.
    header_ends: StrList<'m>,
    fence_open: &'m [u8],
    fence_close: &'m [u8],
    /// The header's last part is the call's id on the wire ([`id_name`] names the call).
    wire_id: bool,
    /// Other spellings of the section opener.
    alt_openers: StrList<'m>,
}

impl<'m> Markers<'m> {
    /// The markers in force, read by reference (no description copied per decision).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn of(cfg: &'m Settings<'_>) -> Markers<'m> {
        cfg.with_description(spec::preset_sectioned, Markers::from)
    }

    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn from(d: &crate::Description<'m>) -> Markers<'m> {
        let (fence_open, fence_close) = d.fence.unwrap_or(("", ""));
        Markers {
            section_open: d.wrapper.0.as_bytes(),
            section_close: d.wrapper.1.as_bytes(),
            call_open: d.call_markers.0.as_bytes(),
            call_close: d.call_markers.1.as_bytes(),
            header_ends: d.header_ends,
            fence_open: fence_open.as_bytes(),
            fence_close: fence_close.as_bytes(),
            wire_id: d.wire_id,
            alt_openers: d.alt_openers,
        }
    }

    /// The end of header part `i` (a validated description has one or two).
    fn header_end(&self, i: usize) -> &'m [u8] {
        self.header_ends.get(i).map_or(b"", str::as_bytes)
    }

    /// How many header parts there are (at least one).
    fn parts(&self) -> usize {
        self.header_ends.len().max(1)
    }
}

/// The call's name from a wire id (kimi-k2's `functions.NAME:IDX`): the id without a
/// leading `functions.` and a trailing `:IDX` (a colon and digits); a dotted name keeps its
/// dots, an id with no `:IDX` is the name whole.
fn id_name(id: &[u8]) -> &[u8] {
    let name = id.strip_prefix(b"functions.").unwrap_or(id);
    match name.iter().rposition(|&b| b == b':') {
        Some(colon)
            if colon + 1 < name.len() && name[colon + 1..].iter().all(u8::is_ascii_digit) =>
        {
            &name[..colon]
        }
        _ => name,
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
/// The alternative section openers follow (the description's `alt_openers`).
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

/// The state of a sectioned dialect.
#[derive(Clone, Copy, Debug)]
pub(crate) struct State {
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
}

impl Machine for State {
    const CALL_DEPTH: u8 = 1;

    fn new(cfg: &Config<'_>) -> State {
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
        }
    }

    fn vocab_key(&self) -> u32 {
        self.ctx as u32 | (self.part as u32) << 8 | ((self.fresh | self.yielded) as u32) << 16
    }

    fn vocab<'m>(&self, cfg: &'m Settings<'_>, _out: &'m Emitter<'_>) -> Vocab<'m> {
        let m = Markers::of(cfg);
        // Inside a call: its closer, and the markers that cut it off; then `extra`.
        let call = |extra: &'m [u8]| {
            let v = Vocab::EMPTY
                .with_literal(m.call_close)
                .with_literal(m.call_open)
                .with_literal(m.section_close)
                .with_literal(m.section_open);
            if extra.is_empty() {
                v
            } else {
                v.with_literal(extra)
            }
        };
        match self.ctx {
            Ctx::Text => {
                // The thinking markers are read where they count only (text, thinking):
                // inside a call, most decisions, they would be a wasted read per decision.
                let (think_open, think_close) = cfg.thinking_tags();
                let mut v = Vocab {
                    stops: cfg.stops(),
                    ..Vocab::EMPTY
                }
                .with_literal(think_open.as_bytes())
                .with_literal(m.section_open)
                .with_literal(m.call_open);
                for alt in m.alt_openers.iter() {
                    v = v.with_literal(alt.as_bytes());
                }
                if self.fresh || self.yielded {
                    v = v.with_literal(think_close.as_bytes());
                }
                v
            }
            // The section and call openers are special tokens, never prose: inside thinking
            // they open calls wherever they stand.
            Ctx::Thinking => {
                let (think_open, think_close) = cfg.thinking_tags();
                Vocab::EMPTY
                    .with_literal(think_close.as_bytes())
                    .with_literal(m.section_open)
                    .with_literal(m.call_open)
                    .with_literal(think_open.as_bytes())
            }
            Ctx::Section => Vocab::EMPTY
                .with_literal(m.call_open)
                .with_literal(m.section_close)
                .with_literal(m.section_open),
            Ctx::Head => {
                // After the part's end (index 4): the end of the part before (a repeated
                // separator, dropped), then the body's opening fence, which ends the name too.
                let parts = m.parts();
                let mut v = call(m.header_end(self.part_index(parts)));
                if self.part > 0 {
                    v = v.with_literal(m.header_end(self.part_index(parts) - 1));
                }
                if self.in_name(parts) && !m.fence_open.is_empty() {
                    v = v.with_literal(m.fence_open);
                }
                v
            }
            Ctx::BeforeBody => call(m.fence_open),
            Ctx::After => call(m.fence_close),
            Ctx::Body | Ctx::Skip => call(&[]),
        }
    }

    fn act(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        d: Decision,
        window: &[u8],
    ) -> Act {
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
            Decision::Literal { index, len } => {
                let alts = Markers::of(cfg).alt_openers.len();
                literal(cfg, out, self, alts, index, &window[..len])
            }
            Decision::Text(n) | Decision::Invalid(n) => text(cfg, out, self, d, window, n),
            Decision::NeedMore | Decision::Stop { .. } | Decision::Element(_) => Act::WAIT,
        }
    }

    fn end_of_input(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) {
        match self.ctx {
            Ctx::Head | Ctx::BeforeBody | Ctx::Body => {
                fail(out, self, ErrorReason::Unfinished);
                out.fail_call(self.reason, false);
            }
            Ctx::After => complete(cfg, out),
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

    /// A marker cut off between a section's calls (`…<|tool_call_end|><|tool_calls_sec`) is
    /// wire syntax: dropped, the section ends there.
    fn cut_closer(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>, _cut: &[u8]) -> Cut {
        if self.ctx != Ctx::Section {
            return Cut::No;
        }
        self.end_of_input(cfg, out);
        Cut::Done
    }
}

impl State {
    /// The header part being read, as an index into the header ends (of `parts`).
    fn part_index(&self, parts: usize) -> usize {
        (self.part as usize).min(parts - 1)
    }

    /// The header part being read is the last one (of `parts`): the name (or id).
    fn in_name(&self, parts: usize) -> bool {
        self.part as usize + 1 >= parts
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

/// A literal marker (`alts`: how many alternative section openers the text context holds).
fn literal(
    cfg: &Settings<'_>,
    out: &mut Emitter<'_>,
    s: &mut State,
    alts: usize,
    index: usize,
    lit: &[u8],
) -> Act {
    let len = lit.len();
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
        (Ctx::Text, i) if i == LIT_SECTION_OPEN_ALT + alts => s.yielded = false,
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
            return super::thinking_marker(out, false, lit).unwrap_or(Act::WAIT);
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
        (Ctx::Head, CALL_EXTRA) => header_end(cfg, out, s, false),
        // A repeated separator: wire syntax.
        (Ctx::Head, i) if i == CALL_EXTRA + 1 && s.part > 0 => {}
        (Ctx::Head, i) if i > CALL_EXTRA => header_end(cfg, out, s, true),
        // Fences around the body are wire syntax.
        (Ctx::BeforeBody | Ctx::After, CALL_EXTRA) => {}
        (_, CALL_CLOSE) => return call_closer(cfg, out, s, len),
        // Another call's opener or a section marker: the call ends here (without the marker,
        // which acts again in the context the call returns to).
        _ => {
            cut_off(cfg, out, s);
            return Act::WAIT;
        }
    }
    Act::skip(len)
}

/// The call's closer (`len` bytes, part of the call).
fn call_closer(cfg: &Settings<'_>, out: &mut Emitter<'_>, s: &mut State, len: usize) -> Act {
    let home = s.home();
    let act = match s.ctx {
        Ctx::BeforeBody => {
            // No body: no arguments.
            out.queue_chunk(Some(Part::Input), Spool::Static("{}"));
            complete(cfg, out);
            Act::skip(len)
        }
        Ctx::After => {
            complete(cfg, out);
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
fn cut_off(cfg: &Settings<'_>, out: &mut Emitter<'_>, s: &mut State) {
    let home = s.home();
    match s.ctx {
        Ctx::After => complete(cfg, out),
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

fn text(
    cfg: &Settings<'_>,
    out: &mut Emitter<'_>,
    s: &mut State,
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
            if partial_marker(&Markers::of(cfg), window) {
                // The end of input cut a closer short (max_tokens): the call is complete,
                // and the partial closer is wire syntax, dropped (docs/design.md "Lenient
                // recovery"). The whole window is the partial marker.
                complete(cfg, out);
                s.ctx = s.home();
                return Act::skip(window.len());
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
fn partial_marker(m: &Markers<'_>, window: &[u8]) -> bool {
    [m.call_close, m.call_open, m.section_close, m.fence_close]
        .iter()
        .any(|m| window.len() < m.len() && m.starts_with(window))
}

/// Header text: kept in the name slot (leading whitespace dropped) until the part's end.
fn header_text(out: &mut Emitter<'_>, s: &mut State, d: Decision, window: &[u8], ws: usize) -> Act {
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
fn header_end(cfg: &Settings<'_>, out: &mut Emitter<'_>, s: &mut State, fence: bool) {
    let mut buf = [0u8; STR_CAP];
    let slot = out.strs.bytes().get(..out.name_len as usize).unwrap_or(&[]);
    let held = slot.len().min(STR_CAP);
    buf[..held].copy_from_slice(&slot[..held]);
    let (a, b) = trim(&buf[..held]);
    let header = &buf[a..b];
    let m = Markers::of(cfg);
    let parts = m.parts();
    let wire_id = m.wire_id;
    let last = s.in_name(parts);
    let end_is_ws = m
        .header_end(s.part_index(parts))
        .iter()
        .all(u8::is_ascii_whitespace);
    if header.is_empty() && !fence && end_is_ws {
        // A line break before the name: formatting.
        return;
    }
    if !last {
        // A part before the name (deepseek-v3's `function`): read and dropped.
        s.part += 1;
        out.name_len = 0;
        return;
    }
    let name = if wire_id { id_name(header) } else { header };
    if name.is_empty() {
        fail(out, s, ErrorReason::MissingName);
        return;
    }
    if wire_id {
        out.set_name(name);
        out.queue_chunk(Some(Part::Name), out.name_spool());
        out.set_wire_id(header);
        out.queue_chunk(Some(Part::Id), out.id_spool());
    } else {
        out.announce_call(cfg, name);
    }
    s.ctx = Ctx::BeforeBody;
}

fn body(out: &mut Emitter<'_>, s: &mut State, window: &[u8], n: usize) -> Act {
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
fn open_call(out: &mut Emitter<'_>, s: &mut State, in_section: bool) {
    s.in_section = in_section;
    out.set_call_depth(u8::from(in_section));
    out.open_call(1);
    s.ctx = Ctx::Head;
    s.part = 0;
    s.started = false;
}

/// Completes the open call successfully.
fn complete(cfg: &Settings<'_>, out: &mut Emitter<'_>) {
    out.complete_call(cfg);
}

/// Fails the open call: it is skipped to its closer (or the marker that cuts it off).
fn fail(out: &mut Emitter<'_>, s: &mut State, reason: ErrorReason) {
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
