#![cfg(feature = "alloc")]
//! The OpenAI Responses decoder (docs/providers.md): chunk invariance over recorded-shape
//! bodies at every read size, and one test per quirk of the wire format.

mod support;

use tokensieve::provider::{DecoderConfig, Provider};
use tokensieve::{Event, FinishReason};

const REASONING: &[u8] =
    include_bytes!("../../conformance/providers/openai-responses/002-reasoning-summary.sse");
const CALLS: &[u8] = include_bytes!(
    "../../conformance/providers/openai-responses/004-text-and-parallel-function-calls.sse"
);
const WHOLE: &[u8] =
    include_bytes!("../../conformance/providers/openai-responses/011-non-streaming-body.body");

/// JSON lines of the coalesced event stream of `body` fed `size` bytes at a time.
fn decode(body: &[u8], size: usize) -> Vec<String> {
    support::provider::lines(
        &DecoderConfig::new(Provider::OpenAiResponses),
        body,
        size,
        None,
    )
}

/// The events of `body` read whole, asserted equal at every read size up to `max`.
#[track_caller]
fn invariant(body: &[u8], max: usize) -> Vec<String> {
    let config = DecoderConfig::new(Provider::OpenAiResponses);
    support::provider::invariant(&config, body, 1..=max, None)
}

/// An SSE body: `data:` lines, with their event names when `named`.
fn sse(named: bool, events: &[&str]) -> Vec<u8> {
    let mut body = String::new();
    for e in events {
        if named {
            let v: serde_json::Value = serde_json::from_str(e).unwrap();
            let name = v["type"].as_str().unwrap_or("x");
            body.push_str(&format!("event: {name}\n"));
        }
        body.push_str(&format!("data: {e}\n\n"));
    }
    body.into_bytes()
}

/// The block events only (chunks left out).
fn blocks(events: &[String]) -> Vec<&str> {
    events
        .iter()
        .filter(|l| !l.starts_with(r#"{"event":"chunk""#))
        .map(String::as_str)
        .collect()
}

fn find<'a>(events: &'a [String], needle: &str) -> &'a str {
    events
        .iter()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no event with {needle} in {events:#?}"))
}

const CREATED: &str = r#"{"type":"response.created","response":{"id":"resp_1","object":"response","status":"in_progress","model":"gpt-x","output":[],"usage":null}}"#;

fn completed(status: &str, details: &str) -> String {
    format!(
        r#"{{"type":"response.{status}","response":{{"id":"resp_1","object":"response","status":"{status}","incomplete_details":{details},"model":"gpt-x","output":[{{"type":"message","content":[{{"type":"output_text","text":"SNAPSHOT"}}]}}],"usage":{{"input_tokens":5,"input_tokens_details":{{"cached_tokens":1}},"output_tokens":7,"output_tokens_details":{{"reasoning_tokens":2}},"total_tokens":12}}}}}}"#
    )
}

fn text_delta(output: u32, part: u32, delta: &str) -> String {
    format!(
        r#"{{"type":"response.output_text.delta","item_id":"msg_1","output_index":{output},"content_index":{part},"delta":"{delta}"}}"#
    )
}

#[test]
fn streams_and_whole_bodies_are_chunk_invariant() {
    let reasoning = invariant(REASONING, 70);
    let last = find(&reasoning, r#""index":1,"type":"thinking","content""#);
    assert!(last.contains(r#""signature":"gAAAAABor0U8"#), "{last}");
    let calls = invariant(CALLS, 70);
    find(
        &calls,
        r#""tool_id":"call_B2","input":{"city":"Lima","units":"metric"}"#,
    );
    let whole = invariant(WHOLE, 70);
    find(
        &whole,
        r#""tool_id":"call_11","input":{"city":"Berlin","days":3}"#,
    );
}

#[test]
fn the_json_type_decides_without_event_lines() {
    let named = decode(REASONING, REASONING.len());
    let text = String::from_utf8(REASONING.to_vec()).unwrap();
    let unnamed: String = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| format!("data: {d}\n\n"))
        .collect();
    assert_eq!(invariant(unnamed.as_bytes(), 9), named);
    // A wrong event name does not beat the `type`.
    let renamed = text.replace(
        "event: response.output_text.delta",
        "event: response.refusal.delta",
    );
    assert_eq!(decode(renamed.as_bytes(), 5), named);
}

#[test]
fn the_tool_id_is_the_call_id_not_the_item_id() {
    let body = sse(
        true,
        &[
            CREATED,
            r#"{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_item","type":"function_call","status":"in_progress","arguments":"","call_id":"call_X","name":"f"}}"#,
            r#"{"type":"response.function_call_arguments.delta","item_id":"fc_item","output_index":0,"delta":"{}"}"#,
            r#"{"type":"response.output_item.done","output_index":0,"item":{"id":"fc_item","type":"function_call","status":"completed","arguments":"{}","call_id":"call_X","name":"f"}}"#,
            &completed("completed", "null"),
        ],
    );
    let events = invariant(&body, 12);
    find(&events, r#""tool_name":"f","tool_id":"call_X","input":{}"#);
    assert!(!events.iter().any(|l| l.contains("fc_item")));
    assert!(
        events
            .last()
            .unwrap()
            .starts_with(r#"{"event":"finish","reason":"tool_calls","raw_reason":"completed""#)
    );
}

#[test]
fn a_reasoning_item_without_summary_gives_a_signature_only_thinking_block() {
    let body = sse(
        true,
        &[
            CREATED,
            // encrypted_content of the added item is not read (only the done item's).
            r#"{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"EARLY"}}"#,
            r#"{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"ENC=="}}"#,
            r#"{"type":"response.output_item.added","output_index":1,"item":{"id":"rs_2","type":"reasoning","summary":[],"encrypted_content":null}}"#,
            r#"{"type":"response.output_item.done","output_index":1,"item":{"id":"rs_2","type":"reasoning","summary":[],"encrypted_content":""}}"#,
            &text_delta(2, 0, "Hi"),
            &completed("completed", "null"),
        ],
    );
    let events = invariant(&body, 12);
    assert_eq!(
        blocks(&events)[..2],
        [
            r#"{"event":"block_start","index":0,"type":"thinking"}"#,
            r#"{"event":"block_complete","index":0,"type":"thinking","content":"","signature":"ENC=="}"#,
        ]
    );
    // An empty encrypted_content is none: no block.
    assert_eq!(
        events[2],
        r#"{"event":"block_start","index":1,"type":"text"}"#
    );
    assert!(!events.iter().any(|l| l.contains("EARLY")));
}

#[test]
fn each_part_is_one_block_and_an_annotation_does_not_cut_it() {
    let body = sse(
        false,
        &[
            CREATED,
            &text_delta(0, 0, "One"),
            r#"{"type":"response.output_text.annotation.added","output_index":0,"content_index":0,"annotation":{"type":"url_citation","url":"https://x"}}"#,
            &text_delta(0, 0, " more"),
            &text_delta(0, 1, "Two"),
            r#"{"type":"response.refusal.delta","output_index":0,"content_index":2,"delta":"No."}"#,
            &completed("completed", "null"),
        ],
    );
    let events = invariant(&body, 12);
    assert_eq!(
        blocks(&events)[..6],
        [
            r#"{"event":"block_start","index":0,"type":"text"}"#,
            r#"{"event":"block_complete","index":0,"type":"text","content":"One more"}"#,
            r#"{"event":"block_start","index":1,"type":"text"}"#,
            r#"{"event":"block_complete","index":1,"type":"text","content":"Two"}"#,
            r#"{"event":"block_start","index":2,"type":"text"}"#,
            r#"{"event":"block_complete","index":2,"type":"text","content":"No.","refusal":true}"#,
        ]
    );
}

#[test]
fn snapshots_are_not_content() {
    // Only done events and snapshots: no block at all.
    let body = sse(
        true,
        &[
            CREATED,
            r#"{"type":"response.output_text.done","output_index":0,"content_index":0,"text":"SNAP"}"#,
            r#"{"type":"response.content_part.done","output_index":0,"content_index":0,"part":{"type":"output_text","text":"SNAP"}}"#,
            r#"{"type":"response.output_item.done","output_index":0,"item":{"id":"msg_1","type":"message","status":"completed","content":[{"type":"output_text","text":"SNAP"}]}}"#,
            &completed("completed", "null"),
        ],
    );
    let events = invariant(&body, 12);
    assert_eq!(
        events,
        [
            r#"{"event":"finish","reason":"stop","raw_reason":"completed","usage":{"input_tokens":5,"output_tokens":7,"cache_read_tokens":1,"reasoning_tokens":2},"response_id":"resp_1","model":"gpt-x"}"#
        ]
    );
}

#[test]
fn raw_reason_is_the_incomplete_reason_else_the_status() {
    let cases = [
        ("completed", "null", FinishReason::Stop, "completed"),
        (
            "incomplete",
            r#"{"reason":"max_output_tokens"}"#,
            FinishReason::Length,
            "max_output_tokens",
        ),
        (
            "incomplete",
            r#"{"reason":"content_filter"}"#,
            FinishReason::ContentFilter,
            "content_filter",
        ),
        (
            "incomplete",
            r#"{"reason":"something_new"}"#,
            FinishReason::Other,
            "something_new",
        ),
        ("incomplete", "null", FinishReason::Other, "incomplete"),
        ("failed", "null", FinishReason::Error, "failed"),
    ];
    for (status, details, reason, raw) in cases {
        let body = sse(
            true,
            &[CREATED, &text_delta(0, 0, "x"), &completed(status, details)],
        );
        let config = DecoderConfig::new(Provider::OpenAiResponses);
        let mut got = None;
        support::provider::each(&config, &body, &[], None, |ev| {
            if let Event::Finish(f) = ev {
                got = Some((f.reason, f.raw_reason.map(str::to_owned)));
            }
        });
        assert_eq!(
            got,
            Some((reason, Some(raw.to_owned()))),
            "{status} {details}"
        );
    }
}

#[test]
fn unknown_items_and_events_are_skipped() {
    let body = sse(
        true,
        &[
            CREATED,
            r#"{"type":"response.output_item.added","output_index":0,"item":{"id":"fx_1","type":"future_item","status":"in_progress","name":"ignored"}}"#,
            r#"{"type":"response.future_item.progress","output_index":0,"item_id":"fx_1","delta":"not text"}"#,
            r#"{"type":"response.output_item.done","output_index":0,"item":{"id":"fx_1","type":"future_item","status":"completed","action":{"type":"search","query":"q"}}}"#,
            &text_delta(1, 0, "Found."),
            &completed("completed", "null"),
        ],
    );
    let events = invariant(&body, 12);
    assert_eq!(events.len(), 4, "{events:#?}");
    find(&events, r#""content":"Found.""#);
    // No function call was made: stop.
    assert!(events[3].contains(r#""reason":"stop""#));
}

#[test]
fn server_run_items_are_server_tool_calls_and_do_not_ask_for_an_answer() {
    let body = sse(
        true,
        &[
            CREATED,
            r#"{"type":"response.output_item.added","output_index":0,"item":{"id":"ws_1","type":"web_search_call","status":"in_progress"}}"#,
            r#"{"type":"response.web_search_call.searching","output_index":0,"item_id":"ws_1"}"#,
            r#"{"type":"response.output_item.done","output_index":0,"item":{"id":"ws_1","type":"web_search_call","status":"completed","action":{"type":"search","query":"q"}}}"#,
            &text_delta(1, 0, "Found."),
            &completed("completed", "null"),
        ],
    );
    let events = invariant(&body, 12);
    find(
        &events,
        r#""tool_name":"web_search","tool_id":"ws_1","input":{"action":{"type":"search","query":"q"}},"server":true"#,
    );
    find(&events, r#""content":"Found.""#);
    // A server-run call is not the host's to answer: stop, not tool_calls.
    support::provider::ends_mentioning(&events, r#""reason":"stop""#);
}

#[test]
fn a_later_arguments_delta_of_a_completed_call_opens_a_new_block() {
    let body = sse(
        true,
        &[
            CREATED,
            r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","arguments":"","call_id":"call_A","name":"a"}}"#,
            r#"{"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","arguments":"","call_id":"call_B","name":"b"}}"#,
            r#"{"type":"response.function_call_arguments.delta","output_index":0,"delta":"{\"x\":1}"}"#,
            r#"{"type":"response.function_call_arguments.delta","output_index":1,"delta":"{\"y\":2}"}"#,
            &completed("completed", "null"),
        ],
    );
    let events = invariant(&body, 12);
    let b = blocks(&events);
    assert_eq!(
        b[..6],
        [
            r#"{"event":"block_start","index":0,"type":"tool_call"}"#,
            r#"{"event":"block_complete","index":0,"type":"tool_call","tool_name":"a","tool_id":"call_A","input":{}}"#,
            r#"{"event":"block_start","index":1,"type":"tool_call"}"#,
            r#"{"event":"block_complete","index":1,"type":"tool_call","tool_name":"b","tool_id":"call_B","input":{}}"#,
            r#"{"event":"block_start","index":2,"type":"tool_call"}"#,
            r#"{"event":"block_complete","index":2,"type":"tool_call","tool_name":"a","tool_id":"call_A","input":{"x":1}}"#,
        ]
    );
    assert_eq!(
        b[7],
        r#"{"event":"block_complete","index":3,"type":"tool_call","tool_name":"b","tool_id":"call_B","input":{"y":2}}"#
    );
}

#[test]
fn error_events_and_bodies_are_provider_errors() {
    // A nested error object; no end marker follows: finish error with its code.
    let body = sse(
        true,
        &[
            CREATED,
            &text_delta(0, 0, "Hi"),
            r#"{"type":"error","error":{"type":"server_error","code":null,"message":"Boom"}}"#,
        ],
    );
    let events = invariant(&body, 12);
    assert_eq!(
        events[3..],
        [
            r#"{"event":"error","source":"provider","code":"server_error","message":"Boom"}"#,
            r#"{"event":"finish","reason":"error","raw_reason":"server_error","response_id":"resp_1","model":"gpt-x"}"#,
        ]
    );
    // A bare error body.
    let bare = br#"{"error":{"message":"Invalid key","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#;
    assert_eq!(
        invariant(bare, 12),
        [
            r#"{"event":"error","source":"provider","code":"invalid_api_key","message":"Invalid key"}"#,
            r#"{"event":"finish","reason":"error","raw_reason":"invalid_api_key"}"#,
        ]
    );
    // A whole failed response.
    let failed = br#"{"id":"resp_f","object":"response","status":"failed","error":{"code":"rate_limit_exceeded","message":"Slow down"},"output":[],"usage":null}"#;
    assert_eq!(
        invariant(failed, 12),
        [
            r#"{"event":"error","source":"provider","code":"rate_limit_exceeded","message":"Slow down"}"#,
            r#"{"event":"finish","reason":"error","raw_reason":"failed","response_id":"resp_f"}"#,
        ]
    );
}

#[test]
fn a_whole_body_holds_arguments_written_before_the_name() {
    let body = br#"{"id":"resp_w","object":"response","status":"completed","model":"m","output":[{"type":"function_call","arguments":"{\"q\": \"a\"}","call_id":"call_W","name":"s"},{"type":"message","content":[{"type":"output_text","text":"A"},{"type":"refusal","refusal":"B"}]}]}"#;
    let events = invariant(body, 16);
    assert_eq!(
        blocks(&events),
        [
            r#"{"event":"block_start","index":0,"type":"tool_call"}"#,
            r#"{"event":"block_complete","index":0,"type":"tool_call","tool_name":"s","tool_id":"call_W","input":{"q":"a"}}"#,
            r#"{"event":"block_start","index":1,"type":"text"}"#,
            r#"{"event":"block_complete","index":1,"type":"text","content":"A"}"#,
            r#"{"event":"block_start","index":2,"type":"text"}"#,
            r#"{"event":"block_complete","index":2,"type":"text","content":"B","refusal":true}"#,
            r#"{"event":"finish","reason":"tool_calls","raw_reason":"completed","response_id":"resp_w","model":"m"}"#,
        ]
    );
}

#[test]
fn an_encrypted_content_past_the_memory_bound_is_dropped_and_reported() {
    let long = "E".repeat(300);
    let done = format!(
        r#"{{"type":"response.output_item.done","output_index":0,"item":{{"type":"reasoning","summary":[],"encrypted_content":"{long}"}}}}"#
    );
    let body = sse(
        true,
        &[
            r#"{"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":0,"delta":"Hmm."}"#,
            &done,
            &completed("completed", "null"),
        ],
    );
    // 640 bytes of memory: 128 for signatures.
    let config = DecoderConfig::new(Provider::OpenAiResponses);
    for size in [1, 7, body.len()] {
        let lines = support::provider::non_chunks(&config, &body, size, Some(640));
        assert_eq!(
            lines[..3],
            [
                r#"{"event":"block_start","index":0,"type":"thinking"}"#,
                r#"{"event":"block_complete","index":0,"type":"thinking","content":"Hmm."}"#,
                r#"{"event":"error","source":"framing","code":"max-call-bytes","message":"a reasoning item's encrypted_content exceeded max_call_bytes; it is dropped"}"#,
            ],
            "size {size}"
        );
        assert!(lines[3].starts_with(r#"{"event":"finish","reason":"stop""#));
    }
}

#[test]
fn a_reasoning_item_without_encrypted_content_gets_no_earlier_signature() {
    let body = sse(
        true,
        &[
            CREATED,
            r#"{"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":0,"delta":"A"}"#,
            r#"{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","summary":[],"encrypted_content":"FIRST"}}"#,
            r#"{"type":"response.reasoning_text.delta","output_index":1,"content_index":0,"delta":"B"}"#,
            r#"{"type":"response.output_item.done","output_index":1,"item":{"type":"reasoning","summary":[]}}"#,
            &completed("completed", "null"),
        ],
    );
    let events = invariant(&body, 12);
    assert_eq!(
        blocks(&events)[..4],
        [
            r#"{"event":"block_start","index":0,"type":"thinking"}"#,
            r#"{"event":"block_complete","index":0,"type":"thinking","content":"A","signature":"FIRST"}"#,
            r#"{"event":"block_start","index":1,"type":"thinking"}"#,
            r#"{"event":"block_complete","index":1,"type":"thinking","content":"B"}"#,
        ]
    );
}

#[test]
fn a_whole_body_takes_arguments_written_as_an_object() {
    let body = br#"{"status":"completed","output":[{"type":"function_call","call_id":"call_O","name":"o","arguments":{"k": [1, 2.50]}}]}"#;
    let events = invariant(body, 16);
    find(&events, r#""tool_id":"call_O","input":{"k":[1,2.50]}"#);
}

#[test]
fn text_deltas_run_through_the_text_dialect_and_parts_end_its_run() {
    let mut config = DecoderConfig::new(Provider::OpenAiResponses);
    config.options.dialect = tokensieve::Dialect::Hermes;
    let body = sse(
        true,
        &[
            CREATED,
            &text_delta(
                0,
                0,
                r#"Hi <think>hmm</think>ok <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>"#,
            ),
            // The reasoning item's encrypted_content: a thinking block after the run.
            r#"{"type":"response.output_item.done","output_index":1,"item":{"type":"reasoning","summary":[],"encrypted_content":"SIG"}}"#,
            &text_delta(2, 0, "Bye"),
            &completed("completed", "null"),
        ],
    );
    let whole = support::provider::invariant(&config, &body, 1..=20, None);
    let completes: Vec<&String> = whole
        .iter()
        .filter(|l| l.contains("block_complete"))
        .collect();
    assert_eq!(completes.len(), 6, "{whole:#?}");
    assert!(completes[1].contains(r#""index":1,"type":"thinking","content":"hmm""#));
    assert!(completes[3].contains(r#""index":3,"type":"tool_call","tool_name":"f""#));
    assert_eq!(
        completes[4],
        r#"{"event":"block_complete","index":4,"type":"thinking","content":"","signature":"SIG"}"#
    );
    assert!(completes[5].contains(r#""index":5,"type":"text","content":"Bye""#));
}

/// Fuzz F20: a built-in tool item done while a call of an earlier item at the same output
/// index is still open wrote its input into that call (invalid JSON input). Now the open
/// call fails whole and the item is skipped with an error event; decoding goes on.
#[test]
fn a_whole_item_while_a_call_is_open_fails_that_call_and_is_skipped() {
    let body = sse(
        true,
        &[
            CREATED,
            r#"{"type":"response.output_item.added","output_index":0,"item":{"id":"ctc_1","type":"custom_tool_call","status":"in_progress","call_id":"call_X","input":"","name":"apply_patch"}}"#,
            r#"{"type":"response.output_item.done","output_index":0,"item":{"type":"computer_call","id":"cu_1","call_id":"call_cmp1","action":{"type":"click","x":1},"pending_safety_checks":[],"status":"completed"}}"#,
            &text_delta(1, 0, "After."),
            &completed("completed", "null"),
        ],
    );
    let events = invariant(&body, 12);
    find(&events, r#""code":"item-while-call-open""#);
    find(
        &events,
        r#""tool_name":"apply_patch","tool_id":"call_X","error":{"reason":"unfinished""#,
    );
    assert!(
        !events
            .iter()
            .any(|e| e.contains(r#""tool_name":"computer""#)),
        "{events:#?}"
    );
    find(&events, r#""content":"After.""#);
}

/// Calls written whole (compatible servers and proxies): a call that had no argument delta
/// takes its item's arguments, once, at every read size (vectors 021–026).
#[test]
fn calls_written_whole_take_the_item_arguments_at_every_read_size() {
    const DIR: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conformance/providers/openai-responses/"
    );
    let cases: [(&str, &[&str]); 6] = [
        (
            "021-function-call-whole-in-done.sse",
            &[r#""input":{"city":"Köln","days":[1,2],"note":"say \"hi\""}"#],
        ),
        (
            "022-custom-tool-call-input-in-added.sse",
            &[
                r#""input":{"input":"*** Begin Patch\n*** Add File: hello.txt\n+Hello, \"world\"\t!\n*** End Patch"}"#,
            ],
        ),
        (
            "023-custom-in-added-and-done-no-duplication.sse",
            &[
                r#""input":{"input":"*** Begin Patch\n*** Add File: hello.txt\n+Hello, \"world\"\t!\n*** End Patch"}"#,
                r#""input":{"path":"hello.txt"}"#,
            ],
        ),
        (
            "024-deltas-win-over-done.sse",
            &[r#""input":{"query":"rust"}"#],
        ),
        (
            "025-whole-item-cut-at-end.sse",
            &[
                r#""error":{"reason":"unfinished","raw":"{\"input\":\"*** Begin Patch\\n*** Delete File: old.txt\\n*** End Patch"}"#,
            ],
        ),
        ("026-call-only-in-done.sse", &[r#""input":{"a":1}"#]),
    ];
    for (file, inputs) in cases {
        let body = std::fs::read(format!("{DIR}{file}")).unwrap();
        let events = invariant(&body, 64);
        let calls: Vec<&str> = blocks(&events)
            .into_iter()
            .filter(|l| {
                l.contains(r#""event":"block_complete","index""#) && l.contains("tool_call")
            })
            .collect();
        assert_eq!(calls.len(), inputs.len(), "{file}: {events:#?}");
        for (call, input) in calls.iter().zip(inputs) {
            assert!(call.contains(input), "{file}: {call} lacks {input}");
        }
    }
}

/// An item's arguments held past `max_call_bytes` (the added item's, or a done item's whose
/// call was never added) fail the call as too large: never a call with a cut input.
#[test]
fn item_arguments_past_the_memory_bound_fail_the_call() {
    let long = "x".repeat(300);
    let added = format!(
        r#"{{"type":"response.output_item.added","output_index":0,"item":{{"id":"ctc_1","type":"custom_tool_call","status":"in_progress","call_id":"call_1","input":"{long}","name":"apply_patch"}}}}"#
    );
    let done_only = format!(
        r#"{{"type":"response.output_item.done","output_index":1,"item":{{"id":"fc_2","type":"function_call","status":"completed","arguments":"{{\"q\":\"{long}\"}}","call_id":"call_2","name":"search"}}}}"#
    );
    let body = sse(
        true,
        &[
            CREATED,
            &added,
            r#"{"type":"response.output_item.done","output_index":0,"item":{"id":"ctc_1","type":"custom_tool_call","status":"completed","call_id":"call_1","name":"apply_patch"}}"#,
            &done_only,
            &completed("completed", "null"),
        ],
    );
    // 640 bytes of memory: 128 for held arguments.
    let config = DecoderConfig::new(Provider::OpenAiResponses);
    for size in [1, 7, body.len()] {
        let lines = support::provider::non_chunks(&config, &body, size, Some(640));
        let calls: Vec<&String> = lines
            .iter()
            .filter(|l| l.starts_with(r#"{"event":"block_complete""#) && l.contains("tool_call"))
            .collect();
        assert_eq!(calls.len(), 2, "size {size}: {lines:#?}");
        for call in calls {
            assert!(
                call.contains(r#""error":{"reason":"too-large""#),
                "size {size}: {call}"
            );
        }
    }
}

/// A `*_arguments.done` event of a call whose block is no longer open (another item's block
/// opened since) is a snapshot: it feeds neither that call nor the open block.
#[test]
fn a_done_event_of_a_call_no_longer_open_is_not_read() {
    let body = sse(
        true,
        &[
            CREATED,
            r#"{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"ping"}}"#,
            &text_delta(1, 0, "Hi."),
            r#"{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":0,"arguments":"{\"a\":1}"}"#,
            &completed("completed", "null"),
        ],
    );
    let events = invariant(&body, 24);
    find(&events, r#""tool_id":"call_1","input":{}"#);
    find(&events, r#""type":"text","content":"Hi.""#);
    assert!(
        !events
            .iter()
            .any(|l| l.contains(r#"\"a\""#) || l.contains(r#""a":1"#)),
        "{events:#?}"
    );
}
