//! Provider-decoder test support: a body decoded in reads of given sizes, on the heap or on
//! caller memory, as its events, owned, or as the JSON lines of its coalesced events
//! (consecutive chunks of one block and part joined), and the same at every read size.

use tokensieve::Event;
use tokensieve::accumulate::{Collector, OwnedEvent};
use tokensieve::provider::{Decoder, DecoderConfig};

/// Decodes `body` in reads of `sizes` (cycled; none: the body whole) and calls `on` with
/// every event; `memory`: on that many bytes of caller memory instead of the heap.
pub fn each(
    config: &DecoderConfig<'_>,
    body: &[u8],
    sizes: &[usize],
    memory: Option<usize>,
    mut on: impl FnMut(Event<'_>),
) {
    let mut mem = vec![0u8; memory.unwrap_or(0)];
    let mut decoder = match memory {
        Some(_) => Decoder::with_memory(config, &mut mem).unwrap(),
        None => Decoder::new(config).unwrap(),
    };
    let mut at = 0;
    for &size in sizes.iter().cycle() {
        if at >= body.len() {
            break;
        }
        let end = (at + size.max(1)).min(body.len());
        decoder.feed_with(&body[at..end], &mut on);
        at = end;
    }
    if sizes.is_empty() && !body.is_empty() {
        decoder.feed_with(body, &mut on);
    }
    decoder.finish_with(&mut on);
}

/// The events of `body` read as [`each`] reads it, owned (not coalesced).
pub fn events(
    config: &DecoderConfig<'_>,
    body: &[u8],
    sizes: &[usize],
    memory: Option<usize>,
) -> Vec<OwnedEvent> {
    let mut collector = Collector::new();
    let mut out = Vec::new();
    each(config, body, sizes, memory, |ev| {
        out.push(collector.push(&ev))
    });
    out
}

/// Consecutive chunks of one block and part joined (the chunking rule 4 lets differ).
pub fn coalesce(events: Vec<OwnedEvent>) -> Vec<OwnedEvent> {
    let mut out: Vec<OwnedEvent> = Vec::new();
    for ev in events {
        if let (
            Some(OwnedEvent::Chunk {
                text: t0,
                block: b0,
                part: p0,
                ..
            }),
            OwnedEvent::Chunk {
                text, block, part, ..
            },
        ) = (out.last_mut(), &ev)
        {
            if (*b0, *p0) == (*block, *part) {
                t0.push_str(text);
                continue;
            }
        }
        out.push(ev);
    }
    out
}

/// JSON lines of the coalesced event stream of `body` fed `size` bytes at a time; `memory`:
/// decode on that many bytes of caller memory instead of the heap.
pub fn lines(
    config: &DecoderConfig<'_>,
    body: &[u8],
    size: usize,
    memory: Option<usize>,
) -> Vec<String> {
    let events = coalesce(events(config, body, &[size], memory));
    events.iter().map(OwnedEvent::to_json).collect()
}

/// JSON lines of the events of `body` fed `size` bytes at a time but its chunks; `memory`
/// as in [`lines`].
pub fn non_chunks(
    config: &DecoderConfig<'_>,
    body: &[u8],
    size: usize,
    memory: Option<usize>,
) -> Vec<String> {
    // Coalescing joins chunks only: the other lines are the events as they came.
    let mut lines = lines(config, body, size, memory);
    lines.retain(|l| !l.starts_with(r#"{"event":"chunk""#));
    lines
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

/// Some line of `lines` contains `needle`.
#[track_caller]
pub fn mentions(lines: &[String], needle: &str) {
    assert!(
        lines.iter().any(|l| l.contains(needle)),
        "no line with {needle}\nin {lines:#?}"
    );
}

/// The last line of `lines` contains `needle`.
#[track_caller]
pub fn ends_mentioning(lines: &[String], needle: &str) {
    assert!(
        lines.last().is_some_and(|l| l.contains(needle)),
        "the last line has no {needle}\nin {lines:#?}"
    );
}

/// An OpenAI Responses SSE event: its `event:` line and its data, `{"type": ty, <fields>}`.
pub fn responses_event(ty: &str, fields: &str) -> String {
    format!("event: {ty}\ndata: {{\"type\":\"{ty}\",{fields}}}\n\n")
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
