//! The decision path of the [`Sieve`](super::Sieve): the configuration, the dialect and its
//! emitter, the fast path's derived data (special bytes, the remembered text run), decisions
//! in the current context and what a closer cut off by the end of input does. The pull API,
//! the holdback window and the loop that acts on decisions are in the parent module.
//!
//! The driver owns the configuration ([`Settings`]) and hands it to the dialect on every
//! call (`vocab`, `act`, `end_of_input`, `cut_closer`); the emitter is only the event sink.

use super::Step;
use crate::config::Settings;
use crate::dialect::{Active, Cut};
use crate::emit::{Act, Emitter, Meta, floor_char_boundary, valid_prefix};
use crate::event::BlockType;
use crate::scan::{self, Decision, Vocab};

/// Everything but the holdback window (split so a decision can read the window while the
/// dialect acts).
pub(crate) struct Driver<'a> {
    /// The configuration in force: the driver owns it and hands it to every call into the
    /// dialect (and to the emitter calls that need part of it).
    pub(super) settings: Settings<'a>,
    /// Where events go.
    pub(super) emit: Emitter<'a>,
    /// The dialect in use and its state.
    pub(super) dialect: Active,
    pub(super) finishing: bool,
    pub(super) eof_done: bool,
    /// The current context's special bytes and plain text's block (`None`: more than three
    /// special bytes).
    pub(super) fast: Option<Fast>,
    /// The vocabulary key `fast` was made for ([`STALE`]: none). Contexts change only in
    /// acts (and in `prefill`/`reset`, which make it stale too): `advance_slow` compares the
    /// key around each act, which keeps it off the per-chunk fast path.
    pub(super) fast_key: u32,
    /// Where the rest of the last decision's text run starts in the input (see
    /// `remembered_text`).
    pub(super) run_at: usize,
    /// How many bytes of text are left there (0: none remembered).
    pub(super) run_len: u16,
    /// Where a closer cut off by the end of input stands ([`Driver::cut_marker`]).
    pub(super) cut: CutState,
}

/// The longest input [`Driver::plain_decision`] looks at.
const PLAIN_DECISION_MAX: usize = 16;

/// A [`Driver::fast_key`] no context has.
pub(super) const STALE: u32 = u32::MAX;

/// The bytes that could make input more than text in the current context, and where plain
/// text goes there (if it goes to a content block as is): input holding none of them is
/// text without a decision.
#[derive(Clone, Copy, Debug)]
pub(super) struct Fast {
    ty: Option<BlockType>,
    depth: u8,
    bytes: [u8; 3],
    n: u8,
}

impl Fast {
    /// Where the first special byte is (`hay.len()` when none).
    pub(super) fn first_special(&self, hay: &[u8]) -> usize {
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

/// Where a closer cut off by the end of input stands ([`Driver::cut_marker`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CutState {
    /// None seen (or not taken).
    None,
    /// The dialect is closing what the cut closer would close, a step at a time.
    Taking,
    /// All closed: the rest of the input is the cut marker, wire syntax.
    Kept,
}

impl Driver<'_> {
    // Inlined: a `Vocab` returned through a call is copied (hundreds of bytes).
    #[inline(always)]
    fn vocab(&self) -> Vocab<'_> {
        if let CutState::Kept = self.cut {
            // A cut closer's bytes: one decision, whatever they hold.
            return Vocab::EMPTY;
        }
        self.dialect.vocab(&self.settings, &self.emit)
    }

    /// The other spellings of the thinking markers, as the scanner matches them beside a
    /// context's vocabulary (reported as the marker in force they spell otherwise); `None`
    /// without any (the common case: the scanner's plain entry points are used).
    #[inline(always)]
    fn thinking_alt(&self) -> Option<scan::Alt<'_>> {
        if !self.settings.has_thinking_alternates() {
            return None;
        }
        let (open, close) = self.settings.thinking_tags();
        Some(scan::Alt {
            spellings: self.settings.thinking_alternates(),
            open: open.as_bytes(),
            close: close.as_bytes(),
        })
    }

    /// [`scan::decide`] in the current context — with the other spellings of the thinking
    /// markers when the config has them ([`scan::decide_alt`]).
    #[inline(always)]
    fn scan(&self, window: &[u8], eof: bool) -> Decision {
        match self.thinking_alt() {
            None => scan::decide(&self.vocab(), window, eof),
            Some(alt) => scan::decide_alt(&self.vocab(), &alt, window, eof),
        }
    }

    /// A decision `d` about `window` at the end of input. Where text is not content as is (a
    /// call, a value, a region: the dialect's `plain_block` is `None`) and the text runs into
    /// a marker cut off by the end of input ([`scan::cut_marker`]: `</tool_`, `</`, `<` — a
    /// model stopped by `max_tokens` inside a closer), the text before the marker is decided
    /// alone, and the marker is offered to the dialect
    /// ([`Machine::cut_closer`](crate::dialect::Machine::cut_closer)), again after each step
    /// it takes ([`Cut::Again`]) once that step's events are out. When the dialect took it,
    /// `None` is returned (its events are queued); once it has closed everything, the rest of
    /// the input is text at the depth it said (docs/design.md, Clarifications, "Tool
    /// calls"). Otherwise the decision to act on.
    pub(super) fn cut_marker(&mut self, d: Decision, window: &[u8]) -> Option<Decision> {
        let (Decision::Text(n) | Decision::Invalid(n)) = d else {
            return Some(d);
        };
        match self.cut {
            CutState::Kept => return Some(d),
            CutState::Taking => {}
            CutState::None => {
                if self.dialect.plain_block().is_some() {
                    return Some(d);
                }
                match scan::cut_marker(&self.vocab(), window) {
                    Some(0) => {}
                    Some(p) if p < n && matches!(d, Decision::Text(_)) => {
                        return Some(Decision::Text(p));
                    }
                    _ => return Some(d),
                }
            }
        }
        self.cut = match self
            .dialect
            .cut_closer(&self.settings, &mut self.emit, window)
        {
            Cut::No => {
                debug_assert!(self.cut == CutState::None, "a cut closer dropped midway");
                self.cut = CutState::None;
                // A machine may change its state before it declines (morph-xml's does): what
                // the fast path derived from the old context must not outlive it.
                self.forget_derived();
                return Some(d);
            }
            Cut::Again => CutState::Taking,
            Cut::Done => CutState::Kept,
        };
        self.forget_derived();
        None
    }

    /// What the head of `window` is: the remembered rest of a text run, a token-sized plain
    /// input, or [`scan::decide`]'s answer (debug builds check the first two against it),
    /// and remembers the text run it finds in the input (`from_hold`: `window` is the
    /// holdback window instead).
    #[inline]
    pub(super) fn decide(&mut self, window: &[u8], eof: bool, from_hold: bool) -> Decision {
        if from_hold {
            self.run_len = 0;
            return self.scan(window, eof);
        }
        let d = if let Some(d) = self.remembered_text(window) {
            #[cfg(debug_assertions)]
            {
                let fresh = self.scan(window, eof);
                let Decision::Text(r) = d else { unreachable!() };
                debug_assert!(
                    matches!(fresh, Decision::Text(f) if f >= r),
                    "remembered Text({r}), decide says {fresh:?}"
                );
            }
            d
        } else if let Some(d) = self.plain_decision(window, eof) {
            debug_assert_eq!(d, self.scan(window, eof));
            d
        } else {
            self.scan(window, eof)
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
    #[inline]
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
    #[inline]
    pub(super) fn run_consumed(&mut self, consumed: usize) {
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
    pub(super) fn forget_derived(&mut self) {
        self.fast_key = STALE;
        self.run_len = 0;
    }

    /// Identifies the current context's vocabulary: equal keys, equal vocabularies.
    #[inline]
    pub(super) fn vocab_key(&self) -> u32 {
        self.dialect.vocab_key()
            | (self.settings.prefilling() as u32) << 30
            | (matches!(self.cut, CutState::Kept) as u32) << 31
    }

    #[inline]
    pub(super) fn act(&mut self, d: Decision, window: &[u8]) -> Act {
        if let Decision::Stop { index, .. } = d {
            self.emit.stop(index);
            return Act::WAIT;
        }
        if let CutState::Kept = self.cut {
            // The cut marker is wire syntax (docs/design.md, Clarifications, "Tool calls").
            return match d {
                Decision::Text(n) | Decision::Invalid(n) => Act::skip(n),
                _ => Act::WAIT,
            };
        }
        let act = self.dialect.act(&self.settings, &mut self.emit, d, window);
        // A name an act set is looked up once here, not validated at every chunk after.
        self.emit.resolve_name(&self.settings);
        act
    }

    /// The fast path: when nothing is held or queued, the input up to the first of the
    /// current context's special bytes (a byte that may start a tag, a literal marker or a
    /// stop sequence) is text of the open content block — no byte before it can start
    /// anything else — so its valid UTF-8 prefix is emitted without a decision. Exactly what
    /// [`scan::decide`] would say, without building a vocabulary or lexing a marker twice.
    pub(super) fn fast_text<'i>(&mut self, input: &mut &'i [u8]) -> Option<Step<'i>> {
        if self.emit.capture || self.finishing || self.emit.has_pending() {
            return None;
        }
        let f = self.fast()?;
        let ty = f.ty?;
        let open = self.emit.open?;
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
        // Only thinking asks where lines start (docs/design.md, "Thinking that yields to
        // tool calls"); a context is entered by an act, which notes its bytes.
        if ty == BlockType::Thinking {
            self.emit.note_line(text.as_bytes());
        }
        // Text and thinking chunks carry no tool name or id: their metadata is the block's.
        let meta = match open.ty {
            BlockType::Text | BlockType::Thinking => Meta {
                ty: open.ty,
                block: open.index,
                depth: open.depth,
                part: None,
                name: false,
                id: false,
            },
            _ => self.emit.meta(None),
        };
        Some(Step::Str(meta, text))
    }

    /// The current context's [`Fast`], made once per context.
    #[inline]
    pub(super) fn fast(&mut self) -> Option<Fast> {
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
        let special = match self.thinking_alt() {
            None => scan::special_bytes(&self.vocab()),
            Some(alt) => scan::special_bytes_alt(&self.vocab(), &alt),
        };
        self.fast = special.map(|(bytes, n)| {
            let plain = self.dialect.plain_block();
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
    #[inline]
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
        // ASCII (most token-sized input) is text as is: no `from_utf8` setup for it.
        if window.is_ascii() {
            return Some(Decision::Text(window.len()));
        }
        Some(scan::text(window, false, eof))
    }

    /// End of input with nothing held: the dialect closes what is open. Returns true when
    /// events were queued.
    pub(super) fn end_of_input(&mut self) -> bool {
        if self.eof_done {
            self.emit.done = true;
            return self.emit.has_pending();
        }
        self.eof_done = true;
        self.dialect.end_of_input(&self.settings, &mut self.emit);
        self.emit.end();
        true
    }
}
