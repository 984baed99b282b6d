//! `gemma-4` (Google Gemma 4) and `functiongemma` (Google FunctionGemma): one call per pair
//! of special tokens, its arguments in Gemma's own object syntax,
//!
//! ```text
//! <|tool_call>call:NAME{key:<|"|>text<|"|>,n:42,flag:true,o:{a:<|"|>x<|"|>},arr:[1,<|"|>s<|"|>]}<tool_call|>
//! <start_function_call>call:NAME{key:<escape>text<escape>,n:1}<end_function_call>
//! ```
//!
//! Keys are bare, strings sit between two string-delimiter tokens (`<|"|>`, `<escape>`) and
//! hold raw text (no escapes), other values are JSON literals, objects and arrays in the same
//! syntax. Gemma 4 thinks in `<|channel>thought\n…<channel|>`; FunctionGemma fine-tunes
//! write `<think>…</think>`. The decisions (docs/design.md, "gemma-4 and functiongemma"):
//!
//! - **Markers are special tokens**: the call opener opens a call wherever it stands outside
//!   thinking — and inside thinking too, which it then ends (docs/design.md, "Thinking that
//!   yields to tool calls"); the call closer ends the call wherever it stands, also inside a
//!   string. A closer with no opener, and a string delimiter outside a call, are text.
//! - **Header.** `call:NAME` up to the body's `{`: whitespace around it and the `call:`
//!   prefix are dropped (a header without the prefix is taken whole as the name); an empty
//!   name fails the call as `missing-name`, one longer than 127 bytes as `too-large`. The
//!   name and id (`{id_prefix}{n}`) stream at the `{`.
//! - **Body.** The relaxed-JSON lexer reads the structure (bare keys, bare `true`/`false`/
//!   `null`, numbers as written, nesting, trailing commas; a bare word that is none of these
//!   is a string, as vLLM reads it) and the writer renders strict compact JSON as it
//!   streams. A string delimiter where a key or value may start opens a string (a key in key
//!   position): its text streams JSON-escaped, byte for byte as written, up to the next
//!   delimiter. A delimiter anywhere else (inside a bare word, a `"…"` string) fails the call
//!   as `malformed-body`, as does any other syntax error, or a closer before the body's `}`.
//! - **After the body** whitespace is dropped and the closer completes the call; other text
//!   fails it as `unexpected-content` (skipped to its closer). The next call opener instead
//!   of a closer completes the call too (the closer is missing); a call opener inside an
//!   unfinished call cuts it off (`unfinished`). A failed call's raw text runs from its
//!   opener to its closer (included) or to what cut it off, and comes back as a top-level
//!   text block with `on_malformed = "text"`.
//! - **End of input**: a call whose body's `}` was read completes, also with a cut closer
//!   (`…}<tool_ca`: wire syntax, dropped); otherwise it fails as `unfinished`.
//! - **Thinking** (`gemma-4`): the `thought` channel label right after `<|channel>` and one
//!   line feed after it are wire syntax. A thinking closer first in the output, with no
//!   opener, or the first one after a call that ended thinking, is dropped.
//! - **Results** the model writes (`<|tool_response>…<tool_response|>`,
//!   `<start_function_response>…<end_function_response>`) are a tool_result block at
//!   depth 1 whose content is the text between the markers as written
//!   (`response:NAME{value:<|"|>…<|"|>}`): not decoded.

use crate::config::Config;
use crate::config::Settings;
use crate::emit::{Act, Emitter, STR_CAP, content_act};
use crate::event::{BlockType, ErrorReason, Part};
use crate::json::relaxed::{Lex, Lexer, Token, Writer};
use crate::scan::{Decision, Vocab};
use crate::spec::Dialect;

use super::json_body::{self, BodyEnd, piece_act};
use super::value::{leading_ws, trim};
use super::{Cut, Machine};

/// One family's special tokens.
struct Markers {
    call_open: &'static [u8],
    call_close: &'static [u8],
    quote: &'static [u8],
    result_open: &'static [u8],
    result_close: &'static [u8],
}

const GEMMA4: Markers = Markers {
    call_open: b"<|tool_call>",
    call_close: b"<tool_call|>",
    quote: b"<|\"|>",
    result_open: b"<|tool_response>",
    result_close: b"<tool_response|>",
};

const FUNCTIONGEMMA: Markers = Markers {
    call_open: b"<start_function_call>",
    call_close: b"<end_function_call>",
    quote: b"<escape>",
    result_open: b"<start_function_response>",
    result_close: b"<end_function_response>",
};

/// Gemma 4's thinking opener, after which its channel label comes.
const CHANNEL_OPEN: &str = "<|channel>";
const LABEL: &[u8] = b"thought";
const CALL_PREFIX: &[u8] = b"call:";

/// Literal indices in text.
const LIT_THINK: usize = 0;
const LIT_CALL: usize = 1;
const LIT_RESULT: usize = 2;
/// Literal indices in thinking.
const THINK_CLOSE: usize = 0;
const THINK_CALL: usize = 1;
/// Literal indices inside a call.
const CALL_CLOSE: usize = 0;
const QUOTE: usize = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    Text,
    /// Right after `<|channel>`: the channel label.
    Label,
    /// After the label: one line feed.
    LabelNl,
    Thinking,
    /// A call's header, up to its `{`.
    Head,
    /// The body, read by the lexer.
    Body,
    /// A delimited string (or key) of the body.
    Str,
    /// After the body's `}`: the closer.
    After,
    /// A failed call, skipped to its closer.
    Skip,
    /// A tool result's content.
    Result,
}

/// The `gemma-4` / `functiongemma` state.
#[derive(Clone, Copy, Debug)]
pub(crate) struct State {
    ctx: Ctx,
    /// `functiongemma`'s markers (else `gemma-4`'s).
    function_gemma: bool,
    /// The body's first token was read.
    started: bool,
    /// Nothing decided yet: a thinking closer here has no opener and is dropped.
    fresh: bool,
    /// A call ended the thinking it was opened in: the thinking closer may follow (dropped).
    yielded: bool,
    reason: ErrorReason,
    lexer: Lexer,
    writer: Writer,
}

impl State {
    fn markers(&self) -> &'static Markers {
        if self.function_gemma {
            &FUNCTIONGEMMA
        } else {
            &GEMMA4
        }
    }
}

impl Machine for State {
    const CALL_DEPTH: u8 = 0;

    fn new(cfg: &Config<'_>) -> State {
        State {
            ctx: cfg.start_in.pick(Ctx::Text, Ctx::Thinking),
            function_gemma: cfg.machine() == Dialect::FunctionGemma,
            started: false,
            fresh: true,
            yielded: false,
            reason: ErrorReason::MalformedBody,
            lexer: Lexer::new(),
            writer: Writer::new(),
        }
    }

    fn vocab_key(&self) -> u32 {
        self.ctx as u32 | ((self.fresh | self.yielded) as u32) << 8
    }

    fn vocab<'m>(&self, cfg: &'m Settings<'_>, _out: &'m Emitter<'_>) -> Vocab<'m> {
        let m = self.markers();
        let (open, close) = cfg.thinking_tags();
        let call = Vocab::EMPTY
            .with_literal(m.call_close)
            .with_literal(m.call_open);
        match self.ctx {
            Ctx::Text => {
                let v = Vocab {
                    stops: cfg.stops(),
                    ..Vocab::EMPTY
                }
                .with_literal(open.as_bytes())
                .with_literal(m.call_open)
                .with_literal(m.result_open);
                if self.fresh || self.yielded {
                    v.with_literal(close.as_bytes())
                } else {
                    v
                }
            }
            Ctx::Thinking => Vocab::EMPTY
                .with_literal(close.as_bytes())
                .with_literal(m.call_open)
                .with_literal(open.as_bytes()),
            Ctx::Label => Vocab::EMPTY
                .with_literal(close.as_bytes())
                .with_literal(m.call_open)
                .with_literal(LABEL),
            Ctx::LabelNl => Vocab::EMPTY
                .with_literal(close.as_bytes())
                .with_literal(m.call_open),
            Ctx::Body | Ctx::Str => call.with_literal(m.quote),
            Ctx::Head | Ctx::After | Ctx::Skip => call,
            Ctx::Result => Vocab::EMPTY.with_literal(m.result_close),
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
        let in_call = matches!(self.ctx, Ctx::Head | Ctx::Body | Ctx::Str | Ctx::After);
        if in_call && out.call_too_large() {
            self.fail(out, ErrorReason::TooLarge);
            return Act::WAIT;
        }
        match d {
            Decision::Literal { index, len } => self.literal(cfg, out, index, len, window),
            Decision::Text(n) | Decision::Invalid(n) => self.text(cfg, out, d, window, n),
            Decision::NeedMore | Decision::Stop { .. } | Decision::Element(_) => Act::WAIT,
        }
    }

    fn end_of_input(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) {
        match self.ctx {
            Ctx::Head | Ctx::Body | Ctx::Str => {
                self.fail(out, ErrorReason::Unfinished);
                out.fail_call(self.reason, false);
            }
            Ctx::After => out.complete_call(cfg),
            Ctx::Skip => out.fail_call(self.reason, false),
            Ctx::Result => out.complete_tool(cfg, None, false),
            Ctx::Text | Ctx::Label | Ctx::LabelNl | Ctx::Thinking => {}
        }
        self.ctx = Ctx::Text;
    }

    fn cut_closer(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>, _cut: &[u8]) -> Cut {
        if self.ctx != Ctx::After {
            return Cut::No;
        }
        // `…}<tool_ca`: the call is complete, the cut closer is wire syntax.
        out.complete_call(cfg);
        self.ctx = Ctx::Text;
        Cut::Done
    }

    fn plain_block(&self) -> Option<(BlockType, u8)> {
        match self.ctx {
            Ctx::Text => Some((BlockType::Text, 0)),
            Ctx::Thinking => Some((BlockType::Thinking, 0)),
            Ctx::Result => Some((BlockType::ToolResult, 1)),
            _ => None,
        }
    }
}

impl State {
    fn literal(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        index: usize,
        len: usize,
        window: &[u8],
    ) -> Act {
        match (self.ctx, index) {
            (Ctx::Text, LIT_THINK) => {
                out.close_content();
                let labelled = !self.function_gemma && cfg.thinking_tags().0 == CHANNEL_OPEN;
                self.ctx = if labelled { Ctx::Label } else { Ctx::Thinking };
            }
            (Ctx::Text, LIT_CALL) => {
                out.close_content();
                out.open_call(1);
                self.started = false;
                self.ctx = Ctx::Head;
            }
            (Ctx::Text, LIT_RESULT) => {
                out.close_content();
                out.start_block(BlockType::ToolResult, 1);
                out.clear_tool_strs();
                self.ctx = Ctx::Result;
            }
            // A thinking closer with no opener (first in the output, or after a call that
            // ended the thinking): wire syntax.
            (Ctx::Text, _) => self.yielded = false,
            (Ctx::Label, 2) => self.ctx = Ctx::LabelNl,
            // Markers right after the opener: decided again in thinking.
            (Ctx::Label | Ctx::LabelNl, _) => {
                self.ctx = Ctx::Thinking;
                return Act::WAIT;
            }
            (Ctx::Thinking, THINK_CLOSE) => {
                out.close_content();
                self.ctx = Ctx::Text;
            }
            (Ctx::Thinking, THINK_CALL) => {
                // A call opener ends the thinking; the text context opens the call.
                out.close_content();
                self.ctx = Ctx::Text;
                self.yielded = true;
                return Act::WAIT;
            }
            (Ctx::Thinking, _) => {
                return super::thinking_marker(out, false, &window[..len]).unwrap_or(Act::WAIT);
            }
            (Ctx::Result, _) => {
                out.complete_tool(cfg, None, false);
                self.ctx = Ctx::Text;
            }
            (Ctx::Body | Ctx::Str, QUOTE) => return self.quote(out, len, window),
            (Ctx::Skip, CALL_CLOSE) => {
                self.ctx = Ctx::Text;
                return out.close_skipped(self.reason, len, true);
            }
            (Ctx::Skip, _) => {
                self.ctx = Ctx::Text;
                return out.close_skipped(self.reason, 0, false);
            }
            (Ctx::After, CALL_CLOSE) => {
                out.complete_call(cfg);
                self.ctx = Ctx::Text;
            }
            (Ctx::After, _) => {
                // The next call's opener: this call's closer is missing.
                out.complete_call(cfg);
                self.ctx = Ctx::Text;
                return Act::WAIT;
            }
            (_, CALL_CLOSE) => {
                let reason = if self.ctx == Ctx::Head && out.name_len == 0 {
                    ErrorReason::MissingName
                } else {
                    ErrorReason::MalformedBody
                };
                self.fail(out, reason);
                self.ctx = Ctx::Text;
                out.fail_call(reason, true);
            }
            _ => {
                // Another call's opener cuts this one off.
                self.fail(out, ErrorReason::Unfinished);
                self.ctx = Ctx::Text;
                out.fail_call(ErrorReason::Unfinished, false);
                return Act::WAIT;
            }
        }
        Act::skip(len)
    }

    fn text(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        d: Decision,
        window: &[u8],
        n: usize,
    ) -> Act {
        match self.ctx {
            Ctx::Text => out.content(BlockType::Text, 0, d),
            Ctx::Thinking => out.content(BlockType::Thinking, 0, d),
            Ctx::Result => content_act(out.meta(None), d),
            Ctx::Label => {
                self.ctx = Ctx::Thinking;
                Act::WAIT
            }
            Ctx::LabelNl => {
                self.ctx = Ctx::Thinking;
                if matches!(d, Decision::Text(_)) && window[0] == b'\n' {
                    Act::skip(1)
                } else {
                    Act::WAIT
                }
            }
            Ctx::Head => self.head(cfg, out, d, window, n),
            Ctx::Body => {
                let (act, end) = json_body::object_step(
                    out,
                    &mut self.lexer,
                    &mut self.writer,
                    &mut self.started,
                    window,
                    n,
                );
                match end {
                    BodyEnd::Open => {}
                    BodyEnd::Closed => self.ctx = Ctx::After,
                    BodyEnd::Failed(reason) => self.fail(out, reason),
                }
                act
            }
            Ctx::Str => match d {
                Decision::Text(_) => {
                    let meta = out.meta(Some(Part::Input));
                    out.escaped_act(meta, &window[..n])
                }
                _ => content_act(out.meta(Some(Part::Input)), d),
            },
            Ctx::After => {
                let ws = leading_ws(d, window);
                if ws > 0 {
                    return Act::skip(ws);
                }
                self.fail(out, ErrorReason::UnexpectedContent);
                Act::WAIT
            }
            Ctx::Skip => out.skip(d, self.reason),
        }
    }

    /// The header, kept in the name slot up to the body's `{`.
    fn head(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        d: Decision,
        window: &[u8],
        n: usize,
    ) -> Act {
        let bytes: &[u8] = match d {
            Decision::Text(_) => &window[..n],
            _ => "\u{FFFD}".as_bytes(),
        };
        let take = match d {
            Decision::Text(_) => bytes.iter().position(|&b| b == b'{').unwrap_or(n),
            _ => bytes.len(),
        };
        if take > 0 {
            let ws = leading_ws(d, window).min(take);
            if out.name_len == 0 && ws > 0 {
                return Act::skip(ws);
            }
            let fit = out.append_name(&bytes[..take]);
            if fit < take {
                self.fail(out, ErrorReason::TooLarge);
                return match d {
                    Decision::Text(_) => Act::skip(fit),
                    _ => Act::WAIT,
                };
            }
            return Act::skip(if matches!(d, Decision::Text(_)) {
                take
            } else {
                n
            });
        }
        // The body's `{`: the header names the call.
        let mut buf = [0u8; STR_CAP];
        let held = out.strs.bytes().get(..out.name_len as usize).unwrap_or(&[]);
        let len = held.len().min(STR_CAP);
        buf[..len].copy_from_slice(&held[..len]);
        let (a, b) = trim(&buf[..len]);
        let header = &buf[a..b];
        let name = header.strip_prefix(CALL_PREFIX).unwrap_or(header);
        let (a, b) = trim(name);
        let name = &name[a..b];
        if name.is_empty() {
            self.fail(out, ErrorReason::MissingName);
            return Act::WAIT;
        }
        out.announce_call(cfg, name);
        self.lexer = Lexer::new();
        self.writer = Writer::new();
        self.started = false;
        self.ctx = Ctx::Body;
        Act::WAIT
    }

    /// A string delimiter in the body (`len` bytes): opens a string or key where one may
    /// start, closes the open one; anywhere else the call fails.
    fn quote(&mut self, out: &mut Emitter<'_>, len: usize, window: &[u8]) -> Act {
        let opening = self.ctx == Ctx::Body;
        if opening && self.lexer.in_quotes() {
            self.fail(out, ErrorReason::MalformedBody);
            return Act::WAIT;
        }
        let mut probe = self.lexer;
        let mut q: &[u8] = b"\"";
        let t = match probe.next(&mut q) {
            Lex::Token(t) => t,
            _ => {
                self.fail(out, ErrorReason::MalformedBody);
                return Act::WAIT;
            }
        };
        let fits = if opening {
            matches!(t, Token::StringStart | Token::KeyStart)
        } else {
            matches!(t, Token::StringEnd | Token::KeyEnd)
        };
        if !fits {
            self.fail(out, ErrorReason::MalformedBody);
            return Act::WAIT;
        }
        self.lexer = probe;
        self.ctx = if opening { Ctx::Str } else { Ctx::Body };
        let meta = out.meta(Some(Part::Input));
        match self.writer.render(t) {
            Some(p) => piece_act(out, meta, p, window, len),
            None => Act::skip(len),
        }
    }

    /// The open call fails: it is skipped to its closer (or what cuts it off).
    fn fail(&mut self, out: &mut Emitter<'_>, reason: ErrorReason) {
        if self.ctx == Ctx::Head {
            // The header held in the name slot never named the call.
            out.name_len = 0;
        }
        if out.id_len == 0 {
            // Failed calls are counted too, also when they never got an id.
            out.calls += 1;
        }
        self.reason = reason;
        self.ctx = Ctx::Skip;
    }
}
