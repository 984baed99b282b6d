//! Tokens to strict compact JSON.

use super::piece::Piece;
use super::token::{Literal, Token};

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
    pub(super) empty: bool,
    /// A key was just written: the next value needs no comma.
    pub(super) after_key: bool,
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
