//! Pickling events: `Event.__reduce__` writes the fields as a versioned tuple of plain
//! values (`Event::state`), `_event` makes the same event from it.

use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use tokensieve::{BlockType, ErrorReason, ErrorSource, FinishReason, Part, Usage};

use super::{Event, Extra, Kind, make_object, untrack};

/// Pickled state: the layout `Event::state` writes and `_event` reads (a version number
/// first, so a later layout can still read this one). Version 2 appended `compaction`;
/// version 3 appended a text block's `citations` to the block extras (`"b"`, signature,
/// redacted, citations); versions 1 (17 items, no `compaction`) and 2 are still read.
const STATE_VERSION: u8 = 3;

impl Event {
    /// The fields as a tuple of plain Python values.
    pub(super) fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let extra: Py<PyAny> = match self.extra.as_deref() {
            None => py.None(),
            Some(Extra::Block {
                signature,
                redacted,
                citations,
            }) => ("b", signature, redacted, citations).into_py_any(py)?,
            Some(Extra::Finish {
                reason,
                raw_reason,
                usage,
                response_id,
                model,
            }) => {
                let usage = usage.map(|u| {
                    (
                        u.input_tokens,
                        u.output_tokens,
                        u.cache_read_tokens,
                        u.cache_write_tokens,
                        u.reasoning_tokens,
                    )
                });
                ("f", *reason as u8, raw_reason, usage, response_id, model).into_py_any(py)?
            }
            Some(Extra::Error {
                source,
                code,
                message,
            }) => ("e", *source as u8, code, message).into_py_any(py)?,
        };
        let items: [Py<PyAny>; 18] = [
            STATE_VERSION.into_py_any(py)?,
            (self.kind as u8).into_py_any(py)?,
            (self.ty as u8).into_py_any(py)?,
            self.part.map(|p| p as u8).into_py_any(py)?,
            self.depth.into_py_any(py)?,
            self.is_error.into_py_any(py)?,
            self.raw_truncated.into_py_any(py)?,
            self.reason.map(|r| r as u8).into_py_any(py)?,
            self.index.into_py_any(py)?,
            self.text.clone_ref_opt(py).into_py_any(py)?,
            self.tool_name.clone_ref_opt(py).into_py_any(py)?,
            self.tool_id.clone_ref_opt(py).into_py_any(py)?,
            self.body.clone().into_py_any(py)?,
            self.choice.into_py_any(py)?,
            self.refusal.into_py_any(py)?,
            self.server.into_py_any(py)?,
            extra,
            self.compaction.into_py_any(py)?,
        ];
        PyTuple::new(py, items)
    }
}

/// `Option<Py<PyString>>` cloned under the GIL.
trait CloneRefOpt {
    fn clone_ref_opt(&self, py: Python<'_>) -> Option<Py<PyString>>;
}

impl CloneRefOpt for Option<Py<PyString>> {
    fn clone_ref_opt(&self, py: Python<'_>) -> Option<Py<PyString>> {
        self.as_ref().map(|s| s.clone_ref(py))
    }
}

fn bad_state(what: &str) -> PyErr {
    pyo3::exceptions::PyValueError::new_err(format!("tokensieve: not a pickled event ({what})"))
}

fn kind_of(code: u8) -> Option<Kind> {
    Some(match code {
        0 => Kind::BlockStart,
        1 => Kind::Chunk,
        2 => Kind::BlockComplete,
        3 => Kind::Stop,
        4 => Kind::Finish,
        5 => Kind::Error,
        _ => return None,
    })
}

/// Rebuilds a pickled event (`Event.__reduce__`).
#[pyfunction]
pub(crate) fn _event<'py>(py: Python<'py>, state: &Bound<'py, PyTuple>) -> PyResult<Py<PyAny>> {
    let at = |i: usize| state.get_item(i);
    if state.is_empty() {
        return Err(bad_state("layout"));
    }
    let version: u8 = at(0)?.extract()?;
    match (version, state.len()) {
        (1, 17) | (2 | STATE_VERSION, 18) => {}
        (1..=STATE_VERSION, _) => return Err(bad_state("layout")),
        _ => return Err(bad_state("version")),
    }
    let extra_state = at(16)?;
    let extra = if extra_state.is_none() {
        None
    } else {
        let tag: String = extra_state.get_item(0)?.extract()?;
        Some(Box::new(match tag.as_str() {
            "b" => {
                let (signature, redacted, citations) = if version >= 3 {
                    let (_, s, r, c): (String, Option<String>, Option<String>, Option<String>) =
                        extra_state.extract()?;
                    (s, r, c)
                } else {
                    let (_, s, r): (String, Option<String>, Option<String>) =
                        extra_state.extract()?;
                    (s, r, None)
                };
                Extra::Block {
                    signature,
                    redacted,
                    citations,
                }
            }
            "f" => {
                type U = Option<(
                    Option<u64>,
                    Option<u64>,
                    Option<u64>,
                    Option<u64>,
                    Option<u64>,
                )>;
                let (_, reason, raw_reason, usage, response_id, model): (
                    String,
                    u8,
                    Option<String>,
                    U,
                    Option<String>,
                    Option<String>,
                ) = extra_state.extract()?;
                Extra::Finish {
                    reason: FinishReason::from_code(reason)
                        .ok_or_else(|| bad_state("finish reason"))?,
                    raw_reason,
                    usage: usage.map(|u| Usage {
                        input_tokens: u.0,
                        output_tokens: u.1,
                        cache_read_tokens: u.2,
                        cache_write_tokens: u.3,
                        reasoning_tokens: u.4,
                    }),
                    response_id,
                    model,
                }
            }
            "e" => {
                let (_, source, code, message): (String, u8, Option<String>, String) =
                    extra_state.extract()?;
                Extra::Error {
                    source: ErrorSource::from_code(source)
                        .ok_or_else(|| bad_state("error source"))?,
                    code,
                    message,
                }
            }
            _ => return Err(bad_state("extra")),
        }))
    };
    let code = |i: usize| -> PyResult<Option<u8>> { at(i)?.extract() };
    let event = Event {
        kind: kind_of(at(1)?.extract()?).ok_or_else(|| bad_state("kind"))?,
        ty: BlockType::from_code(at(2)?.extract()?).ok_or_else(|| bad_state("type"))?,
        part: match code(3)? {
            None => None,
            Some(c) => Some(Part::from_code(c).ok_or_else(|| bad_state("part"))?),
        },
        depth: at(4)?.extract()?,
        is_error: at(5)?.extract()?,
        raw_truncated: at(6)?.extract()?,
        reason: match code(7)? {
            None => None,
            Some(c) => Some(ErrorReason::from_code(c).ok_or_else(|| bad_state("reason"))?),
        },
        index: at(8)?.extract()?,
        text: at(9)?.extract()?,
        tool_name: at(10)?.extract()?,
        tool_id: at(11)?.extract()?,
        body: at(12)?.extract()?,
        choice: at(13)?.extract()?,
        refusal: at(14)?.extract()?,
        server: at(15)?.extract()?,
        compaction: version >= 2 && at(17)?.extract()?,
        extra,
    };
    let obj = make_object(py, event)?;
    untrack(&obj);
    Ok(obj)
}
