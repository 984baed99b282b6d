//! Parsing a whole text: its events, its tool calls, whether it uses a tool, and the answer
//! of a model whose caller forced a tool.

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
        .filter_map(|ev| tool_call(ev, true))
        .collect())
}

/// The tool call a completed tool-call block holds (`None` for any other event); with
/// `keep_raw`, a failed call keeps its raw text.
fn tool_call(event: OwnedEvent, keep_raw: bool) -> Option<ToolCall> {
    let OwnedEvent::BlockComplete {
        block_type: BlockType::ToolCall,
        tool_name,
        tool_id,
        input,
        error,
        ..
    } = event
    else {
        return None;
    };
    let raw_text = |raw: &[u8]| {
        if keep_raw {
            String::from_utf8_lossy(raw).into_owned()
        } else {
            String::new()
        }
    };
    Some(ToolCall {
        name: tool_name.unwrap_or_default(),
        id: tool_id.unwrap_or_default(),
        input: input.unwrap_or_default(),
        error: error.map(|(r, raw)| (r, raw_text(&raw))),
    })
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
        done @ OwnedEvent::BlockComplete {
            block_type: BlockType::ToolCall,
            ..
        } if found.is_none() => found = tool_call(done, false),
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
