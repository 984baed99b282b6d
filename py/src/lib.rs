//! `tokensieve._tokensieve`: the extension module behind the Python package `tokensieve`
//! (py/python/tokensieve). It holds the parser (`Sieve`), the provider-stream decoder
//! (`Decoder`) and their events (`Event`); the package adds the helpers (`parse`, `stream`,
//! `astream`, `Collector`) in Python. `format` holds the writers (tool calls, tool results,
//! stop sequences).
//!
//! Every entry point catches panics and raises `RuntimeError`. One `unsafe` call
//! (`event::untrack`, a GC flag) is all the unsafe code there is.
#![deny(unsafe_code)]

use pyo3::prelude::*;
use pyo3::types::PyTuple;

mod config;
mod decoder;
mod errors;
mod event;
mod format;
mod input;
mod sieve;

/// Raises the `RuntimeError` a panic inside the parser becomes (tests the panic boundary).
#[pyfunction]
fn _panic_boundary_check() -> PyResult<()> {
    let mut unit = ();
    sieve::guarded(
        &mut unit,
        |_| {},
        |_| -> PyResult<()> {
            panic!("deliberate panic (tokensieve._tokensieve._panic_boundary_check)")
        },
    )
}

#[pymodule]
fn _tokensieve(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<sieve::Sieve>()?;
    m.add_class::<decoder::Decoder>()?;
    m.add_class::<event::Event>()?;
    event::add_kinds(m)?;
    m.add_function(wrap_pyfunction!(event::_event, m)?)?;
    m.add(
        "DIALECTS",
        PyTuple::new(py, config::supported_dialects().collect::<Vec<_>>())?,
    )?;
    m.add(
        "PROVIDERS",
        PyTuple::new(py, decoder::supported_providers().collect::<Vec<_>>())?,
    )?;
    m.add("RELEASE_GIL_AT", sieve::RELEASE_GIL_AT)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(_panic_boundary_check, m)?)?;
    format::register(m)?;
    Ok(())
}
