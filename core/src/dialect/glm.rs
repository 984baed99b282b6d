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
//!   the token limit: the call completes and the partial closer is kept as top-level text. A
//!   name still being read at the end fails the call as `unfinished`.
//! - Text between calls is top-level text; stop sequences apply there only.

use crate::config::{Config, ValueType};
use crate::emit::{Act, Emitter, STR_CAP};
use crate::event::{BlockType, ErrorReason};
use crate::scan::tag::{self, TagLex};
use crate::scan::{Decision, Tag, Vocab};
use crate::spec::StrList;

use super::Machine;
use super::value::{self, Value, leading_ws, trim, ws_prefix};

const NAMES: StrList<'static> = StrList::Strs(&["tool_call", "arg_key", "arg_value"]);
const CALL: u8 = 0;
const KEY: u8 = 1;
const VALUE: u8 = 2;

const fn bit(e: u8) -> u32 {
    1 << e
}

const CALL_OPEN: &[u8] = b"<tool_call>";
const CALL_CLOSE: &[u8] = b"</tool_call>";
const KEY_OPEN: &[u8] = b"<arg_key>";
/// Literal indices in the text context.
const LIT_THINK: usize = 0;
const LIT_CALL: usize = 1;
/// A thinking closer at the very start of the stream (no opener): wire syntax.
const LIT_STRAY_CLOSE: usize = 2;
/// Literal indices in the thinking context's vocabulary (the closer is 0).
const THINK_CALL: usize = 1;
const THINK_REOPEN: usize = 2;

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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct State {
    ctx: Ctx,
    /// Arguments read in the current call.
    params: u16,
    /// The configured tool of the current call.
    tool: Option<u16>,
    /// Why the current call failed (in `Skip`).
    reason: ErrorReason,
    value: Value,
    /// Nothing decided yet: a thinking closer here has no opener and is dropped.
    fresh: bool,
    /// A tool call ended the thinking it was opened in: the thinking closer the model may
    /// still write is wire syntax too (dropped once).
    yielded: bool,
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Whether `b` is a proper, non-empty prefix of `full`.
fn proper_prefix(b: &[u8], full: &[u8]) -> bool {
    !b.is_empty() && b.len() < full.len() && full.starts_with(b)
}

/// The look-ahead after `<tool_call>` (module docs): a name, then `<arg_key>` or
/// `</tool_call>` after optional whitespace.
fn name_follows(rest: &[u8], eof: bool, _: &crate::scan::Names<'_>) -> Option<bool> {
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
    if after.starts_with(KEY_OPEN) || after.starts_with(CALL_CLOSE) {
        return Some(true);
    }
    if after.is_empty() || proper_prefix(after, KEY_OPEN) || proper_prefix(after, CALL_CLOSE) {
        // Undecided; at the end of input the call was cut off here.
        return if eof { Some(true) } else { None };
    }
    Some(false)
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
        }
    }

    fn vocab_key(&self) -> u32 {
        self.ctx as u32 | ((self.fresh | self.yielded) as u32) << 8
    }

    fn vocab<'m>(&self, out: &'m Emitter<'_>) -> Vocab<'m> {
        let elements = |open: u32, close: u32| Vocab {
            names: NAMES,
            open,
            close,
            ..Vocab::EMPTY
        };
        let (open, close) = out.thinking_tags();
        match self.ctx {
            Ctx::Text => {
                let v = Vocab {
                    stops: out.stops(),
                    ..Vocab::EMPTY
                }
                .with_literal(open.as_bytes())
                .with_literal_when(CALL_OPEN, name_follows);
                if self.fresh || self.yielded {
                    v.with_literal(close.as_bytes())
                } else {
                    v
                }
            }
            Ctx::Thinking => Vocab::EMPTY
                .with_literal(close.as_bytes())
                .with_literal_when(CALL_OPEN, name_follows)
                .with_literal(open.as_bytes()),
            Ctx::Name | Ctx::Call => elements(bit(KEY), bit(CALL)),
            Ctx::Key => elements(0, bit(KEY) | bit(CALL)),
            Ctx::AfterKey => elements(bit(VALUE), bit(CALL)),
            Ctx::Value => elements(0, bit(VALUE)),
            Ctx::Skip => elements(0, bit(CALL)),
        }
    }

    fn act(&mut self, out: &mut Emitter<'_>, d: Decision, window: &[u8]) -> Act {
        self.fresh = false;
        if out.call_too_large() && self.ctx != Ctx::Skip {
            // The call outgrew max_call_bytes: it fails here; the rest is skipped to its closer.
            self.fail(ErrorReason::TooLarge);
            return Act::WAIT;
        }
        match d {
            Decision::Element(tag) => self.on_tag(out, tag),
            Decision::Literal { index, len } => {
                if self.ctx == Ctx::Thinking && matches!(index, THINK_CALL | THINK_REOPEN) {
                    return super::thinking_marker(out, index == THINK_CALL, len).unwrap_or_else(
                        || {
                            self.ctx = Ctx::Text;
                            self.yielded = true;
                            Act::WAIT
                        },
                    );
                }
                out.close_content();
                match (self.ctx, index) {
                    (Ctx::Text, LIT_STRAY_CLOSE) => self.yielded = false,
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
            Decision::Text(_) | Decision::Invalid(_) => self.on_text(out, d, window),
            Decision::NeedMore | Decision::Stop { .. } => Act::WAIT,
        }
    }

    fn end_of_input(&mut self, out: &mut Emitter<'_>) {
        match self.ctx {
            Ctx::Name => {
                // A name line that ended (whitespace after the name) is a call without
                // arguments; a name still being read is unfinished.
                let held = out.value.bytes();
                let (a, b) = trim(held);
                if b > a && b < held.len() {
                    if self.announce(out) {
                        out.finish_call(false);
                    } else {
                        out.fail_call(self.reason, false);
                    }
                } else {
                    out.fail_call(ErrorReason::Unfinished, false);
                }
            }
            Ctx::Call => out.finish_call(self.params > 0),
            Ctx::Key | Ctx::AfterKey | Ctx::Value => out.fail_call(ErrorReason::Unfinished, false),
            Ctx::Skip => out.fail_call(self.reason, false),
            Ctx::Text | Ctx::Thinking => {}
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

impl State {
    /// The current call fails: the rest is skipped to `</tool_call>`.
    fn fail(&mut self, reason: ErrorReason) {
        self.ctx = Ctx::Skip;
        self.reason = reason;
    }

    /// Streams the held name (trimmed) and the id; a call without a name fails.
    fn announce(&mut self, out: &mut Emitter<'_>) -> bool {
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
        out.announce_call(name);
        self.tool = out.tools().find(name).map(|i| i as u16);
        true
    }

    fn on_text(&mut self, out: &mut Emitter<'_>, d: Decision, window: &[u8]) -> Act {
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
                    && truncated_closer(d, window, p)
                {
                    out.value.push(&bytes[..p]);
                    if self.announce(out) {
                        out.finish_call(false);
                        self.ctx = Ctx::Text;
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
                } else if self.ctx == Ctx::Call && truncated_closer(d, window, 0) {
                    // The closer was cut off: the call is complete; the partial closer is
                    // decided again as top-level text.
                    out.finish_call(self.params > 0);
                    self.ctx = Ctx::Text;
                    Act::WAIT
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

    fn on_tag(&mut self, out: &mut Emitter<'_>, tag: Tag) -> Act {
        let opening = !tag.closing;
        match (self.ctx, tag.element, opening) {
            (Ctx::Name, _, _) => {
                if self.announce(out) {
                    self.ctx = Ctx::Call;
                }
                // The tag is read again in the call (or skipped with it).
                return Act::WAIT;
            }
            (Ctx::Call, KEY, true) => {
                out.value.clear();
                self.ctx = Ctx::Key;
                if tag.self_closing {
                    self.close_key(out);
                }
            }
            (Ctx::Call, CALL, false) => {
                out.finish_call(self.params > 0);
                self.ctx = Ctx::Text;
            }
            (Ctx::Key, KEY, false) => self.close_key(out),
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
    fn close_key(&mut self, out: &mut Emitter<'_>) {
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
        let ty = value::param_type(out, self.tool, key);
        self.value = value::open(out, self.params == 0, key, ty);
        self.params = self.params.saturating_add(1);
        self.ctx = Ctx::AfterKey;
    }
}

/// Whether the text decision `d` about `window` holds, from byte `at` to its end, a partial
/// `</tool_call>` at the end of input: the decision is the whole window (a partial tag short
/// of the end of input is still undecided, so this is the end) and those bytes could still
/// grow into the closer.
fn truncated_closer(d: Decision, window: &[u8], at: usize) -> bool {
    let Decision::Text(n) = d else {
        return false;
    };
    let closer = Vocab {
        names: NAMES,
        close: bit(CALL),
        ..Vocab::EMPTY
    };
    n == window.len()
        && window.get(at) == Some(&b'<')
        && tag::lex(&closer, &window[at..], false) == TagLex::Partial
}

#[cfg(test)]
mod tests {
    use super::name_follows;

    #[test]
    fn a_name_must_follow_the_marker() {
        assert_eq!(
            name_follows(b"get_weather\n<arg_key>", false, &crate::scan::Names::None),
            Some(true)
        );
        assert_eq!(
            name_follows(b"get_weather<arg_key>", false, &crate::scan::Names::None),
            Some(true)
        );
        assert_eq!(
            name_follows(b"ping</tool_call>", false, &crate::scan::Names::None),
            Some(true)
        );
        assert_eq!(
            name_follows(
                b" ping \r\n  </tool_call>",
                false,
                &crate::scan::Names::None
            ),
            Some(true)
        );
        assert_eq!(
            name_follows(b"get_weather\n<arg_k", false, &crate::scan::Names::None),
            None
        );
        assert_eq!(
            name_follows(b"get_wea", false, &crate::scan::Names::None),
            None
        );
        assert_eq!(name_follows(b"", false, &crate::scan::Names::None), None);
        assert_eq!(
            name_follows(b" tag to call tools", false, &crate::scan::Names::None),
            Some(false)
        );
        assert_eq!(
            name_follows(b"foo is a tool", false, &crate::scan::Names::None),
            Some(false)
        );
        assert_eq!(
            name_follows(b"\n<arg_key>", false, &crate::scan::Names::None),
            Some(false)
        );
        assert_eq!(
            name_follows(b"{\"name\": 1}", false, &crate::scan::Names::None),
            Some(false)
        );
        assert_eq!(
            name_follows(b"<b>", false, &crate::scan::Names::None),
            Some(false)
        );
        // At the end of input: cut off inside the name or its first tag.
        assert_eq!(
            name_follows(b"get_wea", true, &crate::scan::Names::None),
            Some(true)
        );
        assert_eq!(
            name_follows(b"ping</tool_", true, &crate::scan::Names::None),
            Some(true)
        );
        assert_eq!(
            name_follows(b"ping\n", true, &crate::scan::Names::None),
            Some(true)
        );
        assert_eq!(
            name_follows(b"", true, &crate::scan::Names::None),
            Some(false)
        );
        assert_eq!(
            name_follows(b" ", true, &crate::scan::Names::None),
            Some(false)
        );
    }
}
