//! Writing tool results back in a dialect's wire format.

use alloc::string::String;

use crate::config::Dialect;

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
/// (`tool_use_id` attribute, `<tool_name>`, then `<stdout>` or `<error>`). harmony: a tool
/// message per result, `<|start|>functions.NAME to=assistant<|channel|>commentary<|message|>…<|end|>`
/// (as openai/harmony's format guide writes them; author `tool` when the name is unknown;
/// ids and the error flag have no place in it). The other dialects: a `<tool_response>`
/// element per result, as hermes-style templates expect.
///
/// harmony has no escaping: a marker inside the content (`<|end|>`, …) would end the
/// message, so a U+2060 WORD JOINER is written between its `<` and `|` (invisible, and
/// nothing in the content can end the message).
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
        Dialect::Harmony => {
            for r in results {
                out.push_str("<|start|>");
                match r.tool_name {
                    Some(name) => {
                        out.push_str("functions.");
                        // A name is one header word: no whitespace, no marker.
                        for c in name.chars() {
                            out.push(if c.is_whitespace() || c == '<' {
                                '_'
                            } else {
                                c
                            });
                        }
                    }
                    None => out.push_str("tool"),
                }
                out.push_str(" to=assistant<|channel|>commentary<|message|>");
                push_unmarked(&mut out, r.content);
                out.push_str("<|end|>");
            }
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

/// Writes `text` with a U+2060 WORD JOINER between the `<` and `|` of any harmony marker.
fn push_unmarked(out: &mut String, text: &str) {
    const MARKERS: &[&str] = &[
        "<|start|>",
        "<|channel|>",
        "<|message|>",
        "<|constrain|>",
        "<|end|>",
        "<|return|>",
        "<|call|>",
    ];
    let mut rest = text;
    while let Some(at) = rest.find("<|") {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        if MARKERS.iter().any(|m| rest.starts_with(m)) {
            out.push_str("<\u{2060}");
            rest = &rest[1..];
        } else {
            out.push_str("<|");
            rest = &rest[2..];
        }
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
    use crate::accumulate::OwnedEvent;
    use crate::config::Config;
    use crate::event::BlockType;
    use crate::format::parse;
    use alloc::vec::Vec;

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
    fn harmony_results_are_tool_messages() {
        let results = [
            ToolResult {
                tool_use_id: Some("call_0"),
                tool_name: Some("get_weather"),
                content: "{\"sunny\": true} <|end|> <|x|>",
                is_error: false,
            },
            ToolResult {
                tool_use_id: None,
                tool_name: None,
                content: "done",
                is_error: true,
            },
        ];
        let text = format_tool_results(Dialect::Harmony, &results);
        assert_eq!(
            text,
            "<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>\
             {\"sunny\": true} <\u{2060}|end|> <|x|><|end|>\
             <|start|>tool to=assistant<|channel|>commentary<|message|>done<|end|>"
        );
        let events = parse(&Config::new(Dialect::Harmony), text.as_bytes()).unwrap();
        let done: Vec<&OwnedEvent> = events
            .iter()
            .filter(|e| matches!(e, OwnedEvent::BlockComplete { .. }))
            .collect();
        assert_eq!(done.len(), 2, "{events:?}");
        match done[0] {
            OwnedEvent::BlockComplete {
                block_type: BlockType::ToolResult,
                content: Some(c),
                tool_name: Some(n),
                ..
            } => {
                assert_eq!(n, "get_weather");
                assert_eq!(c, "{\"sunny\": true} <\u{2060}|end|> <|x|>");
            }
            other => panic!("{other:?}"),
        }
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
