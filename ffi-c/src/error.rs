//! Statuses and messages: [`Error`] (the negative `tokensieve_status` values) with its
//! [`Result`], the parser's and the thread's message buffers behind `tokensieve_last_error`.

use core::cell::RefCell;
use core::ffi::c_char;
use core::fmt;
use core::ptr;

use tokensieve::ConfigError;

use crate::types::{tokensieve_next_status, tokensieve_status};

/// `TOKENSIEVE_OK`.
pub(crate) const OK: i32 = tokensieve_status::TOKENSIEVE_OK as i32;
/// `TOKENSIEVE_EVENT`.
pub(crate) const EVENT: i32 = tokensieve_next_status::TOKENSIEVE_EVENT as i32;
/// `TOKENSIEVE_NEED_MORE`.
pub(crate) const NEED_MORE: i32 = tokensieve_next_status::TOKENSIEVE_NEED_MORE as i32;
/// `TOKENSIEVE_DONE`.
pub(crate) const DONE: i32 = tokensieve_next_status::TOKENSIEVE_DONE as i32;

/// Why a call failed: one of the negative `tokensieve_status` values. Whoever makes one
/// records its message first ([`Error::report`], `tokensieve_parser::fail`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Error {
    /// `TOKENSIEVE_E_NULL`.
    Null,
    /// `TOKENSIEVE_E_STATE`.
    State,
    /// `TOKENSIEVE_E_CONFIG`.
    Config,
    /// `TOKENSIEVE_E_MEMORY`.
    Memory,
    /// `TOKENSIEVE_E_INVALID`.
    Invalid,
    /// `TOKENSIEVE_E_PANIC`.
    Panic,
    /// `TOKENSIEVE_E_BUFFER`.
    Buffer,
    /// `TOKENSIEVE_E_INPUT`.
    Input,
}

/// What the crate's fallible steps return; entry points turn it into a status with
/// [`status`] (or into NULL / 0).
pub(crate) type Result<T> = core::result::Result<T, Error>;

impl Error {
    /// The status an entry point returns for it.
    pub(crate) const fn code(self) -> i32 {
        (match self {
            Error::Null => tokensieve_status::TOKENSIEVE_E_NULL,
            Error::State => tokensieve_status::TOKENSIEVE_E_STATE,
            Error::Config => tokensieve_status::TOKENSIEVE_E_CONFIG,
            Error::Memory => tokensieve_status::TOKENSIEVE_E_MEMORY,
            Error::Invalid => tokensieve_status::TOKENSIEVE_E_INVALID,
            Error::Panic => tokensieve_status::TOKENSIEVE_E_PANIC,
            Error::Buffer => tokensieve_status::TOKENSIEVE_E_BUFFER,
            Error::Input => tokensieve_status::TOKENSIEVE_E_INPUT,
        }) as i32
    }

    /// Records `args` as the thread's last error (for failures with no parser to hold the
    /// message) and returns `self`.
    pub(crate) fn report(self, args: fmt::Arguments<'_>) -> Error {
        set_thread_message(args);
        self
    }
}

/// The status of an entry point: the non-negative value it succeeded with, or the error's.
pub(crate) fn status(r: Result<i32>) -> i32 {
    r.unwrap_or_else(Error::code)
}

/// A rejected configuration, reported as the thread's last error.
pub(crate) fn config_err(e: &ConfigError) -> Error {
    Error::Config.report(format_args!("config key `{}`: {}", e.key(), e.message()))
}

/// Room for the longest message: the list of every dialect name in the missing-dialect error.
const ERR_CAP: usize = 1024;

/// A NUL-terminated message in fixed storage (no heap).
pub(crate) struct ErrBuf {
    buf: [u8; ERR_CAP],
    len: usize,
}

impl ErrBuf {
    pub(crate) const fn new() -> ErrBuf {
        ErrBuf {
            buf: [0; ERR_CAP],
            len: 0,
        }
    }

    pub(crate) fn set(&mut self, args: fmt::Arguments<'_>) {
        self.len = 0;
        let _ = fmt::write(self, args);
        self.buf[self.len] = 0;
    }

    /// The message, NUL-terminated.
    pub(crate) fn as_ptr(&self) -> *const c_char {
        self.buf.as_ptr().cast()
    }
}

impl fmt::Write for ErrBuf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = ERR_CAP - 1 - self.len;
        let mut n = s.len().min(room);
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

std::thread_local! {
    /// The message of the last failure that had no parser to hold it (NULL or invalid
    /// parser, failed new/init/state_size), per thread. No destructor: no registration,
    /// no heap.
    static LAST: RefCell<ErrBuf> = const { RefCell::new(ErrBuf::new()) };
}

/// Records `args` as the thread's last error.
pub(crate) fn set_thread_message(args: fmt::Arguments<'_>) {
    let _ = LAST.try_with(|l| {
        if let Ok(mut e) = l.try_borrow_mut() {
            e.set(args);
        }
    });
}

/// The thread's last error message (NUL-terminated, "" when there is none or the thread is
/// being torn down).
pub(crate) fn thread_message() -> *const c_char {
    LAST.try_with(|l| l.as_ptr().cast_const())
        .map(|e| {
            // SAFETY: thread-local storage lives as long as the thread; we take the
            // address of its buffer without creating a reference that outlives the call.
            unsafe { ptr::addr_of!((*e).buf) }.cast::<c_char>()
        })
        .unwrap_or(c"".as_ptr())
}
