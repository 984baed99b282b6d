//! The panic boundary: no panic unwinds into C. [`guard`] turns one into a fallback value,
//! [`with_parser`] also checks the parser and poisons it.

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::error::{Error, Result, set_thread_message, status};
use crate::parser::{Phase, tokensieve_parser};

/// Checks `p` and runs `f` on it, catching panics (which poison the parser); returns `f`'s
/// status, or the error's.
///
/// # Safety
/// `p` is NULL or points to a parser made by `tokensieve_new*`/`tokensieve_init` that was
/// not released, used by one thread at a time.
pub(crate) unsafe fn with_parser(
    p: *mut tokensieve_parser,
    what: &str,
    allow_poisoned: bool,
    f: impl FnOnce(&mut tokensieve_parser) -> Result<i32>,
) -> i32 {
    if p.is_null() {
        return Error::Null
            .report(format_args!("{what}: the parser is NULL"))
            .code();
    }
    // SAFETY: non-NULL, and by this function's contract a live parser not used elsewhere
    // right now; the magic check below catches some (not all) violations.
    let parser = unsafe { &mut *p };
    if !parser.is_live() {
        return Error::Invalid
            .report(format_args!(
                "{what}: not a live tokensieve parser (freed or never initialised)"
            ))
            .code();
    }
    if parser.phase == Phase::Poisoned && !allow_poisoned {
        return parser
            .fail(
                Error::Panic,
                format_args!(
                    "{what}: the parser is poisoned by an earlier internal error; reset or free it"
                ),
            )
            .code();
    }
    match catch_unwind(AssertUnwindSafe(|| f(parser))) {
        Ok(r) => status(r),
        Err(_) => {
            parser.phase = Phase::Poisoned;
            parser
                .fail(
                    Error::Panic,
                    format_args!(
                        "{what}: internal error (panic); the parser is poisoned until reset"
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
