//! The writers (issue 27): the prompt's tool definitions, the assistant's past tool calls
//! and tool results in a dialect's wire format, and the dialect's stop sequences. The
//! package's Python functions (`tokensieve.format_tool_calls`, …, in `_format.py`) encode
//! the lists of dicts as JSON; the core reads that JSON
//! (`tokensieve::format::format_tool_calls_json`, `format_tool_definitions_json`, …: one
//! reader for every binding).

use std::panic::{AssertUnwindSafe, catch_unwind};

use pyo3::prelude::*;
use tokensieve::format::{
    format_tool_calls_json, format_tool_definitions_json, format_tool_results_json,
    stop_sequences_for,
};

use crate::config::Options;

/// Runs `f`, a panic raised as `StateError` (never a panic into Python).
fn guarded<T>(what: &str, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(crate::errors::state(format!(
            "tokensieve internal error (a bug, please report it) in {what}"
        )))
    })
}

/// `format_tool_calls(dialect, calls_json, tools)`: the dialect (a name or a description
/// mapping) and tools as `Sieve`'s, the calls as JSON text.
#[pyfunction]
#[pyo3(signature = (dialect, calls_json, tools = None))]
fn _format_tool_calls(
    py: Python<'_>,
    dialect: &Bound<'_, PyAny>,
    calls_json: &str,
    tools: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    guarded("format_tool_calls", || {
        let config = Options {
            tools,
            ..Options::dialect_only(dialect)
        }
        .build(py)?;
        format_tool_calls_json(&config.config(), calls_json)
            .map_err(|e| crate::errors::format(format!("calls: {e}")))
    })
}

/// `format_tool_definitions(dialect, tools_json, tool_call_markers)`: the dialect (a name or
/// a description mapping) and markers as `Sieve`'s, the tools as JSON text.
#[pyfunction]
#[pyo3(signature = (dialect, tools_json, tool_call_markers = None))]
fn _format_tool_definitions(
    py: Python<'_>,
    dialect: &Bound<'_, PyAny>,
    tools_json: &str,
    tool_call_markers: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    guarded("format_tool_definitions", || {
        let config = Options {
            tool_call_markers,
            ..Options::dialect_only(dialect)
        }
        .build(py)?;
        format_tool_definitions_json(&config.config(), tools_json)
            .map_err(|e| crate::errors::format(format!("tools: {e}")))
    })
}

/// `format_tool_results(dialect, results_json)`.
#[pyfunction]
fn _format_tool_results(dialect: &Bound<'_, PyAny>, results_json: &str) -> PyResult<String> {
    guarded("format_tool_results", || {
        let d = crate::config::dialect("dialect", dialect)?;
        format_tool_results_json(d, results_json)
            .map_err(|e| crate::errors::format(format!("results: {e}")))
    })
}

/// The stop sequences a host sets when it runs a model of the dialect in completions mode.
#[pyfunction]
fn stop_sequences(dialect: &Bound<'_, PyAny>) -> PyResult<Vec<&'static str>> {
    guarded("stop_sequences", || {
        let d = crate::config::dialect("dialect", dialect)?;
        Ok(stop_sequences_for(d).to_vec())
    })
}

/// Adds the writers to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_format_tool_calls, m)?)?;
    m.add_function(wrap_pyfunction!(_format_tool_definitions, m)?)?;
    m.add_function(wrap_pyfunction!(_format_tool_results, m)?)?;
    m.add_function(wrap_pyfunction!(stop_sequences, m)?)?;
    Ok(())
}
