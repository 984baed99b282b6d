//! `morph-xml`: `<N>…</N>` or `<N/>` where N is a configured tool name; its children are the
//! arguments (`<city>Paris</city>`).
//!
//! - Only configured tool names open a call, matched exactly (`get` and `get_weather` never
//!   collide; `<getter>` is text): a run-time name list of the scanner
//!   ([`Names::Tools`]). A call tag has no attributes; whitespace before `>` is allowed.
//!   Anything else, closers with no opener included, is text.
//! - Inside a call, any element name opens an argument ([`Names::Any`]); whitespace between
//!   arguments is wire formatting; other text fails the call (`unexpected-content`). The
//!   call ends at `</N>` outside its arguments.
//! - A string-typed argument (by the tool's schema) streams per token as a JSON string: raw,
//!   untrimmed, inner markup kept, the five named entities (`&lt; &gt; &amp; &quot; &apos;`)
//!   decoded (other references stay as written). It ends at its first `</k>`.
//! - Any other argument is held (the machine's value buffer) to its matching closer — nested
//!   elements counted — then converted by [`convert`]: trimmed and coerced by the schema
//!   (integer/number: the number as written; boolean: `true`/`false` in any ASCII case;
//!   array: JSON array text, else `<item>` children, else the content as one item, items
//!   coerced by the `items` type; object: JSON object text, else nested elements). An array
//!   argument's items stream as each element closes, and consecutive repeated elements add
//!   items, so `]` comes when a different sibling or the call's closer shows up.
//! - An argument the schema does not declare may repeat (→ an array), so it is held until the
//!   next sibling or the call's closer decides (DESIGN.md, "Bounded memory"). Its value is
//!   the untyped guess of the trimmed text (JSON when valid, except a run of 16+ digits, else
//!   a string), or an object when its content is nested elements only.
//! - Failures: stray text in a call, a closer at an argument's level that is not its own
//!   (`malformed-parameter`), end of input inside an argument (`unfinished`), a call or held
//!   argument over its buffer (`too-large`). The call is skipped to `</N>`; its raw
//!   `<N>…</N>` is re-emitted at depth 0, where the call sits, with `on_malformed = "text"`.
//!   A held (untyped) value that was never streamed is not emitted by a failed call.
//!   A call still open at end of input completes normally when no argument is open.
//!
//! Choices where DESIGN.md is silent:
//! - Entities are decoded in every argument (held ones too, before typing); inside nested
//!   elements the converter decodes the text it writes as strings.
//! - An empty (or self-closing) argument: string → `""`, array → `[]`, object → `{}`,
//!   anything else → `""`. Array items of type string are raw (untrimmed), like string
//!   arguments; JSON array text is used as written (items not re-typed); JSON array texts of
//!   repeated elements are concatenated.
//! - Nested elements of an object argument (or of an untyped one made only of elements) are
//!   typed by the untyped rules: nested elements → object, consecutive repeats → array, text →
//!   the untyped guess. Mixed text and elements is text. Nesting deeper than [`MAX_NEST`]
//!   levels is text too.
//! - A held argument must fit in the value buffer together with its JSON form (about twice
//!   its size; `max_call_bytes` with `alloc`, a quarter of the memory without): a longer one
//!   fails the call as `too-large`. String-typed arguments stream and have no such limit.
//! - CDATA has no special meaning (DESIGN.md gives morph-xml none, and a string argument ends
//!   at its first `</k>`): `<![CDATA[…]]>` is inner markup, kept as written.

use crate::buf::Buf;
use crate::config::{Config, StartIn, ValueType};
use crate::event::{BlockType, ErrorReason, Part};
use crate::json::{compact_piece, escape_byte};
use crate::scan::tag::{self, TagLex};
use crate::scan::{DYNAMIC, Decision, EXTRA, Names, Tag, Vocab};
use crate::sieve::{Act, Emit, Machine, STR_CAP, Spool, SpoolMode};

use super::DialectState;
use super::value::{self, Typed, trim, typed, ws_prefix};

/// Nesting of elements inside a held argument that the converter reads as structure.
pub(crate) const MAX_NEST: usize = 16;

const fn bit(e: u8) -> u32 {
    1 << e
}

/// The five named entities and what they decode to, as JSON string contents.
const ENTITIES: [(&[u8], &str, u8); 5] = [
    (b"&lt;", "<", b'<'),
    (b"&gt;", ">", b'>'),
    (b"&amp;", "&", b'&'),
    (b"&quot;", "\\\"", b'"'),
    (b"&apos;", "'", b'\''),
];

/// Any element, opening or closing: what a held argument's content is read with.
/// Any element (inside a held argument; attributes there are not markup: the held value's
/// nested elements become object members by name only).
const ANY: Vocab<'static> = Vocab {
    open: bit(DYNAMIC),
    close: bit(DYNAMIC),
    dynamic: Names::Any,
    ..Vocab::EMPTY
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    Text,
    Thinking,
    /// Inside `<N>`, between arguments.
    Call,
    /// Inside a string-typed argument (streamed).
    Str,
    /// Inside any other argument (held).
    Held,
    /// A failed call, skipped to `</N>`.
    Skip,
}

/// What the arguments read so far still owe the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tail {
    None,
    /// An undeclared argument's JSON value, complete but not emitted (it might repeat):
    /// `value[start..end]`; its key is the machine's key.
    Held {
        start: u32,
        end: u32,
    },
    /// `"key":[…` is out, `]` is owed; `items`: at least one item is out.
    Array {
        items: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct State {
    ctx: Ctx,
    /// The configured tool of the current call.
    tool: u16,
    /// Members of the input object already emitted.
    members: u16,
    /// Open elements inside the held argument.
    depth: u16,
    /// The held argument's declared type and items type.
    ty: ValueType,
    items: ValueType,
    /// The held argument continues the array in `tail`.
    repeat: bool,
    tail: Tail,
    /// Why the current call failed (in `Skip`).
    reason: ErrorReason,
}

impl State {
    pub(crate) fn new(cfg: &Config<'_>) -> State {
        State {
            ctx: match cfg.start_in {
                StartIn::Text => Ctx::Text,
                StartIn::Thinking => Ctx::Thinking,
            },
            tool: 0,
            members: 0,
            depth: 0,
            ty: ValueType::Any,
            items: ValueType::Any,
            repeat: false,
            tail: Tail::None,
            reason: ErrorReason::MalformedBody,
        }
    }
}

/// The current argument's key (the machine's key slot).
fn key<'m>(m: &'m Machine<'_>) -> &'m [u8] {
    let s = 2 * STR_CAP;
    m.strs.bytes().get(s..s + m.key_len as usize).unwrap_or(&[])
}

fn tool_name<'m>(m: &'m Machine<'_>, s: State) -> &'m [u8] {
    m.tools()
        .name(s.tool as usize)
        .map_or(&[][..], str::as_bytes)
}

/// What [`vocab`] depends on besides the configuration (see [`super::vocab_key`]): the
/// context and the call's tool; the argument key of `Str` is set only on entering `Str`.
pub(crate) fn vocab_key(s: &State) -> u32 {
    s.ctx as u32 | (s.tool as u32) << 8
}

pub(crate) fn vocab<'m>(m: &'m Machine<'_>, s: State) -> Vocab<'m> {
    let (open, close) = m.thinking_tags();
    match s.ctx {
        Ctx::Text => Vocab {
            open: bit(DYNAMIC),
            dynamic: Names::Tools(m.tools()),
            stops: m.stops(),
            ..Vocab::EMPTY
        }
        .with_literal(open.as_bytes()),
        Ctx::Thinking => Vocab::EMPTY.with_literal(close.as_bytes()),
        Ctx::Call => Vocab {
            open: bit(DYNAMIC),
            close: bit(EXTRA),
            dynamic: Names::Any,
            extra: tool_name(m, s),
            attrs: true,
            ..Vocab::EMPTY
        },
        Ctx::Str => ENTITIES.iter().fold(
            Vocab {
                close: bit(EXTRA),
                extra: key(m),
                ..Vocab::EMPTY
            },
            |v, e| v.with_literal(e.0),
        ),
        Ctx::Held => ANY,
        Ctx::Skip => Vocab {
            close: bit(EXTRA),
            extra: tool_name(m, s),
            ..Vocab::EMPTY
        },
    }
}

pub(crate) fn act(m: &mut Machine<'_>, mut s: State, d: Decision, window: &[u8]) -> Act {
    let a = step(m, &mut s, d, window);
    m.dialect = DialectState::Morph(s);
    a
}

fn step(m: &mut Machine<'_>, s: &mut State, d: Decision, window: &[u8]) -> Act {
    if m.call_too_large() && matches!(s.ctx, Ctx::Call | Ctx::Str | Ctx::Held) {
        // The call outgrew max_call_bytes: it fails here; the rest is skipped to its closer.
        return skip_call(s, ErrorReason::TooLarge);
    }
    match d {
        Decision::Element(tag) => on_tag(m, s, tag, &window[..tag.len]),
        Decision::Literal { index, len } => match s.ctx {
            Ctx::Text | Ctx::Thinking => {
                m.close_content();
                s.ctx = if s.ctx == Ctx::Text {
                    Ctx::Thinking
                } else {
                    Ctx::Text
                };
                Act::skip(len)
            }
            Ctx::Str => {
                let decoded = ENTITIES.get(index).map_or("", |e| e.1);
                Act {
                    consume: len,
                    emit: Some((m.meta(Some(Part::Input)), Emit::Static(decoded))),
                }
            }
            _ => Act::skip(len),
        },
        Decision::Text(_) | Decision::Invalid(_) => on_text(m, s, d, window),
        Decision::NeedMore | Decision::Stop { .. } => Act::WAIT,
    }
}

fn skip_call(s: &mut State, reason: ErrorReason) -> Act {
    s.ctx = Ctx::Skip;
    s.reason = reason;
    Act::WAIT
}

fn on_text(m: &mut Machine<'_>, s: &mut State, d: Decision, window: &[u8]) -> Act {
    let (n, bytes): (usize, &[u8]) = match d {
        Decision::Text(n) => (n, &window[..n]),
        Decision::Invalid(n) => (n, "\u{FFFD}".as_bytes()),
        _ => return Act::WAIT,
    };
    match s.ctx {
        Ctx::Text => m.content(BlockType::Text, 0, d),
        Ctx::Thinking => m.content(BlockType::Thinking, 0, d),
        Ctx::Call => {
            if matches!(d, Decision::Text(_)) && ws_prefix(bytes) == n {
                Act::skip(n)
            } else {
                skip_call(s, ErrorReason::UnexpectedContent)
            }
        }
        Ctx::Str => {
            let meta = m.meta(Some(Part::Input));
            if !matches!(d, Decision::Text(_)) {
                return Act {
                    consume: n,
                    emit: Some((meta, Emit::Static("\u{FFFD}"))),
                };
            }
            m.escaped_act(meta, bytes)
        }
        Ctx::Held => {
            if m.value.push(bytes) {
                Act::skip(n)
            } else {
                skip_call(s, ErrorReason::TooLarge)
            }
        }
        Ctx::Skip => Act::skip(n),
    }
}

fn on_tag(m: &mut Machine<'_>, s: &mut State, tag: Tag, bytes: &[u8]) -> Act {
    let name = tag.name(bytes);
    match (s.ctx, tag.closing) {
        (Ctx::Text, false) => open_call(m, s, tag, name),
        (Ctx::Call, false) => return open_arg(m, s, tag, name),
        (Ctx::Call, true) => {
            if flush_tail(m, s, None) {
                return Act::WAIT;
            }
            finish_call(m, s);
        }
        (Ctx::Str, true) => {
            m.queue_chunk(Some(Part::Input), Spool::Static("\""));
            s.ctx = Ctx::Call;
        }
        (Ctx::Held, false) => {
            if !tag.self_closing {
                s.depth = s.depth.saturating_add(1);
            }
            if !m.value.push(bytes) {
                return skip_call(s, ErrorReason::TooLarge);
            }
        }
        (Ctx::Held, true) if s.depth > 0 => {
            s.depth -= 1;
            if !m.value.push(bytes) {
                return skip_call(s, ErrorReason::TooLarge);
            }
        }
        (Ctx::Held, true) => {
            if name != key(m) {
                // Not this argument's closer: the call is malformed (the tag is read again,
                // as the call's closer or as skipped text).
                return skip_call(s, ErrorReason::MalformedParameter);
            }
            if !close_held(m, s) {
                return skip_call(s, ErrorReason::TooLarge);
            }
        }
        (Ctx::Skip, _) => {
            m.fail_call(s.reason, 0, true);
            s.ctx = Ctx::Text;
        }
        // The vocabulary admits no other tag in each context.
        _ => {}
    }
    Act::skip(tag.len)
}

fn open_call(m: &mut Machine<'_>, s: &mut State, tag: Tag, name: &[u8]) {
    m.open_call(1);
    m.announce_call(name);
    s.tool = m.tools().find(name).unwrap_or(0) as u16;
    s.members = 0;
    s.tail = Tail::None;
    s.ctx = Ctx::Call;
    if tag.self_closing {
        finish_call(m, s);
    }
}

fn finish_call(m: &mut Machine<'_>, s: &mut State) {
    let close = if s.members == 0 { "{}" } else { "}" };
    m.queue_chunk(Some(Part::Input), Spool::Static(close));
    m.complete_tool(None, false);
    m.stop_capture();
    s.ctx = Ctx::Text;
}

/// Queues `{"key` or `,"key` then `suffix` (`":`, `":"` or `":[`) for a new member.
fn member(m: &mut Machine<'_>, s: &mut State, suffix: &'static str) {
    let open = if s.members == 0 { "{\"" } else { ",\"" };
    m.queue_chunk(Some(Part::Input), Spool::Static(open));
    m.queue_chunk(Some(Part::Input), m.key_spool());
    m.queue_chunk(Some(Part::Input), Spool::Static(suffix));
    s.members = s.members.saturating_add(1);
}

/// Settles what the arguments owe before the next sibling (`next`: its name) or the call's
/// closer (`None`): a held value is emitted (as the first item of an array when the sibling
/// repeats it), an open array is closed unless the sibling continues it. Returns true when
/// chunks were queued (the caller waits for them to drain, then sees the same tag again).
fn flush_tail(m: &mut Machine<'_>, s: &mut State, next: Option<&[u8]>) -> bool {
    let same = next.is_some_and(|n| n == key(m));
    match s.tail {
        Tail::None => false,
        Tail::Held { start, end } => {
            member(m, s, if same { "\":[" } else { "\":" });
            m.queue_chunk(
                Some(Part::Input),
                value::spool(SpoolMode::Plain, start as usize, end as usize),
            );
            s.tail = if same {
                Tail::Array { items: true }
            } else {
                Tail::None
            };
            true
        }
        Tail::Array { .. } if same => false,
        Tail::Array { .. } => {
            m.queue_chunk(Some(Part::Input), Spool::Static("]"));
            s.tail = Tail::None;
            true
        }
    }
}

fn open_arg(m: &mut Machine<'_>, s: &mut State, tag: Tag, name: &[u8]) -> Act {
    if flush_tail(m, s, Some(name)) {
        return Act::WAIT;
    }
    s.repeat = matches!(s.tail, Tail::Array { .. });
    if !s.repeat {
        m.set_key(name);
    }
    let (ty, items) = m
        .tools()
        .param_type(s.tool as usize, name)
        .unwrap_or((ValueType::Any, ValueType::Any));
    if ty == ValueType::String && !s.repeat {
        member(m, s, "\":\"");
        s.ctx = Ctx::Str;
        if tag.self_closing {
            m.queue_chunk(Some(Part::Input), Spool::Static("\""));
            s.ctx = Ctx::Call;
        }
        return Act::skip(tag.len);
    }
    s.ty = ty;
    s.items = items;
    s.depth = 0;
    m.value.clear();
    s.ctx = Ctx::Held;
    if tag.self_closing && !close_held(m, s) {
        return skip_call(s, ErrorReason::TooLarge);
    }
    Act::skip(tag.len)
}

/// The held argument's closer: converts `value[..]` and queues or holds the result.
/// False when the buffer overflowed.
fn close_held(m: &mut Machine<'_>, s: &mut State) -> bool {
    s.ctx = Ctx::Call;
    let src = m.value.len();
    let array = s.ty == ValueType::Array;
    let ok = if array {
        items(&mut m.value, 0, src, s.items, 0).is_some()
    } else {
        convert(&mut m.value, 0, src, s.ty, s.items, 0)
    };
    let end = m.value.len();
    if !ok {
        return false;
    }
    let out = value::spool(SpoolMode::Plain, src, end);
    let had_items = matches!(s.tail, Tail::Array { items: true });
    match (s.repeat, array) {
        // A new array argument: its first items now, `]` when the next sibling decides.
        (false, true) => {
            member(m, s, "\":[");
            m.queue_chunk(Some(Part::Input), out);
            s.tail = Tail::Array { items: end > src };
        }
        // More items of an open array.
        (true, _) => {
            let more = end > src;
            if more && had_items {
                m.queue_chunk(Some(Part::Input), Spool::Static(","));
            }
            m.queue_chunk(Some(Part::Input), out);
            s.tail = Tail::Array {
                items: had_items || more,
            };
        }
        // An undeclared argument might repeat: hold it.
        (false, false) if s.ty == ValueType::Any => {
            s.tail = Tail::Held {
                start: src as u32,
                end: end as u32,
            };
        }
        (false, false) => {
            member(m, s, "\":");
            m.queue_chunk(Some(Part::Input), out);
        }
    }
    true
}

pub(crate) fn end_of_input(m: &mut Machine<'_>, mut s: State) {
    match s.ctx {
        Ctx::Call => {
            // At most six events: a held member (4), `}` and the completion.
            flush_tail(m, &mut s, None);
            finish_call(m, &mut s);
        }
        Ctx::Str | Ctx::Held => m.fail_call(ErrorReason::Unfinished, 0, false),
        Ctx::Skip => m.fail_call(s.reason, 0, false),
        Ctx::Text | Ctx::Thinking => {}
    }
    s.ctx = Ctx::Text;
    m.dialect = DialectState::Morph(s);
}

// --- conversion of held content to JSON ----------------------------------------------------
//
// The held content is `buf[a..e]`; the JSON is appended to `buf`. Scratch space (decoded
// text) is appended too, and the output moved down over it, so a value's JSON is always one
// contiguous range right after what was there before. Everything is bounded by the buffer:
// a push that does not fit makes the conversion fail (false / None).

/// Appends `buf[a..e]` to `buf`.
fn copy(buf: &mut Buf<'_>, mut a: usize, e: usize) -> bool {
    let mut tmp = [0u8; 64];
    while a < e {
        let n = (e - a).min(tmp.len());
        match buf.bytes().get(a..a + n) {
            Some(b) => tmp[..n].copy_from_slice(b),
            None => return false,
        }
        if !buf.push(&tmp[..n]) {
            return false;
        }
        a += n;
    }
    true
}

/// Moves `buf[from..]` down to `to` (`to <= from`) and drops what followed.
fn move_down(buf: &mut Buf<'_>, from: usize, to: usize) {
    let end = buf.len();
    let mut tmp = [0u8; 64];
    let mut k = 0;
    while from + k < end {
        let n = (end - from - k).min(tmp.len());
        if let Some(b) = buf.bytes().get(from + k..from + k + n) {
            tmp[..n].copy_from_slice(b);
        }
        buf.write_at(to + k, &tmp[..n]);
        k += n;
    }
    buf.truncate(to + (end - from));
}

/// The named entity at the start of `b`, if any.
fn entity(b: &[u8]) -> Option<&'static (&'static [u8], &'static str, u8)> {
    ENTITIES.iter().find(|e| b.starts_with(e.0))
}

/// Appends `buf[a..e]` as JSON string contents (escaped), decoding entities if `decode`.
fn push_escaped(buf: &mut Buf<'_>, a: usize, e: usize, decode: bool) -> bool {
    let mut i = a;
    while i < e {
        let Some(rest) = buf.bytes().get(i..e) else {
            return false;
        };
        let run = rest
            .iter()
            .position(|&b| (decode && b == b'&') || escape_byte(b).is_some())
            .unwrap_or(rest.len());
        if run > 0 {
            if !copy(buf, i, i + run) {
                return false;
            }
            i += run;
            continue;
        }
        let b = rest[0];
        let (text, len) = match entity(rest).filter(|_| decode) {
            Some(ent) => (ent.1, ent.0.len()),
            None => (escape_byte(b).unwrap_or("&"), 1),
        };
        if !buf.push(text.as_bytes()) {
            return false;
        }
        i += len;
    }
    true
}

/// Appends `"…"`: `buf[a..e]` as a JSON string.
fn push_string(buf: &mut Buf<'_>, a: usize, e: usize, decode: bool) -> bool {
    buf.push(b"\"") && push_escaped(buf, a, e, decode) && buf.push(b"\"")
}

/// Appends the compact form of the valid JSON `buf[a..e]`.
fn push_compact(buf: &mut Buf<'_>, a: usize, e: usize) -> bool {
    let mut pos = a;
    loop {
        let (x, y) = compact_piece(buf.bytes(), pos, e);
        if x >= y {
            return true;
        }
        if !copy(buf, x, y) {
            return false;
        }
        pos = y;
    }
}

/// The trimmed text of `buf[a..e]` with entities decoded: the range itself when it has no
/// `&`, else a decoded copy appended as scratch. Returns `(start, end, scratch_from)`.
fn text_of(buf: &mut Buf<'_>, a: usize, e: usize) -> Option<(usize, usize, Option<usize>)> {
    let (x, y) = trim(buf.bytes().get(a..e)?);
    let (x, y) = (a + x, a + y);
    if !buf.bytes().get(x..y)?.contains(&b'&') {
        return Some((x, y, None));
    }
    let mark = buf.len();
    let mut i = x;
    while i < y {
        let rest = buf.bytes().get(i..y)?;
        let run = rest.iter().position(|&b| b == b'&').unwrap_or(rest.len());
        if run > 0 {
            copy(buf, i, i + run).then_some(())?;
            i += run;
            continue;
        }
        let (byte, len) = entity(rest).map_or((b'&', 1), |e| (e.2, e.0.len()));
        buf.push(&[byte]).then_some(())?;
        i += len;
    }
    Some((mark, buf.len(), Some(mark)))
}

/// Appends the JSON for the trimmed text `t = buf[x..y]` (already decoded) typed as `ty`.
fn push_typed(buf: &mut Buf<'_>, x: usize, y: usize, ty: ValueType) -> bool {
    let t = buf.bytes().get(x..y).unwrap_or(&[]);
    match typed(ty, t) {
        Typed::Json => push_compact(buf, x, y),
        Typed::Literal(l) => buf.push(l.as_bytes()),
        Typed::Str => push_string(buf, x, y, false),
    }
}

/// Whether text starting with `b` (trimmed, maybe an entity) could be a JSON value or a
/// boolean in any case; text that cannot is written as a string without a decoded copy.
fn may_be_json(b: Option<u8>) -> bool {
    matches!(
        b,
        Some(b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n' | b'T' | b'F' | b'&')
    )
}

/// Runs `f` on the decoded, trimmed text of `buf[a..e]`, then drops any scratch space.
fn with_text(
    buf: &mut Buf<'_>,
    a: usize,
    e: usize,
    f: impl FnOnce(&mut Buf<'_>, usize, usize) -> bool,
) -> bool {
    let Some((x, y, scratch)) = text_of(buf, a, e) else {
        return false;
    };
    let out = buf.len();
    if !f(buf, x, y) {
        return false;
    }
    if let Some(mark) = scratch {
        move_down(buf, out, mark);
    }
    true
}

/// The child elements of `buf[a..e]`, read with the same tag rules as the stream.
#[derive(Clone, Copy)]
struct Children {
    pos: usize,
    end: usize,
}

/// One child element: its name and content ranges.
#[derive(Clone, Copy)]
struct Child {
    name: (usize, usize),
    content: (usize, usize),
}

impl Children {
    fn new(a: usize, e: usize) -> Children {
        Children { pos: a, end: e }
    }

    /// The next child; `Some(None)` when there are no more; `None` when the content is not
    /// made of elements only.
    fn next(&mut self, src: &[u8]) -> Option<Option<Child>> {
        let src = src.get(..self.end)?;
        self.pos += ws_prefix(src.get(self.pos..)?);
        if self.pos >= self.end {
            return Some(None);
        }
        let TagLex::Match(open) = tag::lex(&ANY, src.get(self.pos..)?, true) else {
            return None;
        };
        if open.closing {
            return None;
        }
        let at = self.pos;
        let name = (at + 1, at + open.name_end);
        let body = at + open.len;
        if open.self_closing {
            self.pos = body;
            return Some(Some(Child {
                name,
                content: (body, body),
            }));
        }
        let mut depth = 1usize;
        let mut j = body;
        loop {
            let k = j + memchr::memchr(b'<', src.get(j..)?)?;
            match tag::lex(&ANY, &src[k..], true) {
                TagLex::Match(t) if t.closing => {
                    depth -= 1;
                    if depth == 0 {
                        let closer = &src[k + 2..k + t.name_end];
                        if closer != &src[name.0..name.1] {
                            return None;
                        }
                        self.pos = k + t.len;
                        return Some(Some(Child {
                            name,
                            content: (body, k),
                        }));
                    }
                    j = k + t.len;
                }
                TagLex::Match(t) => {
                    if !t.self_closing {
                        depth += 1;
                    }
                    j = k + t.len;
                }
                _ => j = k + 1,
            }
        }
    }

    /// Whether the content is elements only, at least one, all named `only` if given.
    fn all(mut self, src: &[u8], only: Option<&[u8]>) -> bool {
        let mut any = false;
        loop {
            match self.next(src) {
                None => return false,
                Some(None) => return any,
                Some(Some(c)) => {
                    if only.is_some_and(|o| src.get(c.name.0..c.name.1) != Some(o)) {
                        return false;
                    }
                    any = true;
                }
            }
        }
    }
}

/// Appends the JSON value of the held content `buf[a..e]` as type `ty` (`items`: the items'
/// type of an array). `nest`: how deep in nested elements this content is.
fn convert(
    buf: &mut Buf<'_>,
    a: usize,
    e: usize,
    ty: ValueType,
    items_ty: ValueType,
    nest: usize,
) -> bool {
    let structured = nest < MAX_NEST;
    match ty {
        ValueType::String => push_string(buf, a, e, true),
        ValueType::Array => {
            buf.push(b"[") && items(buf, a, e, items_ty, nest).is_some() && buf.push(b"]")
        }
        ValueType::Object | ValueType::Any
            if structured && Children::new(a, e).all(buf.bytes(), None) =>
        {
            object(buf, a, e, nest)
        }
        ValueType::Object => with_text(buf, a, e, |buf, x, y| {
            if x == y {
                buf.push(b"{}")
            } else {
                push_typed(buf, x, y, ValueType::Object)
            }
        }),
        _ => {
            let (x, y) = trim(buf.bytes().get(a..e).unwrap_or(&[]));
            if x < y && !may_be_json(buf.bytes().get(a + x).copied()) {
                // Entities never decode to whitespace: trimming first is the same.
                return push_string(buf, a + x, a + y, true);
            }
            with_text(buf, a, e, |buf, x, y| push_typed(buf, x, y, ty))
        }
    }
}

/// Appends the items (comma-separated, no brackets) of array content `buf[a..e]`; returns
/// how many (0 or more), `None` on overflow.
fn items(buf: &mut Buf<'_>, a: usize, e: usize, items_ty: ValueType, nest: usize) -> Option<usize> {
    let mut count = 0usize;
    // JSON array text: its items, as written.
    let mut json = false;
    let ok = with_text(buf, a, e, |buf, x, y| {
        let t = buf.bytes().get(x..y).unwrap_or(&[]);
        if x == y {
            json = true;
            return true;
        }
        if typed(ValueType::Array, t) != Typed::Json {
            return true;
        }
        json = true;
        let before = buf.len();
        // The compact form minus its brackets.
        if !push_compact(buf, x + 1, y - 1) {
            return false;
        }
        count = usize::from(buf.len() > before);
        true
    });
    if !ok {
        return None;
    }
    if json {
        return Some(count);
    }
    let structured = nest < MAX_NEST;
    if structured && Children::new(a, e).all(buf.bytes(), Some(b"item")) {
        let mut kids = Children::new(a, e);
        while let Some(Some(c)) = kids.next(buf.bytes()) {
            if count > 0 && !buf.push(b",") {
                return None;
            }
            let (ca, ce) = c.content;
            convert(buf, ca, ce, items_ty, ValueType::Any, nest + 1).then_some(())?;
            count += 1;
        }
        return Some(count);
    }
    convert(buf, a, e, items_ty, ValueType::Any, nest + 1).then_some(1)
}

/// Appends an object made of the child elements of `buf[a..e]` (consecutive repeats →
/// arrays), each child typed by the untyped rules.
fn object(buf: &mut Buf<'_>, a: usize, e: usize, nest: usize) -> bool {
    if !buf.push(b"{") {
        return false;
    }
    let mut kids = Children::new(a, e);
    let mut first = true;
    while let Some(Some(c)) = kids.next(buf.bytes()) {
        // How many consecutive siblings share this name.
        let mut run = 1;
        let mut peek = kids;
        while let Some(Some(d)) = peek.next(buf.bytes()) {
            let same = {
                let b = buf.bytes();
                b.get(d.name.0..d.name.1) == b.get(c.name.0..c.name.1)
            };
            if !same {
                break;
            }
            run += 1;
        }
        let sep: &[u8] = if first { b"\"" } else { b",\"" };
        first = false;
        if !(buf.push(sep) && copy(buf, c.name.0, c.name.1) && buf.push(b"\":")) {
            return false;
        }
        if run > 1 && !buf.push(b"[") {
            return false;
        }
        let mut child = c;
        for k in 0..run {
            if k > 0 {
                match kids.next(buf.bytes()) {
                    Some(Some(d)) => child = d,
                    _ => return false,
                }
                if !buf.push(b",") {
                    return false;
                }
            }
            let (ca, ce) = child.content;
            if !convert(buf, ca, ce, ValueType::Any, ValueType::Any, nest + 1) {
                return false;
            }
        }
        if run > 1 && !buf.push(b"]") {
            return false;
        }
    }
    buf.push(b"}")
}

/// The content block plain text goes to in the current context, if it goes to one as is.
pub(crate) fn plain_block(s: &State) -> Option<(BlockType, u8)> {
    match s.ctx {
        Ctx::Text => Some((BlockType::Text, 0)),
        Ctx::Thinking => Some((BlockType::Thinking, 0)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Converts `src` as `ty` and hands the JSON to `f` (no `std` needed).
    fn with_conv<R>(src: &str, ty: ValueType, items_ty: ValueType, f: impl FnOnce(&str) -> R) -> R {
        let mut mem = [0u8; 1024];
        let mut buf = Buf::slice(&mut mem);
        assert!(buf.push(src.as_bytes()));
        let n = buf.len();
        assert!(convert(&mut buf, 0, n, ty, items_ty, 0));
        f(core::str::from_utf8(&buf.bytes()[n..]).unwrap())
    }

    fn conv_is(src: &str, ty: ValueType, items_ty: ValueType, want: &str) {
        with_conv(src, ty, items_ty, |got| {
            assert_eq!(got, want, "{src:?} as {ty:?}")
        });
    }

    use ValueType::{Any, Array, Boolean, Integer, Null, Number, Object};
    const STRING: ValueType = ValueType::String;

    #[test]
    fn scalars_are_trimmed_decoded_and_coerced() {
        conv_is(" 7 ", Integer, Any, "7");
        conv_is("1 &lt; 2", Integer, Any, "\"1 < 2\"");
        conv_is("\nTRUE\n", Boolean, Any, "true");
        conv_is("0.50", Number, Any, "0.50");
        conv_is("null", Null, Any, "null");
        conv_is(" a &amp; b ", Any, Any, "\"a & b\"");
        conv_is("12345678901234567890", Any, Any, "\"12345678901234567890\"");
        conv_is(" [1, 2] ", Any, Any, "[1,2]");
        conv_is("", Any, Any, "\"\"");
        conv_is(" x\"y ", STRING, Any, "\" x\\\"y \"");
    }

    #[test]
    fn arrays_from_json_items_or_one_item() {
        conv_is("[1, 2, 3]", Array, Integer, "[1,2,3]");
        conv_is("[ ]", Array, Integer, "[]");
        conv_is("", Array, Integer, "[]");
        conv_is(
            "\n<item>0.5</item>\n<item> 2 </item>\n",
            Array,
            Number,
            "[0.5,2]",
        );
        conv_is("<item> a </item><item/>", Array, STRING, "[\" a \",\"\"]");
        conv_is("solo", Array, STRING, "[\"solo\"]");
        conv_is("5", Array, Integer, "[5]");
        conv_is("<item><a>1</a></item>", Array, Object, "[{\"a\":1}]");
    }

    #[test]
    fn objects_from_json_or_nested_elements() {
        conv_is(" {\"a\": [1, 2]} ", Object, Any, "{\"a\":[1,2]}");
        conv_is("{&quot;a&quot;: 1}", Object, Any, "{\"a\":1}");
        conv_is("", Object, Any, "{}");
        conv_is(
            "<a>1</a><b><c>x</c><c>y</c></b><d/>",
            Object,
            Any,
            "{\"a\":1,\"b\":{\"c\":[\"x\",\"y\"]},\"d\":\"\"}",
        );
        conv_is("<a>1</a> tail", Object, Any, "\"<a>1</a> tail\"");
        conv_is("<a>1</b>", Object, Any, "\"<a>1</b>\"");
        conv_is("<a><a>1</a></a>", Any, Any, "{\"a\":{\"a\":1}}");
        conv_is("text", Object, Any, "\"text\"");
    }

    #[test]
    fn deep_nesting_degrades_to_text() {
        let mut mem = [0u8; 256];
        let mut n = 0;
        for part in [&b"<a>"[..]; MAX_NEST + 2]
            .iter()
            .chain(&[&b"x"[..]])
            .chain(&[&b"</a>"[..]; MAX_NEST + 2])
        {
            mem[n..n + part.len()].copy_from_slice(part);
            n += part.len();
        }
        let deep = core::str::from_utf8(&mem[..n]).unwrap();
        with_conv(deep, Object, Any, |out| {
            let inner = "\"<a><a>x</a></a>\"";
            assert!(out.starts_with("{\"a\":{") && out.contains(inner), "{out}");
            assert_eq!(out.matches('{').count(), MAX_NEST);
        });
    }

    #[test]
    fn overflow_fails_instead_of_panicking() {
        let mut mem = [0u8; 16];
        let mut buf = Buf::slice(&mut mem);
        assert!(buf.push(b"<a>1</a><b>2</b>"));
        assert!(!convert(&mut buf, 0, 16, Object, Any, 0));
    }
}
