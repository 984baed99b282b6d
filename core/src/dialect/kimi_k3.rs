//! `kimi-k3` — Moonshot Kimi K3's XTML: an XML-like markup whose brackets are three special
//! tokens, `<|open|>`, `<|close|>` and `<|sep|>`. An assistant turn is a set of channels,
//!
//! ```text
//! <|open|>think<|sep|>REASONING<|close|>think<|sep|>
//! <|open|>response<|sep|>VISIBLE TEXT<|close|>response<|sep|>
//! <|open|>tools<|sep|>
//!   <|open|>call tool="NAME" index="1"<|sep|>
//!     <|open|>argument key="K" type="string"<|sep|>raw text<|close|>argument<|sep|>
//!     <|open|>argument key="N" type="number"<|sep|>42<|close|>argument<|sep|>
//!   <|close|>call<|sep|>
//! <|close|>tools<|sep|>
//! <|close|>message<|sep|>
//! ```
//!
//! (without the line breaks: the template writes none). The reference is vLLM's
//! `kimi_k3_tool_parser.py`, `kimi_k3_reasoning_parser.py` and its parser-engine
//! configuration, the tests beside them, and K3's prompt encoder (`encoding_k3.py`, which
//! writes the same markup). No existing shape fits (calls are elements with attributes
//! inside a channel of special tokens), so this is a machine of its own. The decisions
//! (docs/design.md, "kimi-k3"):
//!
//! - **Channels.** Thinking is the `think` channel (the default `thinking_tags` are its two
//!   markers; with thinking on, K3's template opens it in the prompt: `start_in: thinking`).
//!   The response channel's content is text; its markers are wire syntax, dropped wherever
//!   they stand in text, and so are `<|close|>message<|sep|>`, a thinking closer and
//!   `<|end_of_msg|>` (the end of the turn; a stop when it is a configured stop sequence):
//!   the markers are special tokens, never prose, and one that means nothing where it stands
//!   is dropped, as in harmony. Text outside any channel is text (rule 6; vLLM drops it).
//! - **Thinking that yields.** Inside thinking, the tools opener (or a bare call opener)
//!   ends the thinking and opens the calls wherever it stands (special tokens); so does the
//!   response opener — the thinking closer was lost, and what follows is the answer. The
//!   thinking opener again before any thinking text is dropped. (vLLM keeps reading
//!   reasoning up to `<|close|>think<|sep|>`.)
//! - **The tools channel** is a region: its calls are depth-1 tool_call blocks; whitespace
//!   between its markers is dropped; other text directly inside it is a depth-1 text block.
//!   A call opener outside it opens a *bare* call (its failed raw text comes back at depth
//!   0). A repeated tools opener inside it is dropped.
//! - **Headers.** A call's header (`tool="…" index="…"` up to `<|sep|>`) and an argument's
//!   (`key="…" type="…"`) are held until their `<|sep|>` (at most 1024 bytes, else the call
//!   fails as `too-large`) and read as vLLM reads them: `WORD="VALUE"` pairs, anything else
//!   ignored, a repeated attribute's last value wins, values decoded `&quot;` → `"` and
//!   `&amp;` → `&` (the encoder escapes `&` then `"`; `<` and `>` are literal). The
//!   tool_call block starts at the header's end (a header cut off by the end of input is wire
//!   syntax, dropped, as a cut tag is; vLLM shows nothing of it either). A call without a
//!   non-empty `tool` fails as `missing-name`; a name or key over 127 bytes as `too-large`;
//!   an argument without `key` as `malformed-parameter` (an empty key is a key).
//! - **Ids.** The id is `NAME:n`, `n` counting this stream's calls from 0 (failed ones
//!   too): what vLLM's K3 parser engine assigns, and the alias vLLM's K3 renderer resolves a
//!   tool result's `tool_call_id` by. The wire's `index` attribute (1-based) is read and not
//!   used: the renderer numbers results by position too, and a model that repeats an index
//!   must not get two calls one id.
//! - **Values.** `type="string"` is the raw text, byte for byte (no trimming, no entity
//!   decoding: the encoder writes strings raw), streamed as it comes. Any other `type` says
//!   the value is JSON: it is held to its closer, and its trimmed text is the JSON it is when
//!   valid (any kind; numbers as written), else a string (vLLM: `json.loads`, the raw text on
//!   failure). Without a `type` the tool's schema types the value when it declares one (as
//!   the other XML formats do), else it is a string (vLLM's default).
//! - **Recovery.** The markers are special tokens, so they are structural everywhere,
//!   inside a string value too (vLLM's known limitation: a value cannot hold them): a value
//!   whose `<|close|>argument<|sep|>` is missing ends at the next argument's opener, the
//!   call's closer, the tools closer, the message closer or another call's opener; a call
//!   whose closer is missing ends at the tools or message closer or the next call's opener,
//!   and completes. Text between a call's arguments other than whitespace fails it
//!   (`unexpected-content`); so does a `<|open|>json …<|sep|>` block (`malformed-body`: the
//!   encoder writes one only for arguments that did not parse). A failed call is skipped to
//!   its closer (part of its raw text) or to the marker that cuts it off (not part of it).
//! - **End of input.** A call between arguments completes (also with an argument header cut
//!   off); a value still open fails the call as `unfinished`; a marker cut off after a
//!   complete value or call (`…42<|close|>argu`, `…<|close|>ca`) completes what it would
//!   close and is dropped (docs/design.md, "Tool calls").

use crate::config::Settings;
use crate::config::{Config, ValueType};
use crate::emit::{Act, Emitter, STR_CAP, decimal};
use crate::event::{BlockType, ErrorReason, Part};
use crate::scan::{Decision, Vocab};

use super::invoke::stray_text;
use super::value::{self, Value, leading_ws};
use super::{Cut, Machine};

const OPEN_RESPONSE: &[u8] = b"<|open|>response<|sep|>";
const CLOSE_RESPONSE: &[u8] = b"<|close|>response<|sep|>";
const OPEN_TOOLS: &[u8] = b"<|open|>tools<|sep|>";
const CLOSE_TOOLS: &[u8] = b"<|close|>tools<|sep|>";
const OPEN_CALL: &[u8] = b"<|open|>call";
const CLOSE_CALL: &[u8] = b"<|close|>call<|sep|>";
const OPEN_ARG: &[u8] = b"<|open|>argument";
const CLOSE_ARG: &[u8] = b"<|close|>argument<|sep|>";
const OPEN_JSON: &[u8] = b"<|open|>json";
const CLOSE_MESSAGE: &[u8] = b"<|close|>message<|sep|>";
const END_OF_MSG: &[u8] = b"<|end_of_msg|>";
const SEP: &[u8] = b"<|sep|>";

/// The most bytes a header (between its opener and `<|sep|>`) may hold.
const HEAD_CAP: usize = 1024;

/// Literal indices in text.
const T_THINK: usize = 0;
const T_TOOLS: usize = 2;
const T_CALL: usize = 3;
/// Literal indices in thinking.
const K_CLOSE: usize = 0;
const K_REOPEN: usize = 4;
/// Literal indices in the tools channel.
const R_CALL: usize = 0;
const R_CLOSE: usize = 1;
const R_REOPEN: usize = 2;
/// Literal indices between a call's arguments.
const C_ARG: usize = 0;
const C_CLOSE: usize = 1;
const C_JSON: usize = 5;
/// Literal index of `<|sep|>` in a header.
const H_SEP: usize = 0;
/// Literal index of an argument's closer in its value.
const V_CLOSE: usize = 0;
/// Literal index of the call's closer in a failed call.
const S_CLOSE: usize = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    /// Text: outside any channel, or in the response channel.
    Text,
    Thinking,
    /// The tools channel, between calls.
    Region,
    /// A call's header, held up to its `<|sep|>` (the block starts there).
    CallHead,
    /// Inside a call, between arguments.
    Call,
    /// An argument's header, held up to its `<|sep|>`.
    ArgHead,
    /// An argument's value.
    Value,
    /// A failed call, skipped to its closer.
    Skip,
}

/// The `kimi-k3` state.
#[derive(Clone, Copy, Debug)]
pub(crate) struct State {
    ctx: Ctx,
    /// The open call stands in the tools channel (else it is a bare call in text).
    in_region: bool,
    /// The value was declared JSON by its `type` (else it is typed as a string or by the
    /// schema).
    json_typed: bool,
    /// Arguments read in the open call.
    params: u16,
    /// The configured tool of the open call.
    tool: Option<u16>,
    /// Why the open call failed (in `Skip`).
    reason: ErrorReason,
    value: Value,
}

impl Machine for State {
    const CALL_DEPTH: u8 = 1;

    fn new(cfg: &Config<'_>) -> State {
        State {
            ctx: cfg.start_in.pick(Ctx::Text, Ctx::Thinking),
            in_region: false,
            json_typed: false,
            params: 0,
            tool: None,
            reason: ErrorReason::MalformedBody,
            value: Value::new(ValueType::Any),
        }
    }

    fn vocab_key(&self) -> u32 {
        self.ctx as u32
    }

    fn vocab<'m>(&self, cfg: &'m Settings<'_>, _out: &'m Emitter<'_>) -> Vocab<'m> {
        match self.ctx {
            Ctx::Text => {
                let (open, close) = cfg.thinking_tags();
                let stops = cfg.stops();
                let mut v = Vocab {
                    stops,
                    ..Vocab::EMPTY
                };
                for lit in [
                    open.as_bytes(),
                    close.as_bytes(),
                    OPEN_TOOLS,
                    OPEN_CALL,
                    OPEN_RESPONSE,
                    CLOSE_RESPONSE,
                    CLOSE_MESSAGE,
                ] {
                    v.add_literal(lit);
                }
                // The end of the turn is markup, unless the host stops there (what
                // `stop_sequences_for` gives): then the stop sequence ends the stream.
                if !stops.contains(END_OF_MSG) {
                    v.add_literal(END_OF_MSG);
                }
                v
            }
            Ctx::Thinking => {
                let (open, close) = cfg.thinking_tags();
                Vocab::EMPTY
                    .with_literal(close.as_bytes())
                    .with_literal(OPEN_TOOLS)
                    .with_literal(OPEN_CALL)
                    .with_literal(OPEN_RESPONSE)
                    .with_literal(open.as_bytes())
            }
            Ctx::Region => Vocab::EMPTY
                .with_literal(OPEN_CALL)
                .with_literal(CLOSE_TOOLS)
                .with_literal(OPEN_TOOLS)
                .with_literal(CLOSE_MESSAGE),
            Ctx::CallHead => Vocab::EMPTY
                .with_literal(SEP)
                .with_literal(CLOSE_CALL)
                .with_literal(OPEN_CALL)
                .with_literal(CLOSE_TOOLS)
                .with_literal(CLOSE_MESSAGE),
            Ctx::Call => Vocab::EMPTY
                .with_literal(OPEN_ARG)
                .with_literal(CLOSE_CALL)
                .with_literal(CLOSE_TOOLS)
                .with_literal(OPEN_CALL)
                .with_literal(CLOSE_MESSAGE)
                .with_literal(OPEN_JSON),
            Ctx::ArgHead => Vocab::EMPTY
                .with_literal(SEP)
                .with_literal(CLOSE_CALL)
                .with_literal(CLOSE_TOOLS)
                .with_literal(OPEN_CALL)
                .with_literal(CLOSE_MESSAGE)
                .with_literal(OPEN_ARG),
            Ctx::Value => Vocab::EMPTY
                .with_literal(CLOSE_ARG)
                .with_literal(CLOSE_CALL)
                .with_literal(CLOSE_TOOLS)
                .with_literal(OPEN_CALL)
                .with_literal(CLOSE_MESSAGE)
                .with_literal(OPEN_ARG),
            Ctx::Skip => Vocab::EMPTY
                .with_literal(CLOSE_CALL)
                .with_literal(OPEN_CALL)
                .with_literal(CLOSE_TOOLS)
                .with_literal(CLOSE_MESSAGE),
        }
    }

    fn plain_block(&self) -> Option<(BlockType, u8)> {
        match self.ctx {
            Ctx::Text => Some((BlockType::Text, 0)),
            Ctx::Thinking => Some((BlockType::Thinking, 0)),
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
        let in_call = matches!(
            self.ctx,
            Ctx::CallHead | Ctx::Call | Ctx::ArgHead | Ctx::Value
        );
        if in_call && out.call_too_large() {
            // The call outgrew max_call_bytes: it fails here; the rest is skipped to its closer.
            self.fail(out, ErrorReason::TooLarge);
            return Act::WAIT;
        }
        match d {
            Decision::Literal { index, len } => self.literal(cfg, out, index, len, window),
            Decision::Text(n) | Decision::Invalid(n) => self.text(out, d, window, n),
            Decision::NeedMore | Decision::Stop { .. } | Decision::Element(_) => Act::WAIT,
        }
    }

    fn end_of_input(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) {
        match self.ctx {
            // A header cut off: wire syntax, as a cut tag is (no block was started).
            Ctx::CallHead => out.stop_capture(),
            // Between arguments, or inside an argument's header: the arguments read so far
            // are the call's.
            Ctx::Call | Ctx::ArgHead => out.finish_call(cfg, self.params > 0),
            Ctx::Value => {
                self.fail(out, ErrorReason::Unfinished);
                out.fail_call(self.reason, false);
            }
            Ctx::Skip => out.fail_call(self.reason, false),
            Ctx::Text | Ctx::Thinking | Ctx::Region => {}
        }
        self.ctx = Ctx::Text;
    }

    /// A marker cut off by the end of input (`…42<|close|>argu`, `…<|close|>ca`, `<|se`):
    /// it completes the value or call it would close, and is dropped; one cut in a header
    /// drops the header, one in the tools channel ends it.
    fn cut_closer(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>, _cut: &[u8]) -> Cut {
        match self.ctx {
            Ctx::Value => {
                self.close_value(out);
                self.ctx = Ctx::Call;
                Cut::Again
            }
            Ctx::Region | Ctx::CallHead | Ctx::Call | Ctx::ArgHead => {
                self.end_of_input(cfg, out);
                Cut::Done
            }
            _ => Cut::No,
        }
    }
}

impl State {
    /// Where the stream goes once the open call has ended.
    fn home(&self) -> Ctx {
        if self.in_region {
            Ctx::Region
        } else {
            Ctx::Text
        }
    }

    fn literal(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        index: usize,
        len: usize,
        window: &[u8],
    ) -> Act {
        match self.ctx {
            Ctx::Text => {
                out.close_content();
                match index {
                    T_THINK => self.ctx = Ctx::Thinking,
                    T_TOOLS => self.ctx = Ctx::Region,
                    T_CALL => self.begin_call(out, false),
                    // A thinking closer, the response channel's markers, the message's end:
                    // wire syntax.
                    _ => {}
                }
            }
            Ctx::Thinking => match index {
                K_CLOSE => {
                    out.close_content();
                    self.ctx = Ctx::Text;
                }
                K_REOPEN => {
                    return super::thinking_marker(out, false, &window[..len]).unwrap_or(Act::WAIT);
                }
                // The tools, call or response opener: the thinking ends (its closer was
                // lost), and text reads the marker.
                _ => {
                    out.close_content();
                    self.ctx = Ctx::Text;
                    return Act::WAIT;
                }
            },
            Ctx::Region => {
                out.close_content();
                match index {
                    R_CALL => self.begin_call(out, true),
                    R_CLOSE => self.ctx = Ctx::Text,
                    R_REOPEN => {}
                    // The message's closer ends the channel; text drops it.
                    _ => {
                        self.ctx = Ctx::Text;
                        return Act::WAIT;
                    }
                }
            }
            Ctx::CallHead if index == H_SEP => return self.call_header(cfg, out, len),
            // A marker before the header's end: the call never got a name.
            Ctx::CallHead => {
                self.fail(out, ErrorReason::MissingName);
                return Act::WAIT;
            }
            Ctx::Call => match index {
                C_ARG => {
                    out.value.clear();
                    self.ctx = Ctx::ArgHead;
                }
                C_CLOSE => {
                    out.finish_call(cfg, self.params > 0);
                    self.ctx = self.home();
                }
                C_JSON => {
                    self.fail(out, ErrorReason::MalformedBody);
                    return Act::WAIT;
                }
                // The tools or message closer, or the next call's opener: this call's closer
                // is missing; the marker acts where the call stood.
                _ => {
                    out.finish_call(cfg, self.params > 0);
                    self.ctx = self.home();
                    return Act::WAIT;
                }
            },
            Ctx::ArgHead if index == H_SEP => return self.argument_header(cfg, out, len),
            Ctx::ArgHead => {
                self.fail(out, ErrorReason::MalformedParameter);
                return Act::WAIT;
            }
            Ctx::Value => {
                // The argument's closer; any other marker ends the value too (its closer is
                // missing) and acts between the arguments.
                self.close_value(out);
                self.ctx = Ctx::Call;
                if index != V_CLOSE {
                    return Act::WAIT;
                }
            }
            Ctx::Skip => {
                self.ctx = self.home();
                if index == S_CLOSE {
                    return out.close_skipped(self.reason, len, true);
                }
                out.close_skipped(self.reason, 0, false);
                return Act::WAIT;
            }
        }
        Act::skip(len)
    }

    fn text(&mut self, out: &mut Emitter<'_>, d: Decision, window: &[u8], n: usize) -> Act {
        match self.ctx {
            Ctx::Text => out.content(BlockType::Text, 0, d),
            Ctx::Thinking => out.content(BlockType::Thinking, 0, d),
            Ctx::Region => stray_text(out, d, window),
            Ctx::CallHead | Ctx::ArgHead => {
                let bytes: &[u8] = match d {
                    Decision::Text(_) => &window[..n],
                    _ => "\u{FFFD}".as_bytes(),
                };
                if out.value.len() + bytes.len() > HEAD_CAP || !out.value.push(bytes) {
                    self.fail(out, ErrorReason::TooLarge);
                    return Act::WAIT;
                }
                Act::skip(n)
            }
            Ctx::Call => {
                let ws = leading_ws(d, window);
                if ws > 0 {
                    return Act::skip(ws);
                }
                self.fail(out, ErrorReason::UnexpectedContent);
                Act::WAIT
            }
            // Raw: a string keeps every byte (no framing line feeds).
            Ctx::Value => value::text(out, &mut self.value, true, d, window),
            Ctx::Skip => out.skip(d, self.reason),
        }
    }

    /// A call opener: its header is held from here (its raw text is captured from the
    /// opener on; the block starts at the header's end).
    fn begin_call(&mut self, out: &mut Emitter<'_>, in_region: bool) {
        out.begin_capture();
        out.value.clear();
        self.in_region = in_region;
        self.params = 0;
        self.tool = None;
        self.ctx = Ctx::CallHead;
    }

    /// Starts the open call's tool_call block.
    fn start_call(&self, out: &mut Emitter<'_>) {
        out.set_call_depth(u8::from(self.in_region));
        out.start_block(BlockType::ToolCall, 1);
        out.clear_tool_strs();
    }

    /// The call header's `<|sep|>` (`len` bytes): the block starts, named by `tool`.
    fn call_header(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>, len: usize) -> Act {
        let mut name = [0u8; STR_CAP];
        let got = attr(out.value.bytes(), b"tool").map(|v| decode(v, &mut name));
        self.start_call(out);
        self.ctx = Ctx::Call;
        let n = match got {
            Some(Some(n)) if n > 0 => n,
            Some(None) => {
                self.fail(out, ErrorReason::TooLarge);
                return Act::skip(len);
            }
            _ => {
                self.fail(out, ErrorReason::MissingName);
                return Act::skip(len);
            }
        };
        let name = &name[..n];
        out.set_name(name);
        out.queue_chunk(Some(Part::Name), out.name_spool());
        // `NAME:n`, from the name as kept (whole characters, at most 127 bytes).
        let mut id = [0u8; STR_CAP + 21];
        let kept = out.strs.bytes().get(..out.name_len as usize).unwrap_or(&[]);
        id[..kept.len()].copy_from_slice(kept);
        id[kept.len()] = b':';
        let mut digits = [0u8; 20];
        let k = decimal(u64::from(out.calls), &mut digits);
        let end = kept.len() + 1 + k.len();
        id[kept.len() + 1..end].copy_from_slice(k);
        out.set_wire_id(&id[..end]);
        out.queue_chunk(Some(Part::Id), out.id_spool());
        self.tool = cfg.tools().find(name).map(|i| i as u16);
        Act::skip(len)
    }

    /// An argument header's `<|sep|>` (`len` bytes): the value opens, keyed by `key` and
    /// typed by `type`.
    fn argument_header(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>, len: usize) -> Act {
        let mut key = [0u8; STR_CAP];
        let attrs = out.value.bytes();
        let got = attr(attrs, b"key").map(|v| decode(v, &mut key));
        let written = attr(attrs, b"type").map(|t| t == b"string");
        let n = match got {
            Some(Some(n)) => n,
            Some(None) => {
                self.fail(out, ErrorReason::TooLarge);
                return Act::skip(len);
            }
            None => {
                self.fail(out, ErrorReason::MalformedParameter);
                return Act::skip(len);
            }
        };
        let key = &key[..n];
        // The model's own `type` says how it wrote the value; without one, the schema's.
        let ty = match written {
            Some(true) => ValueType::String,
            Some(false) => ValueType::Any,
            None => match value::param_type(cfg, self.tool, key) {
                ValueType::Any => ValueType::String,
                declared => declared,
            },
        };
        self.json_typed = written == Some(false);
        self.value = value::open(out, self.params == 0, key, ty);
        self.params += 1;
        self.ctx = Ctx::Value;
        Act::skip(len)
    }

    /// The open value ends (at its closer, or where its closer is missing).
    fn close_value(&mut self, out: &mut Emitter<'_>) {
        if self.json_typed {
            value::close_json(out, self.value);
        } else {
            value::close(out, self.value);
        }
    }

    /// The open call fails: it is skipped to its closer (or the marker that cuts it off).
    fn fail(&mut self, out: &mut Emitter<'_>, reason: ErrorReason) {
        if self.ctx == Ctx::CallHead {
            // The block starts at the header's end: a call that fails before it starts here.
            self.start_call(out);
        }
        if out.id_len == 0 {
            // Failed calls are counted too, also when they never got an id.
            out.calls += 1;
        }
        self.reason = reason;
        self.ctx = Ctx::Skip;
    }
}

/// The raw value of attribute `name` in a header, as vLLM's `(\w+)="([^"]*)"` finds it:
/// the last match of the name wins. A word is a run of ASCII letters, digits, `_` and
/// non-ASCII bytes (Python's `\w` holds the non-ASCII letters).
fn attr<'h>(head: &'h [u8], name: &[u8]) -> Option<&'h [u8]> {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    let mut found = None;
    let mut i = 0;
    while i < head.len() {
        if !word(head[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < head.len() && word(head[i]) {
            i += 1;
        }
        if head[i..].starts_with(b"=\"") {
            let from = i + 2;
            let Some(q) = head[from..].iter().position(|&b| b == b'"') else {
                // No closing quote: nothing after it can match either.
                break;
            };
            if &head[start..i] == name {
                found = Some(&head[from..from + q]);
            }
            i = from + q + 1;
        }
    }
    found
}

/// Decodes an attribute value into `out` (`&quot;` → `"`, `&amp;` → `&`, in one pass: the
/// same as vLLM's two replacements in that order): its length, or `None` when it is longer
/// than a name or key keeps (127 bytes).
fn decode(raw: &[u8], out: &mut [u8; STR_CAP]) -> Option<usize> {
    let mut n = 0;
    let mut i = 0;
    while i < raw.len() {
        let (byte, width) = if raw[i..].starts_with(b"&quot;") {
            (b'"', 6)
        } else if raw[i..].starts_with(b"&amp;") {
            (b'&', 5)
        } else {
            (raw[i], 1)
        };
        if n == STR_CAP - 1 {
            return None;
        }
        out[n] = byte;
        n += 1;
        i += width;
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_are_read_as_vllm_reads_them() {
        let h = br#" tool="get_weather" index="1""#;
        assert_eq!(attr(h, b"tool"), Some(&b"get_weather"[..]));
        assert_eq!(attr(h, b"index"), Some(&b"1"[..]));
        assert_eq!(attr(h, b"key"), None);
        // The last of a repeated attribute wins; a longer word is another attribute.
        assert_eq!(attr(br#"tool="a" tool="b""#, b"tool"), Some(&b"b"[..]));
        assert_eq!(attr(br#"xtool="a""#, b"tool"), None);
        assert_eq!(attr(br#"tool="""#, b"tool"), Some(&b""[..]));
        assert_eq!(attr(br#"tool = "a""#, b"tool"), None);
        assert_eq!(attr(br#"tool="a<b>c""#, b"tool"), Some(&b"a<b>c"[..]));
        assert_eq!(attr(br#"tool="unclosed"#, b"tool"), None);
    }

    #[test]
    fn entities_decode_in_one_pass() {
        let mut buf = [0u8; STR_CAP];
        let n = decode(b"a&amp;b&quot;c&amp;quot;&lt;", &mut buf).unwrap();
        assert_eq!(&buf[..n], b"a&b\"c&quot;&lt;");
        assert_eq!(decode(&[b'x'; 128], &mut buf), None);
        assert_eq!(decode(&[b'x'; 127], &mut buf), Some(127));
    }
}
