//! Stop-sequence matching over text: the earliest-ending match wins, ties to the longer
//! (docs/design.md, Clarifications: Stops); a possible partial match at the end is held back.

use crate::config::StrList;

/// A complete stop-sequence match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Match {
    /// Where it starts in the text.
    pub start: usize,
    /// Its length.
    pub len: usize,
    /// Which stop sequence.
    pub index: usize,
}

/// The match that ends first in `text` (ties: the longer one).
///
pub fn earliest(stops: StrList<'_>, text: &[u8]) -> Option<Match> {
    let mut best: Option<Match> = None;
    for (index, s) in stops.iter().enumerate() {
        let s = s.as_bytes();
        // A stop's first occurrence is its earliest-ending one.
        if let Some(start) = memchr::memmem::find(text, s) {
            let m = Match {
                start,
                len: s.len(),
                index,
            };
            let better = match best {
                None => true,
                Some(b) => {
                    let (end, bend) = (m.start + m.len, b.start + b.len);
                    end < bend || (end == bend && m.len > b.len)
                }
            };
            if better {
                best = Some(m);
            }
        }
    }
    best
}

/// Length of the longest suffix of `text` that is a proper prefix of some stop sequence.
///
pub fn held_suffix(stops: StrList<'_>, text: &[u8]) -> usize {
    let mut held = 0;
    for s in stops.iter() {
        let s = s.as_bytes();
        let longest = s.len().saturating_sub(1).min(text.len());
        for k in (held + 1..=longest).rev() {
            if text[text.len() - k..] == s[..k] {
                held = k;
                break;
            }
        }
    }
    held
}
