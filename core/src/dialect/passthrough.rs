//! `passthrough`: completions and native text. Everything is text, except what lies between
//! the thinking markers (matched exactly); stop sequences end the stream. A thinking closer
//! cut off by the end of input stays thinking content (docs/design.md, Clarifications: a
//! partial tag held at `finish()` goes into the block it was held in).

use crate::config::Settings;
use crate::config::{Config, StartIn};
use crate::emit::{Act, Emitter};
use crate::event::BlockType;
use crate::scan::{Decision, Vocab};

use super::Machine;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct State {
    thinking: bool,
}

impl Machine for State {
    const CALL_DEPTH: u8 = 0;

    fn new(cfg: &Config<'_>) -> State {
        State {
            thinking: cfg.start_in == StartIn::Thinking,
        }
    }

    fn vocab_key(&self) -> u32 {
        self.thinking as u32
    }

    fn vocab<'m>(&self, cfg: &'m Settings<'_>, _out: &'m Emitter<'_>) -> Vocab<'m> {
        let (open, close) = cfg.thinking_tags();
        if self.thinking {
            Vocab::EMPTY.with_literal(close.as_bytes())
        } else {
            Vocab {
                stops: cfg.stops(),
                ..Vocab::EMPTY
            }
            .with_literal(open.as_bytes())
        }
    }

    fn act(
        &mut self,
        _cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        d: Decision,
        _window: &[u8],
    ) -> Act {
        match d {
            Decision::Text(_) | Decision::Invalid(_) => {
                let ty = if self.thinking {
                    BlockType::Thinking
                } else {
                    BlockType::Text
                };
                out.content(ty, 0, d)
            }
            Decision::Literal { len, .. } => {
                out.close_content();
                self.thinking = !self.thinking;
                Act::skip(len)
            }
            _ => Act::WAIT,
        }
    }

    fn end_of_input(&mut self, _cfg: &Settings<'_>, _out: &mut Emitter<'_>) {}

    /// Always a content block: passthrough has only text and thinking.
    fn plain_block(&self) -> Option<(BlockType, u8)> {
        Some(if self.thinking {
            (BlockType::Thinking, 0)
        } else {
            (BlockType::Text, 0)
        })
    }
}
