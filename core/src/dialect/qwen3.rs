//! `qwen3-coder`: `<tool_call><function=N><parameter=K>V</parameter></function></tool_call>`.
//!
//! - `<tool_call>` opens the wrapper (a tool region, depth 1) only when the next
//!   non-whitespace text is `<function=`; otherwise the marker is text, so prose that
//!   mentions it never swallows the stream (a literal with look-ahead:
//!   [`Vocab::with_literal_before`]). `</tool_call>` closes the wrapper.
//! - Each `<function=N>` inside the wrapper is one tool_call block (depth 1); a wrapper may
//!   hold several. `<function=…>` outside a wrapper and closers with no opener are text.
//! - `<parameter=K>` values end at the first `</parameter>` (nothing else is markup inside
//!   them: no entity decoding, no CDATA) and are typed exactly like anthropic-xml parameters
//!   ([`super::value`]): a schema `string` streams per token minus one framing newline at
//!   each end; other values are trimmed and typed at the closer; undeclared ones get the
//!   untyped guess.
//! - Thinking: the exact `thinking_tags` markers (default `<think>`/`</think>`), opaque.
//! - Failures (docs/design.md rule 10): stray text inside a function (`unexpected-content`), a
//!   `<function>` without a name (`missing-name`), a `<parameter>` without a key
//!   (`malformed-parameter`), a parameter still open at end of input (`unfinished`) or a
//!   call over `max_call_bytes` (`too-large`) fail the call; it is skipped to
//!   `</function>` (part of its raw) or `</tool_call>` (not part of it); its raw
//!   `<function=…>…` is re-emitted as a depth-1 text block with `on_malformed = "text"`.
//!
//! Choices the design rules leave open (docs/design.md records them):
//! - Function names and parameter keys are the `=value` of the tag, trimmed of ASCII
//!   whitespace; a name or key that is empty after trimming is missing.
//! - `</tool_call>` inside a function (no `</function>`) ends the function normally, then
//!   the wrapper; a function or wrapper still open at end of input completes normally.
//! - A closer cut off by the end of input (`max_tokens`): a cut `</parameter>` ends the value
//!   as the whole closer would, and a cut marker inside a function after complete parameters
//!   completes it, and one directly inside the wrapper ends the wrapper; the cut bytes are
//!   wire syntax, dropped. In a failed function it is part of the raw text; in thinking it
//!   stays thinking.
//! - Stray text directly inside the wrapper is a depth-1 text block that includes the
//!   whitespace run before it (the whitespace is held — in the value buffer, which is free
//!   between functions — until the next non-whitespace byte or tag decides; with a fixed
//!   buffer, whitespace beyond its capacity is dropped). Whitespace followed by a tag or the
//!   end of input is wire formatting and dropped. Stop sequences do not apply inside the
//!   wrapper (as in anthropic-xml regions).

use crate::config::Settings;
use crate::config::{Config, ValueType};
use crate::emit::{Act, Emitter, SpoolMode};
use crate::event::{BlockType, ErrorReason};
use crate::scan::{Decision, Tag, Vocab};
use crate::spec::{Dialect, StrList};

use super::value::{self, Value, leading_ws, trim};
use super::{Cut, Machine};

/// The element names (index 0 unused: the wrapper's closer is the description's, matched as
/// the vocabulary's `extra` name, bit [`WRAP`]).
const NAMES: StrList<'static> = StrList::Strs(&["", "function", "parameter"]);
const WRAP: u8 = crate::scan::EXTRA;
const FUNC: u8 = 1;
const PARAM: u8 = 2;

const fn bit(e: u8) -> u32 {
    1 << e
}

const PRESET_WRAP_OPEN: &[u8] = b"<tool_call>";
const PRESET_WRAP_ELEMENT: &[u8] = b"tool_call";
const WRAP_FOLLOWS: &[&[u8]] = &[b"<function="];
/// Literal indices in the text context.
const LIT_THINK: usize = 0;
const LIT_WRAP: usize = 1;
/// A thinking closer at the very start of the stream (no opener): wire syntax.
const LIT_STRAY_CLOSE: usize = 2;
/// Literal indices in the thinking context's vocabulary (the closer is 0).
const THINK_CALL: usize = 1;
const THINK_REOPEN: usize = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    Text,
    Thinking,
    /// Inside the `<tool_call>` wrapper.
    Region,
    /// Inside `<function=…>`.
    Func,
    /// Inside `<parameter=…>`.
    Param,
    /// Inside `<parameter=…>` whose schema type is `string`: markup is content there, only
    /// `</parameter>` ends it.
    ParamString,
    /// A failed function, skipped to its closer.
    Skip,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct State {
    ctx: Ctx,
    /// Parameters read in the current function.
    params: u16,
    /// The configured tool of the current function.
    tool: Option<u16>,
    /// Why the current function failed (in `Skip`).
    reason: ErrorReason,
    /// Whitespace held in the value buffer inside the wrapper (bytes).
    held_ws: u32,
    value: Value,
    /// Nothing decided yet: a thinking closer here has no opener and is dropped.
    fresh: bool,
    /// The wrapper is a description's, not the preset's `<tool_call>` (the preset's markers
    /// are read without asking the configuration, on the per-decision path).
    described: bool,
    /// A tool call ended the thinking it was opened in: the thinking closer the model may
    /// still write is wire syntax too (dropped once).
    yielded: bool,
}

impl Machine for State {
    const CALL_DEPTH: u8 = 1;

    fn new(cfg: &Config<'_>) -> State {
        State {
            ctx: cfg.start_in.pick(Ctx::Text, Ctx::Thinking),
            params: 0,
            tool: None,
            reason: ErrorReason::MalformedBody,
            held_ws: 0,
            value: Value::new(ValueType::Any),
            fresh: true,
            described: cfg.description.is_some() || cfg.dialect != Dialect::Qwen3Coder,
            yielded: false,
        }
    }

    fn vocab_key(&self) -> u32 {
        self.ctx as u32 | ((self.fresh | self.yielded) as u32) << 8
    }

    fn vocab<'m>(&self, cfg: &'m Settings<'_>, _out: &'m Emitter<'_>) -> Vocab<'m> {
        let wrap_open = || match self.described {
            false => PRESET_WRAP_OPEN,
            true => cfg.call_markers().0.as_bytes(),
        };
        let elements = |open: u32, close: u32| Vocab {
            names: NAMES,
            extra: match (close & bit(WRAP) != 0, self.described) {
                (false, _) => b"",
                (true, false) => PRESET_WRAP_ELEMENT,
                (true, true) => cfg.wrapper_element(),
            },
            open,
            close,
            eq_form: bit(FUNC) | bit(PARAM),
            ..Vocab::EMPTY
        };
        // The thinking markers are read in text and thinking only: inside
        // the calls (most decisions) they would be a wasted read per decision.
        match self.ctx {
            Ctx::Text => {
                let (open, close) = cfg.thinking_tags();
                let v = Vocab {
                    stops: cfg.stops(),
                    ..Vocab::EMPTY
                }
                .with_literal(open.as_bytes())
                .with_literal_before(wrap_open(), WRAP_FOLLOWS);
                if self.fresh || self.yielded {
                    v.with_literal(close.as_bytes())
                } else {
                    v
                }
            }
            Ctx::Thinking => {
                let (open, close) = cfg.thinking_tags();
                Vocab::EMPTY
                    .with_literal(close.as_bytes())
                    .with_literal_before(wrap_open(), WRAP_FOLLOWS)
                    .with_literal(open.as_bytes())
            }
            Ctx::Region => elements(bit(FUNC), bit(WRAP)),
            // A `</parameter>` written twice is dropped.
            Ctx::Func => elements(bit(PARAM), bit(PARAM) | bit(FUNC) | bit(WRAP)),
            // A value the model left without its `</parameter>` ends at the next parameter or
            // at `</function>` (as vLLM's and SGLang's parsers read it) — unless the schema
            // types it `string`: code and markup may hold those tags, so it ends only at
            // `</parameter>` (vectors 013, 023).
            Ctx::ParamString => elements(0, bit(PARAM)),
            Ctx::Param => elements(bit(PARAM), bit(PARAM) | bit(FUNC)),
            Ctx::Skip => elements(0, bit(FUNC) | bit(WRAP)),
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
        if out.call_too_large() && self.ctx != Ctx::Skip {
            // The call outgrew max_call_bytes: it fails here; the rest is skipped to its closer.
            self.ctx = Ctx::Skip;
            self.reason = ErrorReason::TooLarge;
            return Act::WAIT;
        }
        match d {
            Decision::Element(tag) => on_tag(cfg, out, self, tag, &window[..tag.len]),
            Decision::Literal { index, len } => {
                match (self.ctx, index) {
                    (Ctx::Thinking, THINK_CALL | THINK_REOPEN) => {
                        return super::thinking_marker(out, index == THINK_CALL, &window[..len])
                            .unwrap_or_else(|| {
                                self.ctx = Ctx::Text;
                                self.yielded = true;
                                Act::WAIT
                            });
                    }
                    (Ctx::Text, LIT_STRAY_CLOSE) => self.yielded = false,
                    (Ctx::Text, LIT_THINK) => self.ctx = Ctx::Thinking,
                    (Ctx::Text, LIT_WRAP) => {
                        self.ctx = Ctx::Region;
                        self.held_ws = 0;
                    }
                    (Ctx::Thinking, _) => self.ctx = Ctx::Text,
                    _ => {}
                }
                out.close_content();
                Act::skip(len)
            }
            Decision::Text(_) | Decision::Invalid(_) => on_text(out, self, d, window),
            Decision::NeedMore | Decision::Stop { .. } => Act::WAIT,
        }
    }

    fn end_of_input(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) {
        match self.ctx {
            Ctx::Func => finish_function(cfg, out, self, Ctx::Region),
            Ctx::Param | Ctx::ParamString => out.fail_call(ErrorReason::Unfinished, false),
            Ctx::Skip => out.fail_call(self.reason, false),
            Ctx::Text | Ctx::Thinking | Ctx::Region => {}
        }
        self.ctx = Ctx::Text;
        self.held_ws = 0;
    }

    fn plain_block(&self) -> Option<(BlockType, u8)> {
        match self.ctx {
            Ctx::Text => Some((BlockType::Text, 0)),
            Ctx::Thinking => Some((BlockType::Thinking, 0)),
            _ => None,
        }
    }

    /// A cut `</parameter>` (the only marker inside a value) ends the value, typed as at the
    /// whole closer; a cut marker inside a function after its complete parameters completes
    /// it. The bytes are then text inside the wrapper (depth 1), as the usual decision
    /// already makes a cut marker directly inside the wrapper (with the whitespace before it).
    fn cut_closer(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>, _cut: &[u8]) -> Cut {
        match self.ctx {
            Ctx::Param | Ctx::ParamString => {
                self.ctx = Ctx::Func;
                value::close(out, self.value);
                Cut::Again
            }
            Ctx::Func | Ctx::Region => {
                self.end_of_input(cfg, out);
                Cut::Done
            }
            _ => Cut::No,
        }
    }
}

fn on_text(out: &mut Emitter<'_>, s: &mut State, d: Decision, window: &[u8]) -> Act {
    if !matches!(d, Decision::Text(_) | Decision::Invalid(_)) {
        return Act::WAIT;
    }
    let ws = leading_ws(d, window);
    match s.ctx {
        Ctx::Text => out.content(BlockType::Text, 0, d),
        Ctx::Thinking => out.content(BlockType::Thinking, 0, d),
        Ctx::Region => {
            let stray_open = matches!(out.open, Some(o) if o.ty == BlockType::Text && o.depth == 1);
            if !stray_open && ws > 0 {
                // Wire formatting unless non-whitespace text follows before the next tag. The
                // run is held whatever follows it in this decision, so what the buffer keeps
                // of a long run does not depend on where chunks split it.
                if s.held_ws == 0 {
                    out.value.clear();
                }
                out.value.push(&window[..ws]);
                s.held_ws = out.value.len() as u32;
                return Act::skip(ws);
            }
            if stray_open && s.held_ws > 0 {
                let held = s.held_ws as usize;
                s.held_ws = 0;
                out.queue_chunk(None, value::spool(SpoolMode::Plain, 0, held));
                return Act::WAIT;
            }
            out.content(BlockType::Text, 1, d)
        }
        Ctx::Func => {
            // Whitespace between elements is wire formatting, whatever text follows it (so
            // the failure starts at the same byte at any chunking).
            if ws > 0 {
                Act::skip(ws)
            } else {
                s.ctx = Ctx::Skip;
                s.reason = ErrorReason::UnexpectedContent;
                Act::WAIT
            }
        }
        Ctx::Param | Ctx::ParamString => value::text(out, &mut s.value, false, d, window),
        Ctx::Skip => out.skip(d, s.reason),
    }
}

/// The trimmed `=value` of a `<name=value>` tag, if non-empty.
fn eq_value(tag: Tag, bytes: &[u8]) -> Option<&[u8]> {
    let (a, b) = tag.eq_value?;
    let v = bytes.get(a..b)?;
    let (x, y) = trim(v);
    (y > x).then(|| &v[x..y])
}

fn on_tag(cfg: &Settings<'_>, out: &mut Emitter<'_>, s: &mut State, tag: Tag, bytes: &[u8]) -> Act {
    let opening = !tag.closing;
    match (s.ctx, tag.element, opening) {
        (Ctx::Region, FUNC, true) => {
            s.held_ws = 0;
            out.close_content();
            open_function(cfg, out, s, tag, bytes);
        }
        (Ctx::Region, WRAP, false) => {
            s.held_ws = 0;
            out.close_content();
            s.ctx = Ctx::Text;
        }
        (Ctx::Func, PARAM, true) => return open_param(cfg, out, s, tag, bytes),
        (Ctx::Func, FUNC, false) => finish_function(cfg, out, s, Ctx::Region),
        (Ctx::Func, WRAP, false) => finish_function(cfg, out, s, Ctx::Text),
        (Ctx::Param | Ctx::ParamString, PARAM, false) => {
            s.ctx = Ctx::Func;
            value::close(out, s.value);
        }
        // Lenient recovery (docs/design.md): the value's closer is missing; the value ends
        // here and the same tag is read again in the function.
        (Ctx::Param, PARAM, true) | (Ctx::Param, FUNC, false) => {
            s.ctx = Ctx::Func;
            value::close(out, s.value);
            return Act::WAIT;
        }
        (Ctx::Func, PARAM, false) => {}
        (Ctx::Skip, FUNC, false) => {
            s.ctx = Ctx::Region;
            return out.close_skipped(s.reason, tag.len, true);
        }
        (Ctx::Skip, WRAP, false) => {
            s.ctx = Ctx::Text;
            return out.close_skipped(s.reason, tag.len, false);
        }
        // The vocabulary admits no other tag in each context.
        _ => {}
    }
    Act::skip(tag.len)
}

fn open_function(cfg: &Settings<'_>, out: &mut Emitter<'_>, s: &mut State, tag: Tag, bytes: &[u8]) {
    out.open_call(1);
    s.params = 0;
    let Some(name) = eq_value(tag, bytes) else {
        // Counted like every call, but it has no name to stream.
        out.calls += 1;
        s.reason = ErrorReason::MissingName;
        if tag.self_closing {
            out.fail_call(s.reason, true);
            s.ctx = Ctx::Region;
        } else {
            s.ctx = Ctx::Skip;
        }
        return;
    };
    out.announce_call(cfg, name);
    s.tool = cfg.tools().find(name).map(|i| i as u16);
    s.ctx = Ctx::Func;
}

fn open_param(
    cfg: &Settings<'_>,
    out: &mut Emitter<'_>,
    s: &mut State,
    tag: Tag,
    bytes: &[u8],
) -> Act {
    let Some(key) = eq_value(tag, bytes) else {
        // Skipped with the rest of the call (the tag is read again as skipped text).
        s.ctx = Ctx::Skip;
        s.reason = ErrorReason::MalformedParameter;
        return Act::WAIT;
    };
    let ty = value::param_type(cfg, s.tool, key);
    s.value = value::open(out, s.params == 0, key, ty);
    s.params = s.params.saturating_add(1);
    s.ctx = if ty == ValueType::String {
        Ctx::ParamString
    } else {
        Ctx::Param
    };
    if tag.self_closing {
        s.ctx = Ctx::Func;
        value::close(out, s.value);
    }
    Act::skip(tag.len)
}

fn finish_function(cfg: &Settings<'_>, out: &mut Emitter<'_>, s: &mut State, next: Ctx) {
    out.finish_call(cfg, s.params > 0);
    s.ctx = next;
}
