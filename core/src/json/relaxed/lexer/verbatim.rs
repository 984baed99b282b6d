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

/// Whether string contents cannot copy byte `b` as is: `"`, `\`, a control byte or a
/// non-ASCII byte (checked as UTF-8 by the caller).
const fn is_special(b: u8) -> bool {
    matches!(b, b'"' | b'\\' | 0..0x20 | 0x80..)
}

/// The first special byte of `s` from `i` on ([`is_special`]); `s.len()` if none. Eight
/// bytes at a time, in safe code: the lowest flagged byte of a word is exact (false flags
/// only come above a true one).
#[inline(always)]
pub(super) fn special(s: &[u8], mut i: usize) -> usize {
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    while let Some(w) = s.get(i..i + 8) {
        // (Never the fallback: `w` has eight bytes; zeros would stop here anyway.)
        let v = u64::from_le_bytes(w.try_into().unwrap_or([0; 8]));
        // Bytes below 0x20 and from 0x80 up are flagged by `v - 0x20…` and `v` itself (`| v`
        // covers both: a byte ≥ 0x80 sets its high bit either way).
        let flags = zero(v ^ (ONES * u64::from(b'"')))
            | zero(v ^ (ONES * u64::from(b'\\')))
            | ((v.wrapping_sub(ONES * 0x20) | v) & HIGH);
        if flags != 0 {
            return i + (flags.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&b) = s.get(i) {
        if is_special(b) {
            break;
        }
        i += 1;
    }
    i
}

/// From `i`, inside a `"` string of `s`: the end of the contents whose strict form is
/// themselves — valid UTF-8 without control bytes, escapes only as `serde_json` writes them
/// (`\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, `\u00XX` for the other control characters,
/// lowercase) — and whether the closing quote is there.
#[inline(always)]
fn string_run(s: &[u8], mut i: usize) -> (usize, bool) {
    loop {
        i = special(s, i);
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
            // Non-ASCII characters, while valid UTF-8 (else the lexer replaces or holds
            // those bytes).
            0x80.. => match utf8_len(s, i) {
                Some(n) => i += n,
                None => return (i, false),
            },
            _ => return (i, false),
        }
    }
}

/// The length of the valid UTF-8 character at `s[i]` (not ASCII), if it is whole there.
#[inline(always)]
fn utf8_len(s: &[u8], i: usize) -> Option<usize> {
    let cont = |k: usize| matches!(s.get(i + k), Some(0x80..=0xBF));
    // The second byte's range depends on the first (no overlong forms, no surrogates, at
    // most U+10FFFF), as in `core::str::from_utf8`.
    let (n, lo, hi) = match *s.get(i)? {
        0xC2..=0xDF => (2, 0x80, 0xBF),
        0xE0 => (3, 0xA0, 0xBF),
        0xE1..=0xEC | 0xEE..=0xEF => (3, 0x80, 0xBF),
        0xED => (3, 0x80, 0x9F),
        0xF0 => (4, 0x90, 0xBF),
        0xF1..=0xF3 => (4, 0x80, 0xBF),
        0xF4 => (4, 0x80, 0x8F),
        _ => return None,
    };
    let second = *s.get(i + 1)?;
    let ok = (lo..=hi).contains(&second) && (n < 3 || cont(2)) && (n < 4 || cont(3));
    ok.then_some(n)
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

/// The end of an RFC 8259 number at `s[i..]`, when a `,`, `}` or `]` follows it there.
#[inline(always)]
fn number_end(s: &[u8], mut i: usize) -> Option<usize> {
    if s.get(i) == Some(&b'-') {
        i += 1;
    }
    let int = i;
    while let Some(b'0'..=b'9') = s.get(i) {
        i += 1;
    }
    if i == int || (i > int + 1 && s.get(int) == Some(&b'0')) {
        return None;
    }
    if s.get(i) == Some(&b'.') {
        i += 1;
        let frac = i;
        while let Some(b'0'..=b'9') = s.get(i) {
            i += 1;
        }
        if i == frac {
            return None;
        }
    }
    if let Some(b'e' | b'E') = s.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = s.get(i) {
            i += 1;
        }
        let exp = i;
        while let Some(b'0'..=b'9') = s.get(i) {
            i += 1;
        }
        if i == exp {
            return None;
        }
    }
    closes_word(s.get(i)).then_some(i)
}

/// A byte that ends a number or literal at once and is read after it.
fn closes_word(b: Option<&u8>) -> bool {
    matches!(b, Some(b',' | b'}' | b']'))
}

/// Where [`Lexer::verbatim`] is, between its bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum At {
    /// A value (after a `:`).
    Value,
    /// A value or `]` (after `[`, or a value after `,` in an array).
    First,
    /// A key or `}` (after `{`, or a key after `,` in an object).
    Key,
    /// `,` or a closing bracket.
    After,
    /// Inside a string value.
    Str,
    /// Inside a key.
    KeyStr,
    /// The top-level value ended.
    Done,
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
        let mut at = match self.state {
            State::Str if self.quote == b'"' && self.is_key => At::KeyStr,
            State::Str if self.quote == b'"' => At::Str,
            _ if string_only => return v,
            State::Gap(Gap::Value) => At::Value,
            State::Gap(Gap::ValueOrClose) => At::First,
            State::Gap(Gap::KeyOrClose) => At::Key,
            State::Gap(Gap::After) => At::After,
            // The writer wrote the `:` with the key: it is read without output.
            State::Gap(Gap::Colon) if input.first() == Some(&b':') => {
                i = 1;
                v.start = 1;
                At::Value
            }
            _ => return v,
        };
        // The lexer's and the writer's state as locals, written back at the end.
        let mut depth = self.depth;
        let mut obj = self.top_is_object();
        let (mut empty, mut after_key) = (writer.empty, writer.after_key);
        // A `,` read before the token at `i` (given back if the token is not read).
        let mut comma = false;
        loop {
            // After a value: a `,` is read with the token after it (in this turn).
            if at == At::After {
                match input.get(i) {
                    Some(b',') => {
                        comma = true;
                        i += 1;
                        at = if obj { At::Key } else { At::First };
                    }
                    Some(&b @ (b'}' | b']')) if obj == (b == b'}') && depth > 0 => {
                        // `ObjectEnd` / `ArrayEnd`.
                        empty = false;
                        after_key = false;
                        depth -= 1;
                        obj = self.is_object_at(depth);
                        i += 1;
                        if usize::from(depth) == end_depth {
                            at = if depth == 0 { At::Done } else { At::After };
                            v.ended = true;
                            break;
                        }
                        if depth == 0 {
                            at = At::Done;
                            break;
                        }
                        continue;
                    }
                    _ => break,
                }
            }
            match at {
                At::Str | At::KeyStr => {
                    let (end, closed) = string_run(input, i);
                    i = end;
                    if !closed {
                        break;
                    }
                    if at == At::KeyStr {
                        // `KeyEnd` renders the `:` too.
                        if string_only || input.get(i + 1) != Some(&b':') {
                            break;
                        }
                        after_key = true;
                        i += 2;
                        at = At::Value;
                        continue;
                    }
                    i += 1;
                    at = if depth == 0 { At::Done } else { At::After };
                    if usize::from(depth) == end_depth {
                        v.ended = true;
                        break;
                    }
                    if string_only || depth == 0 {
                        break;
                    }
                }
                // Read above.
                At::After => break,
                At::Key => match input.get(i) {
                    Some(b'"') if comma != empty => {
                        // `KeyStart`: `"`, or `,"` after a member.
                        empty = false;
                        comma = false;
                        i += 1;
                        at = At::KeyStr;
                    }
                    Some(b'}') if !comma => {
                        empty = false;
                        after_key = false;
                        depth -= 1;
                        obj = self.is_object_at(depth);
                        i += 1;
                        at = if depth == 0 { At::Done } else { At::After };
                        if usize::from(depth) == end_depth {
                            v.ended = true;
                            break;
                        }
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => break,
                },
                At::Value | At::First => {
                    let Some(&b) = input.get(i) else {
                        break;
                    };
                    if b == b']' && at == At::First && !comma {
                        empty = false;
                        after_key = false;
                        depth -= 1;
                        obj = self.is_object_at(depth);
                        i += 1;
                        at = if depth == 0 { At::Done } else { At::After };
                        if usize::from(depth) == end_depth {
                            v.ended = true;
                            break;
                        }
                        if depth == 0 {
                            break;
                        }
                        continue;
                    }
                    // The writer's separator before a value: none after a key, else `,`
                    // unless the container is empty. It must be the input's.
                    if comma != (!after_key && !empty) {
                        break;
                    }
                    let len = match b {
                        b'"' => 1,
                        b'{' | b'[' if usize::from(depth) < MAX_DEPTH => 1,
                        b'-' | b'0'..=b'9' => match number_end(input, i) {
                            Some(end) => end - i,
                            None => break,
                        },
                        b't' | b'f' | b'n' => {
                            let word: &[u8] = match b {
                                b't' => b"true",
                                b'f' => b"false",
                                _ => b"null",
                            };
                            let rest = input.get(i..).unwrap_or(&[]);
                            if !rest.starts_with(word) || !closes_word(rest.get(word.len())) {
                                break;
                            }
                            word.len()
                        }
                        _ => break,
                    };
                    // The writer's `value_sep`.
                    if after_key {
                        after_key = false;
                    } else {
                        empty = false;
                    }
                    comma = false;
                    i += len;
                    match b {
                        b'"' => at = At::Str,
                        b'{' | b'[' => {
                            obj = b == b'{';
                            self.set_object_at(depth, obj);
                            depth += 1;
                            empty = true;
                            at = if obj { At::Key } else { At::First };
                        }
                        _ => {
                            // A number or literal (`NumberStart` renders the `,`, the
                            // pieces the bytes, `NumberEnd` nothing).
                            at = if depth == 0 { At::Done } else { At::After };
                            if usize::from(depth) == end_depth {
                                v.ended = true;
                                break;
                            }
                            if depth == 0 {
                                break;
                            }
                        }
                    }
                }
                At::Done => break,
            }
        }
        if comma {
            // The token after it was not read: the `,` is read with it, later.
            i -= 1;
            at = At::After;
        }
        if i == v.start {
            // Nothing, or only a `:`: left for `next` (a run has some output).
            return Verbatim::default();
        }
        self.depth = depth;
        writer.empty = empty;
        writer.after_key = after_key;
        self.state = match at {
            At::Value => State::Gap(Gap::Value),
            At::First => State::Gap(Gap::ValueOrClose),
            At::Key => State::Gap(Gap::KeyOrClose),
            At::After => State::Gap(Gap::After),
            At::Str | At::KeyStr => {
                self.quote = b'"';
                self.is_key = at == At::KeyStr;
                State::Str
            }
            At::Done => State::Done,
        };
        self.offset += i as u64;
        v.len = i;
        v
    }
}

#[cfg(test)]
mod tests {
    use super::{number_end, short_control, special, string_run, utf8_len};

    #[test]
    fn special_finds_the_first_byte_to_look_at() {
        assert_eq!(special(b"abcdefghijkl", 0), 12);
        assert_eq!(special(b"abcdefgh\"ijkl", 0), 8);
        assert_eq!(special(b"abcdefgh\"ijkl", 9), 13);
        assert_eq!(special(b"ab\\", 0), 2);
        assert_eq!(special(b"abcdefghij\x1f", 0), 10);
        assert_eq!(special("abcdefghé".as_bytes(), 0), 8);
        assert_eq!(special(b"\x7f\x20~", 0), 3);
    }

    #[test]
    fn string_runs_stop_where_the_writer_spells_otherwise() {
        let run = |s: &[u8]| string_run(s, 0);
        assert_eq!(run(br#"ab\n\"c"x"#), (7, true));
        assert_eq!(run(br#"ab\/"#), (2, false));
        assert_eq!(run(br#"\u001f\u0000""#), (12, true));
        assert_eq!(run(br#"\u000a"#), (0, false));
        assert_eq!(run(br#"\u001F"#), (0, false));
        assert_eq!(run(br#"\u00"#), (0, false));
        assert_eq!(run("é\"".as_bytes()), (2, true));
        assert_eq!(run(b"a\xc3"), (1, false));
        assert_eq!(run(b"a\xff\""), (1, false));
        assert_eq!(run("é東😀\"".as_bytes()), (9, true));
        assert_eq!(run(b"\xed\xa0\x80\""), (0, false));
        assert_eq!(run(b"\xe0\x80\x80\""), (0, false));
        assert_eq!(run(b"\xf4\x90\x80\x80\""), (0, false));
        assert_eq!(run(b"\xf0\x9f\x98"), (0, false));
        assert_eq!(run(b"a\tb"), (1, false));
        assert!(short_control(Some(b"001b")));
        assert!(!short_control(Some(b"0020")));
    }

    #[test]
    fn utf8_as_core_str() {
        // Every one- to four-byte sequence from a lead byte: as `from_utf8` judges it.
        for b0 in 0x80..=0xFFu8 {
            for b1 in [0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0] {
                for b2 in [0x80, 0xBF, 0x41] {
                    let s = [b0, b1, b2, 0x80];
                    for len in 1..=4 {
                        let s = &s[..len];
                        let valid = match core::str::from_utf8(s) {
                            Ok(t) => t,
                            Err(e) => core::str::from_utf8(&s[..e.valid_up_to()]).unwrap(),
                        };
                        let want = valid.chars().next().map(char::len_utf8);
                        assert_eq!(utf8_len(s, 0), want, "{s:x?}");
                    }
                }
            }
        }
    }

    #[test]
    fn numbers_as_rfc_8259_before_a_delimiter() {
        for (s, n) in [
            (&b"0,"[..], Some(1)),
            (b"-12.5e+3]", Some(8)),
            (b"01,", None),
            (b"1.,", None),
            (b"-,", None),
            (b"1e}", None),
            (b"1E5}", Some(3)),
            (b"12", None),
            (b"12 ,", None),
        ] {
            assert_eq!(number_end(s, 0), n, "{s:?}");
        }
    }
}
