//! XML content to JSON: what a held morph-xml argument becomes once its closer is read.
//!
//! A general converter over a bounded buffer, independent of the dialect's state machine:
//! scalars trimmed, entity-decoded and coerced by a JSON-Schema type; `<item>` children or
//! repeated elements → arrays; nested elements → objects; JSON text used as written. See
//! [`convert`] and the morph-xml module docs for the rules.

use crate::buf::Buf;
use crate::config::ValueType;
use crate::json::{compact_piece, escape_byte};
use crate::scan::tag::{self, TagLex};
use crate::scan::{DYNAMIC, Names, Vocab};

use super::value::{Typed, trim, typed, ws_prefix};

/// Nesting of elements inside a held argument that the converter reads as structure.
pub(crate) const MAX_NEST: usize = 16;

/// The five named entities and what they decode to, as JSON string contents.
pub(crate) const ENTITIES: [(&[u8], &str, u8); 5] = [
    (b"&lt;", "<", b'<'),
    (b"&gt;", ">", b'>'),
    (b"&amp;", "&", b'&'),
    (b"&quot;", "\\\"", b'"'),
    (b"&apos;", "'", b'\''),
];

/// Any element, opening or closing: what a held argument's content is read with.
/// Any element (inside a held argument; attributes there are not markup: the held value's
/// nested elements become object members by name only).
pub(crate) const ANY: Vocab<'static> = Vocab {
    open: 1 << DYNAMIC,
    close: 1 << DYNAMIC,
    dynamic: Names::Any,
    ..Vocab::EMPTY
};

// --- conversion of held content to JSON ----------------------------------------------------
//
// The held content is `buf[a..e]`; the JSON is appended to `buf`. Scratch space (decoded
// text) is appended too, and the output moved down over it, so a value's JSON is always one
// contiguous range right after what was there before. Everything is bounded by the buffer:
// a push that does not fit makes the conversion fail (false / None).

/// Appends `buf[a..e]` to `buf`.
fn copy(buf: &mut Buf<'_>, mut a: usize, e: usize) -> bool {
    let mut tmp = [0u8; 64];
    while a < e {
        let n = (e - a).min(tmp.len());
        match buf.bytes().get(a..a + n) {
            Some(b) => tmp[..n].copy_from_slice(b),
            None => return false,
        }
        if !buf.push(&tmp[..n]) {
            return false;
        }
        a += n;
    }
    true
}

/// Moves `buf[from..]` down to `to` (`to <= from`) and drops what followed.
fn move_down(buf: &mut Buf<'_>, from: usize, to: usize) {
    let end = buf.len();
    let mut tmp = [0u8; 64];
    let mut k = 0;
    while from + k < end {
        let n = (end - from - k).min(tmp.len());
        if let Some(b) = buf.bytes().get(from + k..from + k + n) {
            tmp[..n].copy_from_slice(b);
        }
        buf.write_at(to + k, &tmp[..n]);
        k += n;
    }
    buf.truncate(to + (end - from));
}

/// The named entity at the start of `b`, if any.
fn entity(b: &[u8]) -> Option<&'static (&'static [u8], &'static str, u8)> {
    ENTITIES.iter().find(|e| b.starts_with(e.0))
}

/// Appends `buf[a..e]` as JSON string contents (escaped), decoding entities if `decode`.
fn push_escaped(buf: &mut Buf<'_>, a: usize, e: usize, decode: bool) -> bool {
    let mut i = a;
    while i < e {
        let Some(rest) = buf.bytes().get(i..e) else {
            return false;
        };
        let run = rest
            .iter()
            .position(|&b| (decode && b == b'&') || escape_byte(b).is_some())
            .unwrap_or(rest.len());
        if run > 0 {
            if !copy(buf, i, i + run) {
                return false;
            }
            i += run;
            continue;
        }
        let b = rest[0];
        let (text, len) = match entity(rest).filter(|_| decode) {
            Some(ent) => (ent.1, ent.0.len()),
            None => (escape_byte(b).unwrap_or("&"), 1),
        };
        if !buf.push(text.as_bytes()) {
            return false;
        }
        i += len;
    }
    true
}

/// Appends `"…"`: `buf[a..e]` as a JSON string.
fn push_string(buf: &mut Buf<'_>, a: usize, e: usize, decode: bool) -> bool {
    buf.push(b"\"") && push_escaped(buf, a, e, decode) && buf.push(b"\"")
}

/// Appends the compact form of the valid JSON `buf[a..e]`.
fn push_compact(buf: &mut Buf<'_>, a: usize, e: usize) -> bool {
    let mut pos = a;
    loop {
        let (x, y) = compact_piece(buf.bytes(), pos, e);
        if x >= y {
            return true;
        }
        if !copy(buf, x, y) {
            return false;
        }
        pos = y;
    }
}

/// The trimmed text of `buf[a..e]` with entities decoded: the range itself when it has no
/// `&`, else a decoded copy appended as scratch. Returns `(start, end, scratch_from)`.
fn text_of(
    buf: &mut Buf<'_>,
    a: usize,
    e: usize,
    decode: bool,
) -> Option<(usize, usize, Option<usize>)> {
    let (x, y) = trim(buf.bytes().get(a..e)?);
    let (x, y) = (a + x, a + y);
    if !decode || !buf.bytes().get(x..y)?.contains(&b'&') {
        return Some((x, y, None));
    }
    let mark = buf.len();
    let mut i = x;
    while i < y {
        let rest = buf.bytes().get(i..y)?;
        let run = rest.iter().position(|&b| b == b'&').unwrap_or(rest.len());
        if run > 0 {
            copy(buf, i, i + run).then_some(())?;
            i += run;
            continue;
        }
        let (byte, len) = entity(rest).map_or((b'&', 1), |e| (e.2, e.0.len()));
        buf.push(&[byte]).then_some(())?;
        i += len;
    }
    Some((mark, buf.len(), Some(mark)))
}

/// Appends the JSON for the trimmed text `t = buf[x..y]` (already decoded) typed as `ty`.
fn push_typed(buf: &mut Buf<'_>, x: usize, y: usize, ty: ValueType) -> bool {
    let t = buf.bytes().get(x..y).unwrap_or(&[]);
    match typed(ty, t) {
        Typed::Json => push_compact(buf, x, y),
        Typed::Literal(l) => buf.push(l.as_bytes()),
        Typed::Str => push_string(buf, x, y, false),
    }
}

/// Whether text starting with `b` (trimmed, maybe an entity) could be a JSON value or a
/// boolean in any case; text that cannot is written as a string without a decoded copy.
fn may_be_json(b: Option<u8>) -> bool {
    matches!(
        b,
        Some(b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n' | b'T' | b'F' | b'&')
    )
}

/// Runs `f` on the decoded, trimmed text of `buf[a..e]`, then drops any scratch space.
fn with_text(
    buf: &mut Buf<'_>,
    a: usize,
    e: usize,
    decode: bool,
    f: impl FnOnce(&mut Buf<'_>, usize, usize) -> bool,
) -> bool {
    let Some((x, y, scratch)) = text_of(buf, a, e, decode) else {
        return false;
    };
    let out = buf.len();
    if !f(buf, x, y) {
        return false;
    }
    if let Some(mark) = scratch {
        move_down(buf, out, mark);
    }
    true
}

/// The child elements of `buf[a..e]`, read with the same tag rules as the stream.
#[derive(Clone, Copy)]
struct Children {
    pos: usize,
    end: usize,
}

/// One child element: its name and content ranges.
#[derive(Clone, Copy)]
struct Child {
    name: (usize, usize),
    content: (usize, usize),
}

impl Children {
    fn new(a: usize, e: usize) -> Children {
        Children { pos: a, end: e }
    }

    /// The next child; `Some(None)` when there are no more; `None` when the content is not
    /// made of elements only.
    fn next(&mut self, src: &[u8]) -> Option<Option<Child>> {
        let src = src.get(..self.end)?;
        self.pos += ws_prefix(src.get(self.pos..)?);
        if self.pos >= self.end {
            return Some(None);
        }
        let TagLex::Match(open) = tag::lex(&ANY, src.get(self.pos..)?, true) else {
            return None;
        };
        if open.closing {
            return None;
        }
        let at = self.pos;
        let name = (at + 1, at + open.name_end);
        let body = at + open.len;
        if open.self_closing {
            self.pos = body;
            return Some(Some(Child {
                name,
                content: (body, body),
            }));
        }
        let mut depth = 1usize;
        let mut j = body;
        loop {
            let k = j + memchr::memchr(b'<', src.get(j..)?)?;
            match tag::lex(&ANY, &src[k..], true) {
                TagLex::Match(t) if t.closing => {
                    depth -= 1;
                    if depth == 0 {
                        let closer = &src[k + 2..k + t.name_end];
                        if closer != &src[name.0..name.1] {
                            return None;
                        }
                        self.pos = k + t.len;
                        return Some(Some(Child {
                            name,
                            content: (body, k),
                        }));
                    }
                    j = k + t.len;
                }
                TagLex::Match(t) => {
                    if !t.self_closing {
                        depth += 1;
                    }
                    j = k + t.len;
                }
                _ => j = k + 1,
            }
        }
    }

    /// Whether the content is elements only, at least one, all named `only` if given.
    fn all(mut self, src: &[u8], only: Option<&[u8]>) -> bool {
        let mut any = false;
        loop {
            match self.next(src) {
                None => return false,
                Some(None) => return any,
                Some(Some(c)) => {
                    if only.is_some_and(|o| src.get(c.name.0..c.name.1) != Some(o)) {
                        return false;
                    }
                    any = true;
                }
            }
        }
    }
}

/// Appends the JSON value of the held content `buf[a..e]` as type `ty` (`items`: the items'
/// type of an array). `nest`: how deep in nested elements this content is; `decode`: the
/// five named entities are decoded (morph-xml; minimax-m3 writes none).
pub(crate) fn convert(
    buf: &mut Buf<'_>,
    a: usize,
    e: usize,
    ty: ValueType,
    items_ty: ValueType,
    nest: usize,
    decode: bool,
) -> bool {
    let structured = nest < MAX_NEST;
    match ty {
        ValueType::String => push_string(buf, a, e, decode),
        ValueType::Array => {
            buf.push(b"[") && items(buf, a, e, items_ty, nest, decode).is_some() && buf.push(b"]")
        }
        ValueType::Object | ValueType::Any
            if structured && Children::new(a, e).all(buf.bytes(), None) =>
        {
            object(buf, a, e, nest, decode)
        }
        ValueType::Object => with_text(buf, a, e, decode, |buf, x, y| {
            if x == y {
                buf.push(b"{}")
            } else {
                push_typed(buf, x, y, ValueType::Object)
            }
        }),
        _ => {
            let (x, y) = trim(buf.bytes().get(a..e).unwrap_or(&[]));
            if x < y && !may_be_json(buf.bytes().get(a + x).copied()) {
                // Entities never decode to whitespace: trimming first is the same.
                return push_string(buf, a + x, a + y, decode);
            }
            with_text(buf, a, e, decode, |buf, x, y| push_typed(buf, x, y, ty))
        }
    }
}

/// Appends the items (comma-separated, no brackets) of array content `buf[a..e]`; returns
/// how many (0 or more), `None` on overflow.
pub(crate) fn items(
    buf: &mut Buf<'_>,
    a: usize,
    e: usize,
    items_ty: ValueType,
    nest: usize,
    decode: bool,
) -> Option<usize> {
    let mut count = 0usize;
    // JSON array text: its items, as written.
    let mut json = false;
    let ok = with_text(buf, a, e, decode, |buf, x, y| {
        let t = buf.bytes().get(x..y).unwrap_or(&[]);
        if x == y {
            json = true;
            return true;
        }
        if typed(ValueType::Array, t) != Typed::Json {
            return true;
        }
        json = true;
        let before = buf.len();
        // The compact form minus its brackets.
        if !push_compact(buf, x + 1, y - 1) {
            return false;
        }
        count = usize::from(buf.len() > before);
        true
    });
    if !ok {
        return None;
    }
    if json {
        return Some(count);
    }
    let structured = nest < MAX_NEST;
    if structured && Children::new(a, e).all(buf.bytes(), Some(b"item")) {
        let mut kids = Children::new(a, e);
        while let Some(Some(c)) = kids.next(buf.bytes()) {
            if count > 0 && !buf.push(b",") {
                return None;
            }
            let (ca, ce) = c.content;
            convert(buf, ca, ce, items_ty, ValueType::Any, nest + 1, decode).then_some(())?;
            count += 1;
        }
        return Some(count);
    }
    convert(buf, a, e, items_ty, ValueType::Any, nest + 1, decode).then_some(1)
}

/// Appends an object made of the child elements of `buf[a..e]` (consecutive repeats →
/// arrays), each child typed by the untyped rules.
fn object(buf: &mut Buf<'_>, a: usize, e: usize, nest: usize, decode: bool) -> bool {
    if !buf.push(b"{") {
        return false;
    }
    let mut kids = Children::new(a, e);
    let mut first = true;
    while let Some(Some(c)) = kids.next(buf.bytes()) {
        // How many consecutive siblings share this name.
        let mut run = 1;
        let mut peek = kids;
        while let Some(Some(d)) = peek.next(buf.bytes()) {
            let same = {
                let b = buf.bytes();
                b.get(d.name.0..d.name.1) == b.get(c.name.0..c.name.1)
            };
            if !same {
                break;
            }
            run += 1;
        }
        let sep: &[u8] = if first { b"\"" } else { b",\"" };
        first = false;
        if !(buf.push(sep) && copy(buf, c.name.0, c.name.1) && buf.push(b"\":")) {
            return false;
        }
        if run > 1 && !buf.push(b"[") {
            return false;
        }
        let mut child = c;
        for k in 0..run {
            if k > 0 {
                match kids.next(buf.bytes()) {
                    Some(Some(d)) => child = d,
                    _ => return false,
                }
                if !buf.push(b",") {
                    return false;
                }
            }
            let (ca, ce) = child.content;
            if !convert(
                buf,
                ca,
                ce,
                ValueType::Any,
                ValueType::Any,
                nest + 1,
                decode,
            ) {
                return false;
            }
        }
        if run > 1 && !buf.push(b"]") {
            return false;
        }
    }
    buf.push(b"}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Converts `src` as `ty` and hands the JSON to `f` (no `std` needed).
    fn with_conv<R>(src: &str, ty: ValueType, items_ty: ValueType, f: impl FnOnce(&str) -> R) -> R {
        let mut mem = [0u8; 1024];
        let mut buf = Buf::slice(&mut mem);
        assert!(buf.push(src.as_bytes()));
        let n = buf.len();
        assert!(convert(&mut buf, 0, n, ty, items_ty, 0, true));
        f(core::str::from_utf8(&buf.bytes()[n..]).unwrap())
    }

    fn conv_is(src: &str, ty: ValueType, items_ty: ValueType, want: &str) {
        with_conv(src, ty, items_ty, |got| {
            assert_eq!(got, want, "{src:?} as {ty:?}")
        });
    }

    use ValueType::{Any, Array, Boolean, Integer, Null, Number, Object};
    const STRING: ValueType = ValueType::String;

    #[test]
    fn scalars_are_trimmed_decoded_and_coerced() {
        conv_is(" 7 ", Integer, Any, "7");
        conv_is("1 &lt; 2", Integer, Any, "\"1 < 2\"");
        conv_is("\nTRUE\n", Boolean, Any, "true");
        conv_is("0.50", Number, Any, "0.50");
        conv_is("null", Null, Any, "null");
        conv_is(" a &amp; b ", Any, Any, "\"a & b\"");
        conv_is("12345678901234567890", Any, Any, "\"12345678901234567890\"");
        conv_is(" [1, 2] ", Any, Any, "[1,2]");
        conv_is("", Any, Any, "\"\"");
        conv_is(" x\"y ", STRING, Any, "\" x\\\"y \"");
    }

    #[test]
    fn arrays_from_json_items_or_one_item() {
        conv_is("[1, 2, 3]", Array, Integer, "[1,2,3]");
        conv_is("[ ]", Array, Integer, "[]");
        conv_is("", Array, Integer, "[]");
        conv_is(
            "\n<item>0.5</item>\n<item> 2 </item>\n",
            Array,
            Number,
            "[0.5,2]",
        );
        conv_is("<item> a </item><item/>", Array, STRING, "[\" a \",\"\"]");
        conv_is("solo", Array, STRING, "[\"solo\"]");
        conv_is("5", Array, Integer, "[5]");
        conv_is("<item><a>1</a></item>", Array, Object, "[{\"a\":1}]");
    }

    #[test]
    fn objects_from_json_or_nested_elements() {
        conv_is(" {\"a\": [1, 2]} ", Object, Any, "{\"a\":[1,2]}");
        conv_is("{&quot;a&quot;: 1}", Object, Any, "{\"a\":1}");
        conv_is("", Object, Any, "{}");
        conv_is(
            "<a>1</a><b><c>x</c><c>y</c></b><d/>",
            Object,
            Any,
            "{\"a\":1,\"b\":{\"c\":[\"x\",\"y\"]},\"d\":\"\"}",
        );
        conv_is("<a>1</a> tail", Object, Any, "\"<a>1</a> tail\"");
        conv_is("<a>1</b>", Object, Any, "\"<a>1</b>\"");
        conv_is("<a><a>1</a></a>", Any, Any, "{\"a\":{\"a\":1}}");
        conv_is("text", Object, Any, "\"text\"");
    }

    #[test]
    fn deep_nesting_degrades_to_text() {
        let mut mem = [0u8; 256];
        let mut n = 0;
        for part in [&b"<a>"[..]; MAX_NEST + 2]
            .iter()
            .chain(&[&b"x"[..]])
            .chain(&[&b"</a>"[..]; MAX_NEST + 2])
        {
            mem[n..n + part.len()].copy_from_slice(part);
            n += part.len();
        }
        let deep = core::str::from_utf8(&mem[..n]).unwrap();
        with_conv(deep, Object, Any, |out| {
            let inner = "\"<a><a>x</a></a>\"";
            assert!(out.starts_with("{\"a\":{") && out.contains(inner), "{out}");
            assert_eq!(out.matches('{').count(), MAX_NEST);
        });
    }

    #[test]
    fn overflow_fails_instead_of_panicking() {
        let mut mem = [0u8; 16];
        let mut buf = Buf::slice(&mut mem);
        assert!(buf.push(b"<a>1</a><b>2</b>"));
        assert!(!convert(&mut buf, 0, 16, Object, Any, 0, true));
    }
}
