//! Streaming relaxed-JSON → strict compact JSON, with fixed-size state.
//!
//! Models write JSON loosely. This module reads what they write, in chunks of any size (one
//! byte at a time works), and produces strict, compact RFC 8259 JSON as soon as each byte of
//! it is decidable — without allocating and with a state of fixed size.
//!
//! # What is accepted
//!
//! | input | output |
//! | --- | --- |
//! | unquoted keys `{city: 1}` | `{"city":1}` |
//! | single-quoted strings `'it\'s "x"'` | `"it's \"x\""` |
//! | `// line` and `/* block */` comments wherever whitespace may be | dropped |
//! | trailing commas `[1,2,]`, `{a:1,}` | dropped |
//! | bare words `{city: Paris}`, `[hello world]` | `"Paris"`, `"hello world"` |
//! | bare `true` / `false` / `null` | the literal |
//! | a bare word that is an RFC 8259 number (`1.50`, `-0`, `12345678901234567890`) | the number, exactly as written |
//! | raw control characters inside strings | `\n`, `\t`, `\u0001`, … |
//! | `\uD83D\uDE00`, split anywhere across chunks | the paired character (`😀`) |
//! | a lone surrogate escape `\uD800` | kept as an escape (`\uD800`, uppercase hex) |
//! | invalid UTF-8 inside strings | U+FFFD, one per maximal invalid sequence (as `String::from_utf8_lossy`) |
//! | an unknown escape `\d` | kept literally: `\\d` |
//!
//! String contents are decoded and re-escaped the way `serde_json` writes them (`"`, `\`,
//! and control characters escaped, everything else as UTF-8), so the output of a strict
//! input equals `serde_json`'s compact serialisation, except that numbers keep their
//! spelling.
//!
//! Bare words run to the next `,`, `}`, `]`, line feed or carriage return, and are trimmed
//! (interior spaces and tabs are kept). Inside a bare word `//` and `/*` start a comment
//! (which ends the word) only after whitespace or right after a number or literal, so
//! `http://x` stays one word and `1/*x*/` is the number 1. While a bare word
//! may still turn out to be a number or a literal its bytes are held (at most
//! [`HOLD`] bytes): a number-like word longer than that is committed as a number, and fails
//! if it later turns out not to be one. At most 32 pending whitespace characters inside a
//! bare word are kept; further ones are dropped.
//!
//! # Layers
//!
//! * [`Lexer`] is the tokenizer. It yields one [`Token`] per call: container starts and ends,
//!   key and string boundaries, [`Text`] pieces of key and string contents, number pieces and
//!   literals. Separators (`,` `:`) are not tokens: structure is implied by the token order,
//!   so a consumer never sees a trailing comma. [`Lexer::depth`] tells how many containers
//!   are open, [`Token::starts_value`] / [`Token::ends_value`] mark value boundaries. A
//!   [`Text`] piece carries the *decoded* content in a form that is also cheap to re-escape:
//!   runs of input that need no escaping are borrowed, decoded characters come by value.
//! * [`Writer`] renders tokens as strict compact JSON [`Piece`]s (one piece per token at
//!   most), inserting `,` and `:` itself. It can be started on any value, which is how a
//!   dialect streams only the value of one member.
//! * [`Transcoder`] is `Lexer` + `Writer`: relaxed JSON in, strict JSON out.
//!
//! All three use a pull API like `httparse` or zlib: `next(&mut input)` consumes bytes from
//! the front of the slice and returns one result; [`Step::NeedMore`] asks for the next chunk;
//! `finish()` says the input ended (a top-level bare word or number completes only at a
//! delimiter or there).
//!
//! ## The hermes dialect on top
//!
//! For `{"name": "get_weather", "arguments": {"city": "Paris"}}` a dialect runs a [`Lexer`]
//! over the body and watches the keys at depth 1 (decoding them with [`Text::decoded`]).
//! The `name` string's [`Text`] pieces are the tool name. After the `arguments` (or
//! `parameters`) key, it feeds every token of the value to a fresh [`Writer`] until a token
//! that [ends a value](Token::ends_value) brings [`Lexer::depth`] back to 1. When that value
//! is a string (`"arguments": "{\"a\":1}"`), it instead feeds the string's decoded text to an
//! inner [`Transcoder`]. The example below does all three in one pass over a single chunk;
//! `tests/hermes.rs` does the same over every chunking.
//!
//! ```
//! use tokensieve::json::relaxed::{Lex, Lexer, Step, Token, Transcoder, Writer};
//!
//! fn extract(body: &[u8]) -> (Vec<u8>, Vec<u8>) {
//!     let (mut name, mut args) = (Vec::new(), Vec::new());
//!     let mut lexer = Lexer::new();
//!     let mut key = Vec::new(); // the current depth-1 key, decoded
//!     let mut writer: Option<Writer> = None; // streaming an object/array/number argument
//!     let mut inner: Option<Transcoder> = None; // a JSON-encoded string argument
//!     let mut in_key = false;
//!     let mut input = body;
//!     loop {
//!         let tok = match lexer.next(&mut input) {
//!             Lex::Token(t) => t,
//!             _ => break, // Done (or NeedMore / Error in this one-chunk example)
//!         };
//!         let depth = lexer.depth();
//!         if let Some(w) = writer.as_mut() {
//!             if let Some(p) = w.render(tok) {
//!                 args.extend_from_slice(p.as_bytes());
//!             }
//!             if tok.ends_value() && depth == 1 {
//!                 writer = None;
//!             }
//!             continue;
//!         }
//!         let mut scratch = [0u8; 4];
//!         match tok {
//!             Token::KeyStart if depth == 1 => { key.clear(); in_key = true; }
//!             Token::KeyEnd => in_key = false,
//!             Token::Text(t) if in_key => key.extend_from_slice(t.decoded(&mut scratch)),
//!             Token::Text(t) if key == b"name" => name.extend_from_slice(t.decoded(&mut scratch)),
//!             Token::Text(t) if inner.is_some() => {
//!                 let tc = inner.as_mut().unwrap();
//!                 let mut bytes = t.decoded(&mut scratch);
//!                 while let Step::Out(p) = tc.next(&mut bytes) {
//!                     args.extend_from_slice(p.as_bytes());
//!                 }
//!             }
//!             Token::StringStart if depth == 1 && key == b"arguments" => {
//!                 inner = Some(Transcoder::new());
//!             }
//!             Token::StringEnd if inner.is_some() => {
//!                 let tc = inner.as_mut().unwrap();
//!                 while let Step::Out(p) = tc.finish() {
//!                     args.extend_from_slice(p.as_bytes());
//!                 }
//!                 inner = None;
//!             }
//!             t if depth >= 1 && t.starts_value() && key == b"arguments" => {
//!                 let mut w = Writer::new();
//!                 if let Some(p) = w.render(t) {
//!                     args.extend_from_slice(p.as_bytes());
//!                 }
//!                 // A scalar ends where it starts; a container continues.
//!                 if !(t.ends_value() && depth == 1) {
//!                     writer = Some(w);
//!                 }
//!             }
//!             _ => {}
//!         }
//!     }
//!     (name, args)
//! }
//!
//! let (name, args) = extract(br#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#);
//! assert_eq!((&name[..], &args[..]), (&b"get_weather"[..], &br#"{"city":"Paris"}"#[..]));
//!
//! let (name, args) = extract(br#"{name: 'get_weather', arguments: {city: Paris, days: 3,},}"#);
//! assert_eq!((&name[..], &args[..]), (&b"get_weather"[..], &br#"{"city":"Paris","days":3}"#[..]));
//!
//! let (name, args) = extract(br#"{"arguments": "{\"a\": 1}", "name": "f"}"#);
//! assert_eq!((&name[..], &args[..]), (&b"f"[..], &br#"{"a":1}"#[..]));
//! ```

use core::fmt;

/// The deepest nesting of arrays and objects accepted (128, as in [`super::strict`]).
///
/// ```
/// use tokensieve::json::relaxed::{Step, Transcoder, MAX_DEPTH};
///
/// let mut t = Transcoder::new();
/// let deep = [b'['; MAX_DEPTH + 1];
/// let mut input = &deep[..];
/// loop {
///     match t.next(&mut input) {
///         Step::Out(_) => continue,
///         Step::Error(e) => { assert_eq!(e.offset, MAX_DEPTH as u64); break }
///         other => panic!("{other:?}"),
///     }
/// }
/// ```
pub const MAX_DEPTH: usize = super::strict::MAX_DEPTH;

/// How many bytes of a bare word are held while it may still be a number or a literal.
///
/// ```
/// assert_eq!(tokensieve::json::relaxed::HOLD, 24);
/// ```
pub const HOLD: usize = 24;

// ---------------------------------------------------------------------------------------
// Output pieces
// ---------------------------------------------------------------------------------------

/// A small by-value byte buffer (at most [`InlineBuf::CAPACITY`] bytes), used for output that
/// is not a slice of the input: escapes, completed characters, held bytes.
///
/// ```
/// use tokensieve::json::relaxed::InlineBuf;
///
/// let b = InlineBuf::new(b"\\u00e9").unwrap();
/// assert_eq!(b.as_bytes(), b"\\u00e9");
/// assert!(InlineBuf::new(&[0; 13]).is_none());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct InlineBuf {
    len: u8,
    buf: [u8; InlineBuf::CAPACITY],
}

impl InlineBuf {
    /// The most bytes an `InlineBuf` holds.
    ///
    /// ```
    /// assert_eq!(tokensieve::json::relaxed::InlineBuf::CAPACITY, 12);
    /// ```
    pub const CAPACITY: usize = 12;

    /// Copies `bytes` into a new buffer, or `None` if longer than [`Self::CAPACITY`].
    ///
    /// ```
    /// let b = tokensieve::json::relaxed::InlineBuf::new("é".as_bytes()).unwrap();
    /// assert_eq!(b.as_bytes(), "é".as_bytes());
    /// ```
    pub fn new(bytes: &[u8]) -> Option<Self> {
        let mut buf = [0u8; Self::CAPACITY];
        buf.get_mut(..bytes.len())?.copy_from_slice(bytes);
        Some(InlineBuf {
            len: bytes.len() as u8,
            buf,
        })
    }

    /// The bytes held.
    ///
    /// ```
    /// assert_eq!(tokensieve::json::relaxed::InlineBuf::new(b"ab").unwrap().as_bytes(), b"ab");
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        self.buf.get(..self.len as usize).unwrap_or(&[])
    }

    fn from_char(c: char) -> Self {
        let mut buf = [0u8; Self::CAPACITY];
        let len = c.encode_utf8(&mut buf).len() as u8;
        InlineBuf { len, buf }
    }

    fn escape_u(v: u16, upper: bool) -> Self {
        let digits: &[u8; 16] = if upper {
            b"0123456789ABCDEF"
        } else {
            b"0123456789abcdef"
        };
        let d = |shift: u16| digits[((v >> shift) & 0xF) as usize];
        let buf = [b'\\', b'u', d(12), d(8), d(4), d(0), 0, 0, 0, 0, 0, 0];
        InlineBuf { len: 6, buf }
    }
}

impl fmt::Debug for InlineBuf {
    /// ```
    /// let b = tokensieve::json::relaxed::InlineBuf::new(b"ab").unwrap();
    /// assert_eq!(format!("{b:?}"), "InlineBuf(\"ab\")");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("InlineBuf")
            .field(&core::str::from_utf8(self.as_bytes()).unwrap_or("<bytes>"))
            .finish()
    }
}

/// A piece of output: borrowed from the input, static, or a small inline buffer.
///
/// Concatenating the pieces in order gives the output; every piece is valid UTF-8 on its own.
///
/// ```
/// use tokensieve::json::relaxed::Piece;
///
/// assert_eq!(Piece::Static("{").as_bytes(), b"{");
/// assert_eq!(Piece::Input(b"abc").as_bytes(), b"abc");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Piece<'a> {
    /// Bytes of the input, copied through unchanged.
    Input(&'a [u8]),
    /// Fixed syntax such as `{` or `",`.
    Static(&'static str),
    /// A few bytes produced by the transcoder (an escape, a completed character, held bytes).
    Inline(InlineBuf),
}

impl Piece<'_> {
    /// The bytes of this piece.
    ///
    /// ```
    /// use tokensieve::json::relaxed::{InlineBuf, Piece};
    /// assert_eq!(Piece::Inline(InlineBuf::new(b"\\n").unwrap()).as_bytes(), b"\\n");
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Piece::Input(b) => b,
            Piece::Static(s) => s.as_bytes(),
            Piece::Inline(b) => b.as_bytes(),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------------------

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
    /// A `\uXXXX` escape of a surrogate that is not part of a pair. It has no decoded form:
    /// [`Text::decoded`] gives U+FFFD, the [`Writer`] keeps the escape.
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
    /// assert_eq!(Text::LoneSurrogate(0xDC00).escaped().as_bytes(), b"\\uDC00");
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
            Text::LoneSurrogate(v) => Piece::Inline(InlineBuf::escape_u(v, true)),
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

const LITERALS: [&[u8]; 3] = [b"true", b"false", b"null"];

/// One token from the [`Lexer`].
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
    /// number, or a literal). After it, [`Lexer::depth`] is the depth the value sits at.
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

// ---------------------------------------------------------------------------------------
// Errors and results
// ---------------------------------------------------------------------------------------

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
    /// Nesting deeper than [`MAX_DEPTH`].
    TooDeep,
    /// A number-like bare word longer than [`HOLD`] bytes turned out not to be a number.
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
enum Reason {
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
    fn text(self) -> &'static str {
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

    fn kind(self) -> ErrorKind {
        match self {
            Reason::TooDeep => ErrorKind::TooDeep,
            Reason::Unfinished => ErrorKind::Unfinished,
            Reason::TooLong => ErrorKind::TooLong,
            _ => ErrorKind::Syntax,
        }
    }
}

/// One result of [`Lexer::next`] / [`Lexer::finish`].
///
/// ```
/// use tokensieve::json::relaxed::{Lex, Lexer};
/// let mut lexer = Lexer::new();
/// let mut input = &b""[..];
/// assert_eq!(lexer.next(&mut input), Lex::NeedMore);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lex<'a> {
    /// The next token.
    Token(Token<'a>),
    /// All input consumed; the value is not complete.
    NeedMore,
    /// The value is complete.
    Done,
    /// A syntax error; the lexer stays in this state until `reset()`.
    Error(Error),
}

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

// ---------------------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------------------

/// Where we are between tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Gap {
    /// A value is required (start, after `:`).
    Value,
    /// A value or `]` (after `[` or `,` in an array).
    ValueOrClose,
    /// A key or `}` (after `{` or `,` in an object).
    KeyOrClose,
    /// `:` after a key.
    Colon,
    /// `,` or a closing bracket after a value (only inside a container).
    After,
}

/// Progress through a bare word value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Word {
    /// Undecided: bytes held while it may be a number or literal.
    Hold,
    EmitStrStart,
    EmitNumStart,
    EmitLiteral,
    /// Emitting held bytes.
    EmitHold,
    /// Emitting pending interior whitespace (and a pending `/`).
    EmitWs,
    /// Streaming the rest of the word (string or committed number).
    Stream,
    EmitEnd,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Gap(Gap),
    Slash(Gap),
    LineComment(Gap),
    BlockComment(Gap),
    BlockStar(Gap),
    /// Inside a quoted key or string.
    Str,
    /// After a backslash.
    Esc,
    /// After `\u`; `hex_n` digits read into `hex`.
    EscU,
    /// A `\uXXXX` value is in `hex`, to be paired or emitted.
    HexReady,
    BareKey,
    Word(Word),
    Done,
    Error,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Quoted,
    BareKey,
    BareWord,
}

/// The relaxed-JSON tokenizer: fixed-size state, chunked input, one [`Token`] per call.
///
/// ```
/// use tokensieve::json::relaxed::{Lex, Lexer, Literal, Token};
///
/// let mut lexer = Lexer::new();
/// let mut tokens = Vec::new();
/// for chunk in [&b"{ok: tr"[..], b"ue}"] {
///     let mut input = chunk;
///     loop {
///         match lexer.next(&mut input) {
///             Lex::Token(t) => tokens.push(format!("{t:?}")),
///             Lex::NeedMore => break,
///             Lex::Done => { tokens.push("done".into()); break }
///             Lex::Error(e) => panic!("{e}"),
///         }
///     }
/// }
/// assert_eq!(tokens.first().unwrap(), "ObjectStart");
/// assert_eq!(tokens.last().unwrap(), "done");
/// assert!(tokens.contains(&format!("{:?}", Token::Literal(Literal::True))));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Lexer {
    offset: u64,
    /// Bit `d` is set when the container at depth `d + 1` is an object.
    stack: [u64; 2],
    /// `\u` accumulator / value ready to emit.
    hex: u16,
    /// Pending high surrogate (0 = none).
    hi: u16,
    /// Pending whitespace inside a bare word: bit `i` set = tab, clear = space.
    ws_bits: u32,
    hold: [u8; HOLD],
    utf8: [u8; 3],
    utf8_len: u8,
    hold_len: u8,
    hold_pos: u8,
    ws_len: u8,
    depth: u8,
    quote: u8,
    hex_n: u8,
    /// Literal candidate: 0 none, else index + 1 into `LITERALS`.
    lit: u8,
    num: super::strict::Num,
    err: Reason,
    state: State,
    is_key: bool,
    slash_pending: bool,
    word_end: bool,
    comment_after: bool,
    /// The comment that ended the word is a block comment.
    block_after: bool,
    word_num: bool,
    eof: bool,
}

impl Default for Lexer {
    /// Same as [`Lexer::new`].
    ///
    /// ```
    /// assert_eq!(tokensieve::json::relaxed::Lexer::default().depth(), 0);
    /// ```
    fn default() -> Self {
        Self::new()
    }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn word_delim(b: u8) -> bool {
    matches!(b, b',' | b'}' | b']' | b'\n' | b'\r')
}

fn key_stop(b: u8) -> bool {
    matches!(
        b,
        b':' | b' '
            | b'\t'
            | b'\n'
            | b'\r'
            | b','
            | b'{'
            | b'}'
            | b'['
            | b']'
            | b'"'
            | b'\''
            | b'/'
    )
}

fn hex_val(b: u8) -> Option<u16> {
    match b {
        b'0'..=b'9' => Some(u16::from(b - b'0')),
        b'a'..=b'f' => Some(u16::from(b - b'a' + 10)),
        b'A'..=b'F' => Some(u16::from(b - b'A' + 10)),
        _ => None,
    }
}

impl Lexer {
    /// A lexer at the start of a value.
    ///
    /// ```
    /// let lexer = tokensieve::json::relaxed::Lexer::new();
    /// assert_eq!(lexer.offset(), 0);
    /// ```
    pub const fn new() -> Self {
        Lexer {
            offset: 0,
            stack: [0; 2],
            hex: 0,
            hi: 0,
            ws_bits: 0,
            hold: [0; HOLD],
            utf8: [0; 3],
            utf8_len: 0,
            hold_len: 0,
            hold_pos: 0,
            ws_len: 0,
            depth: 0,
            quote: 0,
            hex_n: 0,
            lit: 0,
            num: super::strict::Num::Start,
            err: Reason::None,
            state: State::Gap(Gap::Value),
            is_key: false,
            slash_pending: false,
            word_end: false,
            comment_after: false,
            block_after: false,
            word_num: false,
            eof: false,
        }
    }

    /// Returns to the initial state (for the next value).
    ///
    /// ```
    /// use tokensieve::json::relaxed::{Lex, Lexer};
    /// let mut lexer = Lexer::new();
    /// let mut input = &b"}"[..];
    /// assert!(matches!(lexer.next(&mut input), Lex::Error(_)));
    /// lexer.reset();
    /// let mut input = &b"1,"[..];
    /// assert!(matches!(lexer.next(&mut input), Lex::Token(_)));
    /// ```
    pub fn reset(&mut self) {
        *self = Self::new();
    }

    /// Whether the lexer is inside a quoted key or string, where markup is content (a
    /// dialect's closing marker counts only outside quotes).
    ///
    /// ```
    /// use tokensieve::json::relaxed::{Lexer, Lex};
    /// let mut lexer = Lexer::new();
    /// let mut input = &b"{\"a"[..];
    /// while let Lex::Token(_) = lexer.next(&mut input) {}
    /// assert!(lexer.in_quotes());
    /// ```
    pub fn in_quotes(&self) -> bool {
        matches!(
            self.state,
            State::Str | State::Esc | State::EscU | State::HexReady
        )
    }

    /// How many arrays and objects are open after the last token (0 at top level; 1 inside
    /// the outermost container; after `ObjectStart` it already counts the new object).
    ///
    /// ```
    /// use tokensieve::json::relaxed::{Lex, Lexer};
    /// let mut lexer = Lexer::new();
    /// let mut input = &b"[["[..];
    /// lexer.next(&mut input);
    /// assert_eq!(lexer.depth(), 1);
    /// ```
    pub fn depth(&self) -> usize {
        self.depth as usize
    }

    /// Bytes consumed since `new()`/`reset()`.
    ///
    /// ```
    /// use tokensieve::json::relaxed::Lexer;
    /// let mut lexer = Lexer::new();
    /// let mut input = &b"  [1"[..];
    /// lexer.next(&mut input);
    /// assert_eq!(lexer.offset(), 3);
    /// ```
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Consumes bytes from the front of `*input` and returns the next token, or
    /// [`Lex::NeedMore`] when `*input` is exhausted, [`Lex::Done`] when the value is complete
    /// (`*input` then starts right after its last byte; for a bare word, trailing spaces and
    /// a `//` that ended it may already be consumed), or [`Lex::Error`].
    ///
    /// ```
    /// use tokensieve::json::relaxed::{Lex, Lexer, Token};
    /// let mut lexer = Lexer::new();
    /// let mut input = &b"[]</tool_call>"[..];
    /// assert_eq!(lexer.next(&mut input), Lex::Token(Token::ArrayStart));
    /// assert_eq!(lexer.next(&mut input), Lex::Token(Token::ArrayEnd));
    /// assert_eq!(lexer.next(&mut input), Lex::Done);
    /// assert_eq!(input, b"</tool_call>");
    /// ```
    pub fn next<'a>(&mut self, input: &mut &'a [u8]) -> Lex<'a> {
        loop {
            let r = match self.state {
                State::Done => return Lex::Done,
                State::Error => return Lex::Error(self.error()),
                State::Gap(g) => self.gap(g, input),
                State::Slash(g) => self.slash(g, input),
                State::LineComment(g) => {
                    if input.is_empty() {
                        return self.starve();
                    }
                    match memchr::memchr(b'\n', input) {
                        Some(k) => {
                            self.bump(input, k + 1);
                            self.state = State::Gap(g);
                        }
                        None => self.bump(input, input.len()),
                    }
                    None
                }
                State::BlockComment(g) => {
                    if input.is_empty() {
                        return self.starve();
                    }
                    match memchr::memchr(b'*', input) {
                        Some(k) => {
                            self.bump(input, k + 1);
                            self.state = State::BlockStar(g);
                        }
                        None => self.bump(input, input.len()),
                    }
                    None
                }
                State::BlockStar(g) => {
                    let Some(&b) = input.first() else {
                        return self.starve();
                    };
                    self.bump(input, 1);
                    self.state = match b {
                        b'/' => State::Gap(g),
                        b'*' => State::BlockStar(g),
                        _ => State::BlockComment(g),
                    };
                    None
                }
                State::Str => self.string(input),
                State::Esc => self.escape(input),
                State::EscU => self.escape_u(input),
                State::HexReady => self.hex_ready(),
                State::BareKey => self.bare_key(input),
                State::Word(w) => self.word(w, input),
            };
            if let Some(lex) = r {
                return lex;
            }
        }
    }

    /// Signals the end of input: completes a pending top-level bare word or number, else
    /// reports [`ErrorKind::Unfinished`] if the value is incomplete. May return tokens first:
    /// call it until it returns `Done` or `Error`.
    ///
    /// ```
    /// use tokensieve::json::relaxed::{Lex, Lexer, Token};
    /// let mut lexer = Lexer::new();
    /// let mut input = &b"42"[..];
    /// assert_eq!(lexer.next(&mut input), Lex::NeedMore);
    /// assert_eq!(lexer.finish(), Lex::Token(Token::NumberStart));
    /// assert!(matches!(lexer.finish(), Lex::Token(Token::Number(_))));
    /// assert_eq!(lexer.finish(), Lex::Token(Token::NumberEnd));
    /// assert_eq!(lexer.finish(), Lex::Done);
    /// ```
    pub fn finish(&mut self) -> Lex<'static> {
        self.eof = true;
        let mut empty: &'static [u8] = &[];
        self.next(&mut empty)
    }

    fn error(&self) -> Error {
        Error {
            kind: self.err.kind(),
            reason: self.err.text(),
            offset: self.offset,
        }
    }

    fn fail<'a>(&mut self, r: Reason) -> Option<Lex<'a>> {
        self.state = State::Error;
        self.err = r;
        Some(Lex::Error(self.error()))
    }

    /// Out of input: need more, or at `finish()` an unfinished value.
    fn starve<'a>(&mut self) -> Lex<'a> {
        if self.eof {
            self.state = State::Error;
            self.err = Reason::Unfinished;
            Lex::Error(self.error())
        } else {
            Lex::NeedMore
        }
    }

    fn bump(&mut self, input: &mut &[u8], n: usize) {
        let n = n.min(input.len());
        *input = input.get(n..).unwrap_or(&[]);
        self.offset += n as u64;
    }

    fn top_is_object(&self) -> bool {
        let Some(top) = (self.depth as usize).checked_sub(1) else {
            return false;
        };
        self.stack
            .get(top / 64)
            .is_some_and(|w| w & (1u64 << (top % 64)) != 0)
    }

    fn value_done(&mut self) {
        self.state = if self.depth == 0 {
            State::Done
        } else {
            State::Gap(Gap::After)
        };
    }

    fn open<'a>(&mut self, input: &mut &'a [u8], obj: bool) -> Option<Lex<'a>> {
        let d = self.depth as usize;
        if d >= MAX_DEPTH {
            return self.fail(Reason::TooDeep);
        }
        if let Some(w) = self.stack.get_mut(d / 64) {
            let bit = 1u64 << (d % 64);
            if obj {
                *w |= bit;
            } else {
                *w &= !bit;
            }
        }
        self.depth += 1;
        self.bump(input, 1);
        if obj {
            self.state = State::Gap(Gap::KeyOrClose);
            Some(Lex::Token(Token::ObjectStart))
        } else {
            self.state = State::Gap(Gap::ValueOrClose);
            Some(Lex::Token(Token::ArrayStart))
        }
    }

    fn close<'a>(&mut self, input: &mut &'a [u8], b: u8) -> Option<Lex<'a>> {
        let obj = self.top_is_object();
        if self.depth == 0 || obj != (b == b'}') {
            return self.fail(Reason::Mismatched);
        }
        self.depth -= 1;
        self.bump(input, 1);
        self.value_done();
        Some(Lex::Token(if obj {
            Token::ObjectEnd
        } else {
            Token::ArrayEnd
        }))
    }

    fn gap<'a>(&mut self, g: Gap, input: &mut &'a [u8]) -> Option<Lex<'a>> {
        let skip = input.iter().position(|&b| !is_ws(b)).unwrap_or(input.len());
        self.bump(input, skip);
        let Some(&b) = input.first() else {
            return Some(self.starve());
        };
        if b == b'/' {
            self.bump(input, 1);
            self.state = State::Slash(g);
            return None;
        }
        match g {
            Gap::After => match b {
                b',' => {
                    self.bump(input, 1);
                    self.state = State::Gap(if self.top_is_object() {
                        Gap::KeyOrClose
                    } else {
                        Gap::ValueOrClose
                    });
                    None
                }
                b'}' | b']' => self.close(input, b),
                _ => self.fail(Reason::ExpectedCommaOrClose),
            },
            Gap::Colon => {
                if b == b':' {
                    self.bump(input, 1);
                    self.state = State::Gap(Gap::Value);
                    None
                } else {
                    self.fail(Reason::ExpectedColon)
                }
            }
            Gap::KeyOrClose => match b {
                b'}' => self.close(input, b),
                b'"' | b'\'' => {
                    self.bump(input, 1);
                    self.quote = b;
                    self.is_key = true;
                    self.state = State::Str;
                    Some(Lex::Token(Token::KeyStart))
                }
                b if !key_stop(b) => {
                    self.is_key = true;
                    self.quote = 0;
                    self.state = State::BareKey;
                    Some(Lex::Token(Token::KeyStart))
                }
                _ => self.fail(Reason::ExpectedKey),
            },
            Gap::Value | Gap::ValueOrClose => match b {
                b']' if g == Gap::ValueOrClose => self.close(input, b),
                b'{' => self.open(input, true),
                b'[' => self.open(input, false),
                b'"' | b'\'' => {
                    self.bump(input, 1);
                    self.quote = b;
                    self.is_key = false;
                    self.state = State::Str;
                    Some(Lex::Token(Token::StringStart))
                }
                b',' | b'}' | b']' | b':' => self.fail(Reason::ExpectedValue),
                _ => self.start_word(b),
            },
        }
    }

    fn slash<'a>(&mut self, g: Gap, input: &mut &'a [u8]) -> Option<Lex<'a>> {
        let Some(&b) = input.first() else {
            return Some(self.starve());
        };
        match b {
            b'/' => {
                self.bump(input, 1);
                self.state = State::LineComment(g);
                None
            }
            b'*' => {
                self.bump(input, 1);
                self.state = State::BlockComment(g);
                None
            }
            _ => self.fail(Reason::Slash),
        }
    }

    // -- strings --------------------------------------------------------------------------

    fn string<'a>(&mut self, input: &mut &'a [u8]) -> Option<Lex<'a>> {
        if self.utf8_len > 0 {
            return self.utf8_continue(input);
        }
        let Some(&b) = input.first() else {
            return Some(self.starve());
        };
        if self.hi != 0 && b != b'\\' {
            return Some(self.lone_high());
        }
        if b == self.quote {
            self.bump(input, 1);
            if self.is_key {
                self.state = State::Gap(Gap::Colon);
                return Some(Lex::Token(Token::KeyEnd));
            }
            self.value_done();
            return Some(Lex::Token(Token::StringEnd));
        }
        match b {
            b'\\' => {
                self.bump(input, 1);
                self.state = State::Esc;
                None
            }
            b'"' => {
                self.bump(input, 1);
                Some(text(Text::Char('"')))
            }
            _ => self.content(input, Mode::Quoted),
        }
    }

    fn lone_high<'a>(&mut self) -> Lex<'a> {
        let h = self.hi;
        self.hi = 0;
        text(Text::LoneSurrogate(h))
    }

    fn escape<'a>(&mut self, input: &mut &'a [u8]) -> Option<Lex<'a>> {
        let Some(&b) = input.first() else {
            return Some(self.starve());
        };
        if b == b'u' {
            self.bump(input, 1);
            self.hex = 0;
            self.hex_n = 0;
            self.state = State::EscU;
            return None;
        }
        if self.hi != 0 {
            return Some(self.lone_high());
        }
        let c = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'\'' => '\'',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            _ => {
                // Unknown escape: keep the backslash, the byte is ordinary content.
                self.state = State::Str;
                return Some(text(Text::Char('\\')));
            }
        };
        self.bump(input, 1);
        self.state = State::Str;
        Some(text(Text::Char(c)))
    }

    fn escape_u<'a>(&mut self, input: &mut &'a [u8]) -> Option<Lex<'a>> {
        while self.hex_n < 4 {
            let Some(&b) = input.first() else {
                return Some(self.starve());
            };
            let Some(d) = hex_val(b) else {
                return self.fail(Reason::BadUnicode);
            };
            self.hex = (self.hex << 4) | d;
            self.hex_n += 1;
            self.bump(input, 1);
        }
        self.state = State::HexReady;
        None
    }

    fn hex_ready<'a>(&mut self) -> Option<Lex<'a>> {
        let v = self.hex;
        let is_high = (0xD800..0xDC00).contains(&v);
        let is_low = (0xDC00..0xE000).contains(&v);
        if self.hi != 0 {
            if is_low {
                let c = 0x10000 + ((u32::from(self.hi) - 0xD800) << 10) + (u32::from(v) - 0xDC00);
                self.hi = 0;
                self.state = State::Str;
                return Some(text(Text::Char(char::from_u32(c).unwrap_or('\u{FFFD}'))));
            }
            // Stay in HexReady to handle `v` on the next call.
            return Some(self.lone_high());
        }
        self.state = State::Str;
        if is_high {
            // Nothing to emit until we know whether a low surrogate follows.
            self.hi = v;
            return None;
        }
        if is_low {
            return Some(text(Text::LoneSurrogate(v)));
        }
        Some(text(Text::Char(
            char::from_u32(u32::from(v)).unwrap_or('\u{FFFD}'),
        )))
    }

    /// Continues a UTF-8 character whose first bytes were at the end of the previous chunk.
    fn utf8_continue<'a>(&mut self, input: &mut &'a [u8]) -> Option<Lex<'a>> {
        let plen = (self.utf8_len as usize).min(3);
        let mut tmp = [0u8; 4];
        for (d, s) in tmp.iter_mut().zip(self.utf8.iter().take(plen)) {
            *d = *s;
        }
        let take = (4 - plen).min(input.len());
        for (d, s) in tmp.iter_mut().skip(plen).zip(input.iter().take(take)) {
            *d = *s;
        }
        let total = plen + take;
        let all = tmp.get(..total).unwrap_or(&[]);
        let valid = match core::str::from_utf8(all) {
            Ok(s) => s,
            Err(e) => core::str::from_utf8(all.get(..e.valid_up_to()).unwrap_or(&[])).unwrap_or(""),
        };
        if let Some(c) = valid.chars().next() {
            self.bump(input, c.len_utf8().saturating_sub(plen));
            self.utf8_len = 0;
            return Some(text(Text::Char(c)));
        }
        let bad = match core::str::from_utf8(all) {
            Err(e) => e.error_len(),
            Ok(_) => Some(total),
        };
        match bad {
            Some(n) => {
                if n < plen {
                    // Not expected (pending bytes are a valid prefix), but stay correct.
                    self.utf8.copy_within(n..plen, 0);
                    self.utf8_len = (plen - n) as u8;
                } else {
                    self.bump(input, n - plen);
                    self.utf8_len = 0;
                }
                Some(text(Text::Char('\u{FFFD}')))
            }
            None if self.eof || take < input.len() => {
                // Truncated by the end of input (at finish) – one replacement character.
                self.bump(input, take);
                self.utf8_len = 0;
                Some(text(Text::Char('\u{FFFD}')))
            }
            None => {
                for (d, s) in self.utf8.iter_mut().zip(all.iter()) {
                    *d = *s;
                }
                self.utf8_len = total.min(3) as u8;
                self.bump(input, take);
                Some(self.starve())
            }
        }
    }

    /// Emits a run of content bytes (or one decoded character) that needs no special
    /// handling by the caller; `input[0]` must not be a byte the caller handles.
    fn content<'a>(&mut self, input: &mut &'a [u8], mode: Mode) -> Option<Lex<'a>> {
        let all: &'a [u8] = input;
        let end = match mode {
            Mode::Quoted if self.quote == b'"' => memchr::memchr2(b'"', b'\\', all),
            Mode::Quoted => memchr::memchr3(b'\'', b'"', b'\\', all),
            Mode::BareKey => all.iter().position(|&b| key_stop(b) || b == b'\\'),
            Mode::BareWord => all
                .iter()
                .position(|&b| word_delim(b) || matches!(b, b' ' | b'\t' | b'/' | b'"' | b'\\')),
        }
        .unwrap_or(all.len());
        let region = all.get(..end).unwrap_or(&[]);
        let lim = region
            .iter()
            .position(|&b| b < 0x20)
            .unwrap_or(region.len());
        let region: &'a [u8] = region.get(..lim).unwrap_or(&[]);
        let (valid, bad) = match core::str::from_utf8(region) {
            Ok(_) => (lim, None),
            Err(e) => (e.valid_up_to(), Some(e.error_len())),
        };
        if valid > 0 {
            self.bump(input, valid);
            return Some(text(Text::Plain(Piece::Input(
                region.get(..valid).unwrap_or(&[]),
            ))));
        }
        match bad {
            Some(Some(n)) => {
                self.bump(input, n);
                Some(text(Text::Char('\u{FFFD}')))
            }
            Some(None) if lim == all.len() => {
                // An incomplete character at the end of the chunk: hold it.
                for (d, s) in self.utf8.iter_mut().zip(region.iter()) {
                    *d = *s;
                }
                self.utf8_len = region.len().min(3) as u8;
                self.bump(input, lim);
                if self.eof {
                    self.utf8_len = 0;
                    return Some(text(Text::Char('\u{FFFD}')));
                }
                Some(self.starve())
            }
            Some(None) => {
                // Truncated by an ASCII byte: one maximal invalid sequence.
                self.bump(input, lim);
                Some(text(Text::Char('\u{FFFD}')))
            }
            None => match all.first() {
                Some(&c) if c < 0x20 => {
                    self.bump(input, 1);
                    Some(text(Text::Char(char::from(c))))
                }
                Some(_) => self.fail(Reason::ExpectedValue),
                None => Some(self.starve()),
            },
        }
    }

    fn bare_key<'a>(&mut self, input: &mut &'a [u8]) -> Option<Lex<'a>> {
        if self.utf8_len > 0 {
            return self.utf8_continue(input);
        }
        let Some(&b) = input.first() else {
            return Some(self.starve());
        };
        if key_stop(b) {
            self.state = State::Gap(Gap::Colon);
            return Some(Lex::Token(Token::KeyEnd));
        }
        if b == b'\\' {
            self.bump(input, 1);
            return Some(text(Text::Char('\\')));
        }
        self.content(input, Mode::BareKey)
    }

    // -- bare words -----------------------------------------------------------------------

    fn start_word<'a>(&mut self, b: u8) -> Option<Lex<'a>> {
        self.is_key = false;
        self.quote = 0;
        self.hold_len = 0;
        self.hold_pos = 0;
        self.ws_len = 0;
        self.ws_bits = 0;
        self.slash_pending = false;
        self.word_end = false;
        self.comment_after = false;
        self.block_after = false;
        self.word_num = false;
        self.num = super::strict::Num::Start;
        self.lit = match b {
            b't' => 1,
            b'f' => 2,
            b'n' => 3,
            _ => 0,
        };
        if self.lit != 0 || b == b'-' || b.is_ascii_digit() {
            self.state = State::Word(Word::Hold);
            None
        } else {
            self.state = State::Word(Word::Stream);
            Some(Lex::Token(Token::StringStart))
        }
    }

    fn push_ws(&mut self, b: u8) {
        if (self.ws_len as usize) < 32 {
            if b == b'\t' {
                self.ws_bits |= 1 << self.ws_len;
            }
            self.ws_len += 1;
        }
    }

    fn literal(&self) -> Option<Literal> {
        let lit = LITERALS.get((self.lit as usize).checked_sub(1)?)?;
        if lit.len() != self.hold_len as usize {
            return None;
        }
        Some(match self.lit {
            1 => Literal::True,
            2 => Literal::False,
            _ => Literal::Null,
        })
    }

    /// The bare word ended (delimiter, `//` or end of input): decide what it was.
    fn end_word(&mut self, w: Word) {
        self.word_end = true;
        self.state = State::Word(match w {
            Word::Hold => {
                if self.literal().is_some() {
                    Word::EmitLiteral
                } else if self.num.accepting() {
                    self.word_num = true;
                    Word::EmitNumStart
                } else {
                    Word::EmitStrStart
                }
            }
            _ => Word::EmitEnd,
        });
    }

    fn finish_word(&mut self) {
        if self.comment_after && self.depth > 0 {
            self.state = if self.block_after {
                State::BlockComment(Gap::After)
            } else {
                State::LineComment(Gap::After)
            };
        } else {
            self.value_done();
        }
    }

    fn word<'a>(&mut self, w: Word, input: &mut &'a [u8]) -> Option<Lex<'a>> {
        match w {
            Word::Hold => self.word_hold(input),
            Word::EmitStrStart => {
                self.state = State::Word(Word::EmitHold);
                Some(Lex::Token(Token::StringStart))
            }
            Word::EmitNumStart => {
                self.state = State::Word(Word::EmitHold);
                Some(Lex::Token(Token::NumberStart))
            }
            Word::EmitLiteral => {
                let lit = self.literal().unwrap_or(Literal::Null);
                self.finish_word();
                Some(Lex::Token(Token::Literal(lit)))
            }
            Word::EmitHold => {
                let from = self.hold_pos as usize;
                let to = (from + InlineBuf::CAPACITY).min(self.hold_len as usize);
                if from < to {
                    self.hold_pos = to as u8;
                    let buf = InlineBuf::new(self.hold.get(from..to).unwrap_or(&[]))
                        .map(Piece::Inline)
                        .unwrap_or(Piece::Static(""));
                    return Some(Lex::Token(if self.word_num {
                        Token::Number(buf)
                    } else {
                        Token::Text(Text::Plain(buf))
                    }));
                }
                self.state = State::Word(if self.word_end {
                    Word::EmitEnd
                } else if !self.word_num && (self.ws_len > 0 || self.slash_pending) {
                    Word::EmitWs
                } else {
                    Word::Stream
                });
                None
            }
            Word::EmitWs => {
                if self.ws_len > 0 {
                    if self.ws_bits & 1 != 0 {
                        self.ws_bits >>= 1;
                        self.ws_len -= 1;
                        return Some(text(Text::Char('\t')));
                    }
                    let spaces = (self.ws_bits.trailing_zeros() as usize)
                        .min(self.ws_len as usize)
                        .min(InlineBuf::CAPACITY);
                    self.ws_bits >>= spaces;
                    self.ws_len -= spaces as u8;
                    let sp = InlineBuf::new(&[b' '; InlineBuf::CAPACITY][..spaces])
                        .map(Piece::Inline)
                        .unwrap_or(Piece::Static(" "));
                    return Some(text(Text::Plain(sp)));
                }
                self.ws_bits = 0;
                self.state = State::Word(Word::Stream);
                if self.slash_pending {
                    self.slash_pending = false;
                    return Some(text(Text::Plain(Piece::Static("/"))));
                }
                None
            }
            Word::Stream if self.word_num => self.word_num_stream(input),
            Word::Stream => self.word_str_stream(input),
            Word::EmitEnd => {
                self.finish_word();
                Some(Lex::Token(if self.word_num {
                    Token::NumberEnd
                } else {
                    Token::StringEnd
                }))
            }
        }
    }

    /// The end of a bare word: `Some(true)` = ended, `Some(false)` = ended by a comment,
    /// `None` = not at an end. Handles end of input at `finish()` too.
    fn at_word_end(&mut self, input: &mut &[u8]) -> Option<bool> {
        match input.first() {
            None => (self.eof && self.depth == 0 && !self.slash_pending).then_some(true),
            Some(&b) if self.slash_pending && (b == b'/' || b == b'*') => {
                self.bump(input, 1);
                self.comment_after = true;
                self.block_after = b == b'*';
                Some(false)
            }
            Some(&b) if !self.slash_pending && word_delim(b) => Some(true),
            Some(_) => None,
        }
    }

    fn word_hold<'a>(&mut self, input: &mut &'a [u8]) -> Option<Lex<'a>> {
        if self.at_word_end(input).is_some() {
            self.end_word(Word::Hold);
            return None;
        }
        let Some(&b) = input.first() else {
            if self.eof && self.depth == 0 {
                // A pending "/" at the end: the word is a string.
                self.state = State::Word(Word::EmitStrStart);
                return None;
            }
            return Some(self.starve());
        };
        if self.slash_pending || (self.ws_len > 0 && !matches!(b, b' ' | b'\t' | b'/')) {
            // More after interior whitespace: a string.
            self.state = State::Word(Word::EmitStrStart);
            return None;
        }
        match b {
            b' ' | b'\t' => {
                self.push_ws(b);
                self.bump(input, 1);
                return None;
            }
            b'/' => {
                // A comment may follow a number or literal directly (`1/*x*/`).
                self.slash_pending = true;
                self.bump(input, 1);
                return None;
            }
            _ => {}
        }
        let n = self.num.step(b);
        let lit_ok = LITERALS
            .get((self.lit as usize).wrapping_sub(1))
            .and_then(|l| l.get(self.hold_len as usize))
            == Some(&b);
        if !lit_ok {
            self.lit = 0;
        }
        if n == super::strict::Num::Dead && !lit_ok {
            self.state = State::Word(Word::EmitStrStart);
            return None;
        }
        let at = self.hold_len as usize;
        match self.hold.get_mut(at) {
            Some(slot) => {
                *slot = b;
                self.hold_len += 1;
                self.num = n;
                self.bump(input, 1);
            }
            None => {
                // Too long to hold: commit to a number; `b` is streamed next.
                self.word_num = true;
                self.state = State::Word(Word::EmitNumStart);
            }
        }
        None
    }

    fn word_str_stream<'a>(&mut self, input: &mut &'a [u8]) -> Option<Lex<'a>> {
        if self.utf8_len > 0 {
            return self.utf8_continue(input);
        }
        if self.at_word_end(input).is_some() {
            self.end_word(Word::Stream);
            return None;
        }
        let Some(&b) = input.first() else {
            if self.eof && self.depth == 0 {
                // Only a pending "/" is left.
                self.state = State::Word(Word::EmitWs);
                return None;
            }
            return Some(self.starve());
        };
        if self.slash_pending {
            self.state = State::Word(Word::EmitWs);
            return None;
        }
        match b {
            b' ' | b'\t' => {
                self.push_ws(b);
                self.bump(input, 1);
                None
            }
            b'/' if self.ws_len > 0 => {
                self.slash_pending = true;
                self.bump(input, 1);
                None
            }
            _ if self.ws_len > 0 => {
                self.state = State::Word(Word::EmitWs);
                None
            }
            b'"' | b'\\' => {
                self.bump(input, 1);
                Some(text(Text::Char(char::from(b))))
            }
            b'/' => {
                self.bump(input, 1);
                Some(text(Text::Plain(Piece::Static("/"))))
            }
            _ => self.content(input, Mode::BareWord),
        }
    }

    fn word_num_stream<'a>(&mut self, input: &mut &'a [u8]) -> Option<Lex<'a>> {
        if self.at_word_end(input).is_some() {
            if !self.num.accepting() {
                return self.fail(Reason::TooLong);
            }
            self.end_word(Word::Stream);
            return None;
        }
        let Some(&b) = input.first() else {
            if self.eof && self.depth == 0 {
                return self.fail(Reason::TooLong);
            }
            return Some(self.starve());
        };
        if self.slash_pending {
            return self.fail(Reason::TooLong);
        }
        match b {
            b' ' | b'\t' => {
                self.push_ws(b);
                self.bump(input, 1);
                return None;
            }
            b'/' if self.ws_len > 0 => {
                self.slash_pending = true;
                self.bump(input, 1);
                return None;
            }
            _ if self.ws_len > 0 => return self.fail(Reason::TooLong),
            _ => {}
        }
        let all: &'a [u8] = input;
        let mut st = self.num;
        let mut run = 0;
        for &c in all {
            let n = st.step(c);
            if n == super::strict::Num::Dead {
                break;
            }
            st = n;
            run += 1;
        }
        if run == 0 {
            return self.fail(Reason::TooLong);
        }
        self.num = st;
        self.bump(input, run);
        Some(Lex::Token(Token::Number(Piece::Input(
            all.get(..run).unwrap_or(&[]),
        ))))
    }
}

fn text(t: Text<'_>) -> Lex<'_> {
    Lex::Token(Token::Text(t))
}

// ---------------------------------------------------------------------------------------
// Writer and Transcoder
// ---------------------------------------------------------------------------------------

/// Renders [`Token`]s as strict compact JSON, one [`Piece`] (or nothing) per token,
/// inserting `,` and `:`. Start a fresh `Writer` at the first token of the value to render.
///
/// ```
/// use tokensieve::json::relaxed::{Text, Piece, Token, Writer};
///
/// let mut w = Writer::new();
/// let mut out = Vec::new();
/// for t in [Token::ArrayStart, Token::StringStart, Token::Text(Text::Char('"')),
///           Token::StringEnd, Token::NumberStart, Token::Number(Piece::Input(b"1.50")),
///           Token::NumberEnd, Token::ArrayEnd] {
///     if let Some(p) = w.render(t) {
///         out.extend_from_slice(p.as_bytes());
///     }
/// }
/// assert_eq!(out, br#"["\"",1.50]"#);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Writer {
    /// The current container has no element yet.
    empty: bool,
    /// A key was just written: the next value needs no comma.
    after_key: bool,
}

impl Writer {
    /// A writer at the start of a value.
    ///
    /// ```
    /// let w = tokensieve::json::relaxed::Writer::new();
    /// # let _ = w;
    /// ```
    pub const fn new() -> Self {
        Writer {
            empty: true,
            after_key: false,
        }
    }

    /// Whether a value starting now needs a comma before it.
    fn value_sep(&mut self) -> bool {
        if self.after_key {
            self.after_key = false;
            false
        } else {
            let sep = !self.empty;
            self.empty = false;
            sep
        }
    }

    /// The output for one token, if any.
    ///
    /// ```
    /// use tokensieve::json::relaxed::{Piece, Token, Writer};
    /// let mut w = Writer::new();
    /// assert_eq!(w.render(Token::ObjectStart), Some(Piece::Static("{")));
    /// assert_eq!(w.render(Token::KeyStart), Some(Piece::Static("\"")));
    /// assert_eq!(w.render(Token::KeyEnd), Some(Piece::Static("\":")));
    /// ```
    pub fn render<'a>(&mut self, token: Token<'a>) -> Option<Piece<'a>> {
        let s = |sep: bool, a: &'static str, b: &'static str| {
            Some(Piece::Static(if sep { a } else { b }))
        };
        match token {
            Token::ObjectStart => {
                let sep = self.value_sep();
                self.empty = true;
                s(sep, ",{", "{")
            }
            Token::ArrayStart => {
                let sep = self.value_sep();
                self.empty = true;
                s(sep, ",[", "[")
            }
            Token::ObjectEnd => {
                self.empty = false;
                self.after_key = false;
                Some(Piece::Static("}"))
            }
            Token::ArrayEnd => {
                self.empty = false;
                self.after_key = false;
                Some(Piece::Static("]"))
            }
            Token::KeyStart => {
                let sep = !self.empty;
                self.empty = false;
                s(sep, ",\"", "\"")
            }
            Token::KeyEnd => {
                self.after_key = true;
                Some(Piece::Static("\":"))
            }
            Token::StringStart => {
                let sep = self.value_sep();
                s(sep, ",\"", "\"")
            }
            Token::StringEnd => Some(Piece::Static("\"")),
            Token::Text(t) => Some(t.escaped()),
            Token::NumberStart => self.value_sep().then_some(Piece::Static(",")),
            Token::Number(p) => Some(p),
            Token::NumberEnd => None,
            Token::Literal(l) => {
                let sep = self.value_sep();
                Some(Piece::Static(match (sep, l) {
                    (true, Literal::True) => ",true",
                    (true, Literal::False) => ",false",
                    (true, Literal::Null) => ",null",
                    (false, l) => l.as_str(),
                }))
            }
        }
    }
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
        loop {
            match self.lexer.next(input) {
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

    /// End of input: completes a pending top-level number or bare word, else reports an
    /// [`ErrorKind::Unfinished`] error if the value is incomplete. May return output pieces
    /// first: call it until it returns `Done` or `Error`.
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
        loop {
            match self.lexer.finish() {
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
