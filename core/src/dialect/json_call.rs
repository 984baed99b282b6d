//! A tool call written as a JSON object, `{"name": N, "arguments": {…}}` (or an array of
//! them), read by the streaming relaxed-JSON [`Lexer`](crate::json::relaxed::Lexer) with the
//! `arguments` (or `parameters`) value rendered as strict compact JSON by its
//! [`Writer`](crate::json::relaxed::Writer), piece by piece, as it arrives. Shared by
//! `hermes` (inside `<tool_call>`), `mistral` (after `[TOOL_CALLS]`) and `llama3-json` (the
//! whole message or after `<|python_tag|>`); each dialect owns its markers and what surrounds
//! the JSON, this module owns the JSON itself:
//!
//! - Parts stream in the order name, id, input. The name streams as read; the id follows when
//!   the name string closes. When `arguments` comes before `name`, its transcoded text is
//!   held in the value buffer (bounded by `max_call_bytes`) and streams right after the id.
//! - `arguments` given as a JSON-encoded string is decoded and transcoded when the string
//!   closes (it streams then, not per token).
//! - First of a repeated key wins; other keys (`id`, …) are ignored; missing `arguments`
//!   means `{}`; `arguments` that is not an object (or a string encoding one) fails the call
//!   (`malformed-body`); a missing, empty or non-string `name` fails it (`missing-name`).
//! - Arrays: each element is a call (a tool_call block of its own); a failure fails the
//!   element being read, and ends the array for a dialect that skips to its own closer
//!   (hermes); with [`skip`] the elements after it are read.
//! - Bare arguments ([`JsonCall::begin_arguments`]): the value read is the `arguments` value
//!   itself (an object or a string encoding one), for a call whose name (and id) the dialect
//!   read from the wire before it; the value's end ends the call ([`Phase::After`]).
//!
//! After a failure ([`Phase::Skip`]) the dialect skips to its own end of the call; a
//! dialect without a closer (mistral, llama3-json) skips with [`skip`] instead, which ends
//! the failed call where its JSON value (or array element) ends, found with bounded state
//! ([`Resync`]), so that the calls after it are read.
//!
//! The arguments' pieces become acts, and the small ones are packed into one chunk, by the
//! helpers every JSON-bodied dialect shares ([`super::json_body`]); this module adds what a
//! call object has around them (its name, id, member keys and failures).

use crate::config::Settings;
use crate::emit::{Act, BufId, Emit, Emitter, Spool, SpoolMode};
use crate::event::{BlockType, ErrorReason, Part};
use crate::json::relaxed::{Lex, Lexer, Piece, Step, Text, Token, Transcoder, Writer};
use crate::scan::Decision;

use super::json_body::{self, piece_act, piece_at, text_at};

/// Where the reading of the JSON stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Reading the JSON value with the lexer.
    Body,
    /// The value ended: a single call object closed (its block is still open: the dialect
    /// completes it), bare arguments ended (likewise), or an array closed.
    After,
    /// The call failed; the dialect skips its rest.
    Skip,
}

/// A range of the value buffer, or none (`start == u32::MAX`; the end then keeps where a
/// JSON-encoded `arguments` string starts): an `Option<(u32, u32)>` in 8 bytes.
#[derive(Clone, Copy, Debug)]
struct Held(u32, u32);

impl Held {
    const NONE: Held = Held(u32::MAX, 0);

    fn get(self) -> Option<(u32, u32)> {
        (self.0 != u32::MAX).then_some((self.0, self.1))
    }
}

/// What the JSON value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// One call object.
    Object,
    /// An array of call objects (they sit at depth 2).
    Array,
    /// The arguments themselves (the name and id came before them).
    Bare,
}

/// The member of the call object being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Member {
    None,
    /// Reading a key.
    Key,
    /// Reading the key that is the tool name (`name_as_key`: `{"N": {…}}`).
    KeyName,
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

/// The state of one JSON call body (or array of them) being read, and `host`, the
/// dialect's own context (kept here, where it fills padding: the parser's state must stay
/// within 512 bytes).
#[derive(Clone, Copy, Debug)]
pub(crate) struct JsonCall<C> {
    /// The dialect's context.
    pub(crate) host: C,
    /// Where the reading stands.
    pub(crate) phase: Phase,
    lexer: Lexer,
    writer: Writer,
    /// What the value is.
    shape: Shape,
    /// A tool_call block is open.
    pub(crate) call_open: bool,
    member: Member,
    /// The key being read; in [`Phase::Skip`], where no key is read, the [`Resync`] of the
    /// failed call ([`JsonCall::resync`]: the parser's state must stay within 512 bytes).
    key: [u8; 10],
    /// Length of the key read so far; `u8::MAX` when it is longer than any we look for.
    key_len: u8,
    name: Progress,
    args: Progress,
    /// The transcoded arguments held in the value buffer (while the name is unknown).
    held_args: Held,
    /// Why the call failed (in [`Phase::Skip`]).
    pub(crate) reason: ErrorReason,
}

/// Finds the end of a failed call's JSON value (of the array element, in an array) after
/// the lexer gave up on it, with a few bytes of state: the bracket depth, the quote of the
/// string being skipped (and a pending backslash), and the last significant byte outside
/// strings — a quote opens a string only where a key or value may start (after `{`, `[`,
/// `,` or `:`), as the relaxed lexer reads it, so an apostrophe in a bare word (`it's`) is
/// not one. Comments are not tracked. Where brackets do not match (a closer below the
/// value's own level), it gives up and the call is skipped as without it.
#[derive(Clone, Copy, Debug)]
struct Resync {
    /// Tracking (else the dialect's own skip applies).
    on: bool,
    /// Open brackets (the lexer's depth at the failure, then tracked).
    depth: u8,
    /// The quote of the string being skipped, or 0; [`ESC`] set: a backslash inside it
    /// escapes the next byte.
    quote: u8,
    /// The last byte outside strings that is not whitespace.
    prev: u8,
}

/// The bit of [`Resync::quote`] for a pending backslash (quotes are ASCII).
const ESC: u8 = 0x80;

/// What one byte means to a [`Resync`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mark {
    /// Part of the failed value.
    Inside,
    /// The failed value (or element) ends: with this byte for a single value's closer and
    /// an array's `]`, before it for the `,` after an array element.
    End,
    /// Brackets do not match: no end can be found.
    Lost,
}

impl Resync {
    const OFF: Resync = Resync {
        on: false,
        depth: 0,
        quote: 0,
        prev: b',',
    };

    /// Reads one byte; `floor`: the depth of the elements' container (1 in an array, else
    /// 0, where the value itself ends).
    fn step(&mut self, b: u8, floor: u8) -> Mark {
        if self.quote != 0 {
            if self.quote & ESC != 0 {
                self.quote &= !ESC;
            } else if b == b'\\' {
                self.quote |= ESC;
            } else if b == self.quote {
                self.quote = 0;
                self.prev = b'"';
            }
            return Mark::Inside;
        }
        if b.is_ascii_whitespace() {
            return Mark::Inside;
        }
        let prev = core::mem::replace(&mut self.prev, b);
        match b {
            b'"' | b'\'' if matches!(prev, b'{' | b'[' | b',' | b':') => self.quote = b,
            b'{' | b'[' => self.depth = self.depth.saturating_add(1),
            b',' | b']' if floor > 0 && self.depth == floor => return Mark::End,
            b'}' | b']' if self.depth <= floor => return Mark::Lost,
            b'}' | b']' => {
                self.depth -= 1;
                if floor == 0 && self.depth == 0 {
                    return Mark::End;
                }
            }
            _ => {}
        }
        Mark::Inside
    }
}

impl<C: Copy> JsonCall<C> {
    /// Nothing being read, in the dialect's context `host`.
    pub(crate) fn new(host: C) -> JsonCall<C> {
        JsonCall {
            host,
            phase: Phase::Body,
            lexer: Lexer::new(),
            writer: Writer::new(),
            shape: Shape::Object,
            call_open: false,
            member: Member::None,
            key: [0; 10],
            key_len: 0,
            name: Progress::Absent,
            args: Progress::Absent,
            held_args: Held::NONE,
            reason: ErrorReason::MalformedBody,
        }
    }

    /// Starts reading a call object (`array`: an array of them); the block opens at the
    /// object's `{`.
    pub(crate) fn begin(&mut self, array: bool) {
        *self = JsonCall::new(self.host);
        if array {
            self.shape = Shape::Array;
        }
    }

    /// Starts reading the bare `arguments` value of the open call, whose name and id were
    /// announced already.
    pub(crate) fn begin_arguments(&mut self) {
        *self = JsonCall::new(self.host);
        self.shape = Shape::Bare;
        self.call_open = true;
        self.name = Progress::Done;
        self.member = Member::ArgsStart;
    }

    /// End of input while reading a call: a value still being read fails as `unfinished`
    /// (between an array's elements nothing is open), a skipped call fails with its reason,
    /// a complete single call completes. Nothing is open afterwards; the dialect sets its
    /// context and stops the raw capture.
    pub(crate) fn end_of_input(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) {
        match self.phase {
            Phase::Body if self.array() && !self.call_open => {}
            Phase::Body => {
                fail(out, self, ErrorReason::Unfinished);
                out.fail_call(self.reason, false);
            }
            Phase::Skip => out.fail_call(self.reason, false),
            Phase::After if self.call_open => out.complete_tool(cfg, None, false),
            Phase::After => {}
        }
        self.call_open = false;
    }

    /// Where the failed call's JSON value ends (in [`Phase::Skip`]; kept in `key`).
    fn resync(&self) -> Resync {
        let [on, depth, quote, prev, ..] = self.key;
        Resync {
            on: on != 0,
            depth,
            quote,
            prev,
        }
    }

    fn set_resync(&mut self, r: Resync) {
        self.key[..4].copy_from_slice(&[r.on as u8, r.depth, r.quote, r.prev]);
    }

    /// Whether the value is an array of calls.
    pub(crate) fn array(&self) -> bool {
        self.shape == Shape::Array
    }

    /// Whether the lexer is inside a quoted string.
    pub(crate) fn in_quotes(&self) -> bool {
        self.lexer.in_quotes()
    }

    /// The arguments ended and nothing else of the call is to be read.
    fn args_done(&mut self) {
        self.member = Member::None;
        self.args = Progress::Done;
        if self.shape == Shape::Bare {
            self.phase = Phase::After;
        }
    }
}

/// Reads the decided bytes `window[..n]` of the body.
pub(crate) fn body<C: Copy>(
    cfg: &Settings<'_>,
    out: &mut Emitter<'_>,
    s: &mut JsonCall<C>,
    window: &[u8],
    n: usize,
) -> Act {
    recapture(out, s);
    let decided_in_quotes = s.lexer.in_quotes();
    if s.call_open && s.member == Member::Args && s.name == Progress::Done {
        // Arguments already in strict compact form are emitted as they are, a run at a time.
        let obj = member_depth(s);
        if let Some((act, ended)) = json_body::verbatim_run(
            out,
            &mut s.lexer,
            &mut s.writer,
            window,
            n,
            decided_in_quotes,
            obj,
        ) {
            if ended {
                s.args_done();
            }
            return act;
        }
    }
    let mut input = &window[..n];
    let result = s.lexer.next(&mut input);
    let consumed = n - input.len();
    match result {
        Lex::NeedMore | Lex::Done => {
            if result == Lex::Done {
                s.phase = Phase::After;
            }
            Act::skip(consumed)
        }
        Lex::Error(e) => {
            fail(out, s, json_body::lex_error_reason(e));
            track_failed(s, false);
            Act::skip(consumed)
        }
        Lex::Token(t) => {
            let act = token(cfg, out, s, t, window, consumed);
            if s.phase == Phase::Body && s.member == Member::Args && s.name == Progress::Done {
                pack_arguments(out, s, act, window, n, decided_in_quotes)
            } else {
                if s.phase == Phase::Skip {
                    track_failed(s, t.ends_value());
                }
                act
            }
        }
    }
}

/// The call failed while its JSON was being read: [`skip`] may find where the value (or
/// array element) ends, from the lexer's depth and quote at the failure (`ended`: the
/// failing token ended a value). A single value failing at depth 0 is tracked only when it
/// just ended (a call object without a name, an encoded `arguments` string that is not an
/// object): a bare word there has no bracket to end it.
fn track_failed<C: Copy>(s: &mut JsonCall<C>, ended: bool) {
    let depth = s.lexer.depth();
    let on = if s.array() {
        depth >= 1
    } else {
        depth > 0 || ended
    };
    s.set_resync(Resync {
        on: on && depth < u8::MAX as usize,
        depth: depth as u8,
        quote: s.lexer.open_quote(),
        ..Resync::OFF
    });
}

/// Skips the decided bytes `d` of a failed call (in [`Phase::Skip`]) with
/// [`Emitter::skip`], up to where its JSON value ends when [`Resync`] can find that: the
/// call then fails there, its raw text ending with the value (a single value's closing
/// bracket; in an array, the element, and the array's `]` after its last element), and
/// reading goes on after it — in [`Phase::After`] with nothing open after a single value
/// or the array's end, or in [`Phase::Body`] between the array's elements (the next
/// element's raw text starts at the `,`, as after a completed element). Without an end to
/// find (a failure outside the JSON, brackets that do not match) it is [`Emitter::skip`]:
/// to the dialect's next marker or the end of input.
pub(crate) fn skip<C: Copy>(
    out: &mut Emitter<'_>,
    s: &mut JsonCall<C>,
    d: Decision,
    window: &[u8],
) -> Act {
    let n = match d {
        Decision::Text(n) | Decision::Invalid(n) => n,
        _ => return Act::WAIT,
    };
    let mut resync = s.resync();
    if !resync.on {
        return out.skip(d, s.reason);
    }
    let floor = s.array() as u8;
    if floor == 0 && resync.depth == 0 {
        // The value ended with the failing token: the call fails here.
        return resynced(out, s, 0);
    }
    let mut probe = resync;
    let mut end = None;
    for (i, &b) in window[..n].iter().enumerate() {
        match probe.step(b, floor) {
            Mark::Inside => {}
            Mark::End => {
                end = Some((i, b));
                break;
            }
            Mark::Lost => break,
        }
    }
    if let Some((0, b)) = end {
        // A `,` after an element is the next element's (the lexer reads it again).
        let next = floor > 0 && b == b',';
        let act = resynced(out, s, (!next) as usize);
        if next {
            s.phase = Phase::Body;
            s.lexer = Lexer::after_array_element();
        }
        return act;
    }
    let upto = end.map_or(n, |(i, _)| i);
    let d = match d {
        Decision::Text(_) => Decision::Text(upto),
        _ => Decision::Invalid(upto),
    };
    let act = out.skip(d, s.reason);
    for &b in &window[..act.consume] {
        if resync.step(b, floor) == Mark::Lost {
            resync.on = false;
            break;
        }
    }
    s.set_resync(resync);
    act
}

/// The failed call ends where its value does (`len`: its last byte, still to consume, or
/// none); nothing is open afterwards ([`Phase::After`]).
fn resynced<C: Copy>(out: &mut Emitter<'_>, s: &mut JsonCall<C>, len: usize) -> Act {
    let act = out.close_skipped(s.reason, len, len > 0);
    s.call_open = false;
    s.set_resync(Resync::OFF);
    s.phase = Phase::After;
    act
}

/// Between an array's elements after a failed one (its raw text was handed out): the next
/// element's raw text is captured from here on.
fn recapture<C: Copy>(out: &mut Emitter<'_>, s: &JsonCall<C>) {
    if s.array() && !s.call_open && !out.capture {
        out.begin_capture();
    }
}

/// Streaming arguments: packs the tokens that follow `act`'s piece into one chunk
/// ([`json_body::pack_arguments`], down to the call object's member depth); for text
/// decided inside a string, where a closer is content, only up to the string's end.
fn pack_arguments<C: Copy>(
    out: &mut Emitter<'_>,
    s: &mut JsonCall<C>,
    act: Act,
    window: &[u8],
    n: usize,
    decided_in_quotes: bool,
) -> Act {
    let obj = member_depth(s);
    let (act, ended) = json_body::pack_arguments(
        out,
        &mut s.lexer,
        &mut s.writer,
        act,
        window,
        n,
        decided_in_quotes,
        obj,
    );
    if ended {
        s.args_done();
    }
    act
}

/// The depth of the call object's members (of the arguments' members, for bare arguments:
/// the depth at which the arguments value ends).
fn member_depth<C: Copy>(s: &JsonCall<C>) -> usize {
    match s.shape {
        Shape::Bare => 0,
        Shape::Object => 1,
        Shape::Array => 2,
    }
}

fn token<C: Copy>(
    cfg: &Settings<'_>,
    out: &mut Emitter<'_>,
    s: &mut JsonCall<C>,
    t: Token<'_>,
    window: &[u8],
    consumed: usize,
) -> Act {
    let depth = s.lexer.depth();
    let obj = member_depth(s);
    if !s.call_open {
        match t {
            Token::ArrayStart if s.array() && depth == 1 => {}
            Token::ObjectStart if depth == obj => start_call(out, s),
            // The end of the array: what follows is the dialect's (in `After`).
            Token::ArrayEnd if s.array() && depth == 0 => s.phase = Phase::After,
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
            s.args_done();
        }
        return match piece {
            Some(p) => input_piece(out, s, p, window, consumed),
            None => Act::skip(consumed),
        };
    }
    match (s.member, t) {
        (_, Token::ObjectEnd) if depth + 1 == obj => object_closed(cfg, out, s),
        (Member::None, Token::KeyStart) if depth == obj => {
            s.member = if s.name == Progress::Absent && cfg.name_as_key() {
                s.name = Progress::Reading;
                Member::KeyName
            } else {
                Member::Key
            };
            s.key_len = 0;
        }
        (Member::KeyName, Token::Text(text)) => return name_piece(out, s, text, window, consumed),
        (Member::KeyName, Token::KeyEnd) => {
            // The name is read; its value is the arguments.
            s.name = Progress::Done;
            if out.name_len == 0 {
                fail(out, s, ErrorReason::MissingName);
            } else {
                s.member = Member::ArgsStart;
                name_done(cfg, out, s);
            }
        }
        (Member::Key, Token::Text(text)) => key_piece(s, text),
        (Member::Key, Token::KeyEnd) => key_done(cfg, s),
        (Member::Name, Token::StringStart) => s.name = Progress::Reading,
        (Member::Name, Token::Text(text)) => return name_piece(out, s, text, window, consumed),
        (Member::Name, Token::StringEnd) => {
            s.member = Member::None;
            s.name = Progress::Done;
            if out.name_len == 0 {
                fail(out, s, ErrorReason::MissingName);
            } else {
                name_done(cfg, out, s);
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
            // Where the decoded string starts in the value buffer (nothing is held yet).
            s.held_args = Held(u32::MAX, out.value.len() as u32);
        }
        (Member::ArgsStart, _) => fail(out, s, ErrorReason::MalformedBody),
        (Member::ArgsEncoded, Token::Text(text)) => {
            let at = text_at(window, text);
            let mut scratch = [0u8; 4];
            return hold_value(out, s, text.decoded(&mut scratch), at, consumed);
        }
        (Member::ArgsEncoded, Token::StringEnd) => {
            s.args_done();
            transcode_encoded(out, s);
        }
        (Member::Other, _) if t.ends_value() && depth == obj => s.member = Member::None,
        _ => {}
    }
    Act::skip(consumed)
}

/// A piece of a member key: kept while it may still be one we look for.
fn key_piece<C: Copy>(s: &mut JsonCall<C>, text: Text<'_>) {
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

/// The key is read: the first of the description's name keys and the first of its argument
/// keys count (hermes: `name`, `arguments`/`parameters`).
fn key_done<C: Copy>(cfg: &Settings<'_>, s: &mut JsonCall<C>) {
    if cfg.name_as_key() {
        // The name was the first key: any other key is ignored.
        s.member = Member::Other;
        return;
    }
    let key = s.key.get(..s.key_len as usize).unwrap_or(&[]);
    let d = cfg.description();
    s.member = if s.name == Progress::Absent && d.name_keys.contains(key) {
        Member::Name
    } else if s.args == Progress::Absent && d.argument_keys.contains(key) {
        Member::ArgsStart
    } else {
        Member::Other
    };
}

/// Opens a tool_call block for the call that starts here.
pub(crate) fn start_call<C: Copy>(out: &mut Emitter<'_>, s: &mut JsonCall<C>) {
    out.start_block(BlockType::ToolCall, 1);
    out.clear_tool_strs();
    out.value.clear();
    s.call_open = true;
    s.member = Member::None;
    s.name = Progress::Absent;
    s.args = Progress::Absent;
    s.held_args = Held::NONE;
}

/// Fails the open call (opening one if needed); the dialect skips the rest ([`Phase::Skip`]).
pub(crate) fn fail<C: Copy>(out: &mut Emitter<'_>, s: &mut JsonCall<C>, reason: ErrorReason) {
    if !s.call_open {
        start_call(out, s);
    }
    if out.id_len == 0 {
        // Failed calls are counted too, also when they never got an id.
        out.calls += 1;
    }
    s.reason = reason;
    s.phase = Phase::Skip;
    // Skipped as the dialect does, unless the JSON being read finds the value's end.
    s.set_resync(Resync::OFF);
}

fn name_piece<C: Copy>(
    out: &mut Emitter<'_>,
    s: &mut JsonCall<C>,
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

/// The name string closed: the id follows, then any arguments held until now.
fn name_done<C: Copy>(cfg: &Settings<'_>, out: &mut Emitter<'_>, s: &mut JsonCall<C>) {
    out.next_call_id(cfg);
    out.queue_chunk(Some(Part::Id), out.id_spool());
    if let Some((a, b)) = core::mem::replace(&mut s.held_args, Held::NONE).get() {
        out.queue_chunk(
            Some(Part::Input),
            Spool::buf(BufId::Value, SpoolMode::Plain, a, b),
        );
    }
}

/// A piece of the arguments' strict JSON: streamed when the name is known, else held.
fn input_piece<C: Copy>(
    out: &mut Emitter<'_>,
    s: &mut JsonCall<C>,
    p: Piece<'_>,
    window: &[u8],
    consumed: usize,
) -> Act {
    if s.name == Progress::Done {
        let meta = out.meta(Some(Part::Input));
        return piece_act(out, meta, p, window, consumed);
    }
    let start = s.held_args.get().map_or(out.value.len() as u32, |(a, _)| a);
    let at = piece_at(window, p);
    let act = hold_value(out, s, p.as_bytes(), at, consumed);
    s.held_args = Held(start, out.value.len() as u32);
    act
}

/// Appends `bytes` to the value buffer (`at`: where they start in `window`, when they are
/// its own bytes). When they do not all fit, the call fails as too large from the first byte
/// that did not fit — the act consumes only the bytes before it (none, for bytes the lexer
/// made) — so the skip to the closer starts at the same byte whatever the chunking: inside a
/// quoted string a closer is content, and a piece borrowed from a long run may reach past
/// one that the skip must see.
fn hold_value<C: Copy>(
    out: &mut Emitter<'_>,
    s: &mut JsonCall<C>,
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

/// `arguments` was a JSON-encoded string, now decoded in the value buffer: transcode it
/// (relaxed JSON, like any body) into the buffer after it, and stream or hold the result.
fn transcode_encoded<C: Copy>(out: &mut Emitter<'_>, s: &mut JsonCall<C>) {
    let (from, to) = (s.held_args.1 as usize, out.value.len());
    s.held_args = Held::NONE;
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
        s.held_args = Held(held.0, held.1);
    }
}

/// The call object closed.
fn object_closed<C: Copy>(cfg: &Settings<'_>, out: &mut Emitter<'_>, s: &mut JsonCall<C>) {
    if s.name != Progress::Done {
        fail(out, s, ErrorReason::MissingName);
        return;
    }
    if s.args == Progress::Absent {
        out.queue_chunk(Some(Part::Input), Spool::Static("{}"));
    }
    if s.array() {
        // Complete now: more elements may follow. The next failure's raw starts here — unless
        // this one fails as an unknown tool: its raw text is handed out first, and the next
        // element's is captured again from the next body act (`recapture`).
        let unknown = cfg.unknown_tool(out.tool_name());
        out.complete_tool(cfg, None, false);
        if !unknown {
            out.restart_capture();
        }
        s.call_open = false;
    } else {
        // Complete at the closer (or the end of input): text may still fail it.
        s.phase = Phase::After;
    }
}
