//! The families with a writer of their own: each template's layout.

use super::*;

impl Writer<'_, '_> {
    pub(super) fn machine(
        &mut self,
        dialect: Dialect,
        calls: &[ToolCallIn<'_>],
        args: &[Args<'_>],
    ) -> Result<(), FormatError> {
        let spaced = |markers| JsonStyle {
            spaced: true,
            markers,
        };
        match dialect {
            Dialect::AnthropicXml => {
                let x = XmlValue {
                    framing: false,
                    closers: &["</parameter", "</antml:parameter", "<![CDATA[", "]]>"],
                    cdata: true,
                    entities: false,
                };
                let out = &mut self.out;
                out.push_str("<function_calls>\n");
                for (i, c) in calls.iter().enumerate() {
                    check(c.name, xml_attr_bad).map_err(|e| name_err(i, e))?;
                    out.push_str("<invoke name=\"");
                    out.push_str(c.name);
                    out.push_str("\">\n");
                    for (k, v) in &args[i] {
                        check(k, xml_attr_bad).map_err(|e| key_err(i, k, e))?;
                        out.push_str("<parameter name=\"");
                        out.push_str(k);
                        out.push_str("\">");
                        let ty = param_type(self.config, c.name, k);
                        push_xml_value(out, v, ty, x);
                        out.push_str("</parameter>\n");
                    }
                    out.push_str("</invoke>\n");
                }
                out.push_str("</function_calls>");
            }
            Dialect::Glm45 => {
                let x = XmlValue {
                    framing: false,
                    closers: &["</arg_value"],
                    cdata: false,
                    entities: false,
                };
                for (i, c) in calls.iter().enumerate() {
                    check(c.name, |ch| ws_or(ch, "<>")).map_err(|e| name_err(i, e))?;
                    if i > 0 {
                        self.out.push('\n');
                    }
                    self.out.push_str("<tool_call>");
                    self.out.push_str(c.name);
                    self.out.push('\n');
                    for (k, v) in &args[i] {
                        check(k, |ch| ch == '<')
                            .and_then(|()| trimmed(k))
                            .map_err(|e| key_err(i, k, e))?;
                        self.out.push_str("<arg_key>");
                        self.out.push_str(k);
                        self.out.push_str("</arg_key>\n<arg_value>");
                        let ty = param_type(self.config, c.name, k);
                        push_xml_value(&mut self.out, v, ty, x);
                        self.out.push_str("</arg_value>\n");
                    }
                    self.out.push_str("</tool_call>");
                }
            }
            Dialect::MorphXml => {
                let x = XmlValue {
                    framing: false,
                    closers: &[],
                    cdata: false,
                    entities: true,
                };
                for (i, c) in calls.iter().enumerate() {
                    xml_element_name(c.name).map_err(|e| name_err(i, e))?;
                    if self.config.tools.find(c.name.as_bytes()).is_none() {
                        return Err(name_err(
                            i,
                            "not a configured tool (morph-xml reads only those)",
                        ));
                    }
                    self.out.push('<');
                    self.out.push_str(c.name);
                    self.out.push('>');
                    for (k, v) in &args[i] {
                        xml_element_name(k).map_err(|e| key_err(i, k, e))?;
                        self.out.push('<');
                        self.out.push_str(k);
                        self.out.push('>');
                        let ty = param_type(self.config, c.name, k);
                        push_xml_value(&mut self.out, v, ty, x);
                        self.out.push_str("</");
                        self.out.push_str(k);
                        self.out.push('>');
                    }
                    self.out.push_str("</");
                    self.out.push_str(c.name);
                    self.out.push('>');
                }
            }
            Dialect::Harmony => {
                for (i, c) in calls.iter().enumerate() {
                    check(c.name, |ch| ws_or(ch, "<")).map_err(|e| name_err(i, e))?;
                    self.out.push_str("<|start|>assistant to=functions.");
                    self.out.push_str(c.name);
                    self.out.push_str("<|channel|>commentary json<|message|>");
                    push_json_obj(&mut self.out, &args[i], spaced(HARMONY_MARKERS));
                    self.out.push_str("<|call|>");
                }
            }
            Dialect::KimiK2 => {
                self.out.push_str("<|tool_calls_section_begin|>");
                for (i, c) in calls.iter().enumerate() {
                    check(c.name, |ch| ws_or(ch, "<|")).map_err(|e| name_err(i, e))?;
                    if kimi_name(c.name) != c.name {
                        return Err(name_err(
                            i,
                            "reads back as another name (`:digits` at its end)",
                        ));
                    }
                    self.out.push_str("<|tool_call_begin|>");
                    match c.id.filter(|id| {
                        check(id, |ch| ws_or(ch, "<|")).is_ok() && kimi_name(id) == c.name
                    }) {
                        Some(id) => self.out.push_str(id),
                        None => {
                            let _ = fmt::Write::write_fmt(
                                &mut self.out,
                                format_args!("functions.{}:{i}", c.name),
                            );
                        }
                    }
                    self.out.push_str("<|tool_call_argument_begin|>");
                    push_json_obj(&mut self.out, &args[i], spaced(KIMI_MARKERS));
                    self.out.push_str("<|tool_call_end|>");
                }
                self.out.push_str("<|tool_calls_section_end|>");
            }
            Dialect::DeepSeekV31 | Dialect::DeepSeekV3 => {
                let v3 = dialect == Dialect::DeepSeekV3;
                self.out.push_str("<｜tool▁calls▁begin｜>");
                for (i, c) in calls.iter().enumerate() {
                    check(c.name, |ch| ch == '\n' || ch == '\r')
                        .and_then(|()| trimmed(c.name))
                        .map_err(|e| name_err(i, e))?;
                    if c.name.contains("<｜") || c.name.contains('`') {
                        return Err(name_err(i, "holds a marker"));
                    }
                    if v3 && i > 0 {
                        self.out.push('\n');
                    }
                    self.out.push_str("<｜tool▁call▁begin｜>");
                    if v3 {
                        self.out.push_str("function<｜tool▁sep｜>");
                        self.out.push_str(c.name);
                        self.out.push_str("\n```json\n");
                    } else {
                        self.out.push_str(c.name);
                        self.out.push_str("<｜tool▁sep｜>");
                    }
                    let markers: &[&str] = if v3 {
                        &["<｜", "```"]
                    } else {
                        DEEPSEEK_MARKERS
                    };
                    push_json_obj(&mut self.out, &args[i], spaced(markers));
                    if v3 {
                        self.out.push_str("\n```");
                    }
                    self.out.push_str("<｜tool▁call▁end｜>");
                }
                self.out.push_str("<｜tool▁calls▁end｜>");
            }
            Dialect::Mistral => {
                for (i, c) in calls.iter().enumerate() {
                    check(c.name, |ch| ws_or(ch, "[]{}\"")).map_err(|e| name_err(i, e))?;
                    self.out.push_str("[TOOL_CALLS]");
                    self.out.push_str(c.name);
                    if let Some(id) = c.id {
                        check(id, |ch| ws_or(ch, "[]{}\"")).map_err(|_| FormatError {
                            call: i,
                            kind: FormatErrorKind::BadName("the id holds whitespace or brackets"),
                        })?;
                        self.out.push_str("[CALL_ID]");
                        self.out.push_str(id);
                    }
                    self.out.push_str("[ARGS]");
                    push_json_obj(&mut self.out, &args[i], spaced(MISTRAL_MARKERS));
                }
            }
            Dialect::Llama3Json => {
                for (i, c) in calls.iter().enumerate() {
                    check(c.name, |_| false).map_err(|e| name_err(i, e))?;
                    if i > 0 {
                        self.out.push_str("; ");
                    }
                    self.out.push_str("{\"name\": ");
                    push_json_str(&mut self.out, c.name, LLAMA3_MARKERS);
                    self.out.push_str(", \"parameters\": ");
                    push_json_obj(&mut self.out, &args[i], spaced(LLAMA3_MARKERS));
                    self.out.push('}');
                }
            }
            Dialect::Gemma4 | Dialect::FunctionGemma => {
                let (open, quote, close, markers): (&str, &str, &str, &[&str]) =
                    if dialect == Dialect::Gemma4 {
                        (
                            "<|tool_call>",
                            "<|\"|>",
                            "<tool_call|>",
                            &["<|\"|>", "<tool_call|>", "<|tool_call>"],
                        )
                    } else {
                        (
                            "<start_function_call>",
                            "<escape>",
                            "<end_function_call>",
                            &["<escape>", "<end_function_call>", "<start_function_call>"],
                        )
                    };
                for (i, c) in calls.iter().enumerate() {
                    check(c.name, |ch| ws_or(ch, "{<")).map_err(|e| name_err(i, e))?;
                    self.out.push_str(open);
                    self.out.push_str("call:");
                    self.out.push_str(c.name);
                    push_gemma_obj(&mut self.out, &args[i], quote, markers);
                    self.out.push_str(close);
                }
            }
            Dialect::MinimaxM3 => {
                // MiniMax's own writer's layout: one region, one invoke per call, each
                // argument an element named by its key, the token before every tag.
                let ns = core::str::from_utf8(crate::dialect::minimax_m3::NS).unwrap_or("");
                let out = &mut self.out;
                out.push_str(ns);
                out.push_str("<tool_call>\n");
                for (i, c) in calls.iter().enumerate() {
                    check(c.name, |ch| ch == '"' || ch == '<').map_err(|e| name_err(i, e))?;
                    out.push_str(ns);
                    out.push_str("<invoke name=\"");
                    out.push_str(c.name);
                    out.push_str("\">");
                    for (k, v) in &args[i] {
                        m3_key(k).map_err(|e| key_err(i, k, e))?;
                        out.push_str(ns);
                        out.push('<');
                        out.push_str(k);
                        out.push('>');
                        push_m3_value(out, v, param_type(self.config, c.name, k), ns);
                        out.push_str(ns);
                        out.push_str("</");
                        out.push_str(k);
                        out.push('>');
                    }
                    out.push_str(ns);
                    out.push_str("</invoke>\n");
                }
                out.push_str(ns);
                out.push_str("</tool_call>");
            }
            Dialect::KimiK3 => {
                // K3's encoder: the tools channel, a call element per call numbered from 1,
                // an argument element per argument, typed; attribute values escaped.
                self.out.push_str("<|open|>tools<|sep|>");
                for (i, c) in calls.iter().enumerate() {
                    check(c.name, |_| false)
                        .and_then(|()| k3_attr(c.name))
                        .map_err(|e| name_err(i, e))?;
                    self.out.push_str("<|open|>call tool=\"");
                    push_k3_attr(&mut self.out, c.name);
                    let _ = fmt::Write::write_fmt(
                        &mut self.out,
                        format_args!("\" index=\"{}\"<|sep|>", i + 1),
                    );
                    for (k, v) in &args[i] {
                        check(k, |_| false)
                            .and_then(|()| k3_attr(k))
                            .map_err(|e| key_err(i, k, e))?;
                        self.out.push_str("<|open|>argument key=\"");
                        push_k3_attr(&mut self.out, k);
                        self.out.push_str("\" type=\"");
                        push_k3_value(&mut self.out, v);
                        self.out.push_str("<|close|>argument<|sep|>");
                    }
                    self.out.push_str("<|close|>call<|sep|>");
                }
                self.out.push_str("<|close|>tools<|sep|>");
            }
            _ => {
                return Err(FormatError {
                    call: 0,
                    kind: FormatErrorKind::NoToolCalls,
                });
            }
        }
        Ok(())
    }
}

/// The markers kimi-k3's parser reads inside a value: a string holding one cannot stand raw.
const K3_VALUE_MARKERS: &[&str] = &[
    "<|close|>argument<|sep|>",
    "<|close|>call<|sep|>",
    "<|close|>tools<|sep|>",
    "<|close|>message<|sep|>",
    "<|open|>argument",
    "<|open|>call",
];

/// A kimi-k3 name or key: an attribute value, which must not spell a special token (the
/// header ends at `<|sep|>`, and the call's markers cut it off).
fn k3_attr(s: &str) -> Result<(), &'static str> {
    if s.contains("<|") {
        Err("holds a marker")
    } else {
        Ok(())
    }
}

/// A kimi-k3 attribute value: `&` then `"` escaped, as K3's encoder does.
fn push_k3_attr(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}

/// A kimi-k3 argument's type and value (`…type="` written): a string raw, as the encoder
/// writes it, every other value as JSON (`json.dumps`' spacing), its strings unable to spell
/// a marker. A string holding one of the markers the parser reads in a value is written as
/// a JSON string typed `json`: every type but `string` is read as JSON, so it comes back
/// exactly.
fn push_k3_value(out: &mut String, v: &J<'_>) {
    let ty = match v {
        J::Str(s) if K3_VALUE_MARKERS.iter().any(|m| s.contains(m)) => "json",
        J::Str(_) => "string",
        J::Null => "null",
        J::Bool(_) => "boolean",
        J::Num(_) => "number",
        J::Arr(_) => "array",
        J::Obj(_) => "object",
    };
    out.push_str(ty);
    out.push_str("\"<|sep|>");
    match v {
        J::Str(s) if ty == "string" => out.push_str(s),
        _ => push_json(
            out,
            v,
            JsonStyle {
                spaced: true,
                markers: &["<|"],
            },
        ),
    }
}

/// The name kimi-k2's parser reads from a call header.
pub(super) fn kimi_name(id: &str) -> &str {
    let s = id.strip_prefix("functions.").unwrap_or(id);
    match s.rfind(':') {
        Some(at) if at + 1 < s.len() && s[at + 1..].bytes().all(|b| b.is_ascii_digit()) => &s[..at],
        _ => s,
    }
}

/// A minimax-m3 argument key: an element name its parser reads (an ASCII letter or `_`, then
/// letters, digits, `_`, `-`, `.`, `:`).
fn m3_key(k: &str) -> Result<(), &'static str> {
    let mut b = k.bytes();
    let first = matches!(b.next(), Some(c) if c.is_ascii_alphabetic() || c == b'_');
    if first && b.all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b':')) {
        Ok(())
    } else {
        Err("not an element name minimax-m3 reads")
    }
}

/// A minimax-m3 argument value as its parser reads it back: a schema `string` raw (the
/// token broken where it occurs); an undeclared string raw when the untyped guess reads it
/// back as itself and it holds no `<` (a held value's tags would be structure); anything
/// else as JSON, `<` escaped.
fn push_m3_value(out: &mut String, v: &J<'_>, ty: ValueType, ns: &str) {
    match v {
        J::Str(s) if ty == ValueType::String => push_unmarked(out, s, &[ns]),
        J::Str(s) if ty == ValueType::Any && guessed_as_string(s) && !s.contains('<') => {
            out.push_str(s)
        }
        other => push_json(
            out,
            other,
            JsonStyle {
                spaced: true,
                markers: &["<"],
            },
        ),
    }
}
