//! Handing events out: queued events materialised from the slots and buffers they read, and
//! the one chunk that borrows the input.

use super::*;
use crate::emit::valid_prefix;

impl Out<'_> {
    pub(crate) fn pop(&mut self) -> Option<Event<'_>> {
        // The decoder takes a `FlushText` before popping (`take_flush`); skipped here.
        while self.flush_next() {
            self.queue.pop_front();
        }
        let p = self.queue.pop_front()?;
        if let Pending::Start { ty, choice } = p {
            // The block's index, drawn now: in the order blocks start, after every block
            // the text dialect started before it.
            self.shown = Shown {
                index: self.next_index,
                ty,
                choice,
            };
            self.next_index = self.next_index.wrapping_add(1);
        }
        self.materialize(p)
    }

    /// One call's bytes of `raw` (`Pending::Complete::raw`).
    fn raw_of(&self, from: u32, end: u32) -> &[u8] {
        self.raw
            .bytes()
            .get(from as usize..end as usize)
            .unwrap_or(&[])
    }

    /// A queued chunk's text; `name`/`id` are the slots of the chunk's block.
    fn src<'s>(&'s self, src: Src, name: &'s Slot, id: &'s Slot) -> &'s str {
        match src {
            Src::Static(s) => s,
            Src::Small => str_of(&self.small[..self.small_len as usize]),
            Src::Name => name.as_str(),
            Src::Id => id.as_str(),
            Src::Raw { from, end } => valid_prefix(self.raw_of(from, end)),
            Src::Acc { from, len } => {
                str_of(&self.acc[from as usize..from as usize + len as usize])
            }
            Src::Held => str_of(self.held.bytes()),
            Src::Args { from, len } => {
                str_of(&self.args_out[from as usize..(from as usize + len as usize)])
            }
        }
    }

    /// A chunk of the open block with `text` (borrowed from anywhere): the one event handed
    /// out without the queue.
    pub(crate) fn chunk<'s>(&'s self, part: Option<Part>, text: &'s str) -> Option<Event<'s>> {
        self.open?;
        // Handed out only when nothing is queued: the open block's start has been.
        Some(chunk_of(
            self.shown,
            part,
            text,
            self.name.as_str(),
            self.id.as_str(),
        ))
    }

    fn materialize(&self, p: Pending) -> Option<Event<'_>> {
        Some(match p {
            Pending::Start { ty, choice } => Event::BlockStart {
                index: self.shown.index,
                block_type: ty,
                choice,
            },
            Pending::Chunk { part, src, done } => {
                let (name, id) = if done {
                    (&self.done_name, &self.done_id)
                } else {
                    (&self.name, &self.id)
                };
                let text = self.src(src, name, id);
                chunk_of(self.shown, part, text, name.as_str(), id.as_str())
            }
            Pending::Complete {
                open,
                error,
                raw,
                signature,
                redacted,
            } => {
                let tool = matches!(open.ty, BlockType::ToolCall | BlockType::ToolResult);
                let complete = BlockComplete {
                    tool_name: tool.then(|| self.done_name.as_str()),
                    tool_id: tool.then(|| self.done_id.as_str()),
                    error: error.map(|reason| CallError {
                        reason,
                        // Empty for a call that had no argument bytes of its own.
                        raw: raw.map_or(&[][..], |(from, end)| self.raw_of(from, end)),
                        raw_truncated: raw.is_some_and(|(_, end)| end as usize >= self.raw.limit()),
                    }),
                    choice: open.choice,
                    refusal: open.refusal,
                    server: open.server,
                    signature: signature.then(|| valid_prefix(self.signature.bytes())),
                    compaction: open.compaction,
                    ..BlockComplete::new(self.shown.index, open.ty)
                }
                .with_redacted(redacted.then(|| valid_prefix(self.redacted.bytes())));
                Event::BlockComplete(match open.ty {
                    // A text block's bytes there are its citations: whole objects only.
                    BlockType::Text => complete.with_citations(
                        redacted
                            .then(|| self.cite.array(self.redacted.bytes()))
                            .flatten(),
                    ),
                    _ => complete,
                })
            }
            Pending::Finish { choice } => {
                let c = &self.choices[self.slot_of(choice).unwrap_or(0)];
                Event::Finish(Finish {
                    reason: c.reason.unwrap_or(FinishReason::Other),
                    raw_reason: c.raw.opt(),
                    usage: (!self.usage.is_empty()).then_some(&self.usage),
                    response_id: self.response_id.opt(),
                    model: self.model.opt(),
                    choice,
                })
            }
            Pending::FlushText | Pending::Route { .. } => return None,
            Pending::Overflow => Event::Error(StreamError {
                source: ErrorSource::Framing,
                code: Some(QUEUE_FULL),
                message: "the decoder's event queue overflowed: events after this one were lost (a bug: please report the input)",
            }),
            Pending::Error {
                source,
                code,
                message,
            } => Event::Error(StreamError {
                source,
                code: code.then(|| self.error_code.as_str()),
                message: match message {
                    Message::Static(s) => s,
                    Message::Collected => valid_prefix(self.message.bytes()),
                },
            }),
        })
    }
}

fn chunk_of<'s>(
    block: Shown,
    part: Option<Part>,
    text: &'s str,
    name: &'s str,
    id: &'s str,
) -> Event<'s> {
    // As the dialects' emitter: a tool block's chunks name their call after the name part.
    let tool = matches!(block.ty, BlockType::ToolCall | BlockType::ToolResult);
    Event::Chunk(Chunk {
        text,
        block_type: block.ty,
        block: block.index,
        depth: u8::from(tool),
        part,
        tool_name: (tool && part != Some(Part::Name)).then_some(name),
        tool_id: (tool && !matches!(part, Some(Part::Name) | Some(Part::Id))).then_some(id),
        choice: block.choice,
    })
}
