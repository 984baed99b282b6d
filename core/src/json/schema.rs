//! Reads a tool's JSON Schema text without a heap: the declared `type` (and array `items`
//! type) of each entry of the top-level `properties` object.
//!
//! The one reading of a schema: `ConfigBuf` (its `add_tool` and the `tools` of a JSON
//! config) and the C ABI both use it. The schema must be a JSON object; only a string `type`
//! declares a type (a list of types leaves the parameter untyped); a later duplicate key
//! replaces an earlier one. The text is validated first with [`strict::validate`], so the
//! scanner below may assume well-formed JSON.
//!
//! ```
//! use tokensieve::ValueType;
//! use tokensieve::json::schema::{self, Found, SchemaError};
//!
//! let text = br#"{"type": "object", "properties": {
//!     "city": {"type": "string"}, "days": {"type": "array", "items": {"type": "integer"}}}}"#;
//! let mut found = Vec::new();
//! schema::scan(text, |f| match f {
//!     Found::Reset => found.clear(),
//!     Found::Property(p) => {
//!         let mut name = Vec::new();
//!         schema::decode(p.raw_name, |piece| name.extend_from_slice(piece));
//!         found.push((String::from_utf8(name).unwrap(), p.value_type, p.items));
//!     }
//! })
//! .unwrap();
//! assert_eq!(found, [
//!     ("city".to_string(), ValueType::String, ValueType::Any),
//!     ("days".to_string(), ValueType::Array, ValueType::Integer),
//! ]);
//! assert_eq!(schema::scan(b"[]", |_| {}), Err(SchemaError::NotObject));
//! ```

use crate::config::ValueType;
use crate::json::strict::{self, Kind};

/// Why a schema was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SchemaError {
    /// The text is not one valid JSON value ([`strict::validate`]).
    NotJson,
    /// It is valid JSON, but not an object.
    NotObject,
}

impl SchemaError {
    /// What is wrong, said after the schema's name (so no `Display`): `is not valid JSON`,
    /// `must be a JSON Schema object`.
    pub const fn message(self) -> &'static str {
        match self {
            SchemaError::NotJson => "is not valid JSON",
            SchemaError::NotObject => "must be a JSON Schema object",
        }
    }
}

/// What [`scan`] reports, in the order of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found<'a> {
    /// A (later) `properties` member: it replaces every property reported so far.
    Reset,
    /// One property. A later one of the same (decoded) name replaces it.
    Property(Property<'a>),
}

/// One entry of `properties`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Property<'a> {
    /// The name as written: the contents of its JSON string, escapes unresolved (see
    /// [`decode`]; the decoded name is never longer).
    pub raw_name: &'a [u8],
    /// Its declared `type` ([`ValueType::Any`] when there is no string `type`).
    pub value_type: ValueType,
    /// The declared `type` of an object `items` member (arrays), else [`ValueType::Any`].
    pub items: ValueType,
}

/// Validates `schema` and reports its properties in order (see [`Found`] for how later
/// ones replace earlier ones). Nothing is reported when it is rejected.
pub fn scan<'a>(schema: &'a [u8], mut f: impl FnMut(Found<'a>)) -> Result<(), SchemaError> {
    match strict::validate(schema) {
        Ok(Kind::Object) => {}
        Ok(_) => return Err(SchemaError::NotObject),
        Err(_) => return Err(SchemaError::NotJson),
    }
    let mut c = Cur { s: schema, i: 0 };
    c.members(|c, key| {
        if !key_is(key, b"properties") {
            c.skip();
            return;
        }
        // A non-object `properties` declares nothing (and replaces an earlier one).
        f(Found::Reset);
        c.ws();
        if c.peek() != b'{' {
            c.skip();
            return;
        }
        c.members(|c, name| f(Found::Property(c.property(name))));
    });
    Ok(())
}

/// Decodes the raw contents of a JSON string (escapes resolved; a lone surrogate becomes
/// U+FFFD), handing out UTF-8 pieces. The decoded length never exceeds the raw length.
///
/// ```
/// let mut s = Vec::new();
/// tokensieve::json::schema::decode(br#"caf\u00e9 \"x\""#, |p| s.extend_from_slice(p));
/// assert_eq!(s, "café \"x\"".as_bytes());
/// ```
pub fn decode(raw: &[u8], mut out: impl FnMut(&[u8])) {
    let mut i = 0;
    while i < raw.len() {
        let run = raw[i..]
            .iter()
            .position(|&b| b == b'\\')
            .unwrap_or(raw.len() - i);
        if run > 0 {
            out(&raw[i..i + run]);
            i += run;
            continue;
        }
        let esc = raw.get(i + 1).copied().unwrap_or(b'\\');
        let simple = match esc {
            b'"' => Some(b'"'),
            b'\\' => Some(b'\\'),
            b'/' => Some(b'/'),
            b'b' => Some(8),
            b'f' => Some(12),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            _ => None,
        };
        if let Some(b) = simple {
            out(&[b]);
            i += 2;
            continue;
        }
        // \uXXXX, possibly a surrogate pair.
        let mut cp = hex4(raw, i + 2);
        i += 6;
        if (0xD800..0xDC00).contains(&cp)
            && raw.get(i) == Some(&b'\\')
            && raw.get(i + 1) == Some(&b'u')
        {
            let lo = hex4(raw, i + 2);
            if (0xDC00..0xE000).contains(&lo) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                i += 6;
            }
        }
        let ch = char::from_u32(cp).unwrap_or('\u{FFFD}');
        let mut buf = [0u8; 4];
        out(ch.encode_utf8(&mut buf).as_bytes());
    }
}

/// Cursor over JSON text already known to be valid.
struct Cur<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Cur<'a> {
    fn peek(&self) -> u8 {
        self.s.get(self.i).copied().unwrap_or(0)
    }

    fn ws(&mut self) {
        while matches!(self.peek(), b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    /// At an opening quote: returns the raw (still escaped) contents and moves past it.
    fn string(&mut self) -> &'a [u8] {
        self.i += 1;
        let start = self.i;
        while self.i < self.s.len() {
            match self.s[self.i] {
                b'\\' => self.i += 2,
                b'"' => break,
                _ => self.i += 1,
            }
        }
        let raw = &self.s[start..self.i.min(self.s.len())];
        self.i += 1;
        raw
    }

    /// Skips one value.
    fn skip(&mut self) {
        self.ws();
        match self.peek() {
            b'"' => {
                self.string();
            }
            b'{' | b'[' => self.skip_container(),
            _ => {
                while self.i < self.s.len()
                    && !matches!(
                        self.s[self.i],
                        b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r'
                    )
                {
                    self.i += 1;
                }
            }
        }
    }

    /// At `{` or `[`: moves past the matching close.
    fn skip_container(&mut self) {
        let mut depth = 0usize;
        while self.i < self.s.len() {
            match self.s[self.i] {
                b'"' => {
                    self.string();
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        self.i += 1;
                        return;
                    }
                }
                _ => {}
            }
            self.i += 1;
        }
    }

    /// If the next value is an object, calls `f(cursor, raw key)` for each member, with the
    /// cursor at the member's value (which `f` must consume), and returns true; otherwise
    /// skips the value and returns false.
    fn members(&mut self, mut f: impl FnMut(&mut Cur<'a>, &'a [u8])) -> bool {
        self.ws();
        if self.peek() != b'{' {
            self.skip();
            return false;
        }
        self.i += 1;
        loop {
            self.ws();
            match self.peek() {
                b'}' => {
                    self.i += 1;
                    return true;
                }
                b',' => self.i += 1,
                b'"' => {
                    let key = self.string();
                    self.ws();
                    self.i += 1; // ':'
                    f(self, key);
                }
                _ => return true, // unreachable for valid JSON
            }
        }
    }

    /// The property `name` whose value is at the cursor (consumed): its `type` and `items`
    /// type, the last of each winning.
    fn property(&mut self, name: &'a [u8]) -> Property<'a> {
        let mut p = Property {
            raw_name: name,
            value_type: ValueType::Any,
            items: ValueType::Any,
        };
        self.members(|c, key| {
            if key_is(key, b"type") {
                p.value_type = c.type_name();
            } else if key_is(key, b"items") {
                c.ws();
                p.items = if c.peek() == b'{' {
                    c.type_of()
                } else {
                    c.skip();
                    ValueType::Any
                };
            } else {
                c.skip();
            }
        });
        p
    }

    /// The `type` member of the object at the cursor (last one wins), consuming it.
    fn type_of(&mut self) -> ValueType {
        let mut ty = ValueType::Any;
        self.members(|c, key| {
            if key_is(key, b"type") {
                ty = c.type_name();
            } else {
                c.skip();
            }
        });
        ty
    }

    /// The value of a `type` member at the cursor, consumed: a string names a type, anything
    /// else (a list of types, …) is [`ValueType::Any`].
    fn type_name(&mut self) -> ValueType {
        self.ws();
        if self.peek() != b'"' {
            self.skip();
            return ValueType::Any;
        }
        let raw = self.string();
        let mut buf = [0u8; 16];
        decode_into(raw, &mut buf)
            .and_then(|n| core::str::from_utf8(&buf[..n]).ok())
            .map_or(ValueType::Any, ValueType::from_schema_name)
    }
}

/// Decodes the raw contents of a JSON string into `out`; `None` if it does not fit.
fn decode_into(raw: &[u8], out: &mut [u8]) -> Option<usize> {
    let mut n = 0;
    let mut fits = true;
    decode(raw, |piece| {
        if n + piece.len() <= out.len() {
            out[n..n + piece.len()].copy_from_slice(piece);
            n += piece.len();
        } else {
            fits = false;
        }
    });
    fits.then_some(n)
}

/// True when the raw JSON key decodes to `lit`.
fn key_is(raw: &[u8], lit: &[u8]) -> bool {
    let mut buf = [0u8; 16];
    matches!(decode_into(raw, &mut buf), Some(n) if &buf[..n] == lit)
}

fn hex4(raw: &[u8], at: usize) -> u32 {
    raw.get(at..at + 4)
        .and_then(|h| core::str::from_utf8(h).ok())
        .and_then(|h| u32::from_str_radix(h, 16).ok())
        .unwrap_or(0xFFFD)
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use alloc::string::String;
    use alloc::vec;
    use alloc::vec::Vec;

    fn params(schema: &str) -> Result<Vec<(String, ValueType, ValueType)>, SchemaError> {
        let mut v = Vec::new();
        scan(schema.as_bytes(), |f| match f {
            Found::Reset => v.clear(),
            Found::Property(p) => {
                let mut name = Vec::new();
                decode(p.raw_name, |piece| name.extend_from_slice(piece));
                v.push((String::from_utf8(name).unwrap(), p.value_type, p.items));
            }
        })?;
        Ok(v)
    }

    #[test]
    fn reads_types_like_config_buf() {
        let p = params(
            r#"{"type":"object","properties":{"city":{"type":"string"},
               "n":{"type":"integer","description":"{[\"x"},"tags":{"type":"array","items":{"type":"number"}},
               "any":{"type":["string","null"]},"caf\u00e9":{"type":"boolean"}}}"#,
        )
        .unwrap();
        assert_eq!(
            p,
            vec![
                ("city".into(), ValueType::String, ValueType::Any),
                ("n".into(), ValueType::Integer, ValueType::Any),
                ("tags".into(), ValueType::Array, ValueType::Number),
                ("any".into(), ValueType::Any, ValueType::Any),
                ("café".into(), ValueType::Boolean, ValueType::Any),
            ]
        );
    }

    #[test]
    fn rejects_bad_schemas() {
        assert_eq!(params("{"), Err(SchemaError::NotJson));
        assert_eq!(params("[]"), Err(SchemaError::NotObject));
        assert_eq!(params("{}").unwrap(), vec![]);
        assert_eq!(
            params(r#"{"properties":{"a":{}},"properties":{"b":{"type":"null"}}}"#).unwrap(),
            vec![("b".into(), ValueType::Null, ValueType::Any)]
        );
    }

    #[test]
    fn decodes_escapes() {
        let mut s = Vec::new();
        decode(br#"a\n\"\u00e9\ud83d\ude00\ud800x"#, |p| {
            s.extend_from_slice(p)
        });
        assert_eq!(String::from_utf8(s).unwrap(), "a\n\"é😀\u{FFFD}x");
    }
}
