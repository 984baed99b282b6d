//! The decoder's output side: open block, queued events, the strings they borrow, tool-call
//! arguments, finish data. Mappers say *what* happened ("text for choice 1", "call X's
//! arguments continue", "the response ended"); `Out` keeps the event stream well formed
//! (docs/design.md rules 1, 8, 9, 10; docs/providers.md "When blocks start and end").
//!
//! Queued events own nothing: their texts are slots of `Out` (names, ids, held bytes),
//! read when the event is handed out. The one event that borrows the input — a chunk of
//! text cut straight from a JSON string — never waits in the queue (see `mod.rs`).

use heapless::Deque;

pub(crate) use super::slot::{Slot, push_lossy};

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
/// How many bytes of arguments text one step transcodes (the output of one step fits
/// `ARGS_OUT`: strict JSON escapes expand a byte six-fold at most).
pub(crate) const ARGS_STEP: usize = 128;
const ARGS_OUT: usize = 6 * (ARGS_STEP + 16);
/// Where block indices numbered later start (see `Out::settle`).
const DEFERRED: u32 = 1 << 31;
/// Choices whose finish data is tracked (`n` up to this; later choices share the last slot).
pub(crate) const CHOICES: usize = 4;

/// The open block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OpenBlock {
    pub index: u32,
    pub ty: BlockType,
    pub choice: u32,
    pub refusal: bool,
    pub server: bool,
    /// Which call (mapper's numbering) a tool_call block belongs to.
    pub call: u32,
    /// Not a block: the choice's text runs through the text dialect, whose blocks the
    /// decoder hands out (`index` unused).
    pub routed: bool,
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
    /// The failed call's raw arguments text (`raw`).
    Raw,
    /// The held bytes (`held`): text held until its block type was known.
    Held,
}

#[derive(Clone, Copy, Debug)]
enum Pending {
    Start {
        index: u32,
        ty: BlockType,
        choice: u32,
    },
    Chunk {
        part: Option<Part>,
        src: Src,
        block: OpenBlock,
        /// The block has completed since: its name and id are in `done_name`/`done_id`.
        done: bool,
    },
    Complete {
        open: OpenBlock,
        error: Option<ErrorReason>,
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
}

impl ChoiceEnd {
    const NEW: ChoiceEnd = ChoiceEnd {
        reason: None,
        raw: Slot::EMPTY,
        seen: false,
        finished: false,
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
    /// The transcoder produced output (its first byte must open an object).
    started: bool,
}

pub(crate) struct Out<'m> {
    pub(crate) open: Option<OpenBlock>,
    next_index: u32,
    /// tool_call blocks so far (`{id_prefix}{n}`).
    pub(crate) calls: u32,
    queue: Deque<Pending, 8>,
    /// A `FlushText` is queued: blocks started now are numbered after the dialect's.
    deferring: bool,
    /// Blocks started while deferring.
    deferred: u32,
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
    args: Args,
    args_out: [u8; ARGS_OUT],
    /// Bytes of `args_out` queued chunks read.
    args_used: usize,
    pub(crate) raw: Buf<'m>,
    /// Held bytes: an error message, argument fragments waiting for their call.
    pub(crate) held: Buf<'m>,
    pub(crate) signature: Buf<'m>,
    pub(crate) redacted: Buf<'m>,
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
            next_index: 0,
            calls: 0,
            queue: Deque::new(),
            deferring: false,
            deferred: 0,
            name: Slot::EMPTY,
            id: Slot::EMPTY,
            done_name: Slot::EMPTY,
            done_id: Slot::EMPTY,
            sig_block: None,
            small: [0; SMALL + 8],
            small_len: 0,
            args: Args {
                tc: Transcoder::new(),
                failed: false,
                done: false,
                any: false,
                raw_started: false,
                started: false,
            },
            args_out: [0; ARGS_OUT],
            args_used: 0,
            raw,
            held,
            signature,
            redacted,
            message,
            replay: None,
            usage: Usage::default(),
            response_id: Slot::EMPTY,
            model: Slot::EMPTY,
            error_code: Slot::EMPTY,
            choices: [ChoiceEnd::NEW; CHOICES],
            errored: false,
            on_malformed,
            id_prefix: prefix,
            routes_text: false,
        }
    }

    pub(crate) fn reset(&mut self) {
        self.open = None;
        self.next_index = 0;
        self.calls = 0;
        self.queue.clear();
        self.deferring = false;
        self.deferred = 0;
        self.name.clear();
        self.id.clear();
        self.done_name.clear();
        self.done_id.clear();
        self.sig_block = None;
        self.small_len = 0;
        self.args_used = 0;
        self.raw.clear();
        self.held.clear();
        self.signature.clear();
        self.redacted.clear();
        self.message.clear();
        self.replay = None;
        self.usage = Usage::default();
        self.response_id.clear();
        self.model.clear();
        self.error_code.clear();
        self.choices = [ChoiceEnd::NEW; CHOICES];
        self.errored = false;
    }

    pub(crate) fn has_pending(&self) -> bool {
        !self.queue.is_empty()
    }

    fn push(&mut self, p: Pending) {
        // The queue is sized for the longest sequence one step makes (complete, start,
        // name, id, chunk); a full queue would be a bug, and dropping is safer than panicking.
        let _ = self.queue.push_back(p);
    }

    fn push_chunk(&mut self, part: Option<Part>, src: Src) {
        if let Some(block) = self.open {
            self.push(Pending::Chunk {
                part,
                src,
                block,
                done: false,
            });
        }
    }

    pub(crate) fn choice_mut(&mut self, choice: u32) -> &mut ChoiceEnd {
        let i = (choice as usize).min(CHOICES - 1);
        let c = &mut self.choices[i];
        c.seen = true;
        c
    }

    // ---- blocks -------------------------------------------------------------------------

    /// Is a block of this kind open (so its chunks can be handed out directly)?
    pub(crate) fn is_open(&self, ty: BlockType, choice: u32, refusal: bool) -> bool {
        matches!(self.open, Some(o) if !o.routed && o.ty == ty && o.choice == choice && o.refusal == refusal)
    }

    /// Is this choice's text running through the text dialect now?
    pub(crate) fn is_routed(&self, choice: u32) -> bool {
        matches!(self.open, Some(o) if o.routed && o.choice == choice)
    }

    /// The choice's text runs through the text dialect from here (completing the open block).
    pub(crate) fn open_routed(&mut self, choice: u32) {
        self.close();
        self.choice_mut(choice);
        self.open = Some(OpenBlock {
            index: 0,
            ty: BlockType::Text,
            choice,
            refusal: false,
            server: false,
            call: 0,
            routed: true,
        });
    }

    /// A block of the text dialect starts: its index, in the order blocks start.
    pub(crate) fn take_index(&mut self, choice: u32) -> u32 {
        self.choice_mut(choice);
        let i = self.next_index;
        self.next_index += 1;
        i
    }

    /// A `FlushText` is queued (and its run not yet drained).
    pub(crate) fn flush_queued(&self) -> bool {
        self.deferring
    }

    /// The next queued event is the end of the text dialect's run.
    pub(crate) fn flush_next(&self) -> bool {
        matches!(self.queue.front(), Some(Pending::FlushText))
    }

    /// Takes the `FlushText` marker; the decoder drains the dialect, then calls `settle`.
    pub(crate) fn take_flush(&mut self) {
        if self.flush_next() {
            self.queue.pop_front();
        }
    }

    /// The dialect is drained: blocks started behind the marker get their indices now,
    /// after the dialect's last ones (indices follow the order blocks start). Blocks behind a
    /// later `FlushText` still queued wait for that run's end.
    pub(crate) fn settle(&mut self) {
        if !self.deferring {
            return;
        }
        // Blocks started before the next queued `FlushText`: the first `now` deferred ones.
        let mut now = 0;
        let mut more = false;
        for p in self.queue.iter() {
            match p {
                Pending::FlushText => {
                    more = true;
                    break;
                }
                Pending::Start { index, .. } if *index >= DEFERRED => now += 1,
                _ => {}
            }
        }
        if !more {
            now = self.deferred;
        }
        let base = self.next_index;
        let fix = |i: &mut u32| {
            if *i >= DEFERRED {
                let k = *i - DEFERRED;
                *i = if k < now {
                    base + k
                } else {
                    DEFERRED + (k - now)
                };
            }
        };
        for p in self.queue.iter_mut() {
            match p {
                Pending::Start { index, .. } => fix(index),
                Pending::Chunk { block, .. } => fix(&mut block.index),
                Pending::Complete { open, .. } => fix(&mut open.index),
                _ => {}
            }
        }
        if let Some(o) = &mut self.open {
            fix(&mut o.index);
        }
        if let Some(i) = &mut self.sig_block {
            fix(i);
        }
        self.next_index = base + now;
        self.deferred = self.deferred.saturating_sub(now);
        self.deferring = more;
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
            call: 0,
            routed: false,
        });
    }

    fn start(&mut self, mut b: OpenBlock) {
        if self.deferring {
            // Behind a `FlushText`: numbered when the dialect is drained (`settle`).
            b.index = DEFERRED + self.deferred;
            self.deferred += 1;
        } else {
            b.index = self.next_index;
            self.next_index += 1;
        }
        self.choice_mut(b.choice);
        self.push(Pending::Start {
            index: b.index,
            ty: b.ty,
            choice: b.choice,
        });
        self.open = Some(b);
    }

    /// A piece of text (≤ `SMALL` bytes) that must wait behind queued events.
    pub(crate) fn text_via_queue(&mut self, text: &[u8]) {
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
            call,
            routed: false,
        });
        if !self.name.is_empty() {
            self.push_chunk(Some(Part::Name), Src::Name);
        }
        self.push_chunk(Some(Part::Id), Src::Id);
        self.args = Args {
            tc: Transcoder::new(),
            failed: false,
            done: false,
            any: false,
            raw_started: false,
            started: false,
        };
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
            self.deferring = true;
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
        self.push(Pending::Complete {
            open,
            error,
            signature,
            redacted,
        });
        if let (Some(_), OnMalformed::Text) = (error, self.on_malformed) {
            if self.raw.len() > 0 {
                // rule 10: the raw arguments also become a text block of their own.
                self.start(OpenBlock {
                    index: 0,
                    ty: BlockType::Text,
                    choice: open.choice,
                    refusal: false,
                    server: false,
                    call: 0,
                    routed: false,
                });
                self.push_chunk(None, Src::Raw);
                let text = self.open.take().unwrap_or(open);
                self.push(Pending::Complete {
                    open: text,
                    error: None,
                    signature: false,
                    redacted: false,
                });
            }
        }
    }

    /// Ends the arguments: the error the call fails with, if any. Queues the closing input
    /// pieces (`{}` for a call that had no arguments text).
    fn finish_args(&mut self, cut: bool) -> Option<ErrorReason> {
        if self.args.failed {
            return Some(if cut {
                ErrorReason::Unfinished
            } else {
                ErrorReason::MalformedBody
            });
        }
        if !self.args.any {
            self.push_chunk(Some(Part::Input), Src::Static("{}"));
            return None;
        }
        if self.args.done {
            return None;
        }
        // Top-level numbers and words complete at the end; anything else is cut short.
        let from = self.args_from();
        let mut n = from;
        loop {
            match self.args.tc.finish() {
                Step::Out(p) => {
                    let b = p.as_bytes();
                    if !self.args.started {
                        self.args.started = true;
                        // A top-level number or word completes only here: not an object
                        // (rule 9).
                        if b.first() != Some(&b'{') {
                            return Some(if cut {
                                ErrorReason::Unfinished
                            } else {
                                ErrorReason::MalformedBody
                            });
                        }
                    }
                    if n + b.len() <= ARGS_OUT {
                        self.args_out[n..n + b.len()].copy_from_slice(b);
                        n += b.len();
                    }
                }
                Step::Done => break,
                Step::NeedMore | Step::Error(_) => {
                    return Some(if cut {
                        ErrorReason::Unfinished
                    } else {
                        ErrorReason::MalformedBody
                    });
                }
            }
        }
        self.push_args(Some(Part::Input), from, n);
        None
    }

    /// Where new output goes in `args_out`: after what queued chunks still read.
    fn args_from(&mut self) -> usize {
        if self.queue.is_empty() {
            self.args_used = 0;
        }
        self.args_used
    }

    /// Queues `args_out[from..to]` as a chunk of the open block.
    fn push_args(&mut self, part: Option<Part>, from: usize, to: usize) {
        if to > from {
            self.args_used = to;
            self.push_chunk(
                part,
                Src::Args {
                    from: from as u16,
                    len: (to - from) as u16,
                },
            );
        }
    }

    /// A piece of a captured value's compact JSON text (`Capture::Text`): content of the
    /// open block.
    pub(crate) fn json_text(&mut self, piece: &[u8]) {
        let from = self.args_from();
        let n = piece.len().min(ARGS_OUT - from);
        self.args_out[from..from + n].copy_from_slice(&piece[..n]);
        self.push_args(None, from, from + n);
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
            call: 0,
            routed: false,
        });
    }

    /// Feeds up to `ARGS_STEP` bytes of decoded arguments text; queues at most one input
    /// chunk. Returns how many bytes were used (all of `text` up to `ARGS_STEP`).
    pub(crate) fn args_text(&mut self, text: &[u8]) -> usize {
        let text = &text[..text.len().min(ARGS_STEP)];
        if text.is_empty() {
            return 0;
        }
        if !self.args.raw_started {
            self.raw.clear();
            self.args.raw_started = true;
        }
        let _ = self.raw.push(text);
        // Blank arguments are no arguments (`{}`, docs/providers.md).
        if !self.args.any
            && text
                .iter()
                .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            return text.len();
        }
        self.args.any = true;
        let mut rest = text;
        let from = self.args_from();
        let mut n = from;
        while !self.args.failed && !rest.is_empty() {
            if self.args.done {
                // After the value only whitespace may follow.
                if rest
                    .iter()
                    .any(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
                {
                    self.args.failed = true;
                }
                break;
            }
            match self.args.tc.next(&mut rest) {
                Step::Out(p) => {
                    let b = p.as_bytes();
                    if !self.args.started {
                        self.args.started = true;
                        // A tool call's input is an object (rule 9).
                        if b.first() != Some(&b'{') {
                            self.args.failed = true;
                            break;
                        }
                    }
                    let end = n + b.len();
                    if let Some(dst) = self.args_out.get_mut(n..end) {
                        dst.copy_from_slice(b);
                        n = end;
                    }
                }
                Step::NeedMore => break,
                Step::Done => self.args.done = true,
                Step::Error(_) => self.args.failed = true,
            }
        }
        // What streamed before a failure in this piece stays streamed (rule 10).
        self.push_args(Some(Part::Input), from, n);
        text.len()
    }

    /// Feeds the held argument bytes to the open call, `ARGS_STEP` at a time (`replay_step`).
    pub(crate) fn replay_held(&mut self) {
        if self.held.len() > 0 {
            self.replay = Some(0);
        }
    }

    pub(crate) fn replaying(&self) -> bool {
        self.replay.is_some()
    }

    /// One step of `replay_held`.
    pub(crate) fn replay_step(&mut self) {
        let Some(at) = self.replay else {
            return;
        };
        let at = at as usize;
        let end = (at + ARGS_STEP).min(self.held.len());
        let mut piece = [0u8; ARGS_STEP];
        let n = end.saturating_sub(at);
        piece[..n].copy_from_slice(&self.held.bytes()[at..end]);
        self.args_text(&piece[..n]);
        if end >= self.held.len() {
            self.replay = None;
            self.held.clear();
        } else {
            self.replay = Some(end as u32);
        }
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
        let c = self.choice_mut(choice);
        c.reason = Some(reason);
        c.raw.set(raw);
    }

    /// Emits the finish events of every choice seen (or of choice 0 when none was), once.
    /// `eof`: the body ended without the provider's end marker.
    pub(crate) fn finish_all(&mut self, eof: bool) {
        self.close_with(eof);
        // docs/providers.md: choice 0 always has a finish.
        self.choices[0].seen = true;
        let mut any = false;
        for i in 0..CHOICES {
            let c = &mut self.choices[i];
            if c.seen && !c.finished {
                any = true;
                self.finish_choice(i as u32, eof);
            }
        }
        if !any && !self.choices.iter().any(|c| c.finished) {
            self.choices[0].seen = true;
            self.finish_choice(0, eof);
        }
    }

    fn finish_choice(&mut self, choice: u32, eof: bool) {
        let errored = self.errored;
        let c = &mut self.choices[(choice as usize).min(CHOICES - 1)];
        if c.finished {
            return;
        }
        c.finished = true;
        if c.reason.is_none() {
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

    pub(crate) fn pop(&mut self) -> Option<Event<'_>> {
        // The decoder takes a `FlushText` before popping (`take_flush`); skipped here.
        while self.flush_next() {
            self.queue.pop_front();
        }
        let p = self.queue.pop_front()?;
        self.materialize(p)
    }

    /// A queued chunk's text; `name`/`id` are the slots of the chunk's block.
    fn src<'s>(&'s self, src: Src, name: &'s Slot, id: &'s Slot) -> &'s str {
        match src {
            Src::Static(s) => s,
            Src::Small => str_of(&self.small[..self.small_len as usize]),
            Src::Name => name.as_str(),
            Src::Id => id.as_str(),
            Src::Raw => whole_chars(self.raw.bytes()),
            Src::Held => str_of(self.held.bytes()),
            Src::Args { from, len } => {
                str_of(&self.args_out[from as usize..(from as usize + len as usize)])
            }
        }
    }

    /// A chunk of the open block with `text` (borrowed from anywhere): the one event handed
    /// out without the queue.
    pub(crate) fn chunk<'s>(&'s self, part: Option<Part>, text: &'s str) -> Option<Event<'s>> {
        let open = self.open?;
        Some(chunk_of(
            open,
            part,
            text,
            self.name.as_str(),
            self.id.as_str(),
        ))
    }

    fn materialize(&self, p: Pending) -> Option<Event<'_>> {
        Some(match p {
            Pending::Start { index, ty, choice } => Event::BlockStart {
                index,
                block_type: ty,
                choice,
            },
            Pending::Chunk {
                part,
                src,
                block,
                done,
            } => {
                let (name, id) = if done {
                    (&self.done_name, &self.done_id)
                } else {
                    (&self.name, &self.id)
                };
                let text = self.src(src, name, id);
                chunk_of(block, part, text, name.as_str(), id.as_str())
            }
            Pending::Complete {
                open,
                error,
                signature,
                redacted,
            } => {
                let tool = matches!(open.ty, BlockType::ToolCall | BlockType::ToolResult);
                Event::BlockComplete(BlockComplete {
                    tool_name: tool.then(|| self.done_name.as_str()),
                    tool_id: tool.then(|| self.done_id.as_str()),
                    error: error.map(|reason| CallError {
                        reason,
                        raw: self.raw.bytes(),
                        raw_truncated: self.raw.len() >= self.raw.limit(),
                    }),
                    choice: open.choice,
                    refusal: open.refusal,
                    server: open.server,
                    signature: signature.then(|| whole_chars(self.signature.bytes())),
                    redacted: redacted.then(|| whole_chars(self.redacted.bytes())),
                    ..BlockComplete::new(open.index, open.ty)
                })
            }
            Pending::Finish { choice } => {
                let c = &self.choices[(choice as usize).min(CHOICES - 1)];
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
            Pending::Error {
                source,
                code,
                message,
            } => Event::Error(StreamError {
                source,
                code: code.then(|| self.error_code.as_str()),
                message: match message {
                    Message::Static(s) => s,
                    Message::Collected => whole_chars(self.message.bytes()),
                },
            }),
        })
    }
}

fn chunk_of<'s>(
    open: OpenBlock,
    part: Option<Part>,
    text: &'s str,
    name: &'s str,
    id: &'s str,
) -> Event<'s> {
    // As the dialects' emitter: a tool block's chunks name their call after the name part.
    let tool = matches!(open.ty, BlockType::ToolCall | BlockType::ToolResult);
    Event::Chunk(Chunk {
        text,
        block_type: open.ty,
        block: open.index,
        depth: u8::from(tool),
        part,
        tool_name: (tool && part != Some(Part::Name)).then_some(name),
        tool_id: (tool && !matches!(part, Some(Part::Name) | Some(Part::Id))).then_some(id),
        choice: open.choice,
    })
}

/// The whole characters of a buffer of text that may have been cut at its limit inside a
/// character (an error message, a failed call's raw arguments).
fn whole_chars(bytes: &[u8]) -> &str {
    match core::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => core::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""),
    }
}
