//! The provider framings alone (issue 16: a fuzz target per framing): SSE, Gemini's streamed
//! JSON array, the AWS event stream, each below its decoders. A target's input is
//! `[flags, seed, body…]`, the layout of the `decode_*` targets (their seeds serve here too):
//! `seed` picks the read sizes, `flags & 7` how many payload bytes the caller takes at a time
//! (1–7, 0: all it is offered), and for the event stream `flags & 8` a small frame length cap
//! (`16 + 8·seed` bytes; else 16 MiB, the decoders' default). The body is framed whole, in the
//! random reads, in those reads taking payloads a few bytes at a time, and one byte per read:
//! what the framer reports (payload bytes, document begins and ends with their event name,
//! `[DONE]`, faults) must be the same each time (chunk invariance, docs/design.md rule 4, at
//! the framing layer), and the framer must keep its pull contract (no loop without progress,
//! no `NeedMore` with input left, payloads within the input, `Finished` only after `finish()`
//! and then for good). No input may panic. The check itself lives in the core
//! (`tokensieve::__fuzzing`, feature `fuzzing`: the framers are crate-private).

use tokensieve::__fuzzing::{Framing, frame_same_at_any_cut};

use crate::splits;

/// The framings a target can pick.
#[derive(Clone, Copy, Debug)]
pub enum Which {
    /// Server-Sent Events.
    Sse,
    /// Gemini's streamed JSON array.
    JsonArray,
    /// Newline-delimited JSON (Ollama).
    Ndjson,
    /// The AWS event stream.
    EventStream,
}

/// Runs the checks on one fuzz input (see the module docs).
pub fn check_frame(which: Which, data: &[u8]) {
    let [flags, seed, body @ ..] = data else {
        return;
    };
    let framing = match which {
        Which::Sse => Framing::Sse,
        Which::JsonArray => Framing::JsonArray,
        Which::Ndjson => Framing::Ndjson,
        Which::EventStream => Framing::EventStream {
            max_frame_bytes: if flags & 8 != 0 {
                16 + 8 * u32::from(*seed)
            } else {
                16 << 20
            },
        },
    };
    let step = match flags & 7 {
        0 => usize::MAX,
        k => usize::from(k),
    };
    let mut cuts = Vec::new();
    let mut at = 0;
    for n in splits(body.len(), u64::from(*seed)) {
        at += n;
        cuts.push(at);
    }
    frame_same_at_any_cut(framing, body, &cuts, step);
}
