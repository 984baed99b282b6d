//! tokensieve splits a language model's output stream, as it arrives, into typed events:
//! visible text, thinking, tool calls (name, id, input) and tool results — without leaking
//! a half tag, losing a byte, or caring how the stream was chunked.
//!
//! * `#![no_std]`, no heap on the feed path: events borrow the input or a small holdback.
//! * One pull API, [`EventSource`] ([`Sieve`] and [`provider::Decoder`] implement it), that
//!   the C ABI exposes one to one.
//! * Dialects ([`Dialect::ALL`]): `passthrough`, `anthropic-xml`, `hermes`, `morph-xml`,
//!   `qwen3-coder`, `minimax-m2`, `glm-4.5`, `harmony`, `kimi-k2`, `deepseek-v3.1`, `deepseek-v3`,
//!   `mistral`, `llama3-json`, `pythonic`, `deepseek-v3.2`, `deepseek-v4`, `seed-oss`, `olmo-3`,
//!   `lfm2`, `gemma-4`, `functiongemma`, `cohere-command`, `apertus`, `granite`, `phi-4-mini`,
//!   `xlam`, `minicpm5`, `step-3`, `hunyuan`, `kimi-k3`.
//! * The rules every event stream keeps (interleaving, chunk invariance, nothing lost, …)
//!   are numbered in `docs/design.md`; comments cite them as "rule N".
//!
//! Data flows one way: bytes → `scan` (marker matching with partial-prefix holdback, UTF-8,
//! stop sequences; crate-private) → a dialect's state machine → the emitter (block
//! bookkeeping, the pending-event queue) → [`Event`]s → `accumulate` (feature `alloc`) and the bindings.
//!
//! ```
//! use tokensieve::{Config, Dialect, Event, Part, Sieve};
//!
//! let config = Config::new(Dialect::AnthropicXml);
//! let mut sieve = Sieve::new(&config).unwrap();
//! let stream = ["Let me check.<function_calls><invoke name=\"search\">",
//!               "<parameter name=\"query\">weather</parameter></invoke></function_calls>"];
//! let mut input_json = String::new();
//! for piece in stream {
//!     let mut input = piece.as_bytes();
//!     while let Some(event) = sieve.next(&mut input) {
//!         if let Event::Chunk(c) = event {
//!             if c.part == Some(Part::Input) { input_json.push_str(c.text) }
//!         }
//!     }
//! }
//! sieve.finish_with(|_| {});
//! assert_eq!(input_json, r#"{"query":"weather"}"#);
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

#[cfg(feature = "alloc")]
pub mod accumulate;
mod buf;
pub mod config;
mod dialect;
mod emit;
pub mod event;
#[cfg(feature = "alloc")]
pub mod format;
pub mod json;
pub mod provider;
mod scan;
mod sieve;
mod source;
pub mod spec;

/// Hooks for the fuzz crate (`fuzz/`), with the `fuzzing` feature only: not API.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod __fuzzing;

pub use config::{
    Config, ConfigError, OnMalformed, Param, StartIn, Tool, ToolList, UnknownTools, ValueType,
};
#[cfg(feature = "alloc")]
pub use config::{ConfigBuf, DescriptionBuf, ParamBuf, ToolBuf};
pub use event::{
    BlockComplete, BlockType, CallError, Chunk, ErrorReason, ErrorSource, Event, Finish,
    FinishReason, Part, StreamError, Usage,
};
pub use sieve::{DEFAULT_MEMORY, HOLD_CAP, MIN_MEMORY, STR_CAP, Sieve};
pub use source::{EventSource, Misuse, Pull};
pub use spec::{Description, Dialect, Shape, StrList};

/// The README's examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
