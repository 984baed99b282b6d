//! Keys and strings: quoted contents, escapes, `\u` escapes and surrogate pairs, UTF-8
//! split across chunks, bare keys.

use super::{Gap, Lex, Lexer, Mode, Reason, State, key_stop, text, word_delim};
use crate::json::relaxed::piece::Piece;
use crate::json::relaxed::token::{Text, Token};

impl Lexer {
    pub(super) fn string<'a>(&mut self, input: &mut &'a [u8]) -> Option<Lex<'a>> {
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

    pub(super) fn escape<'a>(&mut self, input: &mut &'a [u8]) -> Option<Lex<'a>> {
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
            b'a' if self.py => '\u{7}',
            b'v' if self.py => '\u{b}',
            b'x' if self.py => {
                // `\xHH`: two hex digits, read like the last two of `\u00HH`.
                self.bump(input, 1);
                self.hex = 0;
                self.hex_n = 2;
                self.state = State::EscU;
                return None;
            }
            b'\n' if self.py => {
                // A line continuation: nothing.
                self.bump(input, 1);
                self.state = State::Str;
                return None;
            }
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

    pub(super) fn escape_u<'a>(&mut self, input: &mut &'a [u8]) -> Option<Lex<'a>> {
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

    pub(super) fn hex_ready<'a>(&mut self) -> Option<Lex<'a>> {
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
    pub(super) fn utf8_continue<'a>(&mut self, input: &mut &'a [u8]) -> Option<Lex<'a>> {
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
    pub(super) fn content<'a>(&mut self, input: &mut &'a [u8], mode: Mode) -> Option<Lex<'a>> {
        let all: &'a [u8] = input;
        let py = self.py;
        let end = match mode {
            Mode::Quoted if self.quote == b'"' => memchr::memchr2(b'"', b'\\', all),
            Mode::Quoted => memchr::memchr3(b'\'', b'"', b'\\', all),
            Mode::BareKey => all.iter().position(|&b| key_stop(b, py) || b == b'\\'),
            Mode::BareWord => all.iter().position(|&b| {
                word_delim(b, py) || matches!(b, b' ' | b'\t' | b'/' | b'"' | b'\\')
            }),
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

    pub(super) fn bare_key<'a>(&mut self, input: &mut &'a [u8]) -> Option<Lex<'a>> {
        if self.utf8_len > 0 {
            return self.utf8_continue(input);
        }
        let Some(&b) = input.first() else {
            return Some(self.starve());
        };
        if key_stop(b, self.py) {
            self.state = State::Gap(Gap::Colon);
            return Some(Lex::Token(Token::KeyEnd));
        }
        if b == b'\\' {
            self.bump(input, 1);
            return Some(text(Text::Char('\\')));
        }
        self.content(input, Mode::BareKey)
    }
}

fn hex_val(b: u8) -> Option<u16> {
    match b {
        b'0'..=b'9' => Some(u16::from(b - b'0')),
        b'a'..=b'f' => Some(u16::from(b - b'a' + 10)),
        b'A'..=b'F' => Some(u16::from(b - b'A' + 10)),
        _ => None,
    }
}
