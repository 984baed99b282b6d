//! Framing: how a provider's HTTP body is cut into JSON documents, on bytes, incrementally.
//!
//! Every framer has the same pull shape. `next(&mut input)` looks at the front of the input
//! and says what it is ([`Framed`]); framing bytes (SSE field names, line ends, AWS preludes
//! and headers, the commas and brackets between array elements) are consumed by the framer
//! itself, payload bytes are not: for [`Framed::Payload(n)`](Framed::Payload) the caller
//! reads up to `n` bytes from the front of the input, reports the `k` bytes it used with
//! `consumed(&input[..k])`, advances its input by `k`, and calls `next` again (the framer
//! remembers that `n - k` payload bytes are still known, so a long line is scanned once).
//! Rarely the SSE framer must consume payload bytes before it can tell what they are; it
//! hands them back as [`Framed::Held`]. `finish()` says the body ended. Chunking never
//! changes what a framer reports (after merging adjacent payload runs).
//!
//! * `sse.rs` — Server-Sent Events (WHATWG): OpenAI, Anthropic, Gemini `alt=sse`.
//! * `json_array.rs` — a streamed JSON array, one document per element (Gemini's default).
//! * `event_stream.rs` — the AWS event stream (Bedrock): prelude, headers, payload, CRCs.
//! * `ndjson.rs` — newline-delimited JSON, one document per line (Ollama).

mod crc;
pub(crate) mod event_stream;
pub(crate) mod json_array;
pub(crate) mod ndjson;
pub(crate) mod sse;
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) mod testing;

/// What the front of the input is (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Framed {
    /// All input is consumed (or held by the framer); call again with more, or `finish()`.
    NeedMore,
    /// A document begins. Metadata known so far (an SSE event name, AWS headers) can be
    /// read from the framer now.
    Begin,
    /// The next `n ≥ 1` input bytes belong to the current document; they are not consumed.
    Payload(usize),
    /// One payload byte `\n` that is not in the input (SSE joins multi-line data with LF).
    Newline,
    /// Payload bytes the framer consumed and held while it could not yet tell what they were
    /// (SSE: a read ended inside the first bytes of a data value that might be `[DONE]`, or
    /// at the start of a bare JSON document's line that might be `data:` or `event:`; NDJSON:
    /// a read ended in a `\r` that was not a line end after all). At most 8 bytes; read them
    /// with the framer's `held()`, which consumes them.
    Held,
    /// The current document is complete.
    End,
    /// SSE `data: [DONE]`: the OpenAI end marker (no document).
    Done,
    /// A framing fault. The current document, if one was open, ended with it.
    Fault(Fault),
    /// After `finish()`: nothing more will come.
    Finished,
}

/// A framing fault: what was wrong with the body's structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// SSE: a line that is not a field, outside any event, and not a bare JSON document.
    NotSse,
    /// JSON array: a byte between elements that is neither whitespace, `,` nor `]`.
    BadSeparator,
    /// The body ended inside a document (a truncated array element or AWS frame).
    Truncated,
    /// AWS: the prelude CRC does not match; the stream cannot be resynchronised.
    PreludeCrc,
    /// AWS: the message CRC does not match (the frame's payload was already streamed).
    MessageCrc,
    /// AWS: `total_length` is below the minimum (16), or `headers_length` does not fit it:
    /// the stream is abandoned.
    FrameLength,
    /// AWS: `total_length` is above the configured cap (`max_frame_bytes`); its prelude CRC
    /// matched, so the frame is skipped whole and the next one decodes.
    FrameTooLarge,
    /// AWS: a header is malformed or the headers do not fit `headers_length`.
    Headers,
}

impl Fault {
    /// The `code` of the `error` event that reports this fault.
    pub(crate) const fn code(self) -> &'static str {
        match self {
            Fault::NotSse => "not-sse",
            Fault::BadSeparator => "bad-separator",
            Fault::Truncated => "truncated",
            Fault::PreludeCrc => "prelude-crc",
            Fault::MessageCrc => "message-crc",
            Fault::FrameLength | Fault::FrameTooLarge => "frame-length",
            Fault::Headers => "headers",
        }
    }

    /// A sentence for the `error` event's `message`.
    pub(crate) const fn message(self) -> &'static str {
        match self {
            Fault::NotSse => "a line outside any event is not an SSE field",
            Fault::BadSeparator => "unexpected byte between JSON array elements",
            Fault::Truncated => "the body ended inside a frame",
            Fault::PreludeCrc => "AWS event stream prelude CRC mismatch; stream abandoned",
            Fault::MessageCrc => "AWS event stream message CRC mismatch",
            Fault::FrameLength => "AWS event stream frame length out of range; stream abandoned",
            Fault::FrameTooLarge => {
                "AWS event stream frame larger than max_frame_bytes; frame skipped"
            }
            Fault::Headers => "malformed AWS event stream headers; frame skipped",
        }
    }
}
