//! The C ABI of tokensieve (`libtokensieve.so`, `libtokensieve.a`, header `include/tokensieve.h`).
//!
//! A pull API over [`tokensieve::Sieve`]: `tokensieve_feed` hands the parser a piece of model
//! output, `tokensieve_next` returns one event at a time until it says "need more". Events are
//! a fixed-layout struct whose strings are `(ptr, len)` slices into the fed input or the
//! parser's memory, valid until the next call on that parser.
//!
//! Memory: `tokensieve_new`/`tokensieve_free` (heap), or caller-provided memory
//! (`tokensieve_state_size` + `tokensieve_state_align` + `tokensieve_init`), in which case
//! the parser, a copy of its configuration, its buffers and (optionally) the accumulation
//! buffer all live in that one block and nothing touches the heap: not at init, not while
//! feeding.
//!
//! Every entry point checks its pointers and the parser's state, returns a negative status
//! with a message for `tokensieve_last_error`, and catches panics (a panic poisons the
//! parser until `tokensieve_reset`).
//!
//! Provider streams (the HTTP body of a streaming LLM API): `tokensieve_decoder_new_json`
//! (heap, JSON config), `tokensieve_decoder_new` (heap) or `tokensieve_decoder_init` (caller
//! memory, no heap at all; `tokensieve_decoder_state_size`), both from a
//! `tokensieve_decoder_config`, make a `tokensieve_decoder` with the same pull shape (`tokensieve_decoder_feed`,
//! `_next`, `_finish`, `_reset`, `_free`); its events are `tokensieve_event`s with the
//! provider fields (FINISH and ERROR kinds, `choice`, usage, …).
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]
#![allow(non_camel_case_types)]
//!
//! Modules, by concern: `types` (the `#[repr(C)]` enums and structs, in header order),
//! `codes` (each C enum tied to the core enum it mirrors, checked at compile time), `error`
//! (statuses as one `Result`, message buffers), `panic` (the panic boundary), `config`
//! (reading a C or JSON config), `memory` (a parser's block: plan and build, caller memory
//! or heap), `event` (events and accumulation), `batch` (events as packed records), `parser` and `stream` (the entry points),
//! `decoder` (the provider-stream decoder's entry points), `format` (the writers: tool
//! calls, tool definitions, tool results, stop sequences, into caller buffers).

mod batch;
mod codes;
mod config;
mod decoder;
mod error;
mod event;
mod format;
mod memory;
mod panic;
mod parser;
mod stream;
mod types;

pub use decoder::{
    tokensieve_decoder, tokensieve_decoder_config_default, tokensieve_decoder_feed,
    tokensieve_decoder_feed_batch, tokensieve_decoder_finish, tokensieve_decoder_free,
    tokensieve_decoder_init, tokensieve_decoder_last_error, tokensieve_decoder_new,
    tokensieve_decoder_new_json, tokensieve_decoder_next, tokensieve_decoder_next_batch,
    tokensieve_decoder_reset, tokensieve_decoder_state_size, tokensieve_provider_supported,
};
pub use format::{
    tokensieve_dialect_from_name, tokensieve_format_tool_calls, tokensieve_format_tool_calls_json,
    tokensieve_format_tool_definitions, tokensieve_format_tool_definitions_json,
    tokensieve_format_tool_results, tokensieve_stop_sequences,
};
pub use parser::{
    tokensieve_abi_version, tokensieve_config_default, tokensieve_dialect_supported,
    tokensieve_event_size, tokensieve_free, tokensieve_init, tokensieve_new, tokensieve_new_json,
    tokensieve_parser, tokensieve_state_align, tokensieve_state_size,
};
pub use stream::{
    tokensieve_feed, tokensieve_feed_batch, tokensieve_finish, tokensieve_last_error,
    tokensieve_next, tokensieve_next_batch, tokensieve_prefill, tokensieve_reset,
};
pub use types::{
    tokensieve_abi, tokensieve_batch, tokensieve_block_type, tokensieve_call_error,
    tokensieve_config, tokensieve_decoder_config, tokensieve_dialect, tokensieve_dialect_unset,
    tokensieve_error_source, tokensieve_event, tokensieve_finish_reason, tokensieve_flag,
    tokensieve_kind, tokensieve_next_status, tokensieve_on_malformed, tokensieve_part,
    tokensieve_provider, tokensieve_record, tokensieve_record_bit, tokensieve_start_in,
    tokensieve_status, tokensieve_str, tokensieve_tool, tokensieve_unknown_tools, tokensieve_usage,
};

#[cfg(test)]
mod batch_tests;
#[cfg(test)]
mod tests;
