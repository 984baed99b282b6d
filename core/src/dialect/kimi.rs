//! `kimi-k2` — Moonshot Kimi K2:
//!
//! ```text
//! <|tool_calls_section_begin|>
//! <|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}<|tool_call_end|>
//! …
//! <|tool_calls_section_end|>
//! ```
//!
//! with `<think>…</think>` thinking (Kimi K2 Thinking). The markers are special tokens; the
//! section, its calls and their bodies follow the shared machine ([`super::sectioned`],
//! whose module docs list the decisions). Specific to Kimi:
//!
//! - The header (between `<|tool_call_begin|>` and `<|tool_call_argument_begin|>`, trimmed)
//!   is the call's id on the wire, and the tool_call block's id is exactly it
//!   (`functions.get_weather:0`): the host sends it back with the result.
//! - The name is the id without a leading `functions.` and without a trailing `:IDX` (a colon
//!   and digits): `functions.get_weather:0` and `get_weather:0` both name `get_weather`; a
//!   dotted name keeps its dots (`functions.mcp.search:1` names `mcp.search`, as SGLang reads
//!   it). An id with no `:IDX` is taken whole as the name (minus the prefix) rather than
//!   dropping the call; an empty name fails the call as `missing-name`.
//! - Whitespace around the id and around the JSON body is formatting (Kimi writes `\n` and
//!   spaces there).

use super::sectioned::{self, Format};

/// Kimi K2's markers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Kimi;

impl Format for Kimi {
    const SECTION_OPEN: &'static [u8] = b"<|tool_calls_section_begin|>";
    const SECTION_CLOSE: &'static [u8] = b"<|tool_calls_section_end|>";
    const CALL_OPEN: &'static [u8] = b"<|tool_call_begin|>";
    const CALL_CLOSE: &'static [u8] = b"<|tool_call_end|>";
    const HEADER_ENDS: &'static [&'static [u8]] = &[b"<|tool_call_argument_begin|>"];
    const FENCE_OPEN: &'static [u8] = b"";
    const FENCE_CLOSE: &'static [u8] = b"";
    const WIRE_ID: bool = true;

    fn name(id: &[u8]) -> &[u8] {
        let name = id.strip_prefix(b"functions.").unwrap_or(id);
        match name.iter().rposition(|&b| b == b':') {
            Some(colon)
                if colon + 1 < name.len() && name[colon + 1..].iter().all(u8::is_ascii_digit) =>
            {
                &name[..colon]
            }
            _ => name,
        }
    }
}

/// The `kimi-k2` dialect's state.
pub(crate) type State = sectioned::State<Kimi>;
