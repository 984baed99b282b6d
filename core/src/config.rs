//! Parser configuration, shared by every dialect.
//!
//! [`Config`] borrows everything it holds, so it works without a heap: a `no_std` host writes
//! it as a `static`. With `alloc`, [`ConfigBuf`] owns the same data and reads it from the JSON
//! `config` object of the conformance vectors (and of the CLI, C and Python bindings).

use core::fmt;

pub use crate::spec::{Description, Dialect, Shape, StrList};

/// What a call to a tool that is not configured becomes (docs/design.md, "Unknown tools").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum UnknownTools {
    /// A call like any other (the default).
    #[default]
    Call,
    /// The call completes with `error.reason = "unknown-tool"` and follows `on_malformed`.
    Fail,
}

/// Where the stream starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum StartIn {
    /// In text (the default).
    #[default]
    Text = 0,
    /// Inside thinking: the prompt template already opened the thinking tag.
    Thinking = 1,
}

impl StartIn {
    /// A dialect's starting context: `text` or `thinking`, as this says.
    pub(crate) fn pick<T>(self, text: T, thinking: T) -> T {
        match self {
            StartIn::Text => text,
            StartIn::Thinking => thinking,
        }
    }
}

/// What happens to the raw text of a call that could not be parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum OnMalformed {
    /// Also emit the raw text as a visible text block (the default).
    #[default]
    Text = 0,
    /// Only the failed tool_call block reports it.
    Drop = 1,
}

/// The JSON type a tool parameter is declared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum ValueType {
    /// No usable declaration: values are guessed (JSON when valid, else a string).
    #[default]
    Any = 0,
    /// `"type": "string"`.
    String = 1,
    /// `"type": "integer"`.
    Integer = 2,
    /// `"type": "number"`.
    Number = 3,
    /// `"type": "boolean"`.
    Boolean = 4,
    /// `"type": "array"`.
    Array = 5,
    /// `"type": "object"`.
    Object = 6,
    /// `"type": "null"`.
    Null = 7,
}

impl ValueType {
    /// Reads a JSON Schema `type` name; unknown names are [`ValueType::Any`].
    ///
    /// ```
    /// use tokensieve::ValueType;
    /// assert_eq!(ValueType::from_schema_name("integer"), ValueType::Integer);
    /// assert_eq!(ValueType::from_schema_name("date"), ValueType::Any);
    /// ```
    pub fn from_schema_name(name: &str) -> ValueType {
        match name {
            "string" => ValueType::String,
            "integer" => ValueType::Integer,
            "number" => ValueType::Number,
            "boolean" => ValueType::Boolean,
            "array" => ValueType::Array,
            "object" => ValueType::Object,
            "null" => ValueType::Null,
            _ => ValueType::Any,
        }
    }
}

/// One declared parameter of a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param<'a> {
    /// The parameter (property) name.
    pub name: &'a str,
    /// Its declared type.
    pub value_type: ValueType,
    /// For arrays: the declared type of the items.
    pub items: ValueType,
}

/// A tool the model may call: its name and the types of its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tool<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// Its declared parameters (from the JSON Schema's `properties`).
    pub params: &'a [Param<'a>],
}

/// The configured tools, borrowed from a slice of [`Tool`] or (with `alloc`) owned ones.
#[derive(Clone, Copy, Debug)]
pub enum ToolList<'a> {
    /// Borrowed tools (what a `no_std` host writes).
    Tools(&'a [Tool<'a>]),
    /// Owned tools (what [`ConfigBuf`] holds).
    #[cfg(feature = "alloc")]
    Owned(&'a [ToolBuf]),
}

impl<'a> ToolList<'a> {
    /// Number of tools.
    pub fn len(&self) -> usize {
        match self {
            ToolList::Tools(t) => t.len(),
            #[cfg(feature = "alloc")]
            ToolList::Owned(t) => t.len(),
        }
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The name of the `i`-th tool.
    pub fn name(&self, i: usize) -> Option<&'a str> {
        match self {
            ToolList::Tools(t) => t.get(i).map(|t| t.name),
            #[cfg(feature = "alloc")]
            ToolList::Owned(t) => t.get(i).map(|t| &*t.name),
        }
    }

    /// The index of the tool called `name`.
    pub fn find(&self, name: &[u8]) -> Option<usize> {
        (0..self.len()).find(|&i| self.name(i).is_some_and(|n| n.as_bytes() == name))
    }

    /// The declared `(type, items type)` of parameter `param` of the `tool`-th tool.
    pub fn param_type(&self, tool: usize, param: &[u8]) -> Option<(ValueType, ValueType)> {
        match self {
            ToolList::Tools(t) => t
                .get(tool)?
                .params
                .iter()
                .find(|p| p.name.as_bytes() == param)
                .map(|p| (p.value_type, p.items)),
            #[cfg(feature = "alloc")]
            ToolList::Owned(t) => t
                .get(tool)?
                .params
                .iter()
                .find(|p| p.name.as_bytes() == param)
                .map(|p| (p.value_type, p.items)),
        }
    }
}

impl<'a> From<&'a [Tool<'a>]> for ToolList<'a> {
    fn from(t: &'a [Tool<'a>]) -> Self {
        ToolList::Tools(t)
    }
}

/// An owned tool (with `alloc`): what [`ConfigBuf`] reads from `{name, schema}`.
#[cfg(feature = "alloc")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolBuf {
    /// The tool's name.
    pub name: alloc::boxed::Box<str>,
    /// Its declared parameters.
    pub params: alloc::vec::Vec<ParamBuf>,
}

/// An owned parameter declaration (with `alloc`).
#[cfg(feature = "alloc")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamBuf {
    /// The parameter name.
    pub name: alloc::boxed::Box<str>,
    /// Its declared type.
    pub value_type: ValueType,
    /// For arrays: the items' declared type.
    pub items: ValueType,
}

/// Longest accepted stop sequence, thinking marker or tool-call marker, in bytes.
pub const MAX_MARKER_LEN: usize = 64;
/// Longest accepted `id_prefix`, in bytes.
pub const MAX_ID_PREFIX_LEN: usize = 40;
/// Default `max_call_bytes`: 1 MiB.
pub const DEFAULT_MAX_CALL_BYTES: usize = 1 << 20;

/// The parser's configuration; borrowed, so it needs no heap.
///
/// ```
/// use tokensieve::{Config, Dialect};
/// const STOPS: &[&str] = &["\nHuman:"];
/// let config = Config { stop_sequences: STOPS.into(), ..Config::new(Dialect::Passthrough) };
/// assert_eq!(config.thinking_tags(), ("<thinking>", "</thinking>"));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Config<'a> {
    /// The wire format: a preset by name.
    pub dialect: Dialect,
    /// A host-written description of the wire format (docs/design.md, "Dialect
    /// descriptions"): when set, it replaces the preset — its shape picks the machine, its
    /// markers and names are the ones read — and `dialect` should name the shape's preset.
    pub description: Option<Description<'a>>,
    /// `[open, close]` thinking markers; `None` means the dialect's default.
    pub thinking_tags: Option<(&'a str, &'a str)>,
    /// hermes: `[open, close]` tool-call markers; `None` means `<tool_call>`/`</tool_call>`.
    pub tool_call_markers: Option<(&'a str, &'a str)>,
    /// Where the stream starts.
    pub start_in: StartIn,
    /// Stop sequences, matched in text blocks only.
    pub stop_sequences: StrList<'a>,
    /// Prefix of generated call ids (`call_` by default).
    pub id_prefix: &'a str,
    /// What to do with a failed call's raw text.
    pub on_malformed: OnMalformed,
    /// With `alloc`: how many bytes of one call may be held.
    pub max_call_bytes: usize,
    /// Tools with their parameter types.
    pub tools: ToolList<'a>,
    /// What a call to a tool not in `tools` becomes (with tools configured).
    pub unknown_tools: UnknownTools,
}

impl<'a> Config<'a> {
    /// The defaults for a dialect.
    pub const fn new(dialect: Dialect) -> Config<'static> {
        Config {
            dialect,
            description: None,
            thinking_tags: None,
            tool_call_markers: None,
            start_in: StartIn::Text,
            stop_sequences: StrList::Strs(&[]),
            id_prefix: "call_",
            on_malformed: OnMalformed::Text,
            max_call_bytes: DEFAULT_MAX_CALL_BYTES,
            tools: ToolList::Tools(&[]),
            unknown_tools: UnknownTools::Call,
        }
    }

    /// The thinking markers in force.
    pub fn thinking_tags(&self) -> (&'a str, &'a str) {
        self.thinking_tags
            .unwrap_or_else(|| match self.description {
                Some(d) => d.thinking_tags,
                None => self.dialect.default_thinking_tags(),
            })
    }

    /// The preset whose machine parses this configuration: the description's shape's, when
    /// there is a description.
    pub fn machine(&self) -> Dialect {
        match self.description {
            Some(d) => d.shape.preset(),
            None => self.dialect,
        }
    }

    /// The description in force: the host's, else the preset's (`None` for the dialects that
    /// are machines of their own).
    pub fn description(&self) -> Option<Description<'a>> {
        self.description.or(Description::preset(self.dialect))
    }

    /// Checks the values a parser relies on.
    ///
    /// ```
    /// use tokensieve::{Config, Dialect};
    /// let bad = Config { stop_sequences: (&[""][..]).into(), ..Config::new(Dialect::Passthrough) };
    /// assert!(bad.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !self.dialect.is_supported() {
            return Err(ConfigError::new(
                "dialect",
                "is not supported by this build yet",
            ));
        }
        let (open, close) = self.thinking_tags();
        for m in [open, close] {
            if m.is_empty() || m.len() > MAX_MARKER_LEN {
                return Err(ConfigError::new(
                    "thinking_tags",
                    "markers must be 1 to 64 bytes long",
                ));
            }
        }
        if let Some(d) = &self.description {
            validate_description(d)?;
        }
        if let Some((open, close)) = self.tool_call_markers {
            if self.machine() != Dialect::Hermes {
                return Err(ConfigError::new(
                    "tool_call_markers",
                    "applies to hermes only",
                ));
            }
            for m in [open, close] {
                if m.is_empty() || m.len() > MAX_MARKER_LEN {
                    return Err(ConfigError::new(
                        "tool_call_markers",
                        "markers must be 1 to 64 bytes long",
                    ));
                }
            }
        }
        for s in self.stop_sequences.iter() {
            if s.is_empty() || s.len() > MAX_MARKER_LEN {
                return Err(ConfigError::new(
                    "stop_sequences",
                    "each stop sequence must be 1 to 64 bytes long",
                ));
            }
        }
        if self.id_prefix.len() > MAX_ID_PREFIX_LEN {
            return Err(ConfigError::new(
                "id_prefix",
                "must be at most 40 bytes long",
            ));
        }
        if self.max_call_bytes < 64 || self.max_call_bytes > (1 << 28) - 1 {
            return Err(ConfigError::new(
                "max_call_bytes",
                "must be at least 64 and below 256 MiB",
            ));
        }
        if self.unknown_tools == UnknownTools::Fail && self.tools.is_empty() {
            return Err(ConfigError::new(
                "unknown_tools",
                "\"fail\" needs the tools it may call (tools)",
            ));
        }
        if self.dialect == Dialect::MorphXml && self.tools.is_empty() {
            return Err(ConfigError::new(
                "tools",
                "morph-xml needs at least one tool",
            ));
        }
        Ok(())
    }
}

/// The error for an unknown dialect name: every name (a test checks it lists them all).
pub(crate) const DIALECT_NAMES_MESSAGE: &str = "must be one of anthropic-xml, hermes, morph-xml, qwen3-coder, minimax-m2, glm-4.5, harmony, kimi-k2, deepseek-v3.1, deepseek-v3, mistral, llama3-json, pythonic, passthrough, deepseek-v3.2, deepseek-v4, seed-oss, olmo-3, lfm2, cohere-command, apertus, granite, phi-4-mini, xlam, gemma-4, functiongemma, glm-4.7, glm-5 (or a description object)";

/// Checks a host's dialect description (the errors name `dialect.<field>`).
fn validate_description(d: &Description<'_>) -> Result<(), ConfigError> {
    let pair = |key: &'static str, (open, close): (&str, &str)| {
        if [open, close]
            .iter()
            .any(|m| m.is_empty() || m.len() > MAX_MARKER_LEN)
        {
            return Err(ConfigError::new(key, "markers must be 1 to 64 bytes long"));
        }
        if open.starts_with(close) || close.starts_with(open) {
            return Err(ConfigError::new(
                key,
                "the opener and the closer must differ, and neither may begin the other",
            ));
        }
        Ok(())
    };
    if d.shape == Shape::JsonCall && d.wrapper.1.is_empty() {
        // No closer: the JSON value's end ends the call.
        if d.wrapper.0.is_empty() || d.wrapper.0.len() > MAX_MARKER_LEN {
            return Err(ConfigError::new(
                "dialect.wrapper",
                "markers must be 1 to 64 bytes long (a json-call closer may be empty)",
            ));
        }
    } else {
        pair("dialect.wrapper", d.wrapper)?;
    }
    pair("dialect.thinking_tags", d.thinking_tags)?;
    let thinking = [d.thinking_tags.0, d.thinking_tags.1];
    if thinking.contains(&d.wrapper.0) || thinking.contains(&d.wrapper.1) {
        return Err(ConfigError::new(
            "dialect.wrapper",
            "must differ from the thinking markers",
        ));
    }
    match d.shape {
        Shape::JsonCall => {
            if let Some(m) = d.markup {
                pair("dialect.markup", m)?;
                let taken = [d.wrapper.0, d.wrapper.1, thinking[0], thinking[1]];
                if taken.contains(&m.0) || taken.contains(&m.1) {
                    return Err(ConfigError::new(
                        "dialect.markup",
                        "must differ from the wrapper and the thinking markers",
                    ));
                }
            }
            validate_more_markup(d)?;
            if let Some(r) = d.result_wrapper {
                pair("dialect.result_wrapper", r)?;
                if r.0 == d.wrapper.0 || thinking.contains(&r.0) {
                    return Err(ConfigError::new(
                        "dialect.result_wrapper",
                        "its opener must differ from the call's and the thinking opener",
                    ));
                }
            }
            for (key, list) in [
                ("dialect.name_keys", d.name_keys),
                ("dialect.argument_keys", d.argument_keys),
            ] {
                if list.is_empty() || list.len() > 4 {
                    return Err(ConfigError::new(key, "must list 1 to 4 keys"));
                }
                if list
                    .iter()
                    .any(|k| k.is_empty() || k.len() > crate::spec::MAX_KEY_LEN)
                {
                    return Err(ConfigError::new(key, "each key must be 1 to 10 bytes long"));
                }
            }
            if d.name_keys
                .iter()
                .any(|k| d.argument_keys.contains(k.as_bytes()))
            {
                return Err(ConfigError::new(
                    "dialect.argument_keys",
                    "must not repeat a name key",
                ));
            }
        }
        Shape::Invoke => validate_invoke(d)?,
        Shape::Pythonic => {
            if d.result_wrapper.is_some() || d.markup.is_some() {
                return Err(ConfigError::new(
                    if d.markup.is_some() {
                        "dialect.markup"
                    } else {
                        "dialect.result_wrapper"
                    },
                    "applies to the json-call shape only",
                ));
            }
        }
        Shape::XmlParams => {
            if closing_tag_name(d.wrapper.1).is_none() {
                return Err(ConfigError::new(
                    "dialect.wrapper",
                    "an xml-params closer must be a closing tag </name>",
                ));
            }
            if d.result_wrapper.is_some() {
                return Err(ConfigError::new(
                    "dialect.result_wrapper",
                    "applies to the json-call shape only",
                ));
            }
            if d.markup.is_some() {
                return Err(ConfigError::new(
                    "dialect.markup",
                    "applies to the json-call shape only",
                ));
            }
        }
    }
    if d.shape != Shape::JsonCall && d.bare_array {
        return Err(ConfigError::new(
            "dialect.bare_array",
            "applies to the json-call shape only",
        ));
    }
    if d.shape != Shape::JsonCall && d.name_as_key {
        return Err(ConfigError::new(
            "dialect.name_as_key",
            "applies to the json-call shape only",
        ));
    }
    if d.shape != Shape::JsonCall && !d.more_markup.is_empty() {
        return Err(ConfigError::new(
            "dialect.more_markup",
            "applies to the json-call shape only",
        ));
    }
    Ok(())
}

/// A json-call description's further markup markers: one more pair at most, with a `markup`
/// pair, without a result wrapper (the text context holds eight markers), each unlike the
/// other markers.
fn validate_more_markup(d: &Description<'_>) -> Result<(), ConfigError> {
    const KEY: &str = "dialect.more_markup";
    let more = d.more_markup;
    if more.is_empty() {
        return Ok(());
    }
    if more.len() != 2 || d.markup.is_none() || d.result_wrapper.is_some() {
        return Err(ConfigError::new(
            KEY,
            "is one more pair of markers, with a markup pair and no result_wrapper",
        ));
    }
    let (m0, m1) = d.markup.unwrap_or(("", ""));
    let taken = [
        d.wrapper.0,
        d.wrapper.1,
        d.thinking_tags.0,
        d.thinking_tags.1,
        m0,
        m1,
    ];
    for m in more.iter() {
        if m.is_empty() || m.len() > MAX_MARKER_LEN {
            return Err(ConfigError::new(KEY, "markers must be 1 to 64 bytes long"));
        }
        if taken.contains(&m) {
            return Err(ConfigError::new(
                KEY,
                "must differ from the wrapper, thinking and markup markers",
            ));
        }
    }
    if more.get(0) == more.get(1) {
        return Err(ConfigError::new(
            KEY,
            "the opener and the closer must differ",
        ));
    }
    Ok(())
}

/// The invoke shape's fields: three distinct element names, short prefixes that cannot be
/// read as part of a tag's syntax, an attribute name.
fn validate_invoke(d: &Description<'_>) -> Result<(), ConfigError> {
    let element = is_element_name;
    if d.elements.len() != 3 || !d.elements.iter().all(|n| n.len() <= 48 && element(n)) {
        return Err(ConfigError::new(
            "dialect.elements",
            "must name three elements [region, call, parameter]: a letter or _, then letters, digits, _ - . : (at most 48 bytes)",
        ));
    }
    let e: [&str; 3] = core::array::from_fn(|i| d.elements.get(i).unwrap_or_default());
    if e[0] == e[1] || e[1] == e[2] || e[0] == e[2] {
        return Err(ConfigError::new(
            "dialect.elements",
            "must be three different names",
        ));
    }
    if d.tag_prefixes.len() > 4
        || d.tag_prefixes.iter().any(|p| {
            p.is_empty()
                || p.len() > 16
                || p.bytes().any(|b| {
                    matches!(
                        b,
                        b'<' | b'>' | b'/' | b'=' | b'"' | b'\'' | b' ' | b'\t' | b'\n' | b'\r'
                    )
                })
        })
    {
        return Err(ConfigError::new(
            "dialect.tag_prefixes",
            "must list at most 4 prefixes of 1 to 16 bytes, without < > / = quotes or whitespace",
        ));
    }
    if let Some(a) = d.string_attribute {
        if a.is_empty() || a == "name" || !element(a) || a.len() > 32 {
            return Err(ConfigError::new(
                "dialect.string_attribute",
                "must be an attribute name other than `name` (a letter or _, then letters, digits, _ - . :)",
            ));
        }
    }
    // Without a prefix the region's opener must not be the thinking opener.
    let think = crate::dialect::element_name(d.thinking_tags.0, d.thinking_tags.1);
    if d.tag_prefixes.is_empty() && think.is_some_and(|t| e.iter().any(|n| n.as_bytes() == t)) {
        return Err(ConfigError::new(
            "dialect.elements",
            "must differ from the thinking element",
        ));
    }
    Ok(())
}

/// `name` of a closing tag `</name>` (letters, digits, `_`, `-`, `.`, `:`), if it is one.
pub(crate) fn closing_tag_name(closer: &str) -> Option<&str> {
    let name = closer.strip_prefix("</")?.strip_suffix('>')?;
    is_element_name(name).then_some(name)
}

/// An element name: a letter or `_`, then letters, digits, `_`, `-`, `.`, `:`.
fn is_element_name(name: &str) -> bool {
    name.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
}

/// A rejected configuration: which key, and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    key: KeyName,
    message: &'static str,
}

#[cfg(feature = "alloc")]
type KeyName = alloc::string::String;
#[cfg(not(feature = "alloc"))]
type KeyName = &'static str;

impl ConfigError {
    pub(crate) fn new(key: &'static str, message: &'static str) -> ConfigError {
        // Owned with `alloc` (keys read from JSON are not 'static); borrowed without.
        #[cfg(feature = "alloc")]
        let key = key.into();
        ConfigError { key, message }
    }

    /// The config key at fault.
    pub fn key(&self) -> &str {
        #[cfg(feature = "alloc")]
        return self.key.as_str();
        #[cfg(not(feature = "alloc"))]
        return self.key;
    }

    /// What is wrong with it.
    pub fn message(&self) -> &'static str {
        self.message
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "config key `{}`: {}", self.key, self.message)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ConfigError {}

#[cfg(feature = "alloc")]
pub use owned::{ConfigBuf, DescriptionBuf};

#[cfg(feature = "alloc")]
mod owned {
    use super::*;
    use crate::json::schema::{self, Found, Property, SchemaError};
    use alloc::borrow::ToOwned;
    use alloc::boxed::Box;
    use alloc::string::{String, ToString};
    use alloc::vec::Vec;
    use serde_json::Value;

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
            }
        }

        /// Reads a description object: `shape` is required; every other field defaults to
        /// the shape's preset (hermes for json-call, qwen3-coder for xml-params, minimax-m2
        /// for invoke).
        fn from_value(v: &Value) -> Result<DescriptionBuf, ConfigError> {
            let obj = v
                .as_object()
                .ok_or_else(|| err("dialect", "must be a dialect name or a description object"))?;
            let shape = match obj.get("shape") {
                Some(Value::String(s)) => Shape::from_name(s).ok_or_else(|| {
                    err(
                        "dialect.shape",
                        "must be one of json-call, xml-params, invoke",
                    )
                })?,
                Some(_) => return Err(err("dialect.shape", "must be a string")),
                None => return Err(err("dialect.shape", "is required in a description")),
            };
            let preset = Description::preset(shape.preset()).expect("a shape's preset has one");
            let mut d = DescriptionBuf::from_description(&preset);
            let keys = |key: &str, v: &Value| -> Result<Vec<Box<str>>, ConfigError> {
                v.as_array()
                    .and_then(|l| l.iter().map(|k| k.as_str().map(Box::from)).collect())
                    .ok_or_else(|| err(key, "must be a list of strings"))
            };
            for (key, value) in obj {
                let full = alloc::format!("dialect.{key}");
                match key.as_str() {
                    "shape" => {}
                    "wrapper" | "result_wrapper" | "markup" | "name_keys" | "argument_keys"
                    | "more_markup" | "name_as_key" | "bare_array"
                        if shape == Shape::Invoke =>
                    {
                        return Err(err(&full, "is not a field of the invoke shape"));
                    }
                    "elements" | "tag_prefixes" | "string_attribute" if shape != Shape::Invoke => {
                        return Err(err(&full, "is a field of the invoke shape only"));
                    }
                    "wrapper" => d.wrapper = marker_pair(&full, value)?,
                    "result_wrapper" if value.is_null() => d.result_wrapper = None,
                    "result_wrapper" => d.result_wrapper = Some(marker_pair(&full, value)?),
                    "markup" if value.is_null() => d.markup = None,
                    // One pair, or a list of pairs (the first is `markup`, the rest
                    // `more_markup`).
                    "markup" if value.get(0).is_some_and(Value::is_array) => {
                        let pairs = value.as_array().map_or(&[][..], Vec::as_slice);
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

    fn marker_pair(key: &str, v: &Value) -> Result<(Box<str>, Box<str>), ConfigError> {
        match v.as_array().map(Vec::as_slice) {
            Some([Value::String(a), Value::String(b)]) => {
                Ok((a.as_str().into(), b.as_str().into()))
            }
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
            let v: Value =
                serde_json::from_str(text).map_err(|_| err("(config)", "is not valid JSON"))?;
            ConfigBuf::from_value(&v)
        }

        /// Reads a config from a parsed JSON object.
        pub fn from_value(v: &Value) -> Result<ConfigBuf, ConfigError> {
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
                    "thinking_tags" => buf.thinking_tags = Some(marker_pair(key, value)?),
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

    fn read_tool(t: &Value) -> Result<ToolBuf, ConfigError> {
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
            // Schemas may arrive as JSON text; an object is read as its JSON text too (one
            // reader for both, and for the C ABI).
            Some(Value::String(s)) => tool_from_schema(name, Some(s.as_bytes())),
            Some(v) => tool_from_schema(name, Some(v.to_string().as_bytes())),
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unknown_dialect_error_lists_every_name() {
        for d in Dialect::ALL {
            let listed = DIALECT_NAMES_MESSAGE
                .split([' ', ','])
                .any(|w| w == d.name());
            assert!(listed, "{} is missing from DIALECT_NAMES_MESSAGE", d.name());
        }
    }
}
