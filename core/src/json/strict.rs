//! Whole-value strict JSON (RFC 8259): validation and zero-copy compaction.
//!
//! This module answers two questions about a *complete* byte string:
//!
//! * [`validate`]: is it exactly one RFC 8259 JSON value (with optional surrounding
//!   whitespace), and of which [`Kind`]? Nesting is limited to [`MAX_DEPTH`] levels and the
//!   input must be valid UTF-8.
//! * [`compact`]: the same text with every whitespace byte outside strings removed, as an
//!   iterator of borrowed pieces (no copy, no allocation, O(n)). Strings and numbers are kept
//!   exactly as written.
//!
//! Nothing here allocates or panics, whatever the input.
//!
//! ```
//! use tokensieve::json::strict::{self, Kind};
//!
//! let src = br#" { "a" : [1, 2.50, "x y"] } "#;
//! assert_eq!(strict::validate(src), Ok(Kind::Object));
//! let mut out = Vec::new();
//! for piece in strict::compact(src) {
//!     out.extend_from_slice(piece);
//! }
//! assert_eq!(out, br#"{"a":[1,2.50,"x y"]}"#);
//! ```

use core::fmt;

/// The deepest nesting of arrays and objects that [`validate`] accepts (128 levels).
///
/// A value with 128 nested containers is valid; one with 129 is an error.
///
/// ```
/// use tokensieve::json::strict::{validate, MAX_DEPTH};
///
/// let ok = [&[b'['; MAX_DEPTH][..], &[b']'; MAX_DEPTH][..]].concat();
/// assert!(validate(&ok).is_ok());
/// let deep = [&[b'['; MAX_DEPTH + 1][..], &[b']'; MAX_DEPTH + 1][..]].concat();
/// assert!(validate(&deep).is_err());
/// ```
pub const MAX_DEPTH: usize = 128;

/// The kind of a JSON value, as reported by [`validate`].
///
/// ```
/// use tokensieve::json::strict::{validate, Kind};
///
/// assert_eq!(validate(b"[]"), Ok(Kind::Array));
/// assert_eq!(validate(b" -0.5e+3 "), Ok(Kind::Number));
/// assert_eq!(validate(b"null"), Ok(Kind::Null));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `{…}`
    Object,
    /// `[…]`
    Array,
    /// `"…"`
    String,
    /// A number per the RFC 8259 grammar.
    Number,
    /// `true` or `false`.
    Bool,
    /// `null`.
    Null,
}

/// Why [`validate`] rejected its input: the byte offset where the problem was found and a
/// short static reason.
///
/// ```
/// use tokensieve::json::strict::validate;
///
/// let err = validate(b"[1, 02]").unwrap_err();
/// assert_eq!(err.offset, 5);
/// assert!(!err.reason.is_empty());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Error {
    /// Byte offset into the validated slice.
    pub offset: usize,
    /// A short, human-readable reason (static text).
    pub reason: &'static str,
}

impl fmt::Display for Error {
    /// ```
    /// let err = tokensieve::json::strict::validate(b"tru").unwrap_err();
    /// assert!(err.to_string().contains("at byte 0"));
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.reason, self.offset)
    }
}

impl core::error::Error for Error {}

/// States of the RFC 8259 number grammar, shared with the relaxed transcoder (which uses it
/// to decide whether a bare word is a number).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Num {
    Start,
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    Exp,
    ExpSign,
    ExpInt,
    Dead,
}

impl Num {
    /// Advances the grammar by one byte.
    pub(super) fn step(self, b: u8) -> Num {
        use Num::*;
        match (self, b) {
            (Start, b'-') => Minus,
            (Start | Minus, b'0') => Zero,
            (Start | Minus, b'1'..=b'9') => Int,
            (Int, b'0'..=b'9') => Int,
            (Zero | Int, b'.') => Dot,
            (Dot | Frac, b'0'..=b'9') => Frac,
            (Zero | Int | Frac, b'e' | b'E') => Exp,
            (Exp, b'+' | b'-') => ExpSign,
            (Exp | ExpSign | ExpInt, b'0'..=b'9') => ExpInt,
            _ => Dead,
        }
    }

    /// Whether the bytes seen so far form a complete number.
    pub(super) fn accepting(self) -> bool {
        matches!(self, Num::Zero | Num::Int | Num::Frac | Num::ExpInt)
    }
}

/// JSON whitespace (RFC 8259: space, tab, line feed, carriage return).
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    /// A string, number, `true`, `false` or `null` starting with `b`.
    fn scalar(&mut self, b: u8) -> Result<Kind, Error> {
        match b {
            b'"' => self.string().map(|_| Kind::String),
            b'-' | b'0'..=b'9' => self.number().map(|_| Kind::Number),
            b't' => self.expect_word(b"true").map(|_| Kind::Bool),
            b'f' => self.expect_word(b"false").map(|_| Kind::Bool),
            b'n' => self.expect_word(b"null").map(|_| Kind::Null),
            _ => Err(self.err("expected a value")),
        }
    }

    /// After a value: closes the containers that end here; `true` when another element
    /// follows (after its comma, and its key in an object), `false` at the end of the
    /// top-level value. `stack` bit `d`: the container at depth `d + 1` is an object.
    fn after_value(&mut self, stack: &[u64; 2], depth: &mut usize) -> Result<bool, Error> {
        loop {
            if *depth == 0 {
                return Ok(false);
            }
            self.skip_ws();
            let top = *depth - 1;
            let is_obj = stack
                .get(top / 64)
                .is_some_and(|w| w & (1u64 << (top % 64)) != 0);
            match self.peek() {
                Some(b',') => {
                    self.i += 1;
                    if is_obj {
                        self.key()?;
                    }
                    return Ok(true);
                }
                Some(b'}') if is_obj => {
                    self.i += 1;
                    *depth -= 1;
                }
                Some(b']') if !is_obj => {
                    self.i += 1;
                    *depth -= 1;
                }
                None => return Err(self.err("unexpected end of input")),
                Some(_) => {
                    return Err(self.err(if is_obj {
                        "expected ',' or '}'"
                    } else {
                        "expected ',' or ']'"
                    }));
                }
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn err(&self, reason: &'static str) -> Error {
        Error {
            offset: self.i,
            reason,
        }
    }

    fn skip_ws(&mut self) {
        while let Some(b) = self.peek() {
            if !is_ws(b) {
                break;
            }
            self.i += 1;
        }
    }

    fn expect_word(&mut self, word: &'static [u8]) -> Result<(), Error> {
        let end = self.i.saturating_add(word.len());
        if self.s.get(self.i..end) == Some(word) {
            self.i = end;
            Ok(())
        } else {
            Err(self.err("invalid literal"))
        }
    }

    fn number(&mut self) -> Result<(), Error> {
        let mut st = Num::Start;
        while let Some(b) = self.peek() {
            let next = st.step(b);
            if next == Num::Dead {
                break;
            }
            st = next;
            self.i += 1;
        }
        if st.accepting() {
            Ok(())
        } else {
            Err(self.err("invalid number"))
        }
    }

    /// Parses a string starting at the opening quote.
    /// After `\u`: four hex digits, and for a high surrogate the `\uXXXX` of its low half.
    /// A surrogate that is not half of a pair is refused: strict readers (serde_json, PHP's
    /// `json_decode`) reject it, and every JSON text this crate hands out must decode.
    fn unicode_escape(&mut self) -> Result<(), Error> {
        self.i += 1;
        let v = self.hex4()?;
        if (0xDC00..0xE000).contains(&v) {
            return Err(self.err("lone surrogate escape"));
        }
        if (0xD800..0xDC00).contains(&v) {
            let paired = self.s.get(self.i..self.i + 2) == Some(b"\\u") && {
                self.i += 2;
                (0xDC00..0xE000).contains(&self.hex4()?)
            };
            if !paired {
                return Err(self.err("lone surrogate escape"));
            }
        }
        Ok(())
    }

    /// Four hex digits.
    fn hex4(&mut self) -> Result<u16, Error> {
        let mut v = 0u16;
        for _ in 0..4 {
            match self.peek().and_then(|h| (h as char).to_digit(16)) {
                Some(d) => {
                    v = v << 4 | d as u16;
                    self.i += 1;
                }
                None => return Err(self.err("invalid \\u escape")),
            }
        }
        Ok(v)
    }

    fn string(&mut self) -> Result<(), Error> {
        if self.peek() != Some(b'"') {
            return Err(self.err("expected string"));
        }
        self.i += 1;
        loop {
            let rest = self.s.get(self.i..).unwrap_or(&[]);
            let stop = memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
            let run = rest.get(..stop).unwrap_or(&[]);
            if let Some(c) = run.iter().position(|&b| b < 0x20) {
                self.i += c;
                return Err(self.err("control character in string"));
            }
            self.i += stop;
            match self.peek() {
                None => return Err(self.err("unterminated string")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(());
                }
                Some(_) => {
                    // Backslash.
                    self.i += 1;
                    match self.peek() {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                            self.i += 1;
                        }
                        Some(b'u') => self.unicode_escape()?,
                        _ => return Err(self.err("invalid escape")),
                    }
                }
            }
        }
    }

    fn key(&mut self) -> Result<(), Error> {
        self.skip_ws();
        self.string()?;
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.err("expected ':'"));
        }
        self.i += 1;
        Ok(())
    }
}

/// Checks that `src` is exactly one RFC 8259 JSON value, optionally surrounded by JSON
/// whitespace, nested at most [`MAX_DEPTH`] levels, in valid UTF-8; returns its [`Kind`].
///
/// Numbers follow the RFC grammar exactly (`02134`, `1.`, `+1`, `.5`, `NaN` are invalid);
/// strings may not contain raw control characters and only the RFC escapes (`\uXXXX` with
/// four hex digits) are allowed. A surrogate escape must be half of a pair: a lone one such
/// as `"\uD800"` is refused (the RFC grammar admits it, but strict readers do not, and
/// every JSON text this crate hands out must decode).
///
/// ```
/// use tokensieve::json::strict::{validate, Kind};
///
/// assert_eq!(validate(br#"{"a": [true, "\u00e9"]}"#), Ok(Kind::Object));
/// assert!(validate(b"02134").is_err());
/// assert!(validate(b"[1,]").is_err());
/// assert!(validate(b"\"a\tb\"").is_err());
/// assert!(validate(b"\"\xff\"").is_err());
/// assert!(validate(br#""\uD83D\uDE00""#).is_ok());
/// assert!(validate(br#""\uD800""#).is_err());
/// ```
pub fn validate(src: &[u8]) -> Result<Kind, Error> {
    if let Err(e) = core::str::from_utf8(src) {
        return Err(Error {
            offset: e.valid_up_to(),
            reason: "invalid UTF-8",
        });
    }
    let mut p = Parser { s: src, i: 0 };
    // Bit `d` of `stack` is set when the container at depth `d + 1` is an object.
    let mut stack = [0u64; 2];
    let mut depth = 0usize;
    let mut kind = None;
    p.skip_ws();
    'value: loop {
        p.skip_ws();
        let Some(b) = p.peek() else {
            return Err(p.err("unexpected end of input"));
        };
        let this = match b {
            b'{' | b'[' => {
                if depth >= MAX_DEPTH {
                    return Err(p.err("nesting too deep"));
                }
                let obj = b == b'{';
                if let Some(w) = stack.get_mut(depth / 64) {
                    let bit = 1u64 << (depth % 64);
                    if obj {
                        *w |= bit;
                    } else {
                        *w &= !bit;
                    }
                }
                depth += 1;
                p.i += 1;
                p.skip_ws();
                let close = if obj { b'}' } else { b']' };
                if p.peek() == Some(close) {
                    p.i += 1;
                    depth -= 1;
                } else {
                    if obj {
                        p.key()?;
                    }
                    kind.get_or_insert(if obj { Kind::Object } else { Kind::Array });
                    continue 'value;
                }
                if obj { Kind::Object } else { Kind::Array }
            }
            _ => p.scalar(b)?,
        };
        kind.get_or_insert(this);
        if !p.after_value(&stack, &mut depth)? {
            break 'value;
        }
    }
    p.skip_ws();
    if p.i < src.len() {
        return Err(p.err("trailing characters after the value"));
    }
    kind.ok_or(Error {
        offset: 0,
        reason: "empty input",
    })
}

/// Returns an iterator over the pieces of `src` whose concatenation is `src` with every JSON
/// whitespace byte outside strings removed. Strings and numbers are kept exactly as written.
///
/// Zero-copy and O(n). The result is only meaningful for input that [`validate`] accepts,
/// but any input is safe (no panic; an unterminated string runs to the end).
///
/// ```
/// let src = b"[ 1 ,\n \"a b\" , { \"k\" : null } ]";
/// let out: Vec<u8> = tokensieve::json::strict::compact(src).flatten().copied().collect();
/// assert_eq!(out, br#"[1,"a b",{"k":null}]"#);
/// ```
pub fn compact(src: &[u8]) -> Compact<'_> {
    Compact { src, pos: 0 }
}

/// Iterator returned by [`compact`]: yields borrowed, non-empty pieces of the source.
///
/// ```
/// let pieces: Vec<&[u8]> = tokensieve::json::strict::compact(b" [1, 2] ").collect();
/// assert_eq!(pieces, [&b"[1,"[..], &b"2]"[..]]);
/// ```
#[derive(Clone, Debug)]
pub struct Compact<'a> {
    src: &'a [u8],
    pos: usize,
}

impl<'a> Iterator for Compact<'a> {
    type Item = &'a [u8];

    /// ```
    /// let mut it = tokensieve::json::strict::compact(b" true ");
    /// assert_eq!(it.next(), Some(&b"true"[..]));
    /// assert_eq!(it.next(), None);
    /// ```
    fn next(&mut self) -> Option<&'a [u8]> {
        let s = self.src;
        while s.get(self.pos).is_some_and(|&b| is_ws(b)) {
            self.pos += 1;
        }
        let start = self.pos;
        while let Some(&b) = s.get(self.pos) {
            if is_ws(b) {
                break;
            }
            self.pos += 1;
            if b == b'"' {
                // Skip to the closing quote, honouring backslash escapes.
                loop {
                    let rest = s.get(self.pos..).unwrap_or(&[]);
                    match memchr::memchr2(b'"', b'\\', rest) {
                        None => {
                            self.pos = s.len();
                            break;
                        }
                        Some(k) => {
                            let at = rest.get(k).copied();
                            self.pos = self.pos.saturating_add(k).saturating_add(1);
                            if at == Some(b'"') {
                                break;
                            }
                            // Backslash: skip the escaped byte too.
                            self.pos = self.pos.saturating_add(1).min(s.len());
                        }
                    }
                }
            }
        }
        let end = self.pos.min(s.len());
        self.pos = end;
        match s.get(start..end) {
            Some(piece) if !piece.is_empty() => Some(piece),
            _ => None,
        }
    }
}
