//! `tokensieve.Sieve`: the streaming parser of one dialect.
//!
//! Thread safety: the parser sits behind a mutex that is only ever *tried*; a second
//! thread (or a re-entrant call) gets a `RuntimeError` instead of waiting or racing. A
//! Sieve may move between threads freely as long as one uses it at a time.
//!
//! Inputs of [`RELEASE_GIL_AT`] bytes or more are scanned with the GIL released: the
//! events are recorded as owned data (one text arena) and made Python objects after.
//! Panics are caught at every entry point and raised as `RuntimeError`.

use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Mutex, MutexGuard};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use pyo3::{IntoPyObjectExt, intern};
use tokensieve::{
    BlockComplete, BlockType, CallError, Chunk, Dialect, ErrorReason, ErrorSource,
    Event as CoreEvent, EventSource, Finish, FinishReason, Part, StreamError, Usage,
};

use crate::config::{Options, config_error};
use crate::event::{Converter, part_str, type_str};
use crate::input::bytes_of;

/// Inputs at least this long are scanned without the GIL.
pub(crate) const RELEASE_GIL_AT: usize = 32 * 1024;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// New or reset: prefill and feed allowed.
    Fresh,
    /// Fed at least once: no more prefill.
    Fed,
    /// `finish` called: only finish (nothing more comes) and reset.
    Finished,
}

struct State {
    sieve: tokensieve::Sieve<'static>,
    conv: Converter,
    phase: Phase,
    /// Copies of mutable buffers (see `input::bytes_of`).
    scratch: Vec<u8>,
}

impl State {
    fn reset(&mut self) {
        self.sieve.reset();
        self.conv.reset();
        self.phase = Phase::Fresh;
        self.scratch = Vec::new();
    }
}

/// The streaming parser of one dialect.
///
/// Every keyword is a key of the JSON config. feed(data) returns the events of the next
/// piece of the stream (str, or any bytes-like object), finish() the last ones, reset()
/// starts a new stream. Not shareable between threads: a call while another thread is
/// inside a call on the same Sieve raises RuntimeError.
#[pyclass(frozen, module = "tokensieve", name = "Sieve")]
pub struct Sieve {
    dialect: Dialect,
    state: Mutex<State>,
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic")
}

/// The state behind a parser object, or a `RuntimeError` when another thread holds it (a
/// `Sieve` or `Decoder` is not shareable between threads without a lock: misuse is an error,
/// never undefined behaviour). `what` names the class in the message.
pub(crate) fn lock_state<'m, T>(
    state: &'m std::sync::Mutex<T>,
    what: &str,
) -> pyo3::PyResult<std::sync::MutexGuard<'m, T>> {
    use std::sync::TryLockError;
    match state.try_lock() {
        Ok(g) => Ok(g),
        // Panics are caught inside the lock, so poisoning means nothing half-done.
        Err(TryLockError::Poisoned(p)) => Ok(p.into_inner()),
        Err(TryLockError::WouldBlock) => Err(crate::errors::state(format!(
            "this {what} is in use by another thread (a {what} is not shareable between \
             threads without a lock; use one per stream)"
        ))),
    }
}

/// Runs `f`, turning a panic into a `RuntimeError` (and `on_panic` restoring a sane state).
pub(crate) fn guarded<S, T>(
    state: &mut S,
    on_panic: impl FnOnce(&mut S),
    f: impl FnOnce(&mut S) -> PyResult<T>,
) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(|| f(state))) {
        Ok(r) => r,
        Err(payload) => {
            let msg = panic_message(&*payload).to_owned();
            let reset = catch_unwind(AssertUnwindSafe(|| on_panic(state))).is_ok();
            Err(crate::errors::state(format!(
                "tokensieve internal error (a bug, please report it): {msg}; {}",
                if reset {
                    "the parser was reset"
                } else {
                    "the parser is unusable"
                }
            )))
        }
    }
}

/// Events recorded without the GIL: texts in one arena, raw bytes in another (a Sieve's,
/// and a Decoder's).
#[derive(Default)]
pub(crate) struct Recorded {
    events: Vec<Rec>,
    text: String,
    raw: Vec<u8>,
}

enum Rec {
    Start(u32, BlockType, u32),
    Chunk {
        text: Range<usize>,
        block_type: BlockType,
        block: u32,
        depth: u8,
        part: Option<Part>,
        tool_name: Option<Range<usize>>,
        tool_id: Option<Range<usize>>,
        choice: u32,
    },
    Complete {
        index: u32,
        block_type: BlockType,
        tool_name: Option<Range<usize>>,
        tool_id: Option<Range<usize>>,
        error: Option<(ErrorReason, Range<usize>, bool)>,
        is_error: bool,
        choice: u32,
        refusal: bool,
        server: bool,
        signature: Option<Range<usize>>,
        /// A thinking block's redacted data or a text block's citations (they share a
        /// field of `BlockComplete`).
        extra: Option<Range<usize>>,
        compaction: bool,
    },
    Stop(Range<usize>),
    Finish {
        reason: FinishReason,
        raw_reason: Option<Range<usize>>,
        usage: Option<Usage>,
        response_id: Option<Range<usize>>,
        model: Option<Range<usize>>,
        choice: u32,
    },
    Error {
        source: ErrorSource,
        code: Option<Range<usize>>,
        message: Range<usize>,
    },
}

impl Recorded {
    fn text(&mut self, s: &str) -> Range<usize> {
        let a = self.text.len();
        self.text.push_str(s);
        a..self.text.len()
    }

    pub(crate) fn push(&mut self, ev: &CoreEvent<'_>) {
        let rec = match *ev {
            CoreEvent::BlockStart {
                index,
                block_type,
                choice,
            } => Rec::Start(index, block_type, choice),
            CoreEvent::Chunk(c) => Rec::Chunk {
                text: self.text(c.text),
                block_type: c.block_type,
                block: c.block,
                depth: c.depth,
                part: c.part,
                tool_name: c.tool_name.map(|s| self.text(s)),
                tool_id: c.tool_id.map(|s| self.text(s)),
                choice: c.choice,
            },
            CoreEvent::BlockComplete(b) => Rec::Complete {
                index: b.index,
                block_type: b.block_type,
                tool_name: b.tool_name.map(|s| self.text(s)),
                tool_id: b.tool_id.map(|s| self.text(s)),
                error: b.error.map(|e| {
                    let a = self.raw.len();
                    self.raw.extend_from_slice(e.raw);
                    (e.reason, a..self.raw.len(), e.raw_truncated)
                }),
                is_error: b.is_error,
                choice: b.choice,
                refusal: b.refusal,
                server: b.server,
                signature: b.signature.map(|s| self.text(s)),
                extra: b.redacted().or(b.citations()).map(|s| self.text(s)),
                compaction: b.compaction,
            },
            CoreEvent::Stop { sequence } => Rec::Stop(self.text(sequence)),
            CoreEvent::Finish(f) => Rec::Finish {
                reason: f.reason,
                raw_reason: f.raw_reason.map(|s| self.text(s)),
                usage: f.usage.copied(),
                response_id: f.response_id.map(|s| self.text(s)),
                model: f.model.map(|s| self.text(s)),
                choice: f.choice,
            },
            CoreEvent::Error(e) => Rec::Error {
                source: e.source,
                code: e.code.map(|s| self.text(s)),
                message: self.text(e.message),
            },
        };
        self.events.push(rec);
    }

    /// The recorded events again, as the core's borrowed events.
    pub(crate) fn replay(&self, mut f: impl FnMut(&CoreEvent<'_>) -> PyResult<()>) -> PyResult<()> {
        let t = |r: &Range<usize>| &self.text[r.clone()];
        for rec in &self.events {
            let ev = match rec {
                Rec::Start(index, block_type, choice) => CoreEvent::BlockStart {
                    index: *index,
                    block_type: *block_type,
                    choice: *choice,
                },
                Rec::Chunk {
                    text,
                    block_type,
                    block,
                    depth,
                    part,
                    tool_name,
                    tool_id,
                    choice,
                } => CoreEvent::Chunk(Chunk {
                    text: t(text),
                    block_type: *block_type,
                    block: *block,
                    depth: *depth,
                    part: *part,
                    tool_name: tool_name.as_ref().map(t),
                    tool_id: tool_id.as_ref().map(t),
                    choice: *choice,
                }),
                Rec::Complete {
                    index,
                    block_type,
                    tool_name,
                    tool_id,
                    error,
                    is_error,
                    choice,
                    refusal,
                    server,
                    signature,
                    extra,
                    compaction,
                } => {
                    let mut c = BlockComplete::new(*index, *block_type);
                    c.tool_name = tool_name.as_ref().map(t);
                    c.tool_id = tool_id.as_ref().map(t);
                    c.error = error.as_ref().map(|(reason, raw, cut)| CallError {
                        reason: *reason,
                        raw: &self.raw[raw.clone()],
                        raw_truncated: *cut,
                    });
                    c.is_error = *is_error;
                    c.choice = *choice;
                    c.refusal = *refusal;
                    c.server = *server;
                    c.signature = signature.as_ref().map(t);
                    c.compaction = *compaction;
                    let extra = extra.as_ref().map(t);
                    CoreEvent::BlockComplete(match block_type {
                        BlockType::Text => c.with_citations(extra),
                        _ => c.with_redacted(extra),
                    })
                }
                Rec::Stop(seq) => CoreEvent::Stop { sequence: t(seq) },
                Rec::Finish {
                    reason,
                    raw_reason,
                    usage,
                    response_id,
                    model,
                    choice,
                } => CoreEvent::Finish(Finish {
                    reason: *reason,
                    raw_reason: raw_reason.as_ref().map(t),
                    usage: usage.as_ref(),
                    response_id: response_id.as_ref().map(t),
                    model: model.as_ref().map(t),
                    choice: *choice,
                }),
                Rec::Error {
                    source,
                    code,
                    message,
                } => CoreEvent::Error(StreamError {
                    source: *source,
                    code: code.as_ref().map(t),
                    message: t(message),
                }),
            };
            f(&ev)?;
        }
        Ok(())
    }
}

/// The one drive of `Sieve` and `Decoder`: feeds `input` to `source` (finishing when
/// `finish`), calling `sink` with every event. A long input is parsed without the GIL, its
/// events recorded, then replayed to `sink` (which builds Python objects).
pub(crate) fn drive<S: EventSource + Send>(
    py: Python<'_>,
    source: &mut S,
    input: &[u8],
    finish: bool,
    mut sink: impl FnMut(&CoreEvent<'_>) -> PyResult<()>,
) -> PyResult<()> {
    if input.len() >= RELEASE_GIL_AT {
        let mut rec = Recorded::default();
        py.detach(|| {
            drain(source, input, finish, |ev| {
                rec.push(ev);
                Ok(())
            })
        })?;
        rec.replay(&mut sink)
    } else {
        drain(source, input, finish, &mut sink)
    }
}

/// Feeds `input` (finishing when `finish`), calling `f` with every event. On an error from
/// `f` the rest of the events are drained, so the source stays consistent, and the error
/// is returned.
fn drain(
    source: &mut impl EventSource,
    mut input: &[u8],
    finish: bool,
    mut f: impl FnMut(&CoreEvent<'_>) -> PyResult<()>,
) -> PyResult<()> {
    if finish {
        source.finish();
    }
    while let Some(ev) = source.next(&mut input) {
        if let Err(e) = f(&ev) {
            while source.next(&mut input).is_some() {}
            return Err(e);
        }
    }
    Ok(())
}

/// How a measurement run returns its events (`Sieve._feed_as`, py/bench.py).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Event,
    Tuple,
    Dict,
    Count,
}

fn chunk_tuple<'py>(py: Python<'py>, c: &Chunk<'_>) -> PyResult<Bound<'py, PyAny>> {
    (
        intern!(py, "chunk"),
        c.text,
        type_str(py, c.block_type),
        c.block_type == BlockType::Text,
        c.block,
        c.depth,
        c.part.map(|p| part_str(py, p)),
        c.tool_name,
        c.tool_id,
    )
        .into_pyobject(py)
        .map(|t: Bound<'py, PyTuple>| t.into_any())
}

fn chunk_dict<'py>(py: Python<'py>, c: &Chunk<'_>) -> PyResult<Bound<'py, PyAny>> {
    let d = PyDict::new(py);
    d.set_item(intern!(py, "event"), intern!(py, "chunk"))?;
    d.set_item(intern!(py, "text"), c.text)?;
    d.set_item(
        intern!(py, "type"),
        PyString::intern(py, c.block_type.as_str()),
    )?;
    d.set_item(intern!(py, "visible"), c.block_type == BlockType::Text)?;
    d.set_item(intern!(py, "block"), c.block)?;
    d.set_item(intern!(py, "depth"), c.depth)?;
    if let Some(p) = c.part {
        d.set_item(intern!(py, "part"), part_str(py, p))?;
    }
    if let Some(n) = c.tool_name {
        d.set_item(intern!(py, "tool_name"), n)?;
    }
    if let Some(i) = c.tool_id {
        d.set_item(intern!(py, "tool_id"), i)?;
    }
    Ok(d.into_any())
}

impl Sieve {
    fn lock(&self) -> PyResult<MutexGuard<'_, State>> {
        lock_state(&self.state, "Sieve")
    }

    /// Parses `data` (or finishes, when `data` is `None`) and returns the events in `form`.
    fn run<'py>(
        &self,
        py: Python<'py>,
        data: Option<&Bound<'py, PyAny>>,
        form: Form,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut guard = self.lock()?;
        guarded(&mut *guard, State::reset, |st| {
            let State {
                sieve,
                conv,
                phase,
                scratch,
            } = st;
            let bytes: &[u8] = match data {
                Some(d) => {
                    if *phase == Phase::Finished {
                        return Err(crate::errors::state(
                            "feed() after finish(): call reset() to start a new stream",
                        ));
                    }
                    let b = bytes_of(py, "feed", d, scratch)?;
                    *phase = Phase::Fed;
                    b
                }
                None => {
                    *phase = Phase::Finished;
                    &[]
                }
            };
            let finish = data.is_none();
            let list = PyList::empty(py);
            let mut count = 0usize;
            let mut sink = |ev: &CoreEvent<'_>| -> PyResult<()> {
                count += 1;
                let obj = match (form, ev) {
                    (Form::Count, _) => return Ok(()),
                    (Form::Tuple, CoreEvent::Chunk(c)) => chunk_tuple(py, c)?,
                    (Form::Dict, CoreEvent::Chunk(c)) => chunk_dict(py, c)?,
                    _ => conv.convert(py, ev)?.into_bound(py),
                };
                list.append(obj)
            };
            drive(py, sieve, bytes, finish, &mut sink)?;
            if form == Form::Count {
                return count.into_bound_py_any(py);
            }
            Ok(list.into_any())
        })
    }
}

#[pymethods]
impl Sieve {
    #[new]
    #[pyo3(signature = (dialect = None, *, tools = None, thinking_tags = None,
        tool_call_markers = None, start_in = None, stop_sequences = None, id_prefix = None,
        on_malformed = None, max_call_bytes = None, unknown_tools = None),
        text_signature = "(dialect, *, tools=None, thinking_tags=None, \
            tool_call_markers=None, start_in=None, stop_sequences=None, id_prefix=None, \
            on_malformed=None, max_call_bytes=None, unknown_tools=None)")]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        dialect: Option<&Bound<'_, PyAny>>,
        tools: Option<&Bound<'_, PyAny>>,
        thinking_tags: Option<&Bound<'_, PyAny>>,
        tool_call_markers: Option<&Bound<'_, PyAny>>,
        start_in: Option<&Bound<'_, PyAny>>,
        stop_sequences: Option<&Bound<'_, PyAny>>,
        id_prefix: Option<&Bound<'_, PyAny>>,
        on_malformed: Option<&Bound<'_, PyAny>>,
        max_call_bytes: Option<&Bound<'_, PyAny>>,
        unknown_tools: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Sieve> {
        let Some(dialect) = dialect else {
            return Err(crate::errors::config(format!(
                "Sieve(): give the dialect the model writes, one of: {}",
                crate::config::supported_dialects()
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        };
        let options = Options {
            dialect_key: "dialect",
            dialect,
            tools,
            thinking_tags,
            tool_call_markers,
            start_in,
            stop_sequences,
            id_prefix,
            on_malformed,
            max_call_bytes,
            unknown_tools,
        };
        let mut unit = ();
        guarded(
            &mut unit,
            |_| {},
            |_| {
                let config = options.build(py)?;
                let dialect = config.dialect;
                let sieve = tokensieve::Sieve::from_config_buf(config)
                    .map_err(|e| config_error(&e, Some(&options)))?;
                Ok(Sieve {
                    dialect,
                    state: Mutex::new(State {
                        sieve,
                        conv: Converter::default(),
                        phase: Phase::Fresh,
                        scratch: Vec::new(),
                    }),
                })
            },
        )
    }

    /// The dialect's name.
    #[getter]
    fn dialect(&self) -> &'static str {
        self.dialect.name()
    }

    /// True once the stream has ended: after a stop sequence, or after `finish()`.
    #[getter]
    fn is_done(&self) -> PyResult<bool> {
        Ok(self.lock()?.sieve.is_done())
    }

    /// Advances the parser silently over text the prompt already holds (before any feed).
    fn prefill(&self, py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut guard = self.lock()?;
        guarded(&mut *guard, State::reset, |st| {
            if st.phase != Phase::Fresh {
                return Err(crate::errors::state(
                    "prefill() after feed() or finish(): call reset() first",
                ));
            }
            let bytes = bytes_of(py, "prefill", text, &mut st.scratch)?;
            st.sieve
                .prefill(bytes)
                .map_err(|e| crate::errors::state(format!("prefill(): {e}: call reset() first")))
        })
    }

    /// Parses the next piece of the stream and returns its events.
    fn feed<'py>(&self, py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, Some(data), Form::Event)
    }

    /// Ends the stream and returns the last events.
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, None, Form::Event)
    }

    /// Back to the start of a new stream, with the same configuration.
    fn reset(&self) -> PyResult<()> {
        let mut guard = self.lock()?;
        guarded(
            &mut *guard,
            |_| {},
            |st| {
                st.reset();
                Ok(())
            },
        )
    }

    /// For py/bench.py: `feed` returning events as "event" (the API), "tuple" or "dict"
    /// (chunks only; others as events), or "count" (no objects: the number of events).
    fn _feed_as<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        form: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let form = match form {
            "event" => Form::Event,
            "tuple" => Form::Tuple,
            "dict" => Form::Dict,
            "count" => Form::Count,
            _ => return Err(crate::errors::config("form: event, tuple, dict or count")),
        };
        self.run(py, Some(data), form)
    }

    fn __repr__(&self) -> String {
        format!("Sieve(dialect='{}')", self.dialect.name())
    }
}
