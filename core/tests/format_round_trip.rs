//! Writer and parser agree (issue 27): for every dialect and for host descriptions of each
//! shape, random tool calls (names, nested arguments, unicode, quotes, markup-looking
//! strings, big numbers) → `format_tool_calls` → the parser at random chunkings → the same
//! calls: names, ids where the format carries them, arguments equal as JSON values with
//! numbers as written (serde_json's `arbitrary_precision` compares their spelling), no error
//! and no visible text.
#![cfg(feature = "alloc")]

mod support;

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use support::run;
use tokensieve::format::{ToolCallIn, ToolResult, format_tool_calls, format_tool_results};
use tokensieve::{ConfigBuf, Dialect};

/// Pieces of string values: unicode, quotes, escapes, markup-looking text, JSON-looking
/// words, whitespace.
const ATOMS: &[&str] = &[
    "Paris",
    "東京",
    "é",
    "😀",
    "\"",
    "'",
    "\\",
    "\n",
    " ",
    "\t",
    "<b>",
    "</b>",
    "a < b",
    "&amp;",
    "&",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    "=",
    ",",
    ":",
    "<tool",
    "</",
    "<|",
    "|>",
    "```",
    "]]>",
    "<![CDATA[",
    "null",
    "true",
    "42",
    "x=1",
    "\r\n",
    "\u{7f}",
    "\u{2028}",
];

/// Numbers as a model or host spells them.
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "3",
    "12345678901234567890",
    "1.0e5",
    "-0.5",
    "2.50",
    "1E-7",
    "-0",
];

fn string() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(ATOMS), 0..6).prop_map(|v| v.concat())
}

/// The dialects' own markers, for strings that try to end a call early.
const MARKERS: &[&str] = &[
    "</parameter>",
    concat!("</", "antml", ":parameter>"),
    "</invoke>",
    "</function_calls>",
    "<![CDATA[",
    "</arg_value>",
    "</tool_call>",
    "<tool_call>",
    "</minimax:tool_call>",
    "</function>",
    "<|call|>",
    "<|end|>",
    "<|tool_call_end|>",
    "<|tool_calls_section_end|>",
    "<｜tool▁call▁end｜>",
    "</｜DSML｜parameter>",
    "</|DSML|parameter>",
    "[TOOL_CALLS]",
    "[ARGS]",
    "<|python_tag|>",
    "<|python_end|>",
    "<|tool_call_end|>",
    "</calls>",
    "<|END_ACTION|>",
    "<|tools_suffix|>",
    "<|close|>argument<|sep|>",
    "<|close|>call<|sep|>",
    "<|open|>argument",
    "<|open|>call",
    "<|sep|>",
    "```",
    "]",
    ")",
    "\"",
];

fn marker_string() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![prop::sample::select(ATOMS), prop::sample::select(MARKERS)],
        0..6,
    )
    .prop_map(|v| v.concat())
}

fn marker_call() -> impl Strategy<Value = (String, Map<String, Value>)> {
    (
        "[a-zA-Z_][a-zA-Z0-9_]{0,10}",
        prop::collection::vec(
            (
                "[a-z_][a-z0-9_]{0,8}",
                prop_oneof![
                    marker_string().prop_map(Value::String),
                    prop::collection::vec(marker_string().prop_map(Value::String), 0..3)
                        .prop_map(Value::Array),
                ],
            ),
            0..4,
        ),
    )
        .prop_map(|(n, kv)| (n, kv.into_iter().collect()))
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => string().prop_map(Value::String),
        2 => prop::sample::select(NUMBERS)
            .prop_map(|n| serde_json::from_str::<Value>(n).unwrap()),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => Just(Value::Null),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((string(), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// One call: a name and top-level arguments with identifier keys (every format carries
/// those; nested keys are any strings).
fn call() -> impl Strategy<Value = (String, Map<String, Value>)> {
    (
        "[a-zA-Z_][a-zA-Z0-9_]{0,10}",
        prop::collection::vec(("[a-z_][a-z0-9_]{0,8}", value()), 0..4),
    )
        .prop_map(|(n, kv)| (n, kv.into_iter().collect()))
}

fn schema_type(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean",
        Value::Null => "null",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The config: the dialect with each call's tool declared (its parameters typed by the
/// values given: how the XML-parameter formats type values, and morph-xml's tool list).
/// Without `typed`, only morph-xml (which reads configured tools only) gets tools, and
/// those without parameters: every value is the untyped guess.
fn config(dialect: &Value, calls: &[(String, Map<String, Value>)], typed: bool) -> ConfigBuf {
    let tools: Vec<Value> = calls
        .iter()
        .filter(|_| typed || dialect == "morph-xml")
        .map(|(name, args)| {
            let props: Map<String, Value> = args
                .iter()
                .filter(|_| typed)
                .map(|(k, v)| (k.clone(), json!({ "type": schema_type(v) })))
                .collect();
            json!({ "name": name, "schema": { "type": "object", "properties": props } })
        })
        .collect();
    ConfigBuf::from_value(&json!({ "dialect": dialect, "tools": tools })).expect("config")
}

fn check(dialect: Value, calls: Vec<(String, Map<String, Value>)>, sizes: Vec<usize>) {
    check_typed(dialect, calls, sizes, true);
}

fn check_typed(
    dialect: Value,
    calls: Vec<(String, Map<String, Value>)>,
    sizes: Vec<usize>,
    typed: bool,
) {
    // Names unique per case (one schema per tool).
    let calls: Vec<(String, Map<String, Value>)> = calls
        .into_iter()
        .enumerate()
        .map(|(i, (n, a))| (format!("{n}_{i}"), a))
        .collect();
    let buf = config(&dialect, &calls, typed);
    let preset = buf.dialect;
    let texts: Vec<String> = calls
        .iter()
        .map(|(_, a)| serde_json::to_string(&Value::Object(a.clone())).unwrap())
        .collect();
    let ids: Vec<String> = calls
        .iter()
        .enumerate()
        .map(|(i, (n, _))| match preset {
            Dialect::KimiK2 => format!("functions.{n}:{i}"),
            _ => format!("id{i}x{}", n.len()),
        })
        .collect();
    let input: Vec<ToolCallIn<'_>> = calls
        .iter()
        .enumerate()
        .map(|(i, (n, _))| ToolCallIn {
            name: n,
            id: Some(&ids[i]),
            arguments: &texts[i],
        })
        .collect();
    let text = format_tool_calls(&buf.config(), &input).expect("writes");
    let carries_ids =
        buf.description.is_none() && matches!(preset, Dialect::KimiK2 | Dialect::Mistral);
    for sizes in [vec![text.len().max(1)], vec![1], sizes] {
        let events = run(&buf, None, text.as_bytes(), &sizes);
        // The templates' line between two calls is top-level whitespace: text, but nothing
        // to see.
        let visible: Vec<&Value> = events
            .iter()
            .filter(|e| e["visible"] == true && !e["text"].as_str().unwrap_or("").trim().is_empty())
            .collect();
        assert!(
            visible.is_empty(),
            "{dialect}: visible text {visible:?} in\n{text}"
        );
        let done: Vec<&Value> = events
            .iter()
            .filter(|e| e["event"] == "block_complete" && e["type"] == "tool_call")
            .collect();
        assert_eq!(done.len(), calls.len(), "{dialect}:\n{text}\n{events:#?}");
        for (i, ev) in done.iter().enumerate() {
            assert!(ev.get("error").is_none(), "{dialect}:\n{text}\n{ev}");
            assert_eq!(ev["tool_name"], calls[i].0.as_str(), "{dialect}:\n{text}");
            assert_eq!(
                ev["input"],
                Value::Object(calls[i].1.clone()),
                "{dialect}:\n{text}"
            );
            if carries_ids {
                assert_eq!(ev["tool_id"], ids[i].as_str(), "{dialect}:\n{text}");
            }
        }
    }
}

/// A top-level value the untyped guess reads as a string: a run of 16 or more digits.
fn has_long_integer(v: &Value) -> bool {
    matches!(v, Value::Number(n) if n.to_string().len() >= 16
        && n.to_string().bytes().all(|b| b.is_ascii_digit()))
}

fn sizes() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..12, 1..8)
}

fn calls() -> impl Strategy<Value = Vec<(String, Map<String, Value>)>> {
    prop::collection::vec(call(), 1..4)
}

fn dialects() -> impl Strategy<Value = Dialect> {
    prop::sample::select(
        Dialect::ALL
            .into_iter()
            .filter(|d| *d != Dialect::Passthrough)
            .collect::<Vec<_>>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn every_preset_reads_back_what_it_writes(d in dialects(), calls in calls(), sizes in sizes()) {
        check(json!(d.name()), calls, sizes);
    }

    /// Without schemas the XML-parameter formats' values are guessed back; a string that
    /// would be guessed as something else is written as a JSON string. (An integer of 16+
    /// digits is the one value the guess reads as a string: documented, left out here.)
    #[test]
    fn every_preset_reads_back_untyped_values(d in dialects(), calls in calls(), sizes in sizes()) {
        let calls: Vec<_> = calls
            .into_iter()
            .map(|(n, a)| (n, a.into_iter().filter(|(_, v)| !has_long_integer(v)).collect()))
            .collect();
        check_typed(json!(d.name()), calls, sizes, false);
    }

    /// Strings that spell the formats' own markers cannot end a call early, and (untyped:
    /// no schema types a raw string) come back exactly — except Gemma's strings, which have
    /// no escapes (documented; pinned by a unit test).
    #[test]
    fn markers_in_strings_come_back_exactly(
        d in dialects().prop_filter("Gemma strings have no escapes",
            |d| !matches!(d, Dialect::Gemma4 | Dialect::FunctionGemma)),
        calls in prop::collection::vec(marker_call(), 1..3),
        sizes in sizes(),
    ) {
        check_typed(json!(d.name()), calls, sizes, false);
    }

    #[test]
    fn host_descriptions_read_back_what_they_write(
        shape in 0..6usize, calls in calls(), sizes in sizes(),
    ) {
        let description = match shape {
            0 => json!({"shape": "json-call", "wrapper": ["<call>", "</call>"],
                        "name_keys": ["tool"], "argument_keys": ["args"]}),
            1 => json!({"shape": "json-call", "wrapper": ["<|calls|>", ""]}),
            2 => json!({"shape": "xml-params", "wrapper": ["<fc>", "</fc>"]}),
            3 => json!({"shape": "invoke", "elements": ["calls", "call", "arg"],
                        "tag_prefixes": ["!X!"], "string_attribute": "string"}),
            4 => json!({"shape": "pythonic", "wrapper": ["<calls>", "</calls>"]}),
            _ => json!({"shape": "pythonic", "wrapper": ["<calls>", "</calls>"], "bare_calls": true}),
        };
        check(description, calls, sizes);
    }
}

/// Every preset is covered by the property above; this pins each one at least once with a
/// fixed case (the sampler may skip a dialect in a short run).
#[test]
fn each_preset_once() {
    let args: Map<String, Value> = serde_json::from_str(
        r#"{"s": "a \"q\" <b>x</b> 東京 😀\n", "n": 12345678901234567890, "f": 1.0e5,
            "b": false, "z": null, "o": {"k": [1, "two", {"t": true}]}, "e": ""}"#,
    )
    .unwrap();
    for d in Dialect::ALL {
        if d != Dialect::Passthrough {
            check(
                json!(d.name()),
                vec![("get".into(), args.clone()), ("put".into(), Map::new())],
                vec![3],
            );
        }
    }
}

/// The dialects whose parser reads a result the model (or a transcript) writes back, in the
/// form `format_tool_results` writes it.
const RESULT_DIALECTS: [Dialect; 3] = [Dialect::AnthropicXml, Dialect::Hermes, Dialect::Harmony];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// `format_tool_results` → the parser → one tool_result block per result with the same
    /// content (and, in anthropic-xml, the error flag), nothing visible.
    #[test]
    fn results_read_back_as_results(
        d in prop::sample::select(&RESULT_DIALECTS[..]),
        results in prop::collection::vec(("[a-z_]{1,8}", string(), any::<bool>()), 1..4),
        sizes in sizes(),
    ) {
        let input: Vec<ToolResult<'_>> = results
            .iter()
            .map(|(name, content, is_error)| ToolResult {
                tool_use_id: None,
                tool_name: Some(name),
                content,
                is_error: *is_error && d == Dialect::AnthropicXml,
            })
            .collect();
        let text = format_tool_results(d, &input);
        let buf = ConfigBuf::new(d);
        for sizes in [vec![text.len().max(1)], sizes.clone()] {
            let events = run(&buf, None, text.as_bytes(), &sizes);
            let done: Vec<&Value> = events
                .iter()
                .filter(|e| e["event"] == "block_complete" && e["type"] == "tool_result")
                .collect();
            let visible = events.iter().any(|e| {
                e["visible"] == true && !e["text"].as_str().unwrap_or("").trim().is_empty()
            });
            prop_assert!(!visible, "{:?}:\n{}", d, text);
            prop_assert_eq!(done.len(), results.len(), "{:?}:\n{}\n{:#?}", d, text, events);
            for (ev, r) in done.iter().zip(&input) {
                prop_assert_eq!(&ev["type"], "tool_result", "{}", text);
                // hermes: the template's line feeds around the content are the element's.
                let content = ev["content"].as_str().unwrap_or_default();
                let content = if d == Dialect::Hermes {
                    content.strip_prefix('\n').and_then(|c| c.strip_suffix('\n')).unwrap_or(content)
                } else {
                    content
                };
                prop_assert_eq!(content, r.content, "{:?}:\n{}", d, text);
                prop_assert_eq!(ev.get("is_error").is_some(), r.is_error, "{}", text);
            }
        }
    }
}
