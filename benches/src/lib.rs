//! Inputs and contenders for the tokensieve benchmarks.
//!
//! Every input is generated deterministically from a fixed seed, written once under
//! `benches/data/` (or `$TOKENSIEVE_BENCH_DATA`) and read back by every contender: the
//! criterion benches, the allocation counter, the output comparison and the Node harness.
//!
//! * `prose.txt`: 10 MB of plain prose, a `<` every few kilobytes, some non-ASCII.
//! * `mixed-<dialect>.txt`: about 1 MB of agent transcript in that dialect's wire format:
//!   text, thinking, tool calls with nested arguments, tool results, unicode.
//! * `longarg-<dialect>-<size>.txt`: one tool call whose one string argument is 100 KB,
//!   1 MB or 10 MB of code-like text (quotes, backslashes, `<`, newlines, unicode).
//! * `jsonargs-hermes-1m.txt`: 1 MB of hermes calls whose arguments are nested objects and
//!   arrays of numbers, literals and short keys (structural JSON, few string bytes).
//! * `<input>.config.json`: the tokensieve config for that input; `tools.aisdk.json`: the
//!   same tools in the form the Node harness reads.

pub mod provider;

use std::fmt::Write as _;
use std::fs;
use std::hint::black_box;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tokensieve::{ConfigBuf, Dialect, Event, EventSource, Sieve};

/// Bumped whenever a generator changes: stale data is regenerated.
pub const DATA_VERSION: &str = "tokensieve-bench-data v3";

/// Size of the prose input.
pub const PROSE_BYTES: usize = 10_000_000;
/// Size of each mixed transcript.
pub const MIXED_BYTES: usize = 1_000_000;
/// Sizes of the long tool argument.
pub const LONG_SIZES: [(&str, usize); 3] =
    [("100k", 100_000), ("1m", 1_000_000), ("10m", 10_000_000)];
/// `max_call_bytes` for the long-argument configs (the default, 1 MiB, would fail the
/// 10 MB call as `too-large`, as it should).
pub const LONG_MAX_CALL_BYTES: usize = 64 << 20;
/// The chunkings every input is measured at.
pub const CHUNKINGS: [(&str, usize); 2] = [("4B", 4), ("64KiB", 65_536)];

/// Dialects with tool calls (passthrough has none).
pub const TOOL_DIALECTS: [Dialect; 31] = [
    Dialect::AnthropicXml,
    Dialect::Hermes,
    Dialect::MorphXml,
    Dialect::Qwen3Coder,
    Dialect::MinimaxM2,
    Dialect::Glm45,
    Dialect::Harmony,
    Dialect::KimiK2,
    Dialect::DeepSeekV31,
    Dialect::DeepSeekV3,
    Dialect::Mistral,
    Dialect::Llama3Json,
    Dialect::Pythonic,
    Dialect::DeepSeekV32,
    Dialect::DeepSeekV4,
    Dialect::SeedOss,
    Dialect::Olmo3,
    Dialect::Lfm2,
    Dialect::CohereCommand,
    Dialect::Granite,
    Dialect::Phi4Mini,
    Dialect::Apertus,
    Dialect::Xlam,
    Dialect::Gemma4,
    Dialect::FunctionGemma,
    Dialect::MiniCpm5,
    Dialect::Step3,
    Dialect::Hunyuan,
    Dialect::MinimaxM3,
    Dialect::Inkling,
    Dialect::KimiK3,
];

// --- deterministic randomness ----------------------------------------------------------

/// SplitMix64: tiny, seeded, the same on every platform.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator with this seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `1 / n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    /// One element of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const WORDS: &[&str] = &[
    "the",
    "model",
    "streams",
    "tokens",
    "and",
    "a",
    "parser",
    "splits",
    "them",
    "into",
    "text",
    "of",
    "which",
    "every",
    "byte",
    "is",
    "kept",
    "while",
    "tools",
    "run",
    "on",
    "servers",
    "with",
    "small",
    "budgets",
    "latency",
    "matters",
    "more",
    "than",
    "anything",
    "else",
    "so",
    "we",
    "measure",
    "it",
    "carefully",
    "before",
    "claiming",
    "speed",
    "for",
    "agents",
    "speech",
    "interfaces",
    "results",
    "weather",
    "forecast",
    "city",
    "river",
    "mountain",
    "question",
    "answer",
    "because",
    "however",
    "likely",
    "today",
    "tomorrow",
    "function",
    "argument",
    "value",
    "number",
    "string",
    "object",
    "array",
    "request",
];
const UNICODE_WORDS: &[&str] = &[
    "café",
    "naïve",
    "Zürich",
    "東京",
    "Привет",
    "straße",
    "🌏",
    "→",
    "€5",
    "déjà-vu",
    "日本語",
    "Ελλάδα",
    "ça",
    "😀",
];
const PUNCT_LT: &[&str] = &["a < b", "x <= y", "<3", "if n<10", "1 < 2 < 3"];

/// One sentence of prose; `lt` and `uni` are 1-in-n odds of a `<` phrase or a non-ASCII word.
fn sentence(rng: &mut Rng, out: &mut String, lt: usize, uni: usize) {
    let n = 6 + rng.below(14);
    for i in 0..n {
        let w = if rng.one_in(uni) {
            rng.pick(UNICODE_WORDS)
        } else if rng.one_in(lt) {
            rng.pick(PUNCT_LT)
        } else {
            rng.pick(WORDS)
        };
        if i == 0 {
            let mut cs = w.chars();
            if let Some(c) = cs.next() {
                out.extend(c.to_uppercase());
                out.push_str(cs.as_str());
            }
        } else {
            out.push(' ');
            out.push_str(w);
        }
    }
    const ENDS: &[&str] = &[".", ".", ".", "!", "?", ","];
    let end: &&str = rng.pick(ENDS);
    out.push_str(end);
}

fn paragraph(rng: &mut Rng, out: &mut String, sentences: usize, lt: usize, uni: usize) {
    for i in 0..sentences {
        if i > 0 {
            out.push(' ');
        }
        sentence(rng, out, lt, uni);
    }
}

/// Cuts `s` to at most `n` bytes at a character boundary.
fn cut(mut s: String, n: usize) -> String {
    if s.len() > n {
        let mut k = n;
        while !s.is_char_boundary(k) {
            k -= 1;
        }
        s.truncate(k);
    }
    s
}

/// 10 MB of prose: a `<` roughly every 5 KB, a non-ASCII word every ~300 words.
pub fn prose(bytes: usize) -> String {
    let mut rng = Rng::new(0x5EED_0001);
    let mut out = String::with_capacity(bytes + 4096);
    while out.len() < bytes {
        let k = 3 + rng.below(6);
        paragraph(&mut rng, &mut out, k, 800, 300);
        out.push_str("\n\n");
    }
    cut(out, bytes)
}

// --- tool calls ------------------------------------------------------------------------

/// A tool call of the transcripts: its name and its arguments (key, JSON value).
struct Call {
    name: &'static str,
    args: Vec<(&'static str, Value)>,
}

fn random_call(rng: &mut Rng, n: usize) -> Call {
    match rng.below(3) {
        0 => {
            let mut q = String::new();
            sentence(rng, &mut q, 1_000_000, 6);
            Call {
                name: "search",
                args: vec![
                    ("query", Value::String(q)),
                    (
                        "filters",
                        json!({"lang": ["en", "fr", "ja"], "since": 2024, "strict": true,
                               "site": {"include": ["docs.rs", "example.org"], "exclude": []},
                               "score": 0.75}),
                    ),
                    ("limit", json!(10 + n % 7)),
                ],
            }
        }
        1 => {
            let mut content = String::new();
            for i in 0..(4 + rng.below(8)) {
                let _ = writeln!(
                    content,
                    "    let v{i} = \"{}\"; // {} <tag> \\ ok",
                    rng.pick(WORDS),
                    rng.pick(UNICODE_WORDS)
                );
            }
            Call {
                name: "write_file",
                args: vec![
                    ("path", Value::String(format!("src/module_{n}.rs"))),
                    ("content", Value::String(content)),
                ],
            }
        }
        _ => Call {
            name: "get_weather",
            args: vec![
                (
                    "city",
                    Value::String((*rng.pick(&["Paris", "東京", "Zürich", "São Paulo"])).into()),
                ),
                ("days", json!(1 + n % 5)),
                ("unit", Value::String("celsius".into())),
            ],
        },
    }
}

/// The tools of the transcripts, as the config's `tools` list.
pub fn tools_json() -> Value {
    json!([
        {"name": "search", "schema": {"type": "object", "properties": {
            "query": {"type": "string"}, "filters": {"type": "object"}, "limit": {"type": "integer"}}}},
        {"name": "write_file", "schema": {"type": "object", "properties": {
            "path": {"type": "string"}, "content": {"type": "string"}}}},
        {"name": "get_weather", "schema": {"type": "object", "properties": {
            "city": {"type": "string"}, "days": {"type": "integer"}, "unit": {"type": "string"}}}}
    ])
}

/// A JSON value as a parameter value is written in XML dialects: strings raw, the rest as
/// JSON text.
fn xml_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// MiniMax M3's namespace token, written before every structural tag.
const M3: &str = "]<]minimax[>[";

/// A value as MiniMax M3 writes it: strings raw, objects and arrays by element (`<item>`
/// for array items), the rest as JSON text.
fn m3_value(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => out.push_str(s),
        Value::Object(map) => {
            for (k, item) in map {
                let _ = write!(out, "{M3}<{k}>");
                m3_value(item, out);
                let _ = write!(out, "{M3}</{k}>");
            }
        }
        Value::Array(items) => {
            for item in items {
                let _ = write!(out, "{M3}<item>");
                m3_value(item, out);
                let _ = write!(out, "{M3}</item>");
            }
        }
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

/// `s` with the five XML entities escaped (morph-xml decodes them in string arguments).
fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn write_call(d: Dialect, call: &Call, out: &mut String) {
    match d {
        Dialect::AnthropicXml => {
            let _ = write!(out, "<function_calls>\n<invoke name=\"{}\">\n", call.name);
            for (k, v) in &call.args {
                let _ = writeln!(out, "<parameter name=\"{k}\">{}</parameter>", xml_value(v));
            }
            out.push_str("</invoke>\n</function_calls>");
        }
        Dialect::Hermes => {
            let args: serde_json::Map<String, Value> = call
                .args
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect();
            let body = json!({"name": call.name, "arguments": args});
            let _ = write!(out, "<tool_call>\n{body}\n</tool_call>");
        }
        Dialect::CohereCommand => {
            let args: serde_json::Map<String, Value> = call
                .args
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect();
            let body = json!([{"tool_call_id": "0", "tool_name": call.name, "parameters": args}]);
            let _ = write!(out, "<|START_ACTION|>{body}<|END_ACTION|>");
        }
        Dialect::Granite => {
            let args: serde_json::Map<String, Value> = call
                .args
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect();
            let body = json!([{"name": call.name, "arguments": args}]);
            let _ = write!(out, "<|tool_call|>{body}");
        }
        Dialect::Xlam => {
            let args: serde_json::Map<String, Value> = call
                .args
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect();
            let body = json!([{"name": call.name, "arguments": args}]);
            let _ = write!(out, "```json\n{body}\n```");
        }
        Dialect::Apertus => {
            let args: serde_json::Map<String, Value> = call
                .args
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect();
            let body = json!([{ call.name: args }]);
            let _ = write!(out, "<|tools_prefix|>{body}<|tools_suffix|>");
        }
        Dialect::Phi4Mini => {
            let args: serde_json::Map<String, Value> = call
                .args
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect();
            let body = json!([{"name": call.name, "arguments": args}]);
            let _ = write!(out, "functools{body}");
        }
        Dialect::Qwen3Coder | Dialect::SeedOss => {
            let wrap = if d == Dialect::SeedOss {
                "seed:tool_call"
            } else {
                "tool_call"
            };
            let _ = write!(out, "<{wrap}>\n<function={}>\n", call.name);
            for (k, v) in &call.args {
                let _ = write!(out, "<parameter={k}>\n{}\n</parameter>\n", xml_value(v));
            }
            let _ = write!(out, "</function>\n</{wrap}>");
        }
        Dialect::MinimaxM2 => {
            let _ = write!(
                out,
                "<minimax:tool_call>\n<invoke name=\"{}\">\n",
                call.name
            );
            for (k, v) in &call.args {
                let _ = writeln!(out, "<parameter name=\"{k}\">{}</parameter>", xml_value(v));
            }
            out.push_str("</invoke>\n</minimax:tool_call>");
        }
        Dialect::Inkling => {
            let args: serde_json::Map<String, Value> = call
                .args
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect();
            let body = json!({"name": call.name, "args": args});
            let _ = write!(
                out,
                "<|message_model|><|content_invoke_tool_json|>{body}<|end_message|>"
            );
        }
        Dialect::MinimaxM3 => {
            let _ = write!(out, "{M3}<tool_call>\n{M3}<invoke name=\"{}\">", call.name);
            for (k, v) in &call.args {
                let _ = write!(out, "{M3}<{k}>");
                m3_value(v, out);
                let _ = write!(out, "{M3}</{k}>");
            }
            let _ = write!(out, "{M3}</invoke>\n{M3}</tool_call>");
        }
        Dialect::Step3 => {
            let _ = writeln!(
                out,
                "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"{}\">",
                call.name
            );
            for (k, v) in &call.args {
                let _ = writeln!(
                    out,
                    "<steptml:parameter name=\"{k}\">{}</steptml:parameter>",
                    xml_value(v)
                );
            }
            out.push_str("</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>");
        }
        Dialect::MiniCpm5 => {
            let _ = writeln!(out, "<function name=\"{}\">", call.name);
            for (k, v) in &call.args {
                let text = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let _ = writeln!(out, "<param name=\"{k}\"><![CDATA[{text}]]></param>");
            }
            out.push_str("</function>");
        }
        Dialect::DeepSeekV32 | Dialect::DeepSeekV4 => {
            let region = if d == Dialect::DeepSeekV4 {
                "tool_calls"
            } else {
                "function_calls"
            };
            let _ = write!(
                out,
                "<｜DSML｜{region}>\n<｜DSML｜invoke name=\"{}\">\n",
                call.name
            );
            for (k, v) in &call.args {
                let (string, text) = match v {
                    Value::String(s) => ("true", s.clone()),
                    other => ("false", other.to_string()),
                };
                let _ = writeln!(
                    out,
                    "<｜DSML｜parameter name=\"{k}\" string=\"{string}\">{text}</｜DSML｜parameter>"
                );
            }
            let _ = write!(out, "</｜DSML｜invoke>\n</｜DSML｜{region}>");
        }
        Dialect::Pythonic | Dialect::Olmo3 | Dialect::Lfm2 => {
            // JSON values are Python literals for the pythonic reader (it takes `true`,
            // `false` and `null` as well as `True`, `False` and `None`).
            let args: Vec<String> = call.args.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let (name, args) = (&call.name, args.join(", "));
            let _ = match d {
                Dialect::Olmo3 => {
                    write!(out, "<function_calls>\n{name}({args})\n</function_calls>")
                }
                Dialect::Lfm2 => {
                    write!(out, "<|tool_call_start|>[{name}({args})]<|tool_call_end|>")
                }
                _ => write!(out, "[{name}({args})]"),
            };
        }
        Dialect::Glm45 => {
            let _ = writeln!(out, "<tool_call>{}", call.name);
            for (k, v) in &call.args {
                let _ = write!(
                    out,
                    "<arg_key>{k}</arg_key>\n<arg_value>{}</arg_value>\n",
                    xml_value(v)
                );
            }
            out.push_str("</tool_call>");
        }
        Dialect::Hunyuan => {
            let _ = write!(out, "<tool_calls>\n<tool_call>{}<tool_sep>\n", call.name);
            for (k, v) in &call.args {
                let _ = write!(
                    out,
                    "<arg_key>{k}</arg_key>\n<arg_value>{}</arg_value>\n",
                    xml_value(v)
                );
            }
            out.push_str("</tool_call>\n</tool_calls>");
        }
        Dialect::Harmony => {
            let args: serde_json::Map<String, Value> = call
                .args
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect();
            let _ = write!(
                out,
                "<|start|>assistant<|channel|>commentary to=functions.{} <|constrain|>json<|message|>{}<|call|>",
                call.name,
                Value::Object(args)
            );
        }
        Dialect::MorphXml => {
            let _ = writeln!(out, "<{}>", call.name);
            for (k, v) in &call.args {
                let _ = writeln!(out, "<{k}>{}</{k}>", xml_escape(&xml_value(v)));
            }
            let _ = write!(out, "</{}>", call.name);
        }
        Dialect::KimiK2 => {
            let args: serde_json::Map<String, Value> = call
                .args
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect();
            let body = Value::Object(args);
            let _ = write!(
                out,
                "<|tool_calls_section_begin|><|tool_call_begin|>functions.{}:0<|tool_call_argument_begin|>{body}<|tool_call_end|><|tool_calls_section_end|>",
                call.name
            );
        }
        Dialect::DeepSeekV31 => {
            let args: serde_json::Map<String, Value> = call
                .args
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect();
            let body = Value::Object(args);
            let _ = write!(
                out,
                "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{}<｜tool▁sep｜>{body}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
                call.name
            );
        }
        Dialect::DeepSeekV3 => {
            let args: serde_json::Map<String, Value> = call
                .args
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect();
            let body = Value::Object(args);
            let _ = write!(
                out,
                "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>{}\n```json\n{body}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
                call.name
            );
        }
        Dialect::Mistral => {
            let args: serde_json::Map<String, Value> = call
                .args
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect();
            let _ = write!(
                out,
                "[TOOL_CALLS]{}[ARGS]{}",
                call.name,
                Value::Object(args)
            );
        }
        Dialect::Llama3Json => {
            let args: serde_json::Map<String, Value> = call
                .args
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect();
            let body = json!({"name": call.name, "parameters": args});
            let _ = write!(out, "<|python_tag|>{body}");
        }
        Dialect::Gemma4 | Dialect::FunctionGemma => {
            let (open, quote, close) = if d == Dialect::Gemma4 {
                ("<|tool_call>", "<|\"|>", "<tool_call|>")
            } else {
                ("<start_function_call>", "<escape>", "<end_function_call>")
            };
            let _ = write!(out, "{open}call:{}{{", call.name);
            for (i, (k, v)) in call.args.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{k}:");
                gemma_value(v, quote, out);
            }
            let _ = write!(out, "}}{close}");
        }
        Dialect::KimiK3 => {
            // K3's encoder: the (empty) response channel, then the tools channel; strings
            // raw, other values JSON with their type.
            let _ = write!(
                out,
                "<|open|>response<|sep|><|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool=\"{}\" index=\"1\"<|sep|>",
                call.name
            );
            for (k, v) in &call.args {
                let ty = match v {
                    Value::String(_) => "string",
                    Value::Number(_) => "number",
                    Value::Bool(_) => "boolean",
                    Value::Null => "null",
                    Value::Array(_) => "array",
                    Value::Object(_) => "object",
                };
                let _ = write!(
                    out,
                    "<|open|>argument key=\"{k}\" type=\"{ty}\"<|sep|>{}<|close|>argument<|sep|>",
                    xml_value(v)
                );
            }
            out.push_str("<|close|>call<|sep|><|close|>tools<|sep|>");
        }
        Dialect::Passthrough => {}
    }
}

/// A JSON value in Gemma's object syntax: bare keys, strings between `quote` tokens.
fn gemma_value(v: &Value, quote: &str, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push_str(quote);
            out.push_str(s);
            out.push_str(quote);
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                gemma_value(item, quote, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{k}:");
                gemma_value(item, quote, out);
            }
            out.push('}');
        }
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

fn write_result(d: Dialect, rng: &mut Rng, n: usize, out: &mut String) {
    let mut body = String::new();
    paragraph(rng, &mut body, 2, 50, 8);
    match d {
        Dialect::AnthropicXml => {
            let _ = write!(
                out,
                "<function_results>\n<result tool_use_id=\"call_{n}\">\n<tool_name>search</tool_name>\n<stdout>{body}</stdout>\n</result>\n</function_results>"
            );
        }
        Dialect::Hermes | Dialect::Qwen3Coder => {
            let _ = write!(out, "<tool_response>\n{body}\n</tool_response>");
        }
        Dialect::Gemma4 => {
            let _ = write!(
                out,
                "<|tool_response>response:search{{value:<|\"|>{body}<|\"|>}}<tool_response|>"
            );
        }
        Dialect::FunctionGemma => {
            let _ = write!(
                out,
                "<start_function_response>response:search{{value:<escape>{body}<escape>}}<end_function_response>"
            );
        }
        Dialect::Harmony => {
            let _ = write!(
                out,
                "<|start|>functions.search to=assistant<|channel|>commentary<|message|>{body}<|end|>"
            );
        }
        // morph-xml, minimax-m2, glm-4.5, kimi-k2, the deepseek formats, mistral, llama3-json
        // and pythonic (their results are a tool message, never model text) and passthrough
        // have no result syntax: a result is quoted prose.
        Dialect::MorphXml
        | Dialect::MinimaxM2
        | Dialect::MinimaxM3
        | Dialect::Inkling
        | Dialect::Glm45
        | Dialect::Hunyuan
        | Dialect::KimiK2
        | Dialect::DeepSeekV31
        | Dialect::DeepSeekV3
        | Dialect::Mistral
        | Dialect::Llama3Json
        | Dialect::Pythonic
        | Dialect::DeepSeekV32
        | Dialect::DeepSeekV4
        | Dialect::SeedOss
        | Dialect::Olmo3
        | Dialect::Lfm2
        | Dialect::CohereCommand
        | Dialect::Granite
        | Dialect::Phi4Mini
        | Dialect::Apertus
        | Dialect::Xlam
        | Dialect::MiniCpm5
        | Dialect::Step3
        | Dialect::KimiK3
        | Dialect::Passthrough => {
            let _ = write!(out, "Result: {body}");
        }
    }
}

fn thinking_tags(d: Dialect) -> (&'static str, &'static str) {
    d.default_thinking_tags()
}

/// About `bytes` of agent transcript in dialect `d` (whole turns; cut at a turn).
pub fn mixed(d: Dialect, bytes: usize) -> String {
    let mut rng = Rng::new(0x5EED_0002 ^ d as u64);
    let (open, close) = thinking_tags(d);
    let mut out = String::with_capacity(bytes + 8192);
    let mut n = 0;
    while out.len() < bytes {
        // Visible text, then thinking, then text again.
        let k = 2 + rng.below(3);
        paragraph(&mut rng, &mut out, k, 40, 12);
        out.push('\n');
        out.push_str(open);
        let k = 2 + rng.below(4);
        paragraph(&mut rng, &mut out, k, 60, 15);
        out.push_str(close);
        out.push_str("\n\n");
        let k = 1 + rng.below(2);
        paragraph(&mut rng, &mut out, k, 40, 12);
        out.push('\n');
        if d != Dialect::Passthrough {
            // One or two calls, then a result, then the answer.
            for _ in 0..1 + rng.below(2) {
                let call = random_call(&mut rng, n);
                write_call(d, &call, &mut out);
                out.push('\n');
                n += 1;
            }
            write_result(d, &mut rng, n, &mut out);
            out.push_str("\n\n");
        }
        let k = 2 + rng.below(3);
        paragraph(&mut rng, &mut out, k, 40, 12);
        out.push_str("\n\n");
    }
    out
}

/// The argument text of the long-argument inputs: code-like lines, `bytes` long.
pub fn long_text(bytes: usize) -> String {
    let mut rng = Rng::new(0x5EED_0003);
    let mut out = String::with_capacity(bytes + 256);
    let mut i = 0usize;
    while out.len() < bytes {
        let _ = writeln!(
            out,
            "fn f{i}(x: &str) -> bool {{ x.len() < {} && x != \"{}\\n\" }} // {}",
            rng.below(1000),
            rng.pick(WORDS),
            rng.pick(UNICODE_WORDS)
        );
        i += 1;
    }
    cut(out, bytes)
}

/// One call of `write_file` whose `content` is `long_text(bytes)`, framed by a sentence.
pub fn long_arg(d: Dialect, bytes: usize) -> String {
    let call = Call {
        name: "write_file",
        args: vec![
            ("path", Value::String("src/big.rs".into())),
            ("content", Value::String(long_text(bytes))),
        ],
    };
    let mut out = String::from("I'll write the file now.\n");
    write_call(d, &call, &mut out);
    out.push_str("\nDone.\n");
    out
}

/// Calls whose `filters` argument is a nested object of short keys, numbers, literals and
/// arrays: JSON that is mostly structure (issue 28's tool-call JSON per byte), `bytes` long.
pub fn json_args(d: Dialect, bytes: usize) -> String {
    let mut rng = Rng::new(0x5EED_0004);
    let mut out = String::from("Let me run the queries.\n");
    let mut n = 0usize;
    while out.len() < bytes {
        let mut filters = serde_json::Map::new();
        for k in 0..(8 + rng.below(8)) {
            let v = match rng.below(4) {
                0 => json!(
                    (0..(4 + rng.below(12)))
                        .map(|_| rng.below(100_000))
                        .collect::<Vec<_>>()
                ),
                1 => json!({"x": rng.below(1000) as f64 / 8.0, "y": -(rng.below(500) as i64),
                            "ok": rng.one_in(2), "n": null, "id": rng.below(1 << 30)}),
                2 => {
                    json!([{"a": rng.below(10), "b": [1.25, -2, 3e5]}, {"a": rng.below(10), "b": []}, false])
                }
                _ => json!(rng.below(1_000_000) as f64 / 1000.0),
            };
            filters.insert(format!("k{k}"), v);
        }
        let call = Call {
            name: "search",
            args: vec![
                ("query", Value::String(format!("q{n}"))),
                ("filters", Value::Object(filters)),
                ("limit", json!(10 + n % 7)),
            ],
        };
        write_call(d, &call, &mut out);
        out.push('\n');
        n += 1;
    }
    out
}

// --- the data directory ----------------------------------------------------------------

/// One benchmark input: its name, dialect, bytes and tokensieve config.
pub struct Input {
    /// `prose`, `mixed-hermes`, `longarg-anthropic-xml-1m`, …
    pub name: String,
    /// The dialect its wire format is written in.
    pub dialect: Dialect,
    /// The bytes, as on disk.
    pub bytes: Vec<u8>,
    /// The tokensieve config (JSON object), as on disk.
    pub config: Value,
}

impl Input {
    /// The config as a [`ConfigBuf`].
    pub fn config_buf(&self) -> ConfigBuf {
        ConfigBuf::from_value(&self.config).expect("bench configs are valid")
    }

    /// The bytes as text (every generated input is UTF-8).
    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.bytes).expect("generated inputs are UTF-8")
    }
}

/// Where the data lives: `$TOKENSIEVE_BENCH_DATA`, else `benches/data`.
pub fn data_dir() -> PathBuf {
    std::env::var_os("TOKENSIEVE_BENCH_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("data"))
}

fn config_for(d: Dialect, long: bool) -> Value {
    let mut c = json!({"dialect": d.name(), "tools": tools_json()});
    if d == Dialect::Passthrough {
        c = json!({"dialect": d.name()});
    }
    if long {
        c["max_call_bytes"] = json!(LONG_MAX_CALL_BYTES);
    }
    c
}

/// An input's name, dialect, whether it is a long-argument input, and its generator.
type Entry = (String, Dialect, bool, Box<dyn Fn() -> String>);

/// Every input.
fn catalogue() -> Vec<Entry> {
    let mut v: Vec<Entry> = vec![(
        "prose".into(),
        Dialect::Passthrough,
        false,
        Box::new(|| prose(PROSE_BYTES)),
    )];
    for d in Dialect::ALL {
        v.push((
            format!("mixed-{}", d.name()),
            d,
            false,
            Box::new(move || mixed(d, MIXED_BYTES)),
        ));
    }
    v.push((
        "jsonargs-hermes-1m".into(),
        Dialect::Hermes,
        false,
        Box::new(|| json_args(Dialect::Hermes, MIXED_BYTES)),
    ));
    for d in TOOL_DIALECTS {
        for (label, n) in LONG_SIZES {
            v.push((
                format!("longarg-{}-{label}", d.name()),
                d,
                true,
                Box::new(move || long_arg(d, n)),
            ));
        }
    }
    v
}

/// Writes every input (and its config) unless the data directory is current; returns it.
pub fn ensure_data() -> PathBuf {
    let dir = data_dir();
    let stamp = dir.join("VERSION");
    if fs::read_to_string(&stamp).is_ok_and(|s| s.trim() == DATA_VERSION) {
        return dir;
    }
    fs::create_dir_all(&dir).expect("create the data directory");
    for (name, d, long, make) in catalogue() {
        fs::write(dir.join(format!("{name}.txt")), make()).expect("write input");
        let config = serde_json::to_string_pretty(&config_for(d, long)).expect("json");
        fs::write(dir.join(format!("{name}.config.json")), config).expect("write config");
    }
    // The tools in the form of the Node harness (and of the Rust peers).
    let aisdk: Vec<Value> = tools_json()
        .as_array()
        .expect("array")
        .iter()
        .map(|t| json!({"name": t["name"], "inputSchema": t["schema"]}))
        .collect();
    fs::write(
        dir.join("tools.aisdk.json"),
        serde_json::to_string_pretty(&aisdk).expect("json"),
    )
    .expect("write tools");
    fs::write(&stamp, DATA_VERSION).expect("write stamp");
    dir
}

/// Reads one input (generating the data first if needed).
pub fn load(name: &str) -> Input {
    let dir = ensure_data();
    let bytes = fs::read(dir.join(format!("{name}.txt")))
        .unwrap_or_else(|e| panic!("{name}: {e} (run the gen-data binary)"));
    let config: Value = serde_json::from_str(
        &fs::read_to_string(dir.join(format!("{name}.config.json"))).expect("config"),
    )
    .expect("config json");
    let dialect = config["dialect"]
        .as_str()
        .and_then(Dialect::from_name)
        .expect("dialect");
    Input {
        name: name.into(),
        dialect,
        bytes,
        config,
    }
}

/// The inputs this build can parse, in table order: prose, the mixed transcripts, and
/// the long argument of [`long_dialect`].
pub fn throughput_inputs() -> Vec<String> {
    let mut v = vec!["prose".to_owned()];
    for d in Dialect::ALL.into_iter().filter(|d| d.is_supported()) {
        v.push(format!("mixed-{}", d.name()));
    }
    let d = long_dialect();
    for (label, _) in LONG_SIZES {
        v.push(format!("longarg-{}-{label}", d.name()));
    }
    v
}

/// The dialect of the linearity figures: hermes when this build has it, else anthropic-xml.
pub fn long_dialect() -> Dialect {
    if Dialect::Hermes.is_supported() {
        Dialect::Hermes
    } else {
        Dialect::AnthropicXml
    }
}

// --- feeding ---------------------------------------------------------------------------

/// What a contender's consumer saw: events (or parts) and the bytes of their texts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Events (tokensieve) or output items (peers).
    pub events: u64,
    /// Bytes of chunk texts (tokensieve) or of text/argument strings (peers).
    pub text_bytes: u64,
}

/// The number of pieces `len` bytes make in pieces of `chunk` bytes.
pub fn chunk_count(len: usize, chunk: usize) -> u64 {
    len.div_ceil(chunk).max(1) as u64
}

/// The number of pieces of `text` in pieces of about `chunk` bytes, each extended to the
/// next character boundary (the way the `&str` peers are fed).
pub fn char_chunk_count(text: &str, chunk: usize) -> u64 {
    let mut n = 0;
    for_each_char_chunk(text, chunk, |_| n += 1);
    n
}

/// Calls `f` with pieces of `text` of `chunk` bytes, each extended to a char boundary.
#[inline]
pub fn for_each_char_chunk(text: &str, chunk: usize, mut f: impl FnMut(&str)) {
    let b = text.as_bytes();
    let mut at = 0;
    while at < b.len() {
        let mut end = (at + chunk).min(b.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        f(&text[at..end]);
        at = end;
    }
}

#[inline]
fn consume(ev: &Event<'_>, t: &mut Tally) {
    t.events += 1;
    if let Event::Chunk(c) = ev {
        t.text_bytes += c.text.len() as u64;
    }
}

/// Feeds `input` to a fresh parser in pieces of exactly `chunk` bytes (split anywhere,
/// also inside characters), consuming every event; then finishes.
pub fn tokensieve_run(config: &ConfigBuf, input: &[u8], chunk: usize) -> Tally {
    let c = config.config();
    feed_all(&mut Sieve::new(&c).expect("valid config"), input, chunk)
}

/// As [`tokensieve_run`], with caller-provided memory (no heap at all).
pub fn tokensieve_run_fixed(config: &ConfigBuf, input: &[u8], chunk: usize) -> Tally {
    let c = config.config();
    let mut memory = [0u8; 8192];
    feed_all(
        &mut Sieve::with_memory(&c, &mut memory).expect("valid config"),
        input,
        chunk,
    )
}

/// Feeds `input` to `sieve` in pieces of exactly `chunk` bytes, consuming every event, then
/// finishes; allocates nothing itself.
pub fn feed_all(sieve: &mut Sieve<'_>, input: &[u8], chunk: usize) -> Tally {
    let mut t = Tally::default();
    pump(sieve, input, chunk, |ev| consume(ev, &mut t));
    black_box(t)
}

/// The one drive loop of the benches, for the parser and the decoder alike: `input` to
/// `source` in pieces of exactly `chunk` bytes (split anywhere), every event to `f`, then
/// the end; allocates nothing itself.
#[inline]
pub fn pump(
    source: &mut impl EventSource,
    input: &[u8],
    chunk: usize,
    mut f: impl FnMut(&Event<'_>),
) {
    for piece in input.chunks(chunk) {
        let mut piece = piece;
        while let Some(ev) = source.next(&mut piece) {
            f(&ev);
        }
    }
    source.finish_with(|ev| f(&ev));
}

/// What tokensieve makes of a whole input, for comparing with a peer: visible text,
/// thinking, tool calls (name, input as a JSON value) and result contents.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// Visible text, concatenated.
    pub text: String,
    /// Thinking, concatenated.
    pub thinking: String,
    /// Tool calls: name and arguments.
    pub calls: Vec<(String, Value)>,
    /// Tool results, concatenated.
    pub results: String,
}

/// tokensieve's [`Outcome`] for `input` fed in pieces of `chunk` bytes.
pub fn tokensieve_outcome(config: &ConfigBuf, input: &[u8], chunk: usize) -> Outcome {
    use tokensieve::{BlockType, Part};
    let c = config.config();
    let mut sieve = Sieve::new(&c).expect("valid config");
    let mut o = Outcome::default();
    let mut name = String::new();
    let mut args = String::new();
    let mut see = |ev: Event<'_>, o: &mut Outcome| match ev {
        Event::Chunk(c) => match (c.block_type, c.part) {
            (BlockType::Text, _) => o.text.push_str(c.text),
            (BlockType::Thinking, _) => o.thinking.push_str(c.text),
            (BlockType::ToolResult, _) => o.results.push_str(c.text),
            (BlockType::ToolCall, Some(Part::Name)) => name.push_str(c.text),
            (BlockType::ToolCall, Some(Part::Input)) => args.push_str(c.text),
            _ => {}
        },
        Event::BlockComplete(b) if b.block_type == BlockType::ToolCall => {
            let v = serde_json::from_str(&args).unwrap_or(Value::Null);
            if b.error.is_none() {
                o.calls.push((std::mem::take(&mut name), v));
            }
            name.clear();
            args.clear();
        }
        _ => {}
    };
    pump(&mut sieve, input, chunk, |ev| see(*ev, &mut o));
    o
}

#[cfg(feature = "compare")]
pub mod peers;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generators_are_deterministic_and_sized() {
        assert_eq!(prose(10_000), prose(10_000));
        assert!(prose(10_000).len() <= 10_000 && prose(10_000).len() > 9_900);
        for d in Dialect::ALL {
            let m = mixed(d, 20_000);
            assert_eq!(m, mixed(d, 20_000));
            assert!(m.len() >= 20_000);
        }
        assert_eq!(long_text(100_000).len(), 100_000);
    }

    #[test]
    fn supported_mixed_transcripts_parse_without_failed_calls() {
        for d in Dialect::ALL.into_iter().filter(|d| d.is_supported()) {
            let input = mixed(d, 30_000);
            let config = ConfigBuf::from_value(&config_for(d, false)).unwrap();
            let whole = tokensieve_outcome(&config, input.as_bytes(), input.len());
            let small = tokensieve_outcome(&config, input.as_bytes(), 4);
            assert_eq!(whole, small, "{}", d.name());
            if d != Dialect::Passthrough {
                assert!(!whole.calls.is_empty(), "{}: no calls", d.name());
                assert!(
                    whole.calls.iter().all(|(_, v)| v.is_object()),
                    "{}",
                    d.name()
                );
                assert!(!whole.text.contains("<tool_call>"), "{}", d.name());
            }
            assert!(!whole.thinking.is_empty(), "{}", d.name());
        }
    }

    #[test]
    fn long_argument_streams_whole() {
        for d in TOOL_DIALECTS.into_iter().filter(|d| d.is_supported()) {
            let input = long_arg(d, 100_000);
            let config = ConfigBuf::from_value(&config_for(d, true)).unwrap();
            let o = tokensieve_outcome(&config, input.as_bytes(), 30);
            assert_eq!(o.calls.len(), 1, "{}", d.name());
            assert_eq!(
                o.calls[0].1["content"].as_str().map(str::len),
                Some(100_000),
                "{}",
                d.name()
            );
        }
    }
}
