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
/// Most pairs of other thinking-marker spellings ([`Config::thinking_alternates`]).
pub const MAX_THINKING_ALTERNATES: usize = 2;
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
    /// Other spellings of the thinking markers, flattened `[open, close, open, close]` (at
    /// most [`MAX_THINKING_ALTERNATES`] pairs): each opens and closes thinking as the markers
    /// in force do, and a dialect sees one marker however it was spelled (docs/design.md,
    /// "Thinking that yields to tool calls").
    ///
    /// ```
    /// use tokensieve::{Config, Dialect, Sieve};
    /// const ALT: &[&str] = &["<thinking>", "</thinking>"];
    /// let config = Config { thinking_alternates: ALT.into(), ..Config::new(Dialect::Hermes) };
    /// let mut sieve = Sieve::new(&config).unwrap();
    /// let mut input = &b"<thinking>hm</thinking>Hi"[..];
    /// let mut kinds = Vec::new();
    /// while let Some(ev) = sieve.next(&mut input) {
    ///     if let tokensieve::Event::Chunk(c) = ev {
    ///         kinds.push(c.block_type);
    ///     }
    /// }
    /// assert_eq!(kinds, [tokensieve::BlockType::Thinking, tokensieve::BlockType::Text]);
    /// ```
    pub thinking_alternates: StrList<'a>,
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
            thinking_alternates: StrList::Strs(&[]),
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
        validate::thinking_alternates(open, close, self.thinking_alternates)?;
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
#[cfg_attr(not(feature = "alloc"), allow(dead_code))]
pub(crate) const DIALECT_NAMES_MESSAGE: &str = "must be one of anthropic-xml, hermes, morph-xml, qwen3-coder, minimax-m2, glm-4.5, harmony, kimi-k2, deepseek-v3.1, deepseek-v3, mistral, llama3-json, pythonic, passthrough, deepseek-v3.2, deepseek-v4, seed-oss, olmo-3, lfm2, cohere-command, apertus, granite, phi-4-mini, xlam, gemma-4, functiongemma, minicpm5, step-3, hunyuan, minimax-m3, inkling, kimi-k3, glm-4.7, glm-5 (or a description object)";

mod validate;
pub(crate) use validate::closing_tag_name;
use validate::validate_description;

mod settings;
pub(crate) use settings::{Cfg, Settings};

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
mod owned;

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
