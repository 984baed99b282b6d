//! The relaxed-JSON tokenizer: its state, the structure between tokens (containers, `,`,
//! `:`, comments). Quoted and bare keys and strings are read in `string.rs`, bare words in
//! `word.rs`.

mod quick;
mod string;
mod verbatim;
mod word;

pub(crate) use quick::Quick;
pub use verbatim::Verbatim;

use super::error::{Error, Reason};
use super::token::{Text, Token};
use super::{HOLD, MAX_DEPTH};
use crate::json::strict::Num;

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
    num: Num,
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
    /// Python literals too, and the outermost object is a call's keyword arguments, closed
    /// by `)` ([`Lexer::python_call`]).
    py: bool,
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

fn word_delim(b: u8, py: bool) -> bool {
    matches!(b, b',' | b'}' | b']' | b'\n' | b'\r') || (py && b == b')')
}

fn key_stop(b: u8, py: bool) -> bool {
    (py && matches!(b, b'=' | b'(' | b')'))
        || matches!(
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
            num: Num::Start,
            err: Reason::None,
            state: State::Gap(Gap::Value),
            is_key: false,
            slash_pending: false,
            word_end: false,
            comment_after: false,
            block_after: false,
            word_num: false,
            eof: false,
            py: false,
        }
    }

    /// A lexer for the keyword arguments of a Python call, positioned right after its `(`:
    /// it reads `city="Paris", days=3)` as the members of an object (already open: depth 1)
    /// that `)` closes, then reports [`Lex::Done`]. Besides the relaxed syntax (quotes of either
    /// kind, unquoted keys, comments, trailing commas) it reads
    /// Python literals: `=` as well as `:` after a key, `True`/`False`/`None` (as
    /// `true`/`false`/`null`), tuples `(1, 2)` as arrays, the escapes `\xHH`, `\a`, `\v`
    /// and a backslash-newline line continuation (dropped). `\U`, `\N{…}` and octal escapes
    /// are kept literally, like any unknown escape. A bare word that is not a number or a
    /// literal (a name, an expression such as `1 + 2`) is an error: Python has no bare words.
    pub(crate) const fn python_call() -> Self {
        let mut lexer = Lexer::new();
        lexer.py = true;
        lexer.depth = 1;
        lexer.stack = [1, 0];
        lexer.state = State::Gap(Gap::KeyOrClose);
        lexer
    }

    /// A lexer inside an array, right after one of its elements (at depth 1, expecting `,`
    /// or `]`): where a dialect resumes reading an array of calls after skipping a failed
    /// element whose end it found without the lexer.
    pub(crate) const fn after_array_element() -> Self {
        let mut lexer = Lexer::new();
        lexer.depth = 1;
        lexer.state = State::Gap(Gap::After);
        lexer
    }

    /// The quote character of the quoted key or string the lexer is inside, or 0.
    pub(crate) fn open_quote(&self) -> u8 {
        if self.in_quotes() { self.quote } else { 0 }
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

    /// Whether the lexer failed where a key's `:` (or `=`) was required: for a Python call,
    /// a positional argument (`f("Paris")`, `f(x=1, 2)`).
    pub(crate) fn failed_after_key(&self) -> bool {
        self.state == State::Error && self.err == Reason::ExpectedColon
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
                State::LineComment(g) => self.skip_past(input, b'\n', State::Gap(g)),
                State::BlockComment(g) => self.skip_past(input, b'*', State::BlockStar(g)),
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
    /// reports [`ErrorKind::Unfinished`](super::ErrorKind::Unfinished) if the value is
    /// incomplete. May return tokens first: call it until it returns `Done` or `Error`.
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

    /// Inside a comment: consumes input up to and including the next `end` byte, then goes
    /// on in `then`.
    fn skip_past<'a>(&mut self, input: &mut &'a [u8], end: u8, then: State) -> Option<Lex<'a>> {
        if input.is_empty() {
            return Some(self.starve());
        }
        match memchr::memchr(end, input) {
            Some(k) => {
                self.bump(input, k + 1);
                self.state = then;
            }
            None => self.bump(input, input.len()),
        }
        None
    }

    fn bump(&mut self, input: &mut &[u8], n: usize) {
        let n = n.min(input.len());
        *input = input.get(n..).unwrap_or(&[]);
        self.offset += n as u64;
    }

    /// Whether the innermost container is an object when `d` are open (false for none).
    #[inline]
    fn is_object_at(&self, d: u8) -> bool {
        let Some(top) = (d as usize).checked_sub(1) else {
            return false;
        };
        self.stack
            .get(top / 64)
            .is_some_and(|w| w & (1u64 << (top % 64)) != 0)
    }

    /// Records whether the container opened at depth `d` (its contents at `d + 1`) is an
    /// object.
    #[inline]
    fn set_object_at(&mut self, d: u8, obj: bool) {
        let d = d as usize;
        if let Some(w) = self.stack.get_mut(d / 64) {
            let bit = 1u64 << (d % 64);
            if obj {
                *w |= bit;
            } else {
                *w &= !bit;
            }
        }
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

    #[inline]
    fn open<'a>(&mut self, input: &mut &'a [u8], obj: bool) -> Option<Lex<'a>> {
        if self.depth as usize >= MAX_DEPTH {
            return self.fail(Reason::TooDeep);
        }
        self.push(obj);
        self.bump(input, 1);
        Some(Lex::Token(if obj {
            Token::ObjectStart
        } else {
            Token::ArrayStart
        }))
    }

    /// Opens an object or array (below [`MAX_DEPTH`]): the gap after its opening bracket.
    #[inline]
    fn push(&mut self, obj: bool) {
        self.set_object_at(self.depth, obj);
        self.depth += 1;
        self.state = State::Gap(if obj {
            Gap::KeyOrClose
        } else {
            Gap::ValueOrClose
        });
    }

    #[inline]
    fn close<'a>(&mut self, input: &mut &'a [u8], b: u8) -> Option<Lex<'a>> {
        let obj = self.top_is_object();
        // In a Python call, `)` closes the keyword arguments (at depth 1) or a tuple.
        let kwargs = self.py && self.depth == 1;
        let fits = match b {
            b'}' => obj && !kwargs,
            b')' if kwargs => obj,
            _ => !obj,
        };
        if self.depth == 0 || !fits {
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
                b')' if self.py => self.close(input, b),
                _ => self.fail(Reason::ExpectedCommaOrClose),
            },
            Gap::Colon => {
                if b == b':' || (self.py && b == b'=') {
                    self.bump(input, 1);
                    self.state = State::Gap(Gap::Value);
                    None
                } else {
                    self.fail(Reason::ExpectedColon)
                }
            }
            Gap::KeyOrClose => match b {
                b'}' => self.close(input, b),
                b')' if self.py => self.close(input, b),
                b'"' | b'\'' => self.open_quoted(input, b, true),
                b if !key_stop(b, self.py) => {
                    self.is_key = true;
                    self.quote = 0;
                    self.state = State::BareKey;
                    Some(Lex::Token(Token::KeyStart))
                }
                _ => self.fail(Reason::ExpectedKey),
            },
            Gap::Value | Gap::ValueOrClose => match b {
                b']' if g == Gap::ValueOrClose => self.close(input, b),
                b')' if g == Gap::ValueOrClose && self.py => self.close(input, b),
                b'{' => self.open(input, true),
                b'[' => self.open(input, false),
                b'(' if self.py => self.open(input, false),
                b'"' | b'\'' => self.open_quoted(input, b, false),
                b',' | b'}' | b']' | b':' => self.fail(Reason::ExpectedValue),
                b')' | b'=' if self.py => self.fail(Reason::ExpectedValue),
                _ => self.start_word(b),
            },
        }
    }

    /// Opens a quoted key (`is_key`) or string value at its quote `q`.
    fn open_quoted<'a>(&mut self, input: &mut &'a [u8], q: u8, is_key: bool) -> Option<Lex<'a>> {
        self.bump(input, 1);
        self.quote = q;
        self.is_key = is_key;
        self.state = State::Str;
        Some(Lex::Token(if is_key {
            Token::KeyStart
        } else {
            Token::StringStart
        }))
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
}

fn text(t: Text<'_>) -> Lex<'_> {
    Lex::Token(Token::Text(t))
}
