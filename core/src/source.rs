//! One pull API for both event sources: [`Sieve`](crate::Sieve) (model text) and
//! [`Decoder`](crate::provider::Decoder) (a provider's response body) implement
//! [`EventSource`], so a host, a binding or a test drives either through one loop.
//!
//! Both types keep the same methods as inherent ones too (so `sieve.next(..)` needs no
//! import); the trait is for code generic over the two. The helpers
//! [`feed_with`](EventSource::feed_with) and [`finish_with`](EventSource::finish_with) are
//! written once, here.

use crate::Sieve;
use crate::event::Event;
use crate::provider::Decoder;

/// A call the parser's or decoder's state does not allow; it is left as it was. (The C ABI
/// answers the same calls with `TOKENSIEVE_E_STATE`.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Misuse {
    /// [`Sieve::prefill`](crate::Sieve::prefill) after input was fed or `finish` was
    /// called: a prefill comes before the stream (`reset` starts a new one).
    PrefillAfterInput,
    /// Input given after the stream was finished (`finish`, then drained): it would be
    /// parsed by no one.
    InputAfterFinish,
}

impl core::fmt::Display for Misuse {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Misuse::PrefillAfterInput => {
                "prefill after input was fed: a prefill comes before the stream"
            }
            Misuse::InputAfterFinish => "input after the stream was finished",
        })
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Misuse {}

/// What [`EventSource::pull`] found.
#[derive(Debug)]
pub enum Pull<'s> {
    /// The next event (it borrows the input or the source until the next call).
    Event(Event<'s>),
    /// The input is used up: feed the next read (or call `finish`).
    NeedMore,
    /// The stream has ended (a stop sequence, or `finish` drained): nothing more comes.
    Done,
}

/// A pull source of [`Event`]s: [`Sieve`](crate::Sieve) and
/// [`Decoder`](crate::provider::Decoder).
///
/// Hand [`next`](EventSource::next) the unread input; it advances the slice past what it
/// consumed and returns one event, or `None` when it needs more input (or is done). After
/// the last read, [`finish`](EventSource::finish), then call `next` with empty input until
/// `None`. [`pull`](EventSource::pull) names every outcome, and refuses input given after
/// the stream was finished ([`Misuse::InputAfterFinish`]) instead of leaving it unread.
///
/// ```
/// use tokensieve::provider::{Decoder, DecoderConfig, Provider};
/// use tokensieve::{Config, Dialect, Event, EventSource, Pull, Sieve};
///
/// /// The visible text of a stream, whatever produces the events.
/// fn visible(source: &mut impl EventSource, reads: &[&[u8]]) -> String {
///     let mut text = String::new();
///     let mut keep = |ev: Event<'_>| {
///         if let Event::Chunk(c) = ev {
///             if c.visible() { text.push_str(c.text) }
///         }
///     };
///     for read in reads {
///         let mut input = *read;
///         while let Pull::Event(ev) = source.pull(&mut input).unwrap() {
///             keep(ev);
///         }
///     }
///     source.finish_with(keep);
///     assert!(source.is_done());
///     text
/// }
///
/// let config = Config::new(Dialect::Hermes);
/// let mut sieve = Sieve::new(&config).unwrap();
/// assert_eq!(visible(&mut sieve, &[b"Hel", b"lo"]), "Hello");
///
/// let mut decoder = Decoder::new(&DecoderConfig::new(Provider::OpenAiChat)).unwrap();
/// let body: &[u8] = b"data: {\"choices\":[{\"delta\":{\"content\":\"Hello\"}}]}\n\n";
/// assert_eq!(visible(&mut decoder, &[&body[..9], &body[9..]]), "Hello");
/// ```
pub trait EventSource {
    /// The next event. Consumes bytes from the front of `*input`; returns `None` when all of
    /// `*input` is consumed and more is needed, or when the stream is done. The event
    /// borrows the input or the source and is valid until the next call.
    ///
    /// Keep passing the same `input` (what this call left of it) until `next` returns
    /// `None`; then the buffer behind it may be reused for the next read.
    fn next<'s, 'i: 's>(&'s mut self, input: &mut &'i [u8]) -> Option<Event<'s>>;

    /// [`next`](EventSource::next) with every outcome named: an event, "feed more", "the
    /// stream is done" — and input given after the stream was finished, which `next` leaves
    /// unread, refused as [`Misuse::InputAfterFinish`].
    fn pull<'s, 'i: 's>(&'s mut self, input: &mut &'i [u8]) -> Result<Pull<'s>, Misuse>;

    /// Marks the end of input; keep calling [`next`](EventSource::next) (with empty input)
    /// to drain: held bytes are emitted and open blocks complete.
    fn finish(&mut self);

    /// True once the stream has ended and every event was handed out.
    fn is_done(&self) -> bool;

    /// Back to the initial state, keeping configuration and memory.
    fn reset(&mut self);

    /// Feeds `input` and calls `f` with every event it yields.
    fn feed_with(&mut self, input: &[u8], mut f: impl FnMut(Event<'_>)) {
        let mut input = input;
        while let Some(ev) = self.next(&mut input) {
            f(ev);
        }
    }

    /// [`finish`](EventSource::finish), then calls `f` with every remaining event.
    fn finish_with(&mut self, mut f: impl FnMut(Event<'_>)) {
        self.finish();
        let mut input: &[u8] = &[];
        while let Some(ev) = self.next(&mut input) {
            f(ev);
        }
    }
}

/// Implements [`EventSource`] for a type whose inherent methods of the same names do the
/// work: the trait's five methods forward to them (the helpers are the trait's defaults).
macro_rules! forward_event_source {
    ($(#[$doc:meta])* $ty:ident) => {
        $(#[$doc])*
        impl EventSource for $ty<'_> {
            #[inline]
            fn next<'s, 'i: 's>(&'s mut self, input: &mut &'i [u8]) -> Option<Event<'s>> {
                $ty::next(self, input)
            }

            #[inline]
            fn pull<'s, 'i: 's>(&'s mut self, input: &mut &'i [u8]) -> Result<Pull<'s>, Misuse> {
                $ty::pull(self, input)
            }

            #[inline]
            fn finish(&mut self) {
                $ty::finish(self)
            }

            #[inline]
            fn is_done(&self) -> bool {
                $ty::is_done(self)
            }

            #[inline]
            fn reset(&mut self) {
                $ty::reset(self)
            }
        }
    };
}

forward_event_source!(
    /// The same methods as the inherent ones (which the trait's forward to: callers of a
    /// concrete `Sieve` need no import).
    Sieve
);
forward_event_source!(
    /// The same methods as the inherent ones (which the trait's forward to: callers of a
    /// concrete `Decoder` need no import).
    Decoder
);
