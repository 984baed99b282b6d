//! Byte-level machinery shared by every dialect.
//!
//! A dialect describes what may appear in its current context as a [`Vocab`] (element names,
//! literal markers, whether stop sequences apply); [`decide`] then says what the bytes at the
//! head of the unread input are: text, an invalid UTF-8 sequence, a marker, a stop sequence,
//! or "need more" — the last only while a longer input could still change the answer
//! (a partial tag, a partial stop sequence, an unfinished UTF-8 character).
//!
//! `decide` is a pure function of the bytes it is shown. The driver shows it the held-back
//! bytes followed by as much new input as fits, so the decision never depends on where the
//! chunk edges fell: this is what makes the parser chunk-invariant (docs/design.md rule 4).

pub mod stop;
pub mod tag;

use crate::config::{StrList, ToolList};
pub use tag::{TAG_CAP, Tag};

/// What a dialect recognises in its current context.
#[derive(Clone, Copy, Debug)]
pub struct Vocab<'v> {
    /// Element names (without their prefix); bit `i` of `open`/`close` refers to `names[i]`.
    pub names: StrList<'v>,
    /// One more element name, from the configuration (bit [`EXTRA`] of `open`/`close`).
    pub extra: &'v [u8],
    /// Elements that may open here.
    pub open: u32,
    /// Elements that may close here.
    pub close: u32,
    /// Elements whose opening tag may take the `<name=value>` form.
    pub eq_form: u32,
    /// Whether opening tags may carry `key="value"` attributes.
    pub attrs: bool,
    /// Prefixes an element name may carry, written between `<` (or `</`) and the name
    /// (`antml:`, `｜DSML｜`): one of them, or none unless `prefix_required`.
    pub prefixes: StrList<'v>,
    /// Element names must carry one of `prefixes`.
    pub prefix_required: bool,
    /// Exact markers recognised here (the first `n_literals`).
    pub literals: [&'v [u8]; MAX_LITERALS],
    /// Texts one of which must follow (after optional whitespace) the literals marked in
    /// `follow_mask` for them to count; one set per vocabulary (a single pointer keeps the
    /// vocabulary, built for every decision, small).
    pub follows: &'v [&'v [u8]],
    /// Bit `i`: literal `i` counts only before one of `follows` (or, when set, where
    /// `follow_test` says so).
    pub follow_mask: u8,
    /// A test of the bytes after the literals marked in `follow_mask`, used instead of
    /// `follows` when set (see [`Vocab::with_literal_when`]).
    pub follow_test: Option<FollowTest>,
    /// How many of `literals` are in use.
    pub n_literals: usize,
    /// Element names decided at run time (bit [`DYNAMIC`] of `open`/`close`).
    pub dynamic: Names<'v>,
    /// Stop sequences that apply here.
    pub stops: StrList<'v>,
}

/// What the bytes after a literal marker make of it (see [`Vocab::with_literal_when`]):
/// `Some(true)` it counts, `Some(false)` it is text, `None` more bytes could tell. `rest` is
/// what follows the literal, at most up to [`TAG_CAP`] bytes from the literal's start; `eof`:
/// no more bytes will come; `vocab` is the vocabulary the literal belongs to (its element
/// names let a test read the markers of a described dialect).
pub type FollowTest = fn(rest: &[u8], vocab: &Vocab<'_>, eof: bool) -> Option<bool>;

/// How many literal markers a [`Vocab`] holds.
pub const MAX_LITERALS: usize = 8;

/// Other spellings of two literal markers — a configuration's alternative `thinking_tags`,
/// `[open, close, open, close…]` — matched beside a context's vocabulary ([`decide_alt`],
/// [`special_bytes_alt`]): an opener spelling matches as the literal equal to `open`, a
/// closer spelling as the one equal to `close`, so a dialect sees one marker however it was
/// spelled. Exact matches, without look-ahead. Kept out of [`Vocab`], which is built for
/// every decision: a configuration without other spellings pays nothing for them.
#[derive(Clone, Copy, Debug)]
pub struct Alt<'a> {
    /// The other spellings, flattened `[open, close, …]`.
    pub spellings: StrList<'a>,
    /// The opener in force (a literal of the contexts where thinking opens).
    pub open: &'a [u8],
    /// The closer in force.
    pub close: &'a [u8],
}

impl<'a> Alt<'a> {
    /// No other spellings (what [`decide`] matches with).
    const NONE: Alt<'static> = Alt {
        spellings: StrList::Strs(&[]),
        open: &[],
        close: &[],
    };

    /// The other spellings that match in `v`, each with the literal index it is reported
    /// as: those of a marker in force that `v` has.
    fn in_vocab<'s>(&'s self, v: &'s Vocab<'_>) -> impl Iterator<Item = (&'a [u8], usize)> + 's {
        let find = |m: &[u8]| v.literals().iter().position(|l| !m.is_empty() && *l == m);
        let (open, close) = (find(self.open), find(self.close));
        (0..self.spellings.len()).filter_map(move |k| {
            let of = if k % 2 == 0 { open } else { close }?;
            Some((self.spellings.get(k)?.as_bytes(), of))
        })
    }
}

/// Element names known only at run time: bit [`DYNAMIC`] of [`Vocab::open`]/[`Vocab::close`].
/// A tag matched through them reports [`Tag::element`] `== DYNAMIC`; [`Tag::name`] gives the name.
#[derive(Clone, Copy, Debug)]
pub enum Names<'v> {
    /// No names.
    None,
    /// The configured tools' names (exact match: `get` never matches `get_weather`).
    Tools(ToolList<'v>),
    /// Any element name: an ASCII letter or `_`, then letters, digits, `_`, `-`, `.`, `:`.
    Any,
}

impl Vocab<'static> {
    /// Recognises nothing: every byte is text.
    pub const EMPTY: Vocab<'static> = Vocab {
        names: StrList::Strs(&[]),
        extra: &[],
        open: 0,
        close: 0,
        eq_form: 0,
        attrs: false,
        prefixes: StrList::Strs(&[]),
        prefix_required: false,
        literals: [&[]; MAX_LITERALS],
        follows: &[],
        follow_mask: 0,
        follow_test: None,
        n_literals: 0,
        dynamic: Names::None,
        stops: StrList::Strs(&[]),
    };
}

/// The bit of [`Vocab::open`]/[`Vocab::close`] that stands for [`Vocab::extra`].
pub const EXTRA: u8 = 31;

/// The bit of [`Vocab::open`]/[`Vocab::close`] that stands for [`Vocab::dynamic`].
pub const DYNAMIC: u8 = 30;

impl<'v> Vocab<'v> {
    fn has_elements(&self) -> bool {
        self.open | self.close != 0
    }

    /// The literal markers in use.
    pub fn literals(&self) -> &[&'v [u8]] {
        &self.literals[..self.n_literals.min(MAX_LITERALS)]
    }

    /// Adds a literal marker (at most [`MAX_LITERALS`]).
    ///
    /// The `with_*` builders take and return the vocabulary by value, for building one in an
    /// expression; the `add_*` ones change it in place, for building one step by step on the
    /// per-decision path (each by-value step copies the whole vocabulary).
    #[inline]
    pub fn with_literal(mut self, lit: &'v [u8]) -> Vocab<'v> {
        self.add_literal(lit);
        self
    }

    /// [`with_literal`](Vocab::with_literal) in place.
    #[inline]
    pub fn add_literal(&mut self, lit: &'v [u8]) {
        if self.n_literals < MAX_LITERALS {
            self.literals[self.n_literals] = lit;
            self.n_literals += 1;
        }
    }

    /// Adds a literal marker that counts only where `test` says so about the bytes after it
    /// (one test per vocabulary). As for [`with_literal_before`](Vocab::with_literal_before),
    /// the decision is a pure function of the bytes: [`Decision::NeedMore`] while `test` is
    /// undecided, text once it says no — or once the literal and what `test` looked at would
    /// exceed [`TAG_CAP`] bytes, or at the end of input, while it is still undecided.
    #[inline]
    pub fn with_literal_when(mut self, lit: &'v [u8], test: FollowTest) -> Vocab<'v> {
        self.add_literal_when(lit, test);
        self
    }

    /// [`with_literal_when`](Vocab::with_literal_when) in place.
    #[inline]
    pub fn add_literal_when(&mut self, lit: &'v [u8], test: FollowTest) {
        if self.n_literals < MAX_LITERALS {
            debug_assert!(self.follows.is_empty(), "one look-ahead per vocabulary");
            self.literals[self.n_literals] = lit;
            self.follow_test = Some(test);
            self.follow_mask |= 1 << self.n_literals;
            self.n_literals += 1;
        }
    }

    /// Adds a literal marker that counts only when, after optional ASCII whitespace, one of
    /// `follows` comes next (nothing is required when `follows` is empty). The decision
    /// stays a pure function of the bytes: [`Decision::NeedMore`] while the bytes after the
    /// literal could still lead to one of `follows`, text once they cannot (or at end of
    /// input). The literal, the whitespace and the followed text must fit in [`TAG_CAP`]
    /// bytes, else the literal is text. [`Decision::Literal`] covers the literal only.
    #[inline]
    pub fn with_literal_before(mut self, lit: &'v [u8], follows: &'v [&'v [u8]]) -> Vocab<'v> {
        self.add_literal_before(lit, follows);
        self
    }

    /// [`with_literal_before`](Vocab::with_literal_before) in place.
    #[inline]
    pub fn add_literal_before(&mut self, lit: &'v [u8], follows: &'v [&'v [u8]]) {
        if self.n_literals < MAX_LITERALS {
            self.literals[self.n_literals] = lit;
            if !follows.is_empty() {
                debug_assert!(
                    self.follow_mask == 0 || core::ptr::eq(self.follows, follows),
                    "one follows set per vocabulary"
                );
                debug_assert!(self.follow_test.is_none(), "one look-ahead per vocabulary");
                self.follows = follows;
                self.follow_mask |= 1 << self.n_literals;
            }
            self.n_literals += 1;
        }
    }
}

/// Whether the bytes after a literal (`rest`, starting `lit_len` bytes into the candidate)
/// are optional whitespace then one of `follows`: `Some(true)` yes, `Some(false)` no,
/// `None` undecided (more bytes could tell).
fn followed(rest: &[u8], lit_len: usize, follows: &[&[u8]], eof: bool) -> Option<bool> {
    if follows.is_empty() {
        return Some(true);
    }
    // Everything must be decided within TAG_CAP bytes of the candidate.
    let room = TAG_CAP.saturating_sub(lit_len);
    let cut = rest.len() > room;
    let rest = &rest[..rest.len().min(room)];
    let ws = rest
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .count();
    let r = &rest[ws..];
    let mut open = false;
    for f in follows {
        if r.len() >= f.len() {
            if r.starts_with(f) {
                return Some(true);
            }
        } else if f.starts_with(r) {
            open = true;
        }
    }
    if open && !eof && !cut && rest.len() < room {
        None
    } else {
        Some(false)
    }
}

/// [`followed`] for a [`FollowTest`]: the test sees at most the room [`TAG_CAP`] leaves after
/// the literal, and an answer still open at the end of input or of that room is no.
fn tested(test: FollowTest, v: &Vocab<'_>, rest: &[u8], lit_len: usize, eof: bool) -> Option<bool> {
    let room = TAG_CAP.saturating_sub(lit_len);
    let full = rest.len() >= room;
    match test(&rest[..rest.len().min(room)], v, eof) {
        None if eof || full => Some(false),
        r => r,
    }
}

/// What the head of the unread bytes is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// More bytes are needed to decide (never returned at end of input).
    NeedMore,
    /// The first `n` bytes are text: valid UTF-8, whole characters, no marker in them.
    Text(usize),
    /// The first `n` bytes are one maximal invalid UTF-8 sequence: emit U+FFFD.
    Invalid(usize),
    /// An element tag of the vocabulary.
    Element(Tag),
    /// Literal marker `index` of the vocabulary, `len` bytes.
    Literal {
        /// Index into [`Vocab::literals`].
        index: usize,
        /// Its length.
        len: usize,
    },
    /// Stop sequence `index` matched, `len` bytes.
    Stop {
        /// Index into [`Vocab::stops`].
        index: usize,
        /// Its length.
        len: usize,
    },
}

/// A set of bytes to search for, memchr-accelerated for up to three bytes.
struct ByteSet {
    few: [u8; 3],
    n: usize,
    bits: [u64; 4],
}

impl ByteSet {
    fn new() -> ByteSet {
        ByteSet {
            few: [0; 3],
            n: 0,
            bits: [0; 4],
        }
    }

    fn insert(&mut self, b: u8) {
        let (w, m) = ((b >> 6) as usize, 1u64 << (b & 63));
        if self.bits[w] & m != 0 {
            return;
        }
        self.bits[w] |= m;
        if self.n < 3 {
            self.few[self.n] = b;
        }
        self.n += 1;
    }

    fn contains(&self, b: u8) -> bool {
        self.bits[(b >> 6) as usize] & (1u64 << (b & 63)) != 0
    }

    fn find(&self, hay: &[u8]) -> Option<usize> {
        match self.n {
            0 => None,
            1 => memchr::memchr(self.few[0], hay),
            2 => memchr::memchr2(self.few[0], self.few[1], hay),
            3 => memchr::memchr3(self.few[0], self.few[1], self.few[2], hay),
            _ => hay.iter().position(|&b| self.contains(b)),
        }
    }
}

/// A candidate marker at some position.
enum Candidate {
    Element(Tag),
    Literal(usize, usize),
    Partial,
    Fail,
}

// Inlined into its two callers: the per-decision hot path (+1 % on anthropic-xml as a call).
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn candidate_at<const ALT: bool>(v: &Vocab<'_>, alt: &Alt<'_>, d: &[u8], eof: bool) -> Candidate {
    let mut partial = false;
    if d[0] == b'<' && v.has_elements() {
        match tag::lex(v, d, eof) {
            tag::TagLex::Match(t) => return Candidate::Element(t),
            tag::TagLex::Partial => partial = true,
            tag::TagLex::Fail => {}
        }
    }
    let mut best: Option<(usize, usize)> = None;
    for (i, lit) in v.literals().iter().enumerate() {
        if d.starts_with(lit) {
            let rest = &d[lit.len()..];
            let counts = match (v.follow_mask & (1 << i) != 0, v.follow_test) {
                (true, Some(test)) => tested(test, v, rest, lit.len(), eof),
                (true, None) => followed(rest, lit.len(), v.follows, eof),
                (false, _) => Some(true),
            };
            match counts {
                Some(true) if best.is_none_or(|(_, l)| lit.len() > l) => {
                    best = Some((i, lit.len()));
                }
                None => partial = true,
                _ => {}
            }
        } else if !eof && lit.starts_with(d) {
            partial = true;
        }
    }
    if ALT {
        for (lit, of) in alt.in_vocab(v) {
            if d.starts_with(lit) {
                if best.is_none_or(|(_, l)| lit.len() > l) {
                    best = Some((of, lit.len()));
                }
            } else if !eof && lit.starts_with(d) {
                partial = true;
            }
        }
    }
    match (best, partial) {
        (Some((i, len)), _) => Candidate::Literal(i, len),
        (None, true) => Candidate::Partial,
        (None, false) => Candidate::Fail,
    }
}

/// The bytes that can start anything but text in context `v` (a tag, a literal marker, a
/// stop sequence), when there are at most three of them: a chunk holding none of them is
/// text through and through, and the driver can skip [`decide`] for it.
pub fn special_bytes(v: &Vocab<'_>) -> Option<([u8; 3], u8)> {
    special_bytes_in::<false>(v, &Alt::NONE)
}

/// [`special_bytes`] with other spellings of its literals ([`Alt`]).
pub fn special_bytes_alt(v: &Vocab<'_>, alt: &Alt<'_>) -> Option<([u8; 3], u8)> {
    special_bytes_in::<true>(v, alt)
}

fn special_bytes_in<const ALT: bool>(v: &Vocab<'_>, alt: &Alt<'_>) -> Option<([u8; 3], u8)> {
    let mut set = marker_starts::<ALT>(v, alt);
    for stop in v.stops.iter() {
        if let Some(&b) = stop.as_bytes().first() {
            set.insert(b);
        }
    }
    (set.n <= 3).then_some((set.few, set.n as u8))
}

/// The first bytes of the markers of context `v` (`<` for its tags, its literals' first
/// bytes, with `ALT` the other spellings' of `alt`); stop sequences not included.
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn marker_starts<const ALT: bool>(v: &Vocab<'_>, alt: &Alt<'_>) -> ByteSet {
    let mut set = ByteSet::new();
    if v.has_elements() {
        set.insert(b'<');
    }
    for lit in v.literals() {
        if let Some(&b) = lit.first() {
            set.insert(b);
        }
    }
    if ALT {
        for (lit, _) in alt.in_vocab(v) {
            if let Some(&b) = lit.first() {
                set.insert(b);
            }
        }
    }
    set
}

/// Decides what the head of `data` is in context `v`. `eof`: no more bytes will come.
///
pub fn decide(v: &Vocab<'_>, data: &[u8], eof: bool) -> Decision {
    decide_in::<false>(v, &Alt::NONE, data, eof)
}

/// [`decide`] with other spellings of the vocabulary's literals ([`Alt`]).
pub fn decide_alt(v: &Vocab<'_>, alt: &Alt<'_>, data: &[u8], eof: bool) -> Decision {
    decide_in::<true>(v, alt, data, eof)
}

#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn decide_in<const ALT: bool>(v: &Vocab<'_>, alt: &Alt<'_>, data: &[u8], eof: bool) -> Decision {
    // Look at most DECIDE_SPAN bytes ahead: a dialect may consume a small part of a long
    // text run per decision (one JSON token), so scanning the whole rest every time would
    // make a large chunk quadratic. The span holds any marker (TAG_CAP) whole, and what it
    // decides is a prefix of what the whole rest would decide.
    if data.len() > DECIDE_SPAN {
        let mut end = DECIDE_SPAN;
        while end > DECIDE_SPAN - 4 && data[end] & 0xC0 == 0x80 {
            end -= 1;
        }
        let d = decide_within::<ALT>(v, alt, &data[..end], false);
        if d != Decision::NeedMore {
            return d;
        }
    }
    decide_within::<ALT>(v, alt, data, eof)
}

/// How far [`decide`] looks ahead at most (a multiple of any marker's length).
pub const DECIDE_SPAN: usize = 512;

fn decide_within<const ALT: bool>(
    v: &Vocab<'_>,
    alt: &Alt<'_>,
    data: &[u8],
    eof: bool,
) -> Decision {
    if data.is_empty() {
        return Decision::NeedMore;
    }
    let starts = marker_starts::<ALT>(v, alt);
    // The first position holding a marker or a possible one; bytes before it are text.
    let mut pos = 0;
    let (t, cand) = loop {
        match starts.find(&data[pos..]) {
            None => break (data.len(), Candidate::Fail),
            Some(off) => {
                let p = pos + off;
                match candidate_at::<ALT>(v, alt, &data[p..], eof) {
                    Candidate::Fail => pos = p + 1,
                    c => break (p, c),
                }
            }
        }
    };
    let mut n = t;
    if !v.stops.is_empty() {
        let region = &data[..t];
        if let Some(m) = stop::earliest(v.stops, region) {
            if m.start == 0 {
                return Decision::Stop {
                    index: m.index,
                    len: m.len,
                };
            }
            return text(&data[..m.start], true, eof);
        }
        // Undecided bytes may continue a stop sequence through the held text.
        let undecided = t == data.len() || matches!(cand, Candidate::Partial);
        if undecided && !eof {
            n = t - stop::held_suffix(v.stops, region);
        }
    }
    if n > 0 {
        return text(&data[..n], n < data.len(), eof);
    }
    if t > 0 {
        return Decision::NeedMore;
    }
    match cand {
        Candidate::Element(tag) => Decision::Element(tag),
        Candidate::Literal(index, len) => Decision::Literal { index, len },
        Candidate::Partial => Decision::NeedMore,
        // t == 0 with a failed candidate cannot happen (a failure moves past the byte).
        Candidate::Fail => text(&data[..1], true, eof),
    }
}

/// Where a marker cut off by the end of the input begins in `data`, the rest of the input:
/// the first position from which the bytes to the end are the beginning of one of `v`'s
/// markers (a tag, a literal — with its look-ahead — of at most [`TAG_CAP`] bytes), which
/// more input could have completed. At the end of input [`decide`] reads such bytes as text
/// (rule 6); a dialect may still want to know that they began a closer — a model cut off by
/// `max_tokens` inside `</tool_call>` (docs/design.md, Clarifications, "Tool calls").
/// Stop sequences are not markers here.
///
/// Only the last [`TAG_CAP`] bytes are looked at, so the answer is the same for any window
/// that reaches the end of the input and holds them.
pub fn cut_marker(v: &Vocab<'_>, data: &[u8]) -> Option<usize> {
    let starts = marker_starts::<false>(v, &Alt::NONE);
    let mut pos = data.len().saturating_sub(TAG_CAP);
    while let Some(off) = starts.find(&data[pos..]) {
        let p = pos + off;
        // Read as if more input could come: a prefix of a marker is then undecided.
        if matches!(
            candidate_at::<false>(v, &Alt::NONE, &data[p..], false),
            Candidate::Partial
        ) {
            return Some(p);
        }
        pos = p + 1;
    }
    None
}

/// The text decision for `d`, which is text (no markers); `followed`: more bytes follow it,
/// and they cannot continue a UTF-8 character (they start a marker or stop sequence).
pub(crate) fn text(d: &[u8], followed: bool, eof: bool) -> Decision {
    match core::str::from_utf8(d) {
        Ok(_) => Decision::Text(d.len()),
        Err(e) if e.valid_up_to() > 0 => Decision::Text(e.valid_up_to()),
        Err(e) => match e.error_len() {
            Some(k) => Decision::Invalid(k),
            None if followed || eof => Decision::Invalid(d.len()),
            None => Decision::NeedMore,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_is_held_only_while_unfinished() {
        let v = Vocab::EMPTY;
        assert_eq!(decide(&v, "é".as_bytes(), false), Decision::Text(2));
        assert_eq!(decide(&v, b"a\xc3", false), Decision::Text(1));
        assert_eq!(decide(&v, b"\xc3", false), Decision::NeedMore);
        assert_eq!(decide(&v, b"\xc3", true), Decision::Invalid(1));
        assert_eq!(decide(&v, b"\xc3x", false), Decision::Invalid(1));
        assert_eq!(decide(&v, b"\xf0\x9f\x8e x", false), Decision::Invalid(3));
        assert_eq!(decide(&v, b"\xc0\xaf", false), Decision::Invalid(1));
    }

    #[test]
    fn literal_before_waits_for_its_follower() {
        let follows: &[&[u8]] = &[b"{", b"["];
        let v = Vocab::EMPTY
            .with_literal(b"<think>")
            .with_literal_before(b"<tool_call>", follows);
        let lit = Decision::Literal { index: 1, len: 11 };
        assert_eq!(decide(&v, b"<tool_call>{", false), lit);
        assert_eq!(decide(&v, b"<tool_call> \r\n\t[1]", false), lit);
        assert_eq!(decide(&v, b"<tool_call>", false), Decision::NeedMore);
        assert_eq!(decide(&v, b"<tool_call>\n\n", false), Decision::NeedMore);
        assert_eq!(decide(&v, b"<tool_call>\n\n", true), Decision::Text(13));
        assert_eq!(
            decide(&v, b"<tool_call> is a tag", false),
            Decision::Text(20)
        );
        assert_eq!(decide(&v, b"x <tool_call> y", false), Decision::Text(15));
        assert_eq!(decide(&v, b"x <tool_call>", false), Decision::Text(2));
        // Unguarded literals are unaffected.
        assert_eq!(
            decide(&v, b"<think>x", false),
            Decision::Literal { index: 0, len: 7 }
        );
        // Multi-byte followers: undecided while they could still match.
        let f: &[&[u8]] = &[b"<function="];
        let q = Vocab::EMPTY.with_literal_before(b"<tool_call>", f);
        assert_eq!(
            decide(&q, b"<tool_call>\n<funct", false),
            Decision::NeedMore
        );
        assert_eq!(decide(&q, b"<tool_call>\n<fun>", false), Decision::Text(17));
        assert_eq!(
            decide(&q, b"<tool_call>\n<function=x", false),
            Decision::Literal { index: 0, len: 11 }
        );
    }

    #[test]
    fn cut_markers_are_found_where_the_input_ends() {
        let v = Vocab {
            names: StrList::Strs(&["parameter"]),
            close: 1,
            ..Vocab::EMPTY
        }
        .with_literal(b"<![CDATA[");
        assert_eq!(cut_marker(&v, b"1</parameter"), Some(1));
        assert_eq!(cut_marker(&v, b"1</para"), Some(1));
        assert_eq!(cut_marker(&v, b"1<"), Some(1));
        assert_eq!(cut_marker(&v, b"a<b</"), Some(3));
        assert_eq!(cut_marker(&v, b"1<![CD"), Some(1));
        assert_eq!(cut_marker(&v, b"1</parameter>"), None);
        assert_eq!(cut_marker(&v, b"1</param x"), None);
        assert_eq!(cut_marker(&v, b"1</other"), None);
        assert_eq!(cut_marker(&v, b"no marker"), None);
        let h = Vocab::EMPTY.with_literal(b"</tool_call>");
        assert_eq!(cut_marker(&h, b"}} </tool_"), Some(3));
        assert_eq!(cut_marker(&h, b"</tool_call"), Some(0));
        assert_eq!(cut_marker(&h, b"</tool_x"), None);
        assert_eq!(cut_marker(&Vocab::EMPTY, b"</tool_"), None);
    }

    #[test]
    fn literal_before_is_bounded_by_tag_cap() {
        let f: &[&[u8]] = &[b"{"];
        let v = Vocab::EMPTY.with_literal_before(b"<tc>", f);
        let mut d = b"<tc>".to_vec();
        d.resize(TAG_CAP - 1, b' ');
        assert_eq!(decide(&v, &d, false), Decision::NeedMore);
        let mut fits = d.clone();
        fits.push(b'{');
        assert_eq!(
            decide(&v, &fits, false),
            Decision::Literal { index: 0, len: 4 }
        );
        // One byte more of whitespace: the follower no longer fits, the literal is text,
        // whatever the bytes after the cap and however many of them were seen.
        d.push(b' ');
        assert_eq!(decide(&v, &d, false), Decision::Text(TAG_CAP));
        d.push(b'{');
        assert_eq!(decide(&v, &d, false), Decision::Text(TAG_CAP + 1));
    }

    #[test]
    fn dynamic_names_come_from_the_tools() {
        use crate::config::{Tool, ToolList};
        let tools = [
            Tool {
                name: "get",
                params: &[],
            },
            Tool {
                name: "get_weather",
                params: &[],
            },
        ];
        let v = Vocab {
            open: 1 << DYNAMIC,
            dynamic: Names::Tools(ToolList::Tools(&tools)),
            ..Vocab::EMPTY
        };
        let el = |d: &[u8]| match decide(&v, d, false) {
            Decision::Element(t) if t.element == DYNAMIC => Some(t.name(d).to_vec()),
            _ => None,
        };
        assert_eq!(el(b"<get>"), Some(b"get".to_vec()));
        assert_eq!(el(b"<get_weather >"), Some(b"get_weather".to_vec()));
        assert_eq!(el(b"<get/>"), Some(b"get".to_vec()));
        assert_eq!(decide(&v, b"<get_w", false), Decision::NeedMore);
        assert_eq!(decide(&v, b"<getter>", false), Decision::Text(8));
        assert_eq!(decide(&v, b"<get_weather_v2>", false), Decision::Text(16));
        assert_eq!(decide(&v, b"<get x=\"1\">", false), Decision::Text(11));
        assert_eq!(decide(&v, b"</get>", false), Decision::Text(6));
    }

    #[test]
    fn any_name_matches_element_names_only() {
        let v = Vocab {
            open: 1 << DYNAMIC,
            close: 1 << DYNAMIC,
            dynamic: Names::Any,
            ..Vocab::EMPTY
        };
        let el =
            |d: &[u8]| matches!(decide(&v, d, false), Decision::Element(t) if t.element == DYNAMIC);
        assert!(el(b"<city>"));
        assert!(el(b"</city>"));
        assert!(el(b"<_a.b-c:d/>"));
        assert_eq!(decide(&v, b"<", false), Decision::NeedMore);
        assert_eq!(decide(&v, b"<ci", false), Decision::NeedMore);
        assert_eq!(decide(&v, b"a < b", false), Decision::Text(5));
        assert_eq!(decide(&v, b"<3", false), Decision::Text(2));
        assert_eq!(decide(&v, b"<>", false), Decision::Text(2));
        assert_eq!(decide(&v, b"</ city>", false), Decision::Text(8));
        assert_eq!(decide(&v, b"<ci", true), Decision::Text(3));
        let Decision::Element(t) = decide(&v, b"</city >", false) else {
            panic!("not an element")
        };
        assert_eq!(t.name(b"</city >"), b"city");
    }

    #[test]
    fn stops_hold_prefixes_and_match_earliest_end() {
        let stops: &[&str] = &["\nHuman:", "bc", "abcd"];
        let v = Vocab {
            stops: StrList::Strs(stops),
            ..Vocab::EMPTY
        };
        assert_eq!(decide(&v, b"Ask \nHum", false), Decision::Text(4));
        assert_eq!(decide(&v, b"\nHum", false), Decision::NeedMore);
        assert_eq!(decide(&v, b"\nHum", true), Decision::Text(4));
        assert_eq!(decide(&v, b"\nHuman resources", false), Decision::Text(16));
        assert_eq!(decide(&v, b"xabcd", false), Decision::Text(2));
        assert_eq!(
            decide(&v, b"bcd", false),
            Decision::Stop { index: 1, len: 2 }
        );
    }
}

/// The scanning layer's contract, by example (crate-private, so unit tests rather than
/// doctests).
#[cfg(test)]
mod examples {
    use super::stop::{earliest, held_suffix};
    use super::tag::attr;
    use super::*;

    #[test]
    fn decide_holds_back_only_what_may_still_be_a_marker() {
        let v = Vocab {
            names: StrList::Strs(&["thinking"]),
            open: 1,
            close: 1,
            ..Vocab::EMPTY
        };
        assert_eq!(decide(&v, b"Hello <t", false), Decision::Text(6));
        assert_eq!(decide(&v, b"<t", false), Decision::NeedMore);
        assert_eq!(decide(&v, b"<t", true), Decision::Text(2));
        assert!(matches!(
            decide(&v, b"<thinking>x", false),
            Decision::Element(_)
        ));
    }

    #[test]
    fn a_literal_with_look_ahead_waits_for_what_follows() {
        let v = Vocab::EMPTY.with_literal_before(b"<tool_call>", &[b"<function="]);
        let lit = Decision::Literal { index: 0, len: 11 };
        assert_eq!(decide(&v, b"<tool_call>\n<function=f>", false), lit);
        assert_eq!(decide(&v, b"<tool_call>\n<func", false), Decision::NeedMore);
        assert_eq!(decide(&v, b"<tool_call>\n<func", true), Decision::Text(17));
        assert_eq!(decide(&v, b"<tool_call> tags", false), Decision::Text(16));
    }

    #[test]
    fn attributes_are_read_by_name() {
        let tag = br#"<invoke name="search" x='1'>"#;
        assert_eq!(attr(tag, 7, b"name"), Some(&b"search"[..]));
        assert_eq!(attr(tag, 7, b"x"), Some(&b"1"[..]));
        assert_eq!(attr(b"<invoke>", 7, b"name"), None);
    }

    #[test]
    fn stop_sequences_earliest_end_wins_and_partial_matches_are_held() {
        let stops: &[&str] = &["abcd", "bc"];
        let m = earliest(stops.into(), b"xxabcd").unwrap();
        assert_eq!((m.start, m.index), (3, 1));
        let stops: &[&str] = &["\nHuman:"];
        assert_eq!(held_suffix(stops.into(), b"Ask \nHum"), 4);
        assert_eq!(held_suffix(stops.into(), b"Ask"), 0);
        // An empty stop (the parser's config rejects it) holds nothing and never panics.
        let stops: &[&str] = &[""];
        assert_eq!(held_suffix(stops.into(), b"Ask"), 0);
    }
}
