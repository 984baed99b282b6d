//! Errors of the lexer and the transcoder: a class, a static reason and a byte offset.

use core::fmt;

/// The class of an [`Error`].
///
/// ```
/// use tokensieve::json::relaxed::{ErrorKind, Step, Transcoder};
/// let mut t = Transcoder::new();
/// let mut input = &b"[1"[..];
/// while let Step::Out(_) = t.next(&mut input) {}
/// loop {
///     match t.finish() {
///         Step::Error(e) => { assert_eq!(e.kind, ErrorKind::Unfinished); break }
///         Step::Out(_) => {}
///         s => panic!("{s:?}"),
///     }
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The input is not (relaxed) JSON.
    Syntax,
    /// The input ended before the value did.
    Unfinished,
    /// Nesting deeper than [`MAX_DEPTH`](super::MAX_DEPTH).
    TooDeep,
    /// A number-like bare word longer than [`HOLD`](super::HOLD) bytes turned out not to be a
    /// number.
    TooLong,
}

/// A transcoding error: its class, a short static reason and the byte offset (counted from
/// the first byte given to this value since `new()`/`reset()`) where it was detected.
///
/// ```
/// use tokensieve::json::relaxed::{Step, Transcoder};
/// let mut t = Transcoder::new();
/// let mut input = &b"{a 1}"[..];
/// let err = loop {
///     match t.next(&mut input) {
///         Step::Error(e) => break e,
///         Step::Out(_) => {}
///         s => panic!("{s:?}"),
///     }
/// };
/// assert_eq!(err.offset, 3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Error {
    /// The class of error.
    pub kind: ErrorKind,
    /// A short, human-readable reason.
    pub reason: &'static str,
    /// Byte offset from the start of this value's input.
    pub offset: u64,
}

impl fmt::Display for Error {
    /// ```
    /// use tokensieve::json::relaxed::{Error, ErrorKind};
    /// let e = Error { kind: ErrorKind::Syntax, reason: "expected ':'", offset: 3 };
    /// assert_eq!(e.to_string(), "expected ':' at byte 3");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.reason, self.offset)
    }
}

impl core::error::Error for Error {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reason {
    None,
    ExpectedValue,
    ExpectedKey,
    ExpectedColon,
    ExpectedCommaOrClose,
    Mismatched,
    Slash,
    BadUnicode,
    TooDeep,
    Unfinished,
    TooLong,
}

impl Reason {
    pub(super) fn text(self) -> &'static str {
        match self {
            Reason::None => "no error",
            Reason::ExpectedValue => "expected a value",
            Reason::ExpectedKey => "expected a key",
            Reason::ExpectedColon => "expected ':'",
            Reason::ExpectedCommaOrClose => "expected ',' or a closing bracket",
            Reason::Mismatched => "mismatched closing bracket",
            Reason::Slash => "'/' that does not start a comment",
            Reason::BadUnicode => "invalid \\u escape",
            Reason::TooDeep => "nesting too deep",
            Reason::Unfinished => "unfinished value",
            Reason::TooLong => "bare word too long to classify",
        }
    }

    pub(super) fn kind(self) -> ErrorKind {
        match self {
            Reason::TooDeep => ErrorKind::TooDeep,
            Reason::Unfinished => ErrorKind::Unfinished,
            Reason::TooLong => ErrorKind::TooLong,
            _ => ErrorKind::Syntax,
        }
    }
}
