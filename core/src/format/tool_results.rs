//! Writing tool results back in a dialect's wire format.

use alloc::string::String;

use crate::config::Dialect;
use crate::format::json_string::{self, StrSpelling};

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

/// Writes tool results in a dialect's wire format: what the model family's chat template
/// writes for `tool` messages, so a host that builds the prompt itself (prefill, a C server
/// on an NPU) gives results back in the form the model was trained on.
///
/// | dialect | each result |
/// | --- | --- |
/// | anthropic-xml | one `<function_results>` region with a `<result>` per result (`tool_use_id` attribute, `<tool_name>`, then `<stdout>` or `<error>`) |
/// | hermes, qwen3-coder, morph-xml, minicpm5, step-3, passthrough | `<tool_response>\n…\n</tool_response>`, a line between results (Qwen and hermes-style templates) |
/// | hunyuan | `<tool_responses>`, `<tool_response>…</tool_response>` per result (a line between them), `</tool_responses>` |
/// | glm-4.5 | `<\|observation\|>` once, then `\n<tool_response>\n…\n</tool_response>` per result |
/// | inkling | `<\|message_tool\|>NAME<\|content_text\|>…<\|end_message\|>` per result (`tool` when the name is unknown) |
/// | minimax-m2, minimax-m3 | `]~b]tool` once, `\n<response>…</response>` per result, then `[e~[\n` |
/// | harmony | `<\|start\|>functions.NAME to=assistant<\|channel\|>commentary<\|message\|>…<\|end\|>` (author `tool` when the name is unknown) |
/// | kimi-k2 | `<\|im_system\|>NAME<\|im_middle\|>## Return of ID\n…<\|im_end\|>` (`tool` when the name is unknown; no `## Return of` line without an id) |
/// | deepseek-v3 | `<｜tool▁outputs▁begin｜>`, `<｜tool▁output▁begin｜>…<｜tool▁output▁end｜>` per result (a line between them), `<｜tool▁outputs▁end｜>` |
/// | deepseek-v3.1 | `<｜tool▁output▁begin｜>…<｜tool▁output▁end｜>` per result |
/// | mistral | `[TOOL_RESULTS]…[/TOOL_RESULTS]` (the v11+ templates: content as is, no call id) |
/// | llama3-json | `<\|start_header_id\|>ipython<\|end_header_id\|>\n\n…<\|eot_id\|>` |
/// | pythonic | `<\|header_start\|>ipython<\|header_end\|>\n\n…<\|eot\|>` (Llama 4) |
/// | gemma-4 | `<\|tool_response>response:NAME{value:<\|"\|>…<\|"\|>}<tool_response\|>` (`error:` for an error; `tool` when the name is unknown) |
/// | functiongemma | `<start_function_response>response:NAME{value:<escape>…<escape>}<end_function_response>` |
/// | kimi-k3 | `<\|open\|>message role="tool" tool="NAME" index="I"<\|sep\|>…<\|close\|>message<\|sep\|><\|end_of_msg\|>` (`I` the result's position from 1; the name from a `NAME:n` id when none is given, else `tool`) |
///
/// Ids, names and the error flag appear only where the format has a place for them.
///
/// Nothing in the content can end its result early. XML-style elements (anthropic-xml,
/// `<tool_response>`) are escaped: a sequence that would close an element — `</stdout`,
/// `</error`, `</tool_name`, `</tool_response` (also with the `antml:` prefix) — gets its
/// `<` written as `&lt;`, and attribute values escape `&`, `<` and `"`; the parser reads the
/// result back whole. Special-token formats have no escaping: there a U+2060 WORD JOINER is
/// written after the first character of any of the format's markers inside the content
/// (`<\u{2060}|end|>`, `[\u{2060}/TOOL_RESULTS]`), which is invisible and spells no marker.
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
///
/// let kimi = format_tool_results(Dialect::KimiK2, &[ToolResult {
///     tool_use_id: Some("functions.get_weather:0"), tool_name: Some("get_weather"),
///     content: "18°C", is_error: false }]);
/// assert_eq!(kimi, "<|im_system|>get_weather<|im_middle|>## Return of functions.get_weather:0\n18°C<|im_end|>");
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
                push_unmarked(&mut out, r.content, HARMONY_MARKERS);
                out.push_str("<|end|>");
            }
        }
        Dialect::Glm45 => {
            if !results.is_empty() {
                out.push_str("<|observation|>");
            }
            for r in results {
                out.push_str("\n<tool_response>\n");
                let mut guarded = String::new();
                push_guarded(&mut guarded, r.content);
                push_unmarked(&mut out, &guarded, GLM_MARKERS);
                out.push_str("\n</tool_response>");
            }
        }
        // MiniMax M3's template writes its results as M2's does.
        Dialect::MinimaxM2 | Dialect::MinimaxM3 => {
            if !results.is_empty() {
                out.push_str("]~b]tool");
                for r in results {
                    out.push_str("\n<response>");
                    push_unmarked(&mut out, r.content, MINIMAX_MARKERS);
                    out.push_str("</response>");
                }
                out.push_str("[e~[\n");
            }
        }
        Dialect::Inkling => {
            // Inkling's tool message: the tool's name as plain text between the message and
            // content markers, the result as a text block (no call id on the wire).
            for r in results {
                out.push_str("<|message_tool|>");
                let name = r.tool_name.filter(|n| !n.is_empty()).unwrap_or("tool");
                push_unmarked(&mut out, name, INKLING_MARKERS);
                out.push_str("<|content_text|>");
                push_unmarked(&mut out, r.content, INKLING_MARKERS);
                out.push_str("<|end_message|>");
            }
        }
        Dialect::KimiK2 => {
            for r in results {
                out.push_str("<|im_system|>");
                // The role name is one word before `<|im_middle|>`.
                match r.tool_name.filter(|n| !n.is_empty()) {
                    Some(name) => push_unmarked(&mut out, name, KIMI_MARKERS),
                    None => out.push_str("tool"),
                }
                out.push_str("<|im_middle|>");
                if let Some(id) = r.tool_use_id {
                    out.push_str("## Return of ");
                    // One line: the content starts after it.
                    let id: String = id
                        .chars()
                        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
                        .collect();
                    push_unmarked(&mut out, &id, KIMI_MARKERS);
                    out.push('\n');
                }
                push_unmarked(&mut out, r.content, KIMI_MARKERS);
                out.push_str("<|im_end|>");
            }
        }
        Dialect::DeepSeekV3 | Dialect::DeepSeekV31 => {
            let sectioned = dialect == Dialect::DeepSeekV3 && !results.is_empty();
            if sectioned {
                out.push_str("<｜tool▁outputs▁begin｜>");
            }
            for (i, r) in results.iter().enumerate() {
                if i > 0 && sectioned {
                    out.push('\n');
                }
                out.push_str("<｜tool▁output▁begin｜>");
                push_unmarked(&mut out, r.content, DEEPSEEK_MARKERS);
                out.push_str("<｜tool▁output▁end｜>");
            }
            if sectioned {
                out.push_str("<｜tool▁outputs▁end｜>");
            }
        }
        Dialect::Mistral => {
            for r in results {
                out.push_str("[TOOL_RESULTS]");
                push_unmarked(&mut out, r.content, MISTRAL_MARKERS);
                out.push_str("[/TOOL_RESULTS]");
            }
        }
        Dialect::Llama3Json => {
            for r in results {
                out.push_str("<|start_header_id|>ipython<|end_header_id|>\n\n");
                push_unmarked(&mut out, r.content, LLAMA3_MARKERS);
                out.push_str("<|eot_id|>");
            }
        }
        Dialect::Pythonic => {
            for r in results {
                out.push_str("<|header_start|>ipython<|header_end|>\n\n");
                push_unmarked(&mut out, r.content, LLAMA4_MARKERS);
                out.push_str("<|eot|>");
            }
        }
        Dialect::Lfm2 => {
            // LFM2's template: a tool turn, the content in its response markers.
            for r in results {
                out.push_str("<|im_start|>tool\n<|tool_response_start|>");
                push_unmarked(&mut out, r.content, LFM2_MARKERS);
                out.push_str("<|tool_response_end|><|im_end|>\n");
            }
        }
        Dialect::Olmo3 => {
            // Olmo 3's template: tool output is an `environment` turn.
            for r in results {
                out.push_str("<|im_start|>environment\n");
                push_unmarked(&mut out, r.content, LFM2_MARKERS);
                out.push_str("<|im_end|>\n");
            }
        }
        Dialect::Hunyuan => {
            // Hunyuan HY3's template: the results of one turn in one `<tool_responses>`
            // group, a line between them.
            if !results.is_empty() {
                out.push_str("<tool_responses>");
                for (i, r) in results.iter().enumerate() {
                    if i > 0 {
                        out.push('\n');
                    }
                    out.push_str("<tool_response>");
                    let mut guarded = String::new();
                    push_guarded(&mut guarded, r.content);
                    push_unmarked(&mut out, &guarded, HUNYUAN_MARKERS);
                    out.push_str("</tool_response>");
                }
                out.push_str("</tool_responses>");
            }
        }
        Dialect::SeedOss => {
            // Seed-OSS's template: one tool turn per result.
            for r in results {
                out.push_str("<seed:bos>tool\n");
                push_unmarked(&mut out, r.content, SEED_MARKERS);
                out.push_str("<seed:eos>");
            }
        }
        Dialect::DeepSeekV32 => {
            // DeepSeek V3.2's encoding: the results of one turn in one `<function_results>`
            // block of the user message.
            out.push_str("<function_results>");
            for r in results {
                out.push_str("\n<result>");
                push_unmarked(&mut out, r.content, DSML_MARKERS);
                out.push_str("</result>");
            }
            out.push_str("\n</function_results>");
        }
        Dialect::DeepSeekV4 => {
            for (i, r) in results.iter().enumerate() {
                if i > 0 {
                    out.push_str("\n\n");
                }
                out.push_str("<tool_result>");
                push_unmarked(&mut out, r.content, DSML_MARKERS);
                out.push_str("</tool_result>");
            }
        }
        Dialect::Xlam => {
            // xLAM-2's templates hand a tool turn's content through as written: the results
            // of one turn as a JSON list of their contents.
            out.push('[');
            for (i, r) in results.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_json_string(&mut out, r.content);
            }
            out.push(']');
        }
        Dialect::Apertus => {
            // Apertus's template: the outputs of one turn as a list right after the calls'
            // <|tools_suffix|>, each as written.
            out.push('[');
            for (i, r) in results.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_unmarked(&mut out, r.content, APERTUS_MARKERS);
            }
            out.push_str("]\n");
        }
        Dialect::Phi4Mini => {
            // Phi-4-mini's template: a `tool` turn per result.
            for r in results {
                out.push_str("<|tool|>");
                push_unmarked(&mut out, r.content, PHI_MARKERS);
                out.push_str("<|end|>");
            }
        }
        Dialect::Granite => {
            // Granite 3.x's template: one tool_response turn per result.
            for r in results {
                out.push_str("<|start_of_role|>tool_response<|end_of_role|>");
                push_unmarked(&mut out, r.content, GRANITE_MARKERS);
                out.push_str("<|end_of_text|>\n");
            }
        }
        Dialect::CohereCommand => {
            // Command R7B / A's template: the results of one turn in one system turn, a JSON
            // list of `{"tool_call_id", "results": {"0": …}, "is_error"}` (the content as a
            // JSON string; `<` written `\u003c`, so no marker can be spelled in it).
            out.push_str("<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|><|START_TOOL_RESULT|>[");
            for (i, r) in results.iter().enumerate() {
                out.push_str(if i > 0 { ",\n" } else { "\n" });
                out.push_str("    {\n        \"tool_call_id\": ");
                push_json_string(&mut out, r.tool_use_id.unwrap_or(""));
                out.push_str(",\n        \"results\": {\n            \"0\": ");
                push_json_string(&mut out, r.content);
                out.push_str("\n        },\n        \"is_error\": ");
                out.push_str(if r.is_error { "true" } else { "null" });
                out.push_str("\n    }");
            }
            out.push_str("\n]<|END_TOOL_RESULT|><|END_OF_TURN_TOKEN|>");
        }
        Dialect::Gemma4 | Dialect::FunctionGemma => {
            // The templates write a string result as `response:NAME{value:"…"}` in the
            // family's syntax (strings between its delimiter tokens); `error` for a failure.
            let (open, quote, close, markers) = if dialect == Dialect::Gemma4 {
                (
                    "<|tool_response>",
                    "<|\"|>",
                    "<tool_response|>",
                    GEMMA4_MARKERS,
                )
            } else {
                (
                    "<start_function_response>",
                    "<escape>",
                    "<end_function_response>",
                    FUNCTIONGEMMA_MARKERS,
                )
            };
            for r in results {
                out.push_str(open);
                out.push_str("response:");
                // The name is a bare word before `{`.
                let name = r.tool_name.filter(|n| !n.is_empty()).unwrap_or("tool");
                for c in name.chars() {
                    out.push(if c.is_whitespace() || matches!(c, '{' | '<') {
                        '_'
                    } else {
                        c
                    });
                }
                out.push_str(if r.is_error { "{error:" } else { "{value:" });
                out.push_str(quote);
                push_unmarked(&mut out, r.content, markers);
                out.push_str(quote);
                out.push('}');
                out.push_str(close);
            }
        }
        Dialect::KimiK3 => {
            // K3's encoder: one tool message per result, carrying the tool's name and the
            // result's position among the turn's results (from 1), its content raw.
            for (i, r) in results.iter().enumerate() {
                out.push_str("<|open|>message role=\"tool\" tool=\"");
                let name = r
                    .tool_name
                    .filter(|n| !n.is_empty())
                    .or_else(|| r.tool_use_id.and_then(k3_id_name))
                    .unwrap_or("tool");
                // An attribute value: `&` then `"` escaped, as the encoder does.
                let escaped = name.replace('&', "&amp;").replace('"', "&quot;");
                push_unmarked(&mut out, &escaped, K3_MARKERS);
                let _ = core::fmt::Write::write_fmt(
                    &mut out,
                    format_args!("\" index=\"{}\"<|sep|>", i + 1),
                );
                push_unmarked(&mut out, r.content, K3_MARKERS);
                out.push_str("<|close|>message<|sep|><|end_of_msg|>");
            }
        }
        Dialect::Passthrough
        | Dialect::Hermes
        | Dialect::MorphXml
        | Dialect::Qwen3Coder
        | Dialect::MiniCpm5
        | Dialect::Step3 => {
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

/// ChatML turn markers and LFM2's tool markers (`<|im_` covers the turn markers).
const LFM2_MARKERS: &[&str] = &["<|im_", "<|tool_"];
/// Gemma 4's string delimiter and special tokens (content must not end its string or
/// result early).
const GEMMA4_MARKERS: &[&str] = &["<|\"|>", "<tool_response|>", "<|tool", "<|turn>", "<turn|>"];
/// FunctionGemma's.
const FUNCTIONGEMMA_MARKERS: &[&str] = &[
    "<escape>",
    "<end_function_response>",
    "<start_function_",
    "<start_of_turn>",
    "<end_of_turn>",
];

/// Inkling's block markers (`<|message_`, `<|content_` and the closer cover them all).
const INKLING_MARKERS: &[&str] = &["<|message_", "<|content_", "<|end_message|>"];
/// Kimi K3's special tokens (content must not end its message early).
const K3_MARKERS: &[&str] = &["<|open|>", "<|close|>", "<|sep|>", "<|end_of_msg|>"];

/// The tool's name in a kimi-k3 call id (`NAME:n`, as the parser makes them).
fn k3_id_name(id: &str) -> Option<&str> {
    let (name, n) = id.rsplit_once(':')?;
    (!name.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some(name)
}

/// Seed-OSS's turn markers (a `<seed:` prefix covers them all).
const SEED_MARKERS: &[&str] = &["<seed:"];
/// Hunyuan's turn markers (`<｜hy_User｜>`, `<｜hy_Assistant｜>`).
const HUNYUAN_MARKERS: &[&str] = &["<｜hy_"];
/// Apertus's special tokens.
const APERTUS_MARKERS: &[&str] = &[
    "<|tools_",
    "<|inner_",
    "<|assistant_",
    "<|user_",
    "<|system_",
];
/// Phi-4-mini's role and end tokens.
const PHI_MARKERS: &[&str] = &[
    "<|end|>",
    "<|tool|>",
    "<|/tool|>",
    "<|assistant|>",
    "<|user|>",
    "<|system|>",
    "functools[",
];
/// Granite's special tokens.
const GRANITE_MARKERS: &[&str] = &[
    "<|start_of_role|>",
    "<|end_of_role|>",
    "<|end_of_text|>",
    "<|tool_call|>",
];

/// DeepSeek's result closers and the DSML prefix (content must not end its result early or
/// spell a call).
const DSML_MARKERS: &[&str] = &[
    "</result>",
    "</function_results>",
    "</tool_result>",
    "｜DSML｜",
];

// The markers content must not spell, per special-token format (prefixes: `<|im_` covers
// every Kimi role marker).
const HARMONY_MARKERS: &[&str] = &[
    "<|start|>",
    "<|channel|>",
    "<|message|>",
    "<|constrain|>",
    "<|end|>",
    "<|return|>",
    "<|call|>",
];
const GLM_MARKERS: &[&str] = &[
    "<|observation|>",
    "<|user|>",
    "<|assistant|>",
    "<|system|>",
    "<|endoftext|>",
];
const MINIMAX_MARKERS: &[&str] = &["]~b]", "[e~[", "</response"];
const KIMI_MARKERS: &[&str] = &["<|im_", "<|tool_call"];
const DEEPSEEK_MARKERS: &[&str] = &["<｜"];
const MISTRAL_MARKERS: &[&str] = &[
    "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]",
    "[TOOL_CONTENT]",
    "[TOOL_CALLS]",
    "[ARGS]",
    "[CALL_ID]",
    "[INST]",
    "[/INST]",
    "[SYSTEM_PROMPT]",
    "[/SYSTEM_PROMPT]",
    "[THINK]",
    "[/THINK]",
];
const LLAMA3_MARKERS: &[&str] = &[
    "<|eot_id|>",
    "<|eom_id|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|python_tag|>",
    "<|begin_of_text|>",
];
const LLAMA4_MARKERS: &[&str] = &[
    "<|eot|>",
    "<|eom|>",
    "<|header_start|>",
    "<|header_end|>",
    "<|python_start|>",
    "<|python_end|>",
    "<|begin_of_text|>",
];

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

/// Writes `text` with a U+2060 WORD JOINER after the first character of every occurrence of
/// one of `markers`.
pub(super) fn push_unmarked(out: &mut String, text: &str, markers: &[&str]) {
    let mut rest = text;
    while let Some(at) = markers.iter().filter_map(|m| rest.find(m)).min() {
        let first = rest[at..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&rest[..at + first]);
        out.push('\u{2060}');
        rest = &rest[at + first..];
    }
    out.push_str(rest);
}

/// `text` as a JSON string, `<` escaped too (`\u003c`).
fn push_json_string(out: &mut String, text: &str) {
    let how = StrSpelling {
        escape_lt: true,
        ..StrSpelling::default()
    };
    json_string::push_json_string(out, text, how);
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
    fn gemma_results_are_read_back_as_results() {
        for d in [Dialect::Gemma4, Dialect::FunctionGemma] {
            let text = format_tool_results(d, &two_results());
            let events = parse(&Config::new(d), text.as_bytes()).unwrap();
            let results = events
                .iter()
                .filter(|e| {
                    matches!(
                        e,
                        OwnedEvent::BlockComplete {
                            block_type: BlockType::ToolResult,
                            ..
                        }
                    )
                })
                .count();
            assert_eq!(results, 2, "{d:?}: {text}");
        }
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
    fn kimi_k3_results_name_the_tool_from_the_call_id() {
        let text = format_tool_results(
            Dialect::KimiK3,
            &[ToolResult {
                tool_use_id: Some("a&b\"c:0"),
                tool_name: None,
                content: "x <|sep|> y",
                is_error: false,
            }],
        );
        assert_eq!(
            text,
            "<|open|>message role=\"tool\" tool=\"a&amp;b&quot;c\" index=\"1\"<|sep|>\
             x <\u{2060}|sep|> y<|close|>message<|sep|><|end_of_msg|>"
        );
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

    fn two_results() -> [ToolResult<'static>; 2] {
        [
            ToolResult {
                tool_use_id: Some("call_0"),
                tool_name: Some("get_weather"),
                content: "sunny",
                is_error: false,
            },
            ToolResult {
                tool_use_id: None,
                tool_name: None,
                content: "ENOENT",
                is_error: true,
            },
        ]
    }

    #[test]
    fn each_family_writes_its_templates_tool_messages() {
        let cases: [(Dialect, &str); 11] = [
            (
                Dialect::KimiK3,
                "<|open|>message role=\"tool\" tool=\"get_weather\" index=\"1\"<|sep|>sunny<|close|>message<|sep|><|end_of_msg|>\
                 <|open|>message role=\"tool\" tool=\"tool\" index=\"2\"<|sep|>ENOENT<|close|>message<|sep|><|end_of_msg|>",
            ),
            (
                Dialect::Gemma4,
                "<|tool_response>response:get_weather{value:<|\"|>sunny<|\"|>}<tool_response|>\
                 <|tool_response>response:tool{error:<|\"|>ENOENT<|\"|>}<tool_response|>",
            ),
            (
                Dialect::FunctionGemma,
                "<start_function_response>response:get_weather{value:<escape>sunny<escape>}<end_function_response>\
                 <start_function_response>response:tool{error:<escape>ENOENT<escape>}<end_function_response>",
            ),
            (
                Dialect::Glm45,
                "<|observation|>\n<tool_response>\nsunny\n</tool_response>\n<tool_response>\nENOENT\n</tool_response>",
            ),
            (
                Dialect::MinimaxM2,
                "]~b]tool\n<response>sunny</response>\n<response>ENOENT</response>[e~[\n",
            ),
            (
                Dialect::KimiK2,
                "<|im_system|>get_weather<|im_middle|>## Return of call_0\nsunny<|im_end|>\
                 <|im_system|>tool<|im_middle|>ENOENT<|im_end|>",
            ),
            (
                Dialect::DeepSeekV3,
                "<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>sunny<｜tool▁output▁end｜>\n\
                 <｜tool▁output▁begin｜>ENOENT<｜tool▁output▁end｜><｜tool▁outputs▁end｜>",
            ),
            (
                Dialect::DeepSeekV31,
                "<｜tool▁output▁begin｜>sunny<｜tool▁output▁end｜><｜tool▁output▁begin｜>ENOENT<｜tool▁output▁end｜>",
            ),
            (
                Dialect::Mistral,
                "[TOOL_RESULTS]sunny[/TOOL_RESULTS][TOOL_RESULTS]ENOENT[/TOOL_RESULTS]",
            ),
            (
                Dialect::Llama3Json,
                "<|start_header_id|>ipython<|end_header_id|>\n\nsunny<|eot_id|>\
                 <|start_header_id|>ipython<|end_header_id|>\n\nENOENT<|eot_id|>",
            ),
            (
                Dialect::Pythonic,
                "<|header_start|>ipython<|header_end|>\n\nsunny<|eot|>\
                 <|header_start|>ipython<|header_end|>\n\nENOENT<|eot|>",
            ),
        ];
        for (d, want) in cases {
            assert_eq!(format_tool_results(d, &two_results()), want, "{d:?}");
            assert_eq!(format_tool_results(d, &[]), "", "{d:?}");
        }
    }

    #[test]
    fn content_cannot_spell_a_marker() {
        let wj = '\u{2060}';
        let cases: [(Dialect, &str, &str); 10] = [
            (
                Dialect::KimiK3,
                "a<|close|>message<|sep|>b",
                "<|close|>message<|sep|>",
            ),
            (Dialect::Gemma4, "a<tool_response|>b", "<tool_response|>"),
            (
                Dialect::FunctionGemma,
                "a<end_function_response>b",
                "<end_function_response>",
            ),
            (Dialect::KimiK2, "a<|im_end|>b", "<|im_end|>"),
            (
                Dialect::DeepSeekV3,
                "a<｜tool▁output▁end｜>b",
                "<｜tool▁output▁end｜>",
            ),
            (
                Dialect::DeepSeekV31,
                "a<｜tool▁output▁end｜>b",
                "<｜tool▁output▁end｜>",
            ),
            (Dialect::Mistral, "a[/TOOL_RESULTS]b", "[/TOOL_RESULTS]"),
            (Dialect::Llama3Json, "a<|eot_id|>b", "<|eot_id|>"),
            (Dialect::Pythonic, "a<|eot|>b", "<|eot|>"),
            (Dialect::MinimaxM2, "a</response>[e~[b", "[e~["),
        ];
        for (d, content, marker) in cases {
            let r = [ToolResult {
                tool_use_id: None,
                tool_name: None,
                content,
                is_error: false,
            }];
            let text = format_tool_results(d, &r);
            // The format's own closer appears once: the one it wrote.
            assert_eq!(text.matches(marker).count(), 1, "{d:?}: {text}");
            let first = marker.chars().next().unwrap();
            assert!(
                text.contains(&alloc::format!("{first}{wj}")),
                "{d:?}: {text}"
            );
        }
        // GLM: the element closer is escaped as in hermes, the role marker joined.
        let text = format_tool_results(
            Dialect::Glm45,
            &[ToolResult {
                tool_use_id: None,
                tool_name: None,
                content: "x</tool_response><|observation|>",
                is_error: false,
            }],
        );
        assert_eq!(
            text,
            "<|observation|>\n<tool_response>\nx&lt;/tool_response><\u{2060}|observation|>\n</tool_response>"
        );
    }
}
