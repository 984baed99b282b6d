//! The provider decoders' checks: a target's input is `[flags, seed, body…]`. `flags` picks a
//! configuration (bit 0: the hermes text dialect; bit 1: a tiny `max_call_bytes`; bit 2:
//! drop malformed calls; bit 3: caller-provided memory) and `seed` the read sizes. Every body
//! is decoded whole and in random reads (empty reads included): the coalesced events must be
//! equal (rule 4), and both runs must keep the event model (blocks never interleave and
//! complete in order, indices count up from 0, chunks belong to the open block, a tool call's
//! input is compact JSON, finishes come with no block open, at most one per choice, and the
//! stream ends with one). No input may panic.

use tokensieve::accumulate::{Collector, OwnedEvent};
use tokensieve::provider::{Decoder, DecoderConfig, Provider};
use tokensieve::{Dialect, OnMalformed, Part};

use crate::{assert_same, is_compact, is_json_object, splits};

/// Decodes `body` in reads of `sizes` (whole when empty); `None` when the provider is not
/// built.
fn run(
    config: &DecoderConfig<'_>,
    fixed: bool,
    body: &[u8],
    sizes: &[usize],
) -> Option<Vec<OwnedEvent>> {
    let mut memory = vec![0u8; 16 * 1024];
    let mut decoder = if fixed {
        Decoder::with_memory(config, &mut memory).ok()?
    } else {
        Decoder::new(config).ok()?
    };
    let mut collector = Collector::new();
    let mut events = Vec::new();
    crate::pump(&mut decoder, body, sizes, |ev| events.push(collector.push(ev)));
    Some(events)
}

/// Consecutive chunks of one block and part joined.
fn coalesce(events: &[OwnedEvent]) -> Vec<OwnedEvent> {
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
        ) = (out.last_mut(), ev)
        {
            if (*b0, *p0) == (*block, *part) {
                t0.push_str(text);
                continue;
            }
        }
        out.push(ev.clone());
    }
    out
}

/// The event model (see the module docs).
fn lint(events: &[OwnedEvent]) {
    let mut open: Option<u32> = None;
    let mut next = 0u32;
    let mut finished: Vec<u32> = Vec::new();
    let mut input = String::new();
    for (i, ev) in events.iter().enumerate() {
        let at = format!("event #{i}: {}", ev.to_json());
        match ev {
            OwnedEvent::BlockStart { index, .. } => {
                assert!(open.is_none(), "blocks interleave (rule 1): {at}");
                assert_eq!(*index, next, "indices count up from 0: {at}");
                open = Some(*index);
                next += 1;
                input.clear();
            }
            OwnedEvent::Chunk {
                block, part, text, ..
            } => {
                assert_eq!(
                    Some(*block),
                    open,
                    "a chunk of a block that is not open: {at}"
                );
                if *part == Some(Part::Input) {
                    input.push_str(text);
                }
            }
            OwnedEvent::BlockComplete {
                index,
                error,
                block_type,
                ..
            } => {
                assert_eq!(
                    Some(*index),
                    open,
                    "completes a block that is not open: {at}"
                );
                if *block_type == tokensieve::BlockType::ToolCall && error.is_none() {
                    assert!(
                        is_json_object(&input) && is_compact(&input),
                        "a call's input is a compact JSON object (rule 9): {input:?} at {at}"
                    );
                }
                open = None;
            }
            OwnedEvent::Finish { choice, .. } => {
                assert!(open.is_none(), "a finish with a block open: {at}");
                assert!(
                    !finished.contains(choice),
                    "a second finish for a choice: {at}"
                );
                finished.push(*choice);
            }
            OwnedEvent::Error { .. } => {
                assert!(open.is_none(), "an error with a block open: {at}");
            }
            OwnedEvent::Stop { .. } => {}
        }
    }
    assert!(open.is_none(), "the stream ended with a block open");
    assert!(!finished.is_empty(), "the stream ended without a finish");
}

/// Decodes `data` as a `provider` body whole and in pieces (see the module docs).
pub fn check_decode(provider: Provider, data: &[u8]) {
    let [flags, seed, body @ ..] = data else {
        return;
    };
    let mut config = DecoderConfig::new(provider);
    if flags & 1 != 0 {
        config.options.dialect = Dialect::Hermes;
    }
    if flags & 2 != 0 {
        config.options.max_call_bytes = 64;
    }
    if flags & 4 != 0 {
        config.options.on_malformed = OnMalformed::Drop;
    }
    let fixed = flags & 8 != 0;
    let Some(whole) = run(&config, fixed, body, &[]) else {
        return;
    };
    let sizes = splits(body.len(), u64::from(*seed));
    let split = run(&config, fixed, body, &sizes).expect("the same config");
    lint(&whole);
    lint(&split);
    assert_same(
        &coalesce(&whole),
        &coalesce(&split),
        &format!("chunking changed the events (rule 4); sizes {sizes:?}"),
    );
}
