//! The model-text driver: owns the holdback window and one dialect, and turns
//! [`scan::decide`](crate::scan::decide) decisions into the dialect's acts, which write
//! events through the [emitter](crate::emit).
//!
//! Pull shape (the C ABI exposes it one to one): hand [`Sieve::next`] the unread input; it
//! advances the slice past what it consumed and returns one event, or `None` when it needs
//! more input (or is done). Bytes that might still be a marker are copied into a small
//! holdback window; everything else is emitted straight from the input, without copying.

use crate::buf::Buf;
use crate::config::{Cfg, Config, ConfigError, Settings};
use crate::dialect::Active;
#[cfg(feature = "alloc")]
use crate::emit::RAW_SLACK;
use crate::emit::{Emit, Emitter, Meta, Pending, STRS_LEN, str_of};
use crate::event::{Event, Part};
use crate::source::{EventSource, Misuse, Pull};

mod driver;
use crate::scan::{Decision, TAG_CAP};
use driver::{CutState, Driver, STALE};

/// Capacity of the holdback window: a partial tag, a partial stop sequence and an
/// unfinished UTF-8 character.
pub const HOLD_CAP: usize = TAG_CAP + crate::config::MAX_MARKER_LEN + 4;

pub use crate::emit::STR_CAP;

/// Memory a [`Sieve::with_memory`] parser needs at least, in bytes.
pub const MIN_MEMORY: usize = HOLD_CAP + STRS_LEN + 64 + 256;

/// Recommended memory for [`Sieve::with_memory`]: calls and values of a few hundred bytes.
pub const DEFAULT_MEMORY: usize = 2048;

/// Where the holdback window lives: caller memory, or one heap block made at construction.
enum HoldMem<'a> {
    Slice(&'a mut [u8]),
    /// A thin pointer (the size is fixed), so this enum is as small as the slice.
    #[cfg(feature = "alloc")]
    Heap(alloc::boxed::Box<[u8; HOLD_CAP]>),
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
            HoldMem::Heap(b) => &b[..],
        }
    }

    fn buf_mut(&mut self) -> &mut [u8] {
        match &mut self.mem {
            HoldMem::Slice(s) => s,
            #[cfg(feature = "alloc")]
            HoldMem::Heap(b) => &mut b[..],
        }
    }

    /// Copies the head of `input` behind the held bytes (as much as fits).
    fn look_ahead(&mut self, input: &[u8]) {
        let old = self.old as usize;
        let look = (HOLD_CAP - old).min(input.len());
        self.buf_mut()[old..old + look].copy_from_slice(&input[..look]);
        self.look = look as u16;
    }

    /// The held bytes and the look-ahead behind them.
    fn window(&self) -> &[u8] {
        &self.buf()[..(self.old + self.look) as usize]
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
    m: Driver<'a>,
}

impl<'a> Sieve<'a> {
    /// A parser whose buffers live on the heap, bounded by `max_call_bytes`.
    #[cfg(feature = "alloc")]
    pub fn new(config: &'a Config<'a>) -> Result<Sieve<'a>, ConfigError> {
        config.validate()?;
        let limit = config.max_call_bytes;
        Ok(Sieve::build(
            Cfg::Borrowed(config),
            HoldMem::Heap(alloc::boxed::Box::new([0; HOLD_CAP])),
            [
                Buf::heap(limit + RAW_SLACK),
                Buf::heap(limit),
                Buf::heap(STRS_LEN),
            ],
        ))
    }

    /// A parser that owns its configuration (for bindings and long-lived hosts; the
    /// decoder's is [`Decoder::from_config_buf`](crate::provider::Decoder::from_config_buf)).
    ///
    /// ```
    /// use tokensieve::{ConfigBuf, Dialect, Sieve};
    /// fn make() -> Sieve<'static> {
    ///     Sieve::from_config_buf(ConfigBuf::new(Dialect::Hermes)).unwrap()
    /// }
    /// let mut sieve = make();
    /// assert!(sieve.next(&mut &b"hi"[..]).is_some());
    /// ```
    #[cfg(feature = "alloc")]
    pub fn from_config_buf(
        config: crate::config::ConfigBuf,
    ) -> Result<Sieve<'static>, ConfigError> {
        config.config().validate()?;
        let limit = config.max_call_bytes;
        Ok(Sieve::build(
            Cfg::Owned(alloc::boxed::Box::new(config)),
            HoldMem::Heap(alloc::boxed::Box::new([0; HOLD_CAP])),
            [
                Buf::heap(limit + RAW_SLACK),
                Buf::heap(limit),
                Buf::heap(STRS_LEN),
            ],
        ))
    }

    /// A parser that uses `memory` for its buffers and never touches the heap.
    ///
    /// `memory` must be at least [`MIN_MEMORY`] bytes; [`DEFAULT_MEMORY`] fits the calls of
    /// the conformance vectors; at most 256 MiB of it is used. After the holdback window and
    /// the tool strings, a quarter (at least 64 bytes) holds undecided parameter values and
    /// the rest a call's raw text: a call longer than that less 128 bytes fails as
    /// `too-large` at that byte (as one past `max_call_bytes` does with heap buffers), so a
    /// failed call's text always comes back whole.
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
        // Buffers are addressed with 28 bits: more than 256 MiB would not be used right.
        let usable = memory.len().min(crate::emit::SPAN_LIMIT as usize);
        let memory = &mut memory[..usable];
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
        // The driver owns the configuration and hands it to the dialect and the emitter.
        let settings = Settings::new(cfg);
        let dialect = Active::new(&settings.config());
        let emit = Emitter::new(&settings, bufs, dialect.call_depth());
        Sieve {
            hold: Hold::new(hold),
            m: Driver {
                settings,
                emit,
                dialect,
                finishing: false,
                eof_done: false,
                fast: None,
                fast_key: STALE,
                run_at: 0,
                run_len: 0,
                cut: CutState::None,
            },
        }
    }

    /// Back to the initial state, keeping configuration and memory.
    pub fn reset(&mut self) {
        self.hold.clear();
        let m = &mut self.m;
        m.emit.reset();
        m.settings.set_prefilling(false);
        m.finishing = false;
        m.eof_done = false;
        m.cut = CutState::None;
        m.forget_derived();
        m.dialect = Active::new(&m.settings.config());
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
    /// A prefill comes before the stream: once input was fed (or `finish` called), it is
    /// refused with [`Misuse::PrefillAfterInput`] and changes nothing (it would renumber the
    /// blocks already handed out). [`reset`](Sieve::reset) starts a new stream.
    ///
    /// ```
    /// use tokensieve::{Config, Dialect, Event, Misuse, Sieve, BlockType};
    /// let config = Config::new(Dialect::AnthropicXml);
    /// let mut sieve = Sieve::new(&config).unwrap();
    /// sieve.prefill(b"Assistant: <thinking>").unwrap();
    /// let mut input = &b"hmm"[..];
    /// assert!(matches!(sieve.next(&mut input),
    ///     Some(Event::BlockStart { index: 0, block_type: BlockType::Thinking, choice: 0 })));
    /// assert_eq!(sieve.prefill(b"more"), Err(Misuse::PrefillAfterInput));
    /// ```
    pub fn prefill(&mut self, text: &[u8]) -> Result<(), Misuse> {
        if self.hold.old > 0 || self.m.finishing || self.m.emit.started() {
            return Err(Misuse::PrefillAfterInput);
        }
        self.m.settings.set_prefilling(true);
        self.m.forget_derived();
        let mut input = text;
        let (mut streamed_input, mut streamed_name) = (false, false);
        while let Some(step) = self.advance(&mut input) {
            let meta = match step {
                Step::Pending(Pending::Chunk { meta, .. }) => Some(meta),
                Step::Pending(Pending::Start { .. }) => {
                    (streamed_input, streamed_name) = (false, false);
                    None
                }
                Step::Direct(meta, ..) | Step::Str(meta, _) => Some(meta),
                Step::Pending(_) => None,
            };
            streamed_input |= meta.is_some_and(|m| m.part == Some(Part::Input));
            streamed_name |= meta.is_some_and(|m| m.part == Some(Part::Name));
        }
        self.m.forget_derived();
        self.m.settings.set_prefilling(false);
        self.m
            .emit
            .after_prefill(&self.m.settings, streamed_input, streamed_name);
        Ok(())
    }

    /// Marks the end of input; keep calling [`next`](Sieve::next) (with empty input) to
    /// drain: held bytes are emitted and open blocks complete.
    pub fn finish(&mut self) {
        self.m.finishing = true;
    }

    /// True once the stream has ended: after a stop, or after `finish` was drained.
    pub fn is_done(&self) -> bool {
        self.m.emit.done && !self.m.emit.has_pending()
    }

    /// [`next`](Sieve::next) with every outcome named: an event, "feed more", "the stream is
    /// done" — and input given after the stream was finished, which `next` leaves unread,
    /// refused as [`Misuse::InputAfterFinish`]. (Input after a stop sequence is read and
    /// ignored: a model may go on past its stop, and a host need not know where it did.)
    ///
    /// ```
    /// use tokensieve::{Config, Dialect, Misuse, Pull, Sieve};
    /// let config = Config::new(Dialect::Passthrough);
    /// let mut sieve = Sieve::new(&config).unwrap();
    /// let mut input = &b"hi"[..];
    /// let mut events = 0;
    /// while let Pull::Event(_) = sieve.pull(&mut input).unwrap() {
    ///     events += 1;
    /// }
    /// assert!(matches!(sieve.pull(&mut input), Ok(Pull::NeedMore)));
    /// sieve.finish();
    /// while let Pull::Event(_) = sieve.pull(&mut &b""[..]).unwrap() {
    ///     events += 1;
    /// }
    /// assert_eq!(events, 3); // block_start, chunk, block_complete
    /// assert!(matches!(sieve.pull(&mut &b""[..]), Ok(Pull::Done)));
    /// assert!(matches!(sieve.pull(&mut &b"late"[..]), Err(Misuse::InputAfterFinish)));
    /// ```
    pub fn pull<'s, 'i: 's>(&'s mut self, input: &mut &'i [u8]) -> Result<Pull<'s>, Misuse> {
        if self.is_done() {
            if !input.is_empty() && self.m.eof_done {
                return Err(Misuse::InputAfterFinish);
            }
            *input = &[];
            return Ok(Pull::Done);
        }
        // `next` returns `None` while finishing only once the stream is done.
        let finishing = self.m.finishing;
        Ok(match self.next(input) {
            Some(event) => Pull::Event(event),
            None if finishing => Pull::Done,
            None => Pull::NeedMore,
        })
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
    #[inline]
    pub fn feed_with(&mut self, input: &[u8], f: impl FnMut(Event<'_>)) {
        EventSource::feed_with(self, input, f)
    }

    /// [`finish`](Sieve::finish), then calls `f` with every remaining event.
    #[inline]
    pub fn finish_with(&mut self, f: impl FnMut(Event<'_>)) {
        EventSource::finish_with(self, f)
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
        if input.is_empty() && !self.m.emit.has_pending() && self.hold.old == 0 && !self.m.finishing
        {
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
        Some(self.event(step))
    }

    /// [`next`](Sieve::next) in two halves, for a caller that must act on "no event" while
    /// it holds the parser mutably (the provider decoder's text dialect): the step, fed
    /// `buf[*at..]` and borrowing nothing, then [`event_detached`](Sieve::event_detached)
    /// with the same `buf`.
    pub(crate) fn step_detached(&mut self, buf: &[u8], at: &mut usize) -> Option<Detached> {
        let mut input = buf.get(*at..).unwrap_or(&[]);
        let step = self.advance(&mut input);
        *at = buf.len() - input.len();
        if input.is_empty() {
            // The caller refills `buf` in place once it is used up: nothing ahead may be
            // remembered by address.
            self.m.run_len = 0;
        }
        // Offsets of borrowed texts within `buf` (they are sub-slices of it).
        let offset = |p: *const u8| (p as usize).wrapping_sub(buf.as_ptr() as usize);
        Some(match step {
            None => {
                self.m.run_len = 0;
                return None;
            }
            Some(Step::Pending(p)) => Detached::Pending(p),
            Some(Step::Str(meta, text)) => Detached::Str(meta, offset(text.as_ptr()), text.len()),
            Some(Step::Direct(meta, what, source)) => {
                Detached::Direct(meta, what, source.map(|b| (offset(b.as_ptr()), b.len())))
            }
        })
    }

    /// The event of a [`step_detached`](Sieve::step_detached) over `buf`.
    pub(crate) fn event_detached<'s>(&'s self, step: Detached, buf: &'s [u8]) -> Event<'s> {
        let bytes = |at: usize, len: usize| buf.get(at..at + len).unwrap_or(&[]);
        let step = match step {
            Detached::Pending(p) => Step::Pending(p),
            Detached::Str(meta, at, len) => Step::Str(meta, str_of(bytes(at, len))),
            Detached::Direct(meta, what, source) => {
                Step::Direct(meta, what, source.map(|(at, len)| bytes(at, len)))
            }
        };
        self.event(step)
    }

    /// The event of a step.
    #[inline]
    fn event<'s, 'i: 's>(&'s self, step: Step<'i>) -> Event<'s> {
        let emit = &self.m.emit;
        match step {
            Step::Pending(p) => emit.materialize(&self.m.settings, p),
            Step::Str(meta, text) => Event::Chunk(emit.chunk(&self.m.settings, meta, text)),
            Step::Direct(meta, what, source) => {
                let text = match what {
                    Emit::Static(s) => s,
                    Emit::Inline(n) => str_of(emit.inline_bytes(n)),
                    Emit::Window(a, b) => str_of(match source {
                        Some(base) => &base[a..b],
                        None => &self.hold.buf()[a..b],
                    }),
                };
                Event::Chunk(emit.chunk(&self.m.settings, meta, text))
            }
        }
    }

    /// Runs the machine until it has an event (or needs input, or is done).
    #[inline]
    fn advance<'i>(&mut self, input: &mut &'i [u8]) -> Option<Step<'i>> {
        // The common case, kept small: nothing queued or held, and the input is text.
        if !self.m.emit.has_pending() && !self.m.emit.done && self.hold.old == 0 {
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
    /// `tried_fast`: the fast path just declined this input (nothing is queued or held).
    #[inline(never)]
    fn advance_slow<'i>(&mut self, input: &mut &'i [u8], mut tried_fast: bool) -> Option<Step<'i>> {
        loop {
            // (Tested first: most turns of the loop have nothing queued.)
            if self.m.emit.has_pending()
                && let Some(p) = self.m.emit.next_pending()
            {
                return Some(Step::Pending(p));
            }
            if self.m.emit.done {
                // Input after a stop is read and ignored, as a stopped stream is; input after
                // `finish` is left unread (`pull` refuses it).
                if !self.m.eof_done {
                    *input = &[];
                }
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
            if from_hold {
                self.hold.look_ahead(input);
            }
            let window: &[u8] = if from_hold { self.hold.window() } else { input };
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
                // A call's raw text fills up at the same byte whatever the chunking.
                if self.m.emit.capture {
                    decision = Decision::Text(self.m.emit.capture_cut(&window[..n]));
                }
            }
            if eof {
                match self.m.cut_marker(decision, window) {
                    Some(d) => decision = d,
                    // The dialect took a cut closer: its events first.
                    None => continue,
                }
            }
            if decision == Decision::NeedMore {
                if from_hold && self.hold.look == 0 && !input.is_empty() {
                    // Unreachable by construction (decisions fit the window); never hang.
                    debug_assert!(false, "holdback window full");
                    decision = Decision::Invalid(1);
                } else if self.wait(input, from_hold) {
                    continue;
                } else {
                    return None;
                }
            }
            // The key before the act: `fast_key` while the fast path's data is current (every
            // context change, in an act or outside one, makes it stale, so it is the current
            // key), which saves computing it — a 14-way dispatch — once per decision.
            let key = match self.m.fast_key {
                STALE => self.m.vocab_key(),
                key => key,
            };
            debug_assert_eq!(key, self.m.vocab_key(), "fast_key outlived its context");
            let act = self.m.act(decision, window);
            let context_changed = self.m.vocab_key() != key;
            if context_changed {
                self.m.fast_key = STALE;
            }
            if act.consume > 0 {
                self.m.emit.consumed(&window[..act.consume]);
                self.consume(input, act.consume, from_hold);
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

    /// Nothing can be decided yet: the window's bytes are held (and the look-ahead taken
    /// into the hold), or the end of input closes the stream. Returns whether to go on.
    fn wait(&mut self, input: &mut &[u8], from_hold: bool) -> bool {
        if from_hold {
            let look = self.hold.look as usize;
            self.hold.old += look as u16;
            self.hold.look = 0;
            *input = &input[look..];
            !input.is_empty()
        } else if input.is_empty() {
            self.m.finishing && self.m.end_of_input()
        } else {
            // Everything left is undecided (it fits: see HOLD_CAP): hold it.
            let n = input.len().min(HOLD_CAP);
            self.hold.buf_mut()[..n].copy_from_slice(&input[..n]);
            self.hold.old = n as u16;
            *input = &input[n..];
            self.m.finishing || !input.is_empty()
        }
    }

    /// An act consumed `n` bytes of the window: held bytes first (their release deferred, as
    /// the act's chunk may borrow them), then input.
    fn consume(&mut self, input: &mut &[u8], n: usize, from_hold: bool) {
        if from_hold {
            let old = self.hold.old as usize;
            if n >= old {
                *input = &input[n - old..];
                self.hold.consumed = old as u16;
            } else {
                self.hold.consumed = n as u16;
            }
        } else {
            *input = &input[n..];
        }
        self.m.run_consumed(n);
    }
}

/// A step whose texts are offsets into the caller's buffer ([`Sieve::step_detached`]).
pub(crate) enum Detached {
    Pending(Pending),
    Str(Meta, usize, usize),
    Direct(Meta, Emit, Option<(usize, usize)>),
}

enum Step<'i> {
    Pending(Pending),
    /// A chunk of input text, already validated (the fast path).
    Str(Meta, &'i str),
    /// A chunk of the window: `Some(input)` when the window was the input, else the hold.
    Direct(Meta, Emit, Option<&'i [u8]>),
}
