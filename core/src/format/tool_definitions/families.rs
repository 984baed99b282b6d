//! Each family's tool-definition section, as its chat template renders it.

use alloc::string::String;
use alloc::vec::Vec;

use super::py::{json, json_compact_sorted, json_indented, py_str};
use super::{Tool, get, get_str, truthy};
use crate::format::tool_calls::args::J;

/// `{"type": "function", "function": {"name": …, "description": …, "parameters": …}}`: the
/// OpenAI form hosts pass to `apply_chat_template`, which most templates dump whole.
pub(super) fn openai(out: &mut String, t: &Tool<'_>, markers: &[&str], indent: bool) {
    let tree = openai_tree(t);
    if indent {
        json_indented(out, &tree, markers, 0);
    } else {
        json(out, &tree, markers);
    }
}

fn openai_tree<'a>(t: &Tool<'a>) -> J<'a> {
    J::Obj(alloc::vec![
        ("type".into(), J::Str("function".into())),
        ("function".into(), function(t)),
    ])
}

/// `{"name": …, "description": …, "parameters": …}` (a key left out when the host gave none).
pub(super) fn function<'a>(t: &Tool<'a>) -> J<'a> {
    let mut members = alloc::vec![("name".into(), J::Str(t.name.into()))];
    if let Some(d) = t.description {
        members.push(("description".into(), J::Str(d.into())));
    }
    if let Some(p) = &t.params {
        members.push(("parameters".into(), p.clone()));
    }
    J::Obj(members)
}

/// A JSON list of tools after a `# Tools` header, as Qwen 2.5/3's template (hermes) writes
/// it; `close` ends the list.
const HERMES_HEAD: &str = "# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>";

pub(super) fn hermes(out: &mut String, tools: &[Tool<'_>]) {
    const MARKERS: &[&str] = &["</tools>", "<tool_call>", "</tool_call>", "<|im_"];
    out.push_str(HERMES_HEAD);
    for t in tools {
        out.push('\n');
        openai(out, t, MARKERS, false);
    }
    out.push_str("\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>");
}

pub(super) fn glm(out: &mut String, tools: &[Tool<'_>]) {
    const MARKERS: &[&str] = &["</tools>", "<tool_call>", "</tool_call>", "<|"];
    out.push_str(HERMES_HEAD);
    out.push('\n');
    for t in tools {
        openai(out, t, MARKERS, false);
        out.push('\n');
    }
    out.push_str("</tools>\n\nFor each function call, output the function name and arguments within the following XML format:\n<tool_call>{function-name}\n<arg_key>{arg-key-1}</arg_key>\n<arg_value>{arg-value-1}</arg_value>\n<arg_key>{arg-key-2}</arg_key>\n<arg_value>{arg-value-2}</arg_value>\n...\n</tool_call>");
}

pub(super) fn minimax(out: &mut String, tools: &[Tool<'_>]) {
    const MARKERS: &[&str] = &[
        "</tool>",
        "</tools>",
        "<minimax:",
        "</minimax:",
        "]~b]",
        "[e~[",
    ];
    out.push_str("# Tools\nYou may call one or more tools to assist with the user query.\nHere are the tools available in JSONSchema format:\n\n<tools>\n");
    for t in tools {
        out.push_str("<tool>");
        json(out, &function(t), MARKERS);
        out.push_str("</tool>\n");
    }
    out.push_str("</tools>\n\nWhen making tool calls, use XML format to invoke tools and pass parameters:\n\n<minimax:tool_call>\n<invoke name=\"tool-name-1\">\n<parameter name=\"param-key-1\">param-value-1</parameter>\n<parameter name=\"param-key-2\">param-value-2</parameter>\n...\n</invoke>\n</minimax:tool_call>");
}

/// The tools as one JSON list between two markers (kimi-k2's `tool_declare` message,
/// mistral's `[AVAILABLE_TOOLS]`).
pub(super) fn list(
    out: &mut String,
    tools: &[Tool<'_>],
    open: &str,
    close: &str,
    markers: &[&str],
) {
    out.push_str(open);
    out.push('[');
    for (i, t) in tools.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        openai(out, t, markers, false);
    }
    out.push(']');
    out.push_str(close);
}

/// Inkling's `tool_declare` system message: each tool as the four keys its template builds
/// (`description` `""` and `parameters` `{}` when absent, `type` `"function"`), written
/// with sorted keys at every depth and no spaces (`tojson(sort_keys=True, separators=(",",
/// ":"))`).
pub(super) fn inkling(out: &mut String, tools: &[Tool<'_>]) {
    // Every Inkling marker is a `<|…|>` special token.
    const MARKERS: &[&str] = &["<|"];
    out.push_str("<|message_system|>tool_declare<|content_xml|>[");
    for (i, t) in tools.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let params = match &t.params {
            Some(p) if truthy(Some(p)) => p.clone(),
            _ => J::Obj(Vec::new()),
        };
        let tree = J::Obj(alloc::vec![
            (
                "description".into(),
                J::Str(t.description.unwrap_or("").into())
            ),
            ("name".into(), J::Str(t.name.into())),
            ("parameters".into(), params),
            ("type".into(), J::Str("function".into())),
        ]);
        json_compact_sorted(out, &tree, MARKERS);
    }
    out.push_str("]<|end_message|>");
}

pub(super) fn deepseek_v31(out: &mut String, tools: &[Tool<'_>]) {
    const MARKERS: &[&str] = &["<｜"];
    out.push_str("## Tools\nYou have access to the following tools:\n");
    for t in tools {
        out.push_str("\n### ");
        out.push_str(t.name);
        out.push_str("\nDescription: ");
        out.push_str(t.description.unwrap_or(""));
        out.push_str("\n\nParameters: ");
        match &t.params {
            Some(p) => json(out, p, MARKERS),
            None => out.push_str("{}"),
        }
        out.push('\n');
    }
    out.push_str("\nIMPORTANT: ALWAYS adhere to this exact format for tool use:\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>tool_call_name<｜tool▁sep｜>tool_call_arguments<｜tool▁call▁end｜>{{additional_tool_calls}}<｜tool▁calls▁end｜>\n\nWhere:\n\n- `tool_call_name` must be an exact match to one of the available tools\n- `tool_call_arguments` must be valid JSON that strictly follows the tool's Parameters Schema\n- For multiple tool calls, chain them directly without separators or spaces\n");
}

pub(super) fn llama3(out: &mut String, tools: &[Tool<'_>]) {
    const MARKERS: &[&str] = &["<|"];
    out.push_str("Given the following functions, please respond with a JSON for a function call with its proper arguments that best answers the given prompt.\n\nRespond in the format {\"name\": function name, \"parameters\": dictionary of argument name and its value}.Do not use variables.\n\n");
    for t in tools {
        openai(out, t, MARKERS, true);
        out.push_str("\n\n");
    }
}

pub(super) fn anthropic(out: &mut String, tools: &[Tool<'_>]) {
    const MARKERS: &[&str] = &["</function>", "</functions>", "<function_calls>"];
    out.push_str("In this environment you have access to a set of tools you can use to answer the user's question.\nYou can invoke functions by writing a \"<function_calls>\" block like the following as part of your reply to the user:\n<function_calls>\n<invoke name=\"$FUNCTION_NAME\">\n<parameter name=\"$PARAMETER_NAME\">$PARAMETER_VALUE</parameter>\n...\n</invoke>\n<invoke name=\"$FUNCTION_NAME2\">\n...\n</invoke>\n</function_calls>\n\nString and scalar parameters should be specified as is, while lists and objects should use JSON format.\n\nHere are the functions available in JSONSchema format:\n<functions>");
    for t in tools {
        // Claude's own prompt orders the keys description, name, parameters.
        let mut members = Vec::new();
        if let Some(d) = t.description {
            members.push(("description".into(), J::Str(d.into())));
        }
        members.push(("name".into(), J::Str(t.name.into())));
        if let Some(p) = &t.params {
            members.push(("parameters".into(), p.clone()));
        }
        out.push_str("\n<function>");
        json(out, &J::Obj(members), MARKERS);
        out.push_str("</function>");
    }
    out.push_str("\n</functions>");
}

// --- qwen3-coder ---------------------------------------------------------------------------

/// `\n<required>[`a`, `b`]</required>` (`render_item_list`): nothing for an empty list.
fn item_list(out: &mut String, list: Option<&J<'_>>) {
    let Some(J::Arr(items)) = list else { return };
    if items.is_empty() {
        return;
    }
    out.push_str("\n<required>[");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        match item {
            J::Str(s) => {
                out.push('`');
                out.push_str(s);
                out.push('`');
            }
            other => py_str(out, other),
        }
    }
    out.push_str("]</required>");
}

pub(super) fn qwen3_coder(out: &mut String, tools: &[Tool<'_>]) {
    out.push_str("You have access to the following functions:\n\n<tools>");
    for t in tools {
        out.push_str("\n<function>\n<name>");
        out.push_str(t.name);
        out.push_str("</name>\n<description>");
        out.push_str(t.description.unwrap_or("").trim());
        out.push_str("</description>\n<parameters>");
        let params = t.params.as_ref();
        if let Some(J::Obj(props)) = params.and_then(|p| get(p, "properties")) {
            for (name, fields) in props {
                out.push_str("\n<parameter>\n<name>");
                out.push_str(name);
                out.push_str("</name>");
                if let Some(ty) = get(fields, "type") {
                    out.push_str("\n<type>");
                    py_str(out, ty);
                    out.push_str("</type>");
                }
                if let Some(d) = get(fields, "description") {
                    let mut s = String::new();
                    py_str(&mut s, d);
                    out.push_str("\n<description>");
                    out.push_str(s.trim());
                    out.push_str("</description>");
                }
                if let J::Obj(members) = fields {
                    for (key, value) in members {
                        if key.is_empty()
                            || matches!(key.as_str(), "type" | "description" | "enum" | "required")
                        {
                            continue;
                        }
                        let key: String = key
                            .chars()
                            .filter(|&c| c != '$')
                            .map(|c| if c == '-' || c == ' ' { '_' } else { c })
                            .collect();
                        match value {
                            J::Null => continue,
                            J::Obj(_) => {
                                out.push_str("\n<");
                                out.push_str(&key);
                                out.push('>');
                                json(out, value, &[]);
                            }
                            other => {
                                out.push_str("\n<");
                                out.push_str(&key);
                                out.push('>');
                                py_str(out, other);
                            }
                        }
                        out.push_str("</");
                        out.push_str(&key);
                        out.push('>');
                    }
                }
                item_list(out, get(fields, "required"));
                out.push_str("\n</parameter>");
            }
        }
        item_list(out, params.and_then(|p| get(p, "required")));
        out.push_str("\n</parameters>\n</function>");
    }
    out.push_str("\n</tools>\n\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n<parameter=example_parameter_2>\nThis is the value for the second parameter\nthat can span\nmultiple lines\n</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\nReminder:\n- Function calls MUST follow the specified format: an inner <function=...></function> block must be nested within <tool_call></tool_call> XML tags\n- Required parameters MUST be specified\n- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after\n- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls\n</IMPORTANT>");
}

// --- harmony -------------------------------------------------------------------------------

fn required(spec: &J<'_>, name: &str) -> bool {
    matches!(get(spec, "required"), Some(J::Arr(r)) if r.iter().any(|x| matches!(x, J::Str(s) if s == name)))
}

/// gpt-oss's `render_typescript_type`.
fn ts(spec: &J<'_>) -> String {
    let mut s = String::new();
    let ty = get(spec, "type");
    let nullable = truthy(get(spec, "nullable"));
    if get_str(spec, "type") == Some("array") {
        match get(spec, "items") {
            Some(items) if truthy(Some(items)) => match get_str(items, "type") {
                Some("string") => s.push_str("string[]"),
                Some("number" | "integer") => s.push_str("number[]"),
                Some("boolean") => s.push_str("boolean[]"),
                _ => {
                    let inner = ts(items);
                    if inner == "object | object" || inner.chars().count() > 50 {
                        s.push_str("any[]");
                    } else {
                        s.push_str(&inner);
                        s.push_str("[]");
                    }
                }
            },
            _ => s.push_str("any[]"),
        }
        if nullable {
            s.push_str(" | null");
        }
    } else if let Some(J::Arr(types)) = ty.filter(|t| truthy(Some(t))) {
        for (i, t) in types.iter().enumerate() {
            if i > 0 {
                s.push_str(" | ");
            }
            py_str(&mut s, t);
        }
    } else if truthy(get(spec, "oneOf")) {
        // The template's `has_object_variants` is set inside a loop, which Jinja scopes to
        // the loop: every variant is written.
        if let Some(J::Arr(variants)) = get(spec, "oneOf") {
            for (i, v) in variants.iter().enumerate() {
                s.push_str(&ts(v));
                if let Some(d) = get(v, "description").filter(|d| truthy(Some(d))) {
                    s.push_str("// ");
                    py_str(&mut s, d);
                }
                if let Some(d) = get(v, "default") {
                    s.push_str("                    // default: ");
                    json(&mut s, d, &[]);
                }
                if i + 1 < variants.len() {
                    s.push_str(" | \n");
                }
            }
        }
    } else {
        match get_str(spec, "type") {
            Some("string") => match get(spec, "enum").filter(|e| truthy(Some(e))) {
                Some(J::Arr(values)) => {
                    s.push('"');
                    for (i, v) in values.iter().enumerate() {
                        if i > 0 {
                            s.push_str("\" | \"");
                        }
                        py_str(&mut s, v);
                    }
                    s.push('"');
                }
                _ => {
                    s.push_str("string");
                    if nullable {
                        s.push_str(" | null");
                    }
                }
            },
            Some("number" | "integer") => s.push_str("number"),
            Some("boolean") => s.push_str("boolean"),
            Some("object") => match get(spec, "properties") {
                Some(J::Obj(props)) if !props.is_empty() => {
                    s.push_str("{\n");
                    for (i, (name, prop)) in props.iter().enumerate() {
                        s.push_str(name);
                        if !required(spec, name) {
                            s.push('?');
                        }
                        // The template writes the type after a line break and its own
                        // indentation (a `{{ }}` without whitespace control).
                        s.push_str(": \n                ");
                        s.push_str(&ts(prop));
                        if i + 1 < props.len() {
                            s.push_str(", ");
                        }
                    }
                    s.push('}');
                }
                _ => s.push_str("object"),
            },
            _ => s.push_str("any"),
        }
    }
    s
}

pub(super) fn harmony(out: &mut String, tools: &[Tool<'_>]) {
    out.push_str("# Tools\n\n## functions\n\nnamespace functions {\n\n");
    for t in tools {
        ts_tool(out, t, true);
        out.push_str("\n\n");
    }
    out.push_str("} // namespace functions");
}

/// One tool as `type NAME = (_: {…}) => any;` after its description comment. gpt-oss ends
/// every parameter with `,`; Apertus (`harmony: false`) all but the last.
fn ts_tool(out: &mut String, t: &Tool<'_>, harmony: bool) {
    if let Some(d) = t.description {
        out.push_str("// ");
        out.push_str(d);
        out.push('\n');
    }
    out.push_str("type ");
    out.push_str(t.name);
    out.push_str(" = ");
    let params = t.params.as_ref();
    match params.and_then(|p| get(p, "properties")) {
        Some(J::Obj(props)) if !props.is_empty() => {
            let params = params.unwrap_or(&J::Null);
            out.push_str("(_: {\n");
            for (i, (name, spec)) in props.iter().enumerate() {
                if let Some(d) = get(spec, "description").filter(|d| truthy(Some(d))) {
                    out.push_str("// ");
                    py_str(out, d);
                    out.push('\n');
                }
                out.push_str(name);
                if !required(params, name) {
                    out.push('?');
                }
                out.push_str(": ");
                out.push_str(&ts(spec));
                if let Some(d) = get(spec, "default") {
                    if truthy(get(spec, "enum")) {
                        out.push_str(", // default: ");
                        py_str(out, d);
                    } else if truthy(get(spec, "oneOf")) {
                        out.push_str("// default: ");
                        py_str(out, d);
                    } else {
                        out.push_str(", // default: ");
                        json(out, d, &[]);
                    }
                }
                out.push_str(if harmony || i + 1 < props.len() {
                    ",\n"
                } else {
                    "\n"
                });
            }
            out.push_str("}) => any;");
        }
        _ => out.push_str("() => any;"),
    }
}

/// The conventional section for a family whose template writes none we follow: the tools
/// as hermes lists them, then one example call written as the model writes it.
pub(super) fn conventional(out: &mut String, tools: &[Tool<'_>], example: &str) {
    out.push_str(HERMES_HEAD);
    for t in tools {
        out.push('\n');
        openai(out, t, &["</tools>", "<|"], false);
    }
    out.push_str("\n</tools>\n\nFor each function call, write it in this format:\n");
    out.push_str(example);
}

// --- seed-oss ------------------------------------------------------------------------------

/// Seed-OSS's `py_type`: the schema type as a Python annotation.
fn seed_type(spec: &J<'_>) -> &'static str {
    match get_str(spec, "type") {
        Some("string") => "str",
        Some("number" | "integer") => "int",
        Some("boolean") => "bool",
        Some("array") => "list",
        _ => "Any",
    }
}

/// Seed-OSS's template: each tool as a Python signature and docstring (`Args:` with
/// `[必填]`/`[选填]` for required/optional), then the `<seed:tool_call>` instruction.
pub(super) fn seed_oss(out: &mut String, tools: &[Tool<'_>]) {
    let empty = Vec::new();
    for (i, t) in tools.iter().enumerate() {
        if i > 0 {
            out.push_str("\n\n");
        }
        let params = t.params.as_ref();
        let props = match params.and_then(|p| get(p, "properties")) {
            Some(J::Obj(props)) => props,
            _ => &empty,
        };
        out.push_str("Function:\ndef ");
        out.push_str(t.name);
        out.push('(');
        for (j, (name, spec)) in props.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            out.push_str(name);
            out.push_str(": ");
            out.push_str(seed_type(spec));
        }
        out.push_str("):\n    \"\"\"\n    ");
        out.push_str(t.description.unwrap_or("").trim());
        out.push_str("\n\n");
        if !props.is_empty() {
            out.push_str("    Args:");
            for (name, spec) in props {
                out.push_str("\n    - ");
                out.push_str(name);
                out.push_str(" (");
                out.push_str(seed_type(spec));
                out.push_str(") ");
                let required = params.is_some_and(|p| required(p, name));
                out.push_str(if required { "[必填]" } else { "[选填]" });
                out.push_str(": ");
                if let Some(d) = get(spec, "description").filter(|d| truthy(Some(d))) {
                    py_str(out, d);
                }
            }
        }
        out.push_str("\n\n    \"\"\"");
    }
    out.push_str("\n工具调用请遵循如下格式:\n<seed:tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>value_1</parameter>\n<parameter=example_parameter_2>This is the value for the second parameter\nthat can span\nmultiple lines</parameter>\n</function>\n</seed:tool_call>\n");
}

// --- DSML (deepseek-v3.2, deepseek-v4) -----------------------------------------------------

const DSML_MARKERS: &[&str] = &["<｜", "</｜"];

pub(super) fn deepseek_v32(out: &mut String, tools: &[Tool<'_>]) {
    out.push_str("## Tools\n\nYou have access to a set of tools you can use to answer the user's question.\nYou can invoke functions by writing a \"<｜DSML｜function_calls>\" block like the following as part of your reply to the user:\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"$FUNCTION_NAME\">\n<｜DSML｜parameter name=\"$PARAMETER_NAME\" string=\"true|false\">$PARAMETER_VALUE</｜DSML｜parameter>\n...\n</｜DSML｜invoke>\n<｜DSML｜invoke name=\"$FUNCTION_NAME2\">\n...\n</｜DSML｜invoke>\n</｜DSML｜function_calls>\n\nString and scalar parameters should be specified as is without any escaping or quotes, while lists and objects should use JSON format. The \"string\" attribute should be set to \"true\" for string type parameters and \"false\" for other types (numbers, booleans, arrays, objects).\n\nIf the thinking_mode is enabled, then after function results you should strongly consider outputting a thinking block. Here is an example:\n\n<｜DSML｜function_calls>\n...\n</｜DSML｜function_calls>\n\n<function_results>\n...\n</function_results>\n\n<think>...thinking about results</think>\n\nHere are the functions available in JSONSchema format:\n<functions>");
    for t in tools {
        out.push('\n');
        openai(out, t, DSML_MARKERS, false);
    }
    out.push_str("\n</functions>");
}

pub(super) fn deepseek_v4(out: &mut String, tools: &[Tool<'_>]) {
    out.push_str("## Tools\n\nYou have access to a set of tools to help answer the user's question. You can invoke tools by writing a \"<｜DSML｜tool_calls>\" block like the following:\n\n<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"$TOOL_NAME\">\n<｜DSML｜parameter name=\"$PARAMETER_NAME\" string=\"true|false\">$PARAMETER_VALUE</｜DSML｜parameter>\n...\n</｜DSML｜invoke>\n<｜DSML｜invoke name=\"$TOOL_NAME2\">\n...\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>\n\nString parameters should be specified as is and set `string=\"true\"`. For all other types (numbers, booleans, arrays, objects), pass the value in JSON format and set `string=\"false\"`.\n\nIf thinking_mode is enabled (triggered by <think>), you MUST output your complete reasoning inside <think>...</think> BEFORE any tool calls or final response.\n\nOtherwise, output directly after </think> with tool calls or final response.\n\n### Available Tool Schemas\n\n");
    for (i, t) in tools.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        json(out, &function(t), DSML_MARKERS);
    }
    out.push_str("\n\nYou MUST strictly follow the above defined tool name and parameter schemas to invoke tool calls.\n");
}

// --- the Llama-style indented lists (pythonic, phi-4-mini, granite) ------------------------

const LLAMA_MARKERS: &[&str] = &["<|"];

pub(super) fn pythonic(out: &mut String, tools: &[Tool<'_>]) {
    out.push_str("You have access to the following functions. To call functions, please respond with a python list of the calls. Respond in the format [func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)] Do not use variables.\n\n");
    for t in tools {
        openai(out, t, LLAMA_MARKERS, true);
        out.push_str("\n\n");
    }
}

pub(super) fn phi4_mini(out: &mut String, tools: &[Tool<'_>]) {
    out.push_str("In addition to plain text responses, you can choose to call one or more of the provided functions.\n\nUse the following rule to decide when to call a function:\n  * if the response can be generated from your internal knowledge (e.g., as in the case of queries like \"What is the capital of Poland?\"), do so\n  * if you need external information that can be obtained by calling one or more of the provided functions, generate a function calls\n\nIf you decide to call functions:\n  * prefix function calls with functools marker (no closing marker required)\n  * all function calls should be generated in a single JSON list formatted as functools[{\"name\": [function name], \"arguments\": [function arguments as JSON]}, ...]\n  * follow the provided JSON schema. Do not hallucinate arguments or values. Do to blindly copy values from the provided samples\n  * respect the argument type formatting. E.g., if the type is number and format is float, write value 7 as 7.0\n  * make sure you pick the right functions that match the user intent");
    for t in tools {
        openai(out, t, &["<|", "functools["], true);
        out.push_str("\n\n");
    }
}

pub(super) fn granite(out: &mut String, tools: &[Tool<'_>]) {
    out.push_str("<|start_of_role|>available_tools<|end_of_role|>");
    let list = J::Arr(tools.iter().map(openai_tree).collect());
    json_indented(out, &list, &["<|"], 0);
    out.push_str("<|end_of_text|>\n");
}

pub(super) fn olmo3(out: &mut String, tools: &[Tool<'_>]) {
    out.push_str("You have access to the following functions. To call functions, respond with a pythonic function call wrapped in <function_calls></function_calls> XML tags.\n\nFor example, to call a function named 'get_weather' with parameters city='New York' and units='celsius', respond with:\n<function_calls>\nget_weather(city='New York', units='celsius')\n</function_calls>\n\nYou can call multiple functions by putting each call on a new line within the tags:\n<function_calls>\nfunction1(param1='value1')\nfunction2(param2='value2')\n</function_calls>\n\nHere are the available functions:\n<functions>\n");
    for (i, t) in tools.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        json(
            out,
            &function(t),
            &["</functions>", "<function_calls>", "<|im_"],
        );
    }
    out.push_str("\n</functions>");
}

pub(super) fn xlam(out: &mut String, tools: &[Tool<'_>]) {
    out.push_str("You have access to a set of tools. When using tools, make calls in a single JSON array: \n\n[{\"name\": \"tool_call_name\", \"arguments\": {\"arg1\": \"value1\", \"arg2\": \"value2\"}}, ... (additional parallel tool calls as needed)]\n\nIf no tool is suitable, state that explicitly. If the user's input lacks required parameters, ask for clarification. Do not interpret or respond until tool results are returned. Once they are available, process them or make additional calls if needed. For tasks that don't require tools, such as casual conversation or general advice, respond directly in plain text. The available tools are:\n\n");
    for t in tools {
        openai(out, t, &["<|im_"], true);
        out.push_str("\n\n");
    }
}

pub(super) fn deepseek_v3(out: &mut String, tools: &[Tool<'_>]) {
    out.push_str("You are a helpful assistant with tool calling capabilities. When a tool call is needed, you MUST use the following format to issue the call:\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>FUNCTION_NAME\n```json\n{\"param1\": \"value1\", \"param2\": \"value2\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>\n\nMake sure the JSON is valid.## Tools\n\n### Function\n\nYou have the following functions available:\n\n");
    for t in tools {
        out.push_str("\n```json\n");
        openai(out, t, &["<｜", "```"], false);
        out.push_str("\n```\n");
    }
}

// --- cohere-command ------------------------------------------------------------------------

/// Command R7B's tool-use instructions, up to the tool list.
const COHERE_HEAD: &str = r#"You have been trained to have advanced reasoning and tool-use capabilities and you should make best use of these skills to serve user's requests.

## Tool Use
Think about how you can make best use of the provided tools to help with the task and come up with a high level plan that you will execute first.

0. Start by writing <|START_THINKING|> followed by a detailed step by step plan of how you will solve the problem. For each step explain your thinking fully and give details of required tool calls (if needed). Unless specified otherwise, you write your plan in natural language. When you finish, close it out with <|END_THINKING|>.
    You can optionally choose to skip this step when the user request is so straightforward to address that only a trivial plan would be needed.
    NOTE: You MUST skip this step when you are directly responding to the user's request without using any tools.

Then carry out your plan by repeatedly executing the following steps.
1. Action: write <|START_ACTION|> followed by a list of JSON-formatted tool calls, with each one containing "tool_name" and "parameters" fields.
    When there are multiple tool calls which are completely independent of each other (i.e. they can be executed in parallel), you should list them out all together in one step. When you finish, close it out with <|END_ACTION|>.
2. Observation: you will then receive results of those tool calls in JSON format in the very next turn, wrapped around by <|START_TOOL_RESULT|> and <|END_TOOL_RESULT|>. Carefully observe those results and think about what to do next. Note that these results will be provided to you in a separate turn. NEVER hallucinate results.
    Every tool call produces a list of results (when a tool call produces no result or a single result, it'll still get wrapped inside a list). Each result is clearly linked to its originating tool call via its "tool_call_id".
3. Reflection: start the next turn by writing <|START_THINKING|> followed by what you've figured out so far, any changes you need to make to your plan, and what you will do next. When you finish, close it out with <|END_THINKING|>.
    You can optionally choose to skip this step when everything is going according to plan and no special pieces of information or reasoning chains need to be recorded.
    NOTE: You MUST skip this step when you are done with tool-use actions and are ready to respond to the user.

You can repeat the above 3 steps multiple times (could be 0 times too if no suitable tool calls are available or needed), until you decide it's time to finally respond to the user.

4. Response: then break out of the loop and write <|START_RESPONSE|> followed by a piece of text which serves as a response to the user's last request. Use all previous tool calls and results to help you when formulating your response. When you finish, close it out with <|END_RESPONSE|>.

## Available Tools
Here is the list of tools that you have available to you.
You can ONLY use the tools listed here. When a tool is not listed below, it is NOT available and you should NEVER attempt to use it.
Each tool is represented as a JSON object with fields like "name", "description", "parameters" (per JSON Schema), and optionally, "responses" (per JSON Schema).

```json
[
"#;

/// Command R7B's template: the tool-use instructions, then the tools as a JSON list in a
/// ```` ```json ```` fence, each `{"name", "description", "parameters", "responses": null}`
/// — the name and description spliced between quotes as they are (the template does not
/// escape them), the parameters as JSON.
pub(super) fn cohere(out: &mut String, tools: &[Tool<'_>]) {
    out.push_str(COHERE_HEAD);
    for (i, t) in tools.iter().enumerate() {
        out.push_str("    {\"name\": \"");
        out.push_str(t.name);
        out.push_str("\", \"description\": \"");
        out.push_str(t.description.unwrap_or(""));
        out.push_str("\", \"parameters\": ");
        match &t.params {
            Some(p) => json(out, p, &["<|"]),
            None => out.push_str("{}"),
        }
        out.push_str(", \"responses\": null}");
        if i + 1 < tools.len() {
            out.push(',');
        }
        out.push('\n');
    }
    out.push_str("]\n```");
}

// --- apertus -------------------------------------------------------------------------------

/// Apertus's `render_tools`: gpt-oss's TypeScript-like types without the namespace, the last
/// parameter without a comma, the tools a line apart, after `Tool Capabilities:`.
pub(super) fn apertus(out: &mut String, tools: &[Tool<'_>]) {
    out.push_str("Tool Capabilities:\n");
    for (i, t) in tools.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        ts_tool(out, t, false);
    }
}

// --- gemma-4 -------------------------------------------------------------------------------

const GQ: &str = "<|\"|>";

/// Members sorted as Jinja's `dictsort` sorts them (by key, ignoring case; stable).
fn dictsort<'j, 'a>(members: &'j [(String, J<'a>)]) -> Vec<&'j (String, J<'a>)> {
    let mut sorted: Vec<_> = members.iter().collect();
    sorted.sort_by_cached_key(|(k, _)| k.to_lowercase());
    sorted
}

/// Gemma's `format_argument`: strings between `<|"|>`, maps with sorted keys.
fn gemma_arg(out: &mut String, v: &J<'_>, escape_keys: bool) {
    match v {
        J::Str(s) => {
            out.push_str(GQ);
            out.push_str(s);
            out.push_str(GQ);
        }
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Obj(members) => {
            out.push('{');
            for (i, (k, x)) in dictsort(members).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if escape_keys {
                    out.push_str(GQ);
                    out.push_str(k);
                    out.push_str(GQ);
                } else {
                    out.push_str(k);
                }
                out.push(':');
                gemma_arg(out, x, escape_keys);
            }
            out.push('}');
        }
        J::Arr(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                gemma_arg(out, x, escape_keys);
            }
            out.push(']');
        }
        other => py_str(out, other),
    }
}

/// `[<|"|>a<|"|>,<|"|>b<|"|>]`-style list of required names.
fn gemma_names(out: &mut String, list: Option<&J<'_>>) {
    if let Some(J::Arr(items)) = list {
        for (i, x) in items.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(GQ);
            py_str(out, x);
            out.push_str(GQ);
        }
    }
}

/// Gemma's `format_parameters`: the properties in sorted order, each
/// `NAME:{description:…,nullable:true,enum:…|properties:{…},required:[…]|items:{…},type:<|"|>TYPE<|"|>}`.
/// Keys named like schema keywords are skipped and a property that is not an object is left
/// out (the template fails on it).
fn gemma_params(out: &mut String, props: &[(String, J<'_>)]) {
    const STANDARD: &[&str] = &["description", "type", "properties", "required", "nullable"];
    let mut found_first = false;
    for (key, value) in dictsort(props) {
        if STANDARD.contains(&key.as_str()) || !matches!(value, J::Obj(_)) {
            continue;
        }
        if found_first {
            out.push(',');
        }
        found_first = true;
        out.push_str(key);
        out.push_str(":{");
        let mut add_comma = false;
        let mut comma = |out: &mut String| {
            if add_comma {
                out.push(',');
            }
            add_comma = true;
        };
        if let Some(d) = get(value, "description").filter(|d| truthy(Some(d))) {
            out.push_str("description:");
            out.push_str(GQ);
            py_str(out, d);
            out.push_str(GQ);
            comma(out);
        }
        if truthy(get(value, "nullable")) {
            comma(out);
            out.push_str("nullable:true");
        }
        let mut ty = String::new();
        match get(value, "type") {
            Some(J::Str(s)) => ty.push_str(s),
            Some(J::Arr(types)) => {
                if let Some(t) = types.first() {
                    py_str(&mut ty, t);
                }
            }
            _ => {}
        }
        let ty = ty.to_uppercase();
        match ty.as_str() {
            "STRING" => {
                if let Some(e) = get(value, "enum").filter(|e| truthy(Some(e))) {
                    comma(out);
                    out.push_str("enum:");
                    gemma_arg(out, e, true);
                }
            }
            "OBJECT" => {
                out.push_str(",properties:{");
                match (get(value, "properties"), value) {
                    (Some(J::Obj(p)), _) | (_, J::Obj(p)) => gemma_params(out, p),
                    _ => {}
                }
                out.push('}');
                if truthy(get(value, "required")) {
                    out.push_str(",required:[");
                    gemma_names(out, get(value, "required"));
                    out.push(']');
                }
            }
            "ARRAY" => {
                if let Some(J::Obj(items)) = get(value, "items").filter(|i| truthy(Some(i))) {
                    out.push_str(",items:{");
                    let mut first = true;
                    for (ik, iv) in dictsort(items) {
                        if matches!(iv, J::Null) {
                            continue;
                        }
                        if !first {
                            out.push(',');
                        }
                        first = false;
                        match ik.as_str() {
                            "properties" => {
                                out.push_str("properties:{");
                                if let J::Obj(p) = iv {
                                    gemma_params(out, p);
                                }
                                out.push('}');
                            }
                            "required" => {
                                out.push_str("required:[");
                                gemma_names(out, Some(iv));
                                out.push(']');
                            }
                            "type" => {
                                out.push_str("type:");
                                let upper = |x: &J<'_>| -> J<'static> {
                                    let mut s = String::new();
                                    py_str(&mut s, x);
                                    J::Str(s.to_uppercase())
                                };
                                match iv {
                                    J::Arr(xs) => gemma_arg(
                                        out,
                                        &J::Arr(xs.iter().map(upper).collect()),
                                        true,
                                    ),
                                    other => gemma_arg(out, &upper(other), true),
                                }
                            }
                            _ => {
                                out.push_str(ik);
                                out.push(':');
                                gemma_arg(out, iv, true);
                            }
                        }
                    }
                    out.push('}');
                }
            }
            _ => {}
        }
        comma(out);
        out.push_str("type:");
        out.push_str(GQ);
        out.push_str(&ty);
        out.push_str(GQ);
        out.push('}');
    }
}

/// Gemma 4's template: `<|tool>declaration:NAME{description:<|"|>…<|"|>,parameters:{…}}<tool|>`
/// per tool, Gemma's own object syntax, keys sorted.
pub(super) fn gemma4(out: &mut String, tools: &[Tool<'_>]) {
    for t in tools {
        out.push_str("<|tool>declaration:");
        out.push_str(t.name);
        out.push_str("{description:");
        out.push_str(GQ);
        out.push_str(t.description.unwrap_or(""));
        out.push_str(GQ);
        if let Some(params) = t.params.as_ref().filter(|p| truthy(Some(p))) {
            out.push_str(",parameters:{");
            if let Some(J::Obj(props)) = get(params, "properties").filter(|p| truthy(Some(p))) {
                out.push_str("properties:{");
                gemma_params(out, props);
                out.push_str("},");
            }
            if truthy(get(params, "required")) {
                out.push_str("required:[");
                gemma_names(out, get(params, "required"));
                out.push_str("],");
            }
            if let Some(ty) = get(params, "type").filter(|t| truthy(Some(t))) {
                let mut s = String::new();
                py_str(&mut s, ty);
                out.push_str("type:");
                out.push_str(GQ);
                out.push_str(&s.to_uppercase());
                out.push_str(GQ);
                out.push('}');
            }
        }
        out.push_str("}<tool|>");
    }
}
