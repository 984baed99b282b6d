//! Events: the core's [`Event`] converted to a `tokensieve_event`, and the accumulation of
//! a block's text ([`Acc`]) for `accumulate`.

use core::ptr;

use tokensieve::{BlockType, Event, Part, Usage};

use crate::types::{
    EMPTY_EVENT, opt_str, some_str, tokensieve_block_type, tokensieve_call_error,
    tokensieve_error_source, tokensieve_event, tokensieve_finish_reason, tokensieve_flag,
    tokensieve_kind, tokensieve_part, tokensieve_str, tokensieve_usage,
};

/// The accumulated text of the open block.
pub(crate) enum Acc {
    /// Not accumulating.
    Off,
    /// Heap parsers: unbounded.
    Heap(Vec<u8>),
    /// Caller memory: `cap` bytes at `ptr`, in the parser's block; `cut` once text was
    /// left out.
    Fixed {
        ptr: *mut u8,
        cap: usize,
        len: usize,
        cut: bool,
    },
}

impl Acc {
    pub(crate) fn clear(&mut self) {
        match self {
            Acc::Off => {}
            Acc::Heap(v) => v.clear(),
            Acc::Fixed { len, cut, .. } => {
                *len = 0;
                *cut = false;
            }
        }
    }

    pub(crate) fn push(&mut self, s: &str) {
        match self {
            Acc::Off => {}
            Acc::Heap(v) => v.extend_from_slice(s.as_bytes()),
            Acc::Fixed { ptr, cap, len, cut } => {
                if *cut {
                    return;
                }
                // What fits, cut at a character boundary: the kept text is the longest
                // prefix of the block's text (whole characters) within `cap`, whatever the
                // chunking (rule 4; keeping whole chunks only made it depend on where the
                // chunks happened to end).
                let mut n = s.len().min(*cap - *len);
                while !s.is_char_boundary(n) {
                    n -= 1;
                }
                // SAFETY: `ptr..ptr+cap` is the accumulation region of the parser's block,
                // owned by this parser and disjoint from `s` (input or parser buffers);
                // `len + n <= cap` by the `min` above.
                unsafe { ptr::copy_nonoverlapping(s.as_ptr(), ptr.add(*len), n) };
                *len += n;
                *cut = n < s.len();
            }
        }
    }

    /// The accumulated bytes and whether they were cut; `None` when not accumulating.
    pub(crate) fn view(&self) -> Option<(tokensieve_str, bool)> {
        match self {
            Acc::Off => None,
            Acc::Heap(v) => Some((some_str(v), false)),
            Acc::Fixed { ptr, len, cut, .. } => Some((
                tokensieve_str {
                    ptr: ptr.cast_const().cast(),
                    len: *len,
                },
                *cut,
            )),
        }
    }
}

/// The C form of `ev`; chunks of text and input go to `acc`, completions carry it.
pub(crate) fn convert(ev: &Event<'_>, acc: &mut Acc) -> tokensieve_event {
    let mut e = EMPTY_EVENT;
    let vis = |t: BlockType| {
        if t == BlockType::Text {
            tokensieve_flag::TOKENSIEVE_FLAG_VISIBLE as u32
        } else {
            0
        }
    };
    match *ev {
        Event::BlockStart {
            index,
            block_type,
            choice,
        } => {
            acc.clear();
            e.choice = choice;
            e.kind = tokensieve_kind::TOKENSIEVE_KIND_BLOCK_START as u32;
            e.block_type = tokensieve_block_type::code(block_type);
            e.index = index;
            e.flags = vis(block_type);
        }
        Event::Chunk(c) => {
            if matches!(c.part, None | Some(Part::Input)) {
                acc.push(c.text);
            }
            e.kind = tokensieve_kind::TOKENSIEVE_KIND_CHUNK as u32;
            e.block_type = tokensieve_block_type::code(c.block_type);
            e.index = c.block;
            e.depth = u32::from(c.depth);
            e.part = tokensieve_part::code(c.part);
            e.flags = vis(c.block_type);
            e.text = some_str(c.text.as_bytes());
            e.tool_name = opt_str(c.tool_name);
            e.tool_id = opt_str(c.tool_id);
            e.choice = c.choice;
        }
        Event::BlockComplete(b) => {
            e.kind = tokensieve_kind::TOKENSIEVE_KIND_BLOCK_COMPLETE as u32;
            e.block_type = tokensieve_block_type::code(b.block_type);
            e.index = b.index;
            e.flags = vis(b.block_type);
            e.choice = b.choice;
            e.signature = opt_str(b.signature);
            e.redacted = opt_str(b.redacted());
            e.citations = opt_str(b.citations());
            if b.refusal {
                e.flags |= tokensieve_flag::TOKENSIEVE_FLAG_REFUSAL as u32;
            }
            if b.server {
                e.flags |= tokensieve_flag::TOKENSIEVE_FLAG_SERVER as u32;
            }
            if b.compaction {
                e.flags |= tokensieve_flag::TOKENSIEVE_FLAG_COMPACTION as u32;
            }
            e.tool_name = opt_str(b.tool_name);
            e.tool_id = opt_str(b.tool_id);
            if b.is_error {
                e.flags |= tokensieve_flag::TOKENSIEVE_FLAG_IS_ERROR as u32;
            }
            if let Some(err) = b.error {
                e.error_code = tokensieve_call_error::code(Some(err.reason));
                e.error_reason = some_str(err.reason.as_str().as_bytes());
                e.error_raw = some_str(err.raw);
                if err.raw_truncated {
                    e.flags |= tokensieve_flag::TOKENSIEVE_FLAG_RAW_TRUNCATED as u32;
                }
            }
            if let Some((view, cut)) = acc.view() {
                let tool = b.block_type == BlockType::ToolCall;
                if !tool {
                    e.content = view;
                } else if b.error.is_none() {
                    e.input = view;
                }
                if cut && (!tool || b.error.is_none()) {
                    e.flags |= tokensieve_flag::TOKENSIEVE_FLAG_ACCUMULATED_TRUNCATED as u32;
                }
            }
        }
        Event::Stop { sequence } => {
            e.kind = tokensieve_kind::TOKENSIEVE_KIND_STOP as u32;
            e.text = some_str(sequence.as_bytes());
        }
        Event::Finish(f) => {
            e.kind = tokensieve_kind::TOKENSIEVE_KIND_FINISH as u32;
            e.finish_reason = tokensieve_finish_reason::code(Some(f.reason));
            e.raw_reason = opt_str(f.raw_reason);
            e.response_id = opt_str(f.response_id);
            e.model = opt_str(f.model);
            e.choice = f.choice;
            if let Some(u) = f.usage {
                e.flags |= tokensieve_flag::TOKENSIEVE_FLAG_USAGE as u32;
                usage(&mut e, u);
            }
        }
        Event::Error(err) => {
            e.kind = tokensieve_kind::TOKENSIEVE_KIND_ERROR as u32;
            e.error_source = tokensieve_error_source::code(Some(err.source));
            e.code = opt_str(err.code);
            e.message = some_str(err.message.as_bytes());
        }
    }
    e
}

/// The usage counters of a finish and their presence bits.
fn usage(e: &mut tokensieve_event, u: &Usage) {
    use tokensieve_usage::*;
    for (v, bit, slot) in [
        (
            u.input_tokens,
            TOKENSIEVE_USAGE_INPUT_TOKENS,
            &mut e.input_tokens,
        ),
        (
            u.output_tokens,
            TOKENSIEVE_USAGE_OUTPUT_TOKENS,
            &mut e.output_tokens,
        ),
        (
            u.cache_read_tokens,
            TOKENSIEVE_USAGE_CACHE_READ_TOKENS,
            &mut e.cache_read_tokens,
        ),
        (
            u.cache_write_tokens,
            TOKENSIEVE_USAGE_CACHE_WRITE_TOKENS,
            &mut e.cache_write_tokens,
        ),
        (
            u.reasoning_tokens,
            TOKENSIEVE_USAGE_REASONING_TOKENS,
            &mut e.reasoning_tokens,
        ),
    ] {
        if let Some(v) = v {
            *slot = v;
            e.usage_present |= bit as u32;
        }
    }
}
