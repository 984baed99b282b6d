//! More than one spelling of the thinking markers (issue 22 item 3; docs/design.md "Thinking
//! that yields to tool calls"): `thinking_tags` as a list of pairs. Every spelling opens and
//! closes thinking in every dialect that has thinking markers, at every chunking; the
//! spellings mix (one marker however spelled); a tool call inside thinking opened with
//! another spelling still yields; bad lists are refused naming `thinking_tags`.
#![cfg(feature = "alloc")]

mod support;

use proptest::prelude::*;
use serde_json::{Value, json};
use support::{coalesce, lint, run};
use tokensieve::{ConfigBuf, Dialect};

const SPELLINGS: [(&str, &str); 3] = [
    ("<think>", "</think>"),
    ("<thinking>", "</thinking>"),
    ("<seed:think>", "</seed:think>"),
];

fn config(d: Dialect) -> ConfigBuf {
    let pairs: Vec<Value> = SPELLINGS.iter().map(|(a, b)| json!([a, b])).collect();
    ConfigBuf::from_value(&json!({
        "dialect": d.name(),
        "thinking_tags": pairs,
        // morph-xml needs a tool; the rest do not mind one.
        "tools": [{"name": "get_weather", "schema": {"type": "object", "properties": {
            "city": {"type": "string"}}}}],
    }))
    .expect("a list of thinking-marker pairs is a valid config")
}

/// The dialects with thinking markers (harmony's thinking is a channel).
fn dialects() -> Vec<Dialect> {
    Dialect::ALL
        .into_iter()
        .filter(|d| *d != Dialect::Harmony)
        .collect()
}

/// (type, text) of each coalesced chunk.
fn chunks(events: &[Value]) -> Vec<(String, String)> {
    coalesce(events.to_vec())
        .iter()
        .filter(|e| e["event"] == "chunk")
        .map(|e| {
            (
                e["type"].as_str().unwrap().to_string(),
                e["text"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn thinking_then_text(d: Dialect, open: &str, close: &str, sizes: &[usize]) {
    let buf = config(d);
    let input = format!("{open}plan{close}Hi");
    let events = run(&buf, None, input.as_bytes(), sizes);
    assert!(
        lint(&events).is_empty(),
        "{}: {:?}",
        d.name(),
        lint(&events)
    );
    assert_eq!(
        chunks(&events),
        [
            ("thinking".to_string(), "plan".to_string()),
            ("text".to_string(), "Hi".to_string())
        ],
        "{} with {open}…{close}, chunks {sizes:?}",
        d.name()
    );
}

#[test]
fn every_spelling_in_every_dialect() {
    for d in dialects() {
        for (open, close) in SPELLINGS {
            for sizes in [vec![64], vec![1], vec![2, 3]] {
                thinking_then_text(d, open, close, &sizes);
            }
        }
        // Mixed: opened with one spelling, closed with another.
        thinking_then_text(d, SPELLINGS[1].0, SPELLINGS[2].1, &[1]);
    }
}

#[test]
fn a_call_inside_thinking_of_another_spelling_yields() {
    let buf = config(Dialect::Hermes);
    let input = "<seed:think>I should look it up.\n<tool_call>\n{\"name\": \"get_weather\", \
                 \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
    for sizes in [vec![input.len()], vec![1], vec![5]] {
        let events = run(&buf, None, input.as_bytes(), &sizes);
        let calls: Vec<&Value> = events
            .iter()
            .filter(|e| e["event"] == "block_complete" && e["type"] == "tool_call")
            .collect();
        assert_eq!(calls.len(), 1, "{events:#?}");
        assert_eq!(calls[0]["input"], json!({"city": "Paris"}));
    }
}

#[test]
fn a_stray_closer_of_another_spelling_is_dropped() {
    // DeepSeek V4 / MiniMax write a closer with no opener at the start.
    let events = run(&config(Dialect::Hermes), None, b"</thinking>Hello", &[1]);
    assert_eq!(chunks(&events), [("text".to_string(), "Hello".to_string())]);
}

#[test]
fn bad_lists_are_refused_naming_the_key() {
    for bad in [
        json!([["<think>", "</think>"], ["<a>"]]),
        json!([["<think>", "</think>"], ["", "</a>"]]),
        json!([
            ["<think>", "</think>"],
            ["<a>", "</a>"],
            ["<b>", "</b>"],
            ["<c>", "</c>"]
        ]),
        // An opener spelled like a closer: the scanner could not tell them apart.
        json!([["<think>", "</think>"], ["</think>", "<x>"]]),
        json!([["<t>", "</t>"], ["<u>", "<t>"]]),
    ] {
        let err = ConfigBuf::from_value(&json!({"dialect": "hermes", "thinking_tags": bad}))
            .expect_err(&bad.to_string());
        assert_eq!(err.key(), "thinking_tags", "{bad}: {err}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Chunk invariance over generated inputs mixing the spellings with text and calls.
    #[test]
    fn chunk_invariant(
        d in prop::sample::select(dialects()),
        pieces in prop::collection::vec(prop::sample::select(&[
            "<think>", "</think>", "<thinking>", "</thinking>", "<seed:think>",
            "</seed:think>", "<seed:th", "hello ", "\n", "é", "<", "</", "<tool_call>",
        ][..]), 0..12),
        sizes in prop::collection::vec(1usize..9, 1..5),
    ) {
        let input = pieces.concat();
        let buf = config(d);
        let whole = coalesce(run(&buf, None, input.as_bytes(), &[input.len().max(1)]));
        let split = coalesce(run(&buf, None, input.as_bytes(), &sizes));
        prop_assert_eq!(whole, split, "{} {:?}", d.name(), input);
    }
}
