#![cfg(feature = "alloc")]
//! The decoder's event queue at the most one step was found to make (issue 25 item 6, 9
//! entries): nothing is lost and no `queue-full` error comes, whatever the chunking
//! (`Out::queue` argues the bound; its unit tests show a full queue ends in that error, never
//! a silent drop).

mod support;

use support::provider::responses_event as ev;
use tokensieve::provider::{DecoderConfig, Provider};

/// Found by the property test (`provider_props`, minimal case): a custom tool call, an empty
/// arguments delta of an unknown item, another custom tool call — and the body ends there.
#[test]
fn the_most_one_token_queues_is_handed_out_whole() {
    let config = DecoderConfig::new(Provider::OpenAiResponses);
    let mut body = String::new();
    body += &ev(
        "response.output_item.added",
        r#""output_index":2,"item":{"id":"ctc_2","type":"custom_tool_call","call_id":"call_c0","input":"","name":"apply_patch"}"#,
    );
    body += &ev(
        "response.function_call_arguments.delta",
        r#""item_id":"fc_0","output_index":0,"delta":"""#,
    );
    body += &ev(
        "response.output_item.added",
        r#""output_index":0,"item":{"id":"ctc_0","type":"custom_tool_call","call_id":"call_c0","input":"","name":"apply_patch"}"#,
    );
    let whole = support::provider::invariant(&config, body.as_bytes(), 1..=64, None);
    assert!(
        !whole.iter().any(|l| l.contains("queue-full")),
        "{whole:#?}"
    );
    let starts = whole.iter().filter(|l| l.contains("block_start")).count();
    let completes = whole
        .iter()
        .filter(|l| l.contains("block_complete"))
        .count();
    assert_eq!(starts, completes, "{whole:#?}");
    support::provider::ends_mentioning(&whole, r#""event":"finish""#);
}
