//! Keyword arguments → the core's `ConfigBuf`: one keyword per key of the JSON config.
//!
//! Wrong Python types are `TypeError`s, wrong values `ValueError`s; both name the key, in
//! the words the CLI and the C ABI use (`config key `…`: …`).

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyMapping, PyString, PyTuple};
use tokensieve::{ConfigBuf, ConfigError, Dialect, OnMalformed, StartIn};

/// The keyword arguments, as given.
pub(crate) struct Options<'a, 'py> {
    /// The keyword that names the dialect: `dialect` (Sieve), `text_dialect` (Decoder).
    pub dialect_key: &'static str,
    pub dialect: &'a Bound<'py, PyAny>,
    pub tools: Option<&'a Bound<'py, PyAny>>,
    pub thinking_tags: Option<&'a Bound<'py, PyAny>>,
    pub tool_call_markers: Option<&'a Bound<'py, PyAny>>,
    pub start_in: Option<&'a Bound<'py, PyAny>>,
    pub stop_sequences: Option<&'a Bound<'py, PyAny>>,
    pub id_prefix: Option<&'a Bound<'py, PyAny>>,
    pub on_malformed: Option<&'a Bound<'py, PyAny>>,
    pub max_call_bytes: Option<&'a Bound<'py, PyAny>>,
    pub unknown_tools: Option<&'a Bound<'py, PyAny>>,
}

impl<'a, 'py> Options<'a, 'py> {
    /// The dialect named by the `dialect` keyword and no other option (the writers take one
    /// or two more: `Options { tools, ..Options::dialect_only(d) }`).
    pub(crate) fn dialect_only(dialect: &'a Bound<'py, PyAny>) -> Self {
        Options {
            dialect_key: "dialect",
            dialect,
            tools: None,
            thinking_tags: None,
            tool_call_markers: None,
            start_in: None,
            stop_sequences: None,
            id_prefix: None,
            on_malformed: None,
            max_call_bytes: None,
            unknown_tools: None,
        }
    }
}

pub(crate) fn type_name(v: &Bound<'_, PyAny>) -> String {
    v.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

pub(crate) fn type_err(key: &str, what: &str, v: &Bound<'_, PyAny>) -> PyErr {
    crate::errors::argument(format!(
        "config key `{key}`: must be {what}, not {}",
        type_name(v)
    ))
}

pub(crate) fn value_err(key: &str, what: &str, v: Option<&Bound<'_, PyAny>>) -> PyErr {
    let got = v
        .and_then(|v| v.repr().ok())
        .map(|r| {
            let r = r.to_string();
            if r.chars().count() > 80 {
                let cut: String = r.chars().take(77).collect();
                format!(" (got {cut}...)")
            } else {
                format!(" (got {r})")
            }
        })
        .unwrap_or_default();
    crate::errors::config(format!("config key `{key}`: {what}{got}"))
}

/// A core config error as a `ValueError`, with the offending value when it was a keyword.
pub(crate) fn config_error(e: &ConfigError, o: Option<&Options<'_, '_>>) -> PyErr {
    let key = match (e.key(), o) {
        ("dialect", Some(o)) => o.dialect_key,
        (k, _) => k,
    };
    let given = o.and_then(|o| match e.key() {
        "dialect" => Some(o.dialect),
        "thinking_tags" => o.thinking_tags,
        "tool_call_markers" => o.tool_call_markers,
        "start_in" => o.start_in,
        "stop_sequences" => o.stop_sequences,
        "id_prefix" => o.id_prefix,
        "on_malformed" => o.on_malformed,
        "max_call_bytes" => o.max_call_bytes,
        "unknown_tools" => o.unknown_tools,
        _ => None, // tools: too long to repeat
    });
    value_err(key, e.message(), given)
}

pub(crate) fn string(key: &str, v: &Bound<'_, PyAny>) -> PyResult<String> {
    let s = v
        .cast::<PyString>()
        .map_err(|_| type_err(key, "a str", v))?;
    Ok(s.to_str()?.to_owned())
}

/// A list or tuple (not a str, bytes or dict, which are iterable but never meant).
fn sequence<'py>(key: &str, what: &str, v: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if let Ok(l) = v.cast::<PyList>() {
        return Ok(l.iter().collect());
    }
    if let Ok(t) = v.cast::<PyTuple>() {
        return Ok(t.iter().collect());
    }
    Err(type_err(key, what, v))
}

fn pair(key: &str, v: &Bound<'_, PyAny>) -> PyResult<(Box<str>, Box<str>)> {
    const WHAT: &str = "a pair of strings [open, close]";
    let items = sequence(key, WHAT, v)?;
    match items.as_slice() {
        [a, b] => {
            let a = a.cast::<PyString>().map_err(|_| type_err(key, WHAT, v))?;
            let b = b.cast::<PyString>().map_err(|_| type_err(key, WHAT, v))?;
            Ok((a.to_str()?.into(), b.to_str()?.into()))
        }
        _ => Err(value_err(
            key,
            "must be a pair of strings [open, close]",
            Some(v),
        )),
    }
}

pub(crate) fn dialect(key: &str, v: &Bound<'_, PyAny>) -> PyResult<Dialect> {
    let name = string(key, v)?;
    Dialect::from_name(&name)
        .filter(|d| d.is_supported())
        .ok_or_else(|| {
            let names: Vec<&str> = supported_dialects().collect();
            value_err(
                key,
                &format!("must be one of {}", names.join(", ")),
                Some(v),
            )
        })
}

/// A config holding the description `v` (a mapping) as its dialect.
fn described(py: Python<'_>, key: &str, v: &Bound<'_, PyAny>) -> PyResult<ConfigBuf> {
    let dict = match v.cast::<PyDict>() {
        Ok(d) => d.clone(),
        Err(_) => PyDict::from_sequence(&v.call_method0("items")?)?,
    };
    let text: String = py
        .import("json")?
        .getattr("dumps")?
        .call1((dict,))
        .map_err(|e| {
            crate::errors::argument(format!(
                "config key `{key}`: a description must be JSON data: {}",
                e.value(py)
            ))
        })?
        .extract()?;
    ConfigBuf::from_json(&format!("{{\"dialect\":{text}}}")).map_err(|e| {
        let k = e.key();
        let k = k.replacen("dialect", key, 1);
        crate::errors::config(format!("config key `{k}`: {}", e.message()))
    })
}

/// The dialects this build parses, in the core's order.
pub(crate) fn supported_dialects() -> impl Iterator<Item = &'static str> {
    Dialect::ALL
        .into_iter()
        .filter(|d| d.is_supported())
        .map(|d| d.name())
}

/// `tools` goes through the core's own reader (JSON text, as the CLI does), so a tool is
/// checked exactly as in a JSON config; a schema may be a dict or JSON text.
fn tools(py: Python<'_>, d: Dialect, v: &Bound<'_, PyAny>) -> PyResult<Vec<tokensieve::ToolBuf>> {
    const WHAT: &str = "a list of {\"name\": str, \"schema\": dict} dicts";
    let mut items = sequence("tools", WHAT, v)?;
    for (i, t) in items.iter_mut().enumerate() {
        if t.is_instance_of::<PyDict>() {
            continue;
        }
        if t.cast::<PyMapping>().is_err() {
            return Err(crate::errors::argument(format!(
                "config key `tools`: item {i} must be a dict {{\"name\": str, \"schema\": dict}}, not {}",
                type_name(t)
            )));
        }
        *t = PyDict::from_sequence(&t.call_method0("items")?)?.into_any();
    }
    let dumps = py.import("json")?.getattr("dumps")?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("allow_nan", false)?;
    let text: String = dumps
        .call((PyList::new(py, &items)?,), Some(&kwargs))
        .map_err(|e| {
            let msg = e.value(py).to_string();
            if e.is_instance_of::<PyTypeError>(py) {
                crate::errors::argument(format!("config key `tools`: not JSON data: {msg}"))
            } else {
                crate::errors::config(format!("config key `tools`: not JSON data: {msg}"))
            }
        })?
        .extract()?;
    let wrapped = format!("{{\"dialect\":\"{}\",\"tools\":{text}}}", d.name());
    ConfigBuf::from_json(&wrapped)
        .map(|c| c.tools)
        .map_err(|e| config_error(&e, None))
}

impl Options<'_, '_> {
    /// The config; not yet validated as a whole (`Sieve::from_config_buf` does that).
    pub(crate) fn build(&self, py: Python<'_>) -> PyResult<ConfigBuf> {
        // A dict is a dialect description (docs/design.md, "Dialect descriptions"), read by
        // the core's JSON reader so it is checked exactly as in a JSON config.
        let mut c = if self.dialect.cast::<PyMapping>().is_ok() {
            described(py, self.dialect_key, self.dialect)?
        } else {
            ConfigBuf::new(dialect(self.dialect_key, self.dialect)?)
        };
        let d = c.dialect;
        if let Some(v) = self.tools {
            c.tools = tools(py, d, v)?;
        }
        if let Some(v) = self.thinking_tags {
            // One pair, or a list of pairs (other spellings; the first one in force).
            let items = sequence("thinking_tags", "a pair of strings [open, close]", v)?;
            if items.first().is_some_and(|f| f.cast::<PyString>().is_err()) {
                c.thinking_tags = Some(pair("thinking_tags", &items[0])?);
                for p in &items[1..] {
                    let (a, b) = pair("thinking_tags", p)?;
                    c.thinking_alternates.extend([a, b]);
                }
            } else {
                c.thinking_tags = Some(pair("thinking_tags", v)?);
            }
        }
        if let Some(v) = self.tool_call_markers {
            c.tool_call_markers = Some(pair("tool_call_markers", v)?);
        }
        if let Some(v) = self.start_in {
            c.start_in = match string("start_in", v)?.as_str() {
                "text" => StartIn::Text,
                "thinking" => StartIn::Thinking,
                _ => {
                    return Err(value_err(
                        "start_in",
                        "must be \"text\" or \"thinking\"",
                        Some(v),
                    ));
                }
            };
        }
        if let Some(v) = self.stop_sequences {
            const WHAT: &str = "a list of strings";
            if v.is_instance_of::<PyString>() {
                return Err(crate::errors::argument(
                    "config key `stop_sequences`: must be a list of strings, not a str (write [\"…\"] for one)",
                ));
            }
            for s in sequence("stop_sequences", WHAT, v)? {
                let s = s
                    .cast::<PyString>()
                    .map_err(|_| type_err("stop_sequences", "a list of strings", &s))?;
                c.stop_sequences.push(s.to_str()?.into());
            }
        }
        if let Some(v) = self.id_prefix {
            c.id_prefix = string("id_prefix", v)?.into();
        }
        if let Some(v) = self.on_malformed {
            c.on_malformed = match string("on_malformed", v)?.as_str() {
                "text" => OnMalformed::Text,
                "drop" => OnMalformed::Drop,
                _ => {
                    return Err(value_err(
                        "on_malformed",
                        "must be \"text\" or \"drop\"",
                        Some(v),
                    ));
                }
            };
        }
        if let Some(v) = self.unknown_tools {
            c.unknown_tools = match string("unknown_tools", v)?.as_str() {
                "call" => tokensieve::UnknownTools::Call,
                "fail" => tokensieve::UnknownTools::Fail,
                _ => {
                    return Err(value_err(
                        "unknown_tools",
                        "must be \"call\" or \"fail\"",
                        Some(v),
                    ));
                }
            };
        }
        if let Some(v) = self.max_call_bytes {
            if v.is_instance_of::<pyo3::types::PyBool>()
                || !v.is_instance_of::<pyo3::types::PyInt>()
            {
                return Err(type_err("max_call_bytes", "an int", v));
            }
            c.max_call_bytes = v.extract::<usize>().map_err(|_| {
                value_err(
                    "max_call_bytes",
                    "must be at least 64 and below 256 MiB",
                    Some(v),
                )
            })?;
        }
        Ok(c)
    }
}
