//! The [`Lexer`] and the [`Writer`] together: relaxed JSON in, strict compact JSON out.

use super::error::Error;
use super::lexer::{Lex, Lexer};
use super::piece::Piece;
use super::writer::Writer;

/// One result of [`Transcoder::next`] / [`Transcoder::finish`].
///
/// ```
/// use tokensieve::json::relaxed::{Piece, Step, Transcoder};
/// let mut t = Transcoder::new();
/// let mut input = &b"[]"[..];
/// assert_eq!(t.next(&mut input), Step::Out(Piece::Static("[")));
/// assert_eq!(t.next(&mut input), Step::Out(Piece::Static("]")));
/// assert_eq!(t.next(&mut input), Step::Done);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step<'a> {
    /// A piece of strict output.
    Out(Piece<'a>),
    /// All input consumed; the value is not complete.
    NeedMore,
    /// The value is complete; the input slice starts right after the value's last byte.
    Done,
    /// A syntax error; the transcoder stays in this state until `reset()`.
    Error(Error),
}

/// Relaxed JSON in, strict compact JSON out: a [`Lexer`] and a [`Writer`].
///
/// ```
/// use tokensieve::json::relaxed::{Step, Transcoder};
///
/// let mut t = Transcoder::new();
/// let mut out = Vec::new();
/// // One byte at a time.
/// for b in br#"{city: 'Par"is', n: 1.50, tags: [a b, c,], /* c */ ok: true,}"#.chunks(1) {
///     let mut input = b;
///     loop {
///         match t.next(&mut input) {
///             Step::Out(p) => out.extend_from_slice(p.as_bytes()),
///             Step::NeedMore => break,
///             Step::Done => break,
///             Step::Error(e) => panic!("{e}"),
///         }
///     }
/// }
/// assert_eq!(t.finish(), Step::Done);
/// assert_eq!(out, br#"{"city":"Par\"is","n":1.50,"tags":["a b","c"],"ok":true}"#);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Transcoder {
    lexer: Lexer,
    writer: Writer,
}

impl Transcoder {
    /// A transcoder at the start of a value.
    ///
    /// ```
    /// let t = tokensieve::json::relaxed::Transcoder::new();
    /// assert!(core::mem::size_of_val(&t) <= 96);
    /// ```
    pub const fn new() -> Self {
        Transcoder {
            lexer: Lexer::new(),
            writer: Writer::new(),
        }
    }

    /// Returns to the initial state (for the next value).
    ///
    /// ```
    /// use tokensieve::json::relaxed::{Step, Transcoder};
    /// let mut t = Transcoder::new();
    /// let mut input = &b"]"[..];
    /// assert!(matches!(t.next(&mut input), Step::Error(_)));
    /// t.reset();
    /// let mut input = &b"[]"[..];
    /// assert!(matches!(t.next(&mut input), Step::Out(_)));
    /// ```
    pub fn reset(&mut self) {
        *self = Self::new();
    }

    /// The underlying lexer (for its [`depth`](Lexer::depth) and [`offset`](Lexer::offset)).
    ///
    /// ```
    /// let t = tokensieve::json::relaxed::Transcoder::new();
    /// assert_eq!(t.lexer().depth(), 0);
    /// ```
    pub fn lexer(&self) -> &Lexer {
        &self.lexer
    }

    /// Consumes bytes from the front of `*input` and returns one step: a piece of output,
    /// `NeedMore` (input exhausted), `Done` (the value is complete; `*input` starts right
    /// after it) or `Error` (sticky).
    ///
    /// ```
    /// use tokensieve::json::relaxed::{Piece, Step, Transcoder};
    /// let mut t = Transcoder::new();
    /// let mut input = &b"'a'</tool_call>"[..];
    /// assert_eq!(t.next(&mut input), Step::Out(Piece::Static("\"")));
    /// assert_eq!(t.next(&mut input), Step::Out(Piece::Input(b"a")));
    /// assert_eq!(t.next(&mut input), Step::Out(Piece::Static("\"")));
    /// assert_eq!(t.next(&mut input), Step::Done);
    /// assert_eq!(input, b"</tool_call>");
    /// ```
    pub fn next<'a>(&mut self, input: &mut &'a [u8]) -> Step<'a> {
        self.drive(|lexer| lexer.next(input))
    }

    /// End of input: completes a pending top-level number or bare word, else reports an
    /// [`ErrorKind::Unfinished`](super::ErrorKind::Unfinished) error if the value is
    /// incomplete. May return output pieces first: call it until it returns `Done` or `Error`.
    ///
    /// ```
    /// use tokensieve::json::relaxed::{Piece, Step, Transcoder};
    /// let mut t = Transcoder::new();
    /// let mut input = &b"hello"[..];
    /// assert_eq!(t.next(&mut input), Step::Out(Piece::Static("\"")));
    /// assert_eq!(t.next(&mut input), Step::Out(Piece::Input(b"hello")));
    /// assert_eq!(t.next(&mut input), Step::NeedMore);
    /// assert_eq!(t.finish(), Step::Out(Piece::Static("\"")));
    /// assert_eq!(t.finish(), Step::Done);
    /// ```
    pub fn finish(&mut self) -> Step<'static> {
        self.drive(Lexer::finish)
    }

    /// Pulls tokens from the lexer (with `pull`) and renders them until one gives output or
    /// the lexer stops.
    fn drive<'a>(&mut self, mut pull: impl FnMut(&mut Lexer) -> Lex<'a>) -> Step<'a> {
        loop {
            match pull(&mut self.lexer) {
                Lex::Token(t) => {
                    if let Some(p) = self.writer.render(t) {
                        return Step::Out(p);
                    }
                }
                Lex::NeedMore => return Step::NeedMore,
                Lex::Done => return Step::Done,
                Lex::Error(e) => return Step::Error(e),
            }
        }
    }
}
