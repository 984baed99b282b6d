//! Writing the assistant's past tool calls in a dialect's wire format, and the stop sequences
//! a host sets for a dialect.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use crate::config::{Config, ValueType};
use crate::json::strict::{self, Kind};
use crate::spec::{Description, Dialect, Shape};

use super::tool_results::push_unmarked;

/// One tool call to write, as the host stored it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolCallIn<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// The call id, when the host has one (written only where the format carries ids).
    pub id: Option<&'a str>,
    /// The arguments: JSON text of an object. Numbers are written as spelled here.
    pub arguments: &'a str,
}

/// What was wrong with a call [`format_tool_calls`] was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormatErrorKind {
    /// The arguments are not valid JSON: where (a byte offset into them) and why.
    InvalidJson {
        /// Byte offset into the arguments.
        offset: usize,
        /// Why.
        reason: &'static str,
    },
    /// The arguments are valid JSON but not an object.
    NotAnObject,
    /// The name cannot be carried by the format (why).
    BadName(&'static str),
    /// A top-level argument key cannot be carried by the format (the key, why).
    BadKey(String, &'static str),
    /// The dialect writes no tool calls (passthrough).
    NoToolCalls,
    /// [`format_tool_definitions`](super::format_tool_definitions): the tool's schema is not
    /// valid JSON: where (a byte offset into it) and why.
    InvalidSchema {
        /// Byte offset into the schema.
        offset: usize,
        /// Why.
        reason: &'static str,
    },
    /// [`format_tool_definitions`](super::format_tool_definitions): the schema is valid JSON
    /// but not an object.
    SchemaNotAnObject,
    /// [`format_tool_definitions`](super::format_tool_definitions): the tool's name cannot be
    /// written (why).
    BadToolName(&'static str),
}

/// Why [`format_tool_calls`] could not write the calls (or
/// [`format_tool_definitions`](super::format_tool_definitions) the tools): the index of the
/// call (tool) and what was wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    /// Index of the offending call (tool) in the slice given.
    pub call: usize,
    /// What was wrong.
    pub kind: FormatErrorKind,
}

impl fmt::Display for FormatError {
    /// ```
    /// use tokensieve::{Config, Dialect};
    /// use tokensieve::format::{format_tool_calls, ToolCallIn};
    /// let err = format_tool_calls(&Config::new(Dialect::Hermes),
    ///     &[ToolCallIn { name: "f", id: None, arguments: "[1]" }]).unwrap_err();
    /// assert_eq!(err.to_string(), "call 0: arguments are not a JSON object");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            FormatErrorKind::InvalidSchema { .. }
            | FormatErrorKind::SchemaNotAnObject
            | FormatErrorKind::BadToolName(_) => "tool",
            _ => "call",
        };
        write!(f, "{what} {}: ", self.call)?;
        match &self.kind {
            FormatErrorKind::InvalidJson { offset, reason } => {
                write!(f, "arguments are not JSON: {reason} at byte {offset}")
            }
            FormatErrorKind::NotAnObject => f.write_str("arguments are not a JSON object"),
            FormatErrorKind::BadName(why) => write!(f, "the name cannot be written: {why}"),
            FormatErrorKind::BadKey(k, why) => {
                write!(f, "argument key {k:?} cannot be written: {why}")
            }
            FormatErrorKind::NoToolCalls => f.write_str("the dialect writes no tool calls"),
            FormatErrorKind::InvalidSchema { offset, reason } => {
                write!(f, "the schema is not JSON: {reason} at byte {offset}")
            }
            FormatErrorKind::SchemaNotAnObject => f.write_str("the schema is not a JSON object"),
            FormatErrorKind::BadToolName(why) => write!(f, "the name cannot be written: {why}"),
        }
    }
}

impl core::error::Error for FormatError {}

// --- the formats -------------------------------------------------------------------------------

/// Markers of the special-token formats that a JSON string must not spell.
const HARMONY_MARKERS: &[&str] = &["<|"];
const KIMI_MARKERS: &[&str] = &["<|"];
const DEEPSEEK_MARKERS: &[&str] = &["<｜"];
const MISTRAL_MARKERS: &[&str] = &["[TOOL_CALLS]", "[ARGS]", "[CALL_ID]", "[/", "[INST]"];
const LLAMA3_MARKERS: &[&str] = &["<|"];

/// Writes the assistant's tool calls as the model writes them (what the family's chat
/// template renders for an assistant message with `tool_calls`), so a host that builds the
/// prompt itself replays a conversation in the form the model was trained on — and that the
/// parser reads back as the same calls.
///
/// The configuration gives the format: its description when the host wrote one (the shapes
/// json-call, xml-params, invoke and pythonic are written from the description's markers),
/// else the preset; and its `tools`, whose parameter types decide how the XML-parameter
/// formats write values (as the parser types them).
///
/// | dialect | the calls |
/// | --- | --- |
/// | anthropic-xml | `<function_calls>\n<invoke name="N">\n<parameter name="K">V</parameter>\n…</invoke>\n</function_calls>` |
/// | minimax-m2 | the same in `<minimax:tool_call>` (its template's layout) |
/// | minimax-m3 | `]<]minimax[>[<tool_call>\n`, per call `]<]minimax[>[<invoke name="N">` then `]<]minimax[>[<K>V]<]minimax[>[</K>` per argument and `]<]minimax[>[</invoke>\n`, then `]<]minimax[>[</tool_call>` (strings raw, the rest as JSON text) |
/// | deepseek-v3.2, deepseek-v4 | DSML: `<｜DSML｜function_calls>` / `<｜DSML｜tool_calls>`, `<｜DSML｜parameter name="K" string="true">` for a string written raw, `string="false"` and JSON otherwise |
/// | qwen3-coder | `<tool_call>\n<function=N>\n<parameter=K>\nV\n</parameter>\n</function>\n</tool_call>` per call, a line between calls |
/// | seed-oss | the same in `<seed:tool_call>`, values without the framing line feeds |
/// | glm-4.5 | `<tool_call>N\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>\n</tool_call>` per call, a line between |
/// | morph-xml | `<N><K>V</K></N>` (entities escaped); the tool must be configured |
/// | hermes | `<tool_call>\n{"name": "N", "arguments": {…}}\n</tool_call>` per call, a line between |
/// | cohere-command | `<\|START_ACTION\|>[\n    {"tool_call_id": "0", "tool_name": "N", "parameters": {…}}\n]<\|END_ACTION\|>` |
/// | granite | `<\|tool_call\|>[{"name": "N", "arguments": {…}}]` |
/// | phi-4-mini | `functools[{"name": "N", "arguments": {…}}]` |
/// | apertus | `<\|tools_prefix\|>[{"N": {…}}]<\|tools_suffix\|>` |
/// | xlam | `[{"name": "N", "arguments": {…}}]` |
/// | inkling | `<\|message_model\|>N<\|content_invoke_tool_json\|>{"name":"N","args":{…}}<\|end_message\|>` per call (keys sorted, compact), then `<\|content_model_end_sampling\|>` |
/// | minicpm5 | `<function name="N">` holding `<param name="K">V</param>`, calls a line apart, no region (strings holding a closer in CDATA) |
/// | hunyuan | `<tool_calls>` then per call `<tool_call>N<tool_sep>` and `<arg_key>K</arg_key>\n<arg_value>V</arg_value>` lines, `</tool_call>`, then `</tool_calls>` |
/// | step-3 | `<｜tool_calls_begin｜>` then per call `<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="N">…</steptml:invoke><｜tool_call_end｜>`, then `<｜tool_calls_end｜>` |
/// | harmony | `<\|start\|>assistant to=functions.N<\|channel\|>commentary json<\|message\|>{…}<\|call\|>` per call |
/// | kimi-k2 | `<\|tool_calls_section_begin\|><\|tool_call_begin\|>functions.N:I<\|tool_call_argument_begin\|>{…}<\|tool_call_end\|>…<\|tool_calls_section_end\|>` |
/// | deepseek-v3.1 | `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>N<｜tool▁sep｜>{…}<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>` |
/// | deepseek-v3 | `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>N\n```json\n{…}\n```<｜tool▁call▁end｜>` (a line between calls) `<｜tool▁calls▁end｜>` |
/// | mistral | `[TOOL_CALLS]N[CALL_ID]ID[ARGS]{…}` per call (`[CALL_ID]ID` only with an id) |
/// | llama3-json | `{"name": "N", "parameters": {…}}`, several joined by `; ` |
/// | pythonic | `[N(k="v", n=1, ok=True, x=None)]` |
/// | lfm2 | the list in `<\|tool_call_start\|>…<\|tool_call_end\|>` |
/// | olmo-3 | `<function_calls>\nN(k="v")\n…\n</function_calls>` |
/// | gemma-4 | `<\|tool_call>call:N{k:<\|"\|>v<\|"\|>,n:1}<tool_call\|>` per call |
/// | functiongemma | `<start_function_call>call:N{k:<escape>v<escape>}<end_function_call>` per call |
/// | kimi-k3 | `<\|open\|>tools<\|sep\|>`, per call `<\|open\|>call tool="N" index="I"<\|sep\|>` (`I` from 1) holding `<\|open\|>argument key="K" type="T"<\|sep\|>V<\|close\|>argument<\|sep\|>` and `<\|close\|>call<\|sep\|>`, then `<\|close\|>tools<\|sep\|>`: a string raw (`type="string"`), other values JSON typed `number`, `boolean`, `null`, `object`, `array` |
/// | passthrough | no calls: an error (an empty list writes nothing) |
///
/// JSON is written as Jinja's `tojson` does (`", "`, `": "`), numbers as given. Ids are
/// written only where the format carries them: mistral (`[CALL_ID]`), kimi-k2 (the header:
/// an id that names the tool, `functions.N:I`, is kept, any other is replaced by
/// `functions.N:I` with `I` the call's index), cohere-command (`tool_call_id`, ignored by the
/// parser).
///
/// XML-parameter formats (anthropic-xml, qwen3-coder, seed-oss, glm-4.5, minimax-m2,
/// morph-xml, DSML) write a string value raw when the parser reads it back as that string —
/// the tool's schema declares it `string`, or the untyped guess keeps it a string — and every
/// other value as JSON; a string with a line feed at either end gets one more at each end
/// (one framing line feed is dropped there). Without a schema a value is guessed back: a
/// string that would be read as something else (`"42"`, `"true"`, `" padded "`) is written
/// as a JSON string; an integer of 16 or more digits is read back as a string (declare it
/// `integer` or `number`).
///
/// Guards: content cannot end a call early. In JSON (and Python) strings the first character
/// of any of the format's markers is written as an escape (`\u003c|call|>`): the same value.
/// A JSON value inside an XML parameter writes every `<` in its strings as `\u003c`.
/// anthropic-xml writes a string that cannot stand raw in CDATA (`]]>` split across two
/// sections): exact. A raw string value that holds its element's closer (`</parameter>`,
/// `</arg_value>`, for xml-params also `</function>` and the wrapper's closer) cannot be
/// written exactly in the other XML formats where the schema types it `string` (no escaping
/// is decoded there): a U+2060 WORD JOINER is written after its `<` — untyped, it is written
/// as a JSON string instead (exact), and DSML writes it `string="false"` (exact); morph-xml
/// escapes entities (exact).
/// Gemma's strings have no escapes either: a string delimiter or call closer inside one
/// gets the U+2060 after its first character. kimi-k3 writes a string holding one of its
/// markers as a JSON string typed `json` (every type but `string` is read as JSON: exact),
/// and refuses a name or key that spells a special token (`<|`).
///
/// ```
/// use tokensieve::{Config, Dialect};
/// use tokensieve::format::{format_tool_calls, parse_tool_calls, ToolCallIn};
/// let calls = [ToolCallIn { name: "get_weather", id: None, arguments: r#"{"city": "Paris", "days": 3}"# }];
/// let text = format_tool_calls(&Config::new(Dialect::Hermes), &calls).unwrap();
/// assert_eq!(text, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}\n</tool_call>");
/// let back = parse_tool_calls(&Config::new(Dialect::Hermes), text.as_bytes()).unwrap();
/// assert_eq!(back[0].input, r#"{"city":"Paris","days":3}"#);
///
/// let qwen = format_tool_calls(&Config::new(Dialect::Qwen3Coder), &calls).unwrap();
/// assert_eq!(qwen, "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n\
///                   <parameter=days>\n3\n</parameter>\n</function>\n</tool_call>");
///
/// let py = format_tool_calls(&Config::new(Dialect::Pythonic),
///     &[ToolCallIn { name: "f", id: None, arguments: r#"{"ok": true, "x": null}"# }]).unwrap();
/// assert_eq!(py, "[f(ok=True, x=None)]");
/// ```
pub fn format_tool_calls(
    config: &Config<'_>,
    calls: &[ToolCallIn<'_>],
) -> Result<String, FormatError> {
    let mut parsed = Vec::with_capacity(calls.len());
    for (i, c) in calls.iter().enumerate() {
        parsed.push(read_arguments(i, c.arguments)?);
    }
    let mut w = Writer {
        config,
        out: String::new(),
    };
    if calls.is_empty() {
        return Ok(String::new());
    }
    let (description, preset) = match config.description {
        Some(d) => (Some(d), None),
        None => (Description::preset(config.dialect), Some(config.dialect)),
    };
    match description {
        Some(mut d) => {
            // The `tool_call_markers` override replaces the wrapper, as the parser reads it.
            if let Some(m) = config.tool_call_markers
                && matches!(d.shape, Shape::JsonCall | Shape::XmlParams)
            {
                d.wrapper = m;
            }
            w.shape(&d, preset, calls, &parsed)?
        }
        None => w.machine(config.dialect, calls, &parsed)?,
    }
    Ok(w.out)
}

type Args<'a> = Vec<(String, J<'a>)>;

struct Writer<'c, 'a> {
    config: &'c Config<'a>,
    out: String,
}

fn name_err(call: usize, why: &'static str) -> FormatError {
    FormatError {
        call,
        kind: FormatErrorKind::BadName(why),
    }
}

fn key_err(call: usize, key: &str, why: &'static str) -> FormatError {
    FormatError {
        call,
        kind: FormatErrorKind::BadKey(key.to_string(), why),
    }
}

/// The declared type of parameter `key` of tool `name` (how the parser types its value).
fn param_type(config: &Config<'_>, name: &str, key: &str) -> ValueType {
    config
        .tools
        .find(name.as_bytes())
        .and_then(|t| config.tools.param_type(t, key.as_bytes()))
        .map_or(ValueType::Any, |(t, _)| t)
}

pub(super) mod args;
mod checks;
mod families;
mod shapes;
mod stops;
#[cfg(test)]
mod tests;
mod values;

use args::*;
pub(in crate::format) use args::{J, Reader};
use checks::*;
pub use stops::{participant_stops, stop_sequences_for};
use values::*;
