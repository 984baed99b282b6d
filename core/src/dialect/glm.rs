//! `glm-4.5` (GLM 4.5, 4.6, 4.7): `<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>…
//! </tool_call>`, one call per `<tool_call>` (4.5/4.6 put the name, each key and each value on
//! lines of their own; 4.7 writes no newlines); thinking `<think>…</think>`.
//!
//! - `<tool_call>` opens a call (a tool_call block at depth 1) only when a name follows it:
//!   optional spaces or tabs, a name (bytes other than ASCII whitespace, `<` and `>`), then
//!   optional whitespace and `<arg_key>` or `</tool_call>`. Otherwise the marker is text, so
//!   prose that mentions it (`the <tool_call> tag`, `<tool_call>foo is…`) never swallows the
//!   stream, as with hermes and qwen3-coder (a look-ahead literal:
//!   [`Vocab::with_literal_when`]; it must be decided within 128 bytes of the marker). At the
//!   end of input a name that reaches the end, or is followed by the start of `<arg_key>` or
//!   `</tool_call>`, opens the call too (the model was cut off inside it).
//! - The name is the text before the first tag, trimmed of ASCII whitespace. Between the
//!   elements of a call whitespace is wire formatting (indented lines, `</arg_key>` directly
//!   followed by `<arg_value>`, CRLF). `<tool_call>NAME</tool_call>` is a call with input `{}`.
//! - `<arg_key>K</arg_key>` is a key (trimmed; an empty one fails the call as
//!   `malformed-parameter`); the next element must be its `<arg_value>`. A value ends at the
//!   first `</arg_value>` (nothing else is markup inside it: `</tool_call>` in a value is
//!   content, no entity decoding, no CDATA) and is typed like a qwen3-coder parameter
//!   ([`super::value`]): a schema `string` streams per token minus one framing newline at each
//!   end; other values are trimmed and typed at the closer; undeclared ones get the untyped
//!   guess (GLM writes non-string arguments as JSON, which the guess reads back).
//! - Failures (docs/design.md rule 10): stray text between a call's elements
//!   (`unexpected-content`), a key without a value or an empty key (`malformed-parameter`), a
//!   key or value open at the end of input (`unfinished`), a call over `max_call_bytes`
//!   (`too-large`). The call is skipped to `</tool_call>`, its raw text runs from
//!   `<tool_call>` through `</tool_call>` and is re-emitted as a top-level text block with
//!   `on_malformed = "text"`.
//! - End of input: a call whose last value closed completes normally, and so does a call
//!   whose name line ended (a newline or a tag after the name); a partial `</tool_call>` there
//!   (`…</arg_value></tool_`, `…</arg_value><`, `<tool_call>NAME</tool_`) is a closer cut off by
//!   the token limit: the call completes and the partial closer is dropped as wire syntax. A
//!   name still being read at the end fails the call as `unfinished`.
//! - Text between calls is top-level text; stop sequences apply there only.
//!
//! This is the key-value shape's machine ([`crate::Shape::KeyValue`]): the call tags, the
//! key and value element names, the optional separator element and the markup pairs come
//! from the description in force (glm-4.5's, hunyuan's, or a host's), read per vocabulary.
//! With a separator (HY3's `<tool_sep>`), the separator may follow the name, once, before
//! the first key (`NAME<tool_sep>` also counts as a name that follows the opener). Markup
//! pairs (HY3's `<tool_calls>` region and `<answer>` wrapper) are dropped in text; the
//! first pair's opener inside thinking yields to the calls like the call opener.

use crate::config::Settings;
use crate::config::{Config, ValueType};
use crate::emit::{Act, Emitter, STR_CAP};
use crate::event::{BlockType, ErrorReason};
use crate::scan::tag::{self, TagLex};
use crate::scan::{Decision, Tag, Vocab};
use crate::spec::{self, StrList};

use super::value::{self, Value, leading_ws, trim, ws_prefix};
use super::{Cut, Machine};

/// Element indices in the description's `elements` (`[key, value, separator?]`); the call
/// element is the vocabulary's configured extra name.
const KEY: u8 = 0;
const VALUE: u8 = 1;
const SEP: u8 = 2;
const CALL: u8 = crate::scan::EXTRA;

const fn bit(e: u8) -> u32 {
    1 << e
}

/// Literal indices in the text context (the markup markers follow the call opener, then
/// the stray thinking closer).
const LIT_THINK: usize = 0;
const LIT_CALL: usize = 1;
const LIT_MARKUP: usize = 2;
/// Literal indices in the thinking context's vocabulary (the closer is 0).
const THINK_CALL: usize = 1;
const THINK_REOPEN: usize = 2;
/// The first markup pair's opener (HY3's `<tool_calls>`): yields like the call opener.
const THINK_REGION: usize = 3;

/// The markers in force: the call opener (`<tool_call>`), the call element's name, and the
/// `[key, value, separator?]` element names.
#[derive(Clone, Copy)]
struct Markers<'m> {
    open: &'m [u8],
    /// The call closer (`</tool_call>`).
    close: &'m [u8],
    call: &'m [u8],
    names: StrList<'m>,
}

impl<'m> Markers<'m> {
    /// The markers in force, read by reference (no description copied per decision).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn of(cfg: &'m Settings<'_>) -> Markers<'m> {
        let (wrapper, names) =
            cfg.with_description_outlined(spec::preset_key_value, |d| (d.wrapper, d.elements));
        let close = wrapper.1.as_bytes();
        Markers {
            open: wrapper.0.as_bytes(),
            close,
            call: call_element(close),
            names,
        }
    }

    /// The separator's bit, when the description has one.
    fn sep(&self) -> u32 {
        if self.names.len() > SEP as usize {
            bit(SEP)
        } else {
            0
        }
    }

    /// The vocabulary of the call's elements: `open` may open, `close` may close.
    fn elements(&self, open: u32, close: u32) -> Vocab<'m> {
        Vocab {
            names: self.names,
            extra: self.call,
            open,
            close,
            ..Vocab::EMPTY
        }
    }
}

/// The call element's name in its closer (a validated closer is `</name>`).
#[inline(always)]
fn call_element(close: &[u8]) -> &[u8] {
    close.get(2..close.len().saturating_sub(1)).unwrap_or(b"")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    Text,
    Thinking,
    /// After `<tool_call>`: the name, held in the value buffer until its first tag.
    Name,
    /// Between the elements of a call.
    Call,
    /// Inside `<arg_key>`: the key, held in the value buffer.
    Key,
    /// After `</arg_key>`, before its `<arg_value>`.
    AfterKey,
    /// Inside `<arg_value>`.
    Value,
    /// A failed call, skipped to `</tool_call>`.
    Skip,
}

/// `repr(C)`: the context and the three flags the vocabulary depends on are the first four
/// bytes, which [`Machine::vocab_key`] reads as one word (asked twice per act).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct State {
    ctx: Ctx,
    /// Nothing decided yet: a thinking closer here has no opener and is dropped.
    fresh: bool,
    /// A tool call ended the thinking it was opened in: the thinking closer the model may
    /// still write is wire syntax too (dropped once).
    yielded: bool,
    /// Right after a complete call (whitespace may follow): a repeated `</tool_call>` and a
    /// marker cut off by the end of input are wire syntax (docs/design.md "Lenient recovery").
    after_call: bool,
    /// Arguments read in the current call.
    params: u16,
    /// The configured tool of the current call.
    tool: Option<u16>,
    /// Why the current call failed (in `Skip`).
    reason: ErrorReason,
    value: Value,
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The look-ahead after `<tool_call>` (module docs): a name, then `<arg_key>`, the separator
/// or `</tool_call>` after optional whitespace. `v` carries the element names (the text and
/// thinking vocabularies hold them with no element open).
fn name_follows(rest: &[u8], v: &Vocab<'_>, eof: bool) -> Option<bool> {
    let mut i = rest
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    let start = i;
    while i < rest.len() && !is_ws(rest[i]) && rest[i] != b'<' && rest[i] != b'>' {
        i += 1;
    }
    if i == rest.len() {
        // The name reaches the end of what is known (at the end of input: cut off in it).
        return if eof { Some(i > start) } else { None };
    }
    if i == start {
        return Some(false);
    }
    i += ws_prefix(&rest[i..]);
    let after = &rest[i..];
    let sep = if v.names.len() > SEP as usize {
        bit(SEP)
    } else {
        0
    };
    let next = Vocab {
        names: v.names,
        extra: v.extra,
        open: bit(KEY) | sep,
        close: bit(CALL),
        ..Vocab::EMPTY
    };
    match after.is_empty() {
        true => None,
        false => match tag::lex(&next, after, false) {
            TagLex::Match(_) => Some(true),
            TagLex::Partial => None,
            TagLex::Fail => Some(false),
        },
    }
    // Undecided; at the end of input the call was cut off here.
    .or(eof.then_some(true))
}

impl Machine for State {
    const CALL_DEPTH: u8 = 0;

    fn new(cfg: &Config<'_>) -> State {
        State {
            ctx: cfg.start_in.pick(Ctx::Text, Ctx::Thinking),
            params: 0,
            tool: None,
            reason: ErrorReason::MalformedBody,
            value: Value::new(ValueType::Any),
            fresh: true,
            yielded: false,
            after_call: false,
        }
    }

    fn vocab_key(&self) -> u32 {
        // Distinct keys for `fresh` and `yielded` (same vocabulary) cost a rare extra
        // derivation only; four adjacent bytes make one load.
        u32::from_le_bytes([
            self.ctx as u8,
            self.fresh as u8,
            self.yielded as u8,
            self.after_call as u8,
        ])
    }

    fn vocab<'m>(&self, cfg: &'m Settings<'_>, _out: &'m Emitter<'_>) -> Vocab<'m> {
        // Inside a call (most decisions) only the element names and two masks are read: the
        // text and thinking vocabularies are built out of line, so this path keeps a small
        // frame (measured: ~40 instructions less per decision).
        let (open, close) = match self.ctx {
            Ctx::Text | Ctx::Thinking => return self.outer_vocab(cfg),
            // The separator's bit is dropped below when the description has none.
            Ctx::Name => (bit(KEY) | bit(SEP), bit(CALL)),
            Ctx::Call => (bit(KEY), bit(CALL)),
            Ctx::Key => (0, bit(KEY) | bit(CALL)),
            Ctx::AfterKey => (bit(VALUE), bit(CALL)),
            Ctx::Value => (0, bit(VALUE)),
            Ctx::Skip => (0, bit(CALL)),
        };
        // Built inside the description's reader: the names never go through memory.
        cfg.with_description_outlined(spec::preset_key_value, |d| Vocab {
            names: d.elements,
            extra: call_element(d.wrapper.1.as_bytes()),
            open: if d.elements.len() > SEP as usize {
                open
            } else {
                open & !bit(SEP)
            },
            close,
            ..Vocab::EMPTY
        })
    }

    fn act(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        d: Decision,
        window: &[u8],
    ) -> Act {
        self.fresh = false;
        if self.after_call && self.ctx == Ctx::Text {
            fn closer<'e>(cfg: &'e Settings<'_>) -> &'e [u8] {
                Markers::of(cfg).close
            }
            if let Some(act) = super::after_call(cfg, out, &mut self.after_call, closer, d, window)
            {
                return act;
            }
        }
        if out.call_too_large() && self.ctx != Ctx::Skip {
            // The call outgrew max_call_bytes: it fails here; the rest is skipped to its closer.
            self.fail(ErrorReason::TooLarge);
            return Act::WAIT;
        }
        match d {
            Decision::Element(tag) => self.on_tag(cfg, out, tag),
            Decision::Literal { index, len } => {
                if self.ctx == Ctx::Thinking
                    && matches!(index, THINK_CALL | THINK_REOPEN | THINK_REGION)
                {
                    return super::thinking_marker(out, index != THINK_REOPEN, &window[..len])
                        .unwrap_or_else(|| {
                            self.ctx = Ctx::Text;
                            self.yielded = true;
                            Act::WAIT
                        });
                }
                out.close_content();
                // The markup markers sit between the call opener and the stray closer.
                let markup = 2 * cfg.markup().into_iter().flatten().count();
                match (self.ctx, index) {
                    (Ctx::Text, i) if i >= LIT_MARKUP + markup => self.yielded = false,
                    (Ctx::Text, i) if i >= LIT_MARKUP => {}
                    (Ctx::Text, LIT_THINK) => self.ctx = Ctx::Thinking,
                    (Ctx::Text, LIT_CALL) => {
                        out.open_call(1);
                        out.value.clear();
                        self.params = 0;
                        self.tool = None;
                        self.ctx = Ctx::Name;
                    }
                    (Ctx::Thinking, _) => self.ctx = Ctx::Text,
                    _ => {}
                }
                Act::skip(len)
            }
            Decision::Text(_) | Decision::Invalid(_) => self.on_text(cfg, out, d, window),
            Decision::NeedMore | Decision::Stop { .. } => Act::WAIT,
        }
    }

    fn end_of_input(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) {
        match self.ctx {
            Ctx::Name => {
                // A name line that ended (whitespace after the name) is a call without
                // arguments; a name still being read is unfinished.
                let held = out.value.bytes();
                let (a, b) = trim(held);
                if b > a && b < held.len() {
                    if self.announce(cfg, out) {
                        out.finish_call(cfg, false);
                    } else {
                        out.fail_call(self.reason, false);
                    }
                } else {
                    out.fail_call(ErrorReason::Unfinished, false);
                }
            }
            Ctx::Call => out.finish_call(cfg, self.params > 0),
            Ctx::Key | Ctx::AfterKey | Ctx::Value => out.fail_call(ErrorReason::Unfinished, false),
            Ctx::Skip => out.fail_call(self.reason, false),
            Ctx::Text | Ctx::Thinking => {}
        }
        self.ctx = Ctx::Text;
    }

    fn plain_block(&self) -> Option<(BlockType, u8)> {
        match self.ctx {
            // Right after a call every decision is the machine's (a repeated closer may come).
            Ctx::Text if self.after_call => None,
            Ctx::Text => Some((BlockType::Text, 0)),
            Ctx::Thinking => Some((BlockType::Thinking, 0)),
            _ => None,
        }
    }

    /// A marker cut off right after a complete call (`…</tool_call>\n</tool_ca`, HY3's
    /// `…</tool_call></tool_cal`) is wire syntax: dropped. Inside a call the cut is read by
    /// the text decision ([`truncated_closer`]).
    fn cut_closer(&mut self, _cfg: &Settings<'_>, _out: &mut Emitter<'_>, _cut: &[u8]) -> Cut {
        if self.ctx == Ctx::Text && self.after_call {
            self.after_call = false;
            return Cut::Done;
        }
        Cut::No
    }
}

impl State {
    /// The vocabulary of text and thinking (see [`Machine::vocab`]), built in place (a
    /// builder chain by value copies the vocabulary at each step).
    #[inline(never)]
    fn outer_vocab<'m>(&self, cfg: &'m Settings<'_>) -> Vocab<'m> {
        let m = Markers::of(cfg);
        let (open, close) = cfg.thinking_tags();
        // The element names ride along (nothing open) for the look-ahead.
        let mut v = m.elements(0, 0);
        if self.ctx == Ctx::Thinking {
            v.add_literal(close.as_bytes());
            v.add_literal_when(m.open, name_follows);
            v.add_literal(open.as_bytes());
            if cfg.has_markup()
                && let Some((region, _)) = cfg.markup()[0]
            {
                v.add_literal(region.as_bytes());
            }
            return v;
        }
        v.stops = cfg.stops();
        v.add_literal(open.as_bytes());
        v.add_literal_when(m.open, name_follows);
        if cfg.has_markup() {
            for (a, b) in cfg.markup().into_iter().flatten() {
                v.add_literal(a.as_bytes());
                v.add_literal(b.as_bytes());
            }
        }
        if self.fresh || self.yielded {
            v.add_literal(close.as_bytes());
        }
        if self.after_call {
            // Last: its index is past every other text literal.
            v.add_literal(m.close);
        }
        v
    }

    /// The current call fails: the rest is skipped to `</tool_call>`.
    fn fail(&mut self, reason: ErrorReason) {
        self.ctx = Ctx::Skip;
        self.reason = reason;
    }

    /// Streams the held name (trimmed) and the id; a call without a name fails.
    fn announce(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) -> bool {
        let mut name = [0u8; STR_CAP];
        let held = out.value.bytes();
        let (a, b) = trim(held);
        let n = (b - a).min(name.len());
        name[..n].copy_from_slice(&held[a..a + n]);
        let name = &name[..n];
        if name.is_empty() || name.iter().any(|&c| is_ws(c) || c == b'<') {
            // Counted like every call, but it has no name to stream.
            out.calls += 1;
            self.fail(ErrorReason::MissingName);
            return false;
        }
        out.announce_call(cfg, name);
        self.tool = cfg.tools().find(name).map(|i| i as u16);
        true
    }

    fn on_text(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        d: Decision,
        window: &[u8],
    ) -> Act {
        let n = match d {
            Decision::Text(n) | Decision::Invalid(n) => n,
            _ => return Act::WAIT,
        };
        let bytes: &[u8] = match d {
            Decision::Text(_) => &window[..n],
            _ => "\u{FFFD}".as_bytes(),
        };
        match self.ctx {
            Ctx::Text => out.content(BlockType::Text, 0, d),
            Ctx::Thinking => out.content(BlockType::Thinking, 0, d),
            Ctx::Name => {
                // A partial closer at the end of input ends the name (see `truncated_closer`).
                if let Some(p) = bytes.iter().position(|&b| b == b'<')
                    && truncated_closer(cfg, true, d, window, p)
                {
                    out.value.push(&bytes[..p]);
                    if self.announce(cfg, out) {
                        // The partial closer is wire syntax: dropped with the name.
                        out.finish_call(cfg, false);
                        self.ctx = Ctx::Text;
                        return Act::skip(n);
                    }
                    return Act::skip(p);
                }
                out.value.push(bytes);
                Act::skip(n)
            }
            Ctx::Key => {
                out.value.push(bytes);
                Act::skip(n)
            }
            Ctx::Call | Ctx::AfterKey => {
                let ws = leading_ws(d, window);
                if ws > 0 {
                    Act::skip(ws)
                } else if self.ctx == Ctx::Call && truncated_closer(cfg, false, d, window, 0) {
                    // The closer was cut off: the call is complete and the partial closer
                    // is wire syntax, dropped (docs/design.md "Lenient recovery").
                    out.finish_call(cfg, self.params > 0);
                    self.ctx = Ctx::Text;
                    Act::skip(n)
                } else {
                    self.fail(if self.ctx == Ctx::Call {
                        ErrorReason::UnexpectedContent
                    } else {
                        ErrorReason::MalformedParameter
                    });
                    Act::WAIT
                }
            }
            Ctx::Value => value::text(out, &mut self.value, false, d, window),
            Ctx::Skip => out.skip(d, self.reason),
        }
    }

    fn on_tag(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>, tag: Tag) -> Act {
        let opening = !tag.closing;
        match (self.ctx, tag.element, opening) {
            (Ctx::Name, SEP, true) => {
                // The separator after the name is wire syntax.
                if self.announce(cfg, out) {
                    self.ctx = Ctx::Call;
                }
                if self.ctx == Ctx::Skip {
                    return Act::WAIT;
                }
            }
            (Ctx::Name, _, _) => {
                if self.announce(cfg, out) {
                    self.ctx = Ctx::Call;
                }
                // The tag is read again in the call (or skipped with it).
                return Act::WAIT;
            }
            (Ctx::Call, KEY, true) => {
                out.value.clear();
                self.ctx = Ctx::Key;
                if tag.self_closing {
                    self.close_key(cfg, out);
                }
            }
            (Ctx::Call, CALL, false) => {
                out.finish_call(cfg, self.params > 0);
                self.ctx = Ctx::Text;
                self.after_call = true;
            }
            (Ctx::Key, KEY, false) => self.close_key(cfg, out),
            (Ctx::Key | Ctx::AfterKey, CALL, false) => {
                // A key without its value: the closer is read again in the failed call.
                self.fail(ErrorReason::MalformedParameter);
                return Act::WAIT;
            }
            (Ctx::AfterKey, VALUE, true) => {
                self.ctx = Ctx::Value;
                if tag.self_closing {
                    self.ctx = Ctx::Call;
                    value::close(out, self.value);
                }
            }
            (Ctx::Value, VALUE, false) => {
                self.ctx = Ctx::Call;
                value::close(out, self.value);
            }
            (Ctx::Skip, CALL, false) => {
                self.ctx = Ctx::Text;
                return out.close_skipped(self.reason, tag.len, true);
            }
            // The vocabulary admits no other tag in each context.
            _ => {}
        }
        Act::skip(tag.len)
    }

    /// `</arg_key>`: the held key (trimmed) opens its value, or fails the call when empty.
    fn close_key(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) {
        let mut key = [0u8; STR_CAP];
        let held = out.value.bytes();
        let (a, b) = trim(held);
        let n = (b - a).min(key.len());
        key[..n].copy_from_slice(&held[a..a + n]);
        if n == 0 {
            self.fail(ErrorReason::MalformedParameter);
            return;
        }
        let key = &key[..n];
        let ty = value::param_type(cfg, self.tool, key);
        self.value = value::open(out, self.params == 0, key, ty);
        self.params = self.params.saturating_add(1);
        self.ctx = Ctx::AfterKey;
    }
}

/// Whether the text decision `d` about `window` holds, from byte `at` to its end, a partial
/// `</tool_call>` (after the name, `name`: or of the separator) at the end of input: the
/// decision is the whole window (a partial tag short of the end of input is still undecided,
/// so this is the end) and those bytes could still grow into the closer.
fn truncated_closer(cfg: &Settings<'_>, name: bool, d: Decision, window: &[u8], at: usize) -> bool {
    let Decision::Text(n) = d else {
        return false;
    };
    let m = Markers::of(cfg);
    let closer = m.elements(if name { m.sep() } else { 0 }, bit(CALL));
    n == window.len()
        && window.get(at) == Some(&b'<')
        && tag::lex(&closer, &window[at..], false) == TagLex::Partial
}

#[cfg(test)]
mod tests {
    use super::Vocab;
    use crate::spec::StrList;

    /// glm-4.5's names, as the text context's vocabulary carries them.
    fn name_follows(rest: &[u8], eof: bool) -> Option<bool> {
        let v = Vocab {
            names: StrList::Strs(&["arg_key", "arg_value"]),
            extra: b"tool_call",
            ..Vocab::EMPTY
        };
        super::name_follows(rest, &v, eof)
    }

    #[test]
    fn a_separator_may_follow_the_name() {
        let v = Vocab {
            names: StrList::Strs(&["arg_key", "arg_value", "tool_sep"]),
            extra: b"tool_call",
            ..Vocab::EMPTY
        };
        assert_eq!(super::name_follows(b"f<tool_sep>", &v, false), Some(true));
        assert_eq!(super::name_follows(b"f<tool_s", &v, false), None);
        assert_eq!(name_follows(b"f<tool_sep>", false), Some(false));
    }

    #[test]
    fn a_name_must_follow_the_marker() {
        assert_eq!(name_follows(b"get_weather\n<arg_key>", false), Some(true));
        assert_eq!(name_follows(b"get_weather<arg_key>", false), Some(true));
        assert_eq!(name_follows(b"ping</tool_call>", false), Some(true));
        assert_eq!(name_follows(b" ping \r\n  </tool_call>", false), Some(true));
        assert_eq!(name_follows(b"get_weather\n<arg_k", false), None);
        assert_eq!(name_follows(b"get_wea", false), None);
        assert_eq!(name_follows(b"", false), None);
        assert_eq!(name_follows(b" tag to call tools", false), Some(false));
        assert_eq!(name_follows(b"foo is a tool", false), Some(false));
        assert_eq!(name_follows(b"\n<arg_key>", false), Some(false));
        assert_eq!(name_follows(b"{\"name\": 1}", false), Some(false));
        assert_eq!(name_follows(b"<b>", false), Some(false));
        // At the end of input: cut off inside the name or its first tag.
        assert_eq!(name_follows(b"get_wea", true), Some(true));
        assert_eq!(name_follows(b"ping</tool_", true), Some(true));
        assert_eq!(name_follows(b"ping\n", true), Some(true));
        assert_eq!(name_follows(b"", true), Some(false));
        assert_eq!(name_follows(b" ", true), Some(false));
    }
}
