//! `hermes` — the "JSON-mix" protocol of Qwen 2.5/3, Hermes and many open models:
//! `<tool_call>{"name": N, "arguments": {…}}</tool_call>`, `<tool_response>…</tool_response>`,
//! `<think>…</think>`.
//!
//! The call body is read by the shared JSON call reader ([`super::json_call`]: the streaming
//! relaxed-JSON [`Lexer`](crate::json::relaxed::Lexer), with the `arguments` (or `parameters`)
//! value rendered by its [`Writer`](crate::json::relaxed::Writer) as strict compact JSON, piece
//! by piece, as it arrives). Choices the design rules leave open (docs/design.md records them):
//!
//! - `<tool_call>` opens a call only when the next non-whitespace character is `{` (one call)
//!   or `[` (an array of calls, one block each); otherwise the marker is text.
//! - The closing marker counts anywhere outside a quoted JSON string (so `</tool_call>` in a
//!   string is content, and one right after a bare word ends the call).
//! - Parts stream in the order name, id, input. The name streams as read; the id follows when
//!   the name string closes. When `arguments` comes before `name`, its transcoded text is
//!   held in the value buffer (bounded by `max_call_bytes`) and streams right after the id.
//! - `arguments` given as a JSON-encoded string is decoded and transcoded when the string
//!   closes (it streams then, not per token).
//! - First of a repeated key wins; other keys (`id`, …) are ignored; missing `arguments`
//!   means `{}`; `arguments` that is not an object (or a string encoding one) fails the call
//!   (`malformed-body`); a missing, empty or non-string `name` fails it (`missing-name`).
//! - After a syntax error the call ends at the next literal closer; non-whitespace text
//!   after the body fails the call (`unexpected-content`).
//! - A closer cut off by the end of input (`…}}</tool_`, `…}}</`, `…}}<`: `max_tokens`) after
//!   a complete call object completes the call; the cut bytes are wire syntax, dropped.
//!   Between the elements of an array or after it, it ends the array, dropped too. Inside a
//!   body that does not parse it is part of the failure's raw text. A cut `</tool_response>`
//!   or `</think>` stays content.
//! - Arrays: each element is a call; a failure fails the element being read and ends the
//!   array, its raw text running from the first byte no completed call owns to the closer;
//!   a closer or end of input between elements ends the array. Text after the array (inside
//!   the wrapper) is a depth-1 text block.
//! - `tools` neither restricts nor coerces hermes calls.

use crate::config::Config;
use crate::config::Settings;
use crate::emit::{Act, Emitter, content_act};
use crate::event::{BlockType, ErrorReason};
use crate::scan::{Decision, TAG_CAP, Vocab};
use crate::spec::{self, MAX_HEADER_LEN};

use super::json_call::{self, JsonCall, Phase, fail};
use super::{Cut, Machine};

/// What may follow `<tool_call>` (after whitespace) for it to open a call.
const CALL_FOLLOWS: &[&[u8]] = &[b"{", b"["];

/// Literal indices in the text context's vocabulary: the thinking opener, the call opener,
/// the result opener (when the description has one), then a thinking closer with no opener
/// (at the very start of the stream, or after a call that ended thinking): wire syntax.
const LIT_THINK: usize = 0;
const LIT_CALL: usize = 1;
const LIT_RESULT: usize = 2;
/// The call header's opener takes the result opener's place (a description has one or the
/// other): `<|message_model|>NAME<|content_invoke_tool_json|>` (docs/design.md, "Dialect
/// descriptions", `call_header`).
const LIT_HEADER: usize = 2;
/// Literal indices in the thinking context's vocabulary (the closer is 0).
const THINK_CALL: usize = 1;
const THINK_REOPEN: usize = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    Text,
    Thinking,
    /// Inside `<tool_response>`.
    Response,
    /// Inside `<tool_call>`: reading a call body (or an array of them), after it, or
    /// skipping a failed call to the closer (`call.phase`).
    Call,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct State {
    /// The call being read, with the context (`call.host`).
    call: JsonCall<Ctx>,
    /// Nothing decided yet: a thinking closer here has no opener and is dropped.
    fresh: bool,
    /// A tool call ended the thinking it was opened in: the thinking closer the model may
    /// still write is wire syntax too (dropped once).
    yielded: bool,
    /// A call just ended at its closer: the same closer again (after whitespace at most) is
    /// a spurious repeat, wire syntax (docs/design.md, "Lenient recovery").
    after_call: bool,
    /// The start of the message (nothing but whitespace and thinking so far), where a
    /// description with `bare_array` reads a JSON list of calls without a wrapper (xlam).
    start: bool,
    /// The calls being read are such a bare list: no closer, the list's end ends them.
    bare: bool,
}

impl Machine for State {
    const CALL_DEPTH: u8 = 0;

    fn new(cfg: &Config<'_>) -> State {
        State {
            call: JsonCall::new(cfg.start_in.pick(Ctx::Text, Ctx::Thinking)),
            fresh: true,
            yielded: false,
            after_call: false,
            start: cfg.description().is_some_and(|d| d.bare_array),
            bare: false,
        }
    }

    fn vocab_key(&self) -> u32 {
        // What `vocab` and `plain_block` read, nothing more (a key that changes with the
        // call's phase would make the driver rebuild the same vocabulary).
        let quoted =
            self.call.host == Ctx::Call && self.call.phase == Phase::Body && self.call.in_quotes();
        self.call.host as u32
            | (quoted as u32) << 8
            | ((self.fresh | self.yielded) as u32) << 9
            | (self.after_call as u32) << 10
            | (self.start as u32) << 11
            | (self.bare as u32) << 12
    }

    fn vocab<'m>(&self, cfg: &'m Settings<'_>, _out: &'m Emitter<'_>) -> Vocab<'m> {
        let (open, close) = cfg.call_markers();
        match self.call.host {
            Ctx::Text => {
                let (think_open, think_close) = cfg.thinking_tags();
                // Built in place: this runs for every decision in text.
                let mut v = Vocab {
                    stops: cfg.stops(),
                    ..Vocab::EMPTY
                };
                v.add_literal(think_open.as_bytes());
                let header = header_opener(cfg);
                if let Some(h) = header {
                    // One look-ahead for both: the call opener's (whitespace, then `{` or
                    // `[`, checked again in `act`) and the header's.
                    v.add_literal_when(open.as_bytes(), header_follows);
                    v.add_literal_when(h.as_bytes(), header_follows);
                } else {
                    v.add_literal_before(open.as_bytes(), CALL_FOLLOWS);
                }
                if let Some((result_open, _)) = cfg.result_markers() {
                    v.add_literal(result_open.as_bytes());
                }
                if self.fresh || self.yielded {
                    v.add_literal(think_close.as_bytes());
                }
                if self.start && cfg.bare_array() {
                    v.add_literal_before(b"[", CALL_FOLLOWS);
                }
                // A repeated closer is dropped, unless the opener begins with it (xlam's
                // ```` ```json ```` fence): the next call's opener must stay one.
                if self.after_call && !close.is_empty() && !open.starts_with(close) {
                    v.add_literal(close.as_bytes());
                }
                if cfg.has_markup() {
                    for (m_open, m_close) in cfg.markup().into_iter().flatten() {
                        for m in [m_open, m_close] {
                            if Some(m) != header {
                                v.add_literal(m.as_bytes());
                            }
                        }
                    }
                }
                v
            }
            Ctx::Thinking => {
                let (think_open, think_close) = cfg.thinking_tags();
                Vocab::EMPTY
                    .with_literal(think_close.as_bytes())
                    .with_literal_before(open.as_bytes(), CALL_FOLLOWS)
                    .with_literal(think_open.as_bytes())
            }
            Ctx::Response => match cfg.result_markers() {
                Some((_, result_close)) => Vocab::EMPTY.with_literal(result_close.as_bytes()),
                None => Vocab::EMPTY,
            },
            // Inside a quoted string the closer is content.
            Ctx::Call if self.call.phase == Phase::Body && self.call.in_quotes() => Vocab::EMPTY,
            // No closer (granite, a bare list): the next call's opener ends what a failure
            // skips.
            Ctx::Call if close.is_empty() || self.bare => {
                Vocab::EMPTY.with_literal(open.as_bytes())
            }
            Ctx::Call => Vocab::EMPTY.with_literal(close.as_bytes()),
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
        if self.after_call && self.call.host == Ctx::Text {
            fn closer<'e>(cfg: &'e Settings<'_>) -> &'e [u8] {
                cfg.call_markers().1.as_bytes()
            }
            if let Some(act) = super::after_call(cfg, out, &mut self.after_call, closer, d, window)
            {
                return act;
            }
        }
        let call = &mut self.call;
        if out.call_too_large() && !(call.host == Ctx::Call && call.phase == Phase::Skip) {
            fail(out, call, ErrorReason::TooLarge);
            call.host = Ctx::Call;
            return Act::WAIT;
        }
        if call.host == Ctx::Call && (self.bare || cfg.closer_is_empty()) {
            let act = closerless(cfg, out, call, d, window);
            self.bare &= call.host == Ctx::Call;
            return act;
        }
        if self.start && call.host == Ctx::Text {
            match d {
                Decision::Literal { len: 1, .. } if window.first() == Some(&b'[') => {
                    // A bare list of calls at the start of the message: `[` then `{` (the
                    // vocabulary has one look-ahead set, `{` or `[`: a list of lists is text).
                    self.start = false;
                    let next = window[1..].iter().find(|b| !b.is_ascii_whitespace());
                    if next != Some(&b'{') {
                        return out.content(BlockType::Text, 0, Decision::Text(1));
                    }
                    self.bare = true;
                    out.close_content();
                    out.begin_capture();
                    call.begin(true);
                    call.host = Ctx::Call;
                    return Act::WAIT;
                }
                Decision::Text(n) | Decision::Invalid(n)
                    if !window[..n].iter().all(u8::is_ascii_whitespace)
                        || matches!(d, Decision::Invalid(_)) =>
                {
                    self.start = false;
                }
                Decision::Literal {
                    index: LIT_CALL, ..
                } => self.start = false,
                _ => {}
            }
        }
        match (call.host, d) {
            (
                Ctx::Text,
                Decision::Literal {
                    index: index @ (LIT_CALL | LIT_HEADER),
                    len,
                },
            ) if header_opener(cfg).is_some() => {
                let open = cfg.call_markers().0.as_bytes();
                let rest = window.get(len..).unwrap_or(&[]);
                if index == LIT_HEADER {
                    // The header (wire syntax) goes with its opener (markup either way).
                    out.close_content();
                    let limit = header_limit(len, open.len());
                    return match header(rest, open, limit, true) {
                        Header::Named(n) => Act::skip(len + n),
                        _ => Act::skip(len),
                    };
                }
                let limit = header_limit(header_opener(cfg).map_or(0, str::len), open.len());
                if header(rest, open, limit, true) != Header::Json {
                    // Not before a JSON value: the call opener is text.
                    return out.content(BlockType::Text, 0, Decision::Text(len));
                }
                out.close_content();
                out.begin_capture();
                let array = rest
                    .iter()
                    .find(|b| !b.is_ascii_whitespace())
                    .is_some_and(|&b| b == b'[');
                call.begin(array);
                call.host = Ctx::Call;
                Act::skip(len)
            }
            (Ctx::Text, Decision::Literal { len, .. })
                if cfg.has_markup()
                    && cfg.markup().into_iter().flatten().any(|(o, c)| {
                        let lit = window.get(..len);
                        lit == Some(o.as_bytes()) || lit == Some(c.as_bytes())
                    }) =>
            {
                // A markup wrapper (docs/design.md, "Dialect descriptions"): wire syntax.
                out.close_content();
                Act::skip(len)
            }
            (Ctx::Text, Decision::Literal { index, len }) => {
                out.close_content();
                let results = cfg.result_markers().is_some();
                match index {
                    LIT_THINK => call.host = Ctx::Thinking,
                    LIT_CALL => {
                        out.begin_capture();
                        let after = window.get(len..).unwrap_or(&[]);
                        let array = after
                            .iter()
                            .find(|b| !b.is_ascii_whitespace())
                            .is_some_and(|&b| b == b'[');
                        call.begin(array);
                        call.host = Ctx::Call;
                    }
                    LIT_RESULT if results => {
                        out.start_block(BlockType::ToolResult, 1);
                        out.clear_tool_strs();
                        call.host = Ctx::Response;
                    }
                    // The thinking closer with no opener.
                    _ => self.yielded = false,
                }
                Act::skip(len)
            }
            (Ctx::Thinking, Decision::Literal { index, len }) => match index {
                // A special-token opener (`<|START_ACTION|>`) is never prose: it yields
                // wherever it stands (docs/design.md, "Thinking that yields to tool calls").
                THINK_CALL if special_token(cfg.call_markers().0) => {
                    out.close_content();
                    call.host = Ctx::Text;
                    self.yielded = true;
                    Act::WAIT
                }
                THINK_CALL | THINK_REOPEN => {
                    super::thinking_marker(out, index == THINK_CALL, &window[..len]).unwrap_or_else(
                        || {
                            call.host = Ctx::Text;
                            self.yielded = true;
                            Act::WAIT
                        },
                    )
                }
                _ => {
                    out.close_content();
                    call.host = Ctx::Text;
                    Act::skip(len)
                }
            },
            (Ctx::Response, Decision::Literal { len, .. }) => {
                out.complete_tool(cfg, None, false);
                call.host = Ctx::Text;
                Act::skip(len)
            }
            (Ctx::Call, Decision::Literal { len, .. }) => {
                call.host = Ctx::Text;
                match call.phase {
                    Phase::Body => {
                        if call.array() && !call.call_open {
                            // A closer between elements just ends the array.
                            out.stop_capture();
                        } else {
                            fail(out, call, ErrorReason::MalformedBody);
                            out.fail_call(call.reason, true);
                        }
                        Act::skip(len)
                    }
                    Phase::Skip => {
                        call.call_open = false;
                        out.close_skipped(call.reason, len, true)
                    }
                    Phase::After => {
                        if call.call_open {
                            out.complete_tool(cfg, None, false);
                        } else {
                            out.close_content();
                        }
                        out.stop_capture();
                        call.call_open = false;
                        self.after_call = true;
                        Act::skip(len)
                    }
                }
            }
            (ctx, Decision::Text(n) | Decision::Invalid(n)) => match ctx {
                Ctx::Text => out.content(BlockType::Text, 0, d),
                Ctx::Thinking => out.content(BlockType::Thinking, 0, d),
                Ctx::Response => content_act(out.meta(None), d),
                Ctx::Call => match call.phase {
                    Phase::Skip => out.skip(d, call.reason),
                    Phase::After => after_body(out, call, d, window, n),
                    // Invalid bytes go to the lexer as they are: it decodes strings lossily.
                    Phase::Body => json_call::body(cfg, out, call, window, n),
                },
            },
            _ => Act::WAIT,
        }
    }

    fn end_of_input(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) {
        let call = &mut self.call;
        match call.host {
            Ctx::Call => call.end_of_input(cfg, out),
            Ctx::Response => out.complete_tool(cfg, None, false),
            Ctx::Text | Ctx::Thinking => {}
        }
        call.call_open = false;
        call.host = Ctx::Text;
        out.stop_capture();
    }

    fn plain_block(&self) -> Option<(BlockType, u8)> {
        match self.call.host {
            // Right after a call every decision is the machine's (a repeated closer may come).
            Ctx::Text if self.after_call || self.start => None,
            Ctx::Text => Some((BlockType::Text, 0)),
            Ctx::Thinking => Some((BlockType::Thinking, 0)),
            Ctx::Response => Some((BlockType::ToolResult, 1)),
            Ctx::Call => None,
        }
    }

    /// A cut closer after a complete call object completes the call; between the elements
    /// of an array or after it, it ends the array as a closer would. Inside a body it is a
    /// syntax error (the failure's raw text keeps it).
    fn cut_closer(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>, _cut: &[u8]) -> Cut {
        if self.after_call && self.call.host == Ctx::Text {
            // A repeated closer cut off right after a call: wire syntax as well.
            self.after_call = false;
            return Cut::Done;
        }
        let c = &self.call;
        match (c.host, c.phase) {
            (Ctx::Call, Phase::After) => {}
            (Ctx::Call, Phase::Body) if c.array() && !c.call_open => {}
            _ => return Cut::No,
        }
        self.end_of_input(cfg, out);
        Cut::Done
    }
}

/// Inside a call of a description without a closer (granite, phi-4-mini): the JSON value's
/// end ends the call (or the array of calls) and what follows is top-level text; a failed
/// call is skipped to where its value ends ([`json_call::skip`]), else to the next opener
/// or the end of input; the next opener ends whatever is being read and is read again in
/// text.
fn closerless(
    cfg: &Settings<'_>,
    out: &mut Emitter<'_>,
    call: &mut JsonCall<Ctx>,
    d: Decision,
    window: &[u8],
) -> Act {
    match (call.phase, d) {
        (Phase::After, _) => {
            if call.call_open {
                out.complete_tool(cfg, None, false);
            } else {
                out.close_content();
            }
            out.stop_capture();
            call.call_open = false;
            call.host = Ctx::Text;
            Act::WAIT
        }
        (Phase::Body, Decision::Literal { .. }) if call.array() && !call.call_open => {
            // The next opener between the elements of an array: the array just ends.
            out.stop_capture();
            call.host = Ctx::Text;
            Act::WAIT
        }
        (Phase::Body | Phase::Skip, Decision::Literal { .. }) => {
            if call.phase == Phase::Body {
                fail(out, call, ErrorReason::MalformedBody);
            }
            call.call_open = false;
            call.host = Ctx::Text;
            out.close_skipped(call.reason, 0, false)
        }
        (Phase::Skip, _) => json_call::skip(out, call, d, window),
        (Phase::Body, Decision::Text(n) | Decision::Invalid(n)) => {
            json_call::body(cfg, out, call, window, n)
        }
        _ => Act::WAIT,
    }
}

/// A marker spelled as a special token, `<|…|>`: never prose.
fn special_token(marker: &str) -> bool {
    marker.len() > 4 && marker.starts_with("<|") && marker.ends_with("|>")
}

fn after_body(
    out: &mut Emitter<'_>,
    s: &mut JsonCall<Ctx>,
    d: Decision,
    window: &[u8],
    n: usize,
) -> Act {
    let is_text = matches!(d, Decision::Text(_));
    let ws = if is_text {
        window[..n]
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count()
    } else {
        0
    };
    let stray = matches!(out.open, Some(o) if o.ty == BlockType::Text && o.depth == 1);
    if ws > 0 && !stray {
        return Act::skip(ws);
    }
    if s.call_open {
        s.reason = ErrorReason::UnexpectedContent;
        s.phase = Phase::Skip;
        return Act::WAIT;
    }
    // Text after an array of calls, inside the wrapper.
    out.stop_capture();
    out.content(BlockType::Text, 1, d)
}

/// The opener of the description's call header (`<|message_model|>`), if it has one (only
/// a description with markup does: the opener is a markup marker).
#[inline]
fn header_opener<'c>(cfg: &'c Settings<'_>) -> Option<&'c str> {
    if !cfg.has_markup() {
        return None;
    }
    cfg.with_description(spec::preset_or_hermes, |d| d.call_header.map(|h| h.0))
}

/// What follows the call header's opener (or the call opener) in text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Header {
    /// Whitespace, then `{` or `[`: a JSON value (after the call opener, a call).
    Json,
    /// A header of this many bytes, then the call opener and a JSON value.
    Named(usize),
    /// Neither (a newline, a `<` other than the call opener's, a header over
    /// [`MAX_HEADER_LEN`] bytes, or the look-ahead's room or the input ran out).
    Not,
    /// More bytes could tell.
    Undecided,
}

/// How far after a literal of `lit_len` bytes the header look-ahead reads: what the
/// scanner shows a look-ahead test ([`TAG_CAP`] from the literal's start), for the longer
/// of the two literals that share the test, so that the test and `act` read the same bytes.
fn header_limit(lit_len: usize, call_len: usize) -> usize {
    TAG_CAP.saturating_sub(lit_len.max(call_len))
}

/// Reads `rest`, the bytes after the header's opener (or the call opener), at most `limit`
/// of them; `eof`: no more will come. A pure function of those bytes, so the scanner's
/// look-ahead ([`header_follows`]) and `act` agree.
fn header(rest: &[u8], call: &[u8], limit: usize, eof: bool) -> Header {
    let cut = rest.len() >= limit;
    let rest = &rest[..rest.len().min(limit)];
    let undecided = if eof || cut {
        Header::Not
    } else {
        Header::Undecided
    };
    let json = |r: &[u8]| match r.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{' | b'[') => Some(true),
        Some(_) => Some(false),
        None => None,
    };
    match json(rest) {
        Some(true) => return Header::Json,
        None if !rest.is_empty() || !eof => return undecided,
        _ => {}
    }
    for i in 0..rest.len() {
        let r = &rest[i..];
        if r.starts_with(call) {
            return match json(&r[call.len()..]) {
                Some(true) => Header::Named(i),
                Some(false) => Header::Not,
                None => undecided,
            };
        }
        if call.starts_with(r) {
            return undecided;
        }
        if matches!(r[0], b'\n' | b'<') || i >= MAX_HEADER_LEN {
            return Header::Not;
        }
    }
    undecided
}

/// The look-ahead of the call opener and the header's opener in text, for a description
/// with a call header: both count once decided (`act` reads the same bytes again to tell a
/// call, a header, markup and text apart).
fn header_follows(rest: &[u8], v: &Vocab<'_>, eof: bool) -> Option<bool> {
    let call = v.literals[LIT_CALL];
    let limit = header_limit(v.literals[LIT_HEADER].len(), call.len());
    match header(rest, call, limit, eof) {
        Header::Undecided => None,
        _ => Some(true),
    }
}
