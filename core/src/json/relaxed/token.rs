//! The [`Lexer`](super::Lexer)'s tokens and the decoded [`Text`] pieces of keys and strings.

use super::piece::{InlineBuf, Piece};

/// A piece of the content of a key or string, decoded.
///
/// ```
/// use tokensieve::json::relaxed::{Piece, Text};
///
/// let mut scratch = [0u8; 4];
/// assert_eq!(Text::Char('é').decoded(&mut scratch), "é".as_bytes());
/// assert_eq!(Text::Plain(Piece::Input(b"ab")).decoded(&mut scratch), b"ab");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Text<'a> {
    /// Valid UTF-8 that needs no escaping in a JSON string: it is both the decoded text and
    /// its strict JSON spelling.
    Plain(Piece<'a>),
    /// One decoded character from an escape, a raw control character, a quote or backslash
    /// that must be escaped, or U+FFFD for invalid UTF-8.
    Char(char),
    /// A `\uXXXX` escape of a surrogate that is not part of a pair. It has no decoded form,
    /// and strict readers (serde_json, PHP's `json_decode`) reject it as an escape: it
    /// becomes U+FFFD in both forms, as invalid UTF-8 does (docs/design.md, rule 7).
    LoneSurrogate(u16),
}

impl<'a> Text<'a> {
    /// The decoded UTF-8 bytes of this piece; `scratch` holds an encoded character.
    ///
    /// ```
    /// use tokensieve::json::relaxed::Text;
    /// let mut scratch = [0u8; 4];
    /// assert_eq!(Text::LoneSurrogate(0xD800).decoded(&mut scratch), "\u{FFFD}".as_bytes());
    /// ```
    pub fn decoded<'s>(&'s self, scratch: &'s mut [u8; 4]) -> &'s [u8] {
        match self {
            Text::Plain(p) => p.as_bytes(),
            Text::Char(c) => c.encode_utf8(scratch).as_bytes(),
            Text::LoneSurrogate(_) => '\u{FFFD}'.encode_utf8(scratch).as_bytes(),
        }
    }

    /// The strict JSON spelling of this piece inside a string (escaped as `serde_json` does).
    ///
    /// ```
    /// use tokensieve::json::relaxed::Text;
    /// assert_eq!(Text::Char('\n').escaped().as_bytes(), b"\\n");
    /// assert_eq!(Text::Char('\u{1}').escaped().as_bytes(), b"\\u0001");
    /// assert_eq!(Text::LoneSurrogate(0xDC00).escaped().as_bytes(), "\u{FFFD}".as_bytes());
    /// ```
    pub fn escaped(&self) -> Piece<'a> {
        match *self {
            Text::Plain(p) => p,
            Text::Char(c) => match c {
                '"' => Piece::Static("\\\""),
                '\\' => Piece::Static("\\\\"),
                '\n' => Piece::Static("\\n"),
                '\t' => Piece::Static("\\t"),
                '\r' => Piece::Static("\\r"),
                '\u{8}' => Piece::Static("\\b"),
                '\u{c}' => Piece::Static("\\f"),
                c if (c as u32) < 0x20 => Piece::Inline(InlineBuf::escape_u(c as u16, false)),
                c => Piece::Inline(InlineBuf::from_char(c)),
            },
            Text::LoneSurrogate(_) => Piece::Static("\u{FFFD}"),
        }
    }
}

/// `true`, `false` or `null`.
///
/// ```
/// assert_eq!(tokensieve::json::relaxed::Literal::Null.as_str(), "null");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Literal {
    /// `true`
    True,
    /// `false`
    False,
    /// `null`
    Null,
}

impl Literal {
    /// The JSON spelling.
    ///
    /// ```
    /// assert_eq!(tokensieve::json::relaxed::Literal::True.as_str(), "true");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Literal::True => "true",
            Literal::False => "false",
            Literal::Null => "null",
        }
    }
}

/// The literals' spellings: JSON's, then Python's (read only by [`Lexer::python_call`]).
///
/// [`Lexer::python_call`]: super::Lexer::python_call
pub(super) const LITERALS: [&[u8]; 6] = [b"true", b"false", b"null", b"True", b"False", b"None"];

/// One token from the [`Lexer`](super::Lexer).
///
/// Keys are `KeyStart`, `Text`…, `KeyEnd`; string values `StringStart`, `Text`…,
/// `StringEnd`; numbers `NumberStart`, `Number`…, `NumberEnd` (the pieces spell the
/// number exactly as written). A bare word comes out as a string, a number or a literal.
///
/// ```
/// use tokensieve::json::relaxed::{Lex, Lexer, Token};
///
/// let mut lexer = Lexer::new();
/// let mut input = &b"[x]"[..];
/// let mut tokens = Vec::new();
/// while let Lex::Token(t) = lexer.next(&mut input) {
///     tokens.push(t);
/// }
/// assert_eq!(tokens.len(), 5); // ArrayStart StringStart Text StringEnd ArrayEnd
/// assert_eq!(tokens[0], Token::ArrayStart);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Token<'a> {
    /// `{`
    ObjectStart,
    /// `}`
    ObjectEnd,
    /// `[`
    ArrayStart,
    /// `]`
    ArrayEnd,
    /// A key begins (quoted or not).
    KeyStart,
    /// The key ended; its value follows.
    KeyEnd,
    /// A string value begins (quoted, single-quoted or a bare word).
    StringStart,
    /// The string value ended.
    StringEnd,
    /// A piece of the current key's or string's content.
    Text(Text<'a>),
    /// A number begins.
    NumberStart,
    /// A piece of the number, as written.
    Number(Piece<'a>),
    /// The number ended.
    NumberEnd,
    /// A literal value.
    Literal(Literal),
}

impl Token<'_> {
    /// Whether this token is the first token of a value (`{`, `[`, a string, a number or a
    /// literal). Keys are not values.
    ///
    /// ```
    /// use tokensieve::json::relaxed::Token;
    /// assert!(Token::NumberStart.starts_value());
    /// assert!(!Token::KeyStart.starts_value());
    /// ```
    pub fn starts_value(&self) -> bool {
        matches!(
            self,
            Token::ObjectStart
                | Token::ArrayStart
                | Token::StringStart
                | Token::NumberStart
                | Token::Literal(_)
        )
    }

    /// Whether this token is the last token of a value (`}`, `]`, the end of a string or
    /// number, or a literal). After it, [`Lexer::depth`](super::Lexer::depth) is the depth the
    /// value sits at.
    ///
    /// ```
    /// use tokensieve::json::relaxed::{Literal, Token};
    /// assert!(Token::Literal(Literal::Null).ends_value());
    /// assert!(!Token::KeyEnd.ends_value());
    /// ```
    pub fn ends_value(&self) -> bool {
        matches!(
            self,
            Token::ObjectEnd
                | Token::ArrayEnd
                | Token::StringEnd
                | Token::NumberEnd
                | Token::Literal(_)
        )
    }
}
