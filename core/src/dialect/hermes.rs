//! `hermes` — the "JSON-mix" protocol of Qwen 2.5/3, Hermes and many open models:
//! `<tool_call>{"name": N, "arguments": {…}}</tool_call>`, `<tool_response>…</tool_response>`,
//! `<think>…</think>`.
//!
//! The call body is read by the streaming relaxed-JSON [`Lexer`](crate::json::relaxed::Lexer)
//! and the `arguments` (or `parameters`) value is rendered by its
//! [`Writer`](crate::json::relaxed::Writer) as strict compact JSON, piece by piece, as it
//! arrives. Choices the design rules leave open (docs/design.md records them):
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
//!   a complete call object completes the call; the cut bytes are a depth-0 text block after
//!   it. Between the elements of an array it ends the array, and after an array it is text
//!   inside the wrapper: depth 1 either way. Inside a body that does not parse it is part of
//!   the failure's raw text. A cut `</tool_response>` or `</think>` stays content.
//! - Arrays: each element is a call; a failure fails the element being read and ends the
//!   array, its raw text running from the first byte no completed call owns to the closer;
//!   a closer or end of input between elements ends the array. Text after the array (inside
//!   the wrapper) is a depth-1 text block.
//! - `tools` neither restricts nor coerces hermes calls.

use crate::config::{Config, StartIn};
use crate::emit::{Act, BufId, Emit, Emitter, INLINE_CAP, Spool, SpoolMode, content_act};
use crate::event::{BlockType, ErrorReason, Part};
use crate::json::relaxed::{ErrorKind, Lex, Lexer, Piece, Step, Text, Token, Transcoder, Writer};
use crate::scan::{Decision, Vocab};

use super::{Cut, Machine};

/// What may follow `<tool_call>` (after whitespace) for it to open a call.
const CALL_FOLLOWS: &[&[u8]] = &[b"{", b"["];
const RESPONSE_OPEN: &[u8] = b"<tool_response>";
const RESPONSE_CLOSE: &[u8] = b"</tool_response>";
const DEFAULT_MARKERS: (&str, &str) = ("<tool_call>", "</tool_call>");

/// Literal indices in the text context's vocabulary.
const LIT_THINK: usize = 0;
const LIT_CALL: usize = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    Text,
    Thinking,
    /// Inside `<tool_response>`.
    Response,
    /// Reading a call body (or an array of them) with the lexer.
    Body,
    /// After the body, before the closer.
    After,
    /// A failed call, skipped to the closer.
    Skip,
}

/// The member of the call object being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Member {
    None,
    /// Reading a key.
    Key,
    /// The `name` value.
    Name,
    /// Expecting the `arguments` value.
    ArgsStart,
    /// Streaming the `arguments` object through the writer.
    Args,
    /// Reading `arguments` given as a JSON-encoded string (decoded into the value buffer).
    ArgsEncoded,
    /// A member we ignore.
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Progress {
    Absent,
    Reading,
    Done,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct State {
    ctx: Ctx,
    lexer: Lexer,
    writer: Writer,
    /// The wrapper holds an array of call objects (they sit at depth 2).
    array: bool,
    /// A tool_call block is open.
    call_open: bool,
    member: Member,
    key: [u8; 10],
    /// Length of the key read so far; `u8::MAX` when it is longer than any we look for.
    key_len: u8,
    name: Progress,
    args: Progress,
    /// The transcoded arguments held in the value buffer (while the name is unknown).
    held_args: Option<(u32, u32)>,
    /// Where a JSON-encoded `arguments` string starts in the value buffer.
    encoded_from: u32,
    reason: ErrorReason,
}

impl Machine for State {
    const THINKING_TAGS: (&'static str, &'static str) = ("<think>", "</think>");
    const CALL_DEPTH: u8 = 0;

    fn new(cfg: &Config<'_>) -> State {
        State {
            ctx: match cfg.start_in {
                StartIn::Text => Ctx::Text,
                StartIn::Thinking => Ctx::Thinking,
            },
            lexer: Lexer::new(),
            writer: Writer::new(),
            array: false,
            call_open: false,
            member: Member::None,
            key: [0; 10],
            key_len: 0,
            name: Progress::Absent,
            args: Progress::Absent,
            held_args: None,
            encoded_from: 0,
            reason: ErrorReason::MalformedBody,
        }
    }

    fn vocab_key(&self) -> u32 {
        self.ctx as u32 | ((self.ctx == Ctx::Body && self.lexer.in_quotes()) as u32) << 8
    }

    fn vocab<'m>(&self, out: &'m Emitter<'_>) -> Vocab<'m> {
        let (open, close) = out.tool_call_markers().unwrap_or(DEFAULT_MARKERS);
        match self.ctx {
            Ctx::Text => {
                let (think_open, _) = out.thinking_tags();
                Vocab {
                    stops: out.stops(),
                    ..Vocab::EMPTY
                }
                .with_literal(think_open.as_bytes())
                .with_literal_before(open.as_bytes(), CALL_FOLLOWS)
                .with_literal(RESPONSE_OPEN)
            }
            Ctx::Thinking => Vocab::EMPTY.with_literal(out.thinking_tags().1.as_bytes()),
            Ctx::Response => Vocab::EMPTY.with_literal(RESPONSE_CLOSE),
            // Inside a quoted string the closer is content.
            Ctx::Body if self.lexer.in_quotes() => Vocab::EMPTY,
            Ctx::Body | Ctx::After | Ctx::Skip => Vocab::EMPTY.with_literal(close.as_bytes()),
        }
    }

    fn act(&mut self, out: &mut Emitter<'_>, d: Decision, window: &[u8]) -> Act {
        if out.call_too_large() && !matches!(self.ctx, Ctx::Skip) {
            fail(out, self, ErrorReason::TooLarge);
            return Act::WAIT;
        }
        match (self.ctx, d) {
            (Ctx::Text, Decision::Literal { index, len }) => {
                out.close_content();
                match index {
                    LIT_THINK => self.ctx = Ctx::Thinking,
                    LIT_CALL => {
                        out.begin_capture();
                        let after = window.get(len..).unwrap_or(&[]);
                        self.array = after
                            .iter()
                            .find(|b| !b.is_ascii_whitespace())
                            .is_some_and(|&b| b == b'[');
                        self.lexer = Lexer::new();
                        self.call_open = false;
                        self.ctx = Ctx::Body;
                    }
                    _ => {
                        out.start_block(BlockType::ToolResult, 1);
                        out.clear_tool_strs();
                        self.ctx = Ctx::Response;
                    }
                }
                Act::skip(len)
            }
            (Ctx::Thinking, Decision::Literal { len, .. }) => {
                out.close_content();
                self.ctx = Ctx::Text;
                Act::skip(len)
            }
            (Ctx::Response, Decision::Literal { len, .. }) => {
                out.complete_tool(None, false);
                self.ctx = Ctx::Text;
                Act::skip(len)
            }
            (Ctx::Body, Decision::Literal { len, .. }) => {
                if self.array && !self.call_open {
                    // A closer between elements just ends the array.
                    out.stop_capture();
                } else {
                    fail(out, self, ErrorReason::MalformedBody);
                    out.fail_call(self.reason, true);
                }
                self.ctx = Ctx::Text;
                Act::skip(len)
            }
            (Ctx::Skip, Decision::Literal { len, .. }) => {
                self.call_open = false;
                self.ctx = Ctx::Text;
                out.close_skipped(self.reason, len, true)
            }
            (Ctx::After, Decision::Literal { len, .. }) => {
                if self.call_open {
                    out.complete_tool(None, false);
                } else {
                    out.close_content();
                }
                out.stop_capture();
                self.call_open = false;
                self.ctx = Ctx::Text;
                Act::skip(len)
            }
            (ctx, Decision::Text(n) | Decision::Invalid(n)) => match ctx {
                Ctx::Text => out.content(BlockType::Text, 0, d),
                Ctx::Thinking => out.content(BlockType::Thinking, 0, d),
                Ctx::Response => content_act(out.meta(None), d),
                Ctx::Skip => out.skip(d, self.reason),
                Ctx::After => after_body(out, self, d, window, n),
                // Invalid bytes go to the lexer as they are: it decodes strings lossily.
                Ctx::Body => body(out, self, window, n),
            },
            _ => Act::WAIT,
        }
    }

    fn end_of_input(&mut self, out: &mut Emitter<'_>) {
        match self.ctx {
            Ctx::Body if self.array && !self.call_open => {}
            Ctx::Body => {
                fail(out, self, ErrorReason::Unfinished);
                out.fail_call(self.reason, false);
            }
            Ctx::Skip => out.fail_call(self.reason, false),
            Ctx::After if self.call_open => out.complete_tool(None, false),
            Ctx::Response => out.complete_tool(None, false),
            _ => {}
        }
        self.call_open = false;
        self.ctx = Ctx::Text;
        out.stop_capture();
    }

    fn plain_block(&self) -> Option<(BlockType, u8)> {
        match self.ctx {
            Ctx::Text => Some((BlockType::Text, 0)),
            Ctx::Thinking => Some((BlockType::Thinking, 0)),
            Ctx::Response => Some((BlockType::ToolResult, 1)),
            _ => None,
        }
    }

    /// A cut closer after a complete call object completes the call (text at depth 0, where
    /// the call sits); between the elements of an array it ends the array as a closer would
    /// (text inside the wrapper, depth 1, as text after the array is). After an array the
    /// usual decision already makes it depth-1 text; inside a body it is a syntax error.
    fn cut_closer(&mut self, out: &mut Emitter<'_>, _cut: &[u8]) -> Cut {
        let depth = match self.ctx {
            Ctx::After if self.call_open => 0,
            Ctx::Body if self.array && !self.call_open => 1,
            _ => return Cut::No,
        };
        self.end_of_input(out);
        Cut::Text(depth)
    }
}

fn after_body(out: &mut Emitter<'_>, s: &mut State, d: Decision, window: &[u8], n: usize) -> Act {
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
        s.ctx = Ctx::Skip;
        return Act::WAIT;
    }
    // Text after an array of calls, inside the wrapper.
    out.stop_capture();
    out.content(BlockType::Text, 1, d)
}

fn body(out: &mut Emitter<'_>, s: &mut State, window: &[u8], n: usize) -> Act {
    let decided_in_quotes = s.lexer.in_quotes();
    let mut input = &window[..n];
    let result = s.lexer.next(&mut input);
    let consumed = n - input.len();
    match result {
        Lex::NeedMore | Lex::Done => {
            if result == Lex::Done {
                s.ctx = Ctx::After;
            }
            Act::skip(consumed)
        }
        Lex::Error(e) => {
            let reason = if e.kind == ErrorKind::TooDeep {
                ErrorReason::NestingTooDeep
            } else {
                ErrorReason::MalformedBody
            };
            fail(out, s, reason);
            Act::skip(consumed)
        }
        Lex::Token(t) => {
            let act = token(out, s, t, window, consumed);
            if s.ctx == Ctx::Body && s.member == Member::Args && s.name == Progress::Done {
                pack_arguments(out, s, act, window, n, decided_in_quotes)
            } else {
                act
            }
        }
    }
}

/// Streaming arguments: packs the tokens that follow `act`'s piece in the decided text
/// (`window[..n]`) into one inline chunk with it, while they fit — the small pieces of JSON
/// arguments (`"`, `":`, `1`, `,`, an escape) become one event instead of one each. A piece
/// borrowed from a long run stays in place (zero-copy). Stops where the next token would
/// not fit or is incomplete (the lexer and writer are put back as they were), where the
/// arguments end, and — for text decided inside a string, where a closer is content — where
/// the string ends, so what follows is decided in its own context.
fn pack_arguments(
    out: &mut Emitter<'_>,
    s: &mut State,
    act: Act,
    window: &[u8],
    n: usize,
    decided_in_quotes: bool,
) -> Act {
    let Some((meta, emit)) = act.emit else {
        return act;
    };
    let mut buf = [0u8; INLINE_CAP];
    let mut len = match emit {
        Emit::Window(a, b) if b - a < INLINE_CAP / 2 => {
            buf[..b - a].copy_from_slice(&window[a..b]);
            b - a
        }
        Emit::Static(text) if text.len() < INLINE_CAP / 2 => {
            buf[..text.len()].copy_from_slice(text.as_bytes());
            text.len()
        }
        Emit::Inline(k) if (k as usize) < INLINE_CAP / 2 => {
            let bytes = out.inline_bytes(k);
            buf[..bytes.len()].copy_from_slice(bytes);
            bytes.len()
        }
        _ => return act,
    };
    let obj = member_depth(s);
    let mut used = act.consume;
    let mut packed = false;
    while used < n && (!decided_in_quotes || s.lexer.in_quotes()) {
        let (lexer, writer) = (s.lexer, s.writer);
        let mut input = &window[used..n];
        let Lex::Token(t) = s.lexer.next(&mut input) else {
            (s.lexer, s.writer) = (lexer, writer);
            break;
        };
        let depth = s.lexer.depth();
        let piece = s.writer.render(t);
        let bytes = piece.as_ref().map_or(&[][..], |p| p.as_bytes());
        if len + bytes.len() > INLINE_CAP {
            (s.lexer, s.writer) = (lexer, writer);
            break;
        }
        buf[len..len + bytes.len()].copy_from_slice(bytes);
        len += bytes.len();
        used = n - input.len();
        packed = true;
        if t.ends_value() && depth == obj {
            s.member = Member::None;
            s.args = Progress::Done;
            break;
        }
    }
    if !packed {
        return Act {
            consume: used,
            emit: Some((meta, emit)),
        };
    }
    out.inline_act(meta, used, &buf[..len])
}

/// The depth of the call object's members.
fn member_depth(s: &State) -> usize {
    if s.array { 2 } else { 1 }
}

fn token(
    out: &mut Emitter<'_>,
    s: &mut State,
    t: Token<'_>,
    window: &[u8],
    consumed: usize,
) -> Act {
    let depth = s.lexer.depth();
    let obj = member_depth(s);
    if !s.call_open {
        match t {
            Token::ArrayStart if s.array && depth == 1 => {}
            Token::ObjectStart if depth == obj => start_call(out, s),
            // The end of the wrapper array: what follows is checked in `After`.
            Token::ArrayEnd if s.array && depth == 0 => s.ctx = Ctx::After,
            _ => {
                // An element that is not an object.
                start_call(out, s);
                fail(out, s, ErrorReason::MalformedBody);
            }
        }
        return Act::skip(consumed);
    }
    if s.member == Member::Args {
        let piece = s.writer.render(t);
        if t.ends_value() && depth == obj {
            s.member = Member::None;
            s.args = Progress::Done;
        }
        return match piece {
            Some(p) => input_piece(out, s, p, window, consumed),
            None => Act::skip(consumed),
        };
    }
    match (s.member, t) {
        (_, Token::ObjectEnd) if depth + 1 == obj => object_closed(out, s),
        (Member::None, Token::KeyStart) if depth == obj => {
            s.member = Member::Key;
            s.key_len = 0;
        }
        (Member::Key, Token::Text(text)) => key_piece(s, text),
        (Member::Key, Token::KeyEnd) => key_done(s),
        (Member::Name, Token::StringStart) => s.name = Progress::Reading,
        (Member::Name, Token::Text(text)) => return name_piece(out, s, text, window, consumed),
        (Member::Name, Token::StringEnd) => {
            s.member = Member::None;
            s.name = Progress::Done;
            if out.name_len == 0 {
                fail(out, s, ErrorReason::MissingName);
            } else {
                name_done(out, s);
            }
        }
        (Member::Name, _) => fail(out, s, ErrorReason::MissingName),
        (Member::ArgsStart, Token::ObjectStart) => {
            s.member = Member::Args;
            s.args = Progress::Reading;
            s.writer = Writer::new();
            if let Some(p) = s.writer.render(t) {
                return input_piece(out, s, p, window, consumed);
            }
        }
        (Member::ArgsStart, Token::StringStart) => {
            s.member = Member::ArgsEncoded;
            s.args = Progress::Reading;
            s.encoded_from = out.value.len() as u32;
        }
        (Member::ArgsStart, _) => fail(out, s, ErrorReason::MalformedBody),
        (Member::ArgsEncoded, Token::Text(text)) => {
            let at = text_at(window, text);
            let mut scratch = [0u8; 4];
            return hold_value(out, s, text.decoded(&mut scratch), at, consumed);
        }
        (Member::ArgsEncoded, Token::StringEnd) => {
            s.member = Member::None;
            s.args = Progress::Done;
            transcode_encoded(out, s);
        }
        (Member::Other, _) if t.ends_value() && depth == obj => s.member = Member::None,
        _ => {}
    }
    Act::skip(consumed)
}

/// Opens a tool_call block for the call object that starts here.
/// A piece of a member key: kept while it may still be one we look for.
fn key_piece(s: &mut State, text: Text<'_>) {
    let mut scratch = [0u8; 4];
    let bytes = text.decoded(&mut scratch);
    let len = s.key_len as usize;
    match s.key.get_mut(len..len + bytes.len()) {
        Some(dst) if s.key_len != u8::MAX => {
            dst.copy_from_slice(bytes);
            s.key_len += bytes.len() as u8;
        }
        _ => s.key_len = u8::MAX,
    }
}

/// The key is read: the first `name` and the first `arguments`/`parameters` count.
fn key_done(s: &mut State) {
    let key = s.key.get(..s.key_len as usize).unwrap_or(&[]);
    s.member = match key {
        b"name" if s.name == Progress::Absent => Member::Name,
        b"arguments" | b"parameters" if s.args == Progress::Absent => Member::ArgsStart,
        _ => Member::Other,
    };
}

fn start_call(out: &mut Emitter<'_>, s: &mut State) {
    out.start_block(BlockType::ToolCall, 1);
    out.clear_tool_strs();
    out.value.clear();
    s.call_open = true;
    s.member = Member::None;
    s.name = Progress::Absent;
    s.args = Progress::Absent;
    s.held_args = None;
}

/// Fails the open call (opening one if needed); the rest is skipped to the closer.
fn fail(out: &mut Emitter<'_>, s: &mut State, reason: ErrorReason) {
    if !s.call_open {
        start_call(out, s);
    }
    if out.id_len == 0 {
        // Failed calls are counted too, also when they never got an id.
        out.calls += 1;
    }
    s.reason = reason;
    s.ctx = Ctx::Skip;
}

fn name_piece(
    out: &mut Emitter<'_>,
    s: &mut State,
    text: Text<'_>,
    window: &[u8],
    consumed: usize,
) -> Act {
    let mut scratch = [0u8; 4];
    let bytes = text.decoded(&mut scratch);
    let fit = out.append_name(bytes);
    let cut = fit < bytes.len();
    let meta = out.meta(Some(Part::Name));
    let at = text_at(window, text);
    let act = match (at, cut) {
        // A name longer than the parser keeps (`STR_CAP - 1` bytes) fails the call as too
        // large: what fits streams, and the call is skipped from the first byte that did
        // not fit (so its raw text keeps every byte and ends at the closer, whatever the
        // chunking).
        (Some(start), _) => Act {
            consume: if cut { start + fit } else { consumed },
            emit: (fit > 0).then_some((meta, Emit::Window(start, start + fit))),
        },
        // Decoded characters and the lexer's inline pieces are at most 12 bytes.
        (None, false) => out.inline_act(meta, consumed, bytes),
        // A decoded character that does not fit: its bytes are read again while skipping.
        (None, true) => Act::WAIT,
    };
    if cut {
        fail(out, s, ErrorReason::TooLarge);
    }
    act
}

/// Where a piece the lexer borrowed from `window` starts in it (`None`: bytes it made).
fn piece_at(window: &[u8], p: Piece<'_>) -> Option<usize> {
    match p {
        Piece::Input(b) => offset_in(window, b),
        _ => None,
    }
}

/// Where string text the lexer borrowed from `window` starts in it (`None`: decoded).
fn text_at(window: &[u8], text: Text<'_>) -> Option<usize> {
    match text {
        Text::Plain(p) => piece_at(window, p),
        _ => None,
    }
}

/// Where `piece` (borrowed from `window`) starts in it.
fn offset_in(window: &[u8], piece: &[u8]) -> Option<usize> {
    let start = (piece.as_ptr() as usize).wrapping_sub(window.as_ptr() as usize);
    (start + piece.len() <= window.len()).then_some(start)
}

/// The name string closed: the id follows, then any arguments held until now.
fn name_done(out: &mut Emitter<'_>, s: &mut State) {
    out.next_call_id();
    out.queue_chunk(Some(Part::Id), out.id_spool());
    if let Some((a, b)) = s.held_args.take() {
        out.queue_chunk(
            Some(Part::Input),
            Spool::buf(BufId::Value, SpoolMode::Plain, a, b),
        );
    }
}

/// A piece of the arguments' strict JSON: streamed when the name is known, else held.
fn input_piece(
    out: &mut Emitter<'_>,
    s: &mut State,
    p: Piece<'_>,
    window: &[u8],
    consumed: usize,
) -> Act {
    if s.name == Progress::Done {
        let meta = out.meta(Some(Part::Input));
        return piece_act(out, meta, p, window, consumed);
    }
    let start = s.held_args.map_or(out.value.len() as u32, |(a, _)| a);
    let at = piece_at(window, p);
    let act = hold_value(out, s, p.as_bytes(), at, consumed);
    s.held_args = Some((start, out.value.len() as u32));
    act
}

/// Appends `bytes` to the value buffer (`at`: where they start in `window`, when they are
/// its own bytes). When they do not all fit, the call fails as too large from the first byte
/// that did not fit — the act consumes only the bytes before it (none, for bytes the lexer
/// made) — so the skip to the closer starts at the same byte whatever the chunking: inside a
/// quoted string a closer is content, and a piece borrowed from a long run may reach past
/// one that the skip must see.
fn hold_value(
    out: &mut Emitter<'_>,
    s: &mut State,
    bytes: &[u8],
    at: Option<usize>,
    consumed: usize,
) -> Act {
    let before = out.value.len();
    if out.value.push(bytes) {
        return Act::skip(consumed);
    }
    let fit = out.value.len() - before;
    fail(out, s, ErrorReason::TooLarge);
    match at {
        Some(start) => Act::skip(start + fit),
        None => Act::WAIT,
    }
}

/// An act emitting a lexer or writer piece as chunk text.
fn piece_act(
    out: &mut Emitter<'_>,
    meta: crate::emit::Meta,
    p: Piece<'_>,
    window: &[u8],
    consumed: usize,
) -> Act {
    match p {
        Piece::Input(bytes) => match offset_in(window, bytes) {
            // Borrowed from the window given to the lexer: emit it from there.
            Some(start) if !bytes.is_empty() => Act {
                consume: consumed,
                emit: Some((meta, Emit::Window(start, start + bytes.len()))),
            },
            _ => Act::skip(consumed),
        },
        Piece::Static(text) => Act {
            consume: consumed,
            emit: Some((meta, Emit::Static(text))),
        },
        Piece::Inline(buf) => out.inline_act(meta, consumed, buf.as_bytes()),
    }
}

/// `arguments` was a JSON-encoded string, now decoded in the value buffer: transcode it
/// (relaxed JSON, like any body) into the buffer after it, and stream or hold the result.
fn transcode_encoded(out: &mut Emitter<'_>, s: &mut State) {
    let (from, to) = (s.encoded_from as usize, out.value.len());
    let mut t = Transcoder::new();
    let mut pos = from;
    let mut first = true;
    let mut ok = true;
    // Read from the buffer in small copies, since the output is appended to it.
    let mut chunk = [0u8; 64];
    'outer: loop {
        let n = (to - pos).min(chunk.len());
        chunk[..n].copy_from_slice(&out.value.bytes()[pos..pos + n]);
        let mut input = &chunk[..n];
        loop {
            let step = if n == 0 {
                t.finish()
            } else {
                t.next(&mut input)
            };
            match step {
                Step::Out(p) => {
                    if first && p.as_bytes() != b"{" {
                        ok = false;
                        break 'outer;
                    }
                    first = false;
                    if !out.value.push(p.as_bytes()) {
                        fail(out, s, ErrorReason::TooLarge);
                        return;
                    }
                }
                Step::NeedMore => break,
                Step::Done => {
                    // Only whitespace may follow the value.
                    let rest = &chunk[n - input.len()..n];
                    let tail = &out.value.bytes()[pos + n..to];
                    ok = rest.iter().chain(tail).all(u8::is_ascii_whitespace);
                    break 'outer;
                }
                Step::Error(_) => {
                    ok = false;
                    break 'outer;
                }
            }
        }
        pos += n;
        if n == 0 {
            break;
        }
    }
    if !ok || first {
        fail(out, s, ErrorReason::MalformedBody);
        return;
    }
    let held = (to as u32, out.value.len() as u32);
    if s.name == Progress::Done {
        out.queue_chunk(
            Some(Part::Input),
            Spool::buf(BufId::Value, SpoolMode::Plain, held.0, held.1),
        );
    } else {
        s.held_args = Some(held);
    }
}

/// The call object closed.
fn object_closed(out: &mut Emitter<'_>, s: &mut State) {
    if s.name != Progress::Done {
        fail(out, s, ErrorReason::MissingName);
        return;
    }
    if s.args == Progress::Absent {
        out.queue_chunk(Some(Part::Input), Spool::Static("{}"));
    }
    if s.array {
        // Complete now: more elements may follow. The next failure's raw starts here.
        out.complete_tool(None, false);
        out.restart_capture();
        s.call_open = false;
    } else {
        // Complete at the closer (or the end of input): text may still fail it.
        s.ctx = Ctx::After;
    }
}
