//! `anthropic-xml`: `<thinking>`, `<function_calls>` holding `<invoke name=…>` holding
//! `<parameter name=…>`, and `<function_results>` holding `<result>`. Every tag may carry
//! the `antml:` prefix; `invoke`/`parameter` are structural only inside a region.
//!
//! Parameter values: a schema-typed `string` streams per token (minus one framing newline at
//! each end); every other value is held until `</parameter>`, then typed — by the schema
//! when it declares a type, else as JSON when the trimmed value is valid JSON (except runs of
//! 16+ digits), else as a string. A value that is only CDATA is its payload, verbatim.
//! The `<function_calls>` region is the machinery shared with minimax-m2 ([`super::invoke`]).
//!
//! A closer cut off by the end of input (`max_tokens`): a cut `</parameter>` after a value
//! ends the value as the whole closer would, and a cut marker inside an invoke (or a result)
//! after its complete children completes it, and one between the elements of a region ends
//! the region; the cut bytes are wire syntax, dropped. A cut CDATA opener leaves the value open
//! (the call fails as unfinished), a failed invoke keeps the bytes in its raw text, and a cut
//! closer in thinking or in `<stdout>`/`<error>` stays content.

use crate::config::Config;
use crate::config::Settings;
use crate::emit::{Act, BufId, Emitter, Spool, SpoolMode, content_act};
use crate::event::BlockType;
use crate::scan::tag::attr;
use crate::scan::{Decision, EXTRA, Tag, Vocab};
use crate::spec::StrList;

use super::invoke::{self, Open, Region, Spelling, Syntax};
use super::value::{leading_ws, trim};
use super::{Cut, Machine};

const NAMES: StrList<'static> = StrList::Strs(&[
    "function_calls",
    "function_results",
    "invoke",
    "parameter",
    "result",
    "tool_name",
    "stdout",
    "error",
]);
/// The namespace prefix anthropic-xml element names may carry.
const PREFIX: StrList<'static> = StrList::Strs(&["antml:"]);
const FC: u8 = 0;
const FR: u8 = 1;
const INVOKE: u8 = 2;
const PARAM: u8 = 3;
const RESULT: u8 = 4;
const TOOL_NAME: u8 = 5;
const STDOUT: u8 = 6;
const ERROR: u8 = 7;
const THINK: u8 = EXTRA;

/// The `<function_calls>` region: `<invoke>`/`<parameter>` with the `antml:` prefix and CDATA.
const SYNTAX: Syntax = Syntax {
    spelling: |_| Spelling {
        names: NAMES,
        prefixes: PREFIX,
        prefix_required: false,
        string_attr: None,
        cdata: true,
        kind: invoke::RegionKind::Element,
        region_markers: None,
        inner_markup: None,
    },
    region: FC,
    invoke: INVOKE,
    param: PARAM,
};

const fn bit(e: u8) -> u32 {
    1 << e
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    Text,
    Thinking,
    /// Inside `<function_calls>` (where: [`State::calls`]).
    Calls,
    /// Inside `<function_results>`.
    Results,
    /// Inside `<result>`.
    Result,
    /// Inside `<tool_name>`.
    ResultName,
    /// Inside `<stdout>` or `<error>`.
    ResultBody,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct State {
    ctx: Ctx,
    /// The thinking markers are an element (`<name>`), matched with attributes and prefix.
    thinking_element: bool,
    /// The current result reports an error.
    is_error: bool,
    /// Stray text directly inside `<result>` has begun (its whitespace is content now).
    stray: bool,
    /// The `<function_calls>` region (meaningful in `Ctx::Calls`).
    calls: Region,
}

impl Machine for State {
    const CALL_DEPTH: u8 = 1;

    fn new(cfg: &Config<'_>) -> State {
        let (open, close) = cfg.thinking_tags();
        State {
            ctx: cfg.start_in.pick(Ctx::Text, Ctx::Thinking),
            thinking_element: crate::spec::element_name(open, close).is_some(),
            is_error: false,
            stray: false,
            calls: Region::new(),
        }
    }

    fn vocab_key(&self) -> u32 {
        self.ctx as u32
            | (self.calls.at as u32) << 4
            | (self.thinking_element as u32) << 8
            | (self.is_error as u32) << 9
    }

    fn vocab<'m>(&self, cfg: &'m Settings<'_>, _out: &'m Emitter<'_>) -> Vocab<'m> {
        // A plain fn, not a closure: rustc 1.95 ICEs on a closure doing struct update over
        // `Vocab`'s const-sized arrays.
        fn elements(open: u32, close: u32) -> Vocab<'static> {
            Vocab {
                names: NAMES,
                attrs: true,
                prefixes: PREFIX,
                open,
                close,
                ..Vocab::EMPTY
            }
        }
        match self.ctx {
            Ctx::Text | Ctx::Thinking => {
                let (open, close) = cfg.thinking_tags();
                let thinking = self.ctx == Ctx::Thinking;
                let mut v = if thinking {
                    Vocab::EMPTY
                } else {
                    Vocab {
                        stops: cfg.stops(),
                        ..elements(bit(FC) | bit(FR), 0)
                    }
                };
                if self.thinking_element {
                    v.names = NAMES;
                    v.attrs = true;
                    v.prefixes = PREFIX;
                    // `<name>`: checked by `element_name` when the state was made.
                    v.extra = open.as_bytes().get(1..open.len() - 1).unwrap_or(&[]);
                    if thinking {
                        v.close = bit(THINK);
                    } else {
                        v.open |= bit(THINK);
                    }
                    // Other spellings are literals here (the scanner's aliases need a
                    // literal to spell otherwise): `on_literal` reads any literal as the
                    // thinking marker.
                    if cfg.has_thinking_alternates() {
                        for m in cfg
                            .thinking_alternates()
                            .iter()
                            .skip(thinking as usize)
                            .step_by(2)
                        {
                            v.add_literal(m.as_bytes());
                        }
                    }
                    v
                } else if thinking {
                    v.with_literal(close.as_bytes())
                } else {
                    v.with_literal(open.as_bytes())
                }
            }
            Ctx::Calls => self.calls.vocab(&SYNTAX, cfg),
            Ctx::Results => elements(bit(RESULT), bit(FR)),
            Ctx::Result => elements(
                bit(TOOL_NAME) | bit(STDOUT) | bit(ERROR),
                bit(RESULT) | bit(FR),
            ),
            Ctx::ResultName => elements(0, bit(TOOL_NAME)),
            Ctx::ResultBody => elements(0, bit(if self.is_error { ERROR } else { STDOUT })),
        }
    }

    fn act(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        d: Decision,
        window: &[u8],
    ) -> Act {
        if out.call_too_large() && !(self.ctx == Ctx::Calls && self.calls.at == invoke::At::Skip) {
            // The call outgrew max_call_bytes: it fails here; the rest is skipped to its closer.
            self.ctx = Ctx::Calls;
            self.calls.too_large();
            return Act::WAIT;
        }
        if matches!(d, Decision::Element(_)) {
            self.stray = false;
        }
        if self.ctx == Ctx::Calls {
            let (act, open) = self.calls.act(&SYNTAX, cfg, out, d, window);
            if open == Open::No {
                self.ctx = Ctx::Text;
            }
            return act;
        }
        match d {
            Decision::Element(tag) => on_tag(cfg, out, self, tag, &window[..tag.len]),
            Decision::Literal { len, .. } => on_literal(out, self, len),
            Decision::Text(_) | Decision::Invalid(_) => on_text(out, self, d, window),
            Decision::NeedMore | Decision::Stop { .. } => Act::WAIT,
        }
    }

    fn end_of_input(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) {
        match self.ctx {
            Ctx::Calls => self.calls.end_of_input(cfg, out),
            Ctx::ResultName => {
                set_result_name(out);
                out.complete_tool(cfg, None, self.is_error);
            }
            Ctx::Result | Ctx::ResultBody => out.complete_tool(cfg, None, self.is_error),
            Ctx::Text | Ctx::Thinking | Ctx::Results => {}
        }
        self.ctx = Ctx::Text;
    }

    fn plain_block(&self) -> Option<(BlockType, u8)> {
        match self.ctx {
            Ctx::Text => Some((BlockType::Text, 0)),
            Ctx::Thinking => Some((BlockType::Thinking, 0)),
            Ctx::ResultBody => Some((BlockType::ToolResult, 1)),
            _ => None,
        }
    }

    /// A cut `</parameter>` ends the value (typed as at the whole closer); a cut marker
    /// inside an invoke or a result after its complete children completes it. The bytes are
    /// then wire syntax, dropped, as a cut marker between a region's elements is. A cut CDATA opener leaves the value open (it fails as unfinished).
    fn cut_closer(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>, cut: &[u8]) -> Cut {
        match self.ctx {
            Ctx::Calls => self
                .calls
                .cut_closer(&SYNTAX, cfg, out, cut)
                .unwrap_or(Cut::No),
            Ctx::Results | Ctx::Result | Ctx::ResultName => {
                self.end_of_input(cfg, out);
                Cut::Done
            }
            _ => Cut::No,
        }
    }
}

fn on_text(out: &mut Emitter<'_>, s: &mut State, d: Decision, window: &[u8]) -> Act {
    let n = match d {
        Decision::Text(n) => n,
        Decision::Invalid(n) => n,
        _ => return Act::WAIT,
    };
    let is_text = matches!(d, Decision::Text(_));
    let ws = leading_ws(d, window);
    match s.ctx {
        Ctx::Text => out.content(BlockType::Text, 0, d),
        Ctx::Thinking => out.content(BlockType::Thinking, 0, d),
        // Whitespace between elements is wire formatting; stray text is a depth-1 block.
        Ctx::Calls | Ctx::Results => invoke::stray_text(out, d, window),
        Ctx::Result => {
            if ws > 0 && !s.stray {
                Act::skip(ws)
            } else {
                s.stray = true;
                content_act(out.meta(None), d)
            }
        }
        Ctx::ResultBody => content_act(out.meta(None), d),
        Ctx::ResultName => {
            let bytes: &[u8] = if is_text {
                &window[..n]
            } else {
                "\u{FFFD}".as_bytes()
            };
            out.value.push(bytes);
            Act::skip(n)
        }
    }
}

fn on_literal(out: &mut Emitter<'_>, s: &mut State, len: usize) -> Act {
    match s.ctx {
        Ctx::Text => {
            out.close_content();
            s.ctx = Ctx::Thinking;
        }
        Ctx::Thinking => {
            out.close_content();
            s.ctx = Ctx::Text;
        }
        _ => {}
    }
    Act::skip(len)
}

fn on_tag(cfg: &Settings<'_>, out: &mut Emitter<'_>, s: &mut State, tag: Tag, bytes: &[u8]) -> Act {
    let len = tag.len;
    let opening = !tag.closing;
    match (s.ctx, tag.element, opening) {
        (Ctx::Text, THINK, true) => {
            out.close_content();
            if !tag.self_closing {
                s.ctx = Ctx::Thinking;
            }
        }
        (Ctx::Thinking, THINK, false) => {
            out.close_content();
            s.ctx = Ctx::Text;
        }
        (Ctx::Text, FC, true) => {
            out.close_content();
            if !tag.self_closing {
                s.ctx = Ctx::Calls;
                s.calls = Region::new();
            }
        }
        (Ctx::Text, FR, true) => {
            out.close_content();
            if !tag.self_closing {
                s.ctx = Ctx::Results;
            }
        }
        (Ctx::Results, FR, false) => {
            out.close_content();
            s.ctx = Ctx::Text;
        }
        (Ctx::Results, RESULT, true) => {
            out.close_content();
            out.start_block(BlockType::ToolResult, 1);
            out.clear_tool_strs();
            if let Some(id) = attr(bytes, tag.name_end, b"tool_use_id").filter(|i| !i.is_empty()) {
                out.set_id(id);
            }
            s.is_error = false;
            if tag.self_closing {
                out.complete_tool(cfg, None, false);
            } else {
                s.ctx = Ctx::Result;
            }
        }
        (Ctx::Result, TOOL_NAME, true) => {
            out.value.clear();
            if !tag.self_closing {
                s.ctx = Ctx::ResultName;
            }
        }
        (Ctx::Result, STDOUT | ERROR, true) => {
            s.is_error |= tag.element == ERROR;
            if !tag.self_closing {
                s.ctx = Ctx::ResultBody;
            }
        }
        (Ctx::Result, RESULT, false) => {
            out.complete_tool(cfg, None, s.is_error);
            s.ctx = Ctx::Results;
        }
        (Ctx::Result, FR, false) => {
            out.complete_tool(cfg, None, s.is_error);
            s.ctx = Ctx::Text;
        }
        (Ctx::ResultName, TOOL_NAME, false) => {
            set_result_name(out);
            s.ctx = Ctx::Result;
        }
        (Ctx::ResultBody, STDOUT | ERROR, false) => s.ctx = Ctx::Result,
        // The vocabulary admits no other tag in each context.
        _ => {}
    }
    Act::skip(len)
}

fn set_result_name(out: &mut Emitter<'_>) {
    let mut name = [0u8; crate::emit::STR_CAP];
    let value = out.value.bytes();
    let (a, b) = trim(value);
    if b - a >= crate::emit::STR_CAP {
        // A name longer than the name slot (127 bytes) is not cut silently: the result has
        // no tool_name, and the element comes through verbatim as the start of its content
        // (the value stays in `value` until the queued chunk is handed out).
        // The value buffer may have filled up inside a character: hand out whole ones only.
        let b = match core::str::from_utf8(&value[a..b]) {
            Ok(_) => b,
            Err(e) => a + e.valid_up_to(),
        };
        out.queue_chunk(None, Spool::Static("<tool_name>"));
        out.queue_chunk(
            None,
            Spool::buf(BufId::Value, SpoolMode::Plain, a as u32, b as u32),
        );
        out.queue_chunk(None, Spool::Static("</tool_name>"));
        return;
    }
    name[..b - a].copy_from_slice(&value[a..b]);
    out.set_name(&name[..b - a]);
}
