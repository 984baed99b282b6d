//! The cheap targets: one feed, no oracle, so that a campaign reaches many more executions
//! than the oracle targets (which parse every input twice, keep every event and compare).
//! They assert only what costs nothing extra: no panic, every text valid UTF-8 (by type),
//! the stream's shape.

use std::cell::RefCell;
use std::collections::HashMap;

use tokensieve::{Config, ConfigBuf, Dialect, Event};

use crate::{Head, drive_with, transcode, with_sieve};

/// `fast_sieve`: `[dialect, flags, seed, (prefill length)?, input…]`, the `ffi` target's
/// layout: the dialect byte indexes `Dialect::ALL` (their order is the C codes'), the rest
/// is a stream target's input (`Head::read`, as `Setup::decode`: flag bits as in the README, bit 4 a tiny
/// `max_call_bytes`, bit 5 caller memory). Fed once whole, the events checked as they come
/// and not kept: block indices 0, 1, 2… in order, one block open at a time, chunks of the
/// open block and not empty, every block completes, nothing after a stop; `next` never
/// `None` with input left, done after `finish`, nothing after the end.
pub fn check_fast_sieve(data: &[u8]) {
    let Some((&d, rest)) = data.split_first() else {
        return;
    };
    let dialect = Dialect::ALL[d as usize % Dialect::ALL.len()];
    let Some(head) = Head::read(rest) else {
        return;
    };
    let mut shape = Shape::default();
    with_config(dialect, &head, |config| {
        with_sieve(config, head.fixed_memory(), |sieve| {
            drive_with(sieve, head.prefill, head.input, &[], |ev| shape.see(ev));
        });
    });
    assert!(shape.open.is_none(), "a block never completes");
}

/// `f` on the config `head` picks: built once per dialect and flags (the JSON form and its
/// reading cost more than parsing a short input), `max_call_bytes` set on the view.
fn with_config(dialect: Dialect, head: &Head<'_>, f: impl FnOnce(&Config<'_>)) {
    thread_local! {
        static BUILT: RefCell<HashMap<(Dialect, u8, u8), Option<ConfigBuf>>> = RefCell::default();
    }
    let flags = head.flags & Head::CONFIG_BITS;
    // The seed's high bit picks the thinking spellings (with flag bit 7).
    let spellings = head.seed & 128;
    BUILT.with_borrow_mut(|built| {
        let buf = built.entry((dialect, flags, spellings)).or_insert_with(|| {
            ConfigBuf::from_value(&Head { flags, ..*head }.config(dialect)).ok()
        });
        if let Some(buf) = buf {
            let mut config = buf.config();
            if let Some(n) = head.max_call_bytes() {
                config.max_call_bytes = n;
            }
            f(&config);
        }
    });
}

/// The stream's shape so far.
#[derive(Default)]
struct Shape {
    /// The index the next block must have.
    next: u32,
    /// The open block's index.
    open: Option<u32>,
    stopped: bool,
}

impl Shape {
    fn see(&mut self, ev: &Event<'_>) {
        assert!(!self.stopped, "an event after stop: {ev:?}");
        match *ev {
            Event::BlockStart { index, .. } => {
                assert!(self.open.is_none(), "block_start while a block is open");
                assert_eq!(index, self.next, "block index gap");
                self.next += 1;
                self.open = Some(index);
            }
            Event::Chunk(c) => {
                assert_eq!(Some(c.block), self.open, "chunk outside its block");
                assert!(!c.text.is_empty(), "empty chunk text");
            }
            Event::BlockComplete(b) => {
                assert_eq!(self.open.take(), Some(b.index), "completes another block");
            }
            Event::Stop { .. } => {
                assert!(self.open.is_none(), "block open at stop");
                self.stopped = true;
            }
            Event::Finish(_) | Event::Error(_) => panic!("a parser emitted a provider event"),
        }
    }
}

/// `fast_json_relaxed`: `[seed, input…]`, the `json_relaxed` target's layout (the seed is
/// not used), so the two share seeds and corpora. The transcoder fed once whole; whenever
/// it completes, its output `validate`s (one linear pass, no allocation).
pub fn check_fast_relaxed(data: &[u8]) {
    let Some((_, input)) = data.split_first() else {
        return;
    };
    let (out, ok) = transcode(input, &[]);
    if ok {
        assert!(
            tokensieve::json::strict::validate(&out).is_ok(),
            "output does not validate: {:?}",
            String::from_utf8_lossy(&out)
        );
    }
}
