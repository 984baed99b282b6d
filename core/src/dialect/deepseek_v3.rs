//! `deepseek-v3` — DeepSeek V3 (0324) and R1 (0528):
//!
//! ````text
//! <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME
//! ```json
//! {…}
//! ```<｜tool▁call▁end｜>
//! …<｜tool▁calls▁end｜>
//! ````
//!
//! (U+FF5C fullwidth bars, U+2581 separators), with `<think>…</think>` thinking (R1; its
//! template often opens `<think>` in the prompt: `start_in = "thinking"`). The markers are
//! special tokens; the section, its calls and their bodies follow the shared machine
//! ([`super::sectioned`], whose module docs list the decisions). Specific to V3/R1:
//!
//! - The header has two parts: the call's type up to `<｜tool▁sep｜>` (`function`; read and
//!   dropped, whatever it says), then the name, which ends at the end of its line or at the
//!   body's opening fence (a line break right after `<｜tool▁sep｜>` is formatting; a name
//!   still empty at the fence is missing; a repeated `<｜tool▁sep｜>` is wire syntax). The
//!   wire has no id: ids are `{id_prefix}{n}` (rule 9).
//! - The body sits in a Markdown fence: `` ```json `` before it and `` ``` `` after it are
//!   wire syntax, and so is the whitespace around them; either fence may be missing.
//! - Calls are separated by line breaks (formatting, dropped inside the section).
//!
//! Its markers are the `deepseek-v3` preset's description (`crate::spec`, the sectioned shape).

/// The `deepseek-v3` dialect's state: the sectioned machine.
pub(crate) type State = super::sectioned::State;
