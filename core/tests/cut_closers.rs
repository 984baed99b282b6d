//! A closer cut off by the end of input after a complete call is wire syntax, never visible
//! text, in every dialect (issue 22 item 4; docs/design.md "Lenient recovery"). For each
//! preset, one call and then two are written with `format_tool_calls`; from the first cut at
//! which every call completes with its whole input, every longer cut of the same text must
//! give those calls, no error and nothing visible — whatever the chunking. (A cut *opener*
//! of a next call after a complete call is another matter: see docs/design.md.)
#![cfg(feature = "alloc")]

mod support;

use serde_json::{Value, json};
use support::run;
use tokensieve::format::{ToolCallIn, format_tool_calls};
use tokensieve::{ConfigBuf, Dialect};

/// What one cut gave.
struct Outcome {
    /// Calls completed without an error and with the expected input.
    complete: usize,
    failed: bool,
    /// Non-whitespace visible text.
    visible: Vec<String>,
}

fn outcome(buf: &ConfigBuf, text: &[u8], sizes: &[usize], want: &Value) -> Outcome {
    let events = run(buf, None, text, sizes);
    let calls = events
        .iter()
        .filter(|e| e["event"] == "block_complete" && e["type"] == "tool_call");
    Outcome {
        complete: calls
            .clone()
            .filter(|e| e.get("error").is_none() && e["input"] == *want)
            .count(),
        failed: calls.clone().any(|e| e.get("error").is_some()),
        visible: events
            .iter()
            .filter(|e| e["visible"] == true && !e["text"].as_str().unwrap_or("").trim().is_empty())
            .map(|e| e["text"].to_string())
            .collect(),
    }
}

fn check(d: Dialect, n: usize, failures: &mut Vec<String>) {
    let want = json!({"city": "Oslo", "days": 3});
    let args = want.to_string();
    let buf = ConfigBuf::from_value(&json!({
        "dialect": d.name(),
        "tools": [{"name": "get_weather", "schema": {"type": "object", "properties": {
            "city": {"type": "string"}, "days": {"type": "integer"}}}}],
    }))
    .expect("config");
    let ids = ["functions.get_weather:0", "functions.get_weather:1"];
    let calls: Vec<ToolCallIn<'_>> = (0..n)
        .map(|i| ToolCallIn {
            name: "get_weather",
            id: Some(ids[i]),
            arguments: &args,
        })
        .collect();
    let text = format_tool_calls(&buf.config(), &calls).expect("writes");
    let bytes = text.as_bytes();
    // A token limit cuts between characters.
    let cuts: Vec<usize> = (1..=bytes.len())
        .filter(|&p| text.is_char_boundary(p))
        .collect();
    let at = |k: usize| {
        cuts.iter()
            .copied()
            .find(|&p| outcome(&buf, &bytes[..p], &[p], &want).complete >= k)
    };
    let Some(all) = at(n) else {
        failures.push(format!(
            "{}: no cut completes {n} calls in\n{text}",
            d.name()
        ));
        return;
    };
    for &p in cuts.iter().filter(|&&p| p >= all) {
        for sizes in [vec![p], vec![1], vec![3]] {
            let o = outcome(&buf, &bytes[..p], &sizes, &want);
            if !(o.complete == n && !o.failed && o.visible.is_empty()) {
                failures.push(format!(
                    "{} ({n} calls): cut {:?} after the complete calls, chunks {sizes:?}: \
                     {} complete, failed {}, visible {:?}",
                    d.name(),
                    &text[all..p],
                    o.complete,
                    o.failed,
                    o.visible
                ));
                break;
            }
        }
    }
}

#[test]
fn a_cut_closer_after_a_complete_call_is_never_visible() {
    let mut failures = Vec::new();
    for d in Dialect::ALL {
        if d != Dialect::Passthrough {
            check(d, 1, &mut failures);
            check(d, 2, &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
