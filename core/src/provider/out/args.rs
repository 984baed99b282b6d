//! A tool call's arguments: streamed through the relaxed transcoder into compact JSON, a
//! step at a time into `args_out`, their text kept in `raw` for rule 10; held fragments
//! replayed once their call is known; captured JSON values as content.

use super::*;
use crate::json::relaxed::ErrorKind;

impl Out<'_> {
    /// Ends the arguments: the error the call fails with, if any. Queues the closing input
    /// pieces (`{}` for a call that had no arguments text).
    pub(super) fn finish_args(&mut self, cut: bool) -> Option<ErrorReason> {
        if self.args.failed {
            if let Some(r) = self.args.reason {
                return Some(r);
            }
            return Some(if cut {
                ErrorReason::Unfinished
            } else {
                ErrorReason::MalformedBody
            });
        }
        if !self.args.any {
            self.push_chunk(Some(Part::Input), Src::Static("{}"));
            return None;
        }
        if self.args.done {
            return None;
        }
        // Top-level numbers and words complete at the end; anything else is cut short.
        let from = self.args_from();
        let mut n = from;
        loop {
            match self.args.tc.finish() {
                Step::Out(p) => {
                    let b = p.as_bytes();
                    if !self.args.started {
                        self.args.started = true;
                        // A top-level number or word completes only here: not an object
                        // (rule 9).
                        if b.first() != Some(&b'{') {
                            return Some(if cut {
                                ErrorReason::Unfinished
                            } else {
                                ErrorReason::MalformedBody
                            });
                        }
                    }
                    if n + b.len() <= ARGS_OUT {
                        self.args_out[n..n + b.len()].copy_from_slice(b);
                        n += b.len();
                    }
                }
                Step::Done => break,
                Step::Error(e) if e.kind == ErrorKind::TooDeep => {
                    return Some(ErrorReason::NestingTooDeep);
                }
                Step::NeedMore | Step::Error(_) => {
                    return Some(if cut {
                        ErrorReason::Unfinished
                    } else {
                        ErrorReason::MalformedBody
                    });
                }
            }
        }
        self.push_args(Some(Part::Input), from, n);
        None
    }

    /// Where new output goes in `args_out`: after what queued chunks still read.
    fn args_from(&mut self) -> usize {
        if self.queue.is_empty() {
            self.args_used = 0;
        }
        self.args_used
    }

    /// Queues `args_out[from..to]` as a chunk of the open block.
    fn push_args(&mut self, part: Option<Part>, from: usize, to: usize) {
        if to > from {
            self.args_used = to;
            self.push_chunk(
                part,
                Src::Args {
                    from: from as u16,
                    len: (to - from) as u16,
                },
            );
        }
    }

    /// A piece of a captured value's compact JSON text (`Capture::Text`): content of the
    /// open block.
    pub(crate) fn json_text(&mut self, piece: &[u8]) {
        let from = self.args_from();
        let n = piece.len().min(ARGS_OUT - from);
        self.args_out[from..from + n].copy_from_slice(&piece[..n]);
        self.push_args(None, from, from + n);
    }

    /// Feeds up to `ARGS_STEP` bytes of decoded arguments text; queues at most one input
    /// chunk. Returns how many bytes were used (all of `text` up to `ARGS_STEP`).
    pub(crate) fn args_text(&mut self, text: &[u8]) -> usize {
        let text = &text[..text.len().min(ARGS_STEP)];
        if text.is_empty() {
            return 0;
        }
        if self.args.reason == Some(ErrorReason::TooLarge) {
            // The rest of a call whose arguments were cut (`cut_args`): it fails as it is.
            return text.len();
        }
        if !self.args.raw_started {
            self.begin_raw();
        }
        let _ = self.raw.push(text);
        // Blank arguments are no arguments (`{}`, docs/providers.md).
        if !self.args.any
            && text
                .iter()
                .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            return text.len();
        }
        self.args.any = true;
        let mut rest = text;
        let from = self.args_from();
        let mut n = from;
        while !self.args.failed && !rest.is_empty() {
            if self.args.done {
                // After the value only whitespace may follow.
                if rest
                    .iter()
                    .any(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
                {
                    self.args.failed = true;
                }
                break;
            }
            match self.args.tc.next(&mut rest) {
                Step::Out(p) => {
                    let b = p.as_bytes();
                    if !self.args.started {
                        self.args.started = true;
                        // A tool call's input is an object (rule 9).
                        if b.first() != Some(&b'{') {
                            self.args.failed = true;
                            break;
                        }
                    }
                    let end = n + b.len();
                    let Some(dst) = self.args_out.get_mut(n..end) else {
                        // More input than one step's chunk holds (a mapper that fed several
                        // pieces before the chunk went out): the call fails as too large
                        // rather than lose bytes of its input (fuzz F21).
                        self.args.failed = true;
                        self.args.reason = Some(ErrorReason::TooLarge);
                        break;
                    };
                    dst.copy_from_slice(b);
                    n = end;
                }
                Step::NeedMore => break,
                Step::Done => self.args.done = true,
                Step::Error(e) => {
                    self.args.failed = true;
                    if e.kind == ErrorKind::TooDeep {
                        self.args.reason = Some(ErrorReason::NestingTooDeep);
                    }
                }
            }
        }
        // What streamed before a failure in this piece stays streamed (rule 10).
        self.push_args(Some(Part::Input), from, n);
        text.len()
    }

    /// Free-form text as the inside of a JSON string of the open call's input: escaped
    /// (strict JSON), then fed as [`args_text`](Self::args_text) (one input chunk for text of
    /// up to `ARGS_STEP / 6` bytes).
    pub(crate) fn args_escaped(&mut self, text: &[u8]) {
        let mut buf = [0u8; ARGS_STEP];
        let mut n = 0;
        for &b in text {
            let mut esc = [0u8; 6];
            let e = escape_byte(b, &mut esc);
            if n + e.len() > ARGS_STEP {
                self.args_text(&buf[..n]);
                n = 0;
            }
            buf[n..n + e.len()].copy_from_slice(e);
            n += e.len();
        }
        self.args_text(&buf[..n]);
    }

    /// Feeds pieces of input text (each escaped as a JSON string's text when its flag is
    /// set) as few [`args_text`](Self::args_text) calls as `ARGS_STEP` allows (one for short
    /// pieces: each call queues a chunk).
    pub(crate) fn args_parts(&mut self, parts: &[(&[u8], bool)]) {
        let mut buf = [0u8; ARGS_STEP];
        let mut n = 0;
        for &(piece, escape) in parts {
            for &b in piece {
                let mut esc = [0u8; 6];
                let e: &[u8] = if escape {
                    escape_byte(b, &mut esc)
                } else {
                    esc[0] = b;
                    &esc[..1]
                };
                if n + e.len() > ARGS_STEP {
                    self.args_text(&buf[..n]);
                    n = 0;
                }
                buf[n..n + e.len()].copy_from_slice(e);
                n += e.len();
            }
        }
        self.args_text(&buf[..n]);
    }

    /// The open call's arguments were cut before it opened (held past `max_call_bytes`):
    /// it fails as `too-large` when it completes, and later argument text of it is dropped.
    /// `held`: the held bytes are the first `max_call_bytes` of its arguments, its `raw`
    /// (else `raw` is empty).
    pub(crate) fn cut_args(&mut self, held: bool) {
        self.args.failed = true;
        self.args.reason = Some(ErrorReason::TooLarge);
        if held {
            self.begin_raw();
            let _ = self.raw.push(self.held.bytes());
            self.held.clear();
        }
    }

    /// The open call's first raw byte comes: `raw` starts afresh, unless a queued failed
    /// call's completion (and its text block) still reads it — the call's first byte can
    /// come in the step that completed that call — then this call's bytes go after those.
    fn begin_raw(&mut self) {
        let in_use = self
            .queue
            .iter()
            .any(|p| matches!(p, Pending::Complete { raw: Some(_), .. }));
        if in_use {
            self.args.raw_from = self.raw.len() as u32;
        } else {
            self.raw.clear();
            self.args.raw_from = 0;
        }
        self.args.raw_started = true;
    }

    /// The open call's inline arguments nested deeper than the document's reader goes: it
    /// fails as `nesting-too-deep` when it completes.
    pub(crate) fn fail_args_nesting(&mut self) {
        if matches!(self.open, Some(o) if o.ty == BlockType::ToolCall) {
            self.args.failed = true;
            self.args.reason = Some(ErrorReason::NestingTooDeep);
        }
    }

    /// Feeds the held argument bytes to the open call, `ARGS_STEP` at a time (`replay_step`).
    pub(crate) fn replay_held(&mut self) {
        if self.held.len() > 0 {
            self.replay = Some(0);
        }
    }

    pub(crate) fn replaying(&self) -> bool {
        self.replay.is_some()
    }

    /// One step of `replay_held`.
    pub(crate) fn replay_step(&mut self) {
        let Some(at) = self.replay else {
            return;
        };
        let at = at as usize;
        let end = (at + ARGS_STEP).min(self.held.len());
        let mut piece = [0u8; ARGS_STEP];
        let n = end.saturating_sub(at);
        piece[..n].copy_from_slice(&self.held.bytes()[at..end]);
        self.args_text(&piece[..n]);
        if end >= self.held.len() {
            self.replay = None;
            self.held.clear();
        } else {
            self.replay = Some(end as u32);
        }
    }
}

/// One byte of a JSON string's text, escaped as strict JSON writes it (UTF-8 passes through).
pub(crate) fn escape_byte(b: u8, esc: &mut [u8; 6]) -> &[u8] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let n = match b {
        b'"' | b'\\' => {
            esc[..2].copy_from_slice(&[b'\\', b]);
            2
        }
        b'\n' => {
            esc[..2].copy_from_slice(b"\\n");
            2
        }
        b'\r' => {
            esc[..2].copy_from_slice(b"\\r");
            2
        }
        b'\t' => {
            esc[..2].copy_from_slice(b"\\t");
            2
        }
        0..=0x1f => {
            esc.copy_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 15)],
            ]);
            6
        }
        _ => {
            esc[0] = b;
            1
        }
    };
    &esc[..n]
}
