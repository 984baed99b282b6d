//! Newline-delimited JSON (NDJSON, JSON Lines): one document per line (Ollama's native
//! `/api/chat` and `/api/generate` streams).
//!
//! * A line is everything up to `\n`; a `\r` right before it is part of the line end, not
//!   of the document (a read that ends in `\r` holds it until the next byte tells, then
//!   hands it back as [`Framed::Held`] when it was not a line end). A line of only spaces,
//!   tabs and `\r` is no document (blank lines are skipped).
//! * Each other line is [`Framed::Begin`], payload covering its bytes (the `\n` excluded),
//!   [`Framed::End`] at its `\n`. A line that is not valid JSON is the reader's to report;
//!   the next line decodes normally (framing never faults).
//! * At the end of the body, a last line without `\n` ends there.
//!
//! The decoder does not start in this framing: a body whose first byte is `{` is read as
//! whole documents, and switches here when a line end follows the first complete document
//! and more comes (`Decoder`, docs/providers.md "Input and configuration"), so a
//! pretty-printed non-streaming body still reads as one document. A whole document that is
//! not valid JSON also switches here (`in_line`): the rest of the line where the fault was
//! found is skipped with it, and the next line decodes.

#![forbid(unsafe_code)]

use memchr::memchr;

use super::Framed;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    /// At a line's start, or in its leading whitespace.
    Line,
    /// In a document's line.
    In,
    Finished,
}

/// The NDJSON framer (see the module docs). Fixed size, no heap.
#[derive(Clone, Debug)]
pub(crate) struct NdjsonFramer {
    st: St,
    /// Payload bytes already scanned and reported, not yet consumed.
    known: usize,
    /// A `\r` that ended a read inside a line, consumed and held.
    cr: bool,
}

impl Default for NdjsonFramer {
    fn default() -> Self {
        Self::new()
    }
}

impl NdjsonFramer {
    /// A framer at the start of a line.
    pub(crate) const fn new() -> Self {
        NdjsonFramer {
            st: St::Line,
            known: 0,
            cr: false,
        }
    }

    /// A framer inside a line whose document is already open (the decoder read it as a
    /// whole document until it failed: the rest of the line is that document's).
    pub(crate) const fn in_line() -> Self {
        NdjsonFramer {
            st: St::In,
            known: 0,
            cr: false,
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

    /// The held `\r` after [`Framed::Held`] (consumed by this call).
    pub(crate) fn held(&mut self) -> &'static [u8] {
        self.cr = false;
        b"\r"
    }

    /// The body ended. Call repeatedly until `Finished` (it may first report End).
    pub(crate) fn finish(&mut self) -> Framed {
        self.step(&mut &[][..], true)
    }

    fn step(&mut self, input: &mut &[u8], eof: bool) -> Framed {
        match self.st {
            St::Finished => Framed::Finished,
            St::Line => {
                let ws = input
                    .iter()
                    .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
                    .unwrap_or(input.len());
                *input = &input[ws..];
                if input.is_empty() {
                    if eof {
                        self.st = St::Finished;
                        return Framed::Finished;
                    }
                    return Framed::NeedMore;
                }
                self.st = St::In;
                self.known = 0;
                Framed::Begin
            }
            St::In => {
                if self.cr {
                    return match input.first() {
                        // `\r\n`, or `\r` at the end of the body: the line's end.
                        Some(b'\n') => {
                            *input = &input[1..];
                            self.cr = false;
                            self.st = St::Line;
                            Framed::End
                        }
                        None if eof => {
                            self.cr = false;
                            self.st = St::Line;
                            Framed::End
                        }
                        None => Framed::NeedMore,
                        // A `\r` inside the line: payload after all.
                        Some(_) => Framed::Held,
                    };
                }
                if self.known > 0 && !input.is_empty() {
                    return Framed::Payload(self.known.min(input.len()));
                }
                match input {
                    [] if eof => {
                        // The last line, without its `\n`.
                        self.st = St::Line;
                        Framed::End
                    }
                    [] => Framed::NeedMore,
                    [b'\n', ..] | [b'\r', b'\n', ..] => {
                        *input = &input[if input[0] == b'\n' { 1 } else { 2 }..];
                        self.st = St::Line;
                        Framed::End
                    }
                    [b'\r'] => {
                        // What follows decides (`cr`).
                        *input = &[];
                        self.cr = true;
                        self.step(input, eof)
                    }
                    _ => {
                        let end = match memchr(b'\n', input) {
                            Some(p) if p > 0 && input[p - 1] == b'\r' => p - 1,
                            Some(p) => p,
                            None if input[input.len() - 1] == b'\r' => input.len() - 1,
                            None => input.len(),
                        };
                        // `end` is 0 only for a front `\r` not followed by `\n`.
                        self.known = end.max(1);
                        Framed::Payload(self.known)
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::every_split;
    use super::*;

    /// The normalised result of `body` (`«` Begin, `»` End), the same at every split.
    fn lines(body: &[u8]) -> super::super::testing::Out {
        every_split(NdjsonFramer::new, body)
    }

    #[test]
    fn state_is_small() {
        assert!(core::mem::size_of::<NdjsonFramer>() <= 32);
    }

    #[test]
    fn lines_blank_lines_and_a_last_line_without_newline() {
        assert_eq!(
            lines(b"{\"a\":1}\n\n  \n{\"b\":2}\n {\"c\":3}"),
            "«{\"a\":1}»«{\"b\":2}»«{\"c\":3}»"
        );
        assert_eq!(lines(b""), "");
        assert_eq!(lines(b" \r\n\n\t"), "");
    }

    #[test]
    fn crlf_is_a_line_end_and_a_lone_cr_is_payload() {
        assert_eq!(
            lines(b"{\"a\":1}\r\n{\"c\\r\r\r\":3}\r\n{\"d\"\r}\r"),
            "«{\"a\":1}»«{\"c\\r\r\r\":3}»«{\"d\"\r}»"
        );
    }
}
