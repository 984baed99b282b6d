//! The invoke shape (`Shape::Invoke`): a region element holding `<invoke name="N">` calls
//! holding `<parameter name="K">V</parameter>` values, the element names, their prefix and
//! a typing attribute read from the description in force. Its presets: `minimax-m2`
//! (MiniMax M2, M2.1, M2.5: `<minimax:tool_call>`), `deepseek-v3.2` and `deepseek-v4`
//! (DeepSeek's DSML: `<｜DSML｜function_calls>` / `<｜DSML｜tool_calls>`, every element
//! prefixed `｜DSML｜` or, as models also write it, `|DSML|`, and `string="true|false"` on
//! each parameter); a host describes others (docs/design.md, "Dialect descriptions").
//!
//! The region is anthropic-xml's `<function_calls>` under another name, read by the same
//! machinery ([`super::invoke`]): one tool_call block (depth 1) per `<invoke>`, several per
//! region, whitespace between elements dropped, stray text in the region a depth-1 text
//! block, the same failures. Values are typed exactly like anthropic-xml parameters
//! ([`super::value`]): a schema `string` streams per token minus one framing newline at each
//! end; other values are trimmed and typed at `</parameter>`; undeclared ones get the
//! untyped guess. Where the description names a `string_attribute`, the model's own
//! `string="true"` makes the value a string as written and `string="false"` JSON (typed as
//! the schema says, or guessed): the attribute wins over the schema, as the peers read it.
//!
//! Choices the wire format leaves open (docs/design.md records them):
//! - The region's opener opens the region wherever it appears in text (it is one special
//!   token of the model's vocabulary, never prose); it takes no attributes. A stream may
//!   hold several regions; text between them is top-level text.
//! - Tags are matched exactly: with a prefix described it is required on every element
//!   (`<invoke>` without it is text); the call and parameter elements are structural only
//!   inside the region; attributes are quoted (`"` or `'`).
//! - A value ends at the first parameter closer; nothing else is markup inside it (no
//!   CDATA, no entity decoding).
//! - Thinking: the exact `thinking_tags` markers (default `<think>`/`</think>`); the
//!   region's opener at the start of the thinking or of a line ends unclosed thinking and
//!   opens the region (docs/design.md, "Thinking that yields to tool calls").
//! - A marker cut off by the end of input after complete children (`…</parameter></inv`,
//!   `…</parameter><`, `…value</param`) ends what it would close, as the whole closer would;
//!   the cut bytes are wire syntax, dropped (docs/design.md, "Tool calls").
//! - Stop sequences apply in top-level text only (not inside the region).

use crate::config::Config;
use crate::config::Settings;
use crate::emit::{Act, Emitter};
use crate::event::BlockType;
use crate::scan::{Decision, Vocab};
use crate::spec::Description;

use super::invoke::{At, Open, Region, RegionKind, Spelling, Syntax};
use super::{Cut, Machine};

const REGION: u8 = 0;

/// The region, call and parameter elements are the description's `elements`, in that order.
const SYNTAX: Syntax = Syntax {
    spelling,
    region: REGION,
    invoke: 1,
    param: 2,
};

const INVOKE: u8 = SYNTAX.invoke;

/// What opens the calls in text and thinking: the region's opening tag, or the region's
/// opening marker (a literal, added last), or — without a region — the call's opening tag.
fn region_opener<'m>(cfg: &'m Settings<'_>) -> Vocab<'m> {
    let sp = spelling(cfg);
    let opener = match sp.region() {
        RegionKind::Element => 1 << REGION,
        RegionKind::None => 1 << INVOKE,
        RegionKind::Markers => 0,
    };
    Vocab {
        names: sp.names,
        prefixes: sp.prefixes,
        prefix_required: sp.prefix_required,
        attrs: opener == 1 << INVOKE,
        open: opener,
        ..Vocab::EMPTY
    }
}

/// A marker region's opener, if the dialect has one.
#[inline]
fn region_marker<'m>(cfg: &'m Settings<'_>) -> Option<&'m [u8]> {
    if cfg.invoke_region().0 {
        spelling(cfg).region_markers.map(|m| m.0.as_bytes())
    } else {
        None
    }
}

/// The element names of the description in force.
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn spelling<'e>(cfg: &'e Settings<'_>) -> Spelling<'e> {
    let kind = region_kind(cfg);
    cfg.with_invoke_description(|d| spelling_of(d, kind))
}

/// What the calls stand in, from the configuration's resolved facts.
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn region_kind(cfg: &Settings<'_>) -> RegionKind {
    match cfg.invoke_region() {
        (true, _) => RegionKind::Markers,
        (_, true) => RegionKind::None,
        _ => RegionKind::Element,
    }
}

/// The spelling of description `d` (its region being `kind`).
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn spelling_of<'e>(d: &Description<'e>, kind: RegionKind) -> Spelling<'e> {
    Spelling {
        names: d.elements,
        prefixes: d.tag_prefixes,
        prefix_required: !d.tag_prefixes.is_empty(),
        string_attr: d.string_attribute,
        cdata: d.cdata,
        kind,
        region_markers: (kind == RegionKind::Markers).then_some(d.wrapper),
        inner_markup: d.markup,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    Text,
    Thinking,
    /// Inside `<minimax:tool_call>` (where: [`State::calls`]).
    Calls,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct State {
    ctx: Ctx,
    calls: Region,
    /// Nothing decided yet: a thinking closer here has no opener and is dropped.
    fresh: bool,
    /// A tool call ended the thinking it was opened in: the thinking closer the model may
    /// still write is wire syntax too (dropped once).
    yielded: bool,
}

/// Literal indices: in text, the thinking opener, then (at the very start) a closer with no
/// opener; in thinking, the closer, then the opener again.
const LIT_STRAY_CLOSE: usize = 1;
const THINK_REOPEN: usize = 1;

impl State {
    /// An act inside the calls (see [`Machine::act`]).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn calls_act(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        d: Decision,
        window: &[u8],
    ) -> Act {
        let (act, open) = self.calls.act(&SYNTAX, cfg, out, d, window);
        // Without a region, the stream is back in text once the call ends.
        let regionless = || cfg.invoke_region().1;
        if open == Open::No || (self.calls.at == At::Calls && regionless()) {
            self.ctx = Ctx::Text;
        }
        act
    }

    /// An act in text or thinking (see [`Machine::act`]).
    #[inline(never)]
    fn outer_act(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        d: Decision,
        window: &[u8],
    ) -> Act {
        match (self.ctx, d) {
            (Ctx::Calls, _) => self.calls_act(cfg, out, d, window),
            (Ctx::Text, Decision::Literal { len, .. })
                if region_marker(cfg) == window.get(..len) =>
            {
                // A marker region opens (Step-3's `<｜tool_calls_begin｜>`).
                out.close_content();
                out.set_call_depth(1);
                self.ctx = Ctx::Calls;
                self.calls = Region::new();
                Act::skip(len)
            }
            (Ctx::Thinking, Decision::Literal { len, .. })
                if region_marker(cfg) == window.get(..len) =>
            {
                super::thinking_marker(out, true, &window[..len]).unwrap_or_else(|| {
                    self.ctx = Ctx::Text;
                    self.yielded = true;
                    Act::WAIT
                })
            }
            (Ctx::Text, Decision::Element(tag)) if tag.element == INVOKE => {
                // A call standing in text (no region): the region's machinery reads it from
                // its opening tag, decided again in the region's vocabulary.
                out.close_content();
                // A failed call's raw text comes back where it stood: in text.
                out.set_call_depth(0);
                self.ctx = Ctx::Calls;
                self.calls = Region::new();
                Act::WAIT
            }
            (Ctx::Text, Decision::Element(tag)) => {
                out.close_content();
                out.set_call_depth(1);
                if !tag.self_closing {
                    self.ctx = Ctx::Calls;
                    self.calls = Region::new();
                }
                Act::skip(tag.len)
            }
            (Ctx::Thinking, Decision::Element(tag)) => {
                super::thinking_marker(out, true, &window[..tag.len]).unwrap_or_else(|| {
                    self.ctx = Ctx::Text;
                    self.yielded = true;
                    Act::WAIT
                })
            }
            (
                Ctx::Thinking,
                Decision::Literal {
                    index: THINK_REOPEN,
                    len,
                },
            ) => super::thinking_marker(out, false, &window[..len]).unwrap_or(Act::WAIT),
            (
                Ctx::Text,
                Decision::Literal {
                    index: LIT_STRAY_CLOSE,
                    len,
                },
            ) => {
                self.yielded = false;
                Act::skip(len)
            }
            (Ctx::Text | Ctx::Thinking, Decision::Literal { len, .. }) => {
                out.close_content();
                self.ctx = if self.ctx == Ctx::Text {
                    Ctx::Thinking
                } else {
                    Ctx::Text
                };
                Act::skip(len)
            }
            (Ctx::Text, Decision::Text(_) | Decision::Invalid(_)) => {
                out.content(BlockType::Text, 0, d)
            }
            (Ctx::Thinking, Decision::Text(_) | Decision::Invalid(_)) => {
                out.content(BlockType::Thinking, 0, d)
            }
            _ => Act::WAIT,
        }
    }

    /// The vocabulary of text and thinking (see [`Machine::vocab`]); the thinking markers
    /// are read here only: inside the calls they would be a wasted read per decision.
    #[inline(never)]
    fn outer_vocab<'m>(&self, cfg: &'m Settings<'_>) -> Vocab<'m> {
        let (open, close) = cfg.thinking_tags();
        let mut v = region_opener(cfg);
        if self.ctx == Ctx::Thinking {
            v.add_literal(close.as_bytes());
            v.add_literal(open.as_bytes());
        } else {
            v.stops = cfg.stops();
            v.add_literal(open.as_bytes());
            if self.fresh || self.yielded {
                v.add_literal(close.as_bytes());
            }
        }
        if let Some(m) = region_marker(cfg) {
            v.add_literal(m);
        }
        v
    }
}

impl Machine for State {
    const CALL_DEPTH: u8 = 1;

    fn new(cfg: &Config<'_>) -> State {
        State {
            ctx: cfg.start_in.pick(Ctx::Text, Ctx::Thinking),
            calls: Region::new(),
            fresh: true,
            yielded: false,
        }
    }

    fn vocab_key(&self) -> u32 {
        self.ctx as u32 | (self.calls.at as u32) << 4 | ((self.fresh | self.yielded) as u32) << 12
    }

    fn vocab<'m>(&self, cfg: &'m Settings<'_>, _out: &'m Emitter<'_>) -> Vocab<'m> {
        // Inside the calls (most decisions of a long argument) only the element spelling is
        // read; text and thinking are built out of line, which keeps this path's frame small.
        match self.ctx {
            Ctx::Calls => {
                // Built inside the description's reader: the spelling stays in registers.
                let kind = region_kind(cfg);
                cfg.with_invoke_description(|d| {
                    self.calls.spelled_vocab(&SYNTAX, &spelling_of(d, kind))
                })
            }
            Ctx::Text | Ctx::Thinking => self.outer_vocab(cfg),
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
        if out.call_too_large() && !(self.ctx == Ctx::Calls && self.calls.at == At::Skip) {
            // The call outgrew max_call_bytes: it fails here; the rest is skipped to its closer.
            self.ctx = Ctx::Calls;
            self.calls.too_large();
            return Act::WAIT;
        }
        // Inside the calls (most acts) the region acts; text and thinking are handled out
        // of line, which keeps this path's frame small.
        match self.ctx {
            Ctx::Calls => self.calls_act(cfg, out, d, window),
            Ctx::Text | Ctx::Thinking => self.outer_act(cfg, out, d, window),
        }
    }

    fn end_of_input(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) {
        if self.ctx == Ctx::Calls {
            self.calls.end_of_input(cfg, out);
        }
        self.ctx = Ctx::Text;
    }

    /// A cut closer in the region is wire syntax, as in anthropic-xml ([`Region::cut_closer`]).
    fn cut_closer(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>, cut: &[u8]) -> Cut {
        match self.ctx {
            Ctx::Calls => self
                .calls
                .cut_closer(&SYNTAX, cfg, out, cut)
                .unwrap_or(Cut::No),
            _ => Cut::No,
        }
    }

    fn plain_block(&self) -> Option<(BlockType, u8)> {
        match self.ctx {
            Ctx::Text => Some((BlockType::Text, 0)),
            Ctx::Thinking => Some((BlockType::Thinking, 0)),
            Ctx::Calls => None,
        }
    }
}
