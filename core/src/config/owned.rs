//! The owned configuration ([`ConfigBuf`], [`DescriptionBuf`]), read from JSON.

use super::*;
use crate::json::schema::{self, Found, Property, SchemaError};
use crate::json::value::{self, Value};
use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

/// An owned [`Config`], read from JSON (the `config` object of the conformance vectors).
///
/// ```
/// use tokensieve::{ConfigBuf, Dialect};
/// let buf = ConfigBuf::from_json(r#"{"dialect": "anthropic-xml", "stop_sequences": ["\nHuman:"]}"#).unwrap();
/// assert_eq!(buf.config().dialect, Dialect::AnthropicXml);
/// let err = ConfigBuf::from_json(r#"{"dialect": "anthropic-xml", "colour": 1}"#).unwrap_err();
/// assert_eq!(err.key(), "colour");
/// ```
#[derive(Clone, Debug)]
pub struct ConfigBuf {
    /// The wire format.
    pub dialect: Dialect,
    /// A host-written description of the wire format (see [`Config::description`]).
    pub description: Option<DescriptionBuf>,
    /// `[open, close]` thinking markers; `None` means the dialect's default.
    pub thinking_tags: Option<(Box<str>, Box<str>)>,
    /// Other spellings of the thinking markers (see [`Config::thinking_alternates`]); JSON:
    /// `"thinking_tags": [["<think>", "</think>"], ["<thinking>", "</thinking>"]]`, the first
    /// pair the markers in force.
    pub thinking_alternates: Vec<Box<str>>,
    /// hermes: `[open, close]` tool-call markers.
    pub tool_call_markers: Option<(Box<str>, Box<str>)>,
    /// Where the stream starts.
    pub start_in: StartIn,
    /// Stop sequences.
    pub stop_sequences: Vec<Box<str>>,
    /// Prefix of generated call ids.
    pub id_prefix: Box<str>,
    /// What to do with a failed call's raw text.
    pub on_malformed: OnMalformed,
    /// How many bytes of one call may be held.
    pub max_call_bytes: usize,
    /// Tools with their parameter types.
    pub tools: Vec<ToolBuf>,
    /// What a call to a tool not in `tools` becomes.
    pub unknown_tools: UnknownTools,
}

/// An owned [`Description`], read from the JSON config's `"dialect"` object.
///
/// ```
/// use tokensieve::{ConfigBuf, Dialect, Shape};
/// let buf = ConfigBuf::from_json(r#"{"dialect": {"shape": "xml-params",
///     "wrapper": ["<seed:tool_call>", "</seed:tool_call>"],
///     "thinking_tags": ["<seed:think>", "</seed:think>"]}}"#).unwrap();
/// let config = buf.config();
/// assert_eq!(config.dialect, Dialect::Qwen3Coder);
/// assert_eq!(config.description.unwrap().shape, Shape::XmlParams);
/// assert_eq!(config.thinking_tags(), ("<seed:think>", "</seed:think>"));
/// let err = ConfigBuf::from_json(r#"{"dialect": {"shape": "xml-params", "wrapper": ["<a>", "<a>"]}}"#);
/// assert_eq!(err.unwrap_err().key(), "dialect.wrapper");
/// ```
#[derive(Clone, Debug)]
pub struct DescriptionBuf {
    /// The grammar shape.
    pub shape: Shape,
    /// See [`Description::wrapper`].
    pub wrapper: (Box<str>, Box<str>),
    /// See [`Description::result_wrapper`].
    pub result_wrapper: Option<(Box<str>, Box<str>)>,
    /// See [`Description::markup`].
    pub markup: Option<(Box<str>, Box<str>)>,
    /// See [`Description::name_keys`].
    pub name_keys: Vec<Box<str>>,
    /// See [`Description::argument_keys`].
    pub argument_keys: Vec<Box<str>>,
    /// See [`Description::thinking_tags`].
    pub thinking_tags: (Box<str>, Box<str>),
    /// See [`Description::elements`].
    pub elements: Vec<Box<str>>,
    /// See [`Description::tag_prefixes`].
    pub tag_prefixes: Vec<Box<str>>,
    /// See [`Description::string_attribute`].
    pub string_attribute: Option<Box<str>>,
    /// See [`Description::bare_calls`].
    pub bare_calls: bool,
    /// See [`Description::more_markup`].
    pub more_markup: Vec<Box<str>>,
    /// See [`Description::name_as_key`].
    pub name_as_key: bool,
    /// See [`Description::bare_array`].
    pub bare_array: bool,
    /// See [`Description::cdata`].
    pub cdata: bool,
    /// See [`Description::call_markers`].
    pub call_markers: (Box<str>, Box<str>),
    /// See [`Description::header_ends`].
    pub header_ends: Vec<Box<str>>,
    /// See [`Description::fence`].
    pub fence: Option<(Box<str>, Box<str>)>,
    /// See [`Description::wire_id`].
    pub wire_id: bool,
    /// See [`Description::alt_openers`].
    pub alt_openers: Vec<Box<str>>,
    /// See [`Description::call_header`].
    pub call_header: Option<(Box<str>, Box<str>)>,
}

impl DescriptionBuf {
    /// An owned copy of a description.
    pub fn from_description(d: &Description<'_>) -> DescriptionBuf {
        let pair = |(a, b): (&str, &str)| (Box::from(a), Box::from(b));
        DescriptionBuf {
            shape: d.shape,
            wrapper: pair(d.wrapper),
            result_wrapper: d.result_wrapper.map(pair),
            markup: d.markup.map(pair),
            name_keys: d.name_keys.iter().map(Into::into).collect(),
            argument_keys: d.argument_keys.iter().map(Into::into).collect(),
            thinking_tags: pair(d.thinking_tags),
            bare_calls: d.bare_calls,
            elements: d.elements.iter().map(Into::into).collect(),
            tag_prefixes: d.tag_prefixes.iter().map(Into::into).collect(),
            string_attribute: d.string_attribute.map(Into::into),
            more_markup: d.more_markup.iter().map(Into::into).collect(),
            name_as_key: d.name_as_key,
            bare_array: d.bare_array,
            cdata: d.cdata,
            call_markers: pair(d.call_markers),
            header_ends: d.header_ends.iter().map(Into::into).collect(),
            fence: d.fence.map(pair),
            wire_id: d.wire_id,
            alt_openers: d.alt_openers.iter().map(Into::into).collect(),
            call_header: d.call_header.map(pair),
        }
    }

    /// The borrowed view.
    pub fn description(&self) -> Description<'_> {
        Description {
            shape: self.shape,
            wrapper: (&self.wrapper.0, &self.wrapper.1),
            result_wrapper: self.result_wrapper.as_ref().map(|(a, b)| (&**a, &**b)),
            markup: self.markup.as_ref().map(|(a, b)| (&**a, &**b)),
            name_keys: StrList::Owned(&self.name_keys),
            argument_keys: StrList::Owned(&self.argument_keys),
            thinking_tags: (&self.thinking_tags.0, &self.thinking_tags.1),
            elements: StrList::Owned(&self.elements),
            tag_prefixes: StrList::Owned(&self.tag_prefixes),
            string_attribute: self.string_attribute.as_deref(),
            bare_calls: self.bare_calls,
            more_markup: StrList::Owned(&self.more_markup),
            name_as_key: self.name_as_key,
            bare_array: self.bare_array,
            cdata: self.cdata,
            call_markers: (&self.call_markers.0, &self.call_markers.1),
            header_ends: StrList::Owned(&self.header_ends),
            fence: self.fence.as_ref().map(|(a, b)| (&**a, &**b)),
            wire_id: self.wire_id,
            alt_openers: StrList::Owned(&self.alt_openers),
            call_header: self.call_header.as_ref().map(|(a, b)| (&**a, &**b)),
        }
    }

    /// Reads a description object: `shape` is required; every other field defaults to
    /// the shape's preset (hermes for json-call, qwen3-coder for xml-params, minimax-m2
    /// for invoke).
    fn from_value(v: &Value<'_>) -> Result<DescriptionBuf, ConfigError> {
        let obj = v
            .as_object()
            .ok_or_else(|| err("dialect", "must be a dialect name or a description object"))?;
        let shape = match obj.get("shape") {
            Some(Value::String(s)) => Shape::from_name(s).ok_or_else(|| {
                err(
                    "dialect.shape",
                    "must be one of json-call, xml-params, invoke, pythonic, key-value, sectioned",
                )
            })?,
            Some(_) => return Err(err("dialect.shape", "must be a string")),
            None => return Err(err("dialect.shape", "is required in a description")),
        };
        let preset = Description::preset(shape.preset()).expect("a shape's preset has one");
        let mut d = DescriptionBuf::from_description(&preset);
        let keys = |key: &str, v: &Value<'_>| -> Result<Vec<Box<str>>, ConfigError> {
            v.as_array()
                .and_then(|l| l.iter().map(|k| k.as_str().map(Box::from)).collect())
                .ok_or_else(|| err(key, "must be a list of strings"))
        };
        for (key, value) in obj {
            let full = alloc::format!("dialect.{key}");
            match key.as_str() {
                "shape" => {}
                "result_wrapper" | "name_keys" | "argument_keys" | "more_markup"
                | "name_as_key" | "bare_array"
                    if shape == Shape::Invoke =>
                {
                    return Err(err(&full, "is not a field of the invoke shape"));
                }
                "elements" if !matches!(shape, Shape::Invoke | Shape::KeyValue) => {
                    return Err(err(
                        &full,
                        "is a field of the invoke and key-value shapes only",
                    ));
                }
                "tag_prefixes" | "string_attribute" | "cdata" if shape != Shape::Invoke => {
                    return Err(err(&full, "is a field of the invoke shape only"));
                }
                "result_wrapper" | "name_keys" | "argument_keys" | "name_as_key" | "bare_array"
                    if shape == Shape::KeyValue =>
                {
                    return Err(err(&full, "is not a field of the key-value shape"));
                }
                "call_markers" | "header_ends" | "fence" | "wire_id" | "alt_openers"
                    if shape != Shape::Sectioned =>
                {
                    return Err(err(&full, "is a field of the sectioned shape only"));
                }
                "result_wrapper" | "markup" | "more_markup" | "name_keys" | "argument_keys"
                | "name_as_key" | "bare_array" | "elements"
                    if shape == Shape::Sectioned =>
                {
                    return Err(err(&full, "is not a field of the sectioned shape"));
                }
                "call_header" if shape != Shape::JsonCall => {
                    return Err(err(&full, "is a field of the json-call shape only"));
                }
                "call_header" if value.is_null() => d.call_header = None,
                "call_header" => d.call_header = Some(marker_pair(&full, value)?),
                "call_markers" => d.call_markers = marker_pair(&full, value)?,
                "header_ends" => d.header_ends = keys(&full, value)?,
                "fence" if value.is_null() => d.fence = None,
                "fence" => d.fence = Some(marker_pair(&full, value)?),
                "alt_openers" => d.alt_openers = keys(&full, value)?,
                "wire_id" => {
                    d.wire_id = value
                        .as_bool()
                        .ok_or_else(|| err(&full, "must be true or false"))?;
                }
                "wrapper" => d.wrapper = marker_pair(&full, value)?,
                "result_wrapper" if value.is_null() => d.result_wrapper = None,
                "result_wrapper" => d.result_wrapper = Some(marker_pair(&full, value)?),
                "markup" if value.is_null() => d.markup = None,
                // One pair, or a list of pairs (the first is `markup`, the rest
                // `more_markup`).
                "markup"
                    if value
                        .as_array()
                        .and_then(|l| l.first())
                        .is_some_and(Value::is_array)
                        && shape != Shape::Invoke =>
                {
                    let pairs = value.as_array().unwrap_or_default();
                    d.markup = Some(marker_pair(&full, &pairs[0])?);
                    for p in &pairs[1..] {
                        let (a, b) = marker_pair(&full, p)?;
                        d.more_markup.extend([a, b]);
                    }
                }
                "markup" => d.markup = Some(marker_pair(&full, value)?),
                "more_markup" => d.more_markup = keys(&full, value)?,
                "bare_array" => {
                    d.bare_array = value
                        .as_bool()
                        .ok_or_else(|| err(&full, "must be true or false"))?;
                }
                "name_as_key" => {
                    d.name_as_key = value
                        .as_bool()
                        .ok_or_else(|| err(&full, "must be true or false"))?;
                }
                "name_keys" => d.name_keys = keys(&full, value)?,
                "argument_keys" => d.argument_keys = keys(&full, value)?,
                "thinking_tags" => d.thinking_tags = marker_pair(&full, value)?,
                "bare_calls" if shape != Shape::Pythonic => {
                    return Err(err(&full, "is a field of the pythonic shape only"));
                }
                "bare_calls" => {
                    d.bare_calls = value
                        .as_bool()
                        .ok_or_else(|| err(&full, "must be true or false"))?;
                }
                "elements" => d.elements = keys(&full, value)?,
                "cdata" => {
                    d.cdata = value
                        .as_bool()
                        .ok_or_else(|| err(&full, "must be true or false"))?;
                }
                "tag_prefixes" => d.tag_prefixes = keys(&full, value)?,
                "string_attribute" if value.is_null() => d.string_attribute = None,
                "string_attribute" => {
                    d.string_attribute = Some(
                        value
                            .as_str()
                            .ok_or_else(|| err(&full, "must be a string or null"))?
                            .into(),
                    );
                }
                _ => return Err(err(&full, "is not a field of a dialect description")),
            }
        }
        Ok(d)
    }
}

fn err(key: &str, message: &'static str) -> ConfigError {
    ConfigError {
        key: key.to_owned(),
        message,
    }
}

fn marker_pair(key: &str, v: &Value<'_>) -> Result<(Box<str>, Box<str>), ConfigError> {
    match v.as_array() {
        Some([Value::String(a), Value::String(b)]) => Ok((a.as_str().into(), b.as_str().into())),
        _ => Err(err(key, "must be a list of two strings [open, close]")),
    }
}

impl ConfigBuf {
    /// The defaults for a dialect.
    pub fn new(dialect: Dialect) -> ConfigBuf {
        ConfigBuf {
            dialect,
            description: None,
            thinking_tags: None,
            thinking_alternates: Vec::new(),
            tool_call_markers: None,
            start_in: StartIn::Text,
            stop_sequences: Vec::new(),
            id_prefix: "call_".into(),
            on_malformed: OnMalformed::Text,
            max_call_bytes: DEFAULT_MAX_CALL_BYTES,
            tools: Vec::new(),
            unknown_tools: UnknownTools::Call,
        }
    }

    /// An owned copy of a borrowed config (for a parser that must outlive it).
    ///
    /// ```
    /// use tokensieve::{Config, ConfigBuf, Dialect};
    /// let mut c = Config::new(Dialect::Hermes);
    /// c.id_prefix = "tc_";
    /// let owned = ConfigBuf::from_config(&c);
    /// assert_eq!((owned.dialect, &*owned.id_prefix), (Dialect::Hermes, "tc_"));
    /// ```
    pub fn from_config(c: &Config<'_>) -> ConfigBuf {
        let pair = |p: Option<(&str, &str)>| p.map(|(a, b)| (a.into(), b.into()));
        let tools = match c.tools {
            ToolList::Tools(t) => t
                .iter()
                .map(|t| ToolBuf {
                    name: t.name.into(),
                    params: t
                        .params
                        .iter()
                        .map(|p| ParamBuf {
                            name: p.name.into(),
                            value_type: p.value_type,
                            items: p.items,
                        })
                        .collect(),
                })
                .collect(),
            ToolList::Owned(t) => t.to_vec(),
        };
        ConfigBuf {
            dialect: c.dialect,
            description: c.description.as_ref().map(DescriptionBuf::from_description),
            thinking_tags: pair(c.thinking_tags),
            thinking_alternates: c.thinking_alternates.iter().map(Into::into).collect(),
            tool_call_markers: pair(c.tool_call_markers),
            start_in: c.start_in,
            stop_sequences: c.stop_sequences.iter().map(Into::into).collect(),
            id_prefix: c.id_prefix.into(),
            on_malformed: c.on_malformed,
            max_call_bytes: c.max_call_bytes,
            tools,
            unknown_tools: c.unknown_tools,
        }
    }

    /// Reads a config from JSON text; unknown keys and bad values are errors that name the key.
    pub fn from_json(text: &str) -> Result<ConfigBuf, ConfigError> {
        let v = value::parse(text).map_err(|_| err("(config)", "is not valid JSON"))?;
        ConfigBuf::from_tree(&v)
    }

    /// Reads a config from a JSON value of a JSON library whose `Display` writes the value's
    /// JSON text, as `serde_json::Value`'s does: it is written out and read by
    /// [`ConfigBuf::from_json`] (the core links no JSON library).
    ///
    /// ```
    /// use tokensieve::{ConfigBuf, Dialect};
    /// let v = serde_json::json!({"dialect": "hermes", "id_prefix": "tc_"});
    /// let buf = ConfigBuf::from_value(&v).unwrap();
    /// assert_eq!((buf.dialect, &*buf.id_prefix), (Dialect::Hermes, "tc_"));
    /// ```
    pub fn from_value(v: &impl core::fmt::Display) -> Result<ConfigBuf, ConfigError> {
        ConfigBuf::from_json(&alloc::format!("{v}"))
    }

    /// Reads a config from the core's JSON tree (also the decoder config's reader).
    pub(crate) fn from_tree(v: &Value<'_>) -> Result<ConfigBuf, ConfigError> {
        let obj = v
            .as_object()
            .ok_or_else(|| err("(config)", "must be a JSON object"))?;
        let (dialect, description) = match obj.get("dialect") {
            Some(Value::String(s)) => (
                Dialect::from_name(s).ok_or_else(|| err("dialect", DIALECT_NAMES_MESSAGE))?,
                None,
            ),
            Some(v @ Value::Object(_)) => {
                let d = DescriptionBuf::from_value(v)?;
                (d.shape.preset(), Some(d))
            }
            Some(_) => {
                return Err(err(
                    "dialect",
                    "must be a dialect name or a description object",
                ));
            }
            None => return Err(err("dialect", "is required")),
        };
        let mut buf = ConfigBuf::new(dialect);
        buf.description = description;
        for (key, value) in obj {
            match key.as_str() {
                "dialect" => {}
                "thinking_tags" => match value.as_array() {
                    // Several spellings: a list of pairs, the first one in force.
                    Some([first @ Value::Array(..), rest @ ..]) => {
                        buf.thinking_tags = Some(marker_pair(key, first)?);
                        for p in rest {
                            let (a, b) = marker_pair(key, p)?;
                            buf.thinking_alternates.extend([a, b]);
                        }
                    }
                    _ => buf.thinking_tags = Some(marker_pair(key, value)?),
                },
                "tool_call_markers" => buf.tool_call_markers = Some(marker_pair(key, value)?),
                "start_in" => {
                    buf.start_in = match value.as_str() {
                        Some("text") => StartIn::Text,
                        Some("thinking") => StartIn::Thinking,
                        _ => return Err(err(key, "must be \"text\" or \"thinking\"")),
                    }
                }
                "stop_sequences" => {
                    let list = value
                        .as_array()
                        .ok_or_else(|| err(key, "must be a list of strings"))?;
                    for s in list {
                        let s = s
                            .as_str()
                            .ok_or_else(|| err(key, "must be a list of strings"))?;
                        buf.stop_sequences.push(s.into());
                    }
                }
                "id_prefix" => {
                    buf.id_prefix = value
                        .as_str()
                        .ok_or_else(|| err(key, "must be a string"))?
                        .into()
                }
                "unknown_tools" => {
                    buf.unknown_tools = match value.as_str() {
                        Some("call") => UnknownTools::Call,
                        Some("fail") => UnknownTools::Fail,
                        _ => return Err(err(key, "must be \"call\" or \"fail\"")),
                    }
                }
                "on_malformed" => {
                    buf.on_malformed = match value.as_str() {
                        Some("text") => OnMalformed::Text,
                        Some("drop") => OnMalformed::Drop,
                        _ => return Err(err(key, "must be \"text\" or \"drop\"")),
                    }
                }
                "max_call_bytes" => {
                    buf.max_call_bytes = value
                        .as_u64()
                        .and_then(|n| usize::try_from(n).ok())
                        .ok_or_else(|| err(key, "must be a positive integer"))?
                }
                "tools" => {
                    let list = value
                        .as_array()
                        .ok_or_else(|| err(key, "must be a list of {name, schema}"))?;
                    for t in list {
                        buf.tools.push(read_tool(t)?);
                    }
                }
                other => return Err(err(other, "is not a known config key")),
            }
        }
        buf.config().validate()?;
        Ok(buf)
    }

    /// Adds a tool by name and JSON Schema text (the schema of its input object).
    ///
    /// ```
    /// use tokensieve::{ConfigBuf, Dialect};
    /// let mut c = ConfigBuf::new(Dialect::AnthropicXml);
    /// c.add_tool("get_weather", r#"{"type":"object","properties":{"city":{"type":"string"}}}"#).unwrap();
    /// assert_eq!(c.tools.len(), 1);
    /// ```
    pub fn add_tool(&mut self, name: &str, schema_json: &str) -> Result<(), ConfigError> {
        let tool = tool_from_schema(name, Some(schema_json.as_bytes()))?;
        self.tools.push(tool);
        Ok(())
    }

    /// The borrowed view a parser takes.
    pub fn config(&self) -> Config<'_> {
        Config {
            dialect: self.dialect,
            description: self.description.as_ref().map(DescriptionBuf::description),
            thinking_tags: self.thinking_tags.as_ref().map(|(a, b)| (&**a, &**b)),
            thinking_alternates: StrList::Owned(&self.thinking_alternates),
            tool_call_markers: self.tool_call_markers.as_ref().map(|(a, b)| (&**a, &**b)),
            start_in: self.start_in,
            stop_sequences: StrList::Owned(&self.stop_sequences),
            id_prefix: &self.id_prefix,
            on_malformed: self.on_malformed,
            max_call_bytes: self.max_call_bytes,
            tools: ToolList::Owned(&self.tools),
            unknown_tools: self.unknown_tools,
        }
    }
}

fn read_tool(t: &Value<'_>) -> Result<ToolBuf, ConfigError> {
    let obj = t
        .as_object()
        .ok_or_else(|| err("tools", "each tool must be an object {name, schema}"))?;
    for k in obj.keys() {
        if k != "name" && k != "schema" && k != "description" {
            return Err(err(
                k,
                "is not a known tool key (name, schema, description)",
            ));
        }
    }
    let name = obj
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| err("tools", "each tool needs a string name"))?;
    match obj.get("schema") {
        // Schemas may arrive as JSON text; an object is read as its JSON text too, as
        // written (one reader for both, and for the C ABI).
        Some(Value::String(s)) => tool_from_schema(name, Some(s.as_bytes())),
        Some(v) => tool_from_schema(name, Some(v.text().unwrap_or_default().as_bytes())),
        None => tool_from_schema(name, None),
    }
}

/// A tool from its name and the JSON text of its schema, read by [`schema::scan`] (as
/// the C ABI reads it).
fn tool_from_schema(name: &str, schema_json: Option<&[u8]>) -> Result<ToolBuf, ConfigError> {
    let mut params = Vec::new();
    let read = match schema_json {
        Some(text) => schema::scan(text, |f| match f {
            Found::Reset => params.clear(),
            Found::Property(p) => add_param(&mut params, p),
        }),
        None => Ok(()),
    };
    // Text that is not JSON, then an empty name, then a schema that is not an object.
    if read == Err(SchemaError::NotJson) {
        return Err(err("schema", SchemaError::NotJson.message()));
    }
    if name.is_empty() {
        return Err(err("tools", "a tool name must not be empty"));
    }
    read.map_err(|e| err("schema", e.message()))?;
    Ok(ToolBuf {
        name: name.into(),
        params,
    })
}

/// Adds a property; a later one of the same name replaces the earlier, in its place.
fn add_param(params: &mut Vec<ParamBuf>, p: Property<'_>) {
    let mut name = Vec::new();
    schema::decode(p.raw_name, |piece| name.extend_from_slice(piece));
    let name = String::from_utf8(name).unwrap_or_default();
    match params.iter_mut().find(|q| *q.name == *name) {
        Some(q) => {
            q.value_type = p.value_type;
            q.items = p.items;
        }
        None => params.push(ParamBuf {
            name: name.into(),
            value_type: p.value_type,
            items: p.items,
        }),
    }
}
