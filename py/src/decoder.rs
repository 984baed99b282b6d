//! `tokensieve.Decoder`: a provider's streaming response body (the HTTP body of a streaming
//! API: OpenAI SSE, …) → the same `Event`s as a `Sieve` gives, plus `finish` and `error`
//! (docs/providers.md).
//!
//! Same rules as `Sieve`: a try-locked mutex (a call while another thread is inside one on
//! the same Decoder raises `RuntimeError`), panics caught and raised as `RuntimeError`,
//! inputs of `RELEASE_GIL_AT` bytes or more decoded with the GIL released (events recorded,
//! made Python objects after).

use std::sync::{Mutex, MutexGuard};

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString};
use tokensieve::Event as CoreEvent;
use tokensieve::provider::{Decoder as CoreDecoder, DecoderConfig, Provider};

use crate::config::{Options, config_error, string, type_err, value_err};
use crate::event::Converter;
use crate::input::bytes_of;
use crate::sieve::{drive, guarded};

/// Sets a provider-only keyword's value in the config.
type Setter = fn(&mut DecoderConfig<'_>, &Bound<'_, PyAny>) -> PyResult<()>;

/// The keyword arguments only a Decoder takes, besides `provider` and `text_dialect`
/// (docs/providers.md, "Input and configuration"): a new provider key is one line here
/// (and one in `DecoderOptions`, py/python/tokensieve/_types.py).
const PROVIDER_KEYS: &[(&str, Setter)] = &[
    ("max_frame_bytes", set_max_frame_bytes),
    ("invoke_format", set_invoke_format),
];

fn set_invoke_format(c: &mut DecoderConfig<'_>, v: &Bound<'_, PyAny>) -> PyResult<()> {
    const KEY: &str = "invoke_format";
    let name = string(KEY, v)?;
    c.invoke_format = match Provider::from_name(&name) {
        Some(p @ (Provider::Anthropic | Provider::OpenAiChat)) => p,
        _ => {
            return Err(value_err(
                KEY,
                "must be \"anthropic\" or \"openai-chat\"",
                Some(v),
            ));
        }
    };
    Ok(())
}

fn set_max_frame_bytes(c: &mut DecoderConfig<'_>, v: &Bound<'_, PyAny>) -> PyResult<()> {
    const KEY: &str = "max_frame_bytes";
    if v.is_instance_of::<PyBool>() || !v.is_instance_of::<PyInt>() {
        return Err(type_err(KEY, "an int", v));
    }
    c.max_frame_bytes = v
        .extract::<u32>()
        .ok()
        .filter(|n| *n == 0 || *n >= 16)
        .ok_or_else(|| {
            value_err(
                KEY,
                "must be 0 (the default, 16 MiB) or at least 16, and below 4 GiB",
                Some(v),
            )
        })?;
    Ok(())
}

/// The providers this build decodes, in the core's order.
pub(crate) fn supported_providers() -> impl Iterator<Item = &'static str> {
    Provider::ALL
        .into_iter()
        .filter(|p| p.is_supported())
        .map(|p| p.name())
}

fn provider(v: &Bound<'_, PyAny>) -> PyResult<Provider> {
    let name = string("provider", v)?;
    let supported: Vec<&str> = supported_providers().collect();
    match Provider::from_name(&name) {
        Some(p) if p.is_supported() => Ok(p),
        Some(_) => Err(value_err(
            "provider",
            &format!(
                "is not decoded by this build yet (it decodes {})",
                supported.join(", ")
            ),
            Some(v),
        )),
        None => {
            let all: Vec<&str> = Provider::ALL.iter().map(|p| p.name()).collect();
            Err(value_err(
                "provider",
                &format!("must be one of {}", all.join(", ")),
                Some(v),
            ))
        }
    }
}

struct State {
    decoder: CoreDecoder<'static>,
    conv: Converter,
    /// `finish` was called: only finish (nothing more comes) and reset.
    finished: bool,
    /// Copies of mutable buffers (see `input::bytes_of`).
    scratch: Vec<u8>,
}

impl State {
    fn reset(&mut self) {
        self.decoder.reset();
        self.conv.reset();
        self.finished = false;
        self.scratch = Vec::new();
    }
}

/// The decoder of one provider's streaming response body.
///
/// Decoder(provider="openai-chat", *, text_dialect=None, **config): the keywords are the
/// keys of the decoder's JSON config (docs/providers.md): `text_dialect` and the dialect
/// keys (`tools`, `thinking_tags`, `tool_call_markers`, `start_in`, `stop_sequences`,
/// `id_prefix`, `on_malformed`, `max_call_bytes`), and `max_frame_bytes`; `accumulate=False`
/// leaves `content` / `input` off completions (nothing of a block is kept). feed(data)
/// returns the events of the next piece of the body, finish() the last ones, reset()
/// starts a new body. Not shareable between threads: a call while another thread is
/// inside a call on the same Decoder raises RuntimeError.
#[pyclass(frozen, module = "tokensieve", name = "Decoder")]
pub struct Decoder {
    provider: Provider,
    text_dialect: tokensieve::Dialect,
    state: Mutex<State>,
}

impl Decoder {
    fn lock(&self) -> PyResult<MutexGuard<'_, State>> {
        crate::sieve::lock_state(&self.state, "Decoder")
    }

    /// Decodes `data` (or finishes, when `data` is `None`) and returns the events.
    fn run<'py>(
        &self,
        py: Python<'py>,
        data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let mut guard = self.lock()?;
        guarded(&mut *guard, State::reset, |st| {
            let State {
                decoder,
                conv,
                finished,
                scratch,
            } = st;
            let bytes: &[u8] = match data {
                Some(d) => {
                    if *finished {
                        return Err(crate::errors::state(
                            "feed() after finish(): call reset() to start a new stream",
                        ));
                    }
                    bytes_of(py, "feed", d, scratch)?
                }
                None => {
                    *finished = true;
                    &[]
                }
            };
            let finish = data.is_none();
            let list = PyList::empty(py);
            let mut sink = |ev: &CoreEvent<'_>| list.append(conv.convert(py, ev)?);
            drive(py, decoder, bytes, finish, &mut sink)?;
            Ok(list)
        })
    }
}

#[pymethods]
impl Decoder {
    #[new]
    #[pyo3(signature = (provider = None, **config))]
    fn new(
        py: Python<'_>,
        provider: Option<&Bound<'_, PyAny>>,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Decoder> {
        let mut text_dialect = None;
        let mut tools = None;
        let mut thinking_tags = None;
        let mut tool_call_markers = None;
        let mut start_in = None;
        let mut stop_sequences = None;
        let mut id_prefix = None;
        let mut on_malformed = None;
        let mut max_call_bytes = None;
        let mut unknown_tools = None;
        let mut accumulate = true;
        let mut provider_keys: Vec<(Setter, Bound<'_, PyAny>)> = Vec::new();
        for (k, v) in config.into_iter().flat_map(|d| d.iter()) {
            let key = k.cast::<PyString>()?.to_str()?.to_owned();
            let slot = match key.as_str() {
                "text_dialect" => &mut text_dialect,
                "tools" => &mut tools,
                "thinking_tags" => &mut thinking_tags,
                "tool_call_markers" => &mut tool_call_markers,
                "start_in" => &mut start_in,
                "stop_sequences" => &mut stop_sequences,
                "id_prefix" => &mut id_prefix,
                "on_malformed" => &mut on_malformed,
                "max_call_bytes" => &mut max_call_bytes,
                "unknown_tools" => &mut unknown_tools,
                "accumulate" => {
                    // Not a config key: how this binding makes completions (as in C/PHP).
                    if !v.is_none() {
                        if !v.is_instance_of::<pyo3::types::PyBool>() {
                            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                                "`accumulate`: must be a bool, not {}",
                                v.get_type().name()?
                            )));
                        }
                        accumulate = v.is_truthy()?;
                    }
                    continue;
                }
                _ => match PROVIDER_KEYS.iter().find(|(name, _)| *name == key) {
                    Some((_, set)) => {
                        if !v.is_none() {
                            provider_keys.push((*set, v));
                        }
                        continue;
                    }
                    None if key == "dialect" => {
                        return Err(crate::errors::argument(
                            "Decoder() got an unexpected keyword argument 'dialect' (the \
                             decoder's is `text_dialect`: the dialect its text runs through)",
                        ));
                    }
                    None => {
                        return Err(crate::errors::argument(format!(
                            "Decoder() got an unexpected keyword argument '{key}'"
                        )));
                    }
                },
            };
            if !v.is_none() {
                *slot = Some(v);
            }
        }
        let default_provider = PyString::new(py, "openai-chat").into_any();
        let passthrough = PyString::new(py, "passthrough").into_any();
        let options = Options {
            dialect_key: "text_dialect",
            dialect: text_dialect.as_ref().unwrap_or(&passthrough),
            tools: tools.as_ref(),
            thinking_tags: thinking_tags.as_ref(),
            tool_call_markers: tool_call_markers.as_ref(),
            start_in: start_in.as_ref(),
            stop_sequences: stop_sequences.as_ref(),
            id_prefix: id_prefix.as_ref(),
            on_malformed: on_malformed.as_ref(),
            max_call_bytes: max_call_bytes.as_ref(),
            unknown_tools: unknown_tools.as_ref(),
        };
        let mut unit = ();
        guarded(
            &mut unit,
            |_| {},
            |_| {
                let provider = self::provider(provider.unwrap_or(&default_provider))?;
                let buf = options.build(py)?;
                let mut config = DecoderConfig::new(provider);
                config.options = buf.config();
                for (set, v) in &provider_keys {
                    set(&mut config, v)?;
                }
                let decoder =
                    CoreDecoder::new(&config).map_err(|e| config_error(&e, Some(&options)))?;
                Ok(Decoder {
                    provider,
                    text_dialect: buf.dialect,
                    state: Mutex::new(State {
                        decoder,
                        conv: Converter::new(accumulate),
                        finished: false,
                        scratch: Vec::new(),
                    }),
                })
            },
        )
    }

    /// The provider's name.
    #[getter]
    fn provider(&self) -> &'static str {
        self.provider.name()
    }

    /// The text dialect's name, or `None` (text passes through as it is).
    #[getter]
    fn text_dialect(&self) -> Option<&'static str> {
        (self.text_dialect != tokensieve::Dialect::Passthrough).then(|| self.text_dialect.name())
    }

    /// Decodes the next piece of the body and returns its events.
    fn feed<'py>(&self, py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        self.run(py, Some(data))
    }

    /// Ends the body and returns the last events.
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.run(py, None)
    }

    /// Back to the start of a new body, with the same configuration.
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

    fn __repr__(&self) -> String {
        match self.text_dialect() {
            Some(d) => format!(
                "Decoder(provider='{}', text_dialect='{d}')",
                self.provider.name()
            ),
            None => format!("Decoder(provider='{}')", self.provider.name()),
        }
    }
}
