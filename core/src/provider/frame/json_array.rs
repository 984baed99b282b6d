//! A streamed JSON array, one document per element (Gemini's default `[{…},\n{…}]`).
//!
//! * An optional BOM and whitespace, `[`, elements separated by `,` and whitespace, `]`.
//!   Commas are lenient: `[,1,,2,]` has the elements `1` and `2`.
//! * Each element (any JSON value, pretty-printed over any number of lines) is
//!   [`Framed::Begin`], payload covering exactly its bytes, [`Framed::End`]. Where an object,
//!   array or string element ends is found by tracking depth (a counter: `{`/`[` and
//!   `}`/`]` are not told apart, nothing is stacked), strings and escapes, across reads. A
//!   number or literal element is a run of ASCII letters, digits, `+`, `-` and `.`.
//! * [`Fault::BadSeparator`], once per run of bad bytes: a byte after an element that is not
//!   whitespace, `,` or `]` (framing resumes at the next `{`, `[` or `"`, which may be that
//!   byte: `{…}{…}` is a fault and two elements); a byte where an element should start that
//!   cannot start one (same resumption); bytes before the opening `[` (skipped up to it);
//!   anything but whitespace after the closing `]` (the rest of the body is skipped).
//! * At the end of the body: inside an object, array or string element, [`Fault::Truncated`];
//!   a number or literal element ends there. A missing `]` is not a fault.

#![forbid(unsafe_code)]

use memchr::{memchr, memchr2, memchr3};

use super::{Fault, Framed};

const BOM: &[u8] = b"\xEF\xBB\xBF";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    /// Body start: this many bytes of the BOM matched.
    Bom(u8),
    /// Before the opening `[`.
    Open,
    /// After a fault before the opening `[`: skipping up to it.
    OpenSkip,
    /// Where an element may start (after `[` or `,`).
    Elem,
    /// In an element.
    In,
    /// After an element: `,` or `]`.
    Sep,
    /// After a fault between elements: skipping to a byte that starts an element.
    Skip,
    /// After the closing `]`.
    After,
    /// After a fault behind the closing `]`: everything is skipped.
    Trailing,
    Finished,
}

/// The JSON array framer (see the module docs). Fixed size, no heap.
#[derive(Clone, Debug)]
pub(crate) struct JsonArrayFramer {
    st: St,
    /// Payload bytes already scanned and reported, not yet consumed.
    known: usize,
    /// Open objects and arrays in the element.
    depth: u32,
    /// The element is a number or literal (ends at the first byte that cannot continue it).
    scalar: bool,
    in_string: bool,
    /// A backslash in a string: the next byte is escaped (it may come in the next read).
    escape: bool,
    /// The element's last byte is within the `known` bytes.
    ends: bool,
}

impl Default for JsonArrayFramer {
    fn default() -> Self {
        Self::new()
    }
}

impl JsonArrayFramer {
    pub(crate) const fn new() -> Self {
        JsonArrayFramer {
            st: St::Bom(0),
            known: 0,
            depth: 0,
            scalar: false,
            in_string: false,
            escape: false,
            ends: false,
        }
    }

    /// Looks at the front of `input`; consumes framing bytes itself, never payload bytes.
    pub(crate) fn next(&mut self, input: &mut &[u8]) -> Framed {
        self.step(input, false)
    }

    /// The caller used the first `k ≤ n` bytes of a `Payload(n)` (it advances its input itself).
    pub(crate) fn consumed(&mut self, payload: &[u8]) {
        self.known = self.known.saturating_sub(payload.len());
    }

    /// The body ended. Call repeatedly until `Finished` (it may first report End or Fault).
    pub(crate) fn finish(&mut self) -> Framed {
        self.step(&mut &[][..], true)
    }

    fn step(&mut self, input: &mut &[u8], eof: bool) -> Framed {
        loop {
            match self.st {
                St::Finished => return Framed::Finished,
                St::Bom(n) => {
                    let n = usize::from(n);
                    match input.first() {
                        Some(&b) if Some(&b) == BOM.get(n) => {
                            advance(input, 1);
                            self.st = if n + 1 == BOM.len() {
                                St::Open
                            } else {
                                St::Bom(n as u8 + 1)
                            };
                        }
                        None if !eof => return Framed::NeedMore,
                        _ if n == 0 => self.st = St::Open,
                        _ => {
                            // Part of a BOM: junk before the `[`.
                            self.st = St::OpenSkip;
                            return Framed::Fault(Fault::BadSeparator);
                        }
                    }
                }
                St::Open => {
                    skip_ws(input);
                    match input.first() {
                        None => return self.idle(eof),
                        Some(b'[') => {
                            advance(input, 1);
                            self.st = St::Elem;
                        }
                        Some(_) => {
                            self.st = St::OpenSkip;
                            return Framed::Fault(Fault::BadSeparator);
                        }
                    }
                }
                St::OpenSkip => match memchr(b'[', input) {
                    Some(at) => {
                        advance(input, at + 1);
                        self.st = St::Elem;
                    }
                    None => {
                        advance(input, input.len());
                        return self.idle(eof);
                    }
                },
                St::Elem => {
                    while let Some(&(b' ' | b'\t' | b'\r' | b'\n' | b',')) = input.first() {
                        advance(input, 1);
                    }
                    match input.first() {
                        None => return self.idle(eof),
                        Some(b']') => {
                            advance(input, 1);
                            self.st = St::After;
                        }
                        Some(&b) if matches!(b, b'{' | b'[' | b'"') || is_scalar(b) => {
                            self.st = St::In;
                            self.known = 0;
                            self.depth = 0;
                            self.scalar = is_scalar(b);
                            self.in_string = false;
                            self.escape = false;
                            self.ends = false;
                            return Framed::Begin;
                        }
                        Some(_) => {
                            self.st = St::Skip;
                            return Framed::Fault(Fault::BadSeparator);
                        }
                    }
                }
                St::In => return self.element(input, eof),
                St::Sep => {
                    skip_ws(input);
                    match input.first() {
                        None => return self.idle(eof),
                        Some(b',') => {
                            advance(input, 1);
                            self.st = St::Elem;
                        }
                        Some(b']') => {
                            advance(input, 1);
                            self.st = St::After;
                        }
                        Some(_) => {
                            self.st = St::Skip;
                            return Framed::Fault(Fault::BadSeparator);
                        }
                    }
                }
                St::Skip => match memchr3(b'{', b'[', b'"', input) {
                    Some(at) => {
                        advance(input, at);
                        self.st = St::Elem;
                    }
                    None => {
                        advance(input, input.len());
                        return self.idle(eof);
                    }
                },
                St::After => {
                    skip_ws(input);
                    if input.is_empty() {
                        return self.idle(eof);
                    }
                    self.st = St::Trailing;
                    return Framed::Fault(Fault::BadSeparator);
                }
                St::Trailing => {
                    advance(input, input.len());
                    return self.idle(eof);
                }
            }
        }
    }

    /// Between elements the input ran out.
    fn idle(&mut self, eof: bool) -> Framed {
        if eof {
            self.st = St::Finished;
            return Framed::Finished;
        }
        Framed::NeedMore
    }

    /// In an element: payload up to its end, then End.
    fn element(&mut self, input: &mut &[u8], eof: bool) -> Framed {
        if eof {
            if self.known > 0 {
                // The caller stopped before the bytes it was shown: the end was not read.
                self.known = 0;
                self.ends = false;
            }
            self.st = St::Finished;
            return if self.ends || self.scalar {
                Framed::End
            } else {
                Framed::Fault(Fault::Truncated)
            };
        }
        if self.known > 0 {
            // Already scanned: not scanned again.
            let n = self.known.min(input.len());
            if n > 0 {
                return Framed::Payload(n);
            }
            self.known = 0;
        }
        if self.ends {
            self.st = St::Sep;
            return Framed::End;
        }
        if input.is_empty() {
            return Framed::NeedMore;
        }
        let n = if self.scalar {
            match input.iter().position(|&b| !is_scalar(b)) {
                Some(at) => {
                    self.ends = true;
                    at
                }
                None => input.len(),
            }
        } else {
            self.scan(input)
        };
        if n == 0 {
            // A number or literal ended with the previous read.
            self.st = St::Sep;
            return Framed::End;
        }
        self.known = n;
        Framed::Payload(n)
    }

    /// How many bytes of `s` belong to the object, array or string element; sets `ends` when
    /// its last byte is among them.
    fn scan(&mut self, s: &[u8]) -> usize {
        let mut i = 0;
        while i < s.len() {
            if self.escape {
                self.escape = false;
                i += 1;
            } else if self.in_string {
                // Strings are most of the bytes: skip to the next quote or backslash.
                let Some(at) = memchr2(b'"', b'\\', &s[i..]) else {
                    return s.len();
                };
                i += at;
                if s[i] == b'\\' {
                    self.escape = true;
                } else {
                    self.in_string = false;
                    if self.depth == 0 {
                        self.ends = true;
                        return i + 1;
                    }
                }
                i += 1;
            } else {
                let b = s[i];
                i += 1;
                match b {
                    b'"' => self.in_string = true,
                    b'{' | b'[' => self.depth = self.depth.saturating_add(1),
                    b'}' | b']' => {
                        self.depth = self.depth.saturating_sub(1);
                        if self.depth == 0 {
                            self.ends = true;
                            return i;
                        }
                    }
                    _ => {}
                }
            }
        }
        s.len()
    }
}

/// A byte that starts or continues a number or literal element.
fn is_scalar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.')
}

fn skip_ws(input: &mut &[u8]) {
    let n = input
        .iter()
        .position(|&b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        .unwrap_or(input.len());
    advance(input, n);
}

fn advance(input: &mut &[u8], n: usize) {
    *input = input.get(n..).unwrap_or(&[]);
}

#[cfg(test)]
mod tests;
