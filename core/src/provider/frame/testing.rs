//! The framers' shared test driver: runs a framer over reads and records what it reported
//! in a normalised form, without a heap (the tests also run without `alloc`). The fuzz
//! crate's framing targets run it too (feature `fuzzing`, `crate::__fuzzing`).

use super::Framed;
use super::event_stream::EventStreamFramer;
use super::json_array::JsonArrayFramer;
use super::ndjson::NdjsonFramer;
use super::sse::SseFramer;

/// The pull API every framer has.
pub(crate) trait Framer {
    fn next(&mut self, input: &mut &[u8]) -> Framed;
    fn consumed(&mut self, payload: &[u8]);
    fn finish(&mut self) -> Framed;
    /// The bytes a [`Framed::Held`] stands for.
    fn held(&mut self) -> &'static [u8] {
        &[]
    }
    /// Metadata shown at Begin and End (the SSE event name).
    fn name(&self) -> &[u8] {
        &[]
    }
}

impl Framer for SseFramer {
    fn next(&mut self, input: &mut &[u8]) -> Framed {
        SseFramer::next(self, input)
    }
    fn consumed(&mut self, payload: &[u8]) {
        SseFramer::consumed(self, payload)
    }
    fn finish(&mut self) -> Framed {
        SseFramer::finish(self)
    }
    fn held(&mut self) -> &'static [u8] {
        SseFramer::held(self)
    }
    fn name(&self) -> &[u8] {
        self.event_name()
    }
}

impl Framer for JsonArrayFramer {
    fn next(&mut self, input: &mut &[u8]) -> Framed {
        JsonArrayFramer::next(self, input)
    }
    fn consumed(&mut self, payload: &[u8]) {
        JsonArrayFramer::consumed(self, payload)
    }
    fn finish(&mut self) -> Framed {
        JsonArrayFramer::finish(self)
    }
}

impl Framer for NdjsonFramer {
    fn next(&mut self, input: &mut &[u8]) -> Framed {
        NdjsonFramer::next(self, input)
    }
    fn consumed(&mut self, payload: &[u8]) {
        NdjsonFramer::consumed(self, payload)
    }
    fn finish(&mut self) -> Framed {
        NdjsonFramer::finish(self)
    }
    fn held(&mut self) -> &'static [u8] {
        NdjsonFramer::held(self)
    }
}

impl Framer for EventStreamFramer {
    fn next(&mut self, input: &mut &[u8]) -> Framed {
        EventStreamFramer::next(self, input)
    }
    fn consumed(&mut self, payload: &[u8]) {
        EventStreamFramer::consumed(self, payload)
    }
    fn finish(&mut self) -> Framed {
        EventStreamFramer::finish(self)
    }
    /// The frame's `:event-type` header, known at Begin.
    fn name(&self) -> &[u8] {
        self.event_type()
    }
}

const CAP: usize = 8192;

/// What a framer reported, normalised: payload runs merged (`Held` bytes and `Newline` as
/// `\n` included), `«` Begin, `»` End, `‡` Done, `⟪code⟫` a fault. A non-empty name is shown
/// as `«name|` at Begin and `|name»` at End. The first [`CAP`] bytes are kept; the whole is
/// also hashed (FNV-1a), so longer outputs (fuzz inputs) still compare.
#[derive(Clone, Copy)]
pub(crate) struct Out {
    buf: [u8; CAP],
    len: usize,
    hash: u64,
}

impl Out {
    pub(crate) const fn new() -> Self {
        Out {
            buf: [0; CAP],
            len: 0,
            hash: 0xcbf2_9ce4_8422_2325,
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.hash = (self.hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        if let Some(dst) = self.buf.get_mut(self.len..self.len + bytes.len()) {
            dst.copy_from_slice(bytes);
        }
        self.len += bytes.len();
    }

    /// What was recorded (its first [`CAP`] bytes).
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.buf[..self.len.min(CAP)]
    }

    fn record<F: Framer>(&mut self, f: &mut F, item: Framed) {
        match item {
            Framed::Begin => {
                self.push("«".as_bytes());
                if !f.name().is_empty() {
                    let mut name = [0u8; 128];
                    let n = f.name().len().min(128);
                    name[..n].copy_from_slice(&f.name()[..n]);
                    self.push(&name[..n]);
                    self.push(b"|");
                }
            }
            Framed::End => {
                if !f.name().is_empty() {
                    let mut name = [0u8; 128];
                    let n = f.name().len().min(128);
                    name[..n].copy_from_slice(&f.name()[..n]);
                    self.push(b"|");
                    self.push(&name[..n]);
                }
                self.push("»".as_bytes());
            }
            Framed::Newline => self.push(b"\n"),
            Framed::Held => {
                let held = f.held();
                assert!(!held.is_empty() && held.len() <= 8, "held {held:?}");
                self.push(held);
            }
            Framed::Done => self.push("‡".as_bytes()),
            Framed::Fault(fault) => {
                self.push("⟪".as_bytes());
                self.push(fault.code().as_bytes());
                self.push("⟫".as_bytes());
            }
            Framed::NeedMore | Framed::Payload(_) | Framed::Finished => {
                unreachable!("{item:?} is handled by the driver")
            }
        }
    }
}

impl PartialEq for Out {
    fn eq(&self, other: &Out) -> bool {
        (self.len, self.hash) == (other.len, other.hash) && self.bytes() == other.bytes()
    }
}

impl PartialEq<&str> for Out {
    fn eq(&self, other: &&str) -> bool {
        self.len == other.len() && self.bytes() == other.as_bytes()
    }
}

impl core::fmt::Debug for Out {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let more = if self.len > CAP { " (cut)" } else { "" };
        match core::str::from_utf8(self.bytes()) {
            Ok(s) => write!(f, "{s:?}{more}"),
            Err(_) => write!(f, "\"{}\"{more}", self.bytes().escape_ascii()),
        }
    }
}

/// Feeds `chunks` to `f` as reads, taking at most `step` bytes of each `Payload`, then
/// finishes; checks the pull contract on the way.
pub(crate) fn run<'a, F: Framer>(
    f: &mut F,
    chunks: impl IntoIterator<Item = &'a [u8]>,
    step: usize,
) -> Out {
    let mut out = Out::new();
    for chunk in chunks {
        let mut input = chunk;
        // A few calls in a row may consume nothing (Begin, Newline, Held, End, a fault); a
        // generous bound catches a framer that loops.
        let mut idle = 0;
        loop {
            idle += 1;
            assert!(idle < 64, "no progress at \"{}\"", input.escape_ascii());
            let before = input.len();
            let item = f.next(&mut input);
            if input.len() < before {
                idle = 0;
            }
            match item {
                Framed::NeedMore => {
                    assert!(input.is_empty(), "NeedMore with input left");
                    break;
                }
                Framed::Payload(n) => {
                    assert!(
                        n >= 1 && n <= input.len(),
                        "Payload({n}) of {}",
                        input.len()
                    );
                    let k = n.min(step);
                    out.push(&input[..k]);
                    f.consumed(&input[..k]);
                    input = &input[k..];
                    idle = 0;
                }
                Framed::Finished => panic!("Finished before finish()"),
                item => {
                    out.record(f, item);
                }
            }
        }
    }
    let mut idle = 0;
    loop {
        idle += 1;
        assert!(idle < 64, "finish() does not end");
        match f.finish() {
            Framed::Finished => break,
            item @ (Framed::NeedMore | Framed::Payload(_)) => panic!("{item:?} from finish()"),
            item => out.record(f, item),
        }
    }
    assert_eq!(f.finish(), Framed::Finished, "Finished is not sticky");
    out
}

/// Runs `body` through fresh framers from `new` whole, split at every position, one byte
/// per read and with payloads taken one byte at a time; asserts all agree and returns the
/// whole-body result.
#[cfg(test)]
pub(crate) fn every_split<F: Framer>(new: impl Fn() -> F, body: &[u8]) -> Out {
    let whole = run(&mut new(), [body], usize::MAX);
    for at in 0..=body.len() {
        let (a, b) = body.split_at(at);
        let split = run(&mut new(), [a, b], usize::MAX);
        assert_eq!(whole, split, "split at {at} of \"{}\"", body.escape_ascii());
        let split = run(&mut new(), [a, b], 1);
        assert_eq!(
            whole,
            split,
            "split at {at}, step 1, {:?}",
            body.escape_ascii()
        );
    }
    let bytes = run(&mut new(), body.chunks(1), usize::MAX);
    assert_eq!(
        whole,
        bytes,
        "one byte per read: \"{}\"",
        body.escape_ascii()
    );
    let bytes = run(&mut new(), body.chunks(3), 2);
    assert_eq!(
        whole,
        bytes,
        "three bytes per read: {:?}",
        body.escape_ascii()
    );
    whole
}

/// Feeds `reads` reads of `chunk` (after `head`, before `tail`) and counts payload bytes,
/// for the large-input tests.
#[cfg(test)]
pub(crate) fn count<F: Framer>(
    f: &mut F,
    head: &[u8],
    chunk: &[u8],
    reads: usize,
    tail: &[u8],
) -> (usize, usize) {
    let (mut payload, mut items) = (0, 0);
    let mut feed = |f: &mut F, mut input: &[u8]| {
        loop {
            match f.next(&mut input) {
                Framed::NeedMore => break,
                Framed::Payload(n) => {
                    f.consumed(&input[..n]);
                    input = &input[n..];
                    payload += n;
                }
                Framed::Newline => payload += 1,
                _ => items += 1,
            }
        }
    };
    feed(f, head);
    for _ in 0..reads {
        feed(f, chunk);
    }
    feed(f, tail);
    while f.finish() != Framed::Finished {
        items += 1;
    }
    (payload, items)
}

/// `body` cut at `cuts` (clamped, sorted; empty reads included), for the proptests.
#[cfg(feature = "std")]
pub(crate) fn pieces<'a>(body: &'a [u8], cuts: &[usize]) -> std::vec::Vec<&'a [u8]> {
    let mut cuts: std::vec::Vec<usize> = cuts.iter().map(|&c| c.min(body.len())).collect();
    cuts.sort_unstable();
    let mut out = std::vec::Vec::new();
    let mut at = 0;
    for c in cuts {
        out.push(&body[at..c]);
        at = c;
    }
    out.push(&body[at..]);
    out
}

/// The chunk-invariance property: `body` whole, cut at `cuts`, cut with payloads taken
/// `step` bytes at a time, and one byte per read, gives the same result.
#[cfg(feature = "std")]
pub(crate) fn same_at_any_cut<F: Framer>(
    new: impl Fn() -> F,
    body: &[u8],
    cuts: &[usize],
    step: usize,
) {
    let raw = body;
    let whole = run(&mut new(), [body], usize::MAX);
    let split = pieces(body, cuts);
    let body = body.escape_ascii();
    assert_eq!(
        whole,
        run(&mut new(), split.iter().copied(), usize::MAX),
        "\"{body}\" cut at {cuts:?}"
    );
    assert_eq!(
        whole,
        run(&mut new(), split.iter().copied(), step),
        "\"{body}\" cut at {cuts:?}, step {step}"
    );
    assert_eq!(
        whole,
        run(&mut new(), raw.chunks(1), usize::MAX),
        "\"{body}\" one byte per read"
    );
}

/// Where the proptests cut a body.
#[cfg(all(test, feature = "std"))]
pub(crate) fn cuts() -> impl proptest::strategy::Strategy<Value = std::vec::Vec<usize>> {
    proptest::collection::vec(0usize..400, 0..10)
}
