//! Incremental recognition of one XML-ish tag at the start of a byte slice.
//!
//! `<name attr="v" attr2='w'>`, `</name >`, `<name/>`, and (for qwen3-coder) `<name=value>`.
//! The element name must belong to the context's [`Vocab`]; it may carry one of the
//! vocabulary's prefixes (`antml:`, `｜DSML｜`), or must where the vocabulary says so. The answer depends on the bytes only:
//! [`TagLex::Partial`] while more bytes could still complete a tag, so chunking never matters.

use super::{Names, Vocab};
use crate::spec::StrList;

/// Longest tag the scanner will hold back, in bytes; a longer one is text.
pub const TAG_CAP: usize = 128;

/// A recognised tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tag {
    /// Length of the whole tag in bytes, `<` to `>` inclusive.
    pub len: usize,
    /// Which element of the vocabulary (index into [`Vocab::names`]).
    pub element: u8,
    /// `</name>`.
    pub closing: bool,
    /// `<name/>`.
    pub self_closing: bool,
    /// Offset just after the element name (where attributes or `=value` start).
    pub name_end: usize,
    /// For `<name=value>`: the value's range (possibly empty).
    pub eq_value: Option<(usize, usize)>,
}

impl Tag {
    /// The element name as written (its prefix included), given the tag's bytes.
    ///
    pub fn name<'t>(&self, tag: &'t [u8]) -> &'t [u8] {
        let start = if self.closing { 2 } else { 1 };
        tag.get(start..self.name_end).unwrap_or(&[])
    }
}

/// The outcome of lexing a tag at the start of a slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TagLex {
    /// A complete tag of the vocabulary.
    Match(Tag),
    /// Could still become one with more bytes.
    Partial,
    /// Not a tag of the vocabulary: the `<` is text.
    Fail,
}

fn is_name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':')
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// What a (possibly partial) element name can still be.
enum NameFit {
    Exact(u8),
    Prefix,
    None,
}

/// What `rest` (the bytes after `<` or `</`) makes of the vocabulary's prefixes: the length
/// of the prefix that comes first (0: none, where none is required), or what the tag is when
/// the bytes end inside a prefix (`partial`) or lack a required one (`Fail`).
#[inline]
fn prefix_len(v: &Vocab<'_>, rest: &[u8], partial: TagLex) -> Result<usize, TagLex> {
    fn first<T: AsRef<str>>(prefixes: &[T], rest: &[u8]) -> Result<usize, bool> {
        let mut cut = false;
        for p in prefixes.iter().map(|p| p.as_ref().as_bytes()) {
            if rest.starts_with(p) {
                return Ok(p.len());
            }
            cut |= p.starts_with(rest);
        }
        Err(cut)
    }
    let found = match v.prefixes {
        StrList::Strs([]) => Err(false),
        StrList::Strs(p) => first(p, rest),
        #[cfg(feature = "alloc")]
        StrList::Owned(p) => first(p, rest),
    };
    match (found, v.prefix_required) {
        (Ok(n), _) => Ok(n),
        (Err(true), _) => Err(partial),
        (Err(false), true) => Err(TagLex::Fail),
        (Err(false), false) => Ok(0),
    }
}

/// The first of `names` allowed by `allowed` (bit `i` for `names[i]`) that is `bare`, and
/// whether one of them begins with it.
#[inline]
fn find<T: AsRef<str>>(names: &[T], allowed: u32, bare: &[u8], prefix: &mut bool) -> Option<u8> {
    for (i, el) in names.iter().enumerate() {
        if allowed & (1 << i) == 0 {
            continue;
        }
        let el = el.as_ref().as_bytes();
        if el == bare {
            return Some(i as u8);
        }
        *prefix |= el.starts_with(bare);
    }
    None
}

fn fit(v: &Vocab<'_>, bare: &[u8], closing: bool) -> NameFit {
    let allowed = if closing { v.close } else { v.open };
    let mut prefix = false;
    let exact = match v.names {
        StrList::Strs(names) => find(names, allowed, bare, &mut prefix),
        #[cfg(feature = "alloc")]
        StrList::Owned(names) => find(names, allowed, bare, &mut prefix),
    };
    if let Some(i) = exact {
        return NameFit::Exact(i);
    }
    if !v.extra.is_empty() && allowed & (1 << super::EXTRA) != 0 {
        if v.extra == bare {
            return NameFit::Exact(super::EXTRA);
        }
        prefix |= v.extra.starts_with(bare);
    }
    if allowed & (1 << super::DYNAMIC) != 0 {
        match v.dynamic {
            Names::None => {}
            Names::Tools(tools) => {
                for el in (0..tools.len()).filter_map(|i| tools.name(i)) {
                    let el = el.as_bytes();
                    if el == bare {
                        return NameFit::Exact(super::DYNAMIC);
                    }
                    if el.starts_with(bare) {
                        prefix = true;
                    }
                }
            }
            Names::Any => match bare.first() {
                // An empty name can still become one; a complete empty name is no name.
                None => prefix = true,
                Some(&b) if b.is_ascii_alphabetic() || b == b'_' => {
                    return NameFit::Exact(super::DYNAMIC);
                }
                Some(_) => {}
            },
        }
    }
    if prefix {
        NameFit::Prefix
    } else {
        NameFit::None
    }
}

/// Lexes a tag at the start of `d` (which starts with `<`). With `eof`, a partial tag fails.
pub fn lex(v: &Vocab<'_>, d: &[u8], eof: bool) -> TagLex {
    let partial = if eof { TagLex::Fail } else { TagLex::Partial };
    let limit = d.len().min(TAG_CAP);
    let d = &d[..limit];
    let truncated = limit == TAG_CAP;
    let partial = if truncated { TagLex::Fail } else { partial };
    if d.len() == 1 {
        // A lone `<` may still become an opening or a closing tag.
        return partial;
    }
    let mut i = 1;
    let closing = d.get(1) == Some(&b'/');
    if closing {
        i = 2;
    }
    match prefix_len(v, &d[i..], partial) {
        Ok(n) => i += n,
        Err(outcome) => return outcome,
    }
    let name_start = i;
    while i < d.len() && is_name_char(d[i]) {
        i += 1;
    }
    let name = &d[name_start..i];
    if i == d.len() {
        return match fit(v, name, closing) {
            NameFit::None => TagLex::Fail,
            _ => partial,
        };
    }
    let element = match fit(v, name, closing) {
        NameFit::Exact(e) => e,
        _ => return TagLex::Fail,
    };
    let name_end = i;
    let done = |len: usize, self_closing: bool, eq_value: Option<(usize, usize)>| {
        TagLex::Match(Tag {
            len,
            element,
            closing,
            self_closing,
            name_end,
            eq_value,
        })
    };
    if closing {
        while i < d.len() && is_ws(d[i]) {
            i += 1;
        }
        return match d.get(i) {
            None => partial,
            Some(b'>') => done(i + 1, false, None),
            Some(_) => TagLex::Fail,
        };
    }
    if d[i] == b'=' {
        if v.eq_form & (1 << element) == 0 {
            return TagLex::Fail;
        }
        let start = i + 1;
        i = start;
        while i < d.len() && !matches!(d[i], b'>' | b'<' | b'\n') {
            i += 1;
        }
        return match d.get(i) {
            None => partial,
            Some(b'>') => done(i + 1, false, Some((start, i))),
            Some(_) => TagLex::Fail,
        };
    }
    if !(v.attrs || d[i] == b'>' || d[i] == b'/' || is_ws(d[i])) {
        return TagLex::Fail;
    }
    loop {
        // Here d[i] follows the name or a complete attribute.
        let ws_start = i;
        while i < d.len() && is_ws(d[i]) {
            i += 1;
        }
        let Some(&b) = d.get(i) else { return partial };
        match b {
            b'>' => return done(i + 1, false, None),
            b'/' => {
                return match d.get(i + 1) {
                    None => partial,
                    Some(b'>') => done(i + 2, true, None),
                    Some(_) => TagLex::Fail,
                };
            }
            _ if i > ws_start && v.attrs && (b.is_ascii_alphabetic() || b == b'_') => {
                match attribute(d, i, partial) {
                    Ok(next) => i = next,
                    Err(outcome) => return outcome,
                }
            }
            _ => return TagLex::Fail,
        }
    }
}

/// Reads one `name="value"` (or `'value'`) attribute starting at `d[i]`, the first byte of
/// its name: the index after it (where whitespace, `>` or `/` follows), or what the tag is
/// when it cannot go on (`partial`: the data ends inside it; `Fail`: not an attribute).
#[inline]
fn attribute(d: &[u8], mut i: usize, partial: TagLex) -> Result<usize, TagLex> {
    while i < d.len() && is_name_char(d[i]) {
        i += 1;
    }
    match d.get(i) {
        None => return Err(partial),
        Some(b'=') => i += 1,
        Some(_) => return Err(TagLex::Fail),
    }
    let Some(&quote) = d.get(i) else {
        return Err(partial);
    };
    if quote != b'"' && quote != b'\'' {
        return Err(TagLex::Fail);
    }
    i += 1;
    while i < d.len() && d[i] != quote && d[i] != b'<' {
        i += 1;
    }
    match d.get(i) {
        None => return Err(partial),
        Some(&c) if c == quote => i += 1,
        Some(_) => return Err(TagLex::Fail),
    }
    match d.get(i) {
        None => Err(partial),
        Some(&c) if c == b'>' || c == b'/' || is_ws(c) => Ok(i),
        Some(_) => Err(TagLex::Fail),
    }
}

/// The value of attribute `key` in a recognised tag's bytes (`tag` = the whole tag).
///
pub fn attr<'t>(tag: &'t [u8], name_end: usize, key: &[u8]) -> Option<&'t [u8]> {
    let mut i = name_end;
    let d = tag;
    loop {
        while i < d.len() && is_ws(d[i]) {
            i += 1;
        }
        let start = i;
        while i < d.len() && is_name_char(d[i]) {
            i += 1;
        }
        if i == start || d.get(i) != Some(&b'=') {
            return None;
        }
        let this = &d[start..i];
        i += 1;
        let quote = *d.get(i)?;
        i += 1;
        let vstart = i;
        while i < d.len() && d[i] != quote {
            i += 1;
        }
        let value = d.get(vstart..i)?;
        if this == key {
            return Some(value);
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: StrList<'static> = StrList::Strs(&["thinking", "function_calls", "invoke"]);

    fn vocab() -> Vocab<'static> {
        Vocab {
            names: NAMES,
            open: 0b111,
            close: 0b001,
            attrs: true,
            prefixes: StrList::Strs(&["antml:"]),
            ..Vocab::EMPTY
        }
    }

    #[test]
    fn partial_and_fail_follow_the_bytes() {
        let v = vocab();
        assert_eq!(lex(&v, b"<", false), TagLex::Partial);
        assert_eq!(lex(&v, b"<t", false), TagLex::Partial);
        assert_eq!(lex(&v, b"<b", false), TagLex::Fail);
        assert_eq!(lex(&v, b"<thinking about it>", false), TagLex::Fail);
        assert_eq!(lex(&v, b"<thinking about", false), TagLex::Partial);
        assert_eq!(lex(&v, b"<thinking about ", false), TagLex::Fail);
        assert_eq!(lex(&v, b"<thinkingX>", false), TagLex::Fail);
        assert_eq!(lex(&v, b"<Thinking>", false), TagLex::Fail);
        assert_eq!(lex(&v, b"</invoke>", false), TagLex::Fail);
        assert_eq!(lex(&v, b"<thin", true), TagLex::Fail);
        assert!(
            matches!(lex(&v, b"</thinking >", false), TagLex::Match(t) if t.closing && t.len == 12)
        );
        assert!(
            matches!(lex(&v, b"<thinking mode='fast'>x", false), TagLex::Match(t) if t.len == 22)
        );
        assert!(
            matches!(lex(&v, b"<invoke name=\"a\">", false), TagLex::Match(t) if t.element == 2)
        );
        assert_eq!(lex(&v, b"<antml", false), TagLex::Partial);
        assert_eq!(lex(&v, b"<x", false), TagLex::Fail);
        assert_eq!(lex(&v, b"<invoke name=\"a<b\">", false), TagLex::Fail);
    }

    #[test]
    fn a_lone_lt_waits_when_only_closers_are_allowed() {
        let v = Vocab {
            names: NAMES,
            close: 0b001,
            ..Vocab::EMPTY
        };
        assert_eq!(lex(&v, b"<", false), TagLex::Partial);
        assert_eq!(lex(&v, b"<", true), TagLex::Fail);
        assert_eq!(lex(&v, b"</", false), TagLex::Partial);
        assert_eq!(lex(&v, b"<t", false), TagLex::Fail);
        assert!(matches!(lex(&v, b"</thinking>", false), TagLex::Match(t) if t.closing));
    }

    #[test]
    fn prefixes_are_optional_or_required() {
        let v = vocab();
        assert!(
            matches!(lex(&v, b"<invoke name=\"a\">", false), TagLex::Match(t) if t.element == 2 && t.name_end == 7)
        );
        assert!(
            matches!(lex(&v, b"<antml:invoke name=\"a\">", false), TagLex::Match(t) if t.element == 2 && t.name_end == 13)
        );
        assert!(matches!(lex(&v, b"</thinking>", false), TagLex::Match(t) if t.closing));
        assert_eq!(lex(&v, b"<", false), TagLex::Partial);
        assert_eq!(lex(&v, b"<inv", true), TagLex::Fail);
        assert_eq!(lex(&v, b"<antmlx>", false), TagLex::Fail);
        let dsml = Vocab {
            prefixes: StrList::Strs(&["｜DSML｜", "|DSML|"]),
            prefix_required: true,
            ..v
        };
        assert_eq!(lex(&dsml, "<｜DS".as_bytes(), false), TagLex::Partial);
        assert_eq!(lex(&dsml, b"</|DS", false), TagLex::Partial);
        assert_eq!(lex(&dsml, b"<invoke name=\"a\">", false), TagLex::Fail);
        assert_eq!(lex(&dsml, "<｜tool▁sep｜>".as_bytes(), false), TagLex::Fail);
        assert!(
            matches!(lex(&dsml, "<｜DSML｜invoke name=\"a\">".as_bytes(), false), TagLex::Match(t) if t.element == 2)
        );
        assert!(
            matches!(lex(&dsml, b"</|DSML|thinking>", false), TagLex::Match(t) if t.closing && t.element == 0)
        );
    }

    #[test]
    fn over_long_tags_are_text() {
        let v = vocab();
        let mut long = b"<invoke name=\"".to_vec();
        long.resize(TAG_CAP + 10, b'a');
        assert_eq!(lex(&v, &long, false), TagLex::Fail);
        assert_eq!(lex(&v, &long[..TAG_CAP - 1], false), TagLex::Partial);
    }
}
