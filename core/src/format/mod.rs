//! (alloc) Whole-text helpers: parse a complete text into events and tool calls, and write
//! tool results back in a dialect's wire format.
//!
//! These run the same streaming parser over the whole text; they exist for hosts that hold
//! a complete response (a non-streaming API call, a stored transcript).
//!
//! `whole_text.rs` parses a whole text ([`parse`], [`parse_tool_calls`], [`has_tool_use`],
//! [`parse_tool_choice`]); `tool_results.rs` writes results back ([`format_tool_results`]); `tool_calls.rs` writes the
//! assistant's calls ([`format_tool_calls`]) and names a dialect's stops ([`stop_sequences_for`]);
//! `tool_definitions/` writes the prompt's tool section ([`format_tool_definitions`]).
//! `json_input.rs` reads the JSON input forms of calls and results, once for the CLI and
//! every binding ([`format_tool_calls_json`], [`format_tool_results_json`]).

mod json_input;
mod json_string;
mod tool_calls;
mod tool_definitions;
mod tool_results;
mod whole_text;

pub use json_input::{JsonInputError, format_tool_calls_json, format_tool_results_json};
pub use tool_calls::{
    FormatError, FormatErrorKind, ToolCallIn, format_tool_calls, participant_stops,
    stop_sequences_for,
};
pub use tool_definitions::{ToolDef, format_tool_definitions};
pub use tool_results::{ToolResult, format_tool_results};
pub use whole_text::{
    ToolCall, ToolChoiceError, has_tool_use, parse, parse_tool_calls, parse_tool_choice,
};
