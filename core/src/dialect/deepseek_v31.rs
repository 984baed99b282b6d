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
//!
//! Its markers are the `deepseek-v3.1` preset's description (`crate::spec`, the sectioned shape).

/// The `deepseek-v3.1` dialect's state: the sectioned machine.
pub(crate) type State = super::sectioned::State;
