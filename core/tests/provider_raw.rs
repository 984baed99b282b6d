#![cfg(feature = "alloc")]
//! A failed call's `error.raw` is that call's own argument bytes, empty when it had none
//! (docs/providers.md): a call that fails before any argument byte of its own does not report
//! (nor, with `on_malformed: "text"`, emit again as text) the previous call's text.

mod support;

use support::provider::{invariant, responses_event as ev};
use tokensieve::OnMalformed;
use tokensieve::provider::{DecoderConfig, Provider};

/// A call with unfinished arguments, then an arguments delta of an unknown item (a call with
/// no name and no bytes of its own: `missing-name`), then the body ends.
#[test]
fn a_call_without_bytes_reports_no_raw_of_an_earlier_call() {
    let mut body = String::new();
    body += &ev(
        "response.output_item.added",
        r#""output_index":0,"item":{"id":"fc_a","type":"function_call","call_id":"call_a","arguments":"","name":"f"}"#,
    );
    body += &ev(
        "response.function_call_arguments.delta",
        r#""item_id":"fc_a","output_index":0,"delta":"{\"a\":1"}"#,
    );
    body += &ev(
        "response.function_call_arguments.delta",
        r#""item_id":"fc_x","output_index":1,"delta":"""#,
    );
    for on_malformed in [OnMalformed::Text, OnMalformed::Drop] {
        let mut config = DecoderConfig::new(Provider::OpenAiResponses);
        config.options.on_malformed = on_malformed;
        let lines = invariant(&config, body.as_bytes(), [1, 7], None);
        let failed: Vec<&String> = lines
            .iter()
            .filter(|l| l.contains(r#""error":{"#))
            .collect();
        assert_eq!(failed.len(), 2, "{lines:#?}");
        assert!(failed[0].contains(r#""raw":"{\"a\":1""#), "{lines:#?}");
        assert!(failed[1].contains("missing-name"), "{lines:#?}");
        assert!(!failed[1].contains(r#"\"a\":1"#), "{lines:#?}");
        // The earlier call's text comes back as text once (rule 10), not twice.
        let again = lines
            .iter()
            .filter(|l| l.contains(r#""event":"block_complete","index""#))
            .filter(|l| l.contains(r#""type":"text","content":"{\"a\":1""#))
            .count();
        let once = usize::from(on_malformed == OnMalformed::Text);
        assert_eq!(again, once, "{lines:#?}");
    }
}

/// A call whose first argument bytes come in the step that completes a failed call
/// (Responses: an `output_item.added` with its `input` already written): the failed call's
/// completion is still queued and reads `raw`, so the next call's bytes go after its own.
#[test]
fn a_queued_failed_call_keeps_its_raw_when_the_next_call_starts_with_input() {
    let mut body = String::new();
    body += &ev(
        "response.output_item.added",
        r#""output_index":0,"item":{"id":"fc_a","type":"function_call","call_id":"call_a","arguments":"","name":"f"}"#,
    );
    body += &ev(
        "response.function_call_arguments.delta",
        r#""item_id":"fc_a","output_index":0,"delta":"{\"a\":1"}"#,
    );
    body += &ev(
        "response.output_item.added",
        r#""output_index":1,"item":{"id":"ctc_b","type":"custom_tool_call","call_id":"call_b","input":"xyz","name":"g"}"#,
    );
    let config = DecoderConfig::new(Provider::OpenAiResponses);
    let lines = invariant(&config, body.as_bytes(), [1, 7], None);
    let failed: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains(r#""error":{"#))
        .collect();
    assert!(failed[0].contains(r#""raw":"{\"a\":1""#), "{lines:#?}");
    assert!(failed[1].contains(r#""tool_name":"g""#), "{lines:#?}");
    assert!(!failed[1].contains(r#"\"a\":1"#), "{lines:#?}");
    // The failed call's text block is its own text, once.
    let again = lines
        .iter()
        .filter(|l| l.contains(r#""type":"text","content":"{\"a\":1""#))
        .count();
    assert_eq!(again, 1, "{lines:#?}");
}
