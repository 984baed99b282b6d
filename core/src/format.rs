//! (alloc) Whole-text helpers: parse a complete text into events and tool calls, and write
//! tool results back in a dialect's wire format.
//!
//! These run the same streaming parser over the whole text; they exist for hosts that hold
//! a complete response (a non-streaming API call, a stored transcript).

use alloc::string::String;
use alloc::vec::Vec;

use crate::accumulate::{Collector, OwnedEvent};
use crate::config::{Config, ConfigError, Dialect};
use crate::event::{BlockType, ErrorReason};
use crate::sieve::Sieve;

/// A complete tool call found in a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCall {
    /// The tool's name (empty when the call had none).
    pub name: String,
    /// The call id.
    pub id: String,
    /// The input: compact JSON text of an object (empty for a failed call).
    pub input: String,
    /// Set when the call could not be parsed: why, and its raw text.
    pub error: Option<(ErrorReason, String)>,
}

/// Parses a whole text into owned events (with `content` and `input` on completions).
///
/// ```
/// use tokensieve::{Config, Dialect};
/// use tokensieve::format::parse;
/// let events = parse(&Config::new(Dialect::AnthropicXml), b"Hi<thinking>hmm</thinking>").unwrap();
/// assert_eq!(events.len(), 6);
/// ```
pub fn parse(config: &Config<'_>, text: &[u8]) -> Result<Vec<OwnedEvent>, ConfigError> {
    let mut sieve = Sieve::new(config)?;
    let mut collector = Collector::new();
    let mut events = Vec::new();
    sieve.feed_with(text, |ev| events.push(collector.push(&ev)));
    sieve.finish_with(|ev| events.push(collector.push(&ev)));
    Ok(events)
}

/// The tool calls in a whole text, failed ones included (with their error).
///
/// ```
/// use tokensieve::{Config, Dialect};
/// use tokensieve::format::parse_tool_calls;
/// let text = br#"Sure.<function_calls><invoke name="search"><parameter name="q">rust</parameter></invoke></function_calls>"#;
/// let calls = parse_tool_calls(&Config::new(Dialect::AnthropicXml), text).unwrap();
/// assert_eq!(calls[0].name, "search");
/// assert_eq!(calls[0].id, "call_0");
/// assert_eq!(calls[0].input, r#"{"q":"rust"}"#);
/// ```
pub fn parse_tool_calls(config: &Config<'_>, text: &[u8]) -> Result<Vec<ToolCall>, ConfigError> {
    Ok(parse(config, text)?
        .into_iter()
        .filter_map(|ev| match ev {
            OwnedEvent::BlockComplete {
                block_type: BlockType::ToolCall,
                tool_name,
                tool_id,
                input,
                error,
                ..
            } => Some(ToolCall {
                name: tool_name.unwrap_or_default(),
                id: tool_id.unwrap_or_default(),
                input: input.unwrap_or_default(),
                error: error.map(|(r, raw)| (r, String::from_utf8_lossy(&raw).into_owned())),
            }),
            _ => None,
        })
        .collect())
}

/// Whether a whole text holds at least one tool call (a failed attempt counts).
///
/// ```
/// use tokensieve::{Config, Dialect};
/// use tokensieve::format::has_tool_use;
/// let config = Config::new(Dialect::AnthropicXml);
/// assert!(!has_tool_use(&config, b"To call a tool, write <invoke name=\"x\">.").unwrap());
/// assert!(has_tool_use(&config, b"<function_calls><invoke name=\"x\"></invoke></function_calls>").unwrap());
/// ```
pub fn has_tool_use(config: &Config<'_>, text: &[u8]) -> Result<bool, ConfigError> {
    let mut sieve = Sieve::new(config)?;
    let mut found = false;
    let mut see = |ev: crate::event::Event<'_>| {
        found |= matches!(
            ev,
            crate::event::Event::BlockStart {
                block_type: BlockType::ToolCall,
                ..
            }
        );
    };
    sieve.feed_with(text, &mut see);
    sieve.finish_with(&mut see);
    Ok(found)
}

/// One tool result to write back to the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolResult<'a> {
    /// The id of the call it answers.
    pub tool_use_id: Option<&'a str>,
    /// The tool's name.
    pub tool_name: Option<&'a str>,
    /// What the tool returned (or the error message).
    pub content: &'a str,
    /// The tool failed.
    pub is_error: bool,
}

/// Writes tool results in a dialect's wire format.
///
/// anthropic-xml: one `<function_results>` region with a `<result>` per result
/// (`tool_use_id` attribute, `<tool_name>`, then `<stdout>` or `<error>`). The other
/// dialects: a `<tool_response>` element per result, as hermes-style templates expect.
///
/// Escaping: text is written as is, except that a sequence that would close its element
/// early — `</stdout`, `</error`, `</tool_name`, `</tool_response` (also with the `antml:`
/// prefix) — gets its `<` written as `&lt;`, and attribute values escape `&`, `<` and `"`.
/// The parser reads the result back whole; nothing in the content can close the region.
///
/// ```
/// use tokensieve::{Config, Dialect};
/// use tokensieve::format::{format_tool_results, parse, ToolResult};
/// let text = format_tool_results(Dialect::AnthropicXml, &[ToolResult {
///     tool_use_id: Some("call_0"), tool_name: Some("read"),
///     content: "a </stdout> inside", is_error: false }]);
/// assert!(text.starts_with("<function_results>\n<result tool_use_id=\"call_0\">"));
/// let events = parse(&Config::new(Dialect::AnthropicXml), text.as_bytes()).unwrap();
/// let results = events.iter().filter(|e| matches!(e,
///     tokensieve::accumulate::OwnedEvent::BlockComplete { block_type: tokensieve::BlockType::ToolResult, .. })).count();
/// assert_eq!(results, 1);
/// ```
pub fn format_tool_results(dialect: Dialect, results: &[ToolResult<'_>]) -> String {
    let mut out = String::new();
    match dialect {
        Dialect::AnthropicXml => {
            out.push_str("<function_results>\n");
            for r in results {
                out.push_str("<result");
                if let Some(id) = r.tool_use_id {
                    out.push_str(" tool_use_id=\"");
                    push_attr(&mut out, id);
                    out.push('"');
                }
                out.push_str(">\n");
                if let Some(name) = r.tool_name {
                    out.push_str("<tool_name>");
                    push_guarded(&mut out, name);
                    out.push_str("</tool_name>\n");
                }
                let el = if r.is_error { "error" } else { "stdout" };
                out.push('<');
                out.push_str(el);
                out.push('>');
                push_guarded(&mut out, r.content);
                out.push_str("</");
                out.push_str(el);
                out.push_str(">\n</result>\n");
            }
            out.push_str("</function_results>");
        }
        _ => {
            for (i, r) in results.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str("<tool_response>\n");
                push_guarded(&mut out, r.content);
                out.push_str("\n</tool_response>");
            }
        }
    }
    out
}

const GUARDED: &[&str] = &[
    "stdout",
    "error",
    "tool_name",
    "tool_response",
    "result",
    "function_results",
];

/// Writes `text`, turning the `<` of any closer of a result element into `&lt;`.
fn push_guarded(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(at) = rest.find("</") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let name = after.strip_prefix("antml:").unwrap_or(after);
        if GUARDED.iter().any(|g| name.starts_with(g)) {
            out.push_str("&lt;/");
        } else {
            out.push_str("</");
        }
        rest = after;
    }
    out.push_str(rest);
}

fn push_attr(out: &mut String, value: &str) {
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_round_trip_through_the_parser() {
        let results = [
            ToolResult {
                tool_use_id: Some("t\"1"),
                tool_name: Some("get_weather"),
                content: "18°C\n<b>rain</b> </stdout > </stdout> </function_results>",
                is_error: false,
            },
            ToolResult {
                tool_use_id: None,
                tool_name: None,
                content: "ENOENT",
                is_error: true,
            },
        ];
        let text = format_tool_results(Dialect::AnthropicXml, &results);
        let events = parse(&Config::new(Dialect::AnthropicXml), text.as_bytes()).unwrap();
        let done: Vec<&OwnedEvent> = events
            .iter()
            .filter(|e| matches!(e, OwnedEvent::BlockComplete { .. }))
            .collect();
        assert_eq!(done.len(), 2, "{text}");
        match done[0] {
            OwnedEvent::BlockComplete {
                block_type: BlockType::ToolResult,
                content: Some(c),
                tool_name: Some(n),
                tool_id: Some(id),
                is_error: false,
                ..
            } => {
                assert_eq!(n, "get_weather");
                assert_eq!(id, "t&quot;1");
                assert!(c.starts_with("18°C\n<b>rain</b> &lt;/stdout >"));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            done[1],
            OwnedEvent::BlockComplete { is_error: true, .. }
        ));
    }

    #[test]
    fn hermes_style_responses_guard_their_closer() {
        let text = format_tool_results(
            Dialect::Hermes,
            &[ToolResult {
                tool_use_id: None,
                tool_name: None,
                content: "x</tool_response>y",
                is_error: false,
            }],
        );
        assert_eq!(
            text,
            "<tool_response>\nx&lt;/tool_response>y\n</tool_response>"
        );
    }
}

/// A forced tool's answer that is not a usable call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolChoiceError {
    /// Why.
    pub reason: ErrorReason,
    /// The text as given.
    pub raw: String,
}

impl core::fmt::Display for ToolChoiceError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "not a tool call ({}): {:?}", self.reason, self.raw)
    }
}

/// Parses the answer of a model whose caller forced a tool: one bare JSON object
/// `{"name": …, "arguments": {…}}` (relaxed JSON, `parameters` and JSON-encoded arguments
/// accepted, exactly as inside a hermes `<tool_call>`). Surrounding whitespace and one
/// Markdown code fence (```` ```json … ``` ````) are allowed; anything else fails.
///
/// ```
/// use tokensieve::format::parse_tool_choice;
/// let call = parse_tool_choice(b"{name: 'get_weather', arguments: {city: Paris}}", "call_").unwrap();
/// assert_eq!((call.name.as_str(), call.id.as_str()), ("get_weather", "call_0"));
/// assert_eq!(call.input, r#"{"city":"Paris"}"#);
/// let err = parse_tool_choice(b"Sure! I will call it.", "call_").unwrap_err();
/// assert_eq!(err.raw, "Sure! I will call it.");
/// ```
pub fn parse_tool_choice(text: &[u8], id_prefix: &str) -> Result<ToolCall, ToolChoiceError> {
    let fail = |reason| ToolChoiceError {
        reason,
        raw: String::from_utf8_lossy(text).into_owned(),
    };
    let body = strip_fence(text.trim_ascii());
    let config = Config {
        id_prefix,
        ..Config::new(Dialect::Hermes)
    };
    let mut sieve = Sieve::new(&config).map_err(|_| fail(ErrorReason::MalformedBody))?;
    let mut collector = Collector::new();
    let mut found: Option<ToolCall> = None;
    let mut extra = false;
    let mut see = |ev: crate::event::Event<'_>| match collector.push(&ev) {
        OwnedEvent::BlockComplete {
            block_type: BlockType::ToolCall,
            tool_name,
            tool_id,
            input,
            error,
            ..
        } if found.is_none() => {
            found = Some(ToolCall {
                name: tool_name.unwrap_or_default(),
                id: tool_id.unwrap_or_default(),
                input: input.unwrap_or_default(),
                error: error.map(|(r, _)| (r, String::new())),
            })
        }
        OwnedEvent::BlockStart { .. } if found.is_some() => extra = true,
        OwnedEvent::Chunk {
            block_type: BlockType::Text,
            ..
        } => extra = true,
        _ => {}
    };
    // The hermes dialect reads the body exactly as inside a call.
    sieve.feed_with(b"<tool_call>", &mut see);
    sieve.feed_with(body, &mut see);
    sieve.feed_with(b"</tool_call>", &mut see);
    sieve.finish_with(&mut see);
    match found {
        Some(call) if call.error.is_none() && !extra => Ok(call),
        Some(ToolCall {
            error: Some((reason, _)),
            ..
        }) => Err(fail(reason)),
        _ => Err(fail(ErrorReason::MalformedBody)),
    }
}

/// The inside of one Markdown code fence, if `text` is exactly one.
fn strip_fence(text: &[u8]) -> &[u8] {
    let Some(rest) = text.strip_prefix(b"```") else {
        return text;
    };
    let Some(rest) = rest.strip_suffix(b"```") else {
        return text;
    };
    // Skip the info string (`json`) up to the end of the first line.
    match rest.iter().position(|&b| b == b'\n') {
        Some(nl) => &rest[nl + 1..],
        None => text,
    }
}

#[cfg(test)]
mod tool_choice_tests {
    use super::*;

    #[test]
    fn forced_tool_answers() {
        let ok = |t: &str| parse_tool_choice(t.as_bytes(), "call_").unwrap();
        let c = ok("  {\"name\": \"f\", \"parameters\": {\"a\": 1.50}}\n");
        assert_eq!((c.name.as_str(), c.input.as_str()), ("f", r#"{"a":1.50}"#));
        let c = ok("```json\n{\"arguments\": \"{\\\"x\\\": [1]}\", \"name\": \"g\"}\n```");
        assert_eq!((c.name.as_str(), c.input.as_str()), ("g", r#"{"x":[1]}"#));
        assert_eq!(ok("{\"name\": \"h\"}").input, "{}");
        let err = |t: &str| parse_tool_choice(t.as_bytes(), "call_").unwrap_err();
        assert_eq!(err("{\"arguments\": {}}").reason, ErrorReason::MissingName);
        assert_eq!(
            err("{\"name\": \"f\", \"arguments\": {").reason,
            ErrorReason::MalformedBody
        );
        assert_eq!(
            err("{\"name\": \"f\"} and more").reason,
            ErrorReason::UnexpectedContent
        );
        assert_eq!(
            err("[{\"name\": \"f\"}, {\"name\": \"g\"}]").reason,
            ErrorReason::MalformedBody
        );
        assert_eq!(err("").raw, "");
        let bad = err("{\"name\": \"f\", \"arguments\": 5}\u{1}");
        assert_eq!(bad.raw, "{\"name\": \"f\", \"arguments\": 5}\u{1}");
        // Never a panic, whatever the bytes.
        for n in 0..=255u8 {
            let _ = parse_tool_choice(&[b'{', n, b'}', n], "call_");
        }
    }
}
