//! Reading a call's arguments: JSON text checked by the strict validator, read into a small
//! tree that keeps numbers exactly as written.

use super::*;

// --- a JSON tree that keeps numbers as written ---------------------------------------------

#[derive(Clone, Debug)]
pub(in crate::format) enum J<'a> {
    Null,
    Bool(bool),
    Num(&'a str),
    Str(String),
    Arr(Vec<J<'a>>),
    Obj(Vec<(String, J<'a>)>),
}

/// Reads JSON text already checked by [`strict::validate`].
pub(in crate::format) struct Reader<'a> {
    s: &'a str,
    i: usize,
}

impl<'a> Reader<'a> {
    /// A reader of `s`, which [`strict::validate`] accepted.
    pub(in crate::format) fn new(s: &'a str) -> Reader<'a> {
        Reader { s, i: 0 }
    }

    /// The next value and its text as written (without the whitespace around it).
    fn value_with_text(&mut self) -> (J<'a>, &'a str) {
        self.ws();
        let start = self.i;
        let v = self.value();
        (v, &self.s[start..self.i])
    }

    /// The items of the array `s` (checked by [`strict::validate`]), each as its text;
    /// empty when `s` is not an array.
    pub(in crate::format) fn items(s: &'a str) -> Vec<&'a str> {
        let mut r = Reader::new(s);
        let b = s.as_bytes();
        let mut out = Vec::new();
        r.ws();
        if b.get(r.i) != Some(&b'[') {
            return out;
        }
        r.i += 1;
        r.ws();
        if b.get(r.i) == Some(&b']') {
            return out;
        }
        loop {
            out.push(r.value_with_text().1);
            r.ws();
            r.i += 1;
            if b.get(r.i - 1) != Some(&b',') {
                return out;
            }
        }
    }

    /// The members of the object `s` (checked by [`strict::validate`]): each key, value and
    /// the value's text; empty when `s` is not an object.
    pub(in crate::format) fn members(s: &'a str) -> Vec<(String, J<'a>, &'a str)> {
        let mut r = Reader::new(s);
        let b = s.as_bytes();
        let mut out = Vec::new();
        r.ws();
        if b.get(r.i) != Some(&b'{') {
            return out;
        }
        r.i += 1;
        r.ws();
        if b.get(r.i) == Some(&b'}') {
            return out;
        }
        loop {
            r.ws();
            let k = r.string();
            r.ws();
            r.i += 1; // ':'
            let (v, text) = r.value_with_text();
            out.push((k, v, text));
            r.ws();
            r.i += 1;
            if b.get(r.i - 1) != Some(&b',') {
                return out;
            }
        }
    }

    fn ws(&mut self) {
        let b = self.s.as_bytes();
        while self.i < b.len() && matches!(b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn value(&mut self) -> J<'a> {
        self.ws();
        let b = self.s.as_bytes();
        match b[self.i] {
            b'n' => {
                self.i += 4;
                J::Null
            }
            b't' => {
                self.i += 4;
                J::Bool(true)
            }
            b'f' => {
                self.i += 5;
                J::Bool(false)
            }
            b'"' => J::Str(self.string()),
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if b[self.i] == b']' {
                    self.i += 1;
                    return J::Arr(items);
                }
                loop {
                    items.push(self.value());
                    self.ws();
                    self.i += 1;
                    if b[self.i - 1] == b']' {
                        return J::Arr(items);
                    }
                }
            }
            b'{' => {
                self.i += 1;
                let mut members = Vec::new();
                self.ws();
                if b[self.i] == b'}' {
                    self.i += 1;
                    return J::Obj(members);
                }
                loop {
                    self.ws();
                    let k = self.string();
                    self.ws();
                    self.i += 1; // ':'
                    let v = self.value();
                    members.push((k, v));
                    self.ws();
                    self.i += 1;
                    if b[self.i - 1] == b'}' {
                        return J::Obj(members);
                    }
                }
            }
            _ => {
                let start = self.i;
                while self.i < b.len()
                    && matches!(b[self.i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    self.i += 1;
                }
                J::Num(&self.s[start..self.i])
            }
        }
    }

    fn hex4(&mut self) -> u32 {
        let v = u32::from_str_radix(&self.s[self.i..self.i + 4], 16).unwrap_or(0xFFFD);
        self.i += 4;
        v
    }

    fn string(&mut self) -> String {
        let b = self.s.as_bytes();
        self.i += 1;
        let mut out = String::new();
        loop {
            let start = self.i;
            while b[self.i] != b'"' && b[self.i] != b'\\' {
                self.i += 1;
            }
            out.push_str(&self.s[start..self.i]);
            if b[self.i] == b'"' {
                self.i += 1;
                return out;
            }
            self.i += 2;
            match b[self.i - 1] {
                b'n' => out.push('\n'),
                b't' => out.push('\t'),
                b'r' => out.push('\r'),
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'u' => {
                    let mut c = self.hex4();
                    if (0xD800..0xDC00).contains(&c) {
                        self.i += 2; // `\u`
                        let lo = self.hex4();
                        c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
                    }
                    out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                }
                other => out.push(other as char),
            }
        }
    }
}

pub(super) fn read_arguments(call: usize, args: &str) -> Result<Vec<(String, J<'_>)>, FormatError> {
    match strict::validate(args.as_bytes()) {
        Ok(Kind::Object) => {}
        Ok(_) => {
            return Err(FormatError {
                call,
                kind: FormatErrorKind::NotAnObject,
            });
        }
        Err(e) => {
            return Err(FormatError {
                call,
                kind: FormatErrorKind::InvalidJson {
                    offset: e.offset,
                    reason: e.reason,
                },
            });
        }
    }
    match (Reader { s: args, i: 0 }).value() {
        J::Obj(m) => Ok(m),
        _ => Err(FormatError {
            call,
            kind: FormatErrorKind::NotAnObject,
        }),
    }
}

/// Reads JSON text already checked by [`strict::validate`] into the tree (numbers as written,
/// members in order).
pub(in crate::format) fn read_value(text: &str) -> J<'_> {
    (Reader { s: text, i: 0 }).value()
}

/// Writes `v` with `", "` between items and `": "` after keys (Python's `json.dumps` and
/// `repr` layout), `lits` spelling null, true and false, `string` writing strings and keys
/// (with `markers`, as the caller's string writer takes them); numbers as written.
pub(in crate::format) fn write_spaced(
    out: &mut String,
    v: &J<'_>,
    lits: [&str; 3],
    string: fn(&mut String, &str, &[&str]),
    markers: &[&str],
) {
    match v {
        J::Null => out.push_str(lits[0]),
        J::Bool(b) => out.push_str(if *b { lits[1] } else { lits[2] }),
        J::Num(n) => out.push_str(n),
        J::Str(s) => string(out, s, markers),
        J::Arr(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_spaced(out, x, lits, string, markers);
            }
            out.push(']');
        }
        J::Obj(members) => {
            out.push('{');
            for (i, (k, x)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                string(out, k, markers);
                out.push_str(": ");
                write_spaced(out, x, lits, string, markers);
            }
            out.push('}');
        }
    }
}
