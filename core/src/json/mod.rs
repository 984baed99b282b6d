//! JSON pieces the dialects emit: string escaping and compaction, zero-copy.
//!
//! Tool-call input streams as compact, strict JSON text (docs/design.md rule 9). Text that
//! becomes a JSON string is escaped here; a complete value that is already valid JSON is
//! compacted here (whitespace outside strings dropped, numbers and strings as written).
//! [`schema`] reads a tool's JSON Schema (the declared parameter types), also without a heap.

/// One step of escaping text as the contents of a JSON string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EscapePiece {
    /// The first `n` bytes need no escaping.
    Run(usize),
    /// The first byte must be written as this escape.
    Escape(&'static str),
}

const CONTROL: [&str; 32] = [
    "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007", "\\b",
    "\\t", "\\n", "\\u000b", "\\f", "\\r", "\\u000e", "\\u000f", "\\u0010", "\\u0011", "\\u0012",
    "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017", "\\u0018", "\\u0019", "\\u001a",
    "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
];

fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// The escape of one byte, if it needs one.
pub fn escape_byte(b: u8) -> Option<&'static str> {
    match b {
        b'"' => Some("\\\""),
        b'\\' => Some("\\\\"),
        0..=0x1f => Some(CONTROL[b as usize]),
        _ => None,
    }
}

/// The next piece of `text` (non-empty, valid UTF-8) escaped as JSON string contents.
///
/// ```
/// use tokensieve::json::{escape_piece, EscapePiece};
/// assert_eq!(escape_piece(b"ab\"c"), EscapePiece::Run(2));
/// assert_eq!(escape_piece(b"\"c"), EscapePiece::Escape("\\\""));
/// assert_eq!(escape_piece(b"\n"), EscapePiece::Escape("\\n"));
/// ```
pub fn escape_piece(text: &[u8]) -> EscapePiece {
    match text.iter().position(|&b| needs_escape(b)) {
        Some(0) => EscapePiece::Escape(escape_byte(text[0]).unwrap_or("")),
        Some(n) => EscapePiece::Run(n),
        None => EscapePiece::Run(text.len()),
    }
}

fn is_json_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The next piece `(start, end)` of the compact form of valid JSON `src[from..to]`, where
/// `from` is outside any string: whitespace is skipped, then the piece runs to the next
/// whitespace outside a string. An empty range means the value is exhausted.
///
/// ```
/// use tokensieve::json::compact_piece;
/// let src = br#" {"a b": [1, 2]} "#;
/// assert_eq!(compact_piece(src, 0, src.len()), (1, 8));
/// assert_eq!(&src[1..8], br#"{"a b":"#);
/// assert_eq!(compact_piece(src, 8, src.len()), (9, 12));
/// assert_eq!(&src[9..12], b"[1,");
/// ```
pub fn compact_piece(src: &[u8], from: usize, to: usize) -> (usize, usize) {
    let to = to.min(src.len());
    let mut i = from.min(to);
    while i < to && is_json_ws(src[i]) {
        i += 1;
    }
    let start = i;
    let mut in_str = false;
    while i < to {
        let b = src[i];
        if in_str {
            match b {
                b'\\' => i += 1,
                b'"' => in_str = false,
                _ => {}
            }
        } else if b == b'"' {
            in_str = true;
        } else if is_json_ws(b) {
            break;
        }
        i += 1;
    }
    (start, i.min(to))
}

pub mod relaxed;
pub mod schema;
pub mod strict;
#[cfg(feature = "alloc")]
pub(crate) mod value;
