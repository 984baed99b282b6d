//! A fast path for the strict JSON a provider writes: whole quoted keys and strings without
//! escapes, plain integers and literals, read in one call instead of a token at a time. Each
//! leaves the lexer exactly where `next` would after the same tokens, so a caller can mix
//! both freely (the provider decoder uses it; the dialects do not).

use super::{Gap, Lex, Lexer, State, Word, is_ws};
use crate::json::relaxed::token::{Literal, Token};
use crate::json::relaxed::{HOLD, MAX_DEPTH};

/// What [`Lexer::quick`] found at the front of the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Quick<'a> {
    /// Nothing it reads: go on with `next` (whitespace, a `,` or a `:` between tokens may
    /// have been consumed, as `next` does without a token).
    No,
    /// A whole quoted key, consumed: what `next` gives as `KeyStart`, `Text` (its content,
    /// when not empty) and `KeyEnd`.
    Key(&'a [u8]),
    /// A string value's opening quote, consumed (`StringStart`); the content and the closing
    /// quote follow in the input ([`Lexer::quick_string_end`] takes them).
    Str(&'a [u8]),
    /// An integer's digits, consumed: `NumberStart` (the lexer is where `next` is after it;
    /// [`Lexer::quick_word_end`] skips its `Number` pieces and `NumberEnd`).
    Int(&'a [u8]),
    /// A literal, consumed: `Literal`.
    Literal(Literal),
    /// One token, as `next` gives it: a container's start or end, a string's end.
    Token(Token<'a>),
}

/// The length of a quoted string's content when it is plain (no escape, no control
/// character, valid UTF-8) and its closing `"` is in `rest`.
fn plain_len(rest: &[u8]) -> Option<usize> {
    // The first `"`, `\\`, control or non-ASCII byte, eight bytes at a time (the run scanner
    // `Lexer::verbatim` uses; past the end: no closing quote here, `None` below).
    let stop = super::verbatim::special(rest, 0);
    match rest.get(stop) {
        Some(b'"') => Some(stop),
        Some(&b) if b >= 0x80 => {
            // Non-ASCII text: its end, then the checks `next` makes.
            let end = stop + memchr::memchr2(b'"', b'\\', rest.get(stop..)?)?;
            if rest.get(end) != Some(&b'"') {
                return None;
            }
            let content = rest.get(..end)?;
            if content.iter().any(|&b| b < 0x20) || core::str::from_utf8(content).is_err() {
                return None;
            }
            Some(end)
        }
        _ => None,
    }
}

/// A byte that ends a bare word at once.
fn ends_word(b: Option<&u8>) -> bool {
    matches!(b, Some(b',' | b'}' | b']'))
}

impl Lexer {
    /// Reads what it can of the front of `input` in one go (see [`Quick`]).
    #[inline(always)]
    pub(crate) fn quick<'a>(&mut self, input: &mut &'a [u8]) -> Quick<'a> {
        loop {
            let g = match self.state {
                State::Gap(g) => g,
                // A string's closing quote (what `string` does first).
                State::Str
                    if self.utf8_len == 0 && self.hi == 0 && input.first() == Some(&self.quote) =>
                {
                    self.bump(input, 1);
                    if self.is_key {
                        self.state = State::Gap(Gap::Colon);
                        return Quick::Token(Token::KeyEnd);
                    }
                    self.value_done();
                    return Quick::Token(Token::StringEnd);
                }
                _ => return Quick::No,
            };
            let skip = input.iter().position(|&b| !is_ws(b)).unwrap_or(input.len());
            self.bump(input, skip);
            let Some(&b) = input.first() else {
                return Quick::No;
            };
            if self.separator(input, g, b) {
                continue;
            }
            match (g, b) {
                (Gap::KeyOrClose, b'"') => {
                    let all: &'a [u8] = input;
                    let Some(len) = plain_len(all.get(1..).unwrap_or(&[])) else {
                        return Quick::No;
                    };
                    self.bump(input, len + 2);
                    self.quote = b'"';
                    self.is_key = true;
                    self.state = State::Gap(Gap::Colon);
                    return Quick::Key(all.get(1..1 + len).unwrap_or(&[]));
                }
                (Gap::Value | Gap::ValueOrClose, b'"') => {
                    let all: &'a [u8] = input;
                    let Some(len) = plain_len(all.get(1..).unwrap_or(&[])) else {
                        return Quick::No;
                    };
                    self.bump(input, 1);
                    self.quote = b'"';
                    self.is_key = false;
                    self.state = State::Str;
                    return Quick::Str(all.get(1..1 + len).unwrap_or(&[]));
                }
                (Gap::Value | Gap::ValueOrClose, b'0'..=b'9') if self.depth > 0 => {
                    return self.quick_int(input);
                }
                (Gap::Value | Gap::ValueOrClose, b't' | b'f' | b'n') if self.depth > 0 => {
                    let (lit, word): (Literal, &[u8]) = match b {
                        b't' => (Literal::True, b"true"),
                        b'f' => (Literal::False, b"false"),
                        _ => (Literal::Null, b"null"),
                    };
                    if !input.starts_with(word) || !ends_word(input.get(word.len())) {
                        return Quick::No;
                    }
                    self.bump(input, word.len());
                    self.value_done();
                    return Quick::Literal(lit);
                }
                (Gap::Value | Gap::ValueOrClose, b'{' | b'[')
                    if usize::from(self.depth) < MAX_DEPTH =>
                {
                    return match self.open(input, b == b'{') {
                        Some(Lex::Token(t)) => Quick::Token(t),
                        // Too deep: `next` reports it.
                        _ => Quick::No,
                    };
                }
                (Gap::KeyOrClose | Gap::After, b'}') | (Gap::ValueOrClose | Gap::After, b']')
                    if self.depth > 0 && self.top_is_object() == (b == b'}') =>
                {
                    return match self.close(input, b) {
                        Some(Lex::Token(t)) => Quick::Token(t),
                        _ => Quick::No,
                    };
                }
                _ => return Quick::No,
            }
        }
    }

    /// A `:` after a key or a `,` after a value (`b`, the first byte of `input`, in gap `g`):
    /// consumed and the gap moved on, as `next` does without a token (`quick` and `skip`).
    #[inline(always)]
    fn separator(&mut self, input: &mut &[u8], g: Gap, b: u8) -> bool {
        match (g, b) {
            (Gap::Colon, b':') => {
                self.bump(input, 1);
                self.state = State::Gap(Gap::Value);
                true
            }
            (Gap::After, b',') => {
                self.bump(input, 1);
                self.state = State::Gap(if self.top_is_object() {
                    Gap::KeyOrClose
                } else {
                    Gap::ValueOrClose
                });
                true
            }
            _ => false,
        }
    }

    /// `0` or digits without a leading zero, ended at once by `,`, `}` or `]`, at most
    /// `HOLD` long: held as `next` holds them, up to its `NumberStart`.
    fn quick_int<'a>(&mut self, input: &mut &'a [u8]) -> Quick<'a> {
        let all: &'a [u8] = input;
        let len = all
            .iter()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(all.len());
        if len > HOLD || (len > 1 && all.first() == Some(&b'0')) || !ends_word(all.get(len)) {
            return Quick::No;
        }
        let digits = all.get(..len).unwrap_or(&[]);
        // The state `next` is in after `NumberStart` (`start_word`, `word_hold`, `end_word`);
        // `num` and `lit` are not read again for this word.
        self.is_key = false;
        self.quote = 0;
        if let Some(h) = self.hold.get_mut(..len) {
            h.copy_from_slice(digits);
        }
        self.hold_len = len as u8;
        self.hold_pos = 0;
        self.ws_len = 0;
        self.ws_bits = 0;
        self.slash_pending = false;
        self.comment_after = false;
        self.block_after = false;
        self.word_end = true;
        self.word_num = true;
        self.lit = 0;
        self.state = State::Word(Word::EmitHold);
        self.bump(input, len);
        Quick::Int(digits)
    }

    /// After [`Quick::Str`]: consumes the `len` content bytes and the closing quote (the
    /// `Text` and `StringEnd` tokens).
    pub(crate) fn quick_string_end(&mut self, input: &mut &[u8], len: usize) {
        self.bump(input, len + 1);
        self.value_done();
    }

    /// After [`Quick::Str`]: consumes the `len` content bytes as one `Text` token (the
    /// closing quote is next).
    pub(crate) fn quick_text(&mut self, input: &mut &[u8], len: usize) {
        self.bump(input, len);
    }

    /// After [`Quick::Int`]: its `Number` pieces and `NumberEnd` (nothing left to consume).
    pub(crate) fn quick_word_end(&mut self) {
        self.hold_pos = self.hold_len;
        self.value_done();
    }
}

/// The length of a quoted string's content (up to its closing `q`, which is in `rest`) when
/// `next` reads it without an error: every escape whole, a `\u` with four hex digits (the
/// only escape `next` can fail on). Control bytes, invalid UTF-8 and unknown escapes are
/// content to `next` (it rewrites them), so they are to this scan.
fn skip_string_len(rest: &[u8], q: u8) -> Option<usize> {
    let mut i = 0;
    loop {
        i += memchr::memchr2(q, b'\\', rest.get(i..)?)?;
        if rest.get(i) == Some(&q) {
            return Some(i);
        }
        // A backslash: the escape's byte, and for `\u` four hex digits.
        match rest.get(i + 1)? {
            b'u' => {
                let hex = rest.get(i + 2..i + 6)?;
                if !hex.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
                i += 6;
            }
            _ => i += 2,
        }
    }
}

/// The length of an RFC 8259 number at the front of `s` (`-`, integer part without a
/// leading zero, fraction, exponent), or `None`.
fn number_len(s: &[u8]) -> Option<usize> {
    let digits = |from: usize| {
        s.get(from..).map_or(0, |r| {
            r.iter()
                .position(|b| !b.is_ascii_digit())
                .unwrap_or(r.len())
        })
    };
    let mut i = usize::from(s.first() == Some(&b'-'));
    let int = digits(i);
    if int == 0 || (int > 1 && s.get(i) == Some(&b'0')) {
        return None;
    }
    i += int;
    if s.get(i) == Some(&b'.') {
        let frac = digits(i + 1);
        if frac == 0 {
            return None;
        }
        i += 1 + frac;
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(s.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp = digits(i);
        if exp == 0 {
            return None;
        }
        i += exp;
    }
    Some(i)
}

impl Lexer {
    /// Skips a value no one reads: consumes whole tokens of strict JSON from the front of
    /// `input` — containers, `,` and `:`, quoted keys and strings (escapes included),
    /// numbers, literals — without giving them, until the value that is open at `base`
    /// containers has ended (`true`), or up to the first token it does not read whole in
    /// `input` (`false`: `next` goes on from there, and reports what is wrong, so an error
    /// inside a skipped value is found at the same byte as without the skip). The lexer's
    /// state after it is the state `next` leaves after the same tokens, so both mix freely
    /// and a read may end anywhere.
    pub(crate) fn skip(&mut self, input: &mut &[u8], base: usize) -> bool {
        if self.py {
            return false;
        }
        loop {
            let g = match self.state {
                State::Gap(Gap::After) if usize::from(self.depth) <= base => return true,
                State::Done => return true,
                State::Gap(g) => g,
                // The rest of a quoted key or string whose opening quote `next` read.
                State::Str if self.utf8_len == 0 && self.hi == 0 => {
                    let Some(len) = skip_string_len(input, self.quote) else {
                        return false;
                    };
                    self.bump(input, len + 1);
                    if self.is_key {
                        self.state = State::Gap(Gap::Colon);
                    } else {
                        self.value_done();
                    }
                    continue;
                }
                _ => return false,
            };
            let ws = input.iter().position(|&b| !is_ws(b)).unwrap_or(input.len());
            self.bump(input, ws);
            let Some(&b) = input.first() else {
                return false;
            };
            if self.separator(input, g, b) {
                continue;
            }
            match (g, b) {
                (Gap::KeyOrClose | Gap::Value | Gap::ValueOrClose, b'"') => {
                    // What `open_quoted` does; the content is read above.
                    self.bump(input, 1);
                    self.quote = b'"';
                    self.is_key = g == Gap::KeyOrClose;
                    self.state = State::Str;
                }
                (Gap::Value | Gap::ValueOrClose, b'-' | b'0'..=b'9') if self.depth > 0 => {
                    match number_len(input) {
                        Some(len) if ends_word(input.get(len)) => {
                            self.bump(input, len);
                            self.value_done();
                        }
                        _ => return false,
                    }
                }
                (Gap::Value | Gap::ValueOrClose, b't' | b'f' | b'n') if self.depth > 0 => {
                    let word: &[u8] = match b {
                        b't' => b"true",
                        b'f' => b"false",
                        _ => b"null",
                    };
                    if !input.starts_with(word) || !ends_word(input.get(word.len())) {
                        return false;
                    }
                    self.bump(input, word.len());
                    self.value_done();
                }
                (Gap::Value | Gap::ValueOrClose, b'{' | b'[')
                    if usize::from(self.depth) < MAX_DEPTH =>
                {
                    self.push(b == b'{');
                    self.bump(input, 1);
                }
                (Gap::KeyOrClose | Gap::After, b'}') | (Gap::ValueOrClose | Gap::After, b']')
                    if self.depth > 0 && self.top_is_object() == (b == b'}') =>
                {
                    self.depth -= 1;
                    self.bump(input, 1);
                    self.value_done();
                }
                _ => return false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::String;
    use std::vec::Vec;

    use super::Quick;
    use crate::json::relaxed::lexer::{Lex, Lexer};
    use crate::json::relaxed::token::Token;

    /// Tokens as text, adjacent text and number pieces joined (reads cut them anywhere).
    #[derive(Default)]
    struct Seen(Vec<String>);

    impl Seen {
        fn piece(&mut self, tag: &str, bytes: &[u8]) {
            let s = String::from_utf8_lossy(bytes);
            match self.0.last_mut() {
                Some(last) if last.starts_with(tag) => last.push_str(&s),
                _ => self.0.push(std::format!("{tag}{s}")),
            }
        }

        fn token(&mut self, t: Token<'_>) {
            let mut scratch = [0u8; 4];
            match t {
                Token::Text(x) => self.piece("T:", x.decoded(&mut scratch)),
                Token::Number(p) => self.piece("N:", p.as_bytes()),
                other => self.0.push(std::format!("{other:?}")),
            }
        }

        /// `Lex` other than a token: its kind (`Done`, `Error`; `NeedMore` is not kept).
        fn end(&mut self, lex: Lex<'_>) -> bool {
            match lex {
                Lex::Token(t) => {
                    self.token(t);
                    false
                }
                Lex::NeedMore => true,
                Lex::Done => {
                    self.0.push("done".into());
                    true
                }
                Lex::Error(e) => {
                    self.0
                        .push(std::format!("error {:?} at {}", e.kind, e.offset));
                    true
                }
            }
        }
    }

    fn with_next(doc: &[u8], read: usize) -> Vec<String> {
        let mut lexer = Lexer::new();
        let mut seen = Seen::default();
        'reads: for chunk in doc.chunks(read) {
            let mut input = chunk;
            loop {
                let lex = lexer.next(&mut input);
                let stop = matches!(lex, Lex::Done | Lex::Error(_));
                if seen.end(lex) {
                    if stop {
                        break 'reads;
                    }
                    break;
                }
            }
        }
        seen.0
    }

    /// `quick` first at every token, its strings and integers finished by the quick path
    /// (`finish`) or left to `next`.
    fn with_quick(doc: &[u8], read: usize, finish: bool) -> Vec<String> {
        let mut lexer = Lexer::new();
        let mut seen = Seen::default();
        'reads: for chunk in doc.chunks(read) {
            let mut input = chunk;
            loop {
                match lexer.quick(&mut input) {
                    Quick::No => {}
                    Quick::Key(k) => {
                        seen.token(Token::KeyStart);
                        if !k.is_empty() {
                            seen.piece("T:", k);
                        }
                        seen.token(Token::KeyEnd);
                        continue;
                    }
                    Quick::Str(c) => {
                        seen.token(Token::StringStart);
                        if finish {
                            lexer.quick_string_end(&mut input, c.len());
                            if !c.is_empty() {
                                seen.piece("T:", c);
                            }
                            seen.token(Token::StringEnd);
                        }
                        continue;
                    }
                    Quick::Int(d) => {
                        seen.token(Token::NumberStart);
                        if finish {
                            lexer.quick_word_end();
                            seen.piece("N:", d);
                            seen.token(Token::NumberEnd);
                        }
                        continue;
                    }
                    Quick::Literal(l) => {
                        seen.token(Token::Literal(l));
                        continue;
                    }
                    Quick::Token(t) => {
                        seen.token(t);
                        continue;
                    }
                }
                let lex = lexer.next(&mut input);
                let stop = matches!(lex, Lex::Done | Lex::Error(_));
                if seen.end(lex) {
                    if stop {
                        break 'reads;
                    }
                    break;
                }
            }
        }
        seen.0
    }

    #[test]
    fn quick_gives_what_next_gives_at_every_read_size() {
        let docs: [&[u8]; 14] = [
            br#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1741569952,"choices":[{"index":0,"delta":{"content":"hi \"there\""},"finish_reason":null}]}"#,
            r#"{ "a" : [ 1 , 0 , 10 , true , false , null , "" , {} , [] ] , "b" : "caf\u00e9 naïve 🌍" }"#
                .as_bytes(),
            br#"{"k":01,"l":-1,"m":1.5,"n":1e3,"o":123456789012345678901234567890}"#,
            br#"{"t":truex,"f":fals,"n":nul,"x":null}"#,
            br#"{"bare":word,'single':'q',unquoted:1}"#,
            br#"{"a":1 /* c */,"b":2 // line
            }"#,
            br#"{"a":[}"#,
            br#"{"a":1]"#,
            br#"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]"#,
            br#"{"ctl":"a	b","esc":"a\nb","":"","\"k\"":1}"#,
            b"{\"bad\":\"\xff\xfe\",\"cut\":\"\xe2\x82\"}",
            br#"{"a":12345678901234567890123,"b":999999999999999999999999,"c":0,"d":12345678901234567890123456}"#,
            br#"{"a":{"b":{"c":[1,2,{"d":"e"}]}},"z":[true]}"#,
            br#"  {"x" :"y"  ,  "z"	:	3	}  "#,
        ];
        for doc in docs {
            for read in 1..=doc.len() {
                let want = with_next(doc, read);
                for finish in [true, false] {
                    assert_eq!(
                        with_quick(doc, read, finish),
                        want,
                        "{} read {read} finish {finish}",
                        String::from_utf8_lossy(doc)
                    );
                }
            }
        }
    }

    /// The tokens outside the value of each depth-1 `skip` key, and how the document ends;
    /// `fast`: `Lexer::skip` reads what it can of that value (else `next` does, its tokens
    /// dropped).
    fn with_skip(doc: &[u8], read: usize, fast: bool) -> Vec<String> {
        let mut lexer = Lexer::new();
        let mut seen = Seen::default();
        let mut key: Vec<u8> = Vec::new();
        let (mut in_key, mut next_skips) = (false, false);
        let mut skipping: Option<usize> = None;
        'reads: for chunk in doc.chunks(read) {
            let mut input = chunk;
            loop {
                if let Some(base) = skipping {
                    if fast && lexer.skip(&mut input, base) {
                        skipping = None;
                        seen.0.push("skipped".into());
                        continue;
                    }
                }
                let lex = lexer.next(&mut input);
                if let (Some(base), Lex::Token(t)) = (skipping, lex) {
                    if t.ends_value() && lexer.depth() <= base {
                        skipping = None;
                        seen.0.push("skipped".into());
                    }
                    continue;
                }
                if let Lex::Token(t) = lex {
                    let mut scratch = [0u8; 4];
                    match t {
                        Token::KeyStart => {
                            key.clear();
                            in_key = true;
                        }
                        Token::KeyEnd => {
                            in_key = false;
                            next_skips = lexer.depth() == 1 && key == b"skip";
                        }
                        Token::Text(x) if in_key => key.extend_from_slice(x.decoded(&mut scratch)),
                        t if t.starts_value() && next_skips => {
                            next_skips = false;
                            if !t.ends_value() {
                                let open = matches!(t, Token::ObjectStart | Token::ArrayStart);
                                skipping = Some(lexer.depth() - usize::from(open));
                            }
                            seen.0.push("skip".into());
                            continue;
                        }
                        _ => {}
                    }
                }
                let stop = matches!(lex, Lex::Done | Lex::Error(_));
                if seen.end(lex) {
                    if stop {
                        break 'reads;
                    }
                    break;
                }
            }
        }
        if !matches!(seen.0.last().map(String::as_str), Some("done")) {
            loop {
                let lex = lexer.finish();
                if let (Some(_), Lex::Token(_)) = (skipping, lex) {
                    continue;
                }
                if seen.end(lex) {
                    break;
                }
            }
        }
        seen.0
    }

    /// `Lexer::skip` leaves the lexer where `next` would: the same tokens after the value,
    /// the same error at the same byte inside it, at every read size.
    #[test]
    fn skip_ends_where_next_ends_at_every_read_size() {
        let values: [&[u8]; 22] = [
            br#"{"content":[{"token":"\"}]","logprob":-0.0012,"bytes":[34,125,93],"top_logprobs":[{"token":"\\","logprob":-1.5e-3,"bytes":null},{"token":"\u00e9\ud83d\ude00","logprob":-20.25E+1,"bytes":[]}]}],"refusal":null}"#,
            br#""a \"quoted\" \\ } ] \u005c string""#,
            br#"-12.5e-3"#,
            br#"0"#,
            br#"true"#,
            br#"[[], {}, [{}], "x", 1, null, false]"#,
            br#"[1, 2, ]"#,
            br#"{"a": 1, }"#,
            br#"[1 /* ] */, 2 // }
            ]"#,
            br#"{'single': 'q"}', bare: word, "w": http://x}"#,
            br#""bad \uZZ escape""#,
            br#""lone \ud800 and \ud83d\n""#,
            br#"[1, 2}"#,
            br#"{"a" 1}"#,
            br#"[1 2]"#,
            br#"[01, 1., -, .5, 1e, 0x1]"#,
            br#"[tru, nul, falsey]"#,
            br#"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]"#,
            b"[\"ctl \x01\t\", \"\xff\xfe\", \"\xe2\x82\"]",
            br#"{"a":[1,{"b":"c"}"#,
            br#"{"a":"unterminated"#,
            br#"   [ "x" , { "y" : [ 1.0 ] } ]   "#,
        ];
        for value in values {
            let mut doc = Vec::new();
            doc.extend_from_slice(br#"{"a":1,"skip":"#);
            doc.extend_from_slice(value);
            doc.extend_from_slice(br#","b":{"skip":[2]},"c":"d"}"#);
            for read in 1..=doc.len() {
                assert_eq!(
                    with_skip(&doc, read, true),
                    with_skip(&doc, read, false),
                    "{} read {read}",
                    String::from_utf8_lossy(&doc)
                );
            }
        }
    }
}
