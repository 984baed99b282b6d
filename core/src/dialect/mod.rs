//! One small state machine per wire format, each over the shared scanning layer.
//!
//! A dialect answers three questions for the driver: what may appear in the current context
//! ([`vocab`]), what to do with the scanner's decision there ([`act`]), and what to close at
//! end of input ([`end_of_input`]). Holdback, UTF-8, stop sequences, block bookkeeping and
//! JSON escaping live in the shared layers; dialects only choose.

pub(crate) mod anthropic;
pub(crate) mod hermes;
pub(crate) mod morph;
pub(crate) mod passthrough;
pub(crate) mod qwen3;
pub(crate) mod value;

use crate::config::{Config, Dialect};
use crate::scan::{Decision, Vocab};
use crate::sieve::{Act, Machine};

/// The state of the dialect in use.
#[derive(Clone, Copy, Debug)]
pub(crate) enum DialectState {
    Passthrough(passthrough::State),
    Anthropic(anthropic::State),
    Hermes(hermes::State),
    Qwen3(qwen3::State),
    Morph(morph::State),
}

impl DialectState {
    pub(crate) fn new(cfg: &Config<'_>) -> DialectState {
        match cfg.dialect {
            Dialect::AnthropicXml => DialectState::Anthropic(anthropic::State::new(cfg)),
            Dialect::Hermes => DialectState::Hermes(hermes::State::new(cfg)),
            Dialect::Qwen3Coder => DialectState::Qwen3(qwen3::State::new(cfg)),
            Dialect::MorphXml => DialectState::Morph(morph::State::new(cfg)),
            // Config::validate rejects the dialects this build does not parse.
            _ => DialectState::Passthrough(passthrough::State::new(cfg)),
        }
    }
}

pub(crate) fn vocab<'m>(m: &'m Machine<'_>) -> Vocab<'m> {
    match m.dialect {
        DialectState::Passthrough(s) => passthrough::vocab(m, s),
        DialectState::Anthropic(s) => anthropic::vocab(m, s),
        DialectState::Hermes(ref s) => hermes::vocab(m, s),
        DialectState::Qwen3(s) => qwen3::vocab(m, s),
        DialectState::Morph(s) => morph::vocab(m, s),
    }
}

/// A key for the current context's [`vocab`] (and [`plain_block`]): two states with the same
/// key have the same vocabulary. It lets the driver keep what it derived from a vocabulary
/// (the fast path's special bytes, the rest of a text run) across acts that leave the
/// context alone. Bit 30 and up are the driver's.
pub(crate) fn vocab_key(m: &Machine<'_>) -> u32 {
    match &m.dialect {
        DialectState::Passthrough(s) => passthrough::vocab_key(s),
        DialectState::Anthropic(s) => anthropic::vocab_key(s),
        DialectState::Hermes(s) => hermes::vocab_key(s),
        DialectState::Qwen3(s) => qwen3::vocab_key(s),
        DialectState::Morph(s) => morph::vocab_key(s),
    }
}

/// The content block that plain text goes to in the current context, when it goes there as
/// is (the driver's fast path for chunks holding no special byte).
pub(crate) fn plain_block(m: &Machine<'_>) -> Option<(crate::event::BlockType, u8)> {
    match &m.dialect {
        DialectState::Passthrough(s) => passthrough::plain_block(s),
        DialectState::Anthropic(s) => anthropic::plain_block(s),
        DialectState::Hermes(s) => hermes::plain_block(s),
        DialectState::Qwen3(s) => qwen3::plain_block(s),
        DialectState::Morph(s) => morph::plain_block(s),
    }
}

pub(crate) fn act(m: &mut Machine<'_>, d: Decision, window: &[u8]) -> Act {
    match m.dialect {
        DialectState::Passthrough(s) => passthrough::act(m, s, d),
        DialectState::Anthropic(s) => anthropic::act(m, s, d, window),
        DialectState::Hermes(_) => hermes::act(m, d, window),
        DialectState::Qwen3(s) => qwen3::act(m, s, d, window),
        DialectState::Morph(s) => morph::act(m, s, d, window),
    }
}

pub(crate) fn end_of_input(m: &mut Machine<'_>) {
    match m.dialect {
        DialectState::Passthrough(_) => {}
        DialectState::Anthropic(s) => anthropic::end_of_input(m, s),
        DialectState::Hermes(_) => hermes::end_of_input(m),
        DialectState::Qwen3(s) => qwen3::end_of_input(m, s),
        DialectState::Morph(s) => morph::end_of_input(m, s),
    }
}

/// `<name>` / `</name>` thinking markers as an element name; `None` for other markers.
pub(crate) fn element_name<'c>(open: &'c str, close: &str) -> Option<&'c [u8]> {
    let name = open.strip_prefix('<')?.strip_suffix('>')?;
    let valid = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    let closes = close.strip_prefix("</")?.strip_suffix('>')? == name;
    (valid && closes).then_some(name.as_bytes())
}
