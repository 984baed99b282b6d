//! JSON and Python text as the chat templates write them: `json.dumps` (transformers'
//! `tojson`: `ensure_ascii=False`, separators `", "` and `": "`, or `indent`), and Jinja's
//! `| string` (Python's `str`, `repr` inside lists and dicts). Numbers are written as the host
//! spelled them, keys in the host's order.

use alloc::string::String;
use core::fmt::Write;

use crate::format::json_string::{StrSpelling, push_json_string};

use crate::format::tool_calls::args::J;

/// A JSON string as `json.dumps(ensure_ascii=False)` writes it (`\b`, `\f` short); each
/// marker in `markers` loses its first character to a `\u` escape.
pub(super) fn json_str(out: &mut String, s: &str, markers: &[&str]) {
    let how = StrSpelling {
        short_bf: true,
        escape_lt: false,
        markers,
    };
    push_json_string(out, s, how);
}

/// `json.dumps(v)` on one line: `", "` and `": "`.
pub(super) fn json(out: &mut String, v: &J<'_>, markers: &[&str]) {
    crate::format::tool_calls::args::write_spaced(
        out,
        v,
        ["null", "true", "false"],
        json_str,
        markers,
    );
}

/// `json.dumps(v, indent=4)`: one member a line, `,` at line ends, `": "`; empty containers
/// as `[]` and `{}`.
pub(super) fn json_indented(out: &mut String, v: &J<'_>, markers: &[&str], level: usize) {
    let newline = |out: &mut String, level: usize| {
        out.push('\n');
        for _ in 0..level * 4 {
            out.push(' ');
        }
    };
    match v {
        J::Arr(items) if !items.is_empty() => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, level + 1);
                json_indented(out, x, markers, level + 1);
            }
            newline(out, level);
            out.push(']');
        }
        J::Obj(members) if !members.is_empty() => {
            out.push('{');
            for (i, (k, x)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, level + 1);
                json_str(out, k, markers);
                out.push_str(": ");
                json_indented(out, x, markers, level + 1);
            }
            newline(out, level);
            out.push('}');
        }
        other => json(out, other, markers),
    }
}

/// Jinja's `value | string` (Python's `str`): a string as it is, `True`/`False`/`None`,
/// numbers as written, lists and dicts as Python's `repr`.
pub(super) fn py_str(out: &mut String, v: &J<'_>) {
    match v {
        J::Str(s) => out.push_str(s),
        other => py_repr(out, other),
    }
}

/// Python's `repr` of a value read from JSON.
pub(super) fn py_repr(out: &mut String, v: &J<'_>) {
    match v {
        J::Null => out.push_str("None"),
        J::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        J::Num(n) => out.push_str(n),
        J::Str(s) => py_repr_str(out, s),
        J::Arr(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                py_repr(out, x);
            }
            out.push(']');
        }
        J::Obj(members) => {
            out.push('{');
            for (i, (k, x)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                py_repr_str(out, k);
                out.push_str(": ");
                py_repr(out, x);
            }
            out.push('}');
        }
    }
}

/// Python's `repr` of a string: single quotes unless it holds one and no double quote.
fn py_repr_str(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}
