//! Hooks for the fuzz crate (`fuzz/`), compiled only with the `fuzzing` feature and hidden
//! from the docs: not API, no stability promise. They let a fuzz target reach a crate-private
//! layer — the provider framings of `provider/frame/` — through a narrow entry point, without
//! making the layer public.

use crate::provider::frame::event_stream::EventStreamFramer;
use crate::provider::frame::json_array::JsonArrayFramer;
use crate::provider::frame::ndjson::NdjsonFramer;
use crate::provider::frame::sse::SseFramer;
use crate::provider::frame::testing;

/// A provider body's framing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// Server-Sent Events (`provider/frame/sse.rs`).
    Sse,
    /// A streamed JSON array (`provider/frame/json_array.rs`).
    JsonArray,
    /// Newline-delimited JSON (`provider/frame/ndjson.rs`).
    Ndjson,
    /// The AWS event stream, with this frame length cap (`provider/frame/event_stream.rs`).
    EventStream {
        /// `max_frame_bytes`.
        max_frame_bytes: u32,
    },
}

/// Runs `body` through fresh framers of `framing`: whole, cut at `cuts` (clamped and sorted;
/// empty reads included), cut with payloads taken `step` bytes at a time, and one byte per
/// read. Panics unless all four report the same (payload runs merged; document begins and
/// ends, event names, `[DONE]`, faults), or when a framer breaks its pull contract: a run of
/// calls that consume nothing (a loop), `NeedMore` with input left, a `Payload` past the
/// input or empty, `Finished` before `finish()` or not sticky after it, a `Held` of 0 or more
/// than 8 bytes.
pub fn frame_same_at_any_cut(framing: Framing, body: &[u8], cuts: &[usize], step: usize) {
    let step = step.max(1);
    match framing {
        Framing::Sse => testing::same_at_any_cut(SseFramer::new, body, cuts, step),
        Framing::JsonArray => testing::same_at_any_cut(JsonArrayFramer::new, body, cuts, step),
        Framing::Ndjson => testing::same_at_any_cut(NdjsonFramer::new, body, cuts, step),
        Framing::EventStream { max_frame_bytes } => {
            testing::same_at_any_cut(|| EventStreamFramer::new(max_frame_bytes), body, cuts, step)
        }
    }
}
