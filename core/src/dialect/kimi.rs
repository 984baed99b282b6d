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
//!
//! Its markers are the `kimi-k2` preset's description (`crate::spec`, the sectioned shape).

/// The `kimi-k2` dialect's state: the sectioned machine.
pub(crate) type State = super::sectioned::State;
