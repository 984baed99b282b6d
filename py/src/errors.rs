//! The package's exceptions (`tokensieve._errors`: `Error` and its subclasses, each also the
//! built-in exception it replaced), raised from Rust.

use pyo3::prelude::*;
use pyo3::types::PyType;

/// `tokensieve._errors.<class>(msg)` as a `PyErr`.
fn raise(class: &str, msg: String) -> PyErr {
    Python::attach(|py| {
        let cls = py
            .import("tokensieve._errors")
            .and_then(|m| m.getattr(class))
            .and_then(|c| c.cast_into::<PyType>().map_err(PyErr::from));
        match cls {
            Ok(t) => PyErr::from_type(t, msg),
            Err(e) => e,
        }
    })
}

/// A bad config: `ConfigError` (a `ValueError`).
pub(crate) fn config(msg: impl Into<String>) -> PyErr {
    raise("ConfigError", msg.into())
}

/// An argument of the wrong type: `ArgumentError` (a `TypeError`).
pub(crate) fn argument(msg: impl Into<String>) -> PyErr {
    raise("ArgumentError", msg.into())
}

/// A call the parser's state does not allow, or a caught panic: `StateError` (a
/// `RuntimeError`).
pub(crate) fn state(msg: impl Into<String>) -> PyErr {
    raise("StateError", msg.into())
}

/// Tool calls or results that cannot be written: `FormatError` (a `ValueError`).
pub(crate) fn format(msg: impl Into<String>) -> PyErr {
    raise("FormatError", msg.into())
}
