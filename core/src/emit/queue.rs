//! The pending-event queue and what its chunks read: spans of the emitter's buffers, turned
//! into chunk text (as is, JSON-escaped, compacted or lossy-decoded) when the event is handed
//! out, and packed so that small queued pieces of one part leave as one chunk.

use super::{Emitter, INLINE_AT, INLINE_CAP, STR_CAP, str_of};
use crate::config::Settings;
use crate::event::{BlockComplete, BlockType, CallError, Chunk, ErrorReason, Event, Part};

/// Which buffer a spooled chunk reads from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum BufId {
    Raw,
    Value,
    Strs,
}

/// How a spooled chunk turns buffer bytes into chunk text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum SpoolMode {
    /// Valid UTF-8, as is.
    Plain,
    /// As the contents of a JSON string.
    Escaped,
    /// Valid JSON, whitespace outside strings removed.
    Compact,
    /// Any bytes, invalid sequences as U+FFFD.
    Lossy,
}

/// Text of a pending chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Spool {
    Static(&'static str),
    Buf(Span),
}

/// A range of one of the parser's buffers, read in a [`SpoolMode`]: packed into 8 bytes so
/// a [`Spool`] fits in 16 (the pending queue is most of the parser's state).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    /// Bits 0..28: start; 28..30: buffer; 30..32: mode.
    packed: u32,
    end: u32,
}

/// Buffers are addressed with 28 bits (`max_call_bytes` is at most 256 MiB).
pub(crate) const SPAN_LIMIT: u32 = (1 << 28) - 1;

impl Span {
    fn buf(self) -> BufId {
        match (self.packed >> 28) & 3 {
            0 => BufId::Raw,
            1 => BufId::Value,
            _ => BufId::Strs,
        }
    }

    fn mode(self) -> SpoolMode {
        match self.packed >> 30 {
            0 => SpoolMode::Plain,
            1 => SpoolMode::Escaped,
            2 => SpoolMode::Compact,
            _ => SpoolMode::Lossy,
        }
    }

    fn start(self) -> u32 {
        self.packed & SPAN_LIMIT
    }

    fn end(self) -> u32 {
        self.end
    }

    fn with(self, mode: SpoolMode, start: u32) -> Span {
        Span::new(self.buf(), mode, start, self.end)
    }

    fn new(buf: BufId, mode: SpoolMode, start: u32, end: u32) -> Span {
        Span {
            packed: start.min(SPAN_LIMIT) | (buf as u32) << 28 | (mode as u32) << 30,
            end,
        }
    }
}

impl Spool {
    /// `buf[start..end]` read in `mode` (`end` may run past the buffer: it is clamped when
    /// the chunk is emitted).
    #[inline]
    pub(crate) fn buf(buf: BufId, mode: SpoolMode, start: u32, end: u32) -> Spool {
        Spool::Buf(Span::new(buf, mode, start, end))
    }
}

/// Chunk metadata, without borrowed texts (names and ids are read at materialisation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Meta {
    pub ty: BlockType,
    pub block: u32,
    pub depth: u8,
    pub part: Option<Part>,
    /// The chunk carries the tool name (id) known when it was queued. (Two bools rather
    /// than one bit field: measured cheaper on the per-chunk path.)
    pub name: bool,
    pub id: bool,
}

/// An event waiting in the queue (it borrows nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pending {
    Start {
        index: u32,
        ty: BlockType,
    },
    Complete {
        index: u32,
        ty: BlockType,
        error: Option<ErrorReason>,
        is_error: bool,
        name: bool,
        id: bool,
    },
    Chunk {
        meta: Meta,
        text: Spool,
    },
    Stop {
        index: u16,
    },
}

/// The pending events: a ring of six (no act queues more; see `push`), with byte indices —
/// the queue is the largest part of the parser's state.
pub(super) struct Queue {
    items: [Pending; QUEUE_CAP],
    head: u8,
    len: u8,
}

pub(super) const QUEUE_CAP: usize = 6;

impl Queue {
    pub(super) const fn new() -> Queue {
        Queue {
            items: [Pending::Stop { index: 0 }; QUEUE_CAP],
            head: 0,
            len: 0,
        }
    }

    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(super) fn clear(&mut self) {
        self.len = 0;
    }

    fn push_back(&mut self, p: Pending) -> Result<(), Pending> {
        if self.len as usize == QUEUE_CAP {
            return Err(p);
        }
        self.items[(self.head as usize + self.len as usize) % QUEUE_CAP] = p;
        self.len += 1;
        Ok(())
    }

    fn push_front(&mut self, p: Pending) -> Result<(), Pending> {
        if self.len as usize == QUEUE_CAP {
            return Err(p);
        }
        self.head = ((self.head as usize + QUEUE_CAP - 1) % QUEUE_CAP) as u8;
        self.items[self.head as usize] = p;
        self.len += 1;
        Ok(())
    }

    fn front(&self) -> Option<Pending> {
        (self.len > 0).then(|| self.items[self.head as usize])
    }

    /// Replaces the text of the chunk at the front.
    fn set_front_text(&mut self, rest: Spool) {
        if let (true, Pending::Chunk { text, .. }) =
            (self.len > 0, &mut self.items[self.head as usize])
        {
            *text = rest;
        }
    }

    fn pop_front(&mut self) -> Option<Pending> {
        if self.len == 0 {
            return None;
        }
        let p = self.items[self.head as usize];
        self.head = ((self.head as usize + 1) % QUEUE_CAP) as u8;
        self.len -= 1;
        Some(p)
    }
}

impl Emitter<'_> {
    /// The next queued event, a chunk cut to one piece (packed with the pieces of the chunks
    /// behind it that share its metadata).
    pub(crate) fn next_pending(&mut self) -> Option<Pending> {
        loop {
            let p = self.queue.pop_front()?;
            if let Some(piece) = self.spool_piece(p) {
                return Some(self.pack_queued(piece));
            }
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, p: Pending) {
        let pushed = self.queue.push_back(p);
        debug_assert!(pushed.is_ok(), "pending queue overflow");
    }

    // --- materialisation ---------------------------------------------------------------

    fn buf(&self, id: BufId) -> &[u8] {
        match id {
            BufId::Raw => self.raw.bytes(),
            BufId::Value => self.value.bytes(),
            BufId::Strs => self.strs.bytes(),
        }
    }

    /// Takes one piece off a pending chunk (the rest goes back to the front of the queue).
    /// Returns `None` for an exhausted chunk.
    fn spool_piece(&mut self, p: Pending) -> Option<Pending> {
        let Pending::Chunk { meta, text } = p else {
            return Some(p);
        };
        let (piece, rest) = self.split_spool(text)?;
        if let Some(rest) = rest {
            let _ = self.queue.push_front(Pending::Chunk { meta, text: rest });
        }
        Some(Pending::Chunk { meta, text: piece })
    }

    /// The first piece of a pending chunk's text — a static string or a span of valid UTF-8
    /// to emit as is — and what is left after it (`None`: the text is exhausted).
    fn split_spool(&self, text: Spool) -> Option<(Spool, Option<Spool>)> {
        let Spool::Buf(span) = text else {
            return Some((text, None));
        };
        let bytes = self.buf(span.buf());
        let (s, e) = (
            span.start() as usize,
            (span.end() as usize).min(bytes.len()),
        );
        if s >= e {
            return None;
        }
        let mode = span.mode();
        let rest = |from: usize| Some(Spool::Buf(span.with(mode, from as u32)));
        let piece = match mode {
            SpoolMode::Plain => (s, e),
            SpoolMode::Compact => crate::json::compact_piece(bytes, s, e),
            SpoolMode::Escaped => match crate::json::escape_piece(&bytes[s..e]) {
                crate::json::EscapePiece::Run(n) => (s, s + n),
                crate::json::EscapePiece::Escape(esc) => {
                    return Some((Spool::Static(esc), rest(s + 1)));
                }
            },
            SpoolMode::Lossy => match core::str::from_utf8(&bytes[s..e]) {
                Ok(_) => (s, e),
                Err(err) if err.valid_up_to() > 0 => (s, s + err.valid_up_to()),
                Err(err) => {
                    let bad = err.error_len().unwrap_or(e - s);
                    return Some((Spool::Static("\u{FFFD}"), rest(s + bad)));
                }
            },
        };
        if piece.0 >= piece.1 {
            return None;
        }
        let piece_spool = Spool::buf(span.buf(), SpoolMode::Plain, piece.0 as u32, piece.1 as u32);
        let rest = if (piece.1 as u32) < span.end() {
            rest(piece.1)
        } else {
            None
        };
        Some((piece_spool, rest))
    }

    /// The bytes of a piece [`split_spool`](Emitter::split_spool) made.
    fn piece_bytes(&self, piece: Spool) -> &[u8] {
        match piece {
            Spool::Static(s) => s.as_bytes(),
            Spool::Buf(span) => self
                .buf(span.buf())
                .get(span.start() as usize..span.end() as usize)
                .unwrap_or(&[]),
        }
    }

    /// Packs the pieces of the queued chunks that follow `first` (a piece just taken off
    /// the queue) and share its metadata into one inline chunk with it, while they fit in
    /// [`INLINE_CAP`] bytes: a member opener `{"`, key, `":"` or a held string `"`, value,
    /// `"` is one event, not three. (Adjacent chunks with equal metadata are one text by
    /// rule 4, so only the event count changes.) The inline bytes are free here: an act's
    /// inline chunk is handed out before the queue it made is drained.
    fn pack_queued(&mut self, first: Pending) -> Pending {
        let Pending::Chunk { meta, text } = first else {
            return first;
        };
        if !matches!(self.queue.front(), Some(Pending::Chunk { meta: m, .. }) if m == meta) {
            return first;
        }
        let head = self.piece_bytes(text);
        if head.len() >= INLINE_CAP {
            return first;
        }
        let mut out = [0u8; INLINE_CAP];
        out[..head.len()].copy_from_slice(head);
        let mut len = head.len();
        let mut packed = false;
        while let Some(Pending::Chunk {
            meta: m,
            text: next,
        }) = self.queue.front()
        {
            if m != meta {
                break;
            }
            let Some((piece, rest)) = self.split_spool(next) else {
                // Exhausted: drop it and look at the one after.
                self.queue.pop_front();
                continue;
            };
            let bytes = self.piece_bytes(piece);
            if len + bytes.len() > INLINE_CAP {
                break;
            }
            out[len..len + bytes.len()].copy_from_slice(bytes);
            len += bytes.len();
            packed = true;
            match rest {
                Some(rest) => self.queue.set_front_text(rest),
                None => {
                    self.queue.pop_front();
                }
            }
        }
        if !packed {
            return first;
        }
        self.strs.write_at(INLINE_AT, &out[..len]);
        Pending::Chunk {
            meta,
            text: Spool::buf(
                BufId::Strs,
                SpoolMode::Plain,
                INLINE_AT as u32,
                (INLINE_AT + len) as u32,
            ),
        }
    }

    #[inline]
    fn strs_at(&self, start: usize, len: u8) -> Option<&str> {
        if len == 0 {
            return None;
        }
        self.strs
            .bytes()
            .get(start..start + len as usize)
            .map(str_of)
    }

    /// The tool name for a chunk or completion: the configured tool's `&str` when the name
    /// is one (looked up once per name, [`resolve_name`](Emitter::resolve_name)), else the
    /// slot's bytes validated.
    #[inline]
    fn name_str<'s>(&'s self, cfg: &'s Settings<'_>) -> Option<&'s str> {
        let configured = if self.name_tool < super::NAME_DIRTY {
            cfg.tools().name(self.name_tool as usize)
        } else {
            None
        };
        let name = match configured {
            Some(n) => Some(n),
            None => self.strs_at(0, self.name_len),
        };
        debug_assert_eq!(name, self.strs_at(0, self.name_len), "name_tool is stale");
        name
    }

    /// The tool id for a chunk or completion: from [`DEFAULT_IDS`](super::DEFAULT_IDS)
    /// when it is one of them, else the slot's bytes validated.
    #[inline]
    fn id_str(&self) -> Option<&str> {
        let id = match self.id_gen {
            0 => self.strs_at(STR_CAP, self.id_len),
            n => super::default_id(u32::from(n) - 1),
        };
        debug_assert_eq!(id, self.strs_at(STR_CAP, self.id_len), "id_gen is stale");
        id
    }

    #[inline(always)]
    pub(crate) fn chunk<'s>(
        &'s self,
        cfg: &'s Settings<'_>,
        meta: Meta,
        text: &'s str,
    ) -> Chunk<'s> {
        // Text and thinking chunks (most) carry neither: no call.
        let (tool_name, tool_id) = if meta.name || meta.id {
            self.tool_strs(cfg, meta)
        } else {
            (None, None)
        };
        Chunk {
            text,
            block_type: meta.ty,
            block: meta.block,
            depth: meta.depth,
            part: meta.part,
            tool_name,
            tool_id,
            choice: 0,
        }
    }

    /// The tool name and id a chunk with `meta` carries.
    #[inline(never)]
    fn tool_strs<'s>(
        &'s self,
        cfg: &'s Settings<'_>,
        meta: Meta,
    ) -> (Option<&'s str>, Option<&'s str>) {
        (
            if meta.name { self.name_str(cfg) } else { None },
            if meta.id { self.id_str() } else { None },
        )
    }

    /// The event of `p` (`cfg`: the stop sequences a stop event names).
    #[inline]
    pub(crate) fn materialize<'s>(&'s self, cfg: &'s Settings<'_>, p: Pending) -> Event<'s> {
        match p {
            Pending::Start { index, ty } => Event::BlockStart {
                index,
                block_type: ty,
                choice: 0,
            },
            Pending::Complete {
                index,
                ty,
                error,
                is_error,
                name,
                id,
            } => Event::BlockComplete(BlockComplete {
                index,
                block_type: ty,
                tool_name: if name { self.name_str(cfg) } else { None },
                tool_id: if id { self.id_str() } else { None },
                error: error.map(|reason| CallError {
                    reason,
                    raw: self.raw.bytes(),
                    raw_truncated: self.raw_cut,
                }),
                is_error,
                ..BlockComplete::new(index, ty)
            }),
            Pending::Chunk { meta, text } => {
                let text = match text {
                    Spool::Static(s) => s,
                    Spool::Buf(span) => {
                        let b = self.buf(span.buf());
                        str_of(
                            b.get(span.start() as usize..span.end() as usize)
                                .unwrap_or(b"\xff"),
                        )
                    }
                };
                Event::Chunk(self.chunk(cfg, meta, text))
            }
            Pending::Stop { index } => Event::Stop {
                sequence: cfg.stops().get(index as usize).unwrap_or(""),
            },
        }
    }
}
