//! The decoder's output side: open block, queued events, the strings they borrow, tool-call
//! arguments, finish data. Mappers say *what* happened ("text for choice 1", "call X's
//! arguments continue", "the response ended"); `Out` keeps the event stream well formed
//! (docs/design.md rules 1, 8, 9, 10; docs/providers.md "When blocks start and end").
//!
//! Queued events own nothing: their texts are slots of `Out` (names, ids, held bytes),
//! read when the event is handed out. The one event that borrows the input — a chunk of
//! text cut straight from a JSON string — never waits in the queue (see `mod.rs`).

use heapless::Deque;

pub(crate) use super::slot::Slot;

mod args;
pub(crate) use args::escape_byte;
mod dialect_run;
mod hand_out;
#[cfg(test)]
mod tests;

use crate::buf::Buf;
use crate::config::OnMalformed;
use crate::emit::{decimal, str_of};
use crate::event::{
    BlockComplete, BlockType, CallError, Chunk, ErrorReason, ErrorSource, Event, Finish,
    FinishReason, Part, StreamError, Usage,
};
use crate::json::relaxed::{Step, Transcoder};

/// Longest piece of text moved through the queue (see `Out::text_via_queue`).
pub(crate) const SMALL: usize = 64;
/// Text that cannot be handed out straight from the input (decoded escapes and the text
/// around them, text a mapper held) is gathered here, so a delta's text goes out in as few
/// chunks as this allows (issue 25, R5/R12): one chunk per this many bytes at most.
pub(crate) const ACC: usize = 1024;
/// A plain piece of a string whose text is being gathered is gathered too when it is
/// shorter than this (longer ones are handed out from the input).
pub(crate) const GATHER_PLAIN: usize = 256;
/// How many bytes of arguments text one step transcodes (the output of one step fits
/// `ARGS_OUT`: strict JSON escapes expand a byte six-fold at most).
pub(crate) const ARGS_STEP: usize = 128;
const ARGS_OUT: usize = 6 * (ARGS_STEP + 16);
/// Choices a stream may have (choice 0 and three others, whatever their indices): the
/// content of a further choice is not decoded, and a `too-many-choices` error says so once
/// (docs/providers.md).
pub(crate) const CHOICES: usize = 4;
/// Entries of the decoder's event queue (see `Out::queue`).
pub(crate) const QUEUE: usize = 16;
/// The code of the error event a full queue makes (see `Out::enqueue`).
pub(crate) const QUEUE_FULL: &str = "queue-full";

/// The open block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OpenBlock {
    /// Which of the decoder's own blocks this is (they are counted as they start): what
    /// mappers compare (`sig_block`). Not the event index: that is drawn when the block's
    /// start is handed out (`Out::shown`), from the counter the text dialect's blocks draw
    /// from too, so indices follow the order blocks start and are never renumbered.
    pub index: u32,
    pub ty: BlockType,
    pub choice: u32,
    pub refusal: bool,
    pub server: bool,
    /// A thinking block that is a compaction (docs/providers.md): its completion says so.
    pub compaction: bool,
    /// Which call (mapper's numbering) a tool_call block belongs to.
    pub call: u32,
    /// Not a block: the choice's text runs through the text dialect, whose blocks the
    /// decoder hands out (`index` unused).
    pub routed: bool,
}

/// The block whose start was handed out last (`Out::shown`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shown {
    pub index: u32,
    pub ty: BlockType,
    pub choice: u32,
}

impl Shown {
    const NONE: Shown = Shown {
        index: 0,
        ty: BlockType::Text,
        choice: 0,
    };
}

/// Where a queued chunk's text is.
#[derive(Clone, Copy, Debug)]
enum Src {
    Static(&'static str),
    Small,
    Name,
    Id,
    /// `args_out[from..from + len]`.
    Args {
        from: u16,
        len: u16,
    },
    /// The failed call's raw arguments text: `raw[from..end]`.
    Raw {
        from: u32,
        end: u32,
    },
    /// `acc[from..from + len]`: gathered text.
    Acc {
        from: u16,
        len: u16,
    },
    /// The held bytes (`held`): text held until its block type was known.
    Held,
}

#[derive(Clone, Copy, Debug)]
enum Pending {
    /// A block starts: its event index is drawn when this is handed out.
    Start {
        ty: BlockType,
        choice: u32,
    },
    /// A chunk of the block whose start was handed out last (`Out::shown`): like the
    /// dialects' queued chunks, it carries no block of its own.
    Chunk {
        part: Option<Part>,
        src: Src,
        /// The block has completed since: its name and id are in `done_name`/`done_id`.
        done: bool,
    },
    Complete {
        open: OpenBlock,
        error: Option<ErrorReason>,
        /// A failed call's own argument bytes: `raw[from..end]`. `None` for a call that had
        /// none (it reports an empty `raw`): the buffer may hold an earlier call's text, as
        /// it is cleared only when a call's first byte arrives (`begin_raw`).
        raw: Option<(u32, u32)>,
        signature: bool,
        redacted: bool,
    },
    Finish {
        choice: u32,
    },
    /// The text dialect ends here: the decoder drains it before what follows.
    FlushText,
    /// Text for the text dialect, fed to it by the decoder when the queue reaches it
    /// (`route_piece`): the held bytes (`held`) or `small`, from `at`.
    Route {
        held: bool,
        at: u32,
        choice: u32,
    },
    Error {
        source: ErrorSource,
        code: bool,
        message: Message,
    },
    /// The queue was full: what came after this was not queued (see `Out::push`).
    Overflow,
}

/// Where an error event's message is.
#[derive(Clone, Copy, Debug)]
enum Message {
    Static(&'static str),
    /// In the `message` buffer (a provider's error message).
    Collected,
}

/// What a finish event will say about one choice.
#[derive(Clone, Copy)]
pub(crate) struct ChoiceEnd {
    pub reason: Option<FinishReason>,
    pub raw: Slot,
    /// The choice was seen (so it gets a finish event).
    pub seen: bool,
    pub finished: bool,
    /// Which choice this entry is (entry 0 is choice 0's).
    pub choice: u32,
    /// A provider error came after the choice's last block and reason: its finish says
    /// `error` (docs/providers.md, issue 25 item 5).
    pub error_last: bool,
}

impl ChoiceEnd {
    const NEW: ChoiceEnd = ChoiceEnd {
        reason: None,
        raw: Slot::EMPTY,
        seen: false,
        finished: false,
        choice: 0,
        error_last: false,
    };
}

/// Arguments of the open tool call: streamed through a transcoder, their decoded text kept
/// in `raw` in case they fail.
struct Args {
    tc: Transcoder,
    /// The transcoder failed: the rest only goes to `raw`.
    failed: bool,
    /// The value completed (bytes after it fail the call).
    done: bool,
    /// A non-blank byte of arguments text arrived.
    any: bool,
    /// Any byte arrived (`raw` still holds the previous call's until then).
    raw_started: bool,
    /// Where this call's bytes start in `raw`: past an earlier failed call's, when that
    /// call's queued completion still read them as this call's first byte came.
    raw_from: u32,
    /// The transcoder produced output (its first byte must open an object).
    started: bool,
    /// Why the arguments failed when it is not the plain reading (`malformed-body`, or
    /// `unfinished` when cut by the end): nesting too deep, or cut by `max_call_bytes`.
    reason: Option<ErrorReason>,
}

const ARGS_NEW: Args = Args {
    tc: Transcoder::new(),
    failed: false,
    done: false,
    any: false,
    raw_started: false,
    raw_from: 0,
    started: false,
    reason: None,
};

pub(crate) struct Out<'m> {
    pub(crate) open: Option<OpenBlock>,
    /// The decoder's own blocks started so far (`OpenBlock::index`).
    started: u32,
    /// The event index the next block to start takes (the decoder's and the text dialect's
    /// alike: one counter, drawn when a block's start is handed out).
    next_index: u32,
    /// The decoder's block whose start was handed out last (its event index, type and
    /// choice): queued events come in order, so every chunk and completion handed out after
    /// it is that block's.
    shown: Shown,
    /// tool_call blocks so far (`{id_prefix}{n}`).
    pub(crate) calls: u32,
    /// The queue starts every step empty (the decoder steps only when nothing is queued, and
    /// a run of tokens stops once one queued something: `Decoder::may_go_on`), so it holds
    /// what one token makes. The most found (property tests over every provider's generated
    /// streams, the vectors, the fuzz findings): 9 — a failed call's completion and its raw
    /// text block, then the next call opened with its name, id and first input
    /// (`core/tests/provider_queue.rs`). `QUEUE` leaves 7 entries past that; were it ever
    /// full, its last entry says so (`Overflow`), never a silent drop. (F25: 8 entries
    /// overflowed and dropped a `block_complete`.)
    queue: Deque<Pending, QUEUE>,
    /// The queue overflowed since it was last empty (its `Overflow` entry is queued).
    overflowed: bool,
    /// The decoder has a text dialect (`text_as` routes text through it).
    pub(crate) routes_text: bool,
    pub(crate) name: Slot,
    pub(crate) id: Slot,
    /// Name and id of the last tool_call block completed (its queued events read these).
    done_name: Slot,
    done_id: Slot,
    /// The block the `signature` / `redacted` bytes belong to.
    pub(crate) sig_block: Option<u32>,
    small: [u8; SMALL + 8],
    small_len: u8,
    /// Gathered text (`text_via_queue`): `acc[..acc_from]` is read by queued chunks,
    /// `acc[acc_from..acc_len]` is not queued yet; it belongs to `acc_block`.
    acc: [u8; ACC],
    acc_from: u16,
    acc_len: u16,
    acc_block: Option<OpenBlock>,
    /// Text of the current string was gathered: its short plain pieces are gathered too
    /// (`GATHER_PLAIN`), so one is not a chunk of its own between two gathered ones.
    pub(crate) gathering: bool,
    args: Args,
    args_out: [u8; ARGS_OUT],
    /// Bytes of `args_out` queued chunks read.
    args_used: usize,
    pub(crate) raw: Buf<'m>,
    /// Held bytes: an error message, argument fragments waiting for their call.
    pub(crate) held: Buf<'m>,
    pub(crate) signature: Buf<'m>,
    /// A thinking block's redacted data, or a text block's citations (`cite`): the block
    /// is `sig_block`.
    pub(crate) redacted: Buf<'m>,
    /// Where the citations in `redacted` stand (`cite`).
    pub(crate) cite: super::cite::Cites,
    /// An error event's message.
    pub(crate) message: Buf<'m>,
    /// Held argument bytes still to feed (`replay_step`), from this offset.
    replay: Option<u32>,
    pub(crate) usage: Usage,
    pub(crate) response_id: Slot,
    pub(crate) model: Slot,
    pub(crate) error_code: Slot,
    pub(crate) choices: [ChoiceEnd; CHOICES],
    /// An error was reported and no finish came since (the finish says `error`).
    pub(crate) errored: bool,
    /// A choice past `CHOICES` was reported.
    choices_full: bool,
    on_malformed: OnMalformed,
    id_prefix: Slot,
}

impl<'m> Out<'m> {
    pub(crate) fn new(bufs: [Buf<'m>; 5], id_prefix: &str, on_malformed: OnMalformed) -> Self {
        let [raw, held, signature, redacted, message] = bufs;
        let mut prefix = Slot::EMPTY;
        prefix.set(id_prefix.as_bytes());
        Out {
            open: None,
            started: 0,
            next_index: 0,
            shown: Shown::NONE,
            calls: 0,
            queue: Deque::new(),
            overflowed: false,
            name: Slot::EMPTY,
            id: Slot::EMPTY,
            done_name: Slot::EMPTY,
            done_id: Slot::EMPTY,
            sig_block: None,
            small: [0; SMALL + 8],
            small_len: 0,
            acc: [0; ACC],
            acc_from: 0,
            acc_len: 0,
            acc_block: None,
            gathering: false,
            args: ARGS_NEW,
            args_out: [0; ARGS_OUT],
            args_used: 0,
            raw,
            held,
            signature,
            redacted,
            cite: super::cite::Cites::NEW,
            message,
            replay: None,
            usage: Usage::default(),
            response_id: Slot::EMPTY,
            model: Slot::EMPTY,
            error_code: Slot::EMPTY,
            choices: [ChoiceEnd::NEW; CHOICES],
            errored: false,
            choices_full: false,
            on_malformed,
            id_prefix: prefix,
            routes_text: false,
        }
    }

    pub(crate) fn reset(&mut self) {
        self.open = None;
        self.started = 0;
        self.next_index = 0;
        self.shown = Shown::NONE;
        self.calls = 0;
        self.queue.clear();
        self.overflowed = false;
        self.name.clear();
        self.id.clear();
        self.done_name.clear();
        self.done_id.clear();
        self.sig_block = None;
        self.small_len = 0;
        self.acc_from = 0;
        self.acc_len = 0;
        self.acc_block = None;
        self.gathering = false;
        self.args_used = 0;
        self.raw.clear();
        self.held.clear();
        self.signature.clear();
        self.redacted.clear();
        self.cite = super::cite::Cites::NEW;
        self.message.clear();
        self.replay = None;
        self.usage = Usage::default();
        self.response_id.clear();
        self.model.clear();
        self.error_code.clear();
        self.choices = [ChoiceEnd::NEW; CHOICES];
        self.errored = false;
        self.choices_full = false;
    }

    pub(crate) fn has_pending(&self) -> bool {
        !self.queue.is_empty()
    }

    fn push(&mut self, p: Pending) {
        // Gathered text comes before whatever follows it.
        self.flush_acc();
        self.enqueue(p);
    }

    /// Queues `p`. The queue holds more than one token makes (see `queue`); should it fill
    /// anyway, its last entry becomes an error event saying events were lost from there
    /// (a bug to report: never a silent drop, never a panic).
    fn enqueue(&mut self, p: Pending) {
        if self.queue.is_empty() {
            self.overflowed = false;
        }
        if self.overflowed {
            return;
        }
        let p = if self.queue.len() + 1 < QUEUE {
            p
        } else {
            self.overflowed = true;
            Pending::Overflow
        };
        // Cannot fail: the last entry is kept for `Overflow`.
        let _ = self.queue.push_back(p);
    }

    /// Gathered text not queued yet?
    pub(crate) fn acc_pending(&self) -> bool {
        self.acc_len > self.acc_from
    }

    /// Queues the gathered text as one chunk of its block.
    pub(crate) fn flush_acc(&mut self) {
        if let (true, Some(_)) = (self.acc_pending(), self.acc_block) {
            // Queued before anything else is (`push`): right behind its block's start.
            self.enqueue(Pending::Chunk {
                part: None,
                src: Src::Acc {
                    from: self.acc_from,
                    len: self.acc_len - self.acc_from,
                },
                done: false,
            });
        }
        self.acc_from = self.acc_len;
        self.acc_block = None;
    }

    /// How many bytes of text can be gathered now (every queued chunk handed out, the
    /// buffer starts over).
    pub(crate) fn acc_room(&mut self) -> usize {
        if self.queue.is_empty() && !self.acc_pending() {
            self.acc_from = 0;
            self.acc_len = 0;
        }
        if self.queue.is_empty() && self.acc_from > 0 {
            // Move what is not queued yet to the front.
            let (from, len) = (self.acc_from as usize, self.acc_len as usize);
            self.acc.copy_within(from..len, 0);
            self.acc_from = 0;
            self.acc_len = (len - from) as u16;
        }
        ACC - self.acc_len as usize
    }

    fn push_chunk(&mut self, part: Option<Part>, src: Src) {
        if self.open.is_some() {
            self.push(Pending::Chunk {
                part,
                src,
                done: false,
            });
        }
    }

    /// The entry of a choice that has one.
    fn slot_of(&self, choice: u32) -> Option<usize> {
        if choice == 0 {
            return Some(0);
        }
        (1..CHOICES).find(|&i| self.choices[i].seen && self.choices[i].choice == choice)
    }

    /// Does this choice's content get decoded? Yes when it has an entry or one is free
    /// (it is taken and the choice marked seen); else the first time a `too-many-choices`
    /// error, and never its blocks or finish.
    pub(crate) fn admit(&mut self, choice: u32) -> bool {
        if self.slot_of(choice).is_none() {
            let Some(i) = (1..CHOICES).find(|&i| !self.choices[i].seen) else {
                if !self.choices_full {
                    self.choices_full = true;
                    self.fault(
                        "too-many-choices",
                        "a stream of more than 4 choices: the content of the others is not decoded",
                    );
                }
                return false;
            };
            self.choices[i] = ChoiceEnd {
                choice,
                seen: true,
                ..ChoiceEnd::NEW
            };
        }
        let i = self.slot_of(choice).unwrap_or(0);
        self.choices[i].seen = true;
        true
    }

    /// The entry of an admitted choice (`admit`), marked seen.
    pub(crate) fn choice_mut(&mut self, choice: u32) -> Option<&mut ChoiceEnd> {
        if !self.admit(choice) {
            return None;
        }
        let i = self.slot_of(choice)?;
        Some(&mut self.choices[i])
    }

    // ---- blocks -------------------------------------------------------------------------

    /// Is a block of this kind open (so its chunks can be handed out directly)?
    pub(crate) fn is_open(&self, ty: BlockType, choice: u32, refusal: bool) -> bool {
        matches!(self.open, Some(o) if !o.routed && o.ty == ty && o.choice == choice && o.refusal == refusal)
    }

    /// Opens a text or thinking block (completing the open one first).
    pub(crate) fn open_text(&mut self, ty: BlockType, choice: u32, refusal: bool) {
        self.close();
        self.start(OpenBlock {
            index: 0,
            ty,
            choice,
            refusal,
            server: false,
            compaction: false,
            call: 0,
            routed: false,
        });
    }

    fn start(&mut self, mut b: OpenBlock) {
        if !self.admit(b.choice) {
            // A choice past the limit: no block (its chunks go nowhere, as `open` is none).
            self.open = None;
            return;
        }
        if let Some(i) = self.slot_of(b.choice) {
            // The choice goes on after any error before.
            self.choices[i].error_last = false;
        }
        // Its event index is drawn when its start is handed out (`pop`): a text dialect's
        // run ended before it (`FlushText`) is drained first, so its blocks come first.
        b.index = self.started;
        self.started = self.started.wrapping_add(1);
        self.push(Pending::Start {
            ty: b.ty,
            choice: b.choice,
        });
        self.open = Some(b);
    }

    /// A piece of text of the open block that cannot be handed out from the input: gathered
    /// with the text before it (`acc`; queued when something else is, when its string ends,
    /// or when the read is used up). A piece that does not fit (the caller keeps pieces
    /// within `acc_room`) goes through `small` as before.
    pub(crate) fn text_via_queue(&mut self, text: &[u8]) {
        let Some(block) = self.open else {
            return;
        };
        if self.acc_block.is_some_and(|b| b != block) {
            self.flush_acc();
        }
        // Gathered text already handed out frees its room first (F24: a short plain piece
        // gathered behind a full buffer went through `small` and lost all but its first
        // `SMALL + 8` bytes).
        self.acc_room();
        let len = self.acc_len as usize;
        if len + text.len() <= ACC {
            self.gathering = true;
            self.acc[len..len + text.len()].copy_from_slice(text);
            self.acc_len = (len + text.len()) as u16;
            self.acc_block = Some(block);
            return;
        }
        let n = text.len().min(self.small.len());
        self.small[..n].copy_from_slice(&text[..n]);
        self.small_len = n as u8;
        self.push_chunk(None, Src::Small);
    }

    /// Text the mapper held until it knew its kind: `text` (≤ `SMALL` bytes, copied), or
    /// with `None` the held bytes (`held`, whole characters; they must stay as they are until
    /// handed out). A chunk of the block of kind `ty` (opened unless open), or — text, with a
    /// text dialect — the dialect's input, fed by the decoder when the queue reaches it, so
    /// what the mapper queues after it comes after it.
    pub(crate) fn text_as(&mut self, ty: BlockType, choice: u32, text: Option<&[u8]>) {
        if !self.admit(choice) {
            return;
        }
        if let (Some(t), false) = (text, self.routes_text && ty == BlockType::Text) {
            // Text for a block of its own: gathered like any text of an open block.
            if t.is_empty() {
                return;
            }
            if !self.is_open(ty, choice, false) {
                self.open_text(ty, choice, false);
            }
            self.text_via_queue(t);
            return;
        }
        let src = match text {
            Some(t) => {
                let n = crate::emit::floor_char_boundary(t, t.len().min(self.small.len()));
                self.small[..n].copy_from_slice(&t[..n]);
                self.small_len = n as u8;
                Src::Small
            }
            None => Src::Held,
        };
        let empty = match src {
            Src::Small => self.small_len == 0,
            _ => self.held.len() == 0,
        };
        if empty {
            return;
        }
        if self.routes_text && ty == BlockType::Text {
            if !self.is_routed(choice) {
                self.open_routed(choice);
            }
            self.push(Pending::Route {
                held: text.is_none(),
                at: 0,
                choice,
            });
        } else {
            if !self.is_open(ty, choice, false) {
                self.open_text(ty, choice, false);
            }
            self.push_chunk(None, src);
        }
    }

    /// The next queued entry is text for the text dialect (`route_piece`).
    pub(crate) fn route_next(&self) -> bool {
        matches!(self.queue.front(), Some(Pending::Route { .. }))
    }

    /// The next piece (at most `max` bytes, whole characters) of the front `Route` entry's
    /// text, and its choice; `None` when it is all fed (the entry is taken then).
    pub(crate) fn route_piece(&mut self, max: usize) -> Option<(&[u8], u32)> {
        let Some(Pending::Route { held, at, choice }) = self.queue.front_mut() else {
            return None;
        };
        let (held, from, choice) = (*held, *at as usize, *choice);
        let all = if held {
            self.held.bytes()
        } else {
            &self.small[..self.small_len as usize]
        };
        let rest = all.get(from..).unwrap_or(&[]);
        let n = crate::emit::floor_char_boundary(rest, rest.len().min(max));
        if n == 0 {
            self.queue.pop_front();
            return None;
        }
        if let Some(Pending::Route { at, .. }) = self.queue.front_mut() {
            *at = (from + n) as u32;
        }
        let all = if held {
            self.held.bytes()
        } else {
            &self.small[..self.small_len as usize]
        };
        Some((&all[from..from + n], choice))
    }

    /// Opens a tool_call block: streams the name and id parts. An empty id becomes
    /// `{id_prefix}{n}`; an empty name fails the call as `missing-name` when it completes.
    pub(crate) fn open_call(
        &mut self,
        choice: u32,
        call: u32,
        server: bool,
        name: &[u8],
        id: &[u8],
    ) {
        self.close();
        self.name.set(name);
        self.id.set(id);
        if self.id.is_empty() {
            let mut digits = [0u8; 20];
            let d = decimal(u64::from(self.calls), &mut digits);
            let prefix = self.id_prefix;
            self.id.set(prefix.bytes());
            self.id.push(d);
        }
        self.calls += 1;
        self.start(OpenBlock {
            index: 0,
            ty: BlockType::ToolCall,
            choice,
            refusal: false,
            server,
            compaction: false,
            call,
            routed: false,
        });
        if !self.name.is_empty() {
            self.push_chunk(Some(Part::Name), Src::Name);
        }
        self.push_chunk(Some(Part::Id), Src::Id);
        self.args = ARGS_NEW;
    }

    /// Completes the open block, if any. A tool call's arguments are finished first: a
    /// value that does not complete fails the call (`unfinished` when `cut`, else
    /// `malformed-body`).
    pub(crate) fn close(&mut self) {
        self.close_with(false);
    }

    pub(crate) fn close_with(&mut self, cut: bool) {
        let Some(open) = self.open else {
            return;
        };
        if open.routed {
            self.open = None;
            self.push(Pending::FlushText);
            return;
        }
        let mut error = None;
        if matches!(open.ty, BlockType::ToolCall | BlockType::ToolResult) {
            if open.ty == BlockType::ToolCall {
                // Its closing input pieces still belong to the open block.
                error = self.finish_args(cut);
                if error.is_none() && self.name.is_empty() {
                    error = Some(ErrorReason::MissingName);
                }
            }
            // Queued events of this block read its name and id from here from now on.
            self.done_name = self.name;
            self.done_id = self.id;
            for p in self.queue.iter_mut() {
                if let Pending::Chunk { done, .. } = p {
                    *done = true;
                }
            }
            self.name.clear();
            self.id.clear();
        }
        self.open = None;
        let mine = self.sig_block == Some(open.index);
        let signature = mine && self.signature.len() > 0;
        let redacted = mine && self.redacted.len() > 0;
        // Only a tool call's bytes go to `raw`, and only once its first one arrived (a call
        // cut before it opened holds none: `cut_args`).
        let raw = (error.is_some() && open.ty == BlockType::ToolCall && self.args.raw_started)
            .then(|| (self.args.raw_from, self.raw.len() as u32));
        self.push(Pending::Complete {
            open,
            error,
            raw,
            signature,
            redacted,
        });
        if let (Some((from, end)), OnMalformed::Text) = (raw, self.on_malformed) {
            if end > from {
                // rule 10: the raw arguments also become a text block of their own.
                self.start(OpenBlock {
                    index: 0,
                    ty: BlockType::Text,
                    choice: open.choice,
                    refusal: false,
                    server: false,
                    compaction: false,
                    call: 0,
                    routed: false,
                });
                self.push_chunk(None, Src::Raw { from, end });
                let text = self.open.take().unwrap_or(open);
                self.push(Pending::Complete {
                    open: text,
                    error: None,
                    raw: None,
                    signature: false,
                    redacted: false,
                });
            }
        }
    }

    /// Opens a tool_result block (a server tool's result), named by its tool and call.
    pub(crate) fn open_result(&mut self, choice: u32, server: bool, name: &[u8], id: &[u8]) {
        self.close();
        self.name.set(name);
        self.id.set(id);
        self.start(OpenBlock {
            index: 0,
            ty: BlockType::ToolResult,
            choice,
            refusal: false,
            server,
            compaction: false,
            call: 0,
            routed: false,
        });
    }

    // ---- signature, finish and errors ----------------------------------------------------

    /// Reports an error whose message the mapper collected in `message`.
    pub(crate) fn error_held(&mut self, source: ErrorSource, code: Option<&[u8]>) {
        self.close_with(true);
        match code {
            Some(c) => self.error_code.set(c),
            None => self.error_code.clear(),
        }
        self.errored = true;
        if source == ErrorSource::Provider {
            for c in self.choices.iter_mut() {
                c.error_last = true;
            }
        }
        self.push(Pending::Error {
            source,
            code: code.is_some(),
            message: Message::Collected,
        });
    }

    /// A framing fault or undecodable JSON (static texts).
    pub(crate) fn fault(&mut self, code: &'static str, message: &'static str) {
        self.close_with(true);
        self.error_code.set(code.as_bytes());
        self.errored = true;
        self.push(Pending::Error {
            source: ErrorSource::Framing,
            code: true,
            message: Message::Static(message),
        });
    }

    /// Records how a choice ends (its blocks complete now; the finish event comes later).
    pub(crate) fn choice_reason(&mut self, choice: u32, reason: FinishReason, raw: &[u8]) {
        if matches!(self.open, Some(o) if o.choice == choice) {
            self.close();
        }
        if let Some(c) = self.choice_mut(choice) {
            c.reason = Some(reason);
            c.raw.set(raw);
            c.error_last = false;
        }
    }

    /// Emits the finish events of every choice seen (or of choice 0 when none was), once.
    /// `eof`: the body ended without the provider's end marker.
    pub(crate) fn finish_all(&mut self, eof: bool) {
        self.close_with(eof);
        // docs/providers.md: choice 0 always has a finish.
        self.choices[0].seen = true;
        let mut any = false;
        // In choice order (the entries are in the order the choices came).
        let mut order = [0usize; CHOICES];
        for (i, o) in order.iter_mut().enumerate() {
            *o = i;
        }
        order.sort_unstable_by_key(|&i| self.choices[i].choice);
        for i in order {
            let c = &mut self.choices[i];
            if c.seen && !c.finished {
                any = true;
                self.finish_choice(i, eof);
            }
        }
        if !any && !self.choices.iter().any(|c| c.finished) {
            self.choices[0].seen = true;
            self.finish_choice(0, eof);
        }
    }

    /// Queues the finish of the choice in entry `i`.
    fn finish_choice(&mut self, i: usize, eof: bool) {
        let errored = self.errored;
        let c = &mut self.choices[i];
        let choice = c.choice;
        if c.finished {
            return;
        }
        c.finished = true;
        if c.error_last && c.reason.is_some() {
            // The provider's error is the last thing of this choice: the answer is
            // incomplete whatever reason came before (the raw reason stays the provider's).
            c.reason = Some(FinishReason::Error);
        } else if c.reason.is_none() {
            if errored {
                c.reason = Some(FinishReason::Error);
                c.raw = self.error_code;
            } else if eof {
                c.reason = Some(FinishReason::Error);
                c.raw.set(b"eof");
            } else {
                c.reason = Some(FinishReason::Other);
            }
        }
        self.push(Pending::Finish { choice });
    }

    // ---- handing out -------------------------------------------------------------------
}
