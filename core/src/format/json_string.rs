//! One writer of JSON strings for every format function: the escapes every spelling shares
//! (`\"`, `\\`, `\n`, `\r`, `\t`, other control bytes as `\u00XX`), and the three ways the
//! spellings differ — Python's `json.dumps` writes `\b` and `\f` short (the chat templates'
//! `tojson`), tool results escape `<` (so a result cannot spell markup), and a writer may name
//! markers a string must not spell (the first character of each occurrence becomes a `\u`
//! escape: the same value, no marker).

use alloc::string::String;
use core::fmt::Write;

/// How a JSON string is spelled beyond the escapes every spelling shares.
#[derive(Clone, Copy, Default)]
pub(crate) struct StrSpelling<'m> {
    /// `\b` and `\f` rather than `\u0008` and `\u000c` (Python's `json.dumps`).
    pub(crate) short_bf: bool,
    /// `<` as `\u003c`.
    pub(crate) escape_lt: bool,
    /// Markers a string must not spell.
    pub(crate) markers: &'m [&'m str],
}

/// Appends `s` as a JSON string (quotes included), spelled as `how` says.
pub(crate) fn push_json_string(out: &mut String, s: &str, how: StrSpelling<'_>) {
    out.push('"');
    for (i, c) in s.char_indices() {
        let marked = (c as u32) < 0x10000 && how.markers.iter().any(|m| s[i..].starts_with(m));
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' if how.short_bf => out.push_str("\\b"),
            '\u{c}' if how.short_bf => out.push_str("\\f"),
            '<' if how.escape_lt => out.push_str("\\u003c"),
            c if (c as u32) < 0x20 || marked => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spell(s: &str, how: StrSpelling<'_>) -> String {
        let mut out = String::new();
        push_json_string(&mut out, s, how);
        out
    }

    #[test]
    fn the_spellings_differ_only_where_they_say() {
        let s = "a\"\\\n\r\t\u{8}\u{c}\u{1}<b";
        let plain = StrSpelling::default();
        assert_eq!(spell(s, plain), r#""a\"\\\n\r\t\u0008\u000c\u0001<b""#);
        let py = StrSpelling {
            short_bf: true,
            ..plain
        };
        assert_eq!(spell(s, py), r#""a\"\\\n\r\t\b\f\u0001<b""#);
        let lt = StrSpelling {
            escape_lt: true,
            ..plain
        };
        assert_eq!(spell(s, lt), r#""a\"\\\n\r\t\u0008\u000c\u0001\u003cb""#);
    }

    #[test]
    fn a_marker_loses_its_first_character_to_an_escape() {
        let how = StrSpelling {
            markers: &["</tool_call>", "😀x"],
            ..StrSpelling::default()
        };
        assert_eq!(spell("x</tool_call>y", how), r#""x\u003c/tool_call>y""#);
        // Beyond the BMP a `\u` escape would be a surrogate pair: such a marker is left as is.
        assert_eq!(spell("😀x", how), "\"😀x\"");
    }
}
