//! Bare words: held while they may be a number or a literal, then streamed as a string or a
//! number; interior whitespace and comments.

use super::{Gap, Lex, Lexer, Mode, Reason, State, Word, text, word_delim};
use crate::json::relaxed::piece::{InlineBuf, Piece};
use crate::json::relaxed::token::{LITERALS, Literal, Text, Token};
use crate::json::strict::Num;

impl Lexer {
    pub(super) fn start_word<'a>(&mut self, b: u8) -> Option<Lex<'a>> {
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
        self.num = Num::Start;
        self.lit = match b {
            b't' => 1,
            b'f' => 2,
            b'n' => 3,
            b'T' if self.py => 4,
            b'F' if self.py => 5,
            b'N' if self.py => 6,
            _ => 0,
        };
        if self.lit != 0 || b == b'-' || b.is_ascii_digit() {
            self.state = State::Word(Word::Hold);
            None
        } else if self.py {
            // Python has no bare words: a name or expression is not a literal.
            self.fail(Reason::ExpectedValue)
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

    /// Takes `b` (the next input byte) if it is a space or tab, kept as pending whitespace,
    /// or, when `slash` allows, a `/` that may start a comment (held as pending).
    fn take_pending(&mut self, b: u8, input: &mut &[u8], slash: bool) -> bool {
        match b {
            b' ' | b'\t' => self.push_ws(b),
            b'/' if slash => self.slash_pending = true,
            _ => return false,
        }
        self.bump(input, 1);
        true
    }

    fn literal(&self) -> Option<Literal> {
        let lit = LITERALS.get((self.lit as usize).checked_sub(1)?)?;
        if lit.len() != self.hold_len as usize {
            return None;
        }
        Some(match self.lit {
            1 | 4 => Literal::True,
            2 | 5 => Literal::False,
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

    pub(super) fn word<'a>(&mut self, w: Word, input: &mut &'a [u8]) -> Option<Lex<'a>> {
        match w {
            Word::Hold => self.word_hold(input),
            Word::EmitStrStart if self.py => self.fail(Reason::ExpectedValue),
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
            Some(&b) if !self.slash_pending && word_delim(b, self.py) => Some(true),
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
        // A comment may follow a number or literal directly (`1/*x*/`).
        if self.take_pending(b, input, true) {
            return None;
        }
        let n = self.num.step(b);
        let lit_ok = LITERALS
            .get((self.lit as usize).wrapping_sub(1))
            .and_then(|l| l.get(self.hold_len as usize))
            == Some(&b);
        if !lit_ok {
            self.lit = 0;
        }
        if n == Num::Dead && !lit_ok {
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
        if self.take_pending(b, input, self.ws_len > 0) {
            return None;
        }
        if self.ws_len > 0 {
            // More after interior whitespace: emit the whitespace first.
            self.state = State::Word(Word::EmitWs);
            return None;
        }
        match b {
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
        if self.take_pending(b, input, self.ws_len > 0) {
            return None;
        }
        if self.ws_len > 0 {
            return self.fail(Reason::TooLong);
        }
        let all: &'a [u8] = input;
        let mut st = self.num;
        let mut run = 0;
        for &c in all {
            let n = st.step(c);
            if n == Num::Dead {
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
