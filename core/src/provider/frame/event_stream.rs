//! The AWS event stream (Bedrock ConverseStream and InvokeModelWithResponseStream bodies):
//! binary frames `total_length | headers_length | prelude_crc | headers | payload |
//! message_crc`, integers big-endian, CRCs CRC32 (IEEE). design.md "Provider streams".
//!
//! The prelude, the headers and the message CRC are small and are held here; the payload is
//! never held: it runs as [`Framed::Payload`] straight from the caller's input and reaches
//! the message CRC through `consumed`. So a payload is out before its CRC can be checked,
//! and a bad CRC is reported after it (providers.md: nothing emitted is retracted).
//!
//! Header parsing is a few bounds-checked reads over a buffer that is already whole (the
//! framer must hold the headers anyway, for the CRC and the metadata accessors), so it is
//! written out rather than built from a parser-combinator crate.

use super::{Fault, Framed};

/// The largest `headers_length` held. Bedrock's headers are about 100 bytes; a frame with
/// more is reported (`Fault::Headers`) and skipped.
pub(crate) const HEADERS_CAP: usize = 1024;

/// The `max_frame_bytes` default (providers.md).
pub(crate) const DEFAULT_MAX_FRAME_BYTES: u32 = 16 << 20;

const PRELUDE: usize = 12;
const CRC: usize = 4;
/// Prelude plus message CRC: the smallest frame.
const MIN_FRAME: u32 = (PRELUDE + CRC) as u32;

/// The headers the accessors return, by index into `EventStreamFramer::meta`.
const META_NAMES: [&[u8]; 5] = [
    b":message-type",
    b":event-type",
    b":exception-type",
    b":error-code",
    b":error-message",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Filling `small[..12]` with a prelude (`fill` bytes so far).
    Prelude,
    /// Filling `headers[..headers_len]`.
    Headers,
    /// `left` payload bytes to go.
    Payload,
    /// Filling `small[..4]` with the message CRC.
    Crc,
    /// Dropping `left` bytes: the rest of a frame whose headers were bad. Its length came
    /// from a prelude whose CRC matched, so the next frame starts right after.
    Skip,
    /// A prelude was bad: no later frame boundary can be trusted (no resync guesswork).
    Abandoned,
    Finished,
}

/// An incremental AWS event-stream framer (see the module docs and `frame`'s pull contract).
pub(crate) struct EventStreamFramer {
    state: State,
    max_frame_bytes: u32,
    /// Bytes of `small` or `headers` filled so far.
    fill: usize,
    headers_len: usize,
    /// Payload bytes (`Payload`) or frame bytes (`Skip`) still to go.
    left: u32,
    /// The running message CRC: a finalized CRC32, resumed for each piece (crc32fast's
    /// `Hasher` cannot be made in a `const fn`, this can).
    crc: u32,
    /// `(start, end)` in `headers` of each of `META_NAMES`' string values; `(0, 0)` if absent.
    /// The headers stay in place until the next frame's prelude is whole, so the values need
    /// no copy and are never cut short.
    meta: [(usize, usize); 5],
    /// The prelude, then the message CRC.
    small: [u8; PRELUDE],
    headers: [u8; HEADERS_CAP],
}

// The framer lives inside the decoder, which may live on a small stack.
const _: () = assert!(core::mem::size_of::<EventStreamFramer>() <= 1536);

use super::crc::update as crc_update;

fn be_u32(b: &[u8]) -> u32 {
    match b {
        [a, b, c, d, ..] => u32::from_be_bytes([*a, *b, *c, *d]),
        _ => 0,
    }
}

/// Checks every header against the format and finds the ones `META_NAMES` lists (string
/// values only; the last of a name wins). `None`: a header is malformed or runs past the end.
fn parse_headers(h: &[u8]) -> Option<[(usize, usize); 5]> {
    let mut meta = [(0, 0); 5];
    let mut at = 0;
    while at < h.len() {
        let name_len = usize::from(*h.get(at)?);
        let name = h.get(at + 1..at + 1 + name_len)?;
        at += 1 + name_len;
        let ty = *h.get(at)?;
        at += 1;
        let len = match ty {
            0 | 1 => 0,
            2 => 1,
            3 => 2,
            4 => 4,
            5 | 8 => 8,
            9 => 16,
            6 | 7 => {
                let n = h.get(at..at + 2)?;
                at += 2;
                usize::from(u16::from_be_bytes([n[0], n[1]]))
            }
            _ => return None,
        };
        h.get(at..at + len)?;
        if ty == 7 {
            if let Some(i) = META_NAMES.iter().position(|n| *n == name) {
                meta[i] = (at, at + len);
            }
        }
        at += len;
    }
    Some(meta)
}

impl EventStreamFramer {
    /// A framer that rejects frames whose `total_length` exceeds `max_frame_bytes`
    /// (callers default to [`DEFAULT_MAX_FRAME_BYTES`]).
    pub(crate) const fn new(max_frame_bytes: u32) -> Self {
        EventStreamFramer {
            state: State::Prelude,
            max_frame_bytes,
            fill: 0,
            headers_len: 0,
            left: 0,
            crc: 0,
            meta: [(0, 0); 5],
            small: [0; PRELUDE],
            headers: [0; HEADERS_CAP],
        }
    }

    /// Back to the start of a body (same cap).
    #[cfg(test)]
    pub(crate) fn reset(&mut self) {
        *self = Self::new(self.max_frame_bytes);
    }

    /// Moves input into `small` until it holds `want` bytes; true when it does.
    fn fill_small(&mut self, input: &mut &[u8], want: usize) -> bool {
        let n = want.saturating_sub(self.fill).min(input.len());
        let (take, rest) = input.split_at(n);
        if let Some(dst) = self.small.get_mut(self.fill..self.fill + n) {
            dst.copy_from_slice(take);
        }
        self.fill += n;
        *input = rest;
        self.fill >= want
    }

    /// The prelude is whole: checks it and sets up the frame. `Some` is what to report.
    fn start_frame(&mut self) -> Option<Framed> {
        let p = self.small;
        let total = be_u32(&p[0..4]);
        let headers_len = be_u32(&p[4..8]);
        self.fill = 0;
        if super::crc::hash(&p[0..8]) != be_u32(&p[8..12]) {
            self.state = State::Abandoned;
            return Some(Framed::Fault(Fault::PreludeCrc));
        }
        if total < MIN_FRAME || headers_len > total - MIN_FRAME {
            // The CRC matched, so these are the sender's numbers: nothing after can be trusted.
            self.state = State::Abandoned;
            return Some(Framed::Fault(Fault::FrameLength));
        }
        if total > self.max_frame_bytes {
            // A consistent length past the cap: the sender's frame is skipped whole (never
            // buffered), and the next frame starts right after it.
            self.left = total - PRELUDE as u32;
            self.state = State::Skip;
            return Some(Framed::Fault(Fault::FrameTooLarge));
        }
        self.crc = super::crc::hash(&p);
        self.meta = [(0, 0); 5];
        self.left = total - MIN_FRAME - headers_len;
        match usize::try_from(headers_len) {
            Ok(n) if n <= HEADERS_CAP => {
                self.headers_len = n;
                self.state = State::Headers;
                None
            }
            _ => {
                self.left = total - PRELUDE as u32;
                self.state = State::Skip;
                Some(Framed::Fault(Fault::Headers))
            }
        }
    }

    /// What the front of `input` is; see `frame`'s pull contract.
    pub(crate) fn next(&mut self, input: &mut &[u8]) -> Framed {
        loop {
            match self.state {
                State::Prelude => {
                    if !self.fill_small(input, PRELUDE) {
                        return Framed::NeedMore;
                    }
                    if let Some(f) = self.start_frame() {
                        return f;
                    }
                }
                State::Headers => {
                    let n = (self.headers_len - self.fill).min(input.len());
                    let (take, rest) = input.split_at(n);
                    if let Some(dst) = self.headers.get_mut(self.fill..self.fill + n) {
                        dst.copy_from_slice(take);
                    }
                    self.crc = crc_update(self.crc, take);
                    self.fill += n;
                    *input = rest;
                    if self.fill < self.headers_len {
                        return Framed::NeedMore;
                    }
                    self.fill = 0;
                    let headers = self.headers.get(..self.headers_len).unwrap_or(&[]);
                    match parse_headers(headers) {
                        Some(meta) => {
                            self.meta = meta;
                            self.state = State::Payload;
                            return Framed::Begin;
                        }
                        None => {
                            self.left = self.left.saturating_add(CRC as u32);
                            self.state = State::Skip;
                            return Framed::Fault(Fault::Headers);
                        }
                    }
                }
                State::Payload => {
                    if self.left == 0 {
                        self.state = State::Crc;
                        continue;
                    }
                    if input.is_empty() {
                        return Framed::NeedMore;
                    }
                    let left = usize::try_from(self.left).unwrap_or(usize::MAX);
                    return Framed::Payload(left.min(input.len()));
                }
                State::Crc => {
                    if !self.fill_small(input, CRC) {
                        return Framed::NeedMore;
                    }
                    self.fill = 0;
                    self.state = State::Prelude;
                    return if be_u32(&self.small) == self.crc {
                        Framed::End
                    } else {
                        Framed::Fault(Fault::MessageCrc)
                    };
                }
                State::Skip => {
                    let n = usize::try_from(self.left)
                        .unwrap_or(usize::MAX)
                        .min(input.len());
                    *input = &input[n..];
                    // n ≤ left, which is a u32.
                    self.left -= n as u32;
                    if self.left > 0 {
                        return Framed::NeedMore;
                    }
                    self.state = State::Prelude;
                }
                State::Abandoned => {
                    *input = &[];
                    return Framed::NeedMore;
                }
                State::Finished => return Framed::Finished,
            }
        }
    }

    /// The caller used these payload bytes (the front of what `Payload(n)` announced).
    pub(crate) fn consumed(&mut self, payload: &[u8]) {
        if self.state != State::Payload {
            return;
        }
        let left = usize::try_from(self.left).unwrap_or(usize::MAX);
        let used = payload.get(..left).unwrap_or(payload);
        self.crc = crc_update(self.crc, used);
        // used.len() ≤ left, which is a u32.
        self.left -= used.len() as u32;
    }

    /// The body ended: `Fault(Truncated)` inside a frame, then `Finished`.
    pub(crate) fn finish(&mut self) -> Framed {
        let mid_frame = match self.state {
            State::Prelude => self.fill > 0,
            State::Abandoned | State::Finished => false,
            State::Headers | State::Payload | State::Crc | State::Skip => true,
        };
        self.state = State::Finished;
        if mid_frame {
            Framed::Fault(Fault::Truncated)
        } else {
            Framed::Finished
        }
    }

    fn meta(&self, i: usize) -> &[u8] {
        let (start, end) = self.meta.get(i).copied().unwrap_or((0, 0));
        self.headers.get(start..end).unwrap_or(&[])
    }

    /// `:message-type` of the current frame (`event`, `exception`, `error`); empty if absent.
    /// Like the others, valid from `Begin` until the next frame's prelude.
    pub(crate) fn message_type(&self) -> &[u8] {
        self.meta(0)
    }

    /// `:event-type` (e.g. `contentBlockDelta`, `chunk`).
    pub(crate) fn event_type(&self) -> &[u8] {
        self.meta(1)
    }

    /// `:exception-type` (e.g. `throttlingException`).
    pub(crate) fn exception_type(&self) -> &[u8] {
        self.meta(2)
    }

    /// `:error-code`.
    pub(crate) fn error_code(&self) -> &[u8] {
        self.meta(3)
    }

    /// `:error-message`.
    pub(crate) fn error_message(&self) -> &[u8] {
        self.meta(4)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use proptest::prelude::*;
    use std::string::String;
    use std::vec;
    use std::vec::Vec;

    /// A header value of each wire type (0–9).
    #[derive(Clone, Debug)]
    enum HeaderValue<'a> {
        True,
        False,
        Byte(i8),
        Short(i16),
        Int(i32),
        Long(i64),
        Bytes(&'a [u8]),
        Str(&'a str),
        Time(i64),
        Uuid([u8; 16]),
        /// An undefined type byte, for the fault tests.
        BadType(u8),
    }
    use HeaderValue as H;

    fn put_headers(out: &mut Vec<u8>, headers: &[(&str, HeaderValue)]) {
        for (name, value) in headers {
            out.push(name.len() as u8);
            out.extend_from_slice(name.as_bytes());
            match value {
                H::True => out.push(0),
                H::False => out.push(1),
                H::Byte(v) => {
                    out.push(2);
                    out.extend_from_slice(&v.to_be_bytes());
                }
                H::Short(v) => {
                    out.push(3);
                    out.extend_from_slice(&v.to_be_bytes());
                }
                H::Int(v) => {
                    out.push(4);
                    out.extend_from_slice(&v.to_be_bytes());
                }
                H::Long(v) => {
                    out.push(5);
                    out.extend_from_slice(&v.to_be_bytes());
                }
                H::Bytes(v) => {
                    out.push(6);
                    out.extend_from_slice(&(v.len() as u16).to_be_bytes());
                    out.extend_from_slice(v);
                }
                H::Str(v) => {
                    out.push(7);
                    out.extend_from_slice(&(v.len() as u16).to_be_bytes());
                    out.extend_from_slice(v.as_bytes());
                }
                H::Time(v) => {
                    out.push(8);
                    out.extend_from_slice(&v.to_be_bytes());
                }
                H::Uuid(v) => {
                    out.push(9);
                    out.extend_from_slice(v);
                }
                H::BadType(t) => out.push(*t),
            }
        }
    }

    /// A frame from raw header bytes, both CRCs right.
    fn raw_frame(headers: &[u8], payload: &[u8]) -> Vec<u8> {
        let total = (PRELUDE + headers.len() + payload.len() + CRC) as u32;
        let mut out = Vec::new();
        out.extend_from_slice(&total.to_be_bytes());
        out.extend_from_slice(&(headers.len() as u32).to_be_bytes());
        out.extend_from_slice(&crc32fast::hash(&out).to_be_bytes());
        out.extend_from_slice(headers);
        out.extend_from_slice(payload);
        out.extend_from_slice(&crc32fast::hash(&out).to_be_bytes());
        out
    }

    fn frame(headers: &[(&str, HeaderValue)], payload: &[u8]) -> Vec<u8> {
        let mut h = Vec::new();
        put_headers(&mut h, headers);
        raw_frame(&h, payload)
    }

    /// A prelude with a right CRC, for lengths no real frame follows.
    fn prelude(total: u32, headers_len: u32) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&total.to_be_bytes());
        out.extend_from_slice(&headers_len.to_be_bytes());
        out.extend_from_slice(&crc32fast::hash(&out).to_be_bytes());
        out
    }

    fn event(event_type: &str, payload: &[u8]) -> Vec<u8> {
        frame(
            &[
                (":event-type", H::Str(event_type)),
                (":content-type", H::Str("application/json")),
                (":message-type", H::Str("event")),
            ],
            payload,
        )
    }

    #[derive(Clone, Debug, PartialEq, Eq)]
    enum Ev {
        /// message, event, exception types, error code, error message.
        Begin([String; 5]),
        Payload(Vec<u8>),
        End,
        Fault(Fault),
        Finished,
    }

    fn text(b: &[u8]) -> String {
        String::from_utf8_lossy(b).into_owned()
    }

    fn push(events: &mut Vec<Ev>, f: &EventStreamFramer, framed: Framed, payload: &[u8]) {
        match framed {
            Framed::Begin => events.push(Ev::Begin([
                text(f.message_type()),
                text(f.event_type()),
                text(f.exception_type()),
                text(f.error_code()),
                text(f.error_message()),
            ])),
            Framed::Payload(_) => match events.last_mut() {
                // Runs merge: only their concatenation is chunking-invariant.
                Some(Ev::Payload(p)) => p.extend_from_slice(payload),
                _ => events.push(Ev::Payload(payload.to_vec())),
            },
            Framed::End => events.push(Ev::End),
            Framed::Fault(x) => events.push(Ev::Fault(x)),
            Framed::Finished => events.push(Ev::Finished),
            Framed::NeedMore | Framed::Newline | Framed::Held | Framed::Done => {
                panic!("unexpected {framed:?}")
            }
        }
    }

    /// Feeds `body` in pieces of `sizes` (cycled; 0 counts as 1) and consumes at most `bite`
    /// bytes of each payload run (0: all), then finishes.
    fn run_with(f: &mut EventStreamFramer, body: &[u8], sizes: &[usize], bite: usize) -> Vec<Ev> {
        let mut events = Vec::new();
        let mut rest = body;
        let mut turn = 0;
        let mut steps = 0;
        loop {
            let size = sizes
                .get(turn % sizes.len().max(1))
                .copied()
                .unwrap_or(1)
                .max(1);
            turn += 1;
            let (piece, after) = rest.split_at(size.min(rest.len()));
            rest = after;
            let mut input = piece;
            loop {
                steps += 1;
                assert!(steps < 4 * body.len() + 100, "no progress");
                let before = input.len();
                match f.next(&mut input) {
                    Framed::NeedMore => {
                        assert!(input.is_empty(), "NeedMore left input");
                        break;
                    }
                    Framed::Payload(n) => {
                        assert_eq!(input.len(), before, "Payload consumed input");
                        assert!(n >= 1 && n <= input.len());
                        let k = if bite == 0 { n } else { n.min(bite) };
                        f.consumed(&input[..k]);
                        push(&mut events, f, Framed::Payload(k), &input[..k]);
                        input = &input[k..];
                    }
                    framed => push(&mut events, f, framed, &[]),
                }
            }
            if rest.is_empty() {
                break;
            }
        }
        loop {
            steps += 1;
            assert!(steps < 4 * body.len() + 100, "finish does not end");
            let framed = f.finish();
            push(&mut events, f, framed, &[]);
            if framed == Framed::Finished {
                break;
            }
        }
        events
    }

    fn run(body: &[u8], sizes: &[usize]) -> Vec<Ev> {
        run_with(
            &mut EventStreamFramer::new(DEFAULT_MAX_FRAME_BYTES),
            body,
            sizes,
            0,
        )
    }

    fn whole(body: &[u8]) -> Vec<Ev> {
        run(body, &[body.len().max(1)])
    }

    fn begin(message: &str, event: &str) -> Ev {
        Ev::Begin([
            message.into(),
            event.into(),
            String::new(),
            String::new(),
            String::new(),
        ])
    }

    fn payload(p: &[u8]) -> Ev {
        Ev::Payload(p.to_vec())
    }

    fn event_evs(event_type: &str, p: &[u8]) -> Vec<Ev> {
        if p.is_empty() {
            vec![begin("event", event_type), Ev::End]
        } else {
            vec![begin("event", event_type), payload(p), Ev::End]
        }
    }

    fn two_frames() -> Vec<u8> {
        let mut body = event("contentBlockDelta", br#"{"delta":{"text":"Hi"}}"#);
        body.extend(event("messageStop", br#"{"stopReason":"end_turn"}"#));
        body
    }

    #[test]
    fn every_header_type() {
        let long = "x".repeat(300);
        let body = frame(
            &[
                ("t", H::True),
                ("f", H::False),
                ("b", H::Byte(-1)),
                ("s", H::Short(-2)),
                ("i", H::Int(7)),
                ("l", H::Long(-9)),
                ("a", H::Bytes(b"\x00\xff")),
                (":message-type", H::Str("error")),
                ("ts", H::Time(1_700_000_000_000)),
                ("id", H::Uuid([7; 16])),
                (":error-code", H::Str("ThrottlingException")),
                (":error-message", H::Str(&long)),
                // A bytes value under a known name is not a string: ignored.
                (":event-type", H::Bytes(b"chunk")),
                ("", H::Str("empty name")),
            ],
            b"{}",
        );
        let expect = vec![
            Ev::Begin([
                "error".into(),
                String::new(),
                String::new(),
                "ThrottlingException".into(),
                long.clone(),
            ]),
            payload(b"{}"),
            Ev::End,
            Ev::Finished,
        ];
        assert_eq!(whole(&body), expect);
        assert_eq!(run(&body, &[1]), expect);
    }

    #[test]
    fn several_frames_in_one_read() {
        let mut body = event("messageStart", br#"{"role":"assistant"}"#);
        body.extend(event("contentBlockDelta", br#"{"delta":{"text":"Hi"}}"#));
        body.extend(frame(
            &[
                (":exception-type", H::Str("throttlingException")),
                (":message-type", H::Str("exception")),
            ],
            br#"{"message":"slow down"}"#,
        ));
        let mut expect = event_evs("messageStart", br#"{"role":"assistant"}"#);
        expect.extend(event_evs(
            "contentBlockDelta",
            br#"{"delta":{"text":"Hi"}}"#,
        ));
        expect.push(Ev::Begin([
            "exception".into(),
            String::new(),
            "throttlingException".into(),
            String::new(),
            String::new(),
        ]));
        expect.push(payload(br#"{"message":"slow down"}"#));
        expect.push(Ev::End);
        expect.push(Ev::Finished);
        assert_eq!(whole(&body), expect);
    }

    #[test]
    fn empty_payload_and_no_headers() {
        let mut body = event("messageStop", b"");
        body.extend(raw_frame(b"", b"x"));
        body.extend(raw_frame(b"", b""));
        let mut expect = event_evs("messageStop", b"");
        expect.extend([
            begin("", ""),
            payload(b"x"),
            Ev::End,
            begin("", ""),
            Ev::End,
        ]);
        expect.push(Ev::Finished);
        assert_eq!(whole(&body), expect);
        assert_eq!(run(&body, &[1]), expect);
    }

    #[test]
    fn every_split_of_two_frames() {
        let body = two_frames();
        let expect = whole(&body);
        let mut e = event_evs("contentBlockDelta", br#"{"delta":{"text":"Hi"}}"#);
        e.extend(event_evs("messageStop", br#"{"stopReason":"end_turn"}"#));
        e.push(Ev::Finished);
        assert_eq!(expect, e);
        for i in 0..=body.len() {
            assert_eq!(run(&body, &[i, body.len()]), expect, "split at {i}");
            for j in i..=body.len() {
                assert_eq!(
                    run(&body, &[i, j - i, body.len()]),
                    expect,
                    "split at {i}, {j}"
                );
            }
        }
        // Payload consumed a byte at a time: the CRC still sees every byte once.
        let mut f = EventStreamFramer::new(DEFAULT_MAX_FRAME_BYTES);
        assert_eq!(run_with(&mut f, &body, &[7], 1), expect);
    }

    #[test]
    fn prelude_crc_mismatch_abandons_the_stream() {
        let mut body = event("a", b"1");
        let second = body.len();
        body.extend(event("b", b"2"));
        body.extend(event("c", b"3"));
        body[second + 9] ^= 1;
        let mut expect = event_evs("a", b"1");
        expect.extend([Ev::Fault(Fault::PreludeCrc), Ev::Finished]);
        for size in [1, 5, body.len()] {
            assert_eq!(run(&body, &[size]), expect);
        }
        // Every later read is swallowed whole.
        let mut f = EventStreamFramer::new(DEFAULT_MAX_FRAME_BYTES);
        let mut input = &body[second..];
        assert_eq!(f.next(&mut input), Framed::Fault(Fault::PreludeCrc));
        assert_eq!(f.next(&mut input), Framed::NeedMore);
        assert!(input.is_empty());
        let mut more = &body[..];
        assert_eq!(f.next(&mut more), Framed::NeedMore);
        assert!(more.is_empty());
        assert_eq!(f.finish(), Framed::Finished);
    }

    #[test]
    fn message_crc_mismatch_ends_the_frame_and_the_next_decodes() {
        for corrupt in [0, 1] {
            let mut body = event("a", b"payload");
            let first = body.len();
            body.extend(event("b", b"2"));
            // The CRC itself, or a payload byte.
            let at = if corrupt == 0 { first - 1 } else { first - 5 };
            body[at] ^= 0x40;
            let p: &[u8] = if corrupt == 0 { b"payload" } else { b"payloa$" };
            let mut expect = vec![
                begin("event", "a"),
                payload(p),
                Ev::Fault(Fault::MessageCrc),
            ];
            expect.extend(event_evs("b", b"2"));
            expect.push(Ev::Finished);
            for size in [1, 3, body.len()] {
                assert_eq!(run(&body, &[size]), expect);
            }
        }
    }

    #[test]
    fn bad_headers_skip_the_frame() {
        // headers_length over the cap: the prelude is right, so the frame is skipped whole.
        let big = vec![0u8; HEADERS_CAP + 1];
        let mut frames = vec![raw_frame(&big, b"skipped")];
        // Type 10 is not defined.
        frames.push(frame(&[("x", H::BadType(10)), ("y", H::True)], b"skipped"));
        // A string value that runs past headers_length.
        let mut h = Vec::new();
        put_headers(&mut h, &[(":event-type", H::Str("chunk"))]);
        h.truncate(h.len() - 1);
        frames.push(raw_frame(&h, b"skipped"));
        // A name that runs past headers_length.
        frames.push(raw_frame(b"\x05ab", b""));
        for bad in frames {
            let mut body = event("a", b"1");
            body.extend(bad);
            body.extend(event("b", b"2"));
            let mut expect = event_evs("a", b"1");
            expect.push(Ev::Fault(Fault::Headers));
            expect.extend(event_evs("b", b"2"));
            expect.push(Ev::Finished);
            for size in [1, 2, 13, body.len()] {
                assert_eq!(run(&body, &[size]), expect);
            }
        }
    }

    #[test]
    fn frame_length_out_of_range_abandons_at_once() {
        // Past the cap, with a consistent length (issue 25, R9): skipped whole, never
        // buffered; a body that ends inside it is truncated.
        let mut f = EventStreamFramer::new(DEFAULT_MAX_FRAME_BYTES);
        let mut input = &prelude(u32::MAX, 0)[..];
        assert_eq!(f.next(&mut input), Framed::Fault(Fault::FrameTooLarge));
        assert!(input.is_empty());
        assert_eq!(f.next(&mut &b"more"[..]), Framed::NeedMore);
        assert_eq!(f.finish(), Framed::Fault(Fault::Truncated));
        assert_eq!(f.finish(), Framed::Finished);
        for (total, headers_len) in [(15, 0), (0, 0), (32, 17), (100, u32::MAX)] {
            let mut body = prelude(total, headers_len);
            body.extend(event("a", b"1"));
            assert_eq!(
                whole(&body),
                vec![Ev::Fault(Fault::FrameLength), Ev::Finished],
                "{total} {headers_len}"
            );
        }
        // The cap is configurable; a frame at the cap passes.
        let body = event("a", b"1");
        let len = body.len() as u32;
        let mut f = EventStreamFramer::new(len);
        let mut expect = event_evs("a", b"1");
        expect.push(Ev::Finished);
        assert_eq!(run_with(&mut f, &body, &[1], 0), expect);
        f.reset();
        assert_eq!(run_with(&mut f, &body, &[5], 0), expect);
        let mut f = EventStreamFramer::new(len - 1);
        assert_eq!(
            run_with(&mut f, &body, &[1], 0),
            vec![Ev::Fault(Fault::FrameTooLarge), Ev::Finished]
        );
        // The frame after a skipped one decodes.
        let mut two = event("a", b"1111");
        two.extend(event("b", b"2"));
        let mut f = EventStreamFramer::new(len);
        let mut expect = vec![Ev::Fault(Fault::FrameTooLarge)];
        expect.extend(event_evs("b", b"2"));
        expect.push(Ev::Finished);
        assert_eq!(run_with(&mut f, &two, &[1], 0), expect);
        f.reset();
        assert_eq!(run_with(&mut f, &two, &[7], 0), expect);
    }

    #[test]
    fn truncated_at_eof() {
        let body = two_frames();
        let first = event("contentBlockDelta", br#"{"delta":{"text":"Hi"}}"#).len();
        let complete = whole(&body);
        for cut in 0..body.len() {
            let events = run(&body[..cut], &[3]);
            let tail = if cut == 0 || cut == first {
                vec![Ev::Finished]
            } else {
                vec![Ev::Fault(Fault::Truncated), Ev::Finished]
            };
            assert_eq!(
                events[events.len() - tail.len()..],
                tail[..],
                "cut at {cut}"
            );
            // What came before the fault is a prefix of the complete run, payload aside.
            for (got, want) in events.iter().zip(&complete) {
                match (got, want) {
                    (Ev::Payload(a), Ev::Payload(b)) => assert!(b.starts_with(a)),
                    (Ev::Fault(_) | Ev::Finished, _) => break,
                    _ => assert_eq!(got, want, "cut at {cut}"),
                }
            }
        }
    }

    #[test]
    fn metadata_is_cleared_by_the_next_frame() {
        let body = two_frames();
        let mut f = EventStreamFramer::new(DEFAULT_MAX_FRAME_BYTES);
        let mut input = &body[..];
        assert_eq!(f.next(&mut input), Framed::Begin);
        assert_eq!(f.event_type(), b"contentBlockDelta");
        let Framed::Payload(n) = f.next(&mut input) else {
            panic!()
        };
        f.consumed(&input[..n]);
        input = &input[n..];
        assert_eq!(f.next(&mut input), Framed::End);
        assert_eq!(f.event_type(), b"contentBlockDelta");
        let mut part = &input[..13];
        assert_eq!(f.next(&mut part), Framed::NeedMore);
        assert_eq!(f.event_type(), b"");
        // Misuse does not panic: consuming outside a payload, or more than announced.
        f.consumed(b"junk");
        let mut rest = &input[13..];
        assert_eq!(f.next(&mut rest), Framed::Begin);
        f.consumed(&[0; 4096]);
        assert_eq!(f.next(&mut rest), Framed::Fault(Fault::MessageCrc));
    }

    fn frame_strategy() -> impl Strategy<Value = Vec<u8>> {
        (
            prop::sample::select(&["chunk", "contentBlockDelta", "messageStop", ""][..]),
            prop::collection::vec(any::<u8>(), 0..40),
            any::<bool>(),
            any::<i64>(),
        )
            .prop_map(|(event_type, payload, extra, n)| {
                let mut headers = vec![(":event-type", H::Str(event_type))];
                if extra {
                    headers.push(("n", H::Long(n)));
                    headers.push(("b", H::True));
                }
                frame(&headers, &payload)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        #[test]
        fn chunk_invariance(frames in prop::collection::vec(frame_strategy(), 0..5),
                            sizes in prop::collection::vec(1usize..40, 1..8),
                            bite in 0usize..5) {
            let body = frames.concat();
            let expect = whole(&body);
            prop_assert_eq!(expect.iter().filter(|e| **e == Ev::End).count(), frames.len());
            let mut f = EventStreamFramer::new(DEFAULT_MAX_FRAME_BYTES);
            prop_assert_eq!(run_with(&mut f, &body, &sizes, bite), expect);
        }

        #[test]
        fn garbage_terminates(body in prop::collection::vec(any::<u8>(), 0..300),
                              sizes in prop::collection::vec(1usize..40, 1..8)) {
            let events = run(&body, &sizes);
            prop_assert_eq!(events.last(), Some(&Ev::Finished));
        }

        #[test]
        fn damaged_frames_terminate(frames in prop::collection::vec(frame_strategy(), 1..5),
                                    at in any::<prop::sample::Index>(), bit in 0u8..8,
                                    cut in any::<prop::sample::Index>(),
                                    sizes in prop::collection::vec(1usize..40, 1..8)) {
            let mut body = frames.concat();
            let i = at.index(body.len());
            body[i] ^= 1 << bit;
            body.truncate(cut.index(body.len() + 1));
            let expect = whole(&body);
            prop_assert_eq!(expect.last(), Some(&Ev::Finished));
            prop_assert_eq!(run(&body, &sizes), expect);
        }
    }
}
