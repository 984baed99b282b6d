#![cfg(feature = "alloc")]
//! Rule 4 (chunking never matters), hammered: generated inputs mixing text, tags, near-miss
//! tags, multibyte and invalid UTF-8 and stop sequences, split at random, must give the same
//! coalesced events as the whole input; the events obey the event model (rules 1, 3, 8, 9);
//! wire syntax never reaches a chunk (rule 2); and for passthrough the events equal those of
//! a whole-string reference model (rules 6, 7 and the stop semantics).

mod support;

use proptest::prelude::*;
use serde_json::{Value, json};
use support::{coalesce, lint, one_call_then_text, run};
use tokensieve::ConfigBuf;

const AXML_ATOMS: &[&[u8]] = &[
    b"Hello ",
    b"a < b",
    b"<b>x</b>",
    b"<thinking>",
    b"</thinking>",
    b"<thinkin",
    b"</thinking >",
    b"<thinking about it>",
    b"<thinking mode='x'>",
    b"<function_calls>",
    b"</function_calls>",
    b"\n",
    b"  ",
    b"<invoke name=\"f\">",
    b"<invoke>",
    b"</invoke>",
    b"<parameter name=\"p\">",
    b"<parameter name=\"s\">",
    b"<parameter>",
    b"</parameter>",
    b"42",
    b"{\"a\": [1, 2]}",
    b"<![CDATA[x</parameter>]]>",
    b"<function_results>",
    b"<result tool_use_id=\"t1\">",
    b"<tool_name>f</tool_name>",
    b"<stdout>",
    b"</stdout>",
    b"<error>",
    b"</result>",
    b"</function_results>",
    "é".as_bytes(),
    "東京".as_bytes(),
    "🌏".as_bytes(),
    b"\nHuman:",
    b"<|eot|>",
    b"&amp;\"\\",
    b"\xff",
    b"\xe2\x82",
    b"\xf0\x9f",
];

const PT_ATOMS: &[&[u8]] = &[
    b"Hello ",
    b"<think>",
    b"</think>",
    b"<thin",
    b"</thi",
    b"<",
    b"\n",
    b"Human",
    b"\nHuman:",
    b"<|eot|>",
    b"<|eo",
    b"ab",
    b"a",
    "é".as_bytes(),
    "東京".as_bytes(),
    "🌏".as_bytes(),
    b"\xff",
    b"\xe2\x82",
    b"\xc0\xaf",
];

const HERMES_ATOMS: &[&[u8]] = &[
    b"Hello ",
    b"\n",
    b"  ",
    b"<think>",
    b"</think>",
    b"<tool_call>",
    b"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"x\\u00e9\\uD83D\\uDE00\", 'b': [1, 2.50,], c: bare}}\n</tool_call>",
    b"<tool_call>{name: 'g', arguments: \"{\\\"k\\\": 1}\"}</tool_call>",
    b"<tool_call>[{\"name\": \"f\"}, {\"arguments\": {}, \"name\": \"h\"}]</tool_call>",
    b"{\"name\": \"f\", \"arguments\": {",
    b"\"s\": \"</tool_call>\"",
    b"}}",
    b"</tool_call>",
    b"<tool_ca",
    b"// c\n",
    b"/* c */",
    b"\"\\uD83D",
    b"\\uDE00\"",
    b"<tool_response>",
    b"</tool_response>",
    b"[",
    b"]",
    b",",
    b"'",
    b"\\",
    "é".as_bytes(),
    "東京".as_bytes(),
    b"\xff",
    b"\xe2\x82",
    b"\nHuman:",
];

const MINIMAX_ATOMS: &[&[u8]] = &[
    b"Hello ",
    b"a < b",
    b"\n",
    b"  ",
    b"<think>",
    b"</think>",
    b"<thin",
    b"<minimax:tool_call>",
    b"</minimax:tool_call>",
    b"<minimax:tool",
    b"</minimax:tool_",
    b"<invoke name=\"f\">",
    b"<invoke name='g'/>",
    b"<invoke>",
    b"</invoke>",
    b"</inv",
    b"<",
    b"<parameter name=\"s\">",
    b"<parameter name=\"p\">",
    b"<parameter>",
    b"</parameter>",
    b"</param",
    b"42",
    b"{\"a\": [1, 2.50]}",
    b"<![CDATA[x]]>",
    "é".as_bytes(),
    "東京".as_bytes(),
    b"\xff",
    b"\xe2\x82",
    b"\nHuman:",
];

/// MiniMax M3: the namespace token whole, cut and doubled; structural tags with and
/// without it; nested elements, `<item>`s, thinking markers, brackets next to the token.
const MINIMAX_M3_ATOMS: &[&[u8]] = &[
    b"Hello ",
    b"a < b",
    b"]",
    b"[",
    b"\n",
    b"<mm:think>",
    b"</mm:think>",
    b"</mm:thi",
    b"]<]minimax[>[",
    b"]<]mini",
    b"]<]minimax[>[<tool_call>",
    b"]<]minimax[>[</tool_call>",
    b"<tool_call>",
    b"]<]minimax[>[<invoke name=\"f\">",
    b"]<]minimax[>[<invoke>",
    b"]<]minimax[>[</invoke>",
    b"]<]minimax[>[<s>",
    b"]<]minimax[>[</s>",
    b"]<]minimax[>[<p>",
    b"]<]minimax[>[</p>",
    b"]<]minimax[>[<item>",
    b"]<]minimax[>[</item>",
    b"<s>",
    b"</s>",
    b"]<]minimax[>[</",
    b"42",
    b"{\"a\": [1, 2.50]}",
    "é".as_bytes(),
    b"\xff",
    b"\xe2\x82",
    b"\nHuman:",
];

/// Inkling: the block markers whole and cut, call bodies whole and broken, thinking.
const INKLING_ATOMS: &[&[u8]] = &[
    b"Hello ",
    b"\n",
    b"<|message_model|>",
    b"get_weather",
    b"<|content_text|>",
    b"<|content_thinking|>",
    b"<|content_invoke_tool_json|>",
    b"<|end_message|>",
    b"<|content_model_end_sampling|>",
    b"<|end_mes",
    b"<|content_",
    b"{\"name\": \"f\", \"args\": {\"s\": \"x\"}}",
    b"{\"name\": \"g\"",
    b", \"args\": {\"p\": 42}}",
    b"{oops",
    b"\"<|end_message|>\"",
    "é".as_bytes(),
    b"\xff",
    b"\nHuman:",
];

/// DSML (deepseek-v3.2 / deepseek-v4): the invoke shape with a required prefix, in both
/// spellings, cut prefixes, unprefixed look-alikes, the typing attribute.
const DSML_ATOMS: &[&[u8]] = &[
    b"Hello ",
    b"a < b",
    b"\n",
    b"<think>",
    b"</think>",
    "<｜DSML｜function_calls>".as_bytes(),
    "</｜DSML｜function_calls>".as_bytes(),
    "<｜DSML｜tool_calls>".as_bytes(),
    "</｜DSML｜tool_calls>".as_bytes(),
    b"<|DSML|tool_calls>",
    b"</|DSML|tool_calls>",
    "<｜DS".as_bytes(),
    "</｜DSML｜".as_bytes(),
    "｜".as_bytes(),
    "<｜DSML｜invoke name=\"f\">".as_bytes(),
    b"<|DSML|invoke name=\"g\">",
    "<｜DSML｜invoke>".as_bytes(),
    "</｜DSML｜invoke>".as_bytes(),
    b"<invoke name=\"f\">",
    "<｜DSML｜parameter name=\"s\" string=\"true\">".as_bytes(),
    "<｜DSML｜parameter name=\"n\" string=\"false\">".as_bytes(),
    "<｜DSML｜parameter name=\"p\">".as_bytes(),
    "</｜DSML｜parameter>".as_bytes(),
    b"</|DSML|parameter>",
    b"42",
    b"{\"a\": [1, 2.50]}",
    "東京".as_bytes(),
    b"\xff",
    b"\xe2\x82",
    b"\nHuman:",
];

const GLM_ATOMS: &[&[u8]] = &[
    b"Hello ",
    b"a < b",
    b"\n",
    b"  ",
    b"<think>",
    b"</think>",
    b"<tool_call>",
    b"<tool_call>f",
    b"<tool_call>f\n",
    b"<tool_call>g</tool_call>",
    b"</tool_call>",
    b"</tool_",
    b"<",
    b"<arg_key>",
    b"</arg_key>",
    b"<arg_key>s</arg_key>",
    b"<arg_key>p</arg_key>",
    b"<arg_value>",
    b"</arg_value>",
    b"</arg_val",
    b"42",
    b"{\"a\": [1, 2.50]}",
    b"tag",
    "é".as_bytes(),
    "東京".as_bytes(),
    b"\xff",
    b"\xe2\x82",
    b"\nHuman:",
];

const HARMONY_ATOMS: &[&[u8]] = &[
    b"Hello ",
    b"\n",
    b" ",
    b"<|start|>",
    b"assistant",
    b"<|channel|>",
    b"analysis",
    b"commentary",
    b"final",
    b" to=functions.f",
    b" to=browser.search",
    b" to=",
    b"functions.g to=assistant",
    b"<|constrain|>",
    b"json",
    b"<|message|>",
    b"<|end|>",
    b"<|return|>",
    b"<|call|>",
    b"<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": \"x\\u00e9\\uD83D\\uDE00\", b: [1, 2.50,]}<|call|>",
    b"<|start|>assistant<|channel|>analysis<|message|>hmm<|end|>",
    b"{\"s\": \"",
    b"\"}",
    b"{",
    b"}",
    b"<|ca",
    b"<|",
    b"<|weird|>",
    b"\"\\uD83D",
    b"\\uDE00\"",
    "é".as_bytes(),
    "東京".as_bytes(),
    b"\xff",
    b"\xe2\x82",
    b"\nHuman:",
    b"a long header word that keeps going and going and going and going and going and on",
];

const MISTRAL_ATOMS: &[&[u8]] = &[
    b"Hello ",
    b"\n",
    b"  ",
    b"[THINK]",
    b"[/THINK]",
    b"[TOOL_CALLS]",
    b"[TOOL_CA",
    b"[TOOL_CALLS]get_weather[ARGS]{\"city\": \"\\u00e9\\uD83D\\uDE00\", n: [1, 2.50,]}",
    b"[TOOL_CALLS]f[CALL_ID]a1B2c3D4e[ARGS]",
    b"[TOOL_CALLS] [{\"name\": \"f\"}, {\"arguments\": {}, \"name\": \"h\"}]",
    b"[TOOL_CALLS]g{'k': 'v'}",
    b"f",
    b"[ARGS]",
    b"[AR",
    b"[CALL_ID]",
    b"{\"name\": \"f\", \"arguments\": {",
    b"\"s\": \"[TOOL_CALLS]\"",
    b"\"{\\\"k\\\": 1}\"",
    b"{",
    b"}",
    b"}}",
    b"[",
    b"]",
    b",",
    b"'",
    b"\\",
    "é".as_bytes(),
    "東京".as_bytes(),
    b"\xff",
    b"\xe2\x82",
    b"\nHuman:",
];

const LLAMA3_ATOMS: &[&[u8]] = &[
    b"Hello ",
    b"\n",
    b"  ",
    b";",
    b"; ",
    b"<think>",
    b"</think>",
    b"<|python_tag|>",
    b"<|python_ta",
    b"{\"name\": \"f\", \"parameters\": {\"a\": \"x\\u00e9\\uD83D\\uDE00\", 'b': [1, 2.50,]}}",
    b"{name: 'g', arguments: \"{\\\"k\\\": 1}\"}",
    b"[{\"name\": \"f\"}, {\"type\": \"function\", \"name\": \"h\"}]",
    b"{\"answer\": 42}",
    b"{\"name\": \"f\", \"parameters\": {",
    b"\"s\": \"<|python_tag|>\"",
    b"{",
    b"}",
    b"}}",
    b"[",
    b"]",
    b",",
    b"'",
    b"\\",
    b"code()",
    "é".as_bytes(),
    "東京".as_bytes(),
    b"\xff",
    b"\xe2\x82",
    b"\nHuman:",
];

const GEMMA_ATOMS: &[&[u8]] = &[
    b"Hello ",
    b"a < b",
    b"\n",
    b" ",
    b"<|channel>",
    b"thought",
    b"thought\n",
    b"<channel|>",
    b"<|tool_call>",
    b"<tool_call|>",
    b"<|tool_c",
    b"<tool_",
    b"call:",
    b"call:f{",
    b"call:get_weather",
    b"<|\"|>",
    b"<|\"",
    b"<start_function_call>",
    b"<end_function_call>",
    b"<escape>",
    b"<think>",
    b"</think>",
    b"<|tool_response>",
    b"<tool_response|>",
    b"<start_function_response>",
    b"<end_function_response>",
    b"response:f{value:",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"k:",
    b"42",
    b"-1.50e3",
    b"true",
    b"null",
    b"x y",
    b"\"q\"",
    b"\\n",
    "é".as_bytes(),
    "東京".as_bytes(),
    b"\xff",
    b"\xe2\x82",
    b"\nHuman:",
];

const K3_ATOMS: &[&[u8]] = &[
    b"Hello ",
    b"a < b",
    b"\n",
    b" ",
    b"<|open|>think<|sep|>",
    b"<|close|>think<|sep|>",
    b"<|open|>response<|sep|>",
    b"<|close|>response<|sep|>",
    b"<|open|>tools<|sep|>",
    b"<|close|>tools<|sep|>",
    b"<|open|>call",
    b" tool=\"f\"",
    b" index=\"1\"",
    b"<|sep|>",
    b"<|close|>call<|sep|>",
    b"<|open|>argument",
    b" key=\"s\"",
    b" key=\"p\"",
    b" type=\"string\"",
    b" type=\"number\"",
    b" type=\"object\"",
    b"<|close|>argument<|sep|>",
    b"<|close|>message<|sep|>",
    b"<|end_of_msg|>",
    b"<|open|>json",
    b"&amp;",
    b"&quot;",
    b"<|open|>",
    b"<|close|>",
    b"<|",
    b"42",
    b"{\"a\": [1, null]}",
    b"\"q\"",
    "é".as_bytes(),
    "東京".as_bytes(),
    b"\xff",
    b"\xe2\x82",
    b"\nHuman:",
];

const PYTHONIC_ATOMS: &[&[u8]] = &[
    b"Hello ",
    b"[1, 2]",
    b"\n",
    b"  ",
    b"<think>",
    b"</think>",
    b"<|python_start|>",
    b"<|python_end|>",
    b"<|python_",
    b"[",
    b"]",
    b",",
    b"(",
    b")",
    b"f(",
    b"[f(",
    b"[get_weather(city=",
    b"g()",
    b"x=",
    b"x = ",
    b"'it\\'s'",
    b"\"a\\n\\x41\\u00e9\"",
    b"\"",
    b"'",
    b"42",
    b"-1.5",
    b"True",
    b"None",
    b"{'a': (1, [2])}",
    b"1 + 2",
    "é".as_bytes(),
    "東京".as_bytes(),
    b"\xff",
    b"\xe2\x82",
    b"\nHuman:",
];

fn input(atoms: &'static [&'static [u8]]) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(atoms), 0..40).prop_map(|v| v.concat())
}

fn splits() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..10, 1..8)
}

fn axml_config(with_stops: bool, with_schema: bool) -> ConfigBuf {
    let mut c = json!({"dialect": "anthropic-xml"});
    if with_stops {
        c["stop_sequences"] = json!(["\nHuman:", "<|eot|>"]);
    }
    if with_schema {
        c["tools"] = json!([{"name": "f", "schema": {"type": "object",
            "properties": {"s": {"type": "string"}, "p": {"type": "integer"}}}}]);
    }
    ConfigBuf::from_value(&c).unwrap()
}

fn pt_config(stops: bool, start_thinking: bool) -> ConfigBuf {
    let mut c = json!({"dialect": "passthrough", "thinking_tags": ["<think>", "</think>"]});
    if stops {
        c["stop_sequences"] = json!(["\nHuman:", "<|eot|>", "ab"]);
    }
    if start_thinking {
        c["start_in"] = json!("thinking");
    }
    ConfigBuf::from_value(&c).unwrap()
}

/// Structural tags never reach a chunk where they are structural (rule 2).
fn no_wire_syntax(events: &[Value]) -> Result<(), String> {
    for e in events.iter().filter(|e| e["event"] == "chunk") {
        let t = e["text"].as_str().unwrap_or("");
        let depth0_text = e["type"] == "text" && e["depth"] == 0;
        if depth0_text
            && ["<thinking>", "<function_calls>", "<function_results>"]
                .iter()
                .any(|m| t.contains(m))
        {
            return Err(format!("tag in top-level text chunk: {e}"));
        }
        if e["type"] == "thinking" && t.contains("</thinking>") {
            return Err(format!("closer in thinking chunk: {e}"));
        }
        // (A string parameter's value ends only at `</parameter>`: `</invoke>` in it is content.)
        if e["type"] == "tool_call" && e["part"] != "input" && t.contains('<') {
            return Err(format!("markup in a tool name or id: {e}"));
        }
    }
    Ok(())
}

/// Passthrough semantics over the whole (lossily decoded) input, written independently of
/// the streaming machinery: split on markers, then apply the earliest-ending stop.
fn passthrough_reference(input: &[u8], stops: &[&str], start_thinking: bool) -> Vec<Value> {
    let text = String::from_utf8_lossy(input);
    let (open, close) = ("<think>", "</think>");
    let mut events = Vec::new();
    let mut index = 0u64;
    let mut block = |events: &mut Vec<Value>, ty: &str, content: &str| {
        if content.is_empty() {
            return;
        }
        events.push(json!({"event": "block_start", "index": index, "type": ty}));
        events.push(
            json!({"event": "chunk", "text": content, "type": ty, "visible": ty == "text",
                           "block": index, "depth": 0}),
        );
        events.push(
            json!({"event": "block_complete", "index": index, "type": ty, "content": content}),
        );
        index += 1;
    };
    let mut rest: &str = &text;
    let mut thinking = start_thinking;
    loop {
        let marker = if thinking { close } else { open };
        let end = rest.find(marker).unwrap_or(rest.len());
        let seg = &rest[..end];
        if thinking {
            block(&mut events, "thinking", seg);
        } else {
            let stop = stops
                .iter()
                .filter_map(|s| {
                    seg.find(s)
                        .map(|at| (at + s.len(), std::cmp::Reverse(s.len()), at, *s))
                })
                .min();
            if let Some((_, _, at, s)) = stop {
                block(&mut events, "text", &seg[..at]);
                events.push(json!({"event": "stop", "sequence": s}));
                return events;
            }
            block(&mut events, "text", seg);
        }
        if end == rest.len() {
            return events;
        }
        rest = &rest[end + marker.len()..];
        thinking = !thinking;
    }
}

/// The config of dialect `name`: `stops` adds a stop sequence, `schema` a tool `f` with a
/// typed schema, `thinking` starts the stream in thinking.
fn dialect_config(name: &str, stops: bool, schema: bool, thinking: bool) -> ConfigBuf {
    let mut c = json!({"dialect": name});
    if stops {
        c["stop_sequences"] = json!(["\nHuman:"]);
    }
    if schema {
        c["tools"] = json!([{"name": "f", "schema": {"type": "object",
            "properties": {"s": {"type": "string"}, "p": {"type": "integer"}}}}]);
    }
    if thinking {
        c["start_in"] = json!("thinking");
    }
    ConfigBuf::from_value(&c).unwrap()
}

/// The events of `data` fed whole, after checking rule 4 (the chunks `sizes` and 1-byte
/// chunks give the same events) and that they pass the lint.
fn invariant(
    config: &ConfigBuf,
    data: &[u8],
    sizes: &[usize],
) -> Result<Vec<Value>, TestCaseError> {
    let shown = || String::from_utf8_lossy(data).into_owned();
    let whole = coalesce(run(config, None, data, &[data.len().max(1)]));
    let split = coalesce(run(config, None, data, sizes));
    prop_assert_eq!(&whole, &split, "input {:?}", shown());
    let one = coalesce(run(config, None, data, &[1]));
    prop_assert_eq!(&whole, &one, "input {:?}", shown());
    let errs = lint(&whole);
    prop_assert!(errs.is_empty(), "{:?}\n{:?}", errs, shown());
    Ok(whole)
}

/// The chunks of `events` except the raw text of failed calls (the text block re-emitted
/// right after a failed call, rule 10), where any bytes may come back.
fn chunks_outside_raw(events: &[Value]) -> Vec<&Value> {
    let mut raw_block = None;
    let mut out = Vec::new();
    for e in events {
        if e["event"] == "block_complete" && e.get("error").is_some() {
            raw_block = e["index"].as_u64().map(|i| i + 1);
        }
        if e["event"] == "chunk" && e["block"].as_u64() != raw_block {
            out.push(e);
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn anthropic_xml_chunk_invariance(data in input(AXML_ATOMS), sizes in splits(),
                                      stops in any::<bool>(), schema in any::<bool>()) {
        let whole = invariant(&axml_config(stops, schema), &data, &sizes)?;
        prop_assert!(no_wire_syntax(&whole).is_ok(), "{:?}", no_wire_syntax(&whole));
    }

    #[test]
    fn minimax_m2_chunk_invariance(data in input(MINIMAX_ATOMS), sizes in splits(),
                                   stops in any::<bool>(), schema in any::<bool>()) {
        let whole = invariant(&dialect_config("minimax-m2", stops, schema, false), &data, &sizes)?;
        for e in whole.iter().filter(|e| e["event"] == "chunk") {
            let t = e["text"].as_str().unwrap_or("");
            // The region's opener is structural wherever it appears in top-level text.
            prop_assert!(!(e["depth"] == 0 && e["type"] == "text" && t.contains("<minimax:tool_call>")), "{}", e);
            prop_assert!(!(e["type"] == "tool_call" && e["part"] != "input" && t.contains('<')), "{}", e);
        }
    }

    #[test]
    fn minimax_m3_chunk_invariance(data in input(MINIMAX_M3_ATOMS), sizes in splits(),
                                   stops in any::<bool>(), schema in any::<bool>(),
                                   thinking in any::<bool>()) {
        let config = dialect_config("minimax-m3", stops, schema, thinking);
        let whole = invariant(&config, &data, &sizes)?;
        for e in whole.iter().filter(|e| e["event"] == "chunk") {
            let t = e["text"].as_str().unwrap_or("");
            // The region's opener is structural wherever it appears in top-level text.
            prop_assert!(!(e["depth"] == 0 && e["type"] == "text" && t.contains("]<]minimax[>[<tool_call>")), "{}", e);
            prop_assert!(!(e["type"] == "tool_call" && e["part"] != "input" && t.contains('<')), "{}", e);
        }
    }

    #[test]
    fn inkling_chunk_invariance(data in input(INKLING_ATOMS), sizes in splits(),
                                stops in any::<bool>(), schema in any::<bool>(),
                                thinking in any::<bool>()) {
        let config = dialect_config("inkling", stops, schema, thinking);
        let whole = invariant(&config, &data, &sizes)?;
        for e in chunks_outside_raw(&whole) {
            let t = e["text"].as_str().unwrap_or("");
            // Markup never reaches the text (an opener with no body at the end of input is
            // text, as in hermes).
            prop_assert!(!(e["type"] == "text" && (t.contains("<|message_model|>") || t.contains("<|end_message|>"))), "{}", e);
        }
    }

    #[test]
    fn dsml_chunk_invariance(data in input(DSML_ATOMS), sizes in splits(),
                             stops in any::<bool>(), schema in any::<bool>(), v4 in any::<bool>()) {
        let name = if v4 { "deepseek-v4" } else { "deepseek-v3.2" };
        let whole = invariant(&dialect_config(name, stops, schema, false), &data, &sizes)?;
        for e in whole.iter().filter(|e| e["event"] == "chunk") {
            let t = e["text"].as_str().unwrap_or("");
            prop_assert!(!(e["type"] == "tool_call" && e["part"] != "input" && t.contains('<')), "{}", e);
        }
    }

    #[test]
    fn glm_4_5_chunk_invariance(data in input(GLM_ATOMS), sizes in splits(),
                                stops in any::<bool>(), schema in any::<bool>()) {
        let whole = invariant(&dialect_config("glm-4.5", stops, schema, false), &data, &sizes)?;
        for e in whole.iter().filter(|e| e["event"] == "chunk") {
            let t = e["text"].as_str().unwrap_or("");
            prop_assert!(!(e["type"] == "tool_call" && e["part"] != "input" && t.contains('<')), "{}", e);
            prop_assert!(!(e["type"] == "thinking" && t.contains("</think>")), "{}", e);
        }
    }

    #[test]
    fn mistral_chunk_invariance(data in input(MISTRAL_ATOMS), sizes in splits(),
                                stops in any::<bool>(), start_thinking in any::<bool>()) {
        let whole = invariant(&dialect_config("mistral", stops, false, start_thinking), &data, &sizes)?;
        // [TOOL_CALLS] is always structural: outside thinking it reaches text only as the raw
        // text of a failed call, re-emitted right after it (rule 10).
        for e in chunks_outside_raw(&whole) {
            let t = e["text"].as_str().unwrap();
            prop_assert!(!(e["type"] == "text" && t.contains("[TOOL_CALLS]")), "{}", e);
        }
        for e in whole.iter().filter(|e| e["event"] == "chunk" && e["part"] == "name") {
            let t = e["text"].as_str().unwrap();
            prop_assert!(!t.contains('[') && !t.contains('{'), "{}", e);
        }
    }

    #[test]
    fn llama3_json_chunk_invariance(data in input(LLAMA3_ATOMS), sizes in splits(),
                                    stops in any::<bool>(), start_thinking in any::<bool>()) {
        invariant(&dialect_config("llama3-json", stops, false, start_thinking), &data, &sizes)?;
    }

    #[test]
    fn gemma_chunk_invariance(data in input(GEMMA_ATOMS), sizes in splits(),
                              stops in any::<bool>(), start_thinking in any::<bool>(),
                              function_gemma in any::<bool>()) {
        let name = if function_gemma { "functiongemma" } else { "gemma-4" };
        let whole = invariant(&dialect_config(name, stops, false, start_thinking), &data, &sizes)?;
        for e in whole.iter().filter(|e| e["event"] == "chunk") {
            let t = e["text"].as_str().unwrap_or("");
            // The body's `{` never reaches the name (`call:` is dropped once: `call:call:f`
            // names `call:f`).
            prop_assert!(!(e["type"] == "tool_call" && e["part"] == "name" && t.contains('{')), "{}", e);
        }
        // The call opener is a special token: outside thinking it reaches text only as the
        // raw text of a failed call, re-emitted right after it (rule 10).
        for e in chunks_outside_raw(&whole) {
            let t = e["text"].as_str().unwrap();
            let opener = if function_gemma { "<start_function_call>" } else { "<|tool_call>" };
            prop_assert!(!(e["type"] == "text" && t.contains(opener)), "{}", e);
        }
    }

    #[test]
    fn kimi_k3_chunk_invariance(data in input(K3_ATOMS), sizes in splits(),
                                stops in any::<bool>(), schema in any::<bool>(),
                                start_thinking in any::<bool>()) {
        let whole = invariant(&dialect_config("kimi-k3", stops, schema, start_thinking), &data, &sizes)?;
        for e in whole.iter().filter(|e| e["event"] == "chunk") {
            let t = e["text"].as_str().unwrap_or("");
            prop_assert!(!(e["type"] == "tool_call" && e["part"] != "input" && t.contains("<|")), "{}", e);
            // The tools opener is a special token: inside thinking it ends the thinking.
            prop_assert!(!(e["type"] == "thinking" && t.contains("<|open|>tools<|sep|>")), "{}", e);
        }
        // Call and tools openers in text open calls: they reach text only as the raw text of
        // a failed call, re-emitted right after it (rule 10).
        for e in chunks_outside_raw(&whole) {
            let t = e["text"].as_str().unwrap();
            prop_assert!(!(e["type"] == "text" && (t.contains("<|open|>call") || t.contains("<|open|>tools<|sep|>"))), "{}", e);
        }
    }

    #[test]
    fn pythonic_chunk_invariance(data in input(PYTHONIC_ATOMS), sizes in splits(),
                                 stops in any::<bool>()) {
        let whole = invariant(&dialect_config("pythonic", stops, false, false), &data, &sizes)?;
        for e in whole.iter().filter(|e| e["event"] == "chunk") {
            let t = e["text"].as_str().unwrap_or("");
            prop_assert!(!(e["type"] == "tool_call" && e["part"] == "name" && t.contains('(')), "{}", e);
            prop_assert!(!(e["type"] == "thinking" && t.contains("</think>")), "{}", e);
        }
    }

    #[test]
    fn hermes_chunk_invariance(data in input(HERMES_ATOMS), sizes in splits(), stops in any::<bool>()) {
        let whole = invariant(&dialect_config("hermes", stops, false, false), &data, &sizes)?;
        // At top level a marker followed by { or [ always opens a call: it never reaches
        // text, except as the raw text of a failed call, re-emitted right after it (rule 10).
        // Inside a wrapper (text after an array of calls, a depth-1 text block) a marker is
        // not structural: only the closer is (hermes module docs; docs/design.md "stray text").
        for e in chunks_outside_raw(&whole) {
            if e["type"] == "text" && e["depth"] == 0 {
                let t = e["text"].as_str().unwrap();
                prop_assert!(!t.contains("<tool_call>{") && !t.contains("<tool_call>["), "{}", e);
            }
        }
    }

    /// A well-formed hermes call whose closer the end of input cuts anywhere (`max_tokens`,
    /// docs/design.md, Clarifications, "Tool calls"): the call completes without error and the
    /// cut closer is wire syntax (no text after it), at any chunking. Strings may hold closers.
    #[test]
    fn hermes_cut_closer_completes_the_call(
        args in prop::collection::vec(("[a-z]{1,4}", "[ a-z0-9<>/_]{0,10}"), 0..4),
        ws in "[ \n]{0,3}", cut in 0usize..=12, sizes in splits(),
    ) {
        let members: Vec<String> = args.iter().map(|(k, v)| format!("\"{k}\": \"{v}\"")).collect();
        let closer = &"</tool_call>"[..cut];
        let data = format!("<tool_call>{{\"name\": \"f\", \"arguments\": {{{}}}}}{ws}{closer}",
            members.join(", "));
        let config = ConfigBuf::from_value(&json!({"dialect": "hermes"})).unwrap();
        let data = data.as_bytes();
        let whole = invariant(&config, data, &sizes)?;
        let (call, text, depths) = one_call_then_text(&whole)
            .map_err(|e| TestCaseError::fail(format!("{e}: {:?}", String::from_utf8_lossy(data))))?;
        prop_assert!(call["input"].is_object());
        prop_assert_eq!(text.as_str(), "", "cut closer {:?}", closer);
        prop_assert!(depths.is_empty());
    }

    /// A well-formed anthropic-xml call cut anywhere in its closers: the call completes
    /// without error; the cut marker is wire syntax (no text after the call).
    #[test]
    fn anthropic_xml_cut_closer_completes_the_call(
        values in prop::collection::vec("[ a-z0-9<>&]{0,8}", 1..3),
        cut in 0usize..1000, sizes in splits(), schema in any::<bool>(),
    ) {
        let mut data = String::from("<function_calls>\n<invoke name=\"f\">\n");
        for (i, v) in values.iter().enumerate() {
            let key = ["s", "p", "q"][i % 3];
            if i + 1 < values.len() {
                data.push_str(&format!("<parameter name=\"{key}\">{v}</parameter>\n"));
            } else {
                data.push_str(&format!("<parameter name=\"{key}\">{v}"));
            }
        }
        let suffix = "</parameter>\n</invoke>\n</function_calls>";
        let kept = &suffix[..1 + cut % suffix.len()];
        data.push_str(kept);
        let config = axml_config(false, schema);
        let data = data.as_bytes();
        let whole = invariant(&config, data, &sizes)?;
        let (call, text, depths) = one_call_then_text(&whole)
            .map_err(|e| TestCaseError::fail(format!("{e}: {:?}", String::from_utf8_lossy(data))))?;
        prop_assert!(call["input"].is_object());
        prop_assert_eq!(text.as_str(), "", "{:?}", String::from_utf8_lossy(data));
        prop_assert!(depths.is_empty());
    }

    #[test]
    fn harmony_chunk_invariance(data in input(HARMONY_ATOMS), sizes in splits(), stops in any::<bool>(),
                                thinking in any::<bool>()) {
        let whole = invariant(&dialect_config("harmony", stops, false, thinking), &data, &sizes)?;
        // The markers are never content: no chunk holds one, except the raw text of a failed
        // call, re-emitted right after it (rule 10).
        let markers = ["<|start|>", "<|channel|>", "<|message|>", "<|constrain|>", "<|end|>",
                       "<|return|>", "<|call|>"];
        for e in chunks_outside_raw(&whole) {
            let t = e["text"].as_str().unwrap();
            prop_assert!(!markers.iter().any(|m| t.contains(m)), "{} in {:?}", e,
                         String::from_utf8_lossy(&data));
        }
    }

    #[test]
    fn passthrough_matches_reference(data in input(PT_ATOMS), sizes in splits(),
                                     stops in any::<bool>(), start_thinking in any::<bool>()) {
        let config = pt_config(stops, start_thinking);
        let stop_list: &[&str] = if stops { &["\nHuman:", "<|eot|>", "ab"] } else { &[] };
        let expected = passthrough_reference(&data, stop_list, start_thinking);
        let split = coalesce(run(&config, None, &data, &sizes));
        prop_assert_eq!(&expected, &split, "input {:?}", String::from_utf8_lossy(&data));
        prop_assert!(lint(&split).is_empty());
    }

    #[test]
    fn prefill_then_stream_equals_splitting_anywhere(data in input(PT_ATOMS), cut in 0usize..200) {
        // A prefill ending in an open thinking marker starts the stream in thinking, exactly
        // like start_in = thinking.
        let config = pt_config(false, false);
        let prefill = [b"Assistant: ".as_slice(), b"<think>"].concat();
        let a = coalesce(run(&config, Some(&prefill), &data, &[cut.max(1)]));
        let b = coalesce(run(&pt_config(false, true), None, &data, &[data.len().max(1)]));
        prop_assert_eq!(a, b);
    }
}
