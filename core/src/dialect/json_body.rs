//! Streaming a call's JSON arguments: the pieces shared by the dialects whose calls carry a
//! JSON body — the JSON call reader [`super::json_call`] (the `arguments` member of a call
//! object, for `hermes`, `mistral` and `llama3-json`), `harmony` and the special-token
//! dialects (`kimi-k2`, `deepseek-v3.1`, `deepseek-v3`: the whole body is the arguments).
//!
//! The body is read by the relaxed-JSON [`Lexer`] and rendered by a [`Writer`] as strict
//! compact JSON, one token at a time; these helpers turn the lexer's and writer's pieces into
//! acts (borrowing from the window where they can) and pack the small pieces that follow
//! into one chunk.

use crate::emit::{Act, Emit, Emitter, INLINE_CAP, Meta};
use crate::event::{ErrorReason, Part};
use crate::json::relaxed::{Error, ErrorKind, Lex, Lexer, Piece, Text, Token, Writer};

/// The failure a lexer error means for the call: too deep, or malformed.
pub(super) fn lex_error_reason(e: Error) -> ErrorReason {
    if e.kind == ErrorKind::TooDeep {
        ErrorReason::NestingTooDeep
    } else {
        ErrorReason::MalformedBody
    }
}

/// Where a piece the lexer borrowed from `window` starts in it (`None`: bytes it made).
pub(super) fn piece_at(window: &[u8], p: Piece<'_>) -> Option<usize> {
    match p {
        Piece::Input(b) => offset_in(window, b),
        _ => None,
    }
}

/// Where string text the lexer borrowed from `window` starts in it (`None`: decoded).
pub(super) fn text_at(window: &[u8], text: Text<'_>) -> Option<usize> {
    match text {
        Text::Plain(p) => piece_at(window, p),
        _ => None,
    }
}

/// Where `piece` (borrowed from `window`) starts in it.
pub(super) fn offset_in(window: &[u8], piece: &[u8]) -> Option<usize> {
    let start = (piece.as_ptr() as usize).wrapping_sub(window.as_ptr() as usize);
    (start + piece.len() <= window.len()).then_some(start)
}

/// An act emitting a lexer or writer piece as chunk text.
pub(super) fn piece_act(
    out: &mut Emitter<'_>,
    meta: Meta,
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

/// Streaming arguments: packs the tokens that follow `act`'s piece in the decided text
/// (`window[..n]`) into one inline chunk with it, while they fit — the small pieces of JSON
/// arguments (`"`, `":`, `1`, `,`, an escape) become one event instead of one each. A piece
/// borrowed from a long run stays in place (zero-copy). Stops where the next token would
/// not fit or is incomplete (the lexer and writer are put back as they were), where the
/// arguments end (a token that ends a value brings the lexer back to `end_depth`), and —
/// with `string_only`, for text decided inside a string where a closer is content — where
/// the string ends, so what follows is decided in its own context. Returns the act and
/// whether the arguments ended.
#[allow(clippy::too_many_arguments)]
pub(super) fn pack_arguments(
    out: &mut Emitter<'_>,
    lexer: &mut Lexer,
    writer: &mut Writer,
    act: Act,
    window: &[u8],
    n: usize,
    string_only: bool,
    end_depth: usize,
) -> (Act, bool) {
    let Some((meta, emit)) = act.emit else {
        return (act, false);
    };
    // Arguments that are already strict compact JSON (the usual case) are emitted where they
    // are: the piece, when it is the window's bytes before the lexer, and the run after it
    // (not tried on a few bytes: in small reads, mostly a token cut by the read's end).
    let start = (n - act.consume >= PROBE / 4)
        .then(|| verbatim_start(out, emit, window, act.consume))
        .flatten();
    if let Some(start) = start {
        let v = lexer.verbatim(
            writer,
            window.get(act.consume..n).unwrap_or(&[]),
            end_depth,
            string_only,
        );
        if v.len > 0 && v.start == 0 {
            let end = act.consume + v.len;
            return (
                Act {
                    consume: end,
                    emit: Some((meta, Emit::Window(start, end))),
                },
                v.ended,
            );
        }
    }
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
        _ => return (act, false),
    };
    let mut used = act.consume;
    let mut packed = false;
    // Probes left (each a copy of the lexer: only the first tokens after a cut one).
    let mut probes = 3u8;
    let mut ended = false;
    while used < n && (!string_only || lexer.in_quotes()) {
        let (saved_lexer, saved_writer) = (*lexer, *writer);
        let mut input = &window[used..n];
        let Lex::Token(t) = lexer.next(&mut input) else {
            (*lexer, *writer) = (saved_lexer, saved_writer);
            break;
        };
        let depth = lexer.depth();
        let piece = writer.render(t);
        let bytes = piece.as_ref().map_or(&[][..], |p| p.as_bytes());
        if len + bytes.len() > INLINE_CAP {
            (*lexer, *writer) = (saved_lexer, saved_writer);
            break;
        }
        buf[len..len + bytes.len()].copy_from_slice(bytes);
        len += bytes.len();
        used = n - input.len();
        packed = true;
        if t.ends_value() && depth == end_depth {
            ended = true;
            break;
        }
        if probes > 0 && n - used >= PROBE {
            // A long run may follow (after a token cut by the window's end): end the act so
            // the next one reads it whole.
            probes -= 1;
            let (mut l, mut w) = (*lexer, *writer);
            if l.verbatim(&mut w, &window[used..used + PROBE], usize::MAX, string_only)
                .len
                >= PROBE / 2
            {
                break;
            }
        }
    }
    if !packed {
        return (
            Act {
                consume: used,
                emit: Some((meta, emit)),
            },
            false,
        );
    }
    (out.inline_act(meta, used, &buf[..len]), ended)
}

/// Streaming arguments, at the start of an act: the run of the decided text (`window[..n]`)
/// that is already strict compact JSON ([`Lexer::verbatim`]), emitted where it is, and
/// whether it ended the arguments (at `end_depth`); `None` when there is no such run.
#[inline]
pub(super) fn verbatim_run(
    out: &mut Emitter<'_>,
    lexer: &mut Lexer,
    writer: &mut Writer,
    window: &[u8],
    n: usize,
    string_only: bool,
    end_depth: usize,
) -> Option<(Act, bool)> {
    let v = lexer.verbatim(writer, window.get(..n)?, end_depth, string_only);
    if v.len == 0 {
        return None;
    }
    let meta = out.meta(Some(Part::Input));
    Some((
        Act {
            consume: v.len,
            emit: Some((meta, Emit::Window(v.start, v.len))),
        },
        v.ended,
    ))
}

/// How far [`pack_arguments`] looks for a run it leaves to the next act.
const PROBE: usize = 64;

/// Where in `window` the bytes of `emit` are, when they are the bytes right before `end`
/// (a piece the writer spells as the input does).
fn verbatim_start(out: &Emitter<'_>, emit: Emit, window: &[u8], end: usize) -> Option<usize> {
    let bytes = match emit {
        Emit::Window(a, b) => return (b == end).then_some(a),
        Emit::Static(text) => text.as_bytes(),
        Emit::Inline(k) => out.inline_bytes(k),
    };
    let start = end.checked_sub(bytes.len())?;
    (window.get(start..end) == Some(bytes)).then_some(start)
}

/// Where an object body stands after [`object_step`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BodyEnd {
    /// Still inside the object.
    Open,
    /// The object closed (or nothing else can follow it): the call's body is complete.
    Closed,
    /// The body failed: the caller fails the call with this reason.
    Failed(ErrorReason),
}

/// One step of a call body that must be a JSON object (harmony, the special-token
/// dialects): a token of the decided text `window[..n]` lexed, transcoded and streamed as
/// `input` (the small ones after it packed into the same chunk). `started`: the object's
/// first token was read; a first token other than `{` fails the body as `malformed-body`.
// Inlined into its four callers: as a call, returning (Act, BodyEnd) cost kimi-k2 and
// deepseek 0.9 % more instructions per 4-byte chunk.
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
pub(super) fn object_step(
    out: &mut Emitter<'_>,
    lexer: &mut Lexer,
    writer: &mut Writer,
    started: &mut bool,
    window: &[u8],
    n: usize,
) -> (Act, BodyEnd) {
    if *started {
        if let Some((act, ended)) = verbatim_run(out, lexer, writer, window, n, false, 0) {
            return (
                act,
                if ended {
                    BodyEnd::Closed
                } else {
                    BodyEnd::Open
                },
            );
        }
    }
    let mut input = &window[..n];
    let result = lexer.next(&mut input);
    let consumed = n - input.len();
    let t = match result {
        Lex::NeedMore => return (Act::skip(consumed), BodyEnd::Open),
        Lex::Done => return (Act::skip(consumed), BodyEnd::Closed),
        Lex::Error(e) => return (Act::skip(consumed), BodyEnd::Failed(lex_error_reason(e))),
        Lex::Token(t) => t,
    };
    if !*started && !matches!(t, Token::ObjectStart) {
        // The arguments are not an object (its bytes stay in the call's raw text).
        return (
            Act::skip(consumed),
            BodyEnd::Failed(ErrorReason::MalformedBody),
        );
    }
    *started = true;
    let depth = lexer.depth();
    let act = match writer.render(t) {
        Some(p) => {
            let meta = out.meta(Some(Part::Input));
            piece_act(out, meta, p, window, consumed)
        }
        None => Act::skip(consumed),
    };
    if t.ends_value() && depth == 0 {
        return (act, BodyEnd::Closed);
    }
    // The dialect's markers count inside strings too: the whole decided text may be packed.
    let (act, ended) = pack_arguments(out, lexer, writer, act, window, n, false, 0);
    (
        act,
        if ended {
            BodyEnd::Closed
        } else {
            BodyEnd::Open
        },
    )
}
