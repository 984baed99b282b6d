//! Provider streams ("chat mode"): the HTTP body of a streaming LLM API → the same events as
//! a dialect gives (docs/design.md, "Provider streams").
//!
//! Data flows one way: body bytes → [`frame`] (SSE, JSON array, AWS event stream) → JSON
//! documents → the relaxed JSON lexer → one mapper per provider format → events.
#![allow(dead_code)] // the decoder lands piece by piece

pub(crate) mod base64;
pub(crate) mod frame;
