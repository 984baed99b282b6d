//! Writing the tool-definition section of the prompt as each family's chat template renders
//! it.

use alloc::string::String;
use alloc::vec::Vec;

use super::tool_calls::args::{J, read_value};
use super::tool_calls::{FormatError, FormatErrorKind, ToolCallIn, format_tool_calls};
use crate::config::Config;
use crate::json::strict::{self, Kind};
use crate::spec::{Description, Dialect, Shape};

mod families;
mod py;

/// One tool to describe to the model: the config's tool-list form (`{"name", "description"?,
/// "schema"?}`), so a host passes the same list to the parser's config and here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolDef<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// What it does, when the host has a description.
    pub description: Option<&'a str>,
    /// The JSON Schema of its input object, as JSON text (keys kept in this order, numbers
    /// as spelled here); `None`: the tool takes no parameters the template could show.
    pub schema: Option<&'a str>,
}

/// A tool read: its schema as a tree.
struct Tool<'a> {
    name: &'a str,
    description: Option<&'a str>,
    params: Option<J<'a>>,
}

/// Member `key` of an object.
fn get<'j, 'a>(v: &'j J<'a>, key: &str) -> Option<&'j J<'a>> {
    match v {
        J::Obj(members) => members.iter().find(|(k, _)| k == key).map(|(_, x)| x),
        _ => None,
    }
}

/// Member `key` of an object, when it is a string.
fn get_str<'j>(v: &'j J<'_>, key: &str) -> Option<&'j str> {
    match get(v, key) {
        Some(J::Str(s)) => Some(s),
        _ => None,
    }
}

/// Jinja's truth of a value (absent, `null`, `false`, zero, empty: false).
fn truthy(v: Option<&J<'_>>) -> bool {
    match v {
        None | Some(J::Null) => false,
        Some(J::Bool(b)) => *b,
        Some(J::Num(n)) => !is_zero(n),
        Some(J::Str(s)) => !s.is_empty(),
        Some(J::Arr(a)) => !a.is_empty(),
        Some(J::Obj(m)) => !m.is_empty(),
    }
}

/// Whether a number's spelling is zero (`0`, `-0.0`, `0e5`).
fn is_zero(n: &str) -> bool {
    let mantissa = n.split(['e', 'E']).next().unwrap_or(n);
    mantissa
        .bytes()
        .all(|b| matches!(b, b'0' | b'-' | b'+' | b'.'))
}

fn read_tool<'a>(i: usize, t: &ToolDef<'a>) -> Result<Tool<'a>, FormatError> {
    let err = |kind| FormatError { call: i, kind };
    if t.name.is_empty() {
        return Err(err(FormatErrorKind::BadToolName("it is empty")));
    }
    let params = match t.schema {
        None => None,
        Some(text) => match strict::validate(text.as_bytes()) {
            Ok(Kind::Object) => Some(read_value(text)),
            Ok(_) => return Err(err(FormatErrorKind::SchemaNotAnObject)),
            Err(e) => {
                return Err(err(FormatErrorKind::InvalidSchema {
                    offset: e.offset,
                    reason: e.reason,
                }));
            }
        },
    };
    Ok(Tool {
        name: t.name,
        description: t.description,
        params,
    })
}

/// Writes the tool-definition section of the prompt — what the family's published chat
/// template renders for the `tools` a host passes — so a host that builds the prompt itself
/// (prefill or completions mode) describes the tools in the form the model was trained on.
///
/// It returns the section only, not the whole system prompt or turn, ready to be placed
/// where the template places it:
///
/// | dialect | the section | where the template puts it |
/// | --- | --- | --- |
/// | hermes | `# Tools` … `<tools>` one JSON object a line `</tools>` … the `<tool_call>` instruction (Qwen3's template; Qwen2.5's is the same) | the end of the system message, after `\n\n` |
/// | qwen3-coder | `You have access to the following functions:` … `<tools>` of `<function>`/`<name>`/`<description>`/`<parameters>`/`<parameter>` … `</IMPORTANT>` | the end of the system message, after `\n\n` |
/// | anthropic-xml | the `<function_calls>` instruction, then `<functions>` of `<function>{JSON}</function>` lines (no public template: the form Claude's own tool prompt uses) | the end of the system prompt |
/// | harmony | `# Tools\n\n## functions\n\nnamespace functions {` … TypeScript-like types … `} // namespace functions` | the developer message, after `# Instructions` (and the system message gains `\nCalls to these tools must go to the commentary channel: 'functions'.`) |
/// | llama3-json | `Given the following functions, …` then each tool as indented JSON and a blank line | the start of the first user message (the system message gains `Environment: ipython\n`) |
/// | mistral | `[AVAILABLE_TOOLS][…][/AVAILABLE_TOOLS]` | before the last `[INST]` |
/// | kimi-k2 | `<\|im_system\|>tool_declare<\|im_middle\|>[…]<\|im_end\|>` | a message of its own, first |
/// | inkling | `<\|message_system\|>tool_declare<\|content_xml\|>[…]<\|end_message\|>`, each tool `{"description","name","parameters","type":"function"}` with keys sorted at every depth and no spaces (its template's `tojson(sort_keys=True, separators=(",", ":"))`; `""` and `{}` for a missing description and schema) | a system message of its own, first (before the system messages and the thinking-effort one) |
/// | deepseek-v3.1 | `## Tools` … `### NAME`, `Description:`, `Parameters: {JSON}` per tool … the `IMPORTANT:` format lines, ending in a line feed | the end of the system prompt, after `\n\n` |
/// | glm-4.5 | `# Tools` … `<tools>` one JSON object a line `</tools>` … the `<arg_key>`/`<arg_value>` instruction | a `<\|system\|>\n` turn of its own, first |
/// | minimax-m2 | `# Tools` … `<tools>` of `<tool>{JSON}</tool>` lines … the `<minimax:tool_call>` instruction | the end of the system message, after `\n\n` |
/// | seed-oss | `Function:\ndef NAME(k: str,…):` and a docstring with `Args:` per tool, then the `<seed:tool_call>` instruction, ending in a line feed | the end of the system message, after `\n\n` |
/// | deepseek-v3.2 | `## Tools` … the `<｜DSML｜function_calls>` instruction … `<functions>` one JSON object a line `</functions>` | the end of the system prompt, after `\n\n` |
/// | deepseek-v4 | `## Tools` … the `<｜DSML｜tool_calls>` instruction … `### Available Tool Schemas` one JSON object a line … ending in a line feed | the end of the system prompt, after `\n\n` |
/// | pythonic | `You have access to the following functions. To call functions, please respond with a python list of the calls. …` then each tool as indented JSON and a blank line (Llama 3.2's pythonic template) | the start of the system message, after the date lines |
/// | phi-4-mini | `In addition to plain text responses, …` the `functools[…]` rules, then each tool as indented JSON and a blank line (vLLM's Phi-4-mini template) | after the system message and a line feed |
/// | lfm2 | `List of tools: <\|tool_list_start\|>[…]<\|tool_list_end\|>` | the end of the system prompt, after a line feed |
/// | granite | `<\|start_of_role\|>available_tools<\|end_of_role\|>` the list as indented JSON `<\|end_of_text\|>\n` | a turn of its own, after the system turn |
/// | olmo-3 | `You have access to the following functions. …` the `<function_calls>` examples, then `<functions>` one JSON object a line `</functions>` (vLLM's Olmo 3 template) | the end of the system message, after `\n\n` |
/// | xlam | `You have access to a set of tools. …` then each tool as indented JSON and a blank line (vLLM's xLAM template, whose instruction stands in its default system message) | the end of the system message, after a line feed |
/// | deepseek-v3 | `You are a helpful assistant with tool calling capabilities. …` then each tool as a ```` ```json ```` block (SGLang's DeepSeek V3 template) | the end of the system prompt, after `\n\n` |
/// | cohere-command | `You have been trained to have advanced reasoning and tool-use capabilities …` the `## Tool Use` steps, then `## Available Tools` and the tools as a JSON list in a ```` ```json ```` fence (Command R7B's template, which splices names and descriptions unescaped) | the system preamble, after its languages paragraph and `\n\n` |
/// | apertus | `Tool Capabilities:` then gpt-oss-like `type NAME = (_: {…}) => any;` per tool | the developer message, after `Deliberation: …\n` |
/// | gemma-4 | `<\|tool>declaration:NAME{description:<\|"\|>…<\|"\|>,parameters:{…}}<tool\|>` per tool, in Gemma's object syntax with keys sorted (its template's `format_function_declaration`; a property that is not an object, which the template fails on, is left out) | the system turn, after the system message |
/// | morph-xml, step-3, hunyuan, minicpm5, functiongemma, host-written descriptions, and a json-call or xml-params preset whose call markers `tool_call_markers` replaces | the conventional form: hermes' `# Tools` header and `<tools>` list, then `For each function call, write it in this format:` and one example call written by [`format_tool_calls`] | the end of the system prompt |
/// | passthrough | no tools: an error (an empty list writes nothing) | |
///
/// An empty list writes nothing, as the templates do. The JSON is written as transformers'
/// `tojson` writes it (`json.dumps` with `ensure_ascii=False`): `", "` and `": "` (llama3-json:
/// `indent=4`), unicode as it is, only `"`, `\`, and control characters escaped; keys in the
/// order the host gave them and numbers as the host spelled them (Python would respell
/// `1.50` as `1.5`). Where a template dumps the whole tool, it is the OpenAI form hosts pass
/// to `apply_chat_template`, `{"type": "function", "function": {"name", "description",
/// "parameters"}}`, a key left out when the host gave none. qwen3-coder writes other schema
/// keys as its template does (objects as JSON, other values as Python's `str`: `True`,
/// `['a', 'b']`).
///
/// Guards: in JSON strings the first character of the family's markers (`</tools>`, `<|`,
/// `[/AVAILABLE_TOOLS]`, …) is written as a `\u` escape: the same value, no marker. Text the
/// templates write raw (qwen3-coder's and harmony's descriptions, deepseek-v3.1's) is written
/// raw, as they do: a description is the host's prompt text.
///
/// ```
/// use tokensieve::{Config, Dialect};
/// use tokensieve::format::{format_tool_definitions, ToolDef};
/// let tools = [ToolDef {
///     name: "get_weather",
///     description: Some("Get the weather."),
///     schema: Some(r#"{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}"#),
/// }];
/// let text = format_tool_definitions(&Config::new(Dialect::KimiK2), &tools).unwrap();
/// assert_eq!(text, "<|im_system|>tool_declare<|im_middle|>[{\"type\": \"function\", \"function\": \
///     {\"name\": \"get_weather\", \"description\": \"Get the weather.\", \"parameters\": {\"type\": \
///     \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}, \"required\": [\"city\"]}}}]<|im_end|>");
///
/// let ts = format_tool_definitions(&Config::new(Dialect::Harmony), &tools).unwrap();
/// assert_eq!(ts, "# Tools\n\n## functions\n\nnamespace functions {\n\n// Get the weather.\n\
///     type get_weather = (_: {\ncity: string,\n}) => any;\n\n} // namespace functions");
///
/// let bad = [ToolDef { name: "f", description: None, schema: Some("{\"type\": ") }];
/// let err = format_tool_definitions(&Config::new(Dialect::Hermes), &bad).unwrap_err();
/// assert_eq!(err.to_string(), "tool 0: the schema is not JSON: unexpected end of input at byte 9");
/// ```
pub fn format_tool_definitions(
    config: &Config<'_>,
    tools: &[ToolDef<'_>],
) -> Result<String, FormatError> {
    let mut read = Vec::with_capacity(tools.len());
    for (i, t) in tools.iter().enumerate() {
        read.push(read_tool(i, t)?);
    }
    let mut out = String::new();
    if read.is_empty() {
        return Ok(out);
    }
    // A host's description, or markers that replace a preset's call markers (which its
    // template's instruction spells): the conventional form, whose example call is written
    // with the markers in force.
    let markers_replaced = config.tool_call_markers.is_some()
        && Description::preset(config.dialect)
            .is_some_and(|d| matches!(d.shape, Shape::JsonCall | Shape::XmlParams));
    if config.description.is_some() || markers_replaced {
        families::conventional(&mut out, &read, &example(config));
        return Ok(out);
    }
    match config.dialect {
        Dialect::Passthrough => {
            return Err(FormatError {
                call: 0,
                kind: FormatErrorKind::NoToolCalls,
            });
        }
        Dialect::Hermes => families::hermes(&mut out, &read),
        Dialect::Qwen3Coder => families::qwen3_coder(&mut out, &read),
        Dialect::AnthropicXml => families::anthropic(&mut out, &read),
        Dialect::Harmony => families::harmony(&mut out, &read),
        Dialect::Llama3Json => families::llama3(&mut out, &read),
        Dialect::Mistral => families::list(
            &mut out,
            &read,
            "[AVAILABLE_TOOLS]",
            "[/AVAILABLE_TOOLS]",
            &["[/AVAILABLE_TOOLS]", "[TOOL_CALLS]", "[INST]"],
        ),
        Dialect::Inkling => families::inkling(&mut out, &read),
        Dialect::KimiK2 => families::list(
            &mut out,
            &read,
            "<|im_system|>tool_declare<|im_middle|>",
            "<|im_end|>",
            &["<|"],
        ),
        Dialect::DeepSeekV31 => families::deepseek_v31(&mut out, &read),
        Dialect::Glm45 => families::glm(&mut out, &read),
        Dialect::MinimaxM2 => families::minimax(&mut out, &read),
        Dialect::SeedOss => families::seed_oss(&mut out, &read),
        Dialect::DeepSeekV32 => families::deepseek_v32(&mut out, &read),
        Dialect::DeepSeekV4 => families::deepseek_v4(&mut out, &read),
        Dialect::Pythonic => families::pythonic(&mut out, &read),
        Dialect::CohereCommand => families::cohere(&mut out, &read),
        Dialect::Gemma4 => families::gemma4(&mut out, &read),
        Dialect::Apertus => families::apertus(&mut out, &read),
        Dialect::Olmo3 => families::olmo3(&mut out, &read),
        Dialect::Xlam => families::xlam(&mut out, &read),
        Dialect::DeepSeekV3 => families::deepseek_v3(&mut out, &read),
        Dialect::Phi4Mini => families::phi4_mini(&mut out, &read),
        Dialect::Granite => families::granite(&mut out, &read),
        Dialect::Lfm2 => families::list(
            &mut out,
            &read,
            "List of tools: <|tool_list_start|>",
            "<|tool_list_end|>",
            &["<|"],
        ),
        _ => families::conventional(&mut out, &read, &example(config)),
    }
    Ok(out)
}

/// One example call in the configured format, for the conventional section.
fn example(config: &Config<'_>) -> String {
    let call = ToolCallIn {
        name: "example_function_name",
        id: None,
        arguments: r#"{"example_parameter": "value"}"#,
    };
    match format_tool_calls(config, &[call]) {
        Ok(text) => text,
        // morph-xml writes only configured tools: its shape, by hand.
        Err(_) => "<example_function_name><example_parameter>value</example_parameter></example_function_name>".into(),
    }
}
