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
//!   next sibling or the call's closer decides (docs/design.md, "Bounded memory"). Its value is
//!   the untyped guess of the trimmed text (JSON when valid, except a run of 16+ digits, else
//!   a string), or an object when its content is nested elements only.
//! - Failures: stray text in a call, a closer at an argument's level that is not its own
//!   (`malformed-parameter`), end of input inside an argument (`unfinished`), a call or held
//!   argument over its buffer (`too-large`). The call is skipped to `</N>`; its raw
//!   `<N>…</N>` is re-emitted at depth 0, where the call sits, with `on_malformed = "text"`.
//!   A held (untyped) value that was never streamed is not emitted by a failed call.
//!   A call still open at end of input completes normally when no argument is open.
//! - A closer cut off by the end of input (`max_tokens`): a cut closer of the open argument
//!   (`</city`, `</`, `<`) ends it as the whole closer would, and a cut marker between
//!   arguments completes the call; the cut bytes are wire syntax, dropped. A cut
//!   entity, a cut tag of an element nested in a held argument, or one that cannot be the
//!   argument's closer leaves the argument open (the call fails as unfinished).
//!
//! Choices the design rules leave open (docs/design.md records them):
//! - Entities are decoded in every argument (held ones too, before typing); inside nested
//!   elements the converter decodes the text it writes as strings.
//! - An empty (or self-closing) argument: string → `""`, array → `[]`, object → `{}`,
//!   anything else → `""`. Array items of type string are raw (untrimmed), like string
//!   arguments; JSON array text is used as written (items not re-typed); JSON array texts of
//!   repeated elements are concatenated.
//! - Nested elements of an object argument (or of an untyped one made only of elements) are
//!   typed by the untyped rules: nested elements → object, consecutive repeats → array, text →
//!   the untyped guess. Mixed text and elements is text. Nesting deeper than [`MAX_NEST`](super::xml_value::MAX_NEST)
//!   levels is text too.
//! - A held argument must fit in the value buffer together with its JSON form (about twice
//!   its size; `max_call_bytes` with `alloc`, a quarter of the memory without): a longer one
//!   fails the call as `too-large`. String-typed arguments stream and have no such limit.
//! - CDATA has no special meaning (docs/design.md gives morph-xml none, and a string argument ends
//!   at its first `</k>`): `<![CDATA[…]]>` is inner markup, kept as written.

use crate::config::Settings;
use crate::config::{Config, Dialect, ValueType};
use crate::emit::{Act, Emit, Emitter, STR_CAP, Spool, SpoolMode, floor_char_boundary};
use crate::event::{BlockType, ErrorReason, Part};
use crate::scan::{DYNAMIC, Decision, EXTRA, Names, Tag, Vocab};

use super::value::{self, leading_ws};
use super::xml_value::{ANY, ENTITIES, convert, items};
use super::{Cut, Machine};

const fn bit(e: u8) -> u32 {
    1 << e
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ctx {
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
    /// minimax-m3: inside `<tool_call>`, between invokes.
    Region,
}

/// What the arguments read so far still owe the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tail {
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
    pub(super) ctx: Ctx,
    /// The configured tool of the current call.
    pub(super) tool: u16,
    /// Members of the input object already emitted.
    pub(super) members: u16,
    /// Open elements inside the held argument.
    pub(super) depth: u16,
    /// The held argument's declared type and items type.
    pub(super) ty: ValueType,
    pub(super) items: ValueType,
    /// The held argument continues the array in `tail`.
    pub(super) repeat: bool,
    pub(super) tail: Tail,
    /// Why the current call failed (in `Skip`).
    pub(super) reason: ErrorReason,
    /// minimax-m3 (module docs of [`super::minimax_m3`]): every structural tag follows the
    /// namespace token, and the calls are invokes in a region.
    pub(super) m3: bool,
    /// minimax-m3: the namespace token was just read; a structural tag follows.
    pub(super) ns: bool,
    /// minimax-m3: nothing decided yet, or a call ended thinking it was opened in: a
    /// thinking closer here is wire syntax, dropped.
    pub(super) stray: bool,
}

impl Machine for State {
    const CALL_DEPTH: u8 = 0;

    fn new(cfg: &Config<'_>) -> State {
        State {
            ctx: cfg.start_in.pick(Ctx::Text, Ctx::Thinking),
            tool: 0,
            members: 0,
            depth: 0,
            ty: ValueType::Any,
            items: ValueType::Any,
            repeat: false,
            tail: Tail::None,
            reason: ErrorReason::MalformedBody,
            m3: cfg.machine() == Dialect::MinimaxM3,
            ns: false,
            stray: true,
        }
    }

    /// The context and the call's tool; the argument key of `Str` is set only on entering
    /// `Str`.
    fn vocab_key(&self) -> u32 {
        self.ctx as u32 | (self.ns as u32) << 4 | (self.stray as u32) << 5 | (self.tool as u32) << 8
    }

    fn vocab<'m>(&self, cfg: &'m Settings<'_>, out: &'m Emitter<'_>) -> Vocab<'m> {
        if self.m3 {
            return super::minimax_m3::vocab(cfg, out, self.ctx, self.ns, self.stray);
        }
        match self.ctx {
            Ctx::Text => {
                let open = cfg.thinking_tags().0;
                let mut v = Vocab {
                    open: bit(DYNAMIC),
                    dynamic: Names::Tools(cfg.tools()),
                    stops: cfg.stops(),
                    ..Vocab::EMPTY
                };
                v.add_literal(open.as_bytes());
                v
            }
            Ctx::Thinking => Vocab::EMPTY.with_literal(cfg.thinking_tags().1.as_bytes()),
            Ctx::Call => Vocab {
                open: bit(DYNAMIC),
                close: bit(EXTRA),
                dynamic: Names::Any,
                extra: tool_name(cfg, *self),
                attrs: true,
                ..Vocab::EMPTY
            },
            Ctx::Str => {
                // Built in place: this runs for every decision in a string value.
                let mut v = Vocab {
                    close: bit(EXTRA),
                    extra: key(out),
                    ..Vocab::EMPTY
                };
                for e in ENTITIES {
                    v.add_literal(e.0);
                }
                v
            }
            Ctx::Held => ANY,
            Ctx::Skip => Vocab {
                close: bit(EXTRA),
                extra: tool_name(cfg, *self),
                ..Vocab::EMPTY
            },
            // minimax-m3's only (its own vocabulary, above).
            Ctx::Region => Vocab::EMPTY,
        }
    }

    fn act(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        d: Decision,
        window: &[u8],
    ) -> Act {
        if self.m3 {
            return super::minimax_m3::act(cfg, out, self, d, window);
        }
        if out.call_too_large() && matches!(self.ctx, Ctx::Call | Ctx::Str | Ctx::Held) {
            // The call outgrew max_call_bytes: it fails here; the rest is skipped to its closer.
            return skip_call(self, ErrorReason::TooLarge);
        }
        match d {
            Decision::Element(tag) => on_tag(cfg, out, self, tag, &window[..tag.len]),
            Decision::Literal { index, len } => match self.ctx {
                Ctx::Text | Ctx::Thinking => {
                    out.close_content();
                    self.ctx = if self.ctx == Ctx::Text {
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
                        emit: Some((out.meta(Some(Part::Input)), Emit::Static(decoded))),
                    }
                }
                _ => Act::skip(len),
            },
            Decision::Text(_) | Decision::Invalid(_) => on_text(out, self, d, window),
            Decision::NeedMore | Decision::Stop { .. } => Act::WAIT,
        }
    }

    fn end_of_input(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) {
        match self.ctx {
            Ctx::Call => {
                // At most six events: a held member (4), `}` and the completion.
                flush_tail(out, self, None);
                finish_call(cfg, out, self);
            }
            Ctx::Str | Ctx::Held => out.fail_call(ErrorReason::Unfinished, false),
            Ctx::Skip => out.fail_call(self.reason, false),
            Ctx::Text | Ctx::Thinking | Ctx::Region => {}
        }
        self.ctx = Ctx::Text;
        self.ns = false;
    }

    fn plain_block(&self) -> Option<(BlockType, u8)> {
        match self.ctx {
            Ctx::Text => Some((BlockType::Text, 0)),
            Ctx::Thinking => Some((BlockType::Thinking, 0)),
            _ => None,
        }
    }

    /// A cut closer of the open argument (`</city`, `</`, `<`; not a cut entity, nor a
    /// cut tag of an element nested in a held argument) ends it as the whole closer would;
    /// a cut marker between arguments completes the call. The bytes are then wire syntax,
    /// dropped.
    fn cut_closer(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>, cut: &[u8]) -> Cut {
        if self.m3 {
            return super::minimax_m3::cut_closer(cfg, out, self, cut);
        }
        match self.ctx {
            // The argument's closer is the only marker beginning with `<` inside a string.
            Ctx::Str if cut.first() == Some(&b'<') => {
                out.queue_chunk(Some(Part::Input), Spool::Static("\""));
                self.ctx = Ctx::Call;
                Cut::Again
            }
            Ctx::Held if self.depth == 0 && may_close(cut, key(out)) => {
                if close_held(out, self) {
                    Cut::Again
                } else {
                    // Too large: the call fails, the bytes are skipped into its raw text.
                    skip_call(self, ErrorReason::TooLarge);
                    Cut::No
                }
            }
            // As at the call's closer: what the arguments owe first, then the call.
            Ctx::Call => {
                if flush_tail(out, self, None) {
                    return Cut::Again;
                }
                finish_call(cfg, out, self);
                Cut::Done
            }
            _ => Cut::No,
        }
    }
}

/// Whether `cut`, a tag cut off by the end of input, may be the beginning of `</name>`
/// (whitespace before `>` allowed).
pub(super) fn may_close(cut: &[u8], name: &[u8]) -> bool {
    match cut.strip_prefix(b"</") {
        None => b"</".starts_with(cut),
        Some(rest) if rest.len() <= name.len() => name.starts_with(rest),
        Some(rest) => {
            rest.starts_with(name) && rest[name.len()..].iter().all(u8::is_ascii_whitespace)
        }
    }
}

/// The current argument's key (the machine's key slot).
pub(super) fn key<'m>(out: &'m Emitter<'_>) -> &'m [u8] {
    let s = 2 * STR_CAP;
    out.strs
        .bytes()
        .get(s..s + out.key_len as usize)
        .unwrap_or(&[])
}

fn tool_name<'m>(cfg: &'m Settings<'_>, s: State) -> &'m [u8] {
    cfg.tools()
        .name(s.tool as usize)
        .map_or(&[][..], str::as_bytes)
}

pub(super) fn skip_call(s: &mut State, reason: ErrorReason) -> Act {
    s.ctx = Ctx::Skip;
    s.reason = reason;
    Act::WAIT
}

pub(super) fn on_text(out: &mut Emitter<'_>, s: &mut State, d: Decision, window: &[u8]) -> Act {
    let (n, bytes): (usize, &[u8]) = match d {
        Decision::Text(n) => (n, &window[..n]),
        Decision::Invalid(n) => (n, "\u{FFFD}".as_bytes()),
        _ => return Act::WAIT,
    };
    match s.ctx {
        Ctx::Text => out.content(BlockType::Text, 0, d),
        Ctx::Thinking => out.content(BlockType::Thinking, 0, d),
        Ctx::Call => {
            // Whitespace between arguments is wire formatting, whatever text follows it (so
            // the failure starts at the same byte at any chunking).
            let ws = leading_ws(d, window);
            if ws > 0 {
                Act::skip(ws)
            } else {
                skip_call(s, ErrorReason::UnexpectedContent)
            }
        }
        Ctx::Str => {
            let meta = out.meta(Some(Part::Input));
            if !matches!(d, Decision::Text(_)) {
                return Act {
                    consume: n,
                    emit: Some((meta, Emit::Static("\u{FFFD}"))),
                };
            }
            out.escaped_act(meta, bytes)
        }
        Ctx::Held => {
            // What fits (whole characters) is held; the call fails at the first character
            // that does not, the same byte at any chunking.
            let room = out.value.limit() - out.value.len();
            let (take, consume) = if bytes.len() <= room {
                (bytes.len(), n)
            } else if matches!(d, Decision::Text(_)) {
                let fit = floor_char_boundary(bytes, room);
                (fit, fit)
            } else {
                (0, 0)
            };
            if consume == 0 {
                return skip_call(s, ErrorReason::TooLarge);
            }
            out.value.push(&bytes[..take]);
            Act::skip(consume)
        }
        Ctx::Skip => out.skip(d, s.reason),
        Ctx::Region => super::invoke::stray_text(out, d, window),
    }
}

pub(super) fn on_tag(
    cfg: &Settings<'_>,
    out: &mut Emitter<'_>,
    s: &mut State,
    tag: Tag,
    bytes: &[u8],
) -> Act {
    let name = tag.name(bytes);
    match (s.ctx, tag.closing) {
        (Ctx::Text, false) => open_call(cfg, out, s, tag, name),
        (Ctx::Call, false) => return open_arg(cfg, out, s, tag, name),
        (Ctx::Call, true) => {
            if flush_tail(out, s, None) {
                return Act::WAIT;
            }
            finish_call(cfg, out, s);
        }
        (Ctx::Str, true) => {
            out.queue_chunk(Some(Part::Input), Spool::Static("\""));
            s.ctx = Ctx::Call;
        }
        (Ctx::Held, false) => {
            if !tag.self_closing {
                s.depth = s.depth.saturating_add(1);
            }
            if !hold_tag(out, bytes) {
                return skip_call(s, ErrorReason::TooLarge);
            }
        }
        (Ctx::Held, true) if s.depth > 0 => {
            s.depth -= 1;
            if !hold_tag(out, bytes) {
                return skip_call(s, ErrorReason::TooLarge);
            }
        }
        (Ctx::Held, true) => {
            if name != key(out) {
                // Not this argument's closer: the call is malformed (the tag is read again,
                // as the call's closer or as skipped text).
                return skip_call(s, ErrorReason::MalformedParameter);
            }
            if !close_held(out, s) {
                return skip_call(s, ErrorReason::TooLarge);
            }
        }
        (Ctx::Skip, _) => {
            s.ctx = Ctx::Text;
            return out.close_skipped(s.reason, tag.len, true);
        }
        // The vocabulary admits no other tag in each context.
        _ => {}
    }
    Act::skip(tag.len)
}

/// Keeps a nested element's tag in the held value. Its bytes are any bytes (an attribute
/// value is not checked by the lexer), but the held value is read back as JSON string
/// contents: invalid sequences are kept as U+FFFD, as text is (rule 7). The tag is whole
/// here, so the same bytes are kept at any chunking.
fn hold_tag(out: &mut Emitter<'_>, bytes: &[u8]) -> bool {
    let mut fits = true;
    crate::emit::lossy_parts(bytes, |part| {
        fits = out.value.push(part);
        fits
    });
    fits
}

fn open_call(cfg: &Settings<'_>, out: &mut Emitter<'_>, s: &mut State, tag: Tag, name: &[u8]) {
    out.open_call(1);
    out.announce_call(cfg, name);
    s.tool = cfg.tools().find(name).unwrap_or(0) as u16;
    s.members = 0;
    s.tail = Tail::None;
    s.ctx = Ctx::Call;
    if tag.self_closing {
        finish_call(cfg, out, s);
    }
}

pub(super) fn finish_call(cfg: &Settings<'_>, out: &mut Emitter<'_>, s: &mut State) {
    let close = if s.members == 0 { "{}" } else { "}" };
    out.queue_chunk(Some(Part::Input), Spool::Static(close));
    out.complete_call(cfg);
    s.ctx = if s.m3 { Ctx::Region } else { Ctx::Text };
}

/// Queues `{"key` or `,"key` then `suffix` (`":`, `":"` or `":[`) for a new member.
pub(super) fn member(out: &mut Emitter<'_>, s: &mut State, suffix: &'static str) {
    let open = if s.members == 0 { "{\"" } else { ",\"" };
    out.queue_chunk(Some(Part::Input), Spool::Static(open));
    out.queue_chunk(Some(Part::Input), out.key_spool());
    out.queue_chunk(Some(Part::Input), Spool::Static(suffix));
    s.members = s.members.saturating_add(1);
}

/// Settles what the arguments owe before the next sibling (`next`: its name) or the call's
/// closer (`None`): a held value is emitted (as the first item of an array when the sibling
/// repeats it), an open array is closed unless the sibling continues it. Returns true when
/// chunks were queued (the caller waits for them to drain, then sees the same tag again).
pub(super) fn flush_tail(out: &mut Emitter<'_>, s: &mut State, next: Option<&[u8]>) -> bool {
    let same = next.is_some_and(|n| n == key(out));
    match s.tail {
        Tail::None => false,
        Tail::Held { start, end } => {
            member(out, s, if same { "\":[" } else { "\":" });
            out.queue_chunk(
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
            out.queue_chunk(Some(Part::Input), Spool::Static("]"));
            s.tail = Tail::None;
            true
        }
    }
}

pub(super) fn open_arg(
    cfg: &Settings<'_>,
    out: &mut Emitter<'_>,
    s: &mut State,
    tag: Tag,
    name: &[u8],
) -> Act {
    if flush_tail(out, s, Some(name)) {
        return Act::WAIT;
    }
    s.repeat = matches!(s.tail, Tail::Array { .. });
    if !s.repeat {
        out.set_key(name);
    }
    let (ty, items) = cfg
        .tools()
        .param_type(s.tool as usize, name)
        .unwrap_or((ValueType::Any, ValueType::Any));
    if ty == ValueType::String && !s.repeat {
        member(out, s, "\":\"");
        s.ctx = Ctx::Str;
        if tag.self_closing {
            out.queue_chunk(Some(Part::Input), Spool::Static("\""));
            s.ctx = Ctx::Call;
        }
        return Act::skip(tag.len);
    }
    s.ty = ty;
    s.items = items;
    s.depth = 0;
    out.value.clear();
    s.ctx = Ctx::Held;
    if tag.self_closing && !close_held(out, s) {
        return skip_call(s, ErrorReason::TooLarge);
    }
    Act::skip(tag.len)
}

/// The held argument's closer: converts `value[..]` and queues or holds the result.
/// False when the buffer overflowed.
pub(super) fn close_held(out: &mut Emitter<'_>, s: &mut State) -> bool {
    s.ctx = Ctx::Call;
    let src = out.value.len();
    let array = s.ty == ValueType::Array;
    let ok = if array {
        items(&mut out.value, 0, src, s.items, 0, !s.m3).is_some()
    } else {
        convert(&mut out.value, 0, src, s.ty, s.items, 0, !s.m3)
    };
    let end = out.value.len();
    if !ok {
        return false;
    }
    let json = value::spool(SpoolMode::Plain, src, end);
    let had_items = matches!(s.tail, Tail::Array { items: true });
    match (s.repeat, array) {
        // A new array argument: its first items now, `]` when the next sibling decides.
        (false, true) => {
            member(out, s, "\":[");
            out.queue_chunk(Some(Part::Input), json);
            s.tail = Tail::Array { items: end > src };
        }
        // More items of an open array.
        (true, _) => {
            let more = end > src;
            if more && had_items {
                out.queue_chunk(Some(Part::Input), Spool::Static(","));
            }
            out.queue_chunk(Some(Part::Input), json);
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
            member(out, s, "\":");
            out.queue_chunk(Some(Part::Input), json);
        }
    }
    true
}
