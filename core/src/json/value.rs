//! A small owned JSON tree for the config readers (`ConfigBuf::from_json`,
//! `DecoderConfigBuf::from_json`), so that the core needs no JSON library: the text is
//! checked by [`strict::validate`] (which says what is wrong and at which byte), then read
//! here into a [`Value`].
//!
//! It keeps what the readers rely on: numbers as written (`max_call_bytes` is read from its
//! digits, as `serde_json` with `arbitrary_precision` did), members in document order with a
//! repeated key's last value in the first one's place (as `serde_json` with `preserve_order`
//! did), and the text of every array and object (a tool's `schema` object goes to
//! [`schema::scan`](super::schema::scan) as written).

use alloc::string::String;
use alloc::vec::Vec;

use super::schema;
use super::strict;

/// A JSON value read by [`parse`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Value<'a> {
    Null,
    Bool(bool),
    /// A number, as written.
    Number(&'a str),
    /// A string, decoded.
    String(String),
    /// The items, and the array's text as written.
    Array(Vec<Value<'a>>, &'a str),
    Object(Object<'a>),
}

/// An object's members in document order (a repeated key once, with its last value) and its
/// text as written.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct Object<'a> {
    pub(crate) members: Vec<(String, Value<'a>)>,
    pub(crate) text: &'a str,
}

impl<'a> Object<'a> {
    /// The value of `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&Value<'a>> {
        self.members.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Whether `key` is a member.
    pub(crate) fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Takes `key` out, keeping the others' order.
    pub(crate) fn remove(&mut self, key: &str) -> Option<Value<'a>> {
        let i = self.members.iter().position(|(k, _)| k == key)?;
        Some(self.members.remove(i).1)
    }

    /// Sets `key` (in its place when present, else last), as a map's insert.
    pub(crate) fn insert(&mut self, key: &str, value: Value<'a>) {
        match self.members.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => *v = value,
            None => self.members.push((key.into(), value)),
        }
    }

    /// The keys in order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &String> {
        self.members.iter().map(|(k, _)| k)
    }
}

impl<'o, 'a> IntoIterator for &'o Object<'a> {
    type Item = (&'o String, &'o Value<'a>);
    type IntoIter = core::iter::Map<
        core::slice::Iter<'o, (String, Value<'a>)>,
        fn(&'o (String, Value<'a>)) -> (&'o String, &'o Value<'a>),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.members.iter().map(|(k, v)| (k, v))
    }
}

impl<'a> Value<'a> {
    pub(crate) fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    pub(crate) fn as_array(&self) -> Option<&[Value<'a>]> {
        match self {
            Value::Array(items, _) => Some(items),
            _ => None,
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// A number written as a non-negative integer that fits a `u64` (`1.0`, `1e3` and `-0`
    /// are not).
    pub(crate) fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Number(n) if n.bytes().all(|b| b.is_ascii_digit()) => n.parse().ok(),
            _ => None,
        }
    }

    pub(crate) fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub(crate) fn is_array(&self) -> bool {
        matches!(self, Value::Array(..))
    }

    /// The text as written; `None` for a string (only its decoded form is kept).
    pub(crate) fn text(&self) -> Option<&'a str> {
        match self {
            Value::Null => Some("null"),
            Value::Bool(true) => Some("true"),
            Value::Bool(false) => Some("false"),
            Value::Number(n) => Some(n),
            Value::String(_) => None,
            Value::Array(_, t) => Some(t),
            Value::Object(o) => Some(o.text),
        }
    }
}

/// Reads one JSON value (RFC 8259, at most [`strict::MAX_DEPTH`] deep); the error is
/// [`strict::validate`]'s: what is wrong and at which byte.
pub(crate) fn parse(text: &str) -> Result<Value<'_>, strict::Error> {
    strict::validate(text.as_bytes())?;
    let mut r = Reader { s: text, i: 0 };
    Ok(r.value())
}

/// Reads text [`strict::validate`] accepted. Should the two ever disagree, it reads on
/// without panicking (a missing byte reads as the end).
struct Reader<'a> {
    s: &'a str,
    i: usize,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> u8 {
        self.s.as_bytes().get(self.i).copied().unwrap_or(0)
    }

    /// Skips whitespace, then returns the next byte.
    fn next_token(&mut self) -> u8 {
        while matches!(self.peek(), b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
        self.peek()
    }

    /// The text from `start` to here.
    fn since(&self, start: usize) -> &'a str {
        self.s.get(start..self.i).unwrap_or_default()
    }

    fn value(&mut self) -> Value<'a> {
        match self.next_token() {
            b'n' => {
                self.i += 4;
                Value::Null
            }
            b't' => {
                self.i += 4;
                Value::Bool(true)
            }
            b'f' => {
                self.i += 5;
                Value::Bool(false)
            }
            b'"' => Value::String(self.string()),
            open @ (b'[' | b'{') => {
                let start = self.i;
                let close = if open == b'{' { b'}' } else { b']' };
                self.i += 1;
                let mut items = Vec::new();
                let mut obj = Object::default();
                if self.next_token() == close {
                    self.i += 1;
                } else {
                    loop {
                        if open == b'{' {
                            self.next_token();
                            let key = self.string();
                            self.next_token();
                            self.i += 1; // `:`
                            let v = self.value();
                            obj.insert(&key, v);
                        } else {
                            items.push(self.value());
                        }
                        let sep = self.next_token();
                        self.i += 1;
                        if sep != b',' {
                            break;
                        }
                    }
                }
                let text = self.since(start);
                if open == b'{' {
                    obj.text = text;
                    Value::Object(obj)
                } else {
                    Value::Array(items, text)
                }
            }
            _ => {
                let start = self.i;
                while matches!(self.peek(), b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                    self.i += 1;
                }
                Value::Number(self.since(start))
            }
        }
    }

    /// A string at the cursor (its `"`), decoded.
    fn string(&mut self) -> String {
        self.i += 1;
        let start = self.i;
        let b = self.s.as_bytes();
        while self.i < b.len() && b[self.i] != b'"' {
            self.i += if b[self.i] == b'\\' { 2 } else { 1 };
        }
        let raw = b.get(start..self.i).unwrap_or_default();
        self.i += 1;
        let mut out = Vec::with_capacity(raw.len());
        schema::decode(raw, |piece| out.extend_from_slice(piece));
        // Valid UTF-8 in, lone surrogates refused by the validator: always valid.
        String::from_utf8(out).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_values_in_order_with_their_text() {
        let text = r#" {"b": [1, 2.50, {"x": null}], "a": "caf\u00e9\n", "b": true, "n": -1e3, "e": {}, "l": []} "#;
        let v = parse(text).unwrap();
        let o = v.as_object().unwrap();
        let keys: Vec<&str> = o.keys().map(String::as_str).collect();
        assert_eq!(keys, ["b", "a", "n", "e", "l"]);
        assert_eq!(o.get("b"), Some(&Value::Bool(true)));
        assert_eq!(o.get("a").and_then(Value::as_str), Some("café\n"));
        assert_eq!(o.get("n").and_then(Value::text), Some("-1e3"));
        assert_eq!(o.get("e").and_then(Value::text), Some("{}"));
        assert_eq!(o.get("l").and_then(Value::as_array), Some(&[][..]));
        assert_eq!(o.text, text.trim());
        let a = parse("[1, 2.50, {\"x\" : null}]").unwrap();
        let items = a.as_array().unwrap();
        assert_eq!(items[1], Value::Number("2.50"));
        assert_eq!(items[2].text(), Some("{\"x\" : null}"));
        assert!(items[2].as_object().unwrap().get("x").unwrap().is_null());
    }

    #[test]
    fn numbers_read_as_u64_from_their_digits() {
        let n = |t| parse(t).unwrap().as_u64();
        assert_eq!(n("42"), Some(42));
        assert_eq!(n("18446744073709551615"), Some(u64::MAX));
        assert_eq!(n("18446744073709551616"), None);
        for t in ["1.0", "1e3", "-0", "-1", "\"1\""] {
            assert_eq!(n(t), None, "{t}");
        }
    }

    #[test]
    fn errors_are_the_validators() {
        let e = parse(r#"{"a": 1,}"#).unwrap_err();
        assert_eq!((e.offset, e.reason), (8, "expected string"));
        assert!(parse("").is_err());
        assert!(parse(r#""\ud800""#).is_err());
    }
}
