//! `passthrough`: completions and native text. Everything is text, except what lies between
//! the thinking markers (matched exactly); stop sequences end the stream.

use crate::config::{Config, StartIn};
use crate::event::BlockType;
use crate::scan::{Decision, Vocab};
use crate::sieve::{Act, Machine};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct State {
    thinking: bool,
}

impl State {
    pub(crate) fn new(cfg: &Config<'_>) -> State {
        State {
            thinking: cfg.start_in == StartIn::Thinking,
        }
    }
}

/// What [`vocab`] depends on (see [`super::vocab_key`]).
pub(crate) fn vocab_key(s: &State) -> u32 {
    s.thinking as u32
}

pub(crate) fn vocab<'m>(m: &'m Machine<'_>, s: State) -> Vocab<'m> {
    let (open, close) = m.thinking_tags();
    if s.thinking {
        Vocab::EMPTY.with_literal(close.as_bytes())
    } else {
        Vocab {
            stops: m.stops(),
            ..Vocab::EMPTY
        }
        .with_literal(open.as_bytes())
    }
}

pub(crate) fn act(m: &mut Machine<'_>, s: State, d: Decision) -> Act {
    match d {
        Decision::Text(_) | Decision::Invalid(_) => {
            let ty = if s.thinking {
                BlockType::Thinking
            } else {
                BlockType::Text
            };
            m.content(ty, 0, d)
        }
        Decision::Literal { len, .. } => {
            m.close_content();
            m.dialect = super::DialectState::Passthrough(State {
                thinking: !s.thinking,
            });
            Act::skip(len)
        }
        _ => Act::WAIT,
    }
}

/// The content block plain text goes to here (always: passthrough has only text and thinking).
pub(crate) fn plain_block(s: &State) -> Option<(BlockType, u8)> {
    Some(if s.thinking {
        (BlockType::Thinking, 0)
    } else {
        (BlockType::Text, 0)
    })
}
