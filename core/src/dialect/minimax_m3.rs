//! `minimax-m3` (MiniMax M3): morph-xml's arguments (module docs of [`super::morph`]) in an
//! invoke region, every structural tag written after the namespace token `]<]minimax[>[`:
//!
//! ```text
//! ]<]minimax[>[<tool_call>
//! ]<]minimax[>[<invoke name="N">]<]minimax[>[<city>Paris]<]minimax[>[</city>]<]minimax[>[</invoke>
//! ]<]minimax[>[</tool_call>
//! ```
//!
//! It runs on morph-xml's machine ([`super::morph::State`] in its `m3` mode): the arguments
//! are elements named by their key, read exactly as morph-xml reads them — a schema `string`
//! streams raw (untrimmed, no framing newline dropped: the template writes none); any other
//! value is held to its closer and converted by [`super::xml_value`] (nested elements → an
//! object, `<item>` children → an array, consecutive repeats → an array, scalars typed by
//! the schema or the untyped guess). What differs:
//!
//! - The namespace token counts only before a tag the context reads (a literal with a
//!   look-ahead, [`Vocab::with_literal_when`]): the token then the tag are structure, the
//!   token dropped; a tag without the token, or the token before anything else, is content
//!   (inside a string value, its text). Inside a held value the tags are kept without the
//!   token, so the converter sees plain elements.
//! - The region `]<]minimax[>[<tool_call>` opens in text wherever it appears (one special
//!   token sequence, never prose); it holds several invokes (parallel calls share one
//!   region, as the template writes them); whitespace between them is formatting, other
//!   text a depth-1 text block. `<invoke>` needs a non-empty `name` (else `missing-name`).
//!   Calls are tool_call blocks at depth 1; the tool need not be configured (unknown tools'
//!   arguments are untyped).
//! - `]<]minimax[>[</tool_call>` inside an invoke ends it and the region. Text at the
//!   invoke's level fails it (`unexpected-content`; vLLM keeps what came before: a partial
//!   call is not a call here), as does a closer that is not the open argument's
//!   (`malformed-parameter`); the call is skipped to `]<]minimax[>[</invoke>` or the
//!   region's closer.
//! - Thinking: `<mm:think>…</mm:think>` by default. A thinking closer before anything else
//!   (M3 writes a bare `</mm:think>` in front of non-thinking replies) is dropped, as is one
//!   after a call that ended unclosed thinking. The region's opener at the start of the
//!   thinking or of a line ends unclosed thinking and opens the region (docs/design.md,
//!   "Thinking that yields to tool calls").
//! - A marker cut off by the end of input (`…Paris]<]mini`, `…]<]minimax[>[</ci`) ends what
//!   it would close when what is open parses, as morph-xml's cut closers do; the cut bytes
//!   are wire syntax.
//! - Not done (bounded memory, streaming): mixed text and elements is a string (vLLM: an
//!   object with a `$text` member); nested members are typed by the untyped guess (the
//!   configuration keeps the schema's top-level types only).

use crate::config::Settings;
use crate::emit::{Act, Emitter, Spool};
use crate::event::{BlockType, ErrorReason, Part};
use crate::scan::tag::{self, TagLex, attr};
use crate::scan::{DYNAMIC, Decision, EXTRA, Names, Tag, Vocab};
use crate::spec::StrList;

use super::Cut;
use super::invoke::stray_text;
use super::morph::{self, Ctx, State, Tail};

/// The namespace token written before every structural tag.
pub(crate) const NS: &[u8] = b"]<]minimax[>[";
/// The region's opener, read as one marker in text and thinking.
pub(crate) const REGION_OPEN: &[u8] = b"]<]minimax[>[<tool_call>";

/// The region's element names: `invoke` (bit 0) and `tool_call` (bit 1).
const NAMES: &[&str] = &["invoke", "tool_call"];
const INVOKE: u8 = 0;
const REGION: u8 = 1;
/// The tool of a call to an unconfigured tool (no schema: every argument untyped).
const NO_TOOL: u16 = u16::MAX;

const fn bit(e: u8) -> u32 {
    1 << e
}

/// The tags of the region's level: an invoke opens, the region closes.
const REGION_TAGS: Vocab<'static> = Vocab {
    names: StrList::Strs(NAMES),
    attrs: true,
    open: bit(INVOKE),
    close: bit(REGION),
    ..Vocab::EMPTY
};

/// The tags a skipped call ends at: its invoke's closer or the region's.
const SKIP_TAGS: Vocab<'static> = Vocab {
    names: StrList::Strs(NAMES),
    close: bit(INVOKE) | bit(REGION),
    ..Vocab::EMPTY
};

/// Any tag (an argument, a nested element, the invoke's or region's closer).
const ANY_TAGS: Vocab<'static> = Vocab {
    open: bit(DYNAMIC),
    close: bit(DYNAMIC),
    dynamic: Names::Any,
    attrs: true,
    ..Vocab::EMPTY
};

/// The tags after the token in `ctx` (the string's closer: its key is the vocabulary's
/// `extra`).
fn tags<'m>(ctx: Ctx, key: &'m [u8]) -> Vocab<'m> {
    match ctx {
        Ctx::Region => REGION_TAGS,
        Ctx::Skip => SKIP_TAGS,
        Ctx::Str => Vocab {
            close: bit(EXTRA),
            extra: key,
            ..Vocab::EMPTY
        },
        _ => ANY_TAGS,
    }
}

/// Look-aheads of the token: it counts before a tag of the context.
fn lex_after(v: Vocab<'_>, rest: &[u8], eof: bool) -> Option<bool> {
    match rest.first() {
        None if eof => return Some(false),
        None => return None,
        Some(b'<') => {}
        Some(_) => return Some(false),
    }
    match tag::lex(&v, rest, eof) {
        TagLex::Match(_) => Some(true),
        TagLex::Partial => None,
        TagLex::Fail => Some(false),
    }
}

fn before_region_tag(rest: &[u8], _: &Vocab<'_>, eof: bool) -> Option<bool> {
    lex_after(REGION_TAGS, rest, eof)
}

fn before_skip_tag(rest: &[u8], _: &Vocab<'_>, eof: bool) -> Option<bool> {
    lex_after(SKIP_TAGS, rest, eof)
}

fn before_any_tag(rest: &[u8], _: &Vocab<'_>, eof: bool) -> Option<bool> {
    lex_after(ANY_TAGS, rest, eof)
}

fn before_string_closer(rest: &[u8], v: &Vocab<'_>, eof: bool) -> Option<bool> {
    lex_after(tags(Ctx::Str, v.extra), rest, eof)
}

/// Literal indices: in text the region's opener, the thinking opener, then (while `stray`)
/// the closer; in thinking the closer, the region's opener, the opener again.
const LIT_TEXT_REGION: usize = 0;
const LIT_TEXT_CLOSE: usize = 2;
const LIT_THINKING_REGION: usize = 1;
const LIT_THINKING_OPEN: usize = 2;

/// What may appear in `ctx` (`ns`: the token was just read; `stray`: a thinking closer in
/// text is dropped).
pub(super) fn vocab<'m>(
    cfg: &'m Settings<'_>,
    out: &'m Emitter<'_>,
    ctx: Ctx,
    ns: bool,
    stray: bool,
) -> Vocab<'m> {
    let (open, close) = cfg.thinking_tags();
    match ctx {
        Ctx::Text => {
            let mut v = Vocab {
                stops: cfg.stops(),
                ..Vocab::EMPTY
            };
            v.add_literal(REGION_OPEN);
            v.add_literal(open.as_bytes());
            if stray {
                v.add_literal(close.as_bytes());
            }
            v
        }
        Ctx::Thinking => Vocab::EMPTY
            .with_literal(close.as_bytes())
            .with_literal(REGION_OPEN)
            .with_literal(open.as_bytes()),
        _ if ns => tags(ctx, morph::key(out)),
        Ctx::Region => Vocab::EMPTY.with_literal_when(NS, before_region_tag),
        Ctx::Skip => Vocab::EMPTY.with_literal_when(NS, before_skip_tag),
        Ctx::Str => Vocab {
            extra: morph::key(out),
            ..Vocab::EMPTY
        }
        .with_literal_when(NS, before_string_closer),
        Ctx::Call | Ctx::Held => Vocab::EMPTY.with_literal_when(NS, before_any_tag),
    }
}

/// What to do with decision `d` about the head of `window`.
pub(super) fn act(
    cfg: &Settings<'_>,
    out: &mut Emitter<'_>,
    s: &mut State,
    d: Decision,
    window: &[u8],
) -> Act {
    if out.call_too_large() && matches!(s.ctx, Ctx::Call | Ctx::Str | Ctx::Held) {
        // The call outgrew max_call_bytes: it fails here; the rest is skipped to its closer.
        s.ns = false;
        return morph::skip_call(s, ErrorReason::TooLarge);
    }
    match (s.ctx, d) {
        (Ctx::Text | Ctx::Thinking, _) => text_or_thinking(out, s, d, window),
        (_, Decision::Literal { len, .. }) => {
            // The token (its look-ahead saw a tag of the context). Before an invoke the call
            // opens here, so that its raw text holds the token.
            if s.ctx == Ctx::Region && window.get(len..).is_some_and(|r| r.starts_with(b"<invoke"))
            {
                out.close_content();
                out.open_call(1);
            }
            s.ns = true;
            Act::skip(len)
        }
        (_, Decision::Element(tag)) => on_tag(cfg, out, s, tag, &window[..tag.len]),
        (_, Decision::Text(_) | Decision::Invalid(_)) if s.ns => {
            // After the token, only where a skipped call reads a tag it does not end at: the
            // bytes are decided again without it (a text run read after the token could
            // run past the next token).
            s.ns = false;
            Act::WAIT
        }
        (_, Decision::Text(_) | Decision::Invalid(_)) => {
            if s.ctx == Ctx::Region {
                stray_text(out, d, window)
            } else {
                morph::on_text(out, s, d, window)
            }
        }
        _ => Act::WAIT,
    }
}

fn text_or_thinking(out: &mut Emitter<'_>, s: &mut State, d: Decision, window: &[u8]) -> Act {
    let thinking = s.ctx == Ctx::Thinking;
    let Decision::Literal { len, .. } = d else {
        s.stray = false;
        return match d {
            Decision::Text(_) | Decision::Invalid(_) if thinking => {
                out.content(BlockType::Thinking, 0, d)
            }
            Decision::Text(_) | Decision::Invalid(_) => out.content(BlockType::Text, 0, d),
            _ => Act::WAIT,
        };
    };
    let lit = &window[..len];
    // By index: another spelling of a thinking marker comes as the literal it spells.
    let (region, reopen) = if thinking {
        (LIT_THINKING_REGION, LIT_THINKING_OPEN)
    } else {
        (LIT_TEXT_REGION, usize::MAX)
    };
    match d {
        Decision::Literal { index, .. } if index == region => {
            if thinking {
                return super::thinking_marker(out, true, lit).unwrap_or_else(|| {
                    // Decided again in text, where the region opens; a thinking closer may
                    // follow the call.
                    s.ctx = Ctx::Text;
                    s.stray = true;
                    Act::WAIT
                });
            }
            out.close_content();
            out.set_call_depth(1);
            s.ctx = Ctx::Region;
            s.ns = false;
            Act::skip(len)
        }
        Decision::Literal { index, .. } if index == reopen => {
            super::thinking_marker(out, false, lit).unwrap_or(Act::WAIT)
        }
        Decision::Literal {
            index: LIT_TEXT_CLOSE,
            ..
        } if !thinking => {
            // A thinking closer with no opener: wire syntax.
            s.stray = false;
            Act::skip(len)
        }
        _ => {
            out.close_content();
            s.stray = false;
            s.ctx = if thinking { Ctx::Text } else { Ctx::Thinking };
            Act::skip(len)
        }
    }
}

fn on_tag(cfg: &Settings<'_>, out: &mut Emitter<'_>, s: &mut State, tag: Tag, bytes: &[u8]) -> Act {
    let name = tag.name(bytes);
    match s.ctx {
        Ctx::Region if tag.closing => {
            s.ns = false;
            out.close_content();
            s.ctx = Ctx::Text;
            Act::skip(tag.len)
        }
        Ctx::Region => {
            s.ns = false;
            open_invoke(cfg, out, s, tag, bytes);
            Act::skip(tag.len)
        }
        Ctx::Skip => {
            s.ns = false;
            let invoke = tag.element == INVOKE;
            s.ctx = if invoke { Ctx::Region } else { Ctx::Text };
            out.close_skipped(s.reason, tag.len, invoke)
        }
        Ctx::Call if tag.closing => {
            let region = name == b"tool_call";
            if !region && name != b"invoke" {
                // Not a closer of this level: the call is malformed (the tag is read again,
                // after the token, as the skipped call's closer or its text).
                return morph::skip_call(s, ErrorReason::MalformedParameter);
            }
            // What the arguments owe first (the same tag is decided again).
            if morph::flush_tail(out, s, None) {
                return Act::WAIT;
            }
            s.ns = false;
            morph::finish_call(cfg, out, s);
            if region {
                out.close_content();
                s.ctx = Ctx::Text;
            }
            Act::skip(tag.len)
        }
        Ctx::Call => {
            let act = morph::open_arg(cfg, out, s, tag, name);
            if act.consume > 0 {
                s.ns = false;
            }
            act
        }
        _ => {
            // A string's closer, or a tag of a held value (kept without the token). A tag
            // that fails the call is read again, after the token, in the skipped call.
            let act = morph::on_tag(cfg, out, s, tag, bytes);
            if act.consume > 0 {
                s.ns = false;
            }
            act
        }
    }
}

fn open_invoke(cfg: &Settings<'_>, out: &mut Emitter<'_>, s: &mut State, tag: Tag, bytes: &[u8]) {
    if !matches!(out.open, Some(o) if o.ty == BlockType::ToolCall) {
        // The token's act did not see the tag (it always does: its look-ahead read it).
        out.close_content();
        out.open_call(1);
    }
    s.members = 0;
    s.tail = Tail::None;
    let name = attr(bytes, tag.name_end, b"name").filter(|n| !n.is_empty());
    let Some(name) = name else {
        // Counted like every call, but it has no name to stream.
        out.calls += 1;
        s.reason = ErrorReason::MissingName;
        if tag.self_closing {
            out.fail_call(s.reason, true);
        } else {
            s.ctx = Ctx::Skip;
        }
        return;
    };
    out.announce_call(cfg, name);
    s.tool = cfg.tools().find(name).map_or(NO_TOOL, |i| i as u16);
    s.ctx = Ctx::Call;
    if tag.self_closing {
        morph::finish_call(cfg, out, s);
    }
}

/// A marker cut off by the end of input: the open argument's closer ends it, a marker
/// between arguments completes the call, one between calls ends the region; the cut bytes
/// are then wire syntax. The cut may hold the token or start after it.
pub(super) fn cut_closer(
    cfg: &Settings<'_>,
    out: &mut Emitter<'_>,
    s: &mut State,
    cut: &[u8],
) -> Cut {
    // The tag part of the cut (empty while the cut is inside the token).
    let after = match cut.strip_prefix(NS) {
        Some(rest) => rest,
        None if s.ns => cut,
        None if NS.starts_with(cut) => &[],
        None => return Cut::No,
    };
    match s.ctx {
        Ctx::Str if after.is_empty() || after.first() == Some(&b'<') => {
            out.queue_chunk(Some(Part::Input), Spool::Static("\""));
            s.ctx = Ctx::Call;
            s.ns = false;
            Cut::Again
        }
        Ctx::Held
            if s.depth == 0 && (after.is_empty() || morph::may_close(after, morph::key(out))) =>
        {
            s.ns = false;
            if morph::close_held(out, s) {
                Cut::Again
            } else {
                morph::skip_call(s, ErrorReason::TooLarge);
                Cut::No
            }
        }
        Ctx::Call => {
            if morph::flush_tail(out, s, None) {
                return Cut::Again;
            }
            s.ns = false;
            morph::finish_call(cfg, out, s);
            Cut::Again
        }
        Ctx::Region => {
            s.ns = false;
            out.close_content();
            s.ctx = Ctx::Text;
            Cut::Done
        }
        _ => Cut::No,
    }
}
