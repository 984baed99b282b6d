//! Rule 4 (chunking never matters) for the special-token dialects (kimi-k2, deepseek-v3.1,
//! deepseek-v3): generated inputs mixing sections, calls, headers, JSON bodies, fences,
//! partial and stray markers, multibyte and invalid UTF-8, split at random (so edges fall
//! inside the markers' multibyte characters, JSON escapes and bodies), give the same coalesced
//! events as the whole input and as one-byte feeding; the events obey the event model (rules
//! 1, 3, 8, 9) and no marker reaches a tool name or id. Also: a truncated closer after a
//! complete call never fails it.
#![cfg(feature = "alloc")]

mod support;

use proptest::prelude::*;
use serde_json::{Value, json};
use support::{coalesce, lint, run};
use tokensieve::ConfigBuf;

const KIMI_ATOMS: &[&[u8]] = &[
    b"Hello ",
    b"\n",
    b"  ",
    b"<think>",
    b"</think>",
    b"<|tool_calls_section_begin|>",
    b"<|tool_calls_section_end|>",
    b"<|tool_call_begin|>",
    b"<|tool_call_end|>",
    b"<|tool_call_argument_begin|>",
    b"functions.get_weather:0",
    b"get:1",
    b"<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\": \"x\\u00e9\\uD83D\\uDE00\", 'b': [1, 2.50,], c: bare}<|tool_call_end|>",
    b"<|tool_call_begin|> functions.g:1 <|tool_call_argument_begin|> {} <|tool_call_end|>",
    b"{\"city\": \"",
    b"\"}",
    b"{",
    b"}",
    b"<|tool_ca",
    b"<|",
    b"<",
    b"\"\\uD83D",
    b"\\uDE00\"",
    b",",
    b"\\",
    "é".as_bytes(),
    "東京".as_bytes(),
    b"\xff",
    b"\xe2\x82",
    b"\nUser:",
];

const DEEPSEEK_ATOMS: &[&[u8]] = &[
    b"Hello ",
    b"\n",
    b"  ",
    b"<think>",
    b"</think>",
    "<｜tool▁calls▁begin｜>".as_bytes(),
    "<｜tool▁calls▁end｜>".as_bytes(),
    "<｜tool▁call▁begin｜>".as_bytes(),
    "<｜tool▁call▁end｜>".as_bytes(),
    "<｜tool▁sep｜>".as_bytes(),
    "<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"location\": \"東京\", n: 1.50}<｜tool▁call▁end｜>".as_bytes(),
    "<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"s\": \"```\\n\"}\n```<｜tool▁call▁end｜>".as_bytes(),
    b"function",
    b"get_weather",
    b"```json",
    b"```",
    b"``",
    b"{\"q\": \"",
    b"\"}",
    b"{",
    b"}",
    "<｜tool▁call".as_bytes(),
    "<｜".as_bytes(),
    b"<\xef\xbd",
    b"<",
    b"\"\\uD83D",
    b"\\uDE00\"",
    "｜▁".as_bytes(),
    b"\xff",
    b"\nUser:",
];

fn input(atoms: &'static [&'static [u8]]) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(atoms), 0..40).prop_map(|v| v.concat())
}

fn splits() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..10, 1..8)
}

fn config(dialect: &str, stops: bool, drop: bool) -> ConfigBuf {
    let mut c = json!({ "dialect": dialect });
    if stops {
        c["stop_sequences"] = json!(["\nUser:"]);
    }
    if drop {
        c["on_malformed"] = json!("drop");
    }
    ConfigBuf::from_value(&c).unwrap()
}

const MARKERS: &[&str] = &[
    "<|tool_calls_section_begin|>",
    "<|tool_calls_section_end|>",
    "<|tool_call_begin|>",
    "<|tool_call_end|>",
    "<|tool_call_argument_begin|>",
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁calls▁end｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁sep｜>",
];

/// Names and ids never carry a marker (text that merely starts like one may be a name).
fn no_wire_syntax(events: &[Value]) -> Result<(), String> {
    for e in events.iter().filter(|e| e["event"] == "chunk") {
        let t = e["text"].as_str().unwrap_or("");
        if e["type"] == "tool_call" && e["part"] != "input" && MARKERS.iter().any(|m| t.contains(m))
        {
            return Err(format!("a marker in a tool name or id: {e}"));
        }
    }
    Ok(())
}

fn check(config: &ConfigBuf, data: &[u8], sizes: &[usize]) -> Result<Vec<Value>, TestCaseError> {
    let whole = coalesce(run(config, None, data, &[data.len().max(1)]));
    let split = coalesce(run(config, None, data, sizes));
    prop_assert_eq!(&whole, &split, "input {:?}", String::from_utf8_lossy(data));
    let one = coalesce(run(config, None, data, &[1]));
    prop_assert_eq!(&whole, &one, "input {:?}", String::from_utf8_lossy(data));
    let errs = lint(&whole);
    prop_assert!(
        errs.is_empty(),
        "{:?}\n{:?}",
        errs,
        String::from_utf8_lossy(data)
    );
    prop_assert!(
        no_wire_syntax(&whole).is_ok(),
        "{:?}",
        no_wire_syntax(&whole)
    );
    Ok(whole)
}

/// The last tool_call completion of `events` succeeded.
fn last_call_ok(events: &[Value]) -> bool {
    events
        .iter()
        .rev()
        .find(|e| e["event"] == "block_complete" && e["type"] == "tool_call")
        .is_some_and(|e| e.get("error").is_none())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn kimi_k2_chunk_invariance(data in input(KIMI_ATOMS), sizes in splits(),
                                stops in any::<bool>(), drop in any::<bool>()) {
        check(&config("kimi-k2", stops, drop), &data, &sizes)?;
    }

    #[test]
    fn deepseek_v31_chunk_invariance(data in input(DEEPSEEK_ATOMS), sizes in splits(),
                                     stops in any::<bool>(), drop in any::<bool>()) {
        check(&config("deepseek-v3.1", stops, drop), &data, &sizes)?;
    }

    #[test]
    fn deepseek_v3_chunk_invariance(data in input(DEEPSEEK_ATOMS), sizes in splits(),
                                    stops in any::<bool>(), drop in any::<bool>()) {
        check(&config("deepseek-v3", stops, drop), &data, &sizes)?;
    }

    /// A complete call cut off by the end of input anywhere inside its closer (max_tokens)
    /// completes, whatever the chunking.
    #[test]
    fn truncated_closer_after_a_complete_call(cut in 0usize..64, sizes in splits(), which in 0usize..3) {
        let (dialect, call, closer) = [
            ("kimi-k2", "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\": [1, \"x\"]}", "<|tool_call_end|>"),
            ("deepseek-v3.1", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": [1, \"x\"]}", "<｜tool▁call▁end｜>"),
            ("deepseek-v3", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\": [1, \"x\"]}", "\n```<｜tool▁call▁end｜>"),
        ][which];
        let cut = cut % closer.len();
        let data = [call.as_bytes(), &closer.as_bytes()[..cut]].concat();
        let events = check(&config(dialect, false, false), &data, &sizes)?;
        prop_assert!(last_call_ok(&events), "{dialect} cut {cut}: {events:?}");
    }
}
