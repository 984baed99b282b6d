//! Writing argument values in each family's spelling: JSON, Python literals, Gemma's
//! object syntax, XML parameter values — each guarded so a string cannot spell a marker.

use super::*;
use crate::format::json_string::{StrSpelling, push_json_string};

// --- writing values ------------------------------------------------------------------------

/// How JSON is spelled: separators, and the markers a string must not spell (the first
/// character of each occurrence is written as a `\u` escape: the same value, no marker).
#[derive(Clone, Copy)]
pub(super) struct JsonStyle<'m> {
    /// `", "` and `": "` (what `json.dumps` and Jinja's `tojson` write) rather than compact.
    pub(super) spaced: bool,
    pub(super) markers: &'m [&'m str],
}

/// A JSON string, compact spelling (`\u0008`, `\u000c`); each marker in `markers` loses its
/// first character to a `\u` escape.
pub(super) fn push_json_str(out: &mut String, s: &str, markers: &[&str]) {
    let how = StrSpelling {
        markers,
        ..StrSpelling::default()
    };
    push_json_string(out, s, how);
}

pub(super) fn push_json(out: &mut String, v: &J<'_>, st: JsonStyle<'_>) {
    match v {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Num(n) => out.push_str(n),
        J::Str(s) => push_json_str(out, s, st.markers),
        J::Arr(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(if st.spaced { ", " } else { "," });
                }
                push_json(out, x, st);
            }
            out.push(']');
        }
        J::Obj(members) => push_json_obj(out, members, st),
    }
}

pub(super) fn push_json_obj(out: &mut String, members: &[(String, J<'_>)], st: JsonStyle<'_>) {
    out.push('{');
    for (i, (k, x)) in members.iter().enumerate() {
        if i > 0 {
            out.push_str(if st.spaced { ", " } else { "," });
        }
        push_json_str(out, k, st.markers);
        out.push_str(if st.spaced { ": " } else { ":" });
        push_json(out, x, st);
    }
    out.push('}');
}

/// A Python literal (pythonic calls): `True`/`False`/`None`, `"…"` strings with Python
/// escapes, numbers as written; `markers` as in [`push_json_str`] (escaped `\xNN`/`\uNNNN`).
pub(super) fn push_python(out: &mut String, v: &J<'_>, markers: &[&str]) {
    super::args::write_spaced(out, v, ["None", "True", "False"], push_python_str, markers);
}

pub(super) fn push_python_str(out: &mut String, s: &str, markers: &[&str]) {
    out.push('"');
    for (i, c) in s.char_indices() {
        let marked = markers.iter().any(|m| s[i..].starts_with(m));
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || (marked && (c as u32) < 0x100) => {
                let _ = fmt::Write::write_fmt(out, format_args!("\\x{:02x}", c as u32));
            }
            c if marked && (c as u32) < 0x10000 => {
                let _ = fmt::Write::write_fmt(out, format_args!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Gemma's object syntax: bare keys (delimited when not an identifier), strings between
/// `quote` tokens, raw; other values as JSON literals.
pub(super) fn push_gemma(out: &mut String, v: &J<'_>, quote: &str, markers: &[&str]) {
    match v {
        J::Str(s) => {
            out.push_str(quote);
            push_unmarked(out, s, markers);
            out.push_str(quote);
        }
        J::Arr(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_gemma(out, x, quote, markers);
            }
            out.push(']');
        }
        J::Obj(members) => push_gemma_obj(out, members, quote, markers),
        other => push_json(
            out,
            other,
            JsonStyle {
                spaced: false,
                markers: &[],
            },
        ),
    }
}

pub(super) fn push_gemma_obj(
    out: &mut String,
    members: &[(String, J<'_>)],
    quote: &str,
    markers: &[&str],
) {
    out.push('{');
    for (i, (k, x)) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if is_identifier(k) && !matches!(k.as_str(), "true" | "false" | "null") {
            out.push_str(k);
        } else {
            out.push_str(quote);
            push_unmarked(out, k, markers);
            out.push_str(quote);
        }
        out.push(':');
        push_gemma(out, x, quote, markers);
    }
    out.push('}');
}

pub(super) fn is_identifier(s: &str) -> bool {
    let mut cs = s.chars();
    matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// How a value in an XML-ish parameter element is written.
#[derive(Clone, Copy)]
pub(super) struct XmlValue<'m> {
    /// A line feed after the opener and before the closer always (qwen3-coder's template);
    /// otherwise only around a string that starts or ends with one (the parser drops one at
    /// each end of a string value).
    pub(super) framing: bool,
    /// Sequences that would end the value early.
    pub(super) closers: &'m [&'m str],
    /// A string that cannot be written raw goes in CDATA sections (anthropic-xml: a value
    /// that is only CDATA is its payload, verbatim; `]]>` splits two sections).
    pub(super) cdata: bool,
    /// Entity-escape `&`, `<`, `>` (morph-xml decodes the five named entities; its string
    /// values keep every line feed).
    pub(super) entities: bool,
}

/// Whether the untyped guess reads `s`, written raw, back as the string `s`.
pub(super) fn guessed_as_string(s: &str) -> bool {
    let t = s.trim_matches([' ', '\t', '\n', '\r']);
    t.len() == s.len()
        && (strict::validate(t.as_bytes()).is_err()
            || (t.len() >= 16 && t.bytes().all(|b| b.is_ascii_digit())))
}

pub(super) fn push_entities(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}

/// Writes a parameter value: a string raw when the parser reads it back as that string
/// (schema `string`, or the untyped guess), else as JSON.
pub(super) fn push_xml_value(out: &mut String, v: &J<'_>, ty: ValueType, x: XmlValue<'_>) {
    let json = |out: &mut String, v: &J<'_>| {
        let mut s = String::new();
        push_json(
            &mut s,
            v,
            JsonStyle {
                spaced: true,
                markers: &["<"],
            },
        );
        if x.entities {
            push_entities(out, &s);
        } else {
            out.push_str(&s);
        }
    };
    if let (true, J::Str(s)) = (x.cdata, v) {
        let raw = match ty {
            ValueType::String => true,
            ValueType::Any => guessed_as_string(s),
            _ => false,
        };
        if !raw || x.closers.iter().any(|c| s.contains(c)) {
            out.push_str("<![CDATA[");
            out.push_str(&s.replace("]]>", "]]]]><![CDATA[>"));
            out.push_str("]]>");
            return;
        }
    }
    let (open_nl, close_nl) = match v {
        J::Str(_) if x.entities => ("", ""),
        J::Str(s) if x.framing || s.starts_with('\n') || s.ends_with('\n') => ("\n", "\n"),
        _ if x.framing => ("\n", "\n"),
        _ => ("", ""),
    };
    out.push_str(open_nl);
    match v {
        J::Str(s) if ty == ValueType::String => {
            if x.entities {
                push_entities(out, s);
            } else {
                push_unmarked(out, s, x.closers);
            }
        }
        J::Str(s)
            if ty == ValueType::Any
                && guessed_as_string(s)
                && (x.entities || !x.closers.iter().any(|c| s.contains(c))) =>
        {
            if x.entities {
                push_entities(out, s);
            } else {
                out.push_str(s);
            }
        }
        other => json(out, other),
    }
    out.push_str(close_nl);
}
