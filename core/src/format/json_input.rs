//! The JSON input forms of the writers, read once here for every binding (the CLI's
//! `tokensieve format`, the C ABI, Python, PHP, JS): calls `[{"name", "id"?, "input": {…}}]`,
//! results `[{"tool_use_id"?, "name"?, "content", "is_error"?}]`.
//!
//! The text is checked by the strict validator and read by the writers' own reader, so an
//! `input` object keeps its numbers exactly as written (`1.0e5`, 30-digit integers). Keys
//! other than the listed ones are ignored; `null` counts as absent.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::config::{Config, Dialect};
use crate::json::strict::{self, Kind};

use super::tool_calls::{FormatError, J, Reader, ToolCallIn, format_tool_calls};
use super::tool_results::{ToolResult, format_tool_results};

/// Why [`format_tool_calls_json`] or [`format_tool_results_json`] wrote nothing: the JSON
/// array was not of the expected form, or a call in it cannot be written.
///
/// ```
/// use tokensieve::{Config, Dialect};
/// use tokensieve::format::format_tool_calls_json;
/// let c = Config::new(Dialect::Hermes);
/// let e = |text| format_tool_calls_json(&c, text).unwrap_err().to_string();
/// assert_eq!(e("[{\"name\": \"f\""), "not JSON: unexpected end of input at byte 13");
/// assert_eq!(e("{}"), "not a JSON array");
/// assert_eq!(e(r#"[{"input": {}}]"#), r#"[0]: no "name" string"#);
/// assert_eq!(e(r#"[{"name": "f", "input": [1]}]"#), r#"[0]: "input" is not an object"#);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JsonInputError {
    /// The text is not valid JSON: a byte offset into it and why.
    InvalidJson {
        /// Byte offset into the text.
        offset: usize,
        /// Why.
        reason: &'static str,
    },
    /// The text is JSON but not an array.
    NotAnArray,
    /// Item `index` of the array is not of the form: what is wrong with it.
    Item {
        /// Its index in the array.
        index: usize,
        /// What is wrong (`no "name" string`, `"input" is not an object`, …).
        what: &'static str,
    },
    /// The calls were read but one cannot be written in the dialect.
    Format(FormatError),
}

impl fmt::Display for JsonInputError {
    /// ```
    /// use tokensieve::{Config, Dialect};
    /// use tokensieve::format::format_tool_calls_json;
    /// let e = format_tool_calls_json(&Config::new(Dialect::Passthrough),
    ///     r#"[{"name": "f", "input": {}}]"#).unwrap_err();
    /// assert_eq!(e.to_string(), "call 0: the dialect writes no tool calls");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonInputError::InvalidJson { offset, reason } => {
                write!(f, "not JSON: {reason} at byte {offset}")
            }
            JsonInputError::NotAnArray => f.write_str("not a JSON array"),
            JsonInputError::Item { index, what } => write!(f, "[{index}]: {what}"),
            JsonInputError::Format(e) => e.fmt(f),
        }
    }
}

impl core::error::Error for JsonInputError {}

type Members<'a> = Vec<(String, J<'a>, &'a str)>;

/// The members of each object of a JSON array (checked, read), each value with its text.
fn objects(text: &str) -> Result<Vec<Members<'_>>, JsonInputError> {
    match strict::validate(text.as_bytes()) {
        Ok(Kind::Array) => {}
        Ok(_) => return Err(JsonInputError::NotAnArray),
        Err(e) => {
            return Err(JsonInputError::InvalidJson {
                offset: e.offset,
                reason: e.reason,
            });
        }
    }
    let items = Reader::items(text);
    let mut out = Vec::with_capacity(items.len());
    for (index, item) in items.into_iter().enumerate() {
        if !item.starts_with('{') {
            return Err(JsonInputError::Item {
                index,
                what: "not an object",
            });
        }
        out.push(Reader::members(item));
    }
    Ok(out)
}

/// The member `key` of an object; `None` when absent or `null` (the last one, as JSON
/// parsers keep).
fn get<'m, 'a>(m: &'m [(String, J<'a>, &'a str)], key: &str) -> Option<(&'m J<'a>, &'a str)> {
    m.iter()
        .rev()
        .find(|(k, _, _)| k == key)
        .map(|(_, v, t)| (v, *t))
        .filter(|(v, _)| !matches!(v, J::Null))
}

fn opt_str<'m>(
    m: &'m [(String, J<'_>, &str)],
    key: &str,
    index: usize,
    what: &'static str,
) -> Result<Option<&'m str>, JsonInputError> {
    match get(m, key) {
        None => Ok(None),
        Some((J::Str(s), _)) => Ok(Some(s)),
        Some(_) => Err(JsonInputError::Item { index, what }),
    }
}

/// [`format_tool_calls`] from the JSON form `[{"name", "id"?, "input": {…}}]` (what the CLI's
/// `tokensieve format calls` and every binding take): `input` absent or `null` is `{}`, its
/// numbers are written as spelled in `text`.
///
/// ```
/// use tokensieve::{Config, Dialect};
/// use tokensieve::format::format_tool_calls_json;
/// let text = format_tool_calls_json(&Config::new(Dialect::Mistral),
///     r#"[{"name": "get_weather", "id": "a1B2c3D4e", "input": {"city": "Paris", "t": 1.50}}]"#).unwrap();
/// assert_eq!(text, r#"[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{"city": "Paris", "t": 1.50}"#);
/// ```
pub fn format_tool_calls_json(config: &Config<'_>, text: &str) -> Result<String, JsonInputError> {
    let items = objects(text)?;
    let mut calls = Vec::with_capacity(items.len());
    for (index, m) in items.iter().enumerate() {
        let name =
            opt_str(m, "name", index, "\"name\" is not a string")?.ok_or(JsonInputError::Item {
                index,
                what: "no \"name\" string",
            })?;
        let id = opt_str(m, "id", index, "\"id\" is not a string")?;
        let arguments = match get(m, "input") {
            None => "{}",
            Some((J::Obj(_), raw)) => raw,
            Some(_) => {
                return Err(JsonInputError::Item {
                    index,
                    what: "\"input\" is not an object",
                });
            }
        };
        calls.push(ToolCallIn {
            name,
            id,
            arguments,
        });
    }
    format_tool_calls(config, &calls).map_err(JsonInputError::Format)
}

/// [`format_tool_results`] from the JSON form
/// `[{"tool_use_id"?, "name"?, "content", "is_error"?}]` (what the CLI's
/// `tokensieve format results` and every binding take).
///
/// ```
/// use tokensieve::Dialect;
/// use tokensieve::format::format_tool_results_json;
/// let text = format_tool_results_json(Dialect::Hermes,
///     r#"[{"tool_use_id": "call_0", "name": "get_weather", "content": "18°C"}]"#).unwrap();
/// assert_eq!(text, "<tool_response>\n18°C\n</tool_response>");
/// ```
pub fn format_tool_results_json(dialect: Dialect, text: &str) -> Result<String, JsonInputError> {
    let items = objects(text)?;
    let mut results = Vec::with_capacity(items.len());
    for (index, m) in items.iter().enumerate() {
        let content = opt_str(m, "content", index, "\"content\" is not a string")?.ok_or(
            JsonInputError::Item {
                index,
                what: "no \"content\" string",
            },
        )?;
        let is_error = match get(m, "is_error") {
            None => false,
            Some((J::Bool(b), _)) => *b,
            Some(_) => {
                return Err(JsonInputError::Item {
                    index,
                    what: "\"is_error\" is not a boolean",
                });
            }
        };
        results.push(ToolResult {
            tool_use_id: opt_str(m, "tool_use_id", index, "\"tool_use_id\" is not a string")?,
            tool_name: opt_str(m, "name", index, "\"name\" is not a string")?,
            content,
            is_error,
        });
    }
    Ok(format_tool_results(dialect, &results))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::parse_tool_calls;
    use alloc::string::ToString;

    #[test]
    fn calls_keep_numbers_ids_and_order() {
        let text = r#" [ {"name": "a", "input": {"n": 1.0e5, "big": 123456789012345678901234567890, "s": "x,}]"}} ,
            {"id": null, "name": "b", "extra": [1, {"k": "}"}]} ] "#;
        let c = Config::new(Dialect::Hermes);
        let out = format_tool_calls_json(&c, text).unwrap();
        assert_eq!(
            out,
            "<tool_call>\n{\"name\": \"a\", \"arguments\": {\"n\": 1.0e5, \"big\": \
             123456789012345678901234567890, \"s\": \"x,}]\"}}\n</tool_call>\n<tool_call>\n\
             {\"name\": \"b\", \"arguments\": {}}\n</tool_call>"
        );
        let back = parse_tool_calls(&c, out.as_bytes()).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(
            back[0].input,
            r#"{"n":1.0e5,"big":123456789012345678901234567890,"s":"x,}]"}"#
        );
        let m = format_tool_calls_json(
            &Config::new(Dialect::Mistral),
            r#"[{"name":"f","id":"abcdefghi","input":{}}]"#,
        )
        .unwrap();
        assert_eq!(m, "[TOOL_CALLS]f[CALL_ID]abcdefghi[ARGS]{}");
        assert_eq!(format_tool_calls_json(&c, "[]").unwrap(), "");
    }

    #[test]
    fn bad_items_are_named() {
        let c = Config::new(Dialect::Hermes);
        let e = |t: &str| format_tool_calls_json(&c, t).unwrap_err().to_string();
        assert_eq!(e("[1]"), "[0]: not an object");
        assert_eq!(
            e(r#"[{"name":"f"},{"name":2}]"#),
            "[1]: \"name\" is not a string"
        );
        assert_eq!(e(r#"[{"name":"f","id":2}]"#), "[0]: \"id\" is not a string");
        assert_eq!(e("[1,]"), "not JSON: expected a value at byte 3");
        let r = |t: &str| {
            format_tool_results_json(Dialect::Hermes, t)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(r(r#"[{"name":"f"}]"#), "[0]: no \"content\" string");
        assert_eq!(
            r(r#"[{"content":"x","is_error":1}]"#),
            "[0]: \"is_error\" is not a boolean"
        );
        assert_eq!(
            r(r#"[{"content":"x","tool_use_id":[]}]"#),
            "[0]: \"tool_use_id\" is not a string"
        );
        assert_eq!(r("\"x\""), "not a JSON array");
    }

    #[test]
    fn results_carry_ids_names_and_errors() {
        let text = r#"[{"tool_use_id":"c\"1","name":"read","content":"boom","is_error":true}]"#;
        let out = format_tool_results_json(Dialect::AnthropicXml, text).unwrap();
        assert_eq!(
            out,
            "<function_results>\n<result tool_use_id=\"c&quot;1\">\n<tool_name>read</tool_name>\n\
             <error>boom</error>\n</result>\n</function_results>"
        );
    }
}
