//! Parameter values of the XML-ish dialects (anthropic-xml `<parameter name=…>`, qwen3-coder
//! `<parameter=…>`), typed the same way in both (docs/design.md, "Dialects" and "Clarifications"):
//!
//! - a schema-typed `string` streams per token as a JSON string: the raw text minus one
//!   framing newline at each end (the first byte, if a newline, is dropped at once; a last
//!   newline is held back until the next byte shows whether it is the last);
//! - every other value is held in the machine's value buffer until its closer, then trimmed
//!   (ASCII whitespace) and typed by [`typed`]: by the schema when it declares a type, else
//!   the "untyped guess" (the trimmed text as JSON when it is valid JSON, except a run of 16+
//!   digits, else a string);
//! - a value that outgrows a fixed-capacity value buffer is a string from that byte on.
//!
//! Choices the design rules leave open (docs/design.md records them): a schema `boolean` also accepts `True`/`FALSE` (any
//! ASCII case) and writes `true`/`false` (the qwen3-coder vectors pin `False` → `false`, "as in
//! anthropic-xml"); a value that does not fit its declared type is the trimmed string.
//!
//! CDATA (anthropic-xml only) is tracked here because it changes how the value is typed;
//! recognising the markers is the dialect's business.

use crate::config::Settings;
use crate::config::ValueType;
use crate::emit::{Act, BufId, Emit, Emitter, Spool, SpoolMode};
use crate::event::Part;
use crate::json::strict::{self, Kind};
use crate::scan::Decision;

/// No CDATA section seen in the value.
pub(crate) const NO_CDATA: u32 = u32::MAX;

/// The parameter value being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Value {
    pub(crate) ty: ValueType,
    /// Streamed as a JSON string as it is read (schema `string`, or an overflowed value).
    pub(crate) streaming: bool,
    /// No byte of the value seen yet (a first newline is framing).
    pub(crate) at_start: bool,
    /// A newline held back: framing if the closer follows.
    pub(crate) pending_nl: bool,
    /// Where the first CDATA payload starts in the value buffer, and where the last ends.
    pub(crate) cdata_start: u32,
    pub(crate) cdata_end: u32,
    /// Non-whitespace text outside CDATA.
    pub(crate) outside_text: bool,
    /// An overflowed value streams as a string whose leading whitespace is still dropped
    /// (the value is trimmed, as an untyped value is).
    pub(crate) trim_start: bool,
}

impl Value {
    pub(crate) const fn new(ty: ValueType) -> Value {
        Value {
            ty,
            streaming: matches!(ty, ValueType::String),
            at_start: true,
            pending_nl: false,
            cdata_start: NO_CDATA,
            cdata_end: 0,
            outside_text: false,
            trim_start: false,
        }
    }
}

/// Length of the leading ASCII whitespace.
pub(crate) fn ws_prefix(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .count()
}

/// The whitespace at the head of a text decision about `window` (none for invalid bytes).
/// Between elements it is wire formatting whatever follows it in the same decision, so a
/// dialect skips it first and decides about the rest separately: the outcome then does not
/// depend on where chunks split the run.
pub(crate) fn leading_ws(d: Decision, window: &[u8]) -> usize {
    match d {
        Decision::Text(n) => ws_prefix(&window[..n]),
        _ => 0,
    }
}

/// The range of `b` without leading and trailing ASCII whitespace.
pub(crate) fn trim(b: &[u8]) -> (usize, usize) {
    let a = ws_prefix(b);
    let mut e = b.len();
    while e > a && matches!(b[e - 1], b' ' | b'\t' | b'\n' | b'\r') {
        e -= 1;
    }
    (a, e)
}

/// A chunk text reading `value[start..end]` in `mode`.
pub(crate) fn spool(mode: SpoolMode, start: usize, end: usize) -> Spool {
    Spool::buf(BufId::Value, mode, start as u32, end as u32)
}

/// How a complete, trimmed value is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Typed {
    /// As the JSON it is (compacted).
    Json,
    /// As a JSON string.
    Str,
    /// As this JSON literal.
    Literal(&'static str),
}

/// How the trimmed text `t` of a complete value is typed, for declared type `ty`.
pub(crate) fn typed(ty: ValueType, t: &[u8]) -> Typed {
    let kind = strict::validate(t).ok();
    let json = |ok: bool| if ok { Typed::Json } else { Typed::Str };
    match ty {
        ValueType::Any => {
            json(kind.is_some() && !(t.len() >= 16 && t.iter().all(u8::is_ascii_digit)))
        }
        ValueType::Integer | ValueType::Number => json(kind == Some(Kind::Number)),
        ValueType::Boolean if t.eq_ignore_ascii_case(b"true") => Typed::Literal("true"),
        ValueType::Boolean if t.eq_ignore_ascii_case(b"false") => Typed::Literal("false"),
        ValueType::Boolean => Typed::Str,
        ValueType::Null => json(kind == Some(Kind::Null)),
        ValueType::Array => json(kind == Some(Kind::Array)),
        ValueType::Object => json(kind == Some(Kind::Object)),
        ValueType::String => Typed::Str,
    }
}

/// The declared type of parameter `key` of configured tool `tool` (`Any` when undeclared).
pub(crate) fn param_type(cfg: &Settings<'_>, tool: Option<u16>, key: &[u8]) -> ValueType {
    tool.and_then(|t| cfg.tools().param_type(t as usize, key))
        .map_or(ValueType::Any, |(t, _)| t)
}

/// Opens parameter `key` of type `ty`: queues `{"key":` (or `,"key":` when not `first`, and
/// `"` after it for a streamed string) and empties the value buffer.
pub(crate) fn open(out: &mut Emitter<'_>, first: bool, key: &[u8], ty: ValueType) -> Value {
    out.set_key(key);
    out.queue_chunk(
        Some(Part::Input),
        Spool::Static(if first { "{\"" } else { ",\"" }),
    );
    out.queue_chunk(Some(Part::Input), out.key_spool());
    let v = Value::new(ty);
    out.queue_chunk(
        Some(Part::Input),
        Spool::Static(if v.streaming { "\":\"" } else { "\":" }),
    );
    out.value.clear();
    v
}

/// A text or invalid decision inside a value (`in_cdata`: inside a CDATA section, where
/// newlines are never framing).
pub(crate) fn text(
    out: &mut Emitter<'_>,
    v: &mut Value,
    in_cdata: bool,
    d: Decision,
    window: &[u8],
) -> Act {
    let (n, bytes): (usize, &[u8]) = match d {
        Decision::Text(n) => (n, &window[..n]),
        Decision::Invalid(n) => (n, "\u{FFFD}".as_bytes()),
        _ => return Act::WAIT,
    };
    if v.streaming && v.trim_start {
        let ws = if matches!(d, Decision::Text(_)) {
            ws_prefix(bytes)
        } else {
            0
        };
        if ws > 0 {
            return Act::skip(ws);
        }
        v.trim_start = false;
    }
    if v.streaming {
        let meta = out.meta(Some(Part::Input));
        let first = v.at_start;
        v.at_start = false;
        if first && !in_cdata && bytes[0] == b'\n' {
            return Act::skip(1);
        }
        if v.pending_nl {
            v.pending_nl = false;
            return Act {
                consume: 0,
                emit: Some((meta, Emit::Static("\\n"))),
            };
        }
        if !matches!(d, Decision::Text(_)) {
            return Act {
                consume: n,
                emit: Some((meta, Emit::Static("\u{FFFD}"))),
            };
        }
        // Hold a last newline: it is framing if the closer follows.
        let k = if !in_cdata && bytes[n - 1] == b'\n' {
            if n == 1 {
                v.pending_nl = true;
                return Act::skip(1);
            }
            n - 1
        } else {
            n
        };
        return out.escaped_act(meta, &bytes[..k]);
    }
    if !in_cdata && ws_prefix(bytes) < bytes.len() {
        v.outside_text = true;
    }
    let before = out.value.len();
    if !out.value.push(bytes) {
        // The value outgrew its buffer (fixed memory): from here it is a string. Its start
        // is trimmed (what is held, and what streams next while it is all whitespace); its
        // end is not (the closer is not in sight), whatever the chunking.
        out.value.truncate(before);
        v.streaming = true;
        v.at_start = false;
        let (a, len) = (ws_prefix(out.value.bytes()), out.value.len());
        v.trim_start = a == len;
        out.queue_chunk(Some(Part::Input), Spool::Static("\""));
        out.queue_chunk(Some(Part::Input), spool(SpoolMode::Escaped, a, len));
        return Act::WAIT;
    }
    Act::skip(n)
}

/// The value's closer: a streamed string gets its closing quote (a held last newline was
/// framing); a held value is typed and queued.
pub(crate) fn close(out: &mut Emitter<'_>, v: Value) {
    if v.streaming {
        out.queue_chunk(Some(Part::Input), Spool::Static("\""));
        return;
    }
    let value = out.value.bytes();
    let string = |out: &mut Emitter<'_>, a: usize, b: usize| {
        out.queue_chunk(Some(Part::Input), Spool::Static("\""));
        out.queue_chunk(Some(Part::Input), spool(SpoolMode::Escaped, a, b));
        out.queue_chunk(Some(Part::Input), Spool::Static("\""));
    };
    if v.cdata_start != NO_CDATA && !v.outside_text {
        let (a, b) = (v.cdata_start as usize, v.cdata_end as usize);
        string(out, a, b.max(a));
        return;
    }
    let (a, b) = trim(value);
    match typed(v.ty, &value[a..b]) {
        Typed::Json => out.queue_chunk(Some(Part::Input), spool(SpoolMode::Compact, a, b)),
        Typed::Literal(lit) => out.queue_chunk(Some(Part::Input), Spool::Static(lit)),
        Typed::Str => string(out, a, b),
    }
}

/// The closer of a value whose writer declared it JSON (Kimi K3's `type="number"`,
/// `"object"`, …: the model says how it wrote the value, so there is nothing to guess): a held
/// value is the JSON it is when its trimmed text is valid JSON of any kind (numbers as
/// written, a run of digits of any length included), else that trimmed text as a string. A
/// streamed string (an overflowed value) gets its closing quote.
pub(crate) fn close_json(out: &mut Emitter<'_>, v: Value) {
    if v.streaming {
        out.queue_chunk(Some(Part::Input), Spool::Static("\""));
        return;
    }
    let (a, b) = trim(out.value.bytes());
    if strict::validate(&out.value.bytes()[a..b]).is_ok() {
        out.queue_chunk(Some(Part::Input), spool(SpoolMode::Compact, a, b));
    } else {
        out.queue_chunk(Some(Part::Input), Spool::Static("\""));
        out.queue_chunk(Some(Part::Input), spool(SpoolMode::Escaped, a, b));
        out.queue_chunk(Some(Part::Input), Spool::Static("\""));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing_follows_the_schema_then_the_guess() {
        assert_eq!(typed(ValueType::Any, b"3"), Typed::Json);
        assert_eq!(typed(ValueType::Any, b"True"), Typed::Str);
        assert_eq!(typed(ValueType::Any, b"1234567890123456"), Typed::Str);
        assert_eq!(typed(ValueType::Any, b"123456789012345"), Typed::Json);
        assert_eq!(typed(ValueType::Integer, b"0.50"), Typed::Json);
        assert_eq!(typed(ValueType::Integer, b"1 < 2"), Typed::Str);
        assert_eq!(
            typed(ValueType::Number, b"12345678901234567890"),
            Typed::Json
        );
        assert_eq!(typed(ValueType::Boolean, b"False"), Typed::Literal("false"));
        assert_eq!(typed(ValueType::Boolean, b"TRUE"), Typed::Literal("true"));
        assert_eq!(typed(ValueType::Boolean, b"yes"), Typed::Str);
        assert_eq!(typed(ValueType::Array, b"[1, 2]"), Typed::Json);
        assert_eq!(typed(ValueType::Array, b"{}"), Typed::Str);
        assert_eq!(typed(ValueType::Object, b"{\"a\": 1}"), Typed::Json);
        assert_eq!(typed(ValueType::Null, b"null"), Typed::Json);
        assert_eq!(typed(ValueType::String, b"2.10"), Typed::Str);
    }

    #[test]
    fn trimming_is_ascii_whitespace() {
        assert_eq!(trim(b"  a b \n"), (2, 5));
        assert_eq!(trim(b" \t\r\n"), (4, 4));
        assert_eq!(trim("\u{a0}x".as_bytes()), (0, 3));
    }
}
