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
//! chunk edges fell: this is what makes the parser chunk-invariant (DESIGN.md rule 4).

pub mod stop;
pub mod tag;

use crate::config::StrList;
pub use tag::{TAG_CAP, Tag};

/// What a dialect recognises in its current context.
#[derive(Clone, Copy, Debug)]
pub struct Vocab<'v> {
    /// Element names (without namespace prefix); bit `i` of `open`/`close` refers to `names[i]`.
    pub names: &'v [&'v [u8]],
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
    /// Whether element names may carry the `antml:` prefix.
    pub ns_prefix: bool,
    /// Exact markers recognised here (the first `n_literals`).
    pub literals: [&'v [u8]; 4],
    /// How many of `literals` are in use.
    pub n_literals: usize,
    /// Stop sequences that apply here.
    pub stops: StrList<'v>,
}

impl Vocab<'static> {
    /// Recognises nothing: every byte is text.
    pub const EMPTY: Vocab<'static> = Vocab {
        names: &[],
        extra: &[],
        open: 0,
        close: 0,
        eq_form: 0,
        attrs: false,
        ns_prefix: false,
        literals: [&[]; 4],
        n_literals: 0,
        stops: StrList::Strs(&[]),
    };
}

/// The bit of [`Vocab::open`]/[`Vocab::close`] that stands for [`Vocab::extra`].
pub const EXTRA: u8 = 31;

impl<'v> Vocab<'v> {
    fn has_elements(&self) -> bool {
        self.open | self.close != 0
    }

    /// The literal markers in use.
    pub fn literals(&self) -> &[&'v [u8]] {
        &self.literals[..self.n_literals.min(4)]
    }

    /// Adds a literal marker (at most four).
    pub fn with_literal(mut self, lit: &'v [u8]) -> Vocab<'v> {
        if self.n_literals < 4 {
            self.literals[self.n_literals] = lit;
            self.n_literals += 1;
        }
        self
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

fn candidate_at(v: &Vocab<'_>, d: &[u8], eof: bool) -> Candidate {
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
            if best.is_none_or(|(_, l)| lit.len() > l) {
                best = Some((i, lit.len()));
            }
        } else if !eof && lit.starts_with(d) {
            partial = true;
        }
    }
    match (best, partial) {
        (Some((i, len)), _) => Candidate::Literal(i, len),
        (None, true) => Candidate::Partial,
        (None, false) => Candidate::Fail,
    }
}

/// Decides what the head of `data` is in context `v`. `eof`: no more bytes will come.
///
/// ```
/// use tokensieve::scan::{decide, Decision, Vocab};
/// let v = Vocab { names: &[b"thinking"], open: 1, close: 1, ..Vocab::EMPTY };
/// assert_eq!(decide(&v, b"Hello <t", false), Decision::Text(6));
/// assert_eq!(decide(&v, b"<t", false), Decision::NeedMore);
/// assert_eq!(decide(&v, b"<t", true), Decision::Text(2));
/// assert!(matches!(decide(&v, b"<thinking>x", false), Decision::Element(_)));
/// ```
pub fn decide(v: &Vocab<'_>, data: &[u8], eof: bool) -> Decision {
    if data.is_empty() {
        return Decision::NeedMore;
    }
    let mut starts = ByteSet::new();
    if v.has_elements() {
        starts.insert(b'<');
    }
    for lit in v.literals() {
        if let Some(&b) = lit.first() {
            starts.insert(b);
        }
    }
    // The first position holding a marker or a possible one; bytes before it are text.
    let mut pos = 0;
    let (t, cand) = loop {
        match starts.find(&data[pos..]) {
            None => break (data.len(), Candidate::Fail),
            Some(off) => {
                let p = pos + off;
                match candidate_at(v, &data[p..], eof) {
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

/// The text decision for `d`, which is text (no markers); `followed`: more bytes follow it,
/// and they cannot continue a UTF-8 character (they start a marker or stop sequence).
fn text(d: &[u8], followed: bool, eof: bool) -> Decision {
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
