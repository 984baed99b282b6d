//! `deepseek-v3.1` — DeepSeek V3.1 (and its Terminus update):
//!
//! ```text
//! <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>
//! ```
//!
//! (the bars are U+FF5C FULLWIDTH VERTICAL LINE, the separators U+2581 LOWER ONE EIGHTH
//! BLOCK), with `<think>…</think>` thinking. The markers are special tokens; the section,
//! its calls and their bodies follow the shared machine ([`super::sectioned`], whose module
//! docs list the decisions). Specific to DeepSeek V3.1:
//!
//! - The header (between `<｜tool▁call▁begin｜>` and `<｜tool▁sep｜>`, trimmed) is the name;
//!   the wire carries no id, so the id is `{id_prefix}{n}` (rule 9).
//! - V3.1 also writes calls without the section markers: a bare
//!   `<｜tool▁call▁begin｜>…<｜tool▁call▁end｜>` at top level is a call (no section).

use super::sectioned::{self, Format};

/// DeepSeek V3.1's markers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DeepSeekV31;

impl Format for DeepSeekV31 {
    const SECTION_OPEN: &'static [u8] = "<｜tool▁calls▁begin｜>".as_bytes();
    const SECTION_OPEN_ALT: &'static [&'static [u8]] = super::sectioned::DEEPSEEK_OPEN_ALT;
    const SECTION_CLOSE: &'static [u8] = "<｜tool▁calls▁end｜>".as_bytes();
    const CALL_OPEN: &'static [u8] = "<｜tool▁call▁begin｜>".as_bytes();
    const CALL_CLOSE: &'static [u8] = "<｜tool▁call▁end｜>".as_bytes();
    const HEADER_ENDS: &'static [&'static [u8]] = &["<｜tool▁sep｜>".as_bytes()];
    const FENCE_OPEN: &'static [u8] = b"";
    const FENCE_CLOSE: &'static [u8] = b"";
    const WIRE_ID: bool = false;
}

/// The `deepseek-v3.1` dialect's state.
pub(crate) type State = sectioned::State<DeepSeekV31>;
