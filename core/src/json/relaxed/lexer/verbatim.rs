//! The verbatim path: input that is already the strict compact JSON the [`Writer`] writes
//! (what a model usually produces) is read a run at a time — string contents eight bytes a
//! step, numbers and literals whole — instead of a token and a state step at a time. The
//! caller copies or borrows the run as it is: the output of the tokens it stands for is the
//! run itself.

use super::{Gap, Lexer, State};
use crate::json::relaxed::MAX_DEPTH;
use crate::json::relaxed::writer::Writer;

/// What [`Lexer::verbatim`] read.
///
/// ```
/// use tokensieve::json::relaxed::{Lexer, Verbatim, Writer};
/// let mut lexer = Lexer::new();
/// let mut writer = Writer::new();
/// let v = lexer.verbatim(&mut writer, br#"[1,"a"]"#, 0, false);
/// assert_eq!(v, Verbatim { start: 0, len: 7, ended: true });
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Verbatim {
    /// Where the output starts: 1 when the lexer was between a key and its `:` (which the
    /// writer wrote with the key), else 0.
    pub start: usize,
    /// How many bytes of the input were read: the strict output of their tokens is exactly
    /// `input[start..len]`.
    pub len: usize,
    /// The read ended with a value that brought the lexer back to the given depth.
    pub ended: bool,
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The first byte of `s` that string contents cannot copy as is: `"`, `\`, a control byte or
/// a non-ASCII byte (checked as UTF-8 by the caller); `s.len()` if none. Eight bytes at a
/// time, in safe code: the lowest flagged byte of a word is exact (false flags only come
/// above a true one).
#[inline]
fn special(s: &[u8]) -> usize {
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let mut words = s.chunks_exact(8);
    let mut at = 0;
    for w in words.by_ref() {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        let v = u64::from_le_bytes(b);
        // Bytes below 0x20 and from 0x80 up are flagged by `v - 0x20…` and `v` itself (`| v`
        // covers both: a byte ≥ 0x80 sets its high bit either way).
        let flags = zero(v ^ (ONES * u64::from(b'"')))
            | zero(v ^ (ONES * u64::from(b'\\')))
            | ((v.wrapping_sub(ONES * 0x20) | v) & HIGH);
        if flags != 0 {
            return at + (flags.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    let tail = words.remainder();
    at + tail
        .iter()
        .position(|&b| matches!(b, b'"' | b'\\' | 0..0x20 | 0x80..))
        .unwrap_or(tail.len())
}

/// The length of the contents of a `"` string at the front of `s` whose strict form is
/// themselves — valid UTF-8 without control bytes, escapes only as `serde_json` writes them
/// (`\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, `\u00XX` for the other control characters,
/// lowercase) — and whether the closing quote follows.
fn string_run(s: &[u8]) -> (usize, bool) {
    let mut i = 0;
    loop {
        i += special(s.get(i..).unwrap_or(&[]));
        let Some(&b) = s.get(i) else {
            return (i, false);
        };
        match b {
            b'"' => return (i, true),
            b'\\' => match s.get(i + 1) {
                Some(b'"' | b'\\' | b'n' | b'r' | b't' | b'b' | b'f') => i += 2,
                Some(b'u') if short_control(s.get(i + 2..i + 6)) => i += 6,
                _ => return (i, false),
            },
            0x80.. => {
                // A non-ASCII stretch: valid UTF-8 up to its next ASCII byte, or stop where
                // it is not (the lexer then replaces or holds those bytes).
                let rest = s.get(i..).unwrap_or(&[]);
                let q = rest.iter().position(|&c| c < 0x80).unwrap_or(rest.len());
                match core::str::from_utf8(rest.get(..q).unwrap_or(&[])) {
                    Ok(_) => i += q,
                    Err(e) => return (i + e.valid_up_to(), false),
                }
            }
            _ => return (i, false),
        }
    }
}

/// Whether `\u` + `hex` is how a control character without a short escape is written:
/// `00` then two lowercase hex digits below `20`, not `08`, `09`, `0a`, `0c`, `0d`.
fn short_control(hex: Option<&[u8]>) -> bool {
    let Some(&[b'0', b'0', h, l]) = hex else {
        return false;
    };
    let low = match l {
        b'0'..=b'9' => l - b'0',
        b'a'..=b'f' => l - b'a' + 10,
        _ => return false,
    };
    match h {
        b'0' => !matches!(low, 8 | 9 | 0xa | 0xc | 0xd),
        b'1' => true,
        _ => false,
    }
}

/// The length of an RFC 8259 number at the front of `s`, if one is there.
fn number_len(s: &[u8]) -> Option<usize> {
    let digits = |from: usize| {
        s.get(from..)
            .unwrap_or(&[])
            .iter()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(s.len().saturating_sub(from))
    };
    let mut i = usize::from(s.first() == Some(&b'-'));
    match s.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i += digits(i),
        _ => return None,
    }
    if s.get(i) == Some(&b'.') {
        let n = digits(i + 1);
        if n == 0 {
            return None;
        }
        i += 1 + n;
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(s.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let n = digits(i);
        if n == 0 {
            return None;
        }
        i += n;
    }
    Some(i)
}

/// A byte that ends a number or literal at once and is read after it.
fn closes_word(b: Option<&u8>) -> bool {
    matches!(b, Some(b',' | b'}' | b']'))
}

impl Writer {
    /// Whether a value whose `,` is or is not (`comma`) in the input starts where the writer
    /// writes the same; if so, the writer is moved past its separator as `render` would.
    #[inline(always)]
    fn verbatim_value(&mut self, comma: bool) -> bool {
        if self.after_key {
            if comma {
                return false;
            }
            self.after_key = false;
        } else {
            if comma == self.empty {
                return false;
            }
            self.empty = false;
        }
        true
    }

    /// Same for a key.
    #[inline(always)]
    fn verbatim_key(&mut self, comma: bool) -> bool {
        if comma == self.empty {
            return false;
        }
        self.empty = false;
        true
    }
}

impl Lexer {
    /// Reads the longest prefix of `input` that is already strict compact JSON as `writer`
    /// renders it: the tokens [`next`](Lexer::next) gives for those bytes, rendered by
    /// `writer`, are exactly those bytes (but a first `:` after a key, see
    /// [`Verbatim::start`]). Lexer and writer end where `next` and
    /// [`Writer::render`] leave them after those tokens, so a caller copies (or borrows) the
    /// run instead of the pieces and goes on with `next`. The lexer must be where `writer`'s
    /// output ends (not in a bare word or an escape), else it reads nothing.
    ///
    /// It reads no whitespace, comments, single quotes, bare words or escapes that `Writer`
    /// spells another way (`\/`, `\u00e9`), and no token cut by the end of `input`, except
    /// string contents (it stops before a character cut there). It stops after a value that
    /// brings the lexer back to `end_depth` (`ended`), and with `string_only` it reads only
    /// inside a string value and stops after its closing quote (before a key's).
    ///
    /// ```
    /// use tokensieve::json::relaxed::{Lex, Lexer, Token, Verbatim, Writer};
    ///
    /// let mut lexer = Lexer::new();
    /// let mut writer = Writer::new();
    /// let input = br#"{"a":[1,true,"x\ny"],"b": 2}"#;
    /// let v = lexer.verbatim(&mut writer, input, 0, false);
    /// // Up to the space after `"b":`, which the writer drops.
    /// assert_eq!(&input[..v.len], br#"{"a":[1,true,"x\ny"],"b":"#);
    /// let mut rest = &input[v.len..];
    /// assert_eq!(lexer.next(&mut rest), Lex::Token(Token::NumberStart));
    /// ```
    pub fn verbatim(
        &mut self,
        writer: &mut Writer,
        input: &[u8],
        end_depth: usize,
        string_only: bool,
    ) -> Verbatim {
        let mut v = Verbatim::default();
        if self.py || self.utf8_len != 0 || self.hi != 0 {
            return v;
        }
        let mut i = 0;
        let mut obj = self.top_is_object();
        loop {
            let g = match self.state {
                State::Str if self.quote == b'"' => {
                    let (n, closed) = string_run(input.get(i..).unwrap_or(&[]));
                    i += n;
                    if !closed {
                        break;
                    }
                    if self.is_key {
                        // `KeyEnd` renders the `:` too.
                        if string_only || input.get(i + 1) != Some(&b':') {
                            break;
                        }
                        writer.after_key = true;
                        i += 2;
                        self.state = State::Gap(Gap::Value);
                        continue;
                    }
                    i += 1;
                    self.value_done();
                    if usize::from(self.depth) == end_depth {
                        v.ended = true;
                        break;
                    }
                    if string_only {
                        break;
                    }
                    continue;
                }
                // The writer wrote the `:` with the key: read it without output.
                State::Gap(Gap::Colon)
                    if !string_only && i == 0 && input.first() == Some(&b':') =>
                {
                    i = 1;
                    v.start = 1;
                    self.state = State::Gap(Gap::Value);
                    continue;
                }
                State::Gap(g) if !string_only => g,
                _ => break,
            };
            let Some(&first) = input.get(i) else {
                break;
            };
            // A token, with the `,` before it after a value.
            let (g, j, comma) = match (g, first) {
                (Gap::After, b',') => (
                    if obj {
                        Gap::KeyOrClose
                    } else {
                        Gap::ValueOrClose
                    },
                    i + 1,
                    true,
                ),
                (Gap::After, _) | (Gap::KeyOrClose | Gap::ValueOrClose | Gap::Value, _) => {
                    (g, i, false)
                }
                (Gap::Colon, _) => break,
            };
            let Some(&b) = input.get(j) else {
                break;
            };
            match b {
                b'"' if g == Gap::KeyOrClose => {
                    if !writer.verbatim_key(comma) {
                        break;
                    }
                    self.is_key = true;
                    self.quote = b'"';
                    self.state = State::Str;
                    i = j + 1;
                }
                b'"' if g != Gap::After => {
                    if !writer.verbatim_value(comma) {
                        break;
                    }
                    self.is_key = false;
                    self.quote = b'"';
                    self.state = State::Str;
                    i = j + 1;
                }
                b'}' | b']'
                    if !comma
                        && self.depth > 0
                        && obj == (b == b'}')
                        && matches!(
                            (g, b),
                            (Gap::After, _) | (Gap::KeyOrClose, b'}') | (Gap::ValueOrClose, b']')
                        ) =>
                {
                    writer.empty = false;
                    writer.after_key = false;
                    self.depth -= 1;
                    obj = self.top_is_object();
                    i = j + 1;
                    if self.word_done(end_depth, &mut v) {
                        break;
                    }
                }
                _ if g == Gap::After || g == Gap::KeyOrClose => break,
                b'{' | b'[' => {
                    if usize::from(self.depth) >= MAX_DEPTH || !writer.verbatim_value(comma) {
                        break;
                    }
                    writer.empty = true;
                    obj = b == b'{';
                    self.push(obj);
                    i = j + 1;
                }
                b'-' | b'0'..=b'9' => {
                    let rest = input.get(j..).unwrap_or(&[]);
                    let Some(len) = number_len(rest) else {
                        break;
                    };
                    // `NumberStart` renders the `,`, the pieces the bytes, `NumberEnd` nothing.
                    if !closes_word(rest.get(len)) || !writer.verbatim_value(comma) {
                        break;
                    }
                    i = j + len;
                    if self.word_done(end_depth, &mut v) {
                        break;
                    }
                }
                b't' | b'f' | b'n' => {
                    let word: &[u8] = match b {
                        b't' => b"true",
                        b'f' => b"false",
                        _ => b"null",
                    };
                    let rest = input.get(j..).unwrap_or(&[]);
                    if !rest.starts_with(word)
                        || !closes_word(rest.get(word.len()))
                        || !writer.verbatim_value(comma)
                    {
                        break;
                    }
                    i = j + word.len();
                    if self.word_done(end_depth, &mut v) {
                        break;
                    }
                }
                _ => break,
            }
        }
        if i == v.start {
            // Only a `:`: left for `next` (a run reads some output).
            if i == 1 {
                self.state = State::Gap(Gap::Colon);
            }
            return Verbatim::default();
        }
        self.offset += i as u64;
        v.len = i;
        v
    }

    /// A value ended (a number, a literal, a container): the gap after it; whether it
    /// brought the lexer back to `end_depth`.
    #[inline(always)]
    fn word_done(&mut self, end_depth: usize, v: &mut Verbatim) -> bool {
        self.value_done();
        v.ended = usize::from(self.depth) == end_depth;
        v.ended
    }
}

#[cfg(test)]
mod tests {
    use super::{number_len, short_control, special, string_run};

    #[test]
    fn special_finds_the_first_byte_to_look_at() {
        assert_eq!(special(b"abcdefghijkl"), 12);
        assert_eq!(special(b"abcdefgh\"ijkl"), 8);
        assert_eq!(special(b"ab\\"), 2);
        assert_eq!(special(b"abcdefghij\x1f"), 10);
        assert_eq!(special("abcdefghé".as_bytes()), 8);
        assert_eq!(special(b"\x7f\x20~"), 3);
    }

    #[test]
    fn string_runs_stop_where_the_writer_spells_otherwise() {
        assert_eq!(string_run(br#"ab\n\"c"x"#), (7, true));
        assert_eq!(string_run(br#"ab\/"#), (2, false));
        assert_eq!(string_run(br#"\u001f\u0000""#), (12, true));
        assert_eq!(string_run(br#"\u000a"#), (0, false));
        assert_eq!(string_run(br#"\u001F"#), (0, false));
        assert_eq!(string_run(br#"\u00"#), (0, false));
        assert_eq!(string_run("é\"".as_bytes()), (2, true));
        assert_eq!(string_run(b"a\xc3"), (1, false));
        assert_eq!(string_run(b"a\xff\""), (1, false));
        assert_eq!(string_run(b"a\tb"), (1, false));
        assert!(short_control(Some(b"001b")));
        assert!(!short_control(Some(b"0020")));
    }

    #[test]
    fn numbers_as_rfc_8259() {
        for (s, n) in [
            (&b"0,"[..], Some(1)),
            (b"-12.5e+3]", Some(8)),
            (b"01", Some(1)),
            (b"1.", None),
            (b"-", None),
            (b"1e", None),
            (b"1E5", Some(3)),
        ] {
            assert_eq!(number_len(s), n, "{s:?}");
        }
    }
}
