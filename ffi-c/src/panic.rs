//! The panic boundary: no panic unwinds into C. [`guard`] turns one into a fallback value,
//! [`with_parser`] (any [`Handle`]: a parser or a decoder) also checks the handle and
//! poisons it.

use core::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::error::{Error, Result, set_thread_message, status};
use crate::parser::Phase;

/// What the entry points need of an opaque handle (`tokensieve_parser`, `tokensieve_decoder`).
pub(crate) trait Handle {
    /// How messages name it ("parser", "decoder").
    const NOUN: &'static str;
    /// Not freed (nor never initialised, as far as its magic tells).
    fn is_live(&self) -> bool;
    /// Where it is in its stream.
    fn phase(&self) -> Phase;
    /// Marks it poisoned (a panic was caught).
    fn poison(&mut self);
    /// Records `args` as its last error and returns `e`.
    fn fail(&mut self, e: Error, args: fmt::Arguments<'_>) -> Error;
}

/// Checks `p` and runs `f` on it, catching panics (which poison the parser); returns `f`'s
/// status, or the error's.
///
/// # Safety
/// `p` is NULL or points to a parser made by `tokensieve_new*`/`tokensieve_init` that was
/// not released, used by one thread at a time.
pub(crate) unsafe fn with_parser<H: Handle>(
    p: *mut H,
    what: &str,
    allow_poisoned: bool,
    f: impl FnOnce(&mut H) -> Result<i32>,
) -> i32 {
    let noun = H::NOUN;
    if p.is_null() {
        return Error::Null
            .report(format_args!("{what}: the {noun} is NULL"))
            .code();
    }
    // SAFETY: non-NULL, and by this function's contract a live parser not used elsewhere
    // right now; the magic check below catches some (not all) violations.
    let parser = unsafe { &mut *p };
    if !parser.is_live() {
        return Error::Invalid
            .report(format_args!(
                "{what}: not a live tokensieve {noun} (freed or never initialised)"
            ))
            .code();
    }
    if parser.phase() == Phase::Poisoned && !allow_poisoned {
        return parser
            .fail(
                Error::Panic,
                format_args!(
                    "{what}: the {noun} is poisoned by an earlier internal error; reset or free it"
                ),
            )
            .code();
    }
    match catch_unwind(AssertUnwindSafe(|| f(parser))) {
        Ok(r) => status(r),
        Err(_) => {
            parser.poison();
            parser
                .fail(
                    Error::Panic,
                    format_args!(
                        "{what}: internal error (panic); the {noun} is poisoned until reset"
                    ),
                )
                .code()
        }
    }
}

/// Runs `f`, turning a panic into `fallback` with a thread error.
pub(crate) fn guard<T>(what: &str, fallback: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        set_thread_message(format_args!("{what}: internal error (panic)"));
        fallback
    })
}
