//! `tokensieve.Event`: one immutable object per event, attributes named as in the JSON form,
//! and the converter that makes them from the core's borrowed events.
//!
//! Why a pyclass (and not a tuple or a dict): see py/README.md, "Representation". Texts are
//! made Python strings once, when the event is made; `type`, `part`, `event` and error
//! reasons are interned; tool names and ids are shared by the chunks of one call; a call's
//! `input` is parsed from `input_json` on access, so an event never hands out shared state.

use std::hash::{Hash, Hasher};

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString, PyTuple};
use pyo3::{IntoPyObjectExt, intern};

mod kinds;
mod pickle;

pub(crate) use kinds::add_kinds;
use kinds::{class_name, make_object};
pub(crate) use pickle::_event;
use tokensieve::{
    BlockType, ErrorReason, ErrorSource, Event as CoreEvent, FinishReason, Part, Usage,
};

/// Which event this is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    BlockStart,
    Chunk,
    BlockComplete,
    Stop,
    /// Provider streams: a response (or one choice of it) ended.
    Finish,
    /// Provider streams: an error the provider sent, or a broken frame.
    Error,
}

/// One event of the stream (a Sieve's or a Decoder's). Attributes are named as in the JSON
/// form (docs/providers.md's extended form for `finish`, `error` and the provider fields); an
/// attribute is `None` exactly when the JSON form omits its key.
#[pyclass(frozen, subclass, module = "tokensieve", name = "Event")]
pub struct Event {
    kind: Kind,
    /// Block type (all but `stop`).
    ty: BlockType,
    part: Option<Part>,
    depth: u8,
    is_error: bool,
    raw_truncated: bool,
    reason: Option<ErrorReason>,
    /// `index` of block_start / block_complete, `block` of a chunk.
    index: u32,
    /// A chunk's text, or a stop's sequence.
    text: Option<Py<PyString>>,
    tool_name: Option<Py<PyString>>,
    tool_id: Option<Py<PyString>>,
    /// Completions: the `content` (text, thinking, tool_result), the `input_json` (a
    /// successful tool_call) or the `raw` text (a failed one: `reason` is set) — one field,
    /// as they never come together. Kept as a Rust string (moved from the accumulator, never
    /// copied) and made a Python string on access, so a stream whose host reads chunks only
    /// never pays for a second copy of every block.
    body: Option<String>,
    /// Provider streams: the choice (0 unless `n > 1`; the JSON form omits 0).
    choice: u32,
    /// block_complete of a provider block: refusal text, server-side tool, compaction.
    refusal: bool,
    server: bool,
    compaction: bool,
    /// finish and error events: their fields; a block_complete's signature and redacted
    /// data (boxed: most events have none, and a small event is made faster).
    extra: Option<Box<Extra>>,
}

/// The fields of `finish` and `error` events, and what a block_complete of a provider
/// block may carry for the host to send back.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Extra {
    Block {
        signature: Option<String>,
        redacted: Option<String>,
        /// A text block's citations: a JSON array (compact).
        citations: Option<String>,
    },
    Finish {
        reason: FinishReason,
        raw_reason: Option<String>,
        usage: Option<Usage>,
        response_id: Option<String>,
        model: Option<String>,
    },
    Error {
        source: ErrorSource,
        code: Option<String>,
        message: String,
    },
}

pub(crate) fn type_str(py: Python<'_>, ty: BlockType) -> &Bound<'_, PyString> {
    match ty {
        BlockType::Text => intern!(py, "text"),
        BlockType::Thinking => intern!(py, "thinking"),
        BlockType::ToolCall => intern!(py, "tool_call"),
        BlockType::ToolResult => intern!(py, "tool_result"),
    }
}

pub(crate) fn part_str(py: Python<'_>, part: Part) -> &Bound<'_, PyString> {
    match part {
        Part::Name => intern!(py, "name"),
        Part::Id => intern!(py, "id"),
        Part::Input => intern!(py, "input"),
    }
}

fn kind_str(py: Python<'_>, kind: Kind) -> &Bound<'_, PyString> {
    match kind {
        Kind::BlockStart => intern!(py, "block_start"),
        Kind::Chunk => intern!(py, "chunk"),
        Kind::BlockComplete => intern!(py, "block_complete"),
        Kind::Stop => intern!(py, "stop"),
        Kind::Finish => intern!(py, "finish"),
        Kind::Error => intern!(py, "error"),
    }
}

fn reason_str(py: Python<'_>, reason: ErrorReason) -> Bound<'_, PyString> {
    PyString::intern(py, reason.as_str())
}

/// A usage object as a dict: the counters the provider gave, in the JSON form's order.
fn usage_dict<'py>(py: Python<'py>, u: &Usage) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in [
        (intern!(py, "input_tokens"), u.input_tokens),
        (intern!(py, "output_tokens"), u.output_tokens),
        (intern!(py, "cache_read_tokens"), u.cache_read_tokens),
        (intern!(py, "cache_write_tokens"), u.cache_write_tokens),
        (intern!(py, "reasoning_tokens"), u.reasoning_tokens),
    ] {
        if let Some(v) = v {
            d.set_item(k, v)?;
        }
    }
    Ok(d)
}

fn clone_opt(py: Python<'_>, s: &Option<Py<PyString>>) -> Option<Py<PyString>> {
    s.as_ref().map(|s| s.clone_ref(py))
}

fn new_opt<'py>(py: Python<'py>, s: &Option<String>) -> Option<Bound<'py, PyString>> {
    s.as_deref().map(|s| PyString::new(py, s))
}

/// `json.loads`, looked up once.
fn json_loads(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    LOADS
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(py.import("json")?.getattr("loads")?.unbind())
        })
        .map(|f| f.bind(py))
}

fn str_eq(py: Python<'_>, a: &Option<Py<PyString>>, b: &Option<Py<PyString>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.is(b) || a.bind(py).as_any().eq(b.bind(py)).unwrap_or(false),
        _ => false,
    }
}

impl Event {
    /// The fields present in the JSON form, in its key order.
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Vec<(&'static str, Bound<'py, PyAny>)>> {
        let mut v: Vec<(&'static str, Bound<'py, PyAny>)> = Vec::with_capacity(9);
        v.push(("event", kind_str(py, self.kind).clone().into_any()));
        let s = |o: &Option<Py<PyString>>| o.as_ref().map(|s| s.bind(py).clone().into_any());
        let choice = |v: &mut Vec<(&'static str, Bound<'py, PyAny>)>| -> PyResult<()> {
            if self.choice != 0 {
                v.push(("choice", self.choice.into_bound_py_any(py)?));
            }
            Ok(())
        };
        match self.kind {
            Kind::BlockStart => {
                v.push(("index", self.index.into_bound_py_any(py)?));
                v.push(("type", type_str(py, self.ty).clone().into_any()));
                choice(&mut v)?;
            }
            Kind::Chunk => {
                v.push(("text", s(&self.text).expect("chunks have text")));
                v.push(("type", type_str(py, self.ty).clone().into_any()));
                v.push((
                    "visible",
                    (self.ty == BlockType::Text).into_bound_py_any(py)?,
                ));
                v.push(("block", self.index.into_bound_py_any(py)?));
                v.push(("depth", self.depth.into_bound_py_any(py)?));
                if let Some(p) = self.part {
                    v.push(("part", part_str(py, p).clone().into_any()));
                }
                if let Some(n) = s(&self.tool_name) {
                    v.push(("tool_name", n));
                }
                if let Some(i) = s(&self.tool_id) {
                    v.push(("tool_id", i));
                }
                choice(&mut v)?;
            }
            Kind::BlockComplete => {
                v.push(("index", self.index.into_bound_py_any(py)?));
                v.push(("type", type_str(py, self.ty).clone().into_any()));
                if let Some(c) = new_opt(py, self.content_ref()) {
                    v.push(("content", c.into_any()));
                }
                if let Some(n) = s(&self.tool_name) {
                    v.push(("tool_name", n));
                }
                if let Some(i) = s(&self.tool_id) {
                    v.push(("tool_id", i));
                }
                if let Some(input) = self.input(py)? {
                    v.push(("input", input));
                }
                if let Some(e) = self.error(py)? {
                    v.push(("error", e.into_any()));
                }
                if self.is_error {
                    v.push(("is_error", true.into_bound_py_any(py)?));
                }
                choice(&mut v)?;
                if self.refusal {
                    v.push(("refusal", true.into_bound_py_any(py)?));
                }
                if self.server {
                    v.push(("server", true.into_bound_py_any(py)?));
                }
                if let Some(Extra::Block {
                    signature,
                    redacted,
                    ..
                }) = self.extra.as_deref()
                {
                    if let Some(x) = new_opt(py, signature) {
                        v.push(("signature", x.into_any()));
                    }
                    if let Some(x) = new_opt(py, redacted) {
                        v.push(("redacted", x.into_any()));
                    }
                }
                if self.compaction {
                    v.push(("compaction", true.into_bound_py_any(py)?));
                }
                if let Some(c) = self.citations(py)? {
                    v.push(("citations", c));
                }
            }
            Kind::Stop => v.push(("sequence", s(&self.text).expect("stops have a sequence"))),
            Kind::Finish => {
                if let Some(Extra::Finish {
                    reason,
                    raw_reason,
                    usage,
                    response_id,
                    model,
                }) = self.extra.as_deref()
                {
                    v.push(("reason", finish_str(py, *reason).into_any()));
                    if let Some(x) = new_opt(py, raw_reason) {
                        v.push(("raw_reason", x.into_any()));
                    }
                    if let Some(u) = usage {
                        v.push(("usage", usage_dict(py, u)?.into_any()));
                    }
                    if let Some(x) = new_opt(py, response_id) {
                        v.push(("response_id", x.into_any()));
                    }
                    if let Some(x) = new_opt(py, model) {
                        v.push(("model", x.into_any()));
                    }
                }
                choice(&mut v)?;
            }
            Kind::Error => {
                if let Some(Extra::Error {
                    source,
                    code,
                    message,
                }) = self.extra.as_deref()
                {
                    v.push(("source", source_str(py, *source).into_any()));
                    if let Some(x) = new_opt(py, code) {
                        v.push(("code", x.into_any()));
                    }
                    v.push(("message", PyString::new(py, message).into_any()));
                }
            }
        }
        Ok(v)
    }

    fn content_ref(&self) -> &Option<String> {
        if self.ty != BlockType::ToolCall {
            &self.body
        } else {
            &None
        }
    }

    fn input_json_ref(&self) -> &Option<String> {
        if self.ty == BlockType::ToolCall && self.reason.is_none() {
            &self.body
        } else {
            &None
        }
    }

    fn raw_ref(&self) -> &Option<String> {
        if self.reason.is_some() {
            &self.body
        } else {
            &None
        }
    }

    /// block_start, chunk, block_complete: the events of a block.
    fn is_block(&self) -> bool {
        matches!(
            self.kind,
            Kind::BlockStart | Kind::Chunk | Kind::BlockComplete
        )
    }

    fn finish_fields(&self) -> Option<FinishFields<'_>> {
        match self.extra.as_deref() {
            Some(Extra::Finish {
                reason,
                raw_reason,
                usage,
                response_id,
                model,
            }) => Some((*reason, raw_reason, usage, response_id, model)),
            _ => None,
        }
    }

    fn error_fields(&self) -> Option<(ErrorSource, &Option<String>, &String)> {
        match self.extra.as_deref() {
            Some(Extra::Error {
                source,
                code,
                message,
            }) => Some((*source, code, message)),
            _ => None,
        }
    }
}

type FinishFields<'a> = (
    FinishReason,
    &'a Option<String>,
    &'a Option<Usage>,
    &'a Option<String>,
    &'a Option<String>,
);

fn finish_str(py: Python<'_>, r: FinishReason) -> Bound<'_, PyString> {
    PyString::intern(py, r.as_str())
}

fn source_str(py: Python<'_>, s: ErrorSource) -> Bound<'_, PyString> {
    PyString::intern(py, s.as_str())
}

#[pymethods]
impl Event {
    /// `block_start`, `chunk`, `block_complete`, `stop`, `finish` or `error`.
    #[getter]
    fn event<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        kind_str(py, self.kind).clone()
    }

    /// The block's index (block_start, block_complete).
    #[getter]
    fn index(&self) -> Option<u32> {
        matches!(self.kind, Kind::BlockStart | Kind::BlockComplete).then_some(self.index)
    }

    /// The block's type: `text`, `thinking`, `tool_call` or `tool_result` (all but stop).
    #[getter(r#type)]
    fn type_<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyString>> {
        self.is_block().then(|| type_str(py, self.ty).clone())
    }

    /// A chunk's text: whole characters, never empty.
    #[getter]
    fn text(&self, py: Python<'_>) -> Option<Py<PyString>> {
        if self.kind == Kind::Chunk {
            clone_opt(py, &self.text)
        } else {
            None
        }
    }

    /// A chunk's visibility: true exactly for text (what a TTS engine speaks).
    #[getter]
    fn visible(&self) -> Option<bool> {
        (self.kind == Kind::Chunk).then_some(self.ty == BlockType::Text)
    }

    /// A chunk's block index.
    #[getter]
    fn block(&self) -> Option<u32> {
        (self.kind == Kind::Chunk).then_some(self.index)
    }

    /// A chunk's depth: 0 top level, 1 inside a tool region or call.
    #[getter]
    fn depth(&self) -> Option<u8> {
        (self.kind == Kind::Chunk).then_some(self.depth)
    }

    /// A tool_call chunk's part: `name`, `id` or `input`.
    #[getter]
    fn part<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyString>> {
        self.part.map(|p| part_str(py, p).clone())
    }

    /// The tool's name, once known.
    #[getter]
    fn tool_name(&self, py: Python<'_>) -> Option<Py<PyString>> {
        clone_opt(py, &self.tool_name)
    }

    /// The call or result id, once known.
    #[getter]
    fn tool_id(&self, py: Python<'_>) -> Option<Py<PyString>> {
        clone_opt(py, &self.tool_id)
    }

    /// block_complete of text, thinking and tool_result: the block's text.
    #[getter]
    fn content<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyString>> {
        new_opt(py, self.content_ref())
    }

    /// block_complete of a successful tool_call: the input, a new dict on every access
    /// (parsed from `input_json` by `json.loads`).
    #[getter]
    fn input<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.input_json_ref() {
            Some(j) => Ok(Some(json_loads(py)?.call1((j.as_str(),))?)),
            None => Ok(None),
        }
    }

    /// block_complete of a successful tool_call: the input as compact JSON text, numbers
    /// exactly as the model wrote them.
    #[getter]
    fn input_json<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyString>> {
        new_opt(py, self.input_json_ref())
    }

    /// block_complete of a failed tool_call: `{"reason": …, "raw": …}` (a new dict on every
    /// access; `"raw_truncated": True` is added when `raw` was cut at `max_call_bytes`).
    #[getter]
    fn error<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(reason) = self.reason else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item(intern!(py, "reason"), reason_str(py, reason))?;
        d.set_item(intern!(py, "raw"), new_opt(py, self.raw_ref()))?;
        if self.raw_truncated {
            d.set_item(intern!(py, "raw_truncated"), true)?;
        }
        Ok(Some(d))
    }

    /// block_complete of a tool_result that reports an error: `True` (else `None`).
    #[getter]
    fn is_error(&self) -> Option<bool> {
        self.is_error.then_some(true)
    }

    /// stop: the stop sequence that matched.
    #[getter]
    fn sequence(&self, py: Python<'_>) -> Option<Py<PyString>> {
        if self.kind == Kind::Stop {
            clone_opt(py, &self.text)
        } else {
            None
        }
    }

    /// Provider streams with `n > 1`: the choice of a block event or finish (`None` for
    /// choice 0, which the JSON form omits).
    #[getter]
    fn choice(&self) -> Option<u32> {
        (self.choice != 0).then_some(self.choice)
    }

    /// block_complete of a text block made of refusal deltas: `True` (else `None`).
    #[getter]
    fn refusal(&self) -> Option<bool> {
        self.refusal.then_some(true)
    }

    /// block_complete of a server-side tool call or its result: `True` (else `None`).
    #[getter]
    fn server(&self) -> Option<bool> {
        self.server.then_some(true)
    }

    /// block_complete of a context compaction (a thinking block whose content is the
    /// summary and `redacted` its encrypted content): `True` (else `None`); the host sends
    /// it back as a compaction block or item, not as thinking.
    #[getter]
    fn compaction(&self) -> Option<bool> {
        self.compaction.then_some(true)
    }

    /// block_complete: the opaque signature the host sends back with the block.
    #[getter]
    fn signature<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyString>> {
        match self.extra.as_deref() {
            Some(Extra::Block { signature, .. }) => new_opt(py, signature),
            _ => None,
        }
    }

    /// block_complete of redacted thinking: the data the host sends back.
    #[getter]
    fn redacted<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyString>> {
        match self.extra.as_deref() {
            Some(Extra::Block { redacted, .. }) => new_opt(py, redacted),
            _ => None,
        }
    }

    /// block_complete of a text block with citations (Anthropic `citations_delta`, Bedrock
    /// `citation`): a list of the citation objects (dicts) in the order they came, as the
    /// provider sent them; the host sends them back as the block's `citations`.
    #[getter]
    fn citations<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.extra.as_deref() {
            Some(Extra::Block {
                citations: Some(c), ..
            }) => Ok(Some(json_loads(py)?.call1((c.as_str(),))?)),
            _ => Ok(None),
        }
    }

    /// As `citations`, as the compact JSON text of the array.
    #[getter]
    fn citations_json<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyString>> {
        match self.extra.as_deref() {
            Some(Extra::Block { citations, .. }) => new_opt(py, citations),
            _ => None,
        }
    }

    /// finish: the normalised reason (`stop`, `length`, `tool_calls`, `content_filter`,
    /// `refusal`, `error`, `other`, `malformed_tool_call`).
    #[getter(reason)]
    fn finish_reason<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyString>> {
        self.finish_fields().map(|f| finish_str(py, f.0))
    }

    /// finish: the provider's own word for the reason, when it gave one.
    #[getter]
    fn raw_reason<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyString>> {
        self.finish_fields().and_then(|f| new_opt(py, f.1))
    }

    /// finish: the token counts the provider reported (a new dict on every access).
    #[getter]
    fn usage<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        match self.finish_fields().and_then(|f| f.2.as_ref()) {
            Some(u) => Ok(Some(usage_dict(py, u)?)),
            None => Ok(None),
        }
    }

    /// finish: the provider's response id.
    #[getter]
    fn response_id<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyString>> {
        self.finish_fields().and_then(|f| new_opt(py, f.3))
    }

    /// finish: the model that answered.
    #[getter]
    fn model<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyString>> {
        self.finish_fields().and_then(|f| new_opt(py, f.4))
    }

    /// error: `provider` or `framing`.
    #[getter]
    fn source<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyString>> {
        self.error_fields().map(|e| source_str(py, e.0))
    }

    /// error: the provider's error code or type, or the framing fault's name.
    #[getter]
    fn code<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyString>> {
        self.error_fields().and_then(|e| new_opt(py, e.1))
    }

    /// error: what was wrong.
    #[getter]
    fn message<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyString>> {
        self.error_fields().map(|e| PyString::new(py, e.2))
    }

    /// The JSON form: a new dict, keys in the JSON form's order, absent fields omitted.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in self.items(py)? {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// `match event: case Event("chunk", text=t)`: the kind is the positional pattern.
    #[classattr]
    fn __match_args__() -> (&'static str,) {
        ("event",)
    }

    /// Pickling: the event's fields as plain values, rebuilt by `_event` (the same class,
    /// equal, `input_json` with its numbers as written).
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyTuple>,))> {
        let rebuild = py
            .import(intern!(py, "tokensieve._tokensieve"))?
            .getattr(intern!(py, "_event"))?;
        Ok((rebuild, (self.state(py)?,)))
    }

    /// Events are immutable: a copy is the event itself.
    fn __copy__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Events are immutable: a deep copy is the event itself.
    fn __deepcopy__(slf: Py<Self>, _memo: &Bound<'_, PyAny>) -> Py<Self> {
        slf
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut out = String::from(class_name(self.kind));
        out.push('(');
        for (i, (k, v)) in self.items(py)?.into_iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(k);
            out.push('=');
            out.push_str(v.repr()?.to_str()?);
        }
        out.push(')');
        Ok(out)
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(other) = other.cast::<Event>() else {
            return Ok(py.NotImplemented());
        };
        let o = other.get();
        let same = self.kind == o.kind
            && self.ty == o.ty
            && self.part == o.part
            && self.depth == o.depth
            && self.is_error == o.is_error
            && self.raw_truncated == o.raw_truncated
            && self.reason == o.reason
            && self.index == o.index
            && str_eq(py, &self.text, &o.text)
            && str_eq(py, &self.tool_name, &o.tool_name)
            && str_eq(py, &self.tool_id, &o.tool_id)
            && self.body == o.body
            && self.choice == o.choice
            && self.refusal == o.refusal
            && self.server == o.server
            && self.compaction == o.compaction
            && self.extra == o.extra;
        same.into_py_any(py)
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<u64> {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (
            self.kind,
            self.ty,
            self.part,
            self.depth,
            self.index,
            self.choice,
        )
            .hash(&mut h);
        for s in [&self.text, &self.tool_name, &self.tool_id] {
            match s {
                Some(s) => s.bind(py).to_str()?.hash(&mut h),
                None => 0u8.hash(&mut h),
            }
        }
        self.body.hash(&mut h);
        self.extra.hash(&mut h);
        Ok(h.finish())
    }
}

/// Takes an event out of the cyclic garbage collector's set. pyo3 makes every pyclass a GC
/// type, so each new event would count towards (and be traversed by) collections: at 64 KiB
/// chunks that was half the binding's cost per event. An event refers to strings only and
/// its class (one of the per-kind classes, which cannot be subclassed and have no
/// `__dict__`) holds nothing else, so it can be part of no cycle; CPython untracks tuples
/// and dicts of atomic values the same way.
#[allow(unsafe_code)]
fn untrack(obj: &Py<PyAny>) {
    // SAFETY: `obj` is a live object of a GC type (pyo3 sets Py_TPFLAGS_HAVE_GC on every
    // pyclass) and we hold the GIL (a `Py` was just made with `py`). Untracking an object
    // that is not tracked (one from pyo3's freelist) is allowed and does nothing.
    unsafe { pyo3::ffi::PyObject_GC_UnTrack(obj.as_ptr().cast()) }
}

/// Makes Python events from the core's, adding the accumulated fields of the JSON form
/// (`content`, `input`) to completions (unless `accumulate` is off, as a C or PHP host can
/// switch it off: then completions of successful blocks carry neither, and nothing of a
/// block's text is kept). One per stream; `reset` between streams.
pub(crate) struct Converter {
    /// Completions carry `content` / `input` (the block's text is kept until then).
    pub(crate) accumulate: bool,
    /// The text of the open text/thinking/tool_result block.
    content: String,
    /// The input chunks of the open tool call.
    input: String,
    /// The last tool name and id made into Python strings (the chunks of one call share them).
    name: Option<(Box<str>, Py<PyString>)>,
    id: Option<(Box<str>, Py<PyString>)>,
}

fn cached(py: Python<'_>, slot: &mut Option<(Box<str>, Py<PyString>)>, s: &str) -> Py<PyString> {
    if let Some((k, v)) = slot {
        if **k == *s {
            return v.clone_ref(py);
        }
    }
    let v = PyString::new(py, s).unbind();
    *slot = Some((s.into(), v.clone_ref(py)));
    v
}

impl Default for Converter {
    fn default() -> Self {
        Converter::new(true)
    }
}

impl Converter {
    /// A converter; `accumulate`: completions carry `content` / `input`.
    pub(crate) fn new(accumulate: bool) -> Self {
        Converter {
            accumulate,
            content: String::new(),
            input: String::new(),
            name: None,
            id: None,
        }
    }
}

impl Converter {
    pub(crate) fn reset(&mut self) {
        self.content.clear();
        self.input.clear();
        self.name = None;
        self.id = None;
    }

    fn opt_name(&mut self, py: Python<'_>, s: Option<&str>) -> Option<Py<PyString>> {
        s.map(|s| cached(py, &mut self.name, s))
    }

    fn opt_id(&mut self, py: Python<'_>, s: Option<&str>) -> Option<Py<PyString>> {
        s.map(|s| cached(py, &mut self.id, s))
    }

    /// The Python event for `ev` (records what completions need).
    pub(crate) fn convert(&mut self, py: Python<'_>, ev: &CoreEvent<'_>) -> PyResult<Py<PyAny>> {
        let event = match *ev {
            CoreEvent::BlockStart {
                index,
                block_type,
                choice,
            } => {
                self.content.clear();
                self.input.clear();
                Event {
                    kind: Kind::BlockStart,
                    ty: block_type,
                    index,
                    choice,
                    ..Event::empty()
                }
            }
            CoreEvent::Chunk(c) => {
                match c.part {
                    _ if !self.accumulate => {}
                    None => self.content.push_str(c.text),
                    Some(Part::Input) => self.input.push_str(c.text),
                    Some(_) => {}
                }
                Event {
                    kind: Kind::Chunk,
                    ty: c.block_type,
                    part: c.part,
                    depth: c.depth,
                    index: c.block,
                    text: Some(PyString::new(py, c.text).unbind()),
                    tool_name: self.opt_name(py, c.tool_name),
                    tool_id: self.opt_id(py, c.tool_id),
                    choice: c.choice,
                    ..Event::empty()
                }
            }
            CoreEvent::BlockComplete(b) => {
                let tool = b.block_type == BlockType::ToolCall;
                let body = match b.error {
                    Some(e) => Some(String::from_utf8_lossy(e.raw).into_owned()),
                    None if !self.accumulate => None,
                    None if tool => Some(std::mem::take(&mut self.input)),
                    None => Some(std::mem::take(&mut self.content)),
                };
                self.content.clear();
                self.input.clear();
                Event {
                    kind: Kind::BlockComplete,
                    ty: b.block_type,
                    index: b.index,
                    is_error: b.is_error,
                    reason: b.error.map(|e| e.reason),
                    raw_truncated: b.error.is_some_and(|e| e.raw_truncated),
                    tool_name: self.opt_name(py, b.tool_name),
                    tool_id: self.opt_id(py, b.tool_id),
                    body,
                    choice: b.choice,
                    refusal: b.refusal,
                    server: b.server,
                    compaction: b.compaction,
                    extra: (b.signature.is_some()
                        || b.redacted().is_some()
                        || b.citations().is_some())
                    .then(|| {
                        Box::new(Extra::Block {
                            signature: b.signature.map(Into::into),
                            redacted: b.redacted().map(Into::into),
                            citations: b.citations().map(Into::into),
                        })
                    }),
                    ..Event::empty()
                }
            }
            CoreEvent::Stop { sequence } => Event {
                kind: Kind::Stop,
                text: Some(PyString::new(py, sequence).unbind()),
                ..Event::empty()
            },
            CoreEvent::Finish(f) => Event {
                kind: Kind::Finish,
                choice: f.choice,
                extra: Some(Box::new(Extra::Finish {
                    reason: f.reason,
                    raw_reason: f.raw_reason.map(Into::into),
                    usage: f.usage.copied(),
                    response_id: f.response_id.map(Into::into),
                    model: f.model.map(Into::into),
                })),
                ..Event::empty()
            },
            CoreEvent::Error(e) => Event {
                kind: Kind::Error,
                extra: Some(Box::new(Extra::Error {
                    source: e.source,
                    code: e.code.map(Into::into),
                    message: e.message.into(),
                })),
                ..Event::empty()
            },
        };
        let obj = make_object(py, event)?;
        untrack(&obj);
        Ok(obj)
    }
}

impl Event {
    fn empty() -> Event {
        Event {
            kind: Kind::Stop,
            ty: BlockType::Text,
            part: None,
            depth: 0,
            is_error: false,
            raw_truncated: false,
            reason: None,
            index: 0,
            text: None,
            tool_name: None,
            tool_id: None,
            body: None,
            choice: 0,
            refusal: false,
            server: false,
            compaction: false,
            extra: None,
        }
    }
}
