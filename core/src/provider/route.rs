//! The text dialect (docs/providers.md, "Text dialect"): a [`Sieve`] the provider's text is
//! fed to, whose blocks take the text block's place in the decoder's index space.

use super::*;

/// How many bytes of text one step hands to the text dialect.
pub(super) const ROUTE_IN: usize = 256;
/// Its input buffer (a step's text, and a few held bytes the framing adds).
pub(super) const ROUTE_INPUT: usize = ROUTE_IN + 16;

/// The text dialect: a [`Sieve`] fed the provider's text deltas (copied, `ROUTE_IN` bytes a
/// step), its block indices mapped into the decoder's.
pub(super) struct Route<'a> {
    pub(super) sieve: Sieve<'a>,
    /// Its input is `Decoder::route_in[at..len]`.
    pub(super) at: u16,
    pub(super) len: u16,
    /// `finish` was called on the sieve; its last events are being handed out.
    pub(super) draining: bool,
    /// The choice whose text it reads.
    pub(super) choice: u32,
    /// The choice of the text in its input (it becomes `choice` when that text is fed, after
    /// the last run has been drained).
    pub(super) input_choice: u32,
    /// Its input came after a `FlushText` was queued: it is the next run's.
    pub(super) behind_flush: bool,
    /// The sieve's open block and the decoder's index for it.
    pub(super) block: Option<(u32, u32)>,
}

impl<'a> Route<'a> {
    pub(super) fn new(sieve: Sieve<'a>) -> Self {
        Route {
            sieve,
            at: 0,
            len: 0,
            draining: false,
            choice: 0,
            input_choice: 0,
            behind_flush: false,
            block: None,
        }
    }

    pub(super) fn reset(&mut self) {
        self.end_run();
        self.at = 0;
        self.len = 0;
    }

    /// The run is drained: the next text starts a fresh one (text already in the input
    /// stays).
    pub(super) fn end_run(&mut self) {
        self.sieve.reset();
        self.draining = false;
        self.block = None;
    }

    /// Appends text (the decoder feeds it before its next step, so it always fits).
    pub(super) fn push(&mut self, input: &mut [u8; ROUTE_INPUT], text: &[u8]) {
        if self.at >= self.len {
            // All fed: start over at the front (the sieve forgot the old bytes, see
            // `Sieve::step_detached`).
            self.at = 0;
            self.len = 0;
        }
        let at = self.len as usize;
        let n = text.len().min(ROUTE_INPUT - at);
        input[at..at + n].copy_from_slice(&text[..n]);
        self.len += n as u16;
    }

    /// The sieve's event with the decoder's block index and the choice.
    pub(super) fn event<'s>(
        &'s mut self,
        step: Detached,
        input: &'s [u8],
        out: &mut Out,
    ) -> Event<'s> {
        let choice = self.choice;
        let ev = self.sieve.event_detached(step, &input[..self.len as usize]);
        let block = &mut self.block;
        let mut index_of = |i: u32| match *block {
            Some((s, ours)) if s == i => ours,
            _ => {
                let ours = out.take_index(choice);
                *block = Some((i, ours));
                ours
            }
        };
        match ev {
            Event::BlockStart {
                index, block_type, ..
            } => Event::BlockStart {
                index: index_of(index),
                block_type,
                choice,
            },
            Event::Chunk(mut c) => {
                c.block = index_of(c.block);
                c.choice = choice;
                Event::Chunk(c)
            }
            Event::BlockComplete(mut c) => {
                c.index = index_of(c.index);
                c.choice = choice;
                Event::BlockComplete(c)
            }
            other => other,
        }
    }
}
