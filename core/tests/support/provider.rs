//! Provider-decoder test support: a body decoded in reads of one size, as the JSON lines of
//! its coalesced events (consecutive chunks of one block and part joined), on the heap or on
//! caller memory.

use tokensieve::Event;
use tokensieve::accumulate::{Collector, OwnedEvent};
use tokensieve::provider::{Decoder, DecoderConfig};

/// JSON lines of the coalesced event stream of `body` fed `size` bytes at a time; `memory`:
/// decode on that many bytes of caller memory instead of the heap.
pub fn lines(
    config: &DecoderConfig<'_>,
    body: &[u8],
    size: usize,
    memory: Option<usize>,
) -> Vec<String> {
    let mut mem = vec![0u8; memory.unwrap_or(0)];
    let mut decoder = match memory {
        Some(_) => Decoder::with_memory(config, &mut mem).unwrap(),
        None => Decoder::new(config).unwrap(),
    };
    let mut collector = Collector::new();
    let mut events: Vec<OwnedEvent> = Vec::new();
    let mut push = |ev: Event<'_>| {
        let owned = collector.push(&ev);
        if let (
            Some(OwnedEvent::Chunk {
                text: t0,
                block: i0,
                part: p0,
                ..
            }),
            OwnedEvent::Chunk {
                text, block, part, ..
            },
        ) = (events.last_mut(), &owned)
        {
            if (*i0, *p0) == (*block, *part) {
                t0.push_str(text);
                return;
            }
        }
        events.push(owned);
    };
    for read in body.chunks(size.max(1)) {
        decoder.feed_with(read, &mut push);
    }
    decoder.finish_with(&mut push);
    events.iter().map(|e| e.to_json()).collect()
}

/// The lines of `body` read whole, asserted equal at every read size in `sizes` (chunk
/// invariance, rule 4).
#[track_caller]
pub fn invariant(
    config: &DecoderConfig<'_>,
    body: &[u8],
    sizes: impl IntoIterator<Item = usize>,
    memory: Option<usize>,
) -> Vec<String> {
    let whole = lines(config, body, body.len(), memory);
    for size in sizes {
        assert_eq!(lines(config, body, size, memory), whole, "size {size}");
    }
    whole
}

/// `line` is among `lines` (compared as text).
#[track_caller]
pub fn has(lines: &[String], line: &str) {
    assert!(lines.iter().any(|l| l == line), "{line}\nnot in {lines:#?}");
}

/// The first line that `first` accepts comes before the first that `then` accepts (both
/// present).
#[track_caller]
pub fn before(lines: &[String], first: impl Fn(&str) -> bool, then: impl Fn(&str) -> bool) {
    let a = lines.iter().position(|l| first(l));
    let b = lines.iter().position(|l| then(l));
    assert!(
        matches!((a, b), (Some(a), Some(b)) if a < b),
        "{a:?} then {b:?} in {lines:#?}"
    );
}
