//! The driver: owns the holdback window, the block counter, the pending-event queue and the
//! dialect state; turns [`scan::decide`](crate::scan::decide) decisions into events.
//!
//! Pull shape (the C ABI exposes it one to one): hand [`Sieve::next`] the unread input; it
//! advances the slice past what it consumed and returns one event, or `None` when it needs
//! more input (or is done). Bytes that might still be a marker are copied into a small
//! holdback window; everything else is emitted straight from the input, without copying.

use crate::buf::Buf;
use crate::config::{Config, ConfigError, StrList, ToolList};
use crate::dialect::{self, DialectState};
use crate::event::{BlockComplete, BlockType, CallError, Chunk, ErrorReason, Event, Part};
use crate::scan::{self, Decision, TAG_CAP, Vocab};

/// Capacity of the holdback window: a partial tag, a partial stop sequence and an
/// unfinished UTF-8 character.
pub const HOLD_CAP: usize = TAG_CAP + crate::config::MAX_MARKER_LEN + 4;

/// Capacity of a tool name, a tool id and a parameter key (each).
pub const STR_CAP: usize = TAG_CAP;

/// Where [`Emit::Inline`] bytes live in the strings buffer, and how many fit.
const INLINE_AT: usize = 3 * STR_CAP;
pub(crate) const INLINE_CAP: usize = 128;
/// Size of the strings buffer: name, id, key, inline bytes.
const STRS_LEN: usize = INLINE_AT + INLINE_CAP;

/// Memory a [`Sieve::with_memory`] parser needs at least, in bytes.
pub const MIN_MEMORY: usize = HOLD_CAP + STRS_LEN + 64 + 256;

/// Recommended memory for [`Sieve::with_memory`]: calls and values of a few hundred bytes.
pub const DEFAULT_MEMORY: usize = 2048;

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

/// What a dialect does with a decision.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Act {
    /// Bytes of the window consumed.
    pub consume: usize,
    /// A chunk to return now, whose text is `window[..consume]` or a static string.
    pub emit: Option<(Meta, Emit)>,
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Emit {
    /// `window[start..end]`.
    Window(usize, usize),
    Static(&'static str),
    /// `n` bytes a dialect made (a character, an escape), kept in the strings buffer after
    /// the name, id and key slots.
    Inline(u8),
}

impl Act {
    pub(crate) const WAIT: Act = Act {
        consume: 0,
        emit: None,
    };

    pub(crate) fn skip(n: usize) -> Act {
        Act {
            consume: n,
            emit: None,
        }
    }
}

/// The open block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Open {
    pub index: u32,
    pub ty: BlockType,
    pub depth: u8,
}

/// Where the holdback window lives: caller memory, or one heap block made at construction.
enum HoldMem<'a> {
    Slice(&'a mut [u8]),
    #[cfg(feature = "alloc")]
    Heap(alloc::boxed::Box<[u8]>),
}

/// Holdback window: `buf[..old]` were consumed from earlier inputs and are undecided;
/// `buf[old..old + look]` is a copy of the head of the current input (not yet consumed).
struct Hold<'a> {
    mem: HoldMem<'a>,
    old: u16,
    look: u16,
    /// Deferred: bytes of the window consumed by the last decision (applied at the next step,
    /// because the last event may borrow them).
    consumed: u16,
}

impl<'a> Hold<'a> {
    fn new(mem: HoldMem<'a>) -> Hold<'a> {
        Hold {
            mem,
            old: 0,
            look: 0,
            consumed: 0,
        }
    }

    fn clear(&mut self) {
        self.old = 0;
        self.look = 0;
        self.consumed = 0;
    }

    fn buf(&self) -> &[u8] {
        match &self.mem {
            HoldMem::Slice(s) => s,
            #[cfg(feature = "alloc")]
            HoldMem::Heap(b) => b,
        }
    }

    fn buf_mut(&mut self) -> &mut [u8] {
        match &mut self.mem {
            HoldMem::Slice(s) => s,
            #[cfg(feature = "alloc")]
            HoldMem::Heap(b) => b,
        }
    }

    /// Applies a deferred consumption: drops consumed held bytes; the look-ahead copy is
    /// discarded (those bytes are still in the input).
    fn settle(&mut self) {
        let (old, c) = (self.old as usize, self.consumed as usize);
        if c > 0 {
            let c = c.min(old);
            self.buf_mut().copy_within(c..old, 0);
            self.old = (old - c) as u16;
        }
        self.consumed = 0;
        self.look = 0;
    }
}

/// The configuration a parser runs with: borrowed, or owned (with `alloc`).
enum Cfg<'a> {
    Borrowed(&'a Config<'a>),
    #[cfg(feature = "alloc")]
    Owned(alloc::boxed::Box<crate::config::ConfigBuf>),
}

/// The streaming parser.
///
/// ```
/// use tokensieve::{Config, Dialect, Event, Sieve};
/// let config = Config::new(Dialect::AnthropicXml);
/// let mut sieve = Sieve::new(&config).unwrap();
/// let mut visible = String::new();
/// for chunk in ["Hello <thin", "king>hmm</thinking>", " world"] {
///     let mut input = chunk.as_bytes();
///     while let Some(ev) = sieve.next(&mut input) {
///         if let Event::Chunk(c) = ev {
///             if c.visible() { visible.push_str(c.text) }
///         }
///     }
/// }
/// sieve.finish();
/// while let Some(_ev) = sieve.next(&mut &b""[..]) {}
/// assert_eq!(visible, "Hello  world");
/// ```
pub struct Sieve<'a> {
    hold: Hold<'a>,
    m: Machine<'a>,
}

/// Everything but the holdback window (split so a decision can read the window while the
/// machine changes).
pub(crate) struct Machine<'a> {
    cfg: Cfg<'a>,
    pub(crate) dialect: DialectState,
    next_index: u32,
    pub(crate) open: Option<Open>,
    queue: Queue,
    pub(crate) calls: u32,
    pub(crate) raw: Buf<'a>,
    pub(crate) value: Buf<'a>,
    /// Tool name at `[0..STR_CAP)`, tool id at `[STR_CAP..2*STR_CAP)`, parameter key after.
    pub(crate) strs: Buf<'a>,
    pub(crate) name_len: u8,
    pub(crate) id_len: u8,
    pub(crate) key_len: u8,
    /// Input bytes consumed are appended to `raw` (inside a tool call).
    pub(crate) capture: bool,
    /// What happens to capturing once this act's bytes are captured.
    capture_next: CaptureNext,
    /// Inside `prefill`: stop sequences do not apply.
    prefilling: bool,
    /// The open call's input began inside the prefill (see `complete_tool`).
    input_in_prefill: bool,
    /// `raw` overflowed.
    pub(crate) raw_cut: bool,
    finishing: bool,
    eof_done: bool,
    done: bool,
    /// The current context's special bytes and plain text's block (`None`: more than three
    /// special bytes).
    fast: Option<Fast>,
    /// The vocabulary key `fast` was made for ([`STALE`]: none). Contexts change only in
    /// acts (and in `prefill`/`reset`, which make it stale too): `advance_slow` compares the
    /// key around each act, which keeps it off the per-chunk fast path.
    fast_key: u32,
    /// Where the rest of the last decision's text run starts in the input (see
    /// `remembered_text`).
    run_at: usize,
    /// How many bytes of text are left there (0: none remembered).
    run_len: u16,
}

/// The longest input [`Machine::plain_decision`] looks at.
const PLAIN_DECISION_MAX: usize = 16;

/// A [`Machine::fast_key`] no context has.
const STALE: u32 = u32::MAX;

/// The pending events: a ring of six (no act queues more; see `push`), with byte indices —
/// the queue is the largest part of the parser's state.
struct Queue {
    items: [Pending; QUEUE_CAP],
    head: u8,
    len: u8,
}

const QUEUE_CAP: usize = 6;

impl Queue {
    const fn new() -> Queue {
        Queue {
            items: [Pending::Stop { index: 0 }; QUEUE_CAP],
            head: 0,
            len: 0,
        }
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn clear(&mut self) {
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

/// What happens to raw capture after the bytes of the current act are captured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CaptureNext {
    Continue,
    /// Stop (a failed call's closer belongs to its raw text).
    Stop,
    /// Forget what was captured (it belongs to a completed call of an array).
    Restart,
}

/// The bytes that could make input more than text in the current context, and where plain
/// text goes there (if it goes to a content block as is): input holding none of them is
/// text without a decision.
#[derive(Clone, Copy, Debug)]
struct Fast {
    ty: Option<BlockType>,
    depth: u8,
    bytes: [u8; 3],
    n: u8,
}

impl Fast {
    /// Where the first special byte is (`hay.len()` when none).
    fn first_special(&self, hay: &[u8]) -> usize {
        let b = self.bytes;
        if hay.len() < 16 {
            // Token-sized chunks: a plain scan beats memchr's dispatch. Unused slots repeat
            // the first byte, so three comparisons do for any count.
            let (x, y, z) = match self.n {
                0 => return hay.len(),
                1 => (b[0], b[0], b[0]),
                2 => (b[0], b[1], b[1]),
                _ => (b[0], b[1], b[2]),
            };
            return hay
                .iter()
                .position(|&c| c == x || c == y || c == z)
                .unwrap_or(hay.len());
        }
        match self.n {
            0 => None,
            1 => memchr::memchr(b[0], hay),
            2 => memchr::memchr2(b[0], b[1], hay),
            _ => memchr::memchr3(b[0], b[1], b[2], hay),
        }
        .unwrap_or(hay.len())
    }
}

impl<'a> Sieve<'a> {
    /// A parser whose buffers live on the heap, bounded by `max_call_bytes`.
    #[cfg(feature = "alloc")]
    pub fn new(config: &'a Config<'a>) -> Result<Sieve<'a>, ConfigError> {
        config.validate()?;
        let limit = config.max_call_bytes;
        Ok(Sieve::build(
            Cfg::Borrowed(config),
            HoldMem::Heap(alloc::vec![0; HOLD_CAP].into_boxed_slice()),
            [Buf::heap(limit), Buf::heap(limit), Buf::heap(STRS_LEN)],
        ))
    }

    /// A parser that owns its configuration (for bindings and long-lived hosts).
    #[cfg(feature = "alloc")]
    pub fn from_config_buf(
        config: crate::config::ConfigBuf,
    ) -> Result<Sieve<'static>, ConfigError> {
        config.config().validate()?;
        let limit = config.max_call_bytes;
        Ok(Sieve::build(
            Cfg::Owned(alloc::boxed::Box::new(config)),
            HoldMem::Heap(alloc::vec![0; HOLD_CAP].into_boxed_slice()),
            [Buf::heap(limit), Buf::heap(limit), Buf::heap(STRS_LEN)],
        ))
    }

    /// A parser that uses `memory` for its buffers and never touches the heap.
    ///
    /// `memory` must be at least [`MIN_MEMORY`] bytes; [`DEFAULT_MEMORY`] fits the calls of
    /// the conformance vectors. A quarter (at least 64 bytes) holds undecided parameter
    /// values, the rest a failed call's raw text (cut, and reported as cut, beyond it).
    ///
    /// ```
    /// use tokensieve::{Config, Dialect, Sieve, DEFAULT_MEMORY};
    /// let config = Config::new(Dialect::Passthrough);
    /// let mut memory = [0u8; DEFAULT_MEMORY];
    /// let mut sieve = Sieve::with_memory(&config, &mut memory).unwrap();
    /// let mut input = &b"hi"[..];
    /// assert!(sieve.next(&mut input).is_some());
    /// ```
    pub fn with_memory(
        config: &'a Config<'a>,
        memory: &'a mut [u8],
    ) -> Result<Sieve<'a>, ConfigError> {
        config.validate()?;
        if memory.len() < MIN_MEMORY {
            return Err(ConfigError::new("memory", "is smaller than MIN_MEMORY"));
        }
        let (hold, rest) = memory.split_at_mut(HOLD_CAP);
        let (strs, rest) = rest.split_at_mut(STRS_LEN);
        let value_len = (rest.len() / 4).max(64);
        let (value, raw) = rest.split_at_mut(value_len);
        Ok(Sieve::build(
            Cfg::Borrowed(config),
            HoldMem::Slice(hold),
            [Buf::slice(raw), Buf::slice(value), Buf::slice(strs)],
        ))
    }

    fn build(cfg: Cfg<'a>, hold: HoldMem<'a>, bufs: [Buf<'a>; 3]) -> Sieve<'a> {
        let [raw, value, strs] = bufs;
        let mut m = Machine {
            dialect: DialectState::Passthrough(Default::default()),
            cfg,
            next_index: 0,
            open: None,
            queue: Queue::new(),
            calls: 0,
            raw,
            value,
            strs,
            name_len: 0,
            id_len: 0,
            key_len: 0,
            capture: false,
            capture_next: CaptureNext::Continue,
            prefilling: false,
            input_in_prefill: false,
            raw_cut: false,
            finishing: false,
            eof_done: false,
            done: false,
            fast: None,
            fast_key: STALE,
            run_at: 0,
            run_len: 0,
        };
        m.dialect = DialectState::new(&m.config());
        Sieve {
            hold: Hold::new(hold),
            m,
        }
    }

    /// Back to the initial state, keeping configuration and memory.
    pub fn reset(&mut self) {
        self.hold.clear();
        let m = &mut self.m;
        m.next_index = 0;
        m.open = None;
        m.queue.clear();
        m.calls = 0;
        m.raw.clear();
        m.value.clear();
        m.name_len = 0;
        m.id_len = 0;
        m.key_len = 0;
        m.capture = false;
        m.capture_next = CaptureNext::Continue;
        m.prefilling = false;
        m.input_in_prefill = false;
        m.raw_cut = false;
        m.finishing = false;
        m.eof_done = false;
        m.done = false;
        m.forget_derived();
        m.dialect = DialectState::new(&m.config());
    }

    /// Advances the state over `text` without emitting anything (an assistant prefill).
    ///
    /// A prefill ending inside thinking (`…<thinking>`) makes the stream start inside
    /// thinking; one ending inside a tool call or result makes the stream start inside it
    /// (block 0, a call's name and id announced again). Block indices and call ids of the
    /// stream start at 0; stop sequences do not apply to the prefill. Bytes held back at the
    /// end of the prefill (a partial tag) stay held and join the stream. Input that a call
    /// had already streamed inside the prefill is not repeated, so such a call completes as
    /// failed (`malformed-body`, its raw text spanning prefill and stream): end a prefill
    /// before a call's arguments, not within them.
    ///
    /// ```
    /// use tokensieve::{Config, Dialect, Event, Sieve, BlockType};
    /// let config = Config::new(Dialect::AnthropicXml);
    /// let mut sieve = Sieve::new(&config).unwrap();
    /// sieve.prefill(b"Assistant: <thinking>");
    /// let mut input = &b"hmm"[..];
    /// assert!(matches!(sieve.next(&mut input),
    ///     Some(Event::BlockStart { index: 0, block_type: BlockType::Thinking })));
    /// ```
    pub fn prefill(&mut self, text: &[u8]) {
        self.m.prefilling = true;
        self.m.forget_derived();
        let mut input = text;
        let mut streamed_input = false;
        while let Some(step) = self.advance(&mut input) {
            let meta = match step {
                Step::Pending(Pending::Chunk { meta, .. }) => Some(meta),
                Step::Pending(Pending::Start { .. }) => {
                    streamed_input = false;
                    None
                }
                Step::Direct(meta, ..) | Step::Str(meta, _) => Some(meta),
                Step::Pending(_) => None,
            };
            streamed_input |= meta.is_some_and(|m| m.part == Some(Part::Input));
        }
        let m = &mut self.m;
        m.prefilling = false;
        m.forget_derived();
        m.queue.clear();
        m.next_index = 0;
        m.calls = 0;
        m.done = false;
        // A prefill that ends inside a tool call or result makes the stream start inside it,
        // as one ending in a thinking tag does: it is block 0 of the stream, and a call's
        // name and id are announced again (the id counting from 0).
        match m.open.take() {
            Some(o) if o.ty == BlockType::ToolCall => {
                m.start_block(o.ty, o.depth);
                // Its input began inside the prefill and is not repeated: the call cannot
                // complete with a valid input, so it will complete as failed (its raw text
                // spans prefill and stream).
                m.input_in_prefill = streamed_input;
                if m.name_len > 0 {
                    m.queue_chunk(Some(Part::Name), m.name_spool());
                }
                if m.id_len > 0 {
                    m.next_call_id();
                    m.queue_chunk(Some(Part::Id), m.id_spool());
                }
            }
            Some(o) if o.ty == BlockType::ToolResult => {
                m.start_block(o.ty, o.depth);
            }
            _ => {}
        }
    }

    /// Marks the end of input; keep calling [`next`](Sieve::next) (with empty input) to
    /// drain: held bytes are emitted and open blocks complete.
    pub fn finish(&mut self) {
        self.m.finishing = true;
    }

    /// True once the stream has ended: after a stop, or after `finish` was drained.
    pub fn is_done(&self) -> bool {
        self.m.done && self.m.queue.is_empty()
    }

    /// Feeds `input` and calls `f` with every event it yields.
    ///
    /// ```
    /// use tokensieve::{Config, Dialect, Sieve};
    /// let config = Config::new(Dialect::Passthrough);
    /// let mut sieve = Sieve::new(&config).unwrap();
    /// let mut n = 0;
    /// sieve.feed_with(b"hello", |_| n += 1);
    /// sieve.finish_with(|_| n += 1);
    /// assert_eq!(n, 3); // block_start, chunk, block_complete
    /// ```
    pub fn feed_with(&mut self, input: &[u8], mut f: impl FnMut(Event<'_>)) {
        let mut input = input;
        while let Some(ev) = self.next(&mut input) {
            f(ev);
        }
    }

    /// [`finish`](Sieve::finish), then calls `f` with every remaining event.
    pub fn finish_with(&mut self, mut f: impl FnMut(Event<'_>)) {
        self.finish();
        let mut input: &[u8] = &[];
        while let Some(ev) = self.next(&mut input) {
            f(ev);
        }
    }

    /// The next event. Consumes bytes from the front of `*input`; returns `None` when all of
    /// `*input` is consumed and more is needed, or when the stream is done. The event
    /// borrows the input or the parser and is valid until the next call.
    ///
    /// Keep passing the same `input` (what this call left of it) until `next` returns
    /// `None`; then the buffer behind it may be reused for the next read. (The parser may
    /// remember how far the text ahead in the unconsumed input reaches, so it need not scan
    /// it again; it recognises the continuation by its address and forgets it on `None`.)
    #[inline]
    pub fn next<'s, 'i: 's>(&'s mut self, input: &mut &'i [u8]) -> Option<Event<'s>> {
        // The input is used up and nothing is queued, held or finishing: the answer to the
        // second call for every token-sized chunk, kept small enough to inline.
        if input.is_empty() && self.m.queue.is_empty() && self.hold.old == 0 && !self.m.finishing {
            self.m.run_len = 0;
            return None;
        }
        self.next_event(input)
    }

    /// [`next`](Sieve::next) for everything but the idle case.
    #[inline(never)]
    fn next_event<'s, 'i: 's>(&'s mut self, input: &mut &'i [u8]) -> Option<Event<'s>> {
        let Some(step) = self.advance(input) else {
            // The caller may reuse its buffer now: forget where the last text run was.
            self.m.run_len = 0;
            return None;
        };
        Some(match step {
            Step::Pending(p) => self.m.materialize(p),
            Step::Str(meta, text) => Event::Chunk(self.m.chunk(meta, text)),
            Step::Direct(meta, emit, source) => {
                let text = match emit {
                    Emit::Static(s) => s,
                    Emit::Inline(n) => str_of(self.m.inline_bytes(n)),
                    Emit::Window(a, b) => str_of(match source {
                        Some(base) => &base[a..b],
                        None => &self.hold.buf()[a..b],
                    }),
                };
                Event::Chunk(self.m.chunk(meta, text))
            }
        })
    }

    /// Runs the machine until it has an event (or needs input, or is done).
    #[inline]
    fn advance<'i>(&mut self, input: &mut &'i [u8]) -> Option<Step<'i>> {
        // The common case, kept small: nothing queued or held, and the input is text.
        if self.m.queue.is_empty() && !self.m.done && self.hold.old == 0 {
            if input.is_empty() {
                if !self.m.finishing {
                    return None;
                }
            } else if let Some(step) = self.m.fast_text(input) {
                return Some(step);
            } else {
                return self.advance_slow(input, true);
            }
        }
        self.advance_slow(input, false)
    }

    /// The general loop: pending events, the holdback window, decisions and acts.
    #[inline(never)]
    /// `tried_fast`: the fast path just declined this input (nothing is queued or held).
    fn advance_slow<'i>(&mut self, input: &mut &'i [u8], mut tried_fast: bool) -> Option<Step<'i>> {
        loop {
            if let Some(p) = self.m.queue.pop_front() {
                match self.m.spool_piece(p) {
                    Some(piece) => return Some(Step::Pending(self.m.pack_queued(piece))),
                    None => continue,
                }
            }
            if self.m.done {
                // Input after the end (after a stop) is ignored, as a stopped stream is.
                *input = &[];
                return None;
            }
            self.hold.settle();
            if self.hold.old == 0 && !core::mem::take(&mut tried_fast) {
                if input.is_empty() && !self.m.finishing {
                    return None;
                }
                if let Some(step) = self.m.fast_text(input) {
                    return Some(step);
                }
            }
            let base: &'i [u8] = input;
            let from_hold = self.hold.old > 0;
            let window: &[u8] = if from_hold {
                let old = self.hold.old as usize;
                let look = (HOLD_CAP - old).min(input.len());
                self.hold.buf_mut()[old..old + look].copy_from_slice(&input[..look]);
                self.hold.look = look as u16;
                &self.hold.buf()[..old + look]
            } else {
                input
            };
            // End of input is known only when the window reaches it.
            let eof = self.m.finishing
                && input.len()
                    == if from_hold {
                        self.hold.look as usize
                    } else {
                        input.len()
                    };
            let mut decision = self.m.decide(window, eof, from_hold);
            if let Decision::Text(n) = decision {
                // A call that may outgrow `max_call_bytes` does so at the same byte whatever
                // the chunking: text is taken at most one byte past the limit at a time.
                if let Some(room) = self.m.capture_room() {
                    decision = Decision::Text(text_prefix(&window[..n], room + 1));
                }
            }
            if decision == Decision::NeedMore {
                if from_hold && self.hold.look == 0 && !input.is_empty() {
                    // Unreachable by construction (decisions fit the window); never hang.
                    debug_assert!(false, "holdback window full");
                    decision = Decision::Invalid(1);
                } else if from_hold {
                    let look = self.hold.look as usize;
                    self.hold.old += look as u16;
                    self.hold.look = 0;
                    *input = &input[look..];
                    if input.is_empty() {
                        return None;
                    }
                    continue;
                } else if input.is_empty() {
                    if self.m.finishing && self.m.end_of_input() {
                        continue;
                    }
                    return None;
                } else {
                    // Everything left is undecided (it fits: see HOLD_CAP): hold it.
                    let n = input.len().min(HOLD_CAP);
                    self.hold.buf_mut()[..n].copy_from_slice(&input[..n]);
                    self.hold.old = n as u16;
                    *input = &input[n..];
                    if self.m.finishing || !input.is_empty() {
                        continue;
                    }
                    return None;
                }
            }
            let key = self.m.vocab_key();
            let act = self.m.act(decision, window);
            let context_changed = self.m.vocab_key() != key;
            if context_changed {
                self.m.fast_key = STALE;
            }
            if act.consume > 0 {
                if self.m.capture {
                    self.m.capture_raw(&window[..act.consume]);
                }
                match core::mem::replace(&mut self.m.capture_next, CaptureNext::Continue) {
                    CaptureNext::Continue => {}
                    CaptureNext::Stop => self.m.capture = false,
                    CaptureNext::Restart => {
                        self.m.raw.clear();
                        self.m.raw_cut = false;
                    }
                }
                if from_hold {
                    let old = self.hold.old as usize;
                    if act.consume >= old {
                        *input = &input[act.consume - old..];
                        self.hold.consumed = old as u16;
                    } else {
                        self.hold.consumed = act.consume as u16;
                    }
                } else {
                    *input = &input[act.consume..];
                }
                self.m.run_consumed(act.consume);
            }
            if context_changed && self.m.run_len > 0 {
                // The rest of the run (it starts where `input` now does) may hold a marker of
                // the new context: it stays text up to the first of the new context's special
                // bytes (all ASCII, so a character boundary) — what a decision would find.
                let rest = &input[..(self.m.run_len as usize).min(input.len())];
                self.m.run_len = self.m.fast().map_or(0, |f| f.first_special(rest) as u16);
            }
            if let Some((meta, emit)) = act.emit {
                return Some(Step::Direct(meta, emit, (!from_hold).then_some(base)));
            }
        }
    }
}

enum Step<'i> {
    Pending(Pending),
    /// A chunk of input text, already validated (the fast path).
    Str(Meta, &'i str),
    /// A chunk of the window: `Some(input)` when the window was the input, else the hold.
    Direct(Meta, Emit, Option<&'i [u8]>),
}

/// The longest valid UTF-8 prefix of `bytes`.
#[inline]
fn valid_prefix(bytes: &[u8]) -> &str {
    if bytes.len() < 16 {
        // Token-sized: `utf8_chunks` is a plain byte loop, cheaper here than `from_utf8`'s
        // word-at-a-time setup (and much slower than it on long input).
        return bytes.utf8_chunks().next().map_or("", |c| c.valid());
    }
    match core::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => core::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""),
    }
}

/// Text the scanner has validated; the fallback is unreachable in practice (debug builds
/// — tests, vectors, the fuzz smoke — say so loudly instead, as F11 showed they should).
fn str_of(bytes: &[u8]) -> &str {
    let text = core::str::from_utf8(bytes);
    debug_assert!(text.is_ok(), "handing out invalid UTF-8: {bytes:x?}");
    text.unwrap_or("\u{FFFD}")
}

impl<'a> Machine<'a> {
    pub(crate) fn config(&self) -> Config<'_> {
        match &self.cfg {
            Cfg::Borrowed(c) => **c,
            #[cfg(feature = "alloc")]
            Cfg::Owned(c) => c.config(),
        }
    }

    pub(crate) fn thinking_tags(&self) -> (&str, &str) {
        match &self.cfg {
            Cfg::Borrowed(c) => c.thinking_tags(),
            #[cfg(feature = "alloc")]
            Cfg::Owned(c) => c
                .thinking_tags
                .as_ref()
                .map(|(a, b)| (&**a, &**b))
                .unwrap_or_else(|| c.dialect.default_thinking_tags()),
        }
    }

    /// hermes: the configured `[open, close]` call markers, if any.
    pub(crate) fn tool_call_markers(&self) -> Option<(&str, &str)> {
        match &self.cfg {
            Cfg::Borrowed(c) => c.tool_call_markers,
            #[cfg(feature = "alloc")]
            Cfg::Owned(c) => c.tool_call_markers.as_ref().map(|(a, b)| (&**a, &**b)),
        }
    }

    pub(crate) fn tools(&self) -> ToolList<'_> {
        match &self.cfg {
            Cfg::Borrowed(c) => c.tools,
            #[cfg(feature = "alloc")]
            Cfg::Owned(c) => ToolList::Owned(&c.tools),
        }
    }

    /// While a call is captured into heap buffers (bounded by `max_call_bytes`), how many
    /// more bytes fit.
    fn capture_room(&self) -> Option<usize> {
        (self.capture && self.raw.is_heap()).then(|| self.raw.room())
    }

    /// The call being captured outgrew `max_call_bytes` (heap buffers only: fixed memory
    /// cuts `raw` and goes on).
    pub(crate) fn call_too_large(&self) -> bool {
        self.capture && self.raw_cut && self.raw.is_heap()
    }

    pub(crate) fn stops(&self) -> StrList<'_> {
        if self.prefilling {
            // A prefill is never scanned for stop sequences.
            return StrList::Strs(&[]);
        }
        match &self.cfg {
            Cfg::Borrowed(c) => c.stop_sequences,
            #[cfg(feature = "alloc")]
            Cfg::Owned(c) => StrList::Owned(&c.stop_sequences),
        }
    }

    fn vocab(&self) -> Vocab<'_> {
        dialect::vocab(self)
    }

    /// What the head of `window` is: the remembered rest of a text run, a token-sized plain
    /// input, or [`scan::decide`]'s answer (debug builds check the first two against it),
    /// and remembers the text run it finds in the input (`from_hold`: `window` is the
    /// holdback window instead).
    fn decide(&mut self, window: &[u8], eof: bool, from_hold: bool) -> Decision {
        if from_hold {
            self.run_len = 0;
            return scan::decide(&self.vocab(), window, eof);
        }
        let d = if let Some(d) = self.remembered_text(window) {
            #[cfg(debug_assertions)]
            {
                let fresh = scan::decide(&self.vocab(), window, eof);
                let Decision::Text(r) = d else { unreachable!() };
                debug_assert!(
                    matches!(fresh, Decision::Text(f) if f >= r),
                    "remembered Text({r}), decide says {fresh:?}"
                );
            }
            d
        } else if let Some(d) = self.plain_decision(window, eof) {
            debug_assert_eq!(d, scan::decide(&self.vocab(), window, eof));
            d
        } else {
            scan::decide(&self.vocab(), window, eof)
        };
        self.run_len = match d {
            Decision::Text(n) => {
                self.run_at = window.as_ptr() as usize;
                // A longer run is remembered in part: its rest is decided again.
                floor_char_boundary(window, n.min(u16::MAX as usize)) as u16
            }
            _ => 0,
        };
        d
    }

    /// The rest of the last decision's text run, when `window` (the input) continues where
    /// it was left.
    ///
    /// Dialects often consume a text run piece by piece (a JSON token, an escape, a line of a
    /// string argument: an event each); without this, every piece would scan and validate
    /// the rest of the run again (up to [`scan::DECIDE_SPAN`] bytes) and lex again every `<`
    /// in it that is not a tag. The remembered rest is exactly what [`scan::decide`] would
    /// say — a suffix of a text run is text, and decisions depend on the bytes and the
    /// vocabulary only — as long as the act left the vocabulary alone (else it is
    /// forgotten, see `advance_slow`) and the input is the same (its address; forgotten
    /// whenever `next` returns `None`, after which a caller may reuse its buffer). Debug
    /// builds check every use against a fresh decision.
    fn remembered_text(&self, window: &[u8]) -> Option<Decision> {
        let len = self.run_len as usize;
        let fits = len > 0
            && window.as_ptr() as usize == self.run_at
            && window.len() >= len
            // Never inside a character (acts consume whole characters).
            && (window[0] as i8) >= -0x40;
        fits.then_some(Decision::Text(len))
    }

    /// `consumed` bytes of the remembered run were consumed.
    fn run_consumed(&mut self, consumed: usize) {
        if consumed >= self.run_len as usize {
            self.run_len = 0;
        } else {
            self.run_at += consumed;
            self.run_len -= consumed as u16;
        }
    }

    /// Forgets what the driver derived from the context and the input (the fast path's
    /// special bytes, the remembered text run): for a context changed outside an act
    /// (`reset`, `prefill`).
    fn forget_derived(&mut self) {
        self.fast_key = STALE;
        self.run_len = 0;
    }

    /// Identifies the current context's vocabulary: equal keys, equal vocabularies.
    fn vocab_key(&self) -> u32 {
        dialect::vocab_key(self) | (self.prefilling as u32) << 30
    }

    fn act(&mut self, d: Decision, window: &[u8]) -> Act {
        if let Decision::Stop { index, .. } = d {
            self.close_content();
            self.push(Pending::Stop {
                index: index as u16,
            });
            self.done = true;
            return Act::WAIT;
        }
        dialect::act(self, d, window)
    }

    /// The fast path: when nothing is held or queued, the input up to the first of the
    /// current context's special bytes (a byte that may start a tag, a literal marker or a
    /// stop sequence) is text of the open content block — no byte before it can start
    /// anything else — so its valid UTF-8 prefix is emitted without a decision. Exactly what
    /// [`scan::decide`] would say, without building a vocabulary or lexing a marker twice.
    fn fast_text<'i>(&mut self, input: &mut &'i [u8]) -> Option<Step<'i>> {
        if self.capture || self.finishing || !self.queue.is_empty() {
            return None;
        }
        let f = self.fast()?;
        let ty = f.ty?;
        let open = self.open?;
        if open.ty != ty || open.depth != f.depth {
            return None;
        }
        let all: &'i [u8] = input;
        let plain = &all[..f.first_special(all)];
        let text = valid_prefix(plain);
        if text.is_empty() {
            return None;
        }
        *input = &all[text.len()..];
        Some(Step::Str(self.meta(None), text))
    }

    /// The current context's [`Fast`], made once per context.
    #[inline]
    fn fast(&mut self) -> Option<Fast> {
        if self.fast_key == STALE {
            self.make_fast();
        }
        self.fast
    }

    #[inline(never)]
    fn make_fast(&mut self) {
        let key = self.vocab_key();
        debug_assert_ne!(key, STALE);
        self.fast_key = key;
        self.fast = scan::special_bytes(&self.vocab()).map(|(bytes, n)| {
            let plain = dialect::plain_block(self);
            Fast {
                ty: plain.map(|p| p.0),
                depth: plain.map_or(0, |p| p.1),
                bytes,
                n,
            }
        });
    }

    /// [`scan::decide`]'s answer for token-sized input (`window`) holding none of the
    /// context's special bytes: text, its UTF-8 decided as `decide` does — without building
    /// a vocabulary or scanning for markers.
    fn plain_decision(&mut self, window: &[u8], eof: bool) -> Option<Decision> {
        // Token-sized input only: a longer one (a network read) almost always holds a
        // special byte, and then this would only add a scan to the decision.
        if window.is_empty() || window.len() > PLAIN_DECISION_MAX {
            return None;
        }
        let f = self.fast()?;
        if f.first_special(window) < window.len() {
            return None;
        }
        Some(scan::text(window, false, eof))
    }

    /// End of input with nothing held: the dialect closes what is open. Returns true when
    /// events were queued.
    fn end_of_input(&mut self) -> bool {
        if self.eof_done {
            self.done = true;
            return !self.queue.is_empty();
        }
        self.eof_done = true;
        dialect::end_of_input(self);
        self.close_content();
        if let Some(open) = self.open.take() {
            self.push(Pending::Complete {
                index: open.index,
                ty: open.ty,
                error: None,
                is_error: false,
                name: false,
                id: false,
            });
        }
        self.done = true;
        true
    }

    pub(crate) fn push(&mut self, p: Pending) {
        let pushed = self.queue.push_back(p);
        debug_assert!(pushed.is_ok(), "pending queue overflow");
    }

    fn capture_raw(&mut self, bytes: &[u8]) {
        if !self.raw.push(bytes) {
            self.raw_cut = true;
        }
    }

    /// Starts a block (completing the open one first).
    pub(crate) fn start_block(&mut self, ty: BlockType, depth: u8) -> u32 {
        self.close_open();
        let index = self.next_index;
        self.next_index += 1;
        self.open = Some(Open { index, ty, depth });
        self.push(Pending::Start { index, ty });
        index
    }

    /// Completes the open block, whatever it is, without error.
    fn close_open(&mut self) {
        if let Some(open) = self.open.take() {
            self.push(Pending::Complete {
                index: open.index,
                ty: open.ty,
                error: None,
                is_error: false,
                name: false,
                id: false,
            });
        }
    }

    /// Completes the open text or thinking block, if any.
    pub(crate) fn close_content(&mut self) {
        if matches!(
            self.open,
            Some(Open {
                ty: BlockType::Text | BlockType::Thinking,
                ..
            })
        ) {
            self.close_open();
        }
    }

    /// Completes the open tool block with its names and the given outcome.
    pub(crate) fn complete_tool(&mut self, error: Option<ErrorReason>, is_error: bool) {
        if self.input_in_prefill && self.open.is_some_and(|o| o.ty == BlockType::ToolCall) {
            self.input_in_prefill = false;
            if error.is_none() {
                // A call whose input began in the prefill: its input chunks are not one JSON
                // object, so it fails (hermes and morph-xml calls sit at top level).
                let depth = match self.dialect {
                    DialectState::Hermes(_) | DialectState::Morph(_) => 0,
                    _ => 1,
                };
                self.fail_call(ErrorReason::MalformedBody, depth, true);
                return;
            }
        }
        if let Some(open) = self.open.take() {
            self.push(Pending::Complete {
                index: open.index,
                ty: open.ty,
                error,
                is_error,
                name: self.name_len > 0,
                id: self.id_len > 0,
            });
        }
    }

    /// A chunk of `window[..n]` in a text or thinking block at `depth`, opening it first if
    /// needed (then nothing is consumed now: the same decision comes again).
    pub(crate) fn content(&mut self, ty: BlockType, depth: u8, d: Decision) -> Act {
        match self.open {
            Some(o) if o.ty == ty && o.depth == depth => {}
            _ => {
                self.start_block(ty, depth);
                return Act::WAIT;
            }
        }
        let meta = self.meta(None);
        content_act(meta, d)
    }

    /// Metadata for a chunk of the open block.
    pub(crate) fn meta(&self, part: Option<Part>) -> Meta {
        let open = self.open.unwrap_or(Open {
            index: 0,
            ty: BlockType::Text,
            depth: 0,
        });
        let tool = matches!(open.ty, BlockType::ToolCall | BlockType::ToolResult);
        Meta {
            ty: open.ty,
            block: open.index,
            depth: open.depth,
            part,
            name: tool && part != Some(Part::Name) && self.name_len > 0,
            id: tool && !matches!(part, Some(Part::Name) | Some(Part::Id)) && self.id_len > 0,
        }
    }

    pub(crate) fn queue_chunk(&mut self, part: Option<Part>, text: Spool) {
        let meta = self.meta(part);
        self.push(Pending::Chunk { meta, text });
    }

    // --- names, ids, keys --------------------------------------------------------------

    /// Keeps a name, id or key (from a tag or attribute: bounded by TAG_CAP, any bytes) as
    /// valid UTF-8 — invalid sequences as U+FFFD, as `from_utf8_lossy` does (rule 7) — cut to
    /// whole characters within the slot. Everything that reads it back (name and id chunks,
    /// chunk metadata, a key escaped into the input) then reads valid text.
    fn set_str(&mut self, slot: usize, bytes: &[u8]) -> u8 {
        let mut out = [0u8; STR_CAP - 1];
        let mut len = 0;
        'pieces: for piece in bytes.utf8_chunks() {
            let replacement = if piece.invalid().is_empty() {
                ""
            } else {
                "\u{FFFD}"
            };
            for part in [piece.valid(), replacement] {
                let fit = floor_char_boundary(part.as_bytes(), part.len().min(out.len() - len));
                out[len..len + fit].copy_from_slice(&part.as_bytes()[..fit]);
                len += fit;
                if fit < part.len() {
                    break 'pieces;
                }
            }
        }
        self.strs.write_at(slot * STR_CAP, &out[..len]);
        len as u8
    }

    pub(crate) fn set_name(&mut self, name: &[u8]) {
        self.name_len = self.set_str(0, name);
    }

    /// Appends to the tool name what fits (whole characters); returns how many bytes did.
    pub(crate) fn append_name(&mut self, piece: &[u8]) -> usize {
        let len = self.name_len as usize;
        let n = floor_char_boundary(piece, piece.len().min(STR_CAP - 1 - len));
        self.strs.write_at(len, &piece[..n]);
        self.name_len = (len + n) as u8;
        n
    }

    /// An act streaming the head of `bytes` (text at the window's start: valid UTF-8, whole
    /// characters) as JSON string content. A run that needs no escape is emitted in place;
    /// escapes and the short runs around them are packed into one inline chunk of at most
    /// [`INLINE_CAP`] bytes — `a"b` + newline is one event, not four.
    pub(crate) fn escaped_act(&mut self, meta: Meta, bytes: &[u8]) -> Act {
        let run = match crate::json::escape_piece(bytes) {
            crate::json::EscapePiece::Run(r) => r,
            crate::json::EscapePiece::Escape(_) => 0,
        };
        if run == bytes.len() || run >= INLINE_CAP {
            return Act {
                consume: run,
                emit: Some((meta, Emit::Window(0, run))),
            };
        }
        let mut out = [0u8; INLINE_CAP];
        let (mut len, mut used) = (0, 0);
        while used < bytes.len() {
            let room = INLINE_CAP - len;
            // Look no further than what could still fit (and the rest of a character).
            let look = &bytes[used..bytes.len().min(used + room + 3)];
            let (piece, width): (&[u8], usize) = match crate::json::escape_piece(look) {
                crate::json::EscapePiece::Escape(e) if e.len() <= room => (e.as_bytes(), 1),
                crate::json::EscapePiece::Escape(_) => break,
                crate::json::EscapePiece::Run(r) => {
                    // A run ends at an escape (ASCII) or is cut at a character boundary.
                    let take = if r > room {
                        floor_char_boundary(&bytes[used..], room)
                    } else {
                        r
                    };
                    (&bytes[used..used + take], take)
                }
            };
            if width == 0 {
                break;
            }
            out[len..len + piece.len()].copy_from_slice(piece);
            len += piece.len();
            used += width;
        }
        self.inline_act(meta, used, &out[..len])
    }

    /// The `n` bytes of the last inline chunk.
    pub(crate) fn inline_bytes(&self, n: u8) -> &[u8] {
        self.strs
            .bytes()
            .get(INLINE_AT..INLINE_AT + n as usize)
            .unwrap_or(&[])
    }

    /// Returns an act emitting `bytes` (at most [`INLINE_CAP`], valid UTF-8) through
    /// [`Emit::Inline`].
    pub(crate) fn inline_act(&mut self, meta: Meta, consume: usize, bytes: &[u8]) -> Act {
        let n = bytes.len().min(INLINE_CAP);
        self.strs.write_at(INLINE_AT, &bytes[..n]);
        Act {
            consume,
            emit: Some((meta, Emit::Inline(n as u8))),
        }
    }

    pub(crate) fn set_id(&mut self, id: &[u8]) {
        self.id_len = self.set_str(1, id);
    }

    pub(crate) fn set_key(&mut self, key: &[u8]) {
        self.key_len = self.set_str(2, key);
    }

    /// Sets the id to `{id_prefix}{n}` for the next call and counts it.
    pub(crate) fn next_call_id(&mut self) {
        let mut buf = [0u8; crate::config::MAX_ID_PREFIX_LEN + 10];
        let prefix = match &self.cfg {
            Cfg::Borrowed(c) => c.id_prefix.as_bytes(),
            #[cfg(feature = "alloc")]
            Cfg::Owned(c) => c.id_prefix.as_bytes(),
        };
        let p = prefix.len();
        buf[..p].copy_from_slice(prefix);
        let mut digits = [0u8; 10];
        let mut n = self.calls;
        let mut k = 0;
        loop {
            digits[k] = b'0' + (n % 10) as u8;
            n /= 10;
            k += 1;
            if n == 0 {
                break;
            }
        }
        for i in 0..k {
            buf[p + i] = digits[k - 1 - i];
        }
        self.calls += 1;
        self.set_id(&buf[..p + k]);
    }

    pub(crate) fn clear_tool_strs(&mut self) {
        self.name_len = 0;
        self.id_len = 0;
        self.key_len = 0;
    }

    pub(crate) fn key_spool(&self) -> Spool {
        Spool::buf(
            BufId::Strs,
            SpoolMode::Escaped,
            (2 * STR_CAP) as u32,
            (2 * STR_CAP + self.key_len as usize) as u32,
        )
    }

    pub(crate) fn name_spool(&self) -> Spool {
        Spool::buf(BufId::Strs, SpoolMode::Plain, 0, self.name_len as u32)
    }

    pub(crate) fn id_spool(&self) -> Spool {
        Spool::buf(
            BufId::Strs,
            SpoolMode::Plain,
            STR_CAP as u32,
            (STR_CAP + self.id_len as usize) as u32,
        )
    }

    // --- failed calls ------------------------------------------------------------------

    /// Completes the open tool call as failed and, with `on_malformed = text`, re-emits its
    /// raw text as a text block at `depth`. `with_closer`: the bytes this act consumes (the
    /// call's closing tag) still belong to the raw text.
    pub(crate) fn fail_call(&mut self, reason: ErrorReason, depth: u8, with_closer: bool) {
        // A call that outgrew `max_call_bytes` fails as too large, however it ends.
        let reason = if self.raw_cut && self.raw.is_heap() {
            ErrorReason::TooLarge
        } else {
            reason
        };
        if with_closer {
            self.capture_next = CaptureNext::Stop;
        } else {
            self.capture = false;
        }
        self.complete_tool(Some(reason), false);
        let re_emit = match &self.cfg {
            Cfg::Borrowed(c) => c.on_malformed,
            #[cfg(feature = "alloc")]
            Cfg::Owned(c) => c.on_malformed,
        } == crate::config::OnMalformed::Text;
        if re_emit && (self.raw.len() > 0 || with_closer) {
            self.start_block(BlockType::Text, depth);
            // To the end of `raw` as it is when the chunk is emitted (the closer included).
            let end = u32::MAX;
            self.queue_chunk(None, Spool::buf(BufId::Raw, SpoolMode::Lossy, 0, end));
            self.close_open();
        }
    }

    /// Keeps capturing, but forgets what was captured so far, this act's bytes included (a
    /// completed call of an array owns them; a later failure's raw starts after it).
    pub(crate) fn restart_capture(&mut self) {
        self.capture_next = CaptureNext::Restart;
    }

    /// Opens a tool_call block at `depth` for a call whose opening marker is being read:
    /// its raw text is captured from that marker on.
    pub(crate) fn open_call(&mut self, depth: u8) {
        self.begin_capture();
        self.start_block(BlockType::ToolCall, depth);
        self.clear_tool_strs();
    }

    /// Streams the open call's name part, then its id part (`{id_prefix}{n}`).
    pub(crate) fn announce_call(&mut self, name: &[u8]) {
        self.set_name(name);
        self.queue_chunk(Some(Part::Name), self.name_spool());
        self.next_call_id();
        self.queue_chunk(Some(Part::Id), self.id_spool());
    }

    /// Completes the open call successfully: its input object closes (`{}` when it had no
    /// member) and capturing stops.
    pub(crate) fn finish_call(&mut self, had_members: bool) {
        let close = if had_members { "}" } else { "{}" };
        self.queue_chunk(Some(Part::Input), Spool::Static(close));
        self.complete_tool(None, false);
        self.stop_capture();
    }

    /// Stops capturing raw text now — unless a failure asked to capture this act's bytes
    /// too (the closer belongs to a failed call's raw text).
    pub(crate) fn stop_capture(&mut self) {
        if self.capture_next != CaptureNext::Stop {
            self.capture = false;
        }
    }

    /// Starts capturing a call's raw text (the opening marker is captured with it).
    pub(crate) fn begin_capture(&mut self) {
        self.raw.clear();
        self.raw_cut = false;
        self.capture = true;
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

    /// The bytes of a piece [`split_spool`](Machine::split_spool) made.
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

    fn strs_at(&self, start: usize, len: u8) -> Option<&str> {
        if len == 0 {
            return None;
        }
        self.strs
            .bytes()
            .get(start..start + len as usize)
            .map(str_of)
    }

    fn chunk<'s>(&'s self, meta: Meta, text: &'s str) -> Chunk<'s> {
        Chunk {
            text,
            block_type: meta.ty,
            block: meta.block,
            depth: meta.depth,
            part: meta.part,
            tool_name: if meta.name {
                self.strs_at(0, self.name_len)
            } else {
                None
            },
            tool_id: if meta.id {
                self.strs_at(STR_CAP, self.id_len)
            } else {
                None
            },
        }
    }

    fn materialize(&self, p: Pending) -> Event<'_> {
        match p {
            Pending::Start { index, ty } => Event::BlockStart {
                index,
                block_type: ty,
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
                tool_name: if name {
                    self.strs_at(0, self.name_len)
                } else {
                    None
                },
                tool_id: if id {
                    self.strs_at(STR_CAP, self.id_len)
                } else {
                    None
                },
                error: error.map(|reason| CallError {
                    reason,
                    raw: self.raw.bytes(),
                    raw_truncated: self.raw_cut,
                }),
                is_error,
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
                Event::Chunk(self.chunk(meta, text))
            }
            Pending::Stop { index } => Event::Stop {
                sequence: self.stops().get(index as usize).unwrap_or(""),
            },
        }
    }
}

/// The act for a text or invalid decision in a content block described by `meta`.
pub(crate) fn content_act(meta: Meta, d: Decision) -> Act {
    match d {
        Decision::Text(n) => Act {
            consume: n,
            emit: Some((meta, Emit::Window(0, n))),
        },
        Decision::Invalid(n) => Act {
            consume: n,
            emit: Some((meta, Emit::Static("\u{FFFD}"))),
        },
        _ => Act::WAIT,
    }
}

/// The length of the longest prefix of `text` (valid UTF-8) of at most `max` bytes that ends
/// on a character boundary, but at least one character.
fn text_prefix(text: &[u8], max: usize) -> usize {
    if text.len() <= max {
        return text.len();
    }
    let cut = floor_char_boundary(text, max);
    if cut > 0 {
        return cut;
    }
    // The first character is longer than `max`: take it whole.
    1 + text[1..].iter().take_while(|&&b| b & 0xC0 == 0x80).count()
}

fn floor_char_boundary(bytes: &[u8], n: usize) -> usize {
    let mut n = n.min(bytes.len());
    while n > 0 && n < bytes.len() && (bytes[n] & 0xC0) == 0x80 {
        n -= 1;
    }
    n
}
