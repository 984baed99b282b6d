#![cfg(feature = "alloc")]
//! The Anthropic Messages decoder (docs/providers.md): chunk invariance over a recorded-shape
//! body at every read size, and one test per quirk of the wire format.

mod support;

use tokensieve::provider::{Decoder, DecoderConfig, Provider};
use tokensieve::{Event, FinishReason};

/// Thinking (unicode escapes, a signature in two pieces), redacted thinking, a text block
/// with a citation, a server tool and its result, a client tool, CRLF line ends, padding.
const MIXED: &[u8] = include_bytes!("data/anthropic-mixed.sse");

/// JSON lines of the coalesced event stream of `body` fed `size` bytes at a time.
fn decode(body: &[u8], size: usize) -> Vec<String> {
    support::provider::lines(&DecoderConfig::new(Provider::Anthropic), body, size, None)
}

/// The events of `body` read whole, asserted equal at every read size up to `max`.
#[track_caller]
fn invariant(body: &[u8], max: usize) -> Vec<String> {
    let config = DecoderConfig::new(Provider::Anthropic);
    support::provider::invariant(&config, body, 1..=max, None)
}

/// An SSE body of `data:` lines with their event names.
fn sse(events: &[&str]) -> Vec<u8> {
    let mut body = String::new();
    for e in events {
        let v: serde_json::Value = serde_json::from_str(e).unwrap();
        let name = v["type"].as_str().unwrap_or("x");
        body.push_str(&format!("event: {name}\ndata: {e}\n\n"));
    }
    body.into_bytes()
}

const START: &str = r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}"#;
const STOP: &str = r#"{"type":"message_stop"}"#;

fn delta(reason: &str, output: u64) -> String {
    format!(
        r#"{{"type":"message_delta","delta":{{"stop_reason":"{reason}","stop_sequence":null}},"usage":{{"output_tokens":{output}}}}}"#
    )
}

fn find<'a>(events: &'a [String], needle: &str) -> &'a str {
    events
        .iter()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no event with {needle} in {events:#?}"))
}

#[test]
fn anthropic_is_chunk_invariant() {
    let whole = invariant(MIXED, 70);
    let thinking = find(&whole, r#""type":"thinking","content":"Café 🎉 first""#);
    assert!(
        thinking.contains(r#""signature":"EqQB+part/onepart/two==""#),
        "{thinking}"
    );
    let redacted = find(&whole, r#""redacted":"RED/acted==""#);
    assert!(redacted.contains(r#""content":"""#), "{redacted}");
    assert!(!redacted.contains("signature"), "{redacted}");
    find(&whole, r#""content":"Hi \"there\" é\n""#);
    let server = find(&whole, r#""tool_id":"srvtoolu_1","input":{"query":"sky"}"#);
    assert!(server.contains(r#""server":true"#), "{server}");
    let result = find(&whole, r#""type":"tool_result","content""#);
    assert!(result.contains(r#""tool_name":"web_search_tool_result""#));
    assert!(result.contains(r#""server":true"#));
    find(&whole, r#""input":{"city":"Köln","days":[1,2.50]}"#);
    assert_eq!(
        whole.last().unwrap(),
        r#"{"event":"finish","reason":"tool_calls","raw_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":42,"cache_read_tokens":7,"cache_write_tokens":3},"response_id":"msg_mixed","model":"claude-x"}"#
    );
    assert!(!whole.iter().any(|l| l.contains(r#""event":"error""#)));
}

#[test]
fn bedrock_shaped_documents_without_event_names_decode_the_same() {
    // InvokeModelWithResponseStream wraps one event document per frame, with no SSE
    // `event:` name: the mapper decides by the JSON `type`.
    let text = String::from_utf8(MIXED.to_vec()).unwrap();
    let docs: String = text
        .lines()
        .filter_map(|l| l.trim_end_matches('\r').strip_prefix("data: "))
        .map(|d| format!("{d}\n"))
        .collect();
    let unnamed: String = docs.lines().map(|d| format!("data: {d}\n\n")).collect();
    let expected = decode(MIXED, MIXED.len());
    assert_eq!(invariant(unnamed.as_bytes(), 9), expected);
}

#[test]
fn padding_before_the_final_brace_is_whitespace() {
    let body = sse(&[
        &START.replace("}}}", "}}             }"),
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}     }"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Padded"}       }"#,
        r#"{"type":"content_block_stop","index":0          }"#,
        &(delta("end_turn", 3).trim_end_matches('}').to_string() + "}      }"),
        r#"{"type":"message_stop"              }"#,
    ]);
    let events = invariant(&body, 16);
    assert_eq!(events.len(), 4, "{events:#?}");
    find(&events, r#""content":"Padded""#);
    assert!(events[3].starts_with(r#"{"event":"finish","reason":"stop","raw_reason":"end_turn""#));
}

#[test]
fn max_tokens_inside_a_tool_call_fails_it_as_unfinished() {
    let body = sse(&[
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"write","input":{}}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"a\", \"body\": \"xy"}}"#,
        &delta("max_tokens", 1024),
        STOP,
    ]);
    let events = invariant(&body, 12);
    let call = find(&events, r#""type":"tool_call","tool_name":"write""#);
    assert!(call.contains(r#""reason":"unfinished""#), "{call}");
    assert!(
        call.contains(r#""raw":"{\"path\": \"a\", \"body\": \"xy""#),
        "{call}"
    );
    // on_malformed = text: the raw text comes back as a text block.
    find(&events, r#""type":"text","content":"{\"path\": \"a\""#);
    support::provider::ends_mentioning(&events, r#""reason":"length","raw_reason":"max_tokens""#);
}

#[test]
fn redacted_thinking_carries_its_data() {
    let body = sse(&[
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwK+/=="}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"Second"}}"#,
        r#"{"type":"content_block_stop","index":1}"#,
        &delta("end_turn", 3),
        STOP,
    ]);
    let events = invariant(&body, 10);
    assert_eq!(
        events[1],
        r#"{"event":"block_complete","index":0,"type":"thinking","content":"","redacted":"EmwK+/=="}"#
    );
    assert_eq!(
        events[3],
        r#"{"event":"block_complete","index":1,"type":"thinking","content":"","redacted":"Second"}"#
    );
}

#[test]
fn signature_deltas_are_concatenated() {
    let sig = |s: &str| {
        format!(
            r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"signature_delta","signature":"{s}"}}}}"#
        )
    };
    let body = sse(&[
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Hmm."}}"#,
        &sig("AAA"),
        &sig(""),
        &sig("BBB"),
        &sig("CCC"),
        r#"{"type":"content_block_stop","index":0}"#,
        // A signature with no thinking text: the block still appears.
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":""}}"#,
        &sig("ONLY").replace("\"index\":0", "\"index\":1"),
        r#"{"type":"content_block_stop","index":1}"#,
        &delta("pause_turn", 3),
        STOP,
    ]);
    let events = invariant(&body, 10);
    find(&events, r#""content":"Hmm.","signature":"AAABBBCCC"}"#);
    let only = find(&events, r#""signature":"ONLY""#);
    assert!(
        only.contains(r#""index":1,"type":"thinking","content":"""#),
        "{only}"
    );
    support::provider::ends_mentioning(&events, r#""reason":"other","raw_reason":"pause_turn""#);
}

#[test]
fn server_tools_are_server_blocks_and_citations_are_kept() {
    let body = sse(&[
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_9","name":"web_fetch","input":{}}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"url\": \"https://a\"}"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"web_fetch_tool_result","tool_use_id":"srvtoolu_9","content":{"type":"web_fetch_result","url":"https://a","content":{"type":"document","source":{"type":"text","data":"Hi   there"}}}}}"#,
        r#"{"type":"content_block_stop","index":1}"#,
        r#"{"type":"content_block_start","index":2,"content_block":{"type":"text","text":"","citations":[]}}"#,
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"citations_delta","citation":{"type":"char_location","cited_text":"Hi","text":"not content"}}}"#,
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"Cited."}}"#,
        r#"{"type":"content_block_stop","index":2}"#,
        r#"{"type":"content_block_start","index":3,"content_block":{"type":"mcp_tool_use","id":"mcptoolu_1","name":"echo","server_name":"s","input":{"x":1}}}"#,
        r#"{"type":"content_block_stop","index":3}"#,
        r#"{"type":"content_block_start","index":4,"content_block":{"type":"mcp_tool_result","tool_use_id":"mcptoolu_1","is_error":false,"content":[{"type":"text","text":"1"}]}}"#,
        r#"{"type":"content_block_stop","index":4}"#,
        &delta("end_turn", 3),
        STOP,
    ]);
    let events = invariant(&body, 10);
    let call = find(&events, r#""tool_id":"srvtoolu_9","input""#);
    assert!(
        call.contains(r#""input":{"url":"https://a"},"server":true"#),
        "{call}"
    );
    assert_eq!(
        find(&events, r#""type":"tool_result","content""#),
        r#"{"event":"block_complete","index":1,"type":"tool_result","content":"{\"type\":\"web_fetch_result\",\"url\":\"https://a\",\"content\":{\"type\":\"document\",\"source\":{\"type\":\"text\",\"data\":\"Hi   there\"}}}","tool_name":"web_fetch_tool_result","tool_id":"srvtoolu_9","server":true}"#
    );
    // A citation's `text` member is not content: the citation goes on its block whole.
    assert_eq!(
        find(&events, r#""index":2,"type":"text","content":"Cited.""#),
        r#"{"event":"block_complete","index":2,"type":"text","content":"Cited.","citations":[{"type":"char_location","cited_text":"Hi","text":"not content"}]}"#
    );
    // mcp_tool_use's input whole in its content_block_start is its input.
    let mcp = find(&events, r#""tool_id":"mcptoolu_1","input""#);
    assert!(mcp.contains(r#""input":{"x":1},"server":true"#), "{mcp}");
    let result = find(
        &events,
        r#""tool_name":"mcp_tool_result","tool_id":"mcptoolu_1","server""#,
    );
    assert!(
        result.contains(r#""content":"[{\"type\":\"text\",\"text\":\"1\"}]""#),
        "{result}"
    );
}

#[test]
fn a_second_message_start_is_an_error_in_the_same_index_space() {
    let second = START
        .replace("msg_1", "msg_2")
        .replace("\"input_tokens\":25", "\"input_tokens\":30");
    let body = sse(&[
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}"#,
        &second,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Again."}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        &delta("end_turn", 5),
        STOP,
    ]);
    let events = invariant(&body, 10);
    // The call is cut short (unfinished), its raw text comes back, then the error.
    let call = find(&events, r#""type":"tool_call","tool_name":"f""#);
    assert!(call.contains(r#""reason":"unfinished""#), "{call}");
    let err = events
        .iter()
        .position(|l| l.contains(r#""code":"unexpected-message-start""#))
        .unwrap();
    assert!(events[err].contains(r#""source":"provider""#));
    assert_eq!(
        events[err + 1],
        r#"{"event":"block_start","index":2,"type":"text"}"#
    );
    assert_eq!(
        events.last().unwrap(),
        r#"{"event":"finish","reason":"stop","raw_reason":"end_turn","usage":{"input_tokens":30,"output_tokens":5,"cache_read_tokens":0,"cache_write_tokens":0},"response_id":"msg_2","model":"claude-x"}"#
    );
    assert_eq!(
        events
            .iter()
            .filter(|l| l.contains(r#""event":"finish""#))
            .count(),
        1
    );
}

#[test]
fn usage_from_message_delta_replaces_message_start() {
    let body = sse(&[
        START,
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":40,"cache_creation_input_tokens":null,"cache_read_input_tokens":9,"output_tokens":7,"server_tool_use":{"web_search_requests":2}}}"#,
        STOP,
    ]);
    let events = invariant(&body, 10);
    assert_eq!(
        events,
        [
            r#"{"event":"finish","reason":"stop","raw_reason":"end_turn","usage":{"input_tokens":40,"output_tokens":7,"cache_read_tokens":9,"cache_write_tokens":0},"response_id":"msg_1","model":"claude-x"}"#
        ]
    );
}

#[test]
fn stop_reasons_map_as_providers_md_says() {
    for (raw, reason) in [
        ("end_turn", FinishReason::Stop),
        ("stop_sequence", FinishReason::Stop),
        ("max_tokens", FinishReason::Length),
        ("model_context_window_exceeded", FinishReason::Length),
        ("tool_use", FinishReason::ToolCalls),
        ("refusal", FinishReason::Refusal),
        ("pause_turn", FinishReason::Other),
        ("brand_new_reason", FinishReason::Other),
    ] {
        let body = sse(&[START, &delta(raw, 2), STOP]);
        let config = DecoderConfig::new(Provider::Anthropic);
        let mut got = None;
        support::provider::each(&config, &body, &[], None, |ev| {
            if let Event::Finish(f) = ev {
                got = Some((f.reason, f.raw_reason.map(str::to_owned)));
            }
        });
        assert_eq!(got, Some((reason, Some(raw.to_owned()))), "{raw}");
    }
}

#[test]
fn error_events_and_bodies_are_provider_errors() {
    // `event: error` mid-stream, then the body ends: finish error with the error's type.
    let mut body = sse(&[
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Part"}}"#,
    ]);
    body.extend_from_slice(
        b"event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}\n\n",
    );
    let events = invariant(&body, 10);
    assert_eq!(
        events[3],
        r#"{"event":"error","source":"provider","code":"overloaded_error","message":"Overloaded"}"#
    );
    assert!(events[4].starts_with(
        r#"{"event":"finish","reason":"error","raw_reason":"overloaded_error","usage""#
    ));
    // An `event: error` whose document has no `error` member is the error object itself.
    let body = b"event: error\ndata: {\"message\": \"Internal server error\", \"code\": 500}\n\n";
    assert_eq!(
        invariant(body, 10),
        [
            r#"{"event":"error","source":"provider","code":"500","message":"Internal server error"}"#,
            r#"{"event":"finish","reason":"error","raw_reason":"500"}"#
        ]
    );
    // A bare error body.
    let body = br#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"},"request_id":"req_1"}"#;
    assert_eq!(
        invariant(body, 10),
        [
            r#"{"event":"error","source":"provider","code":"invalid_request_error","message":"max_tokens: Field required"}"#,
            r#"{"event":"finish","reason":"error","raw_reason":"invalid_request_error"}"#
        ]
    );
}

#[test]
fn start_input_empty_is_nothing_and_non_empty_is_the_initial_input() {
    let body = sse(&[
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"a","input":{ }}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_2","name":"b","input":{"k": [true, null]}}}"#,
        r#"{"type":"content_block_stop","index":1}"#,
        r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_3","name":"c","input":{}}}"#,
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"z\":0}"}}"#,
        r#"{"type":"content_block_stop","index":2}"#,
        &delta("tool_use", 3),
        STOP,
    ]);
    let events = invariant(&body, 10);
    find(&events, r#""tool_id":"toolu_1","input":{}}"#);
    find(&events, r#""tool_id":"toolu_2","input":{"k":[true,null]}}"#);
    find(&events, r#""tool_id":"toolu_3","input":{"z":0}}"#);
    assert!(
        !events.iter().any(|l| l.contains(r#""error""#)),
        "{events:#?}"
    );
}

#[test]
fn a_whole_message_body_gives_the_same_blocks() {
    let body = br#"{"id":"msg_w","type":"message","role":"assistant","model":"claude-x","content":[
        {"type":"redacted_thinking","data":"R=="},
        {"type":"thinking","thinking":"","signature":"S=="},
        {"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}},
        {"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]},
        {"type":"text","text":"Answer","citations":[{"type":"web_search_result_location","cited_text":"x"}]},
        {"type":"tool_use","id":"toolu_1","name":"f","input":{}}
      ],"stop_reason":"tool_use","stop_sequence":null,
      "usage":{"input_tokens":1,"output_tokens":2,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}"#;
    let events = invariant(body, 12);
    let completes: Vec<&String> = events
        .iter()
        .filter(|l| l.contains("block_complete"))
        .collect();
    assert_eq!(completes.len(), 6, "{events:#?}");
    assert!(completes[0].contains(r#""redacted":"R==""#));
    assert!(completes[1].contains(r#""signature":"S==""#));
    assert!(!completes[1].contains("redacted"));
    assert!(completes[2].contains(r#""input":{"query":"q"},"server":true"#));
    assert!(completes[3].contains(r#""content":"[]""#));
    assert!(completes[4].contains(r#""content":"Answer""#));
    assert!(completes[5].contains(r#""input":{}"#));
    assert!(events.last().unwrap().starts_with(
        r#"{"event":"finish","reason":"tool_calls","raw_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":2"#
    ));
}

#[test]
fn caller_memory_decoder() {
    let config = DecoderConfig::new(Provider::Anthropic);
    let mut memory = [0u8; 4096];
    let mut decoder = Decoder::with_memory(&config, &mut memory).unwrap();
    let mut reason = None;
    let mut signature = String::new();
    decoder.feed_with(MIXED, |ev| match ev {
        Event::Finish(f) => reason = Some(f.reason),
        Event::BlockComplete(c) => {
            if let Some(s) = c.signature {
                signature.push_str(s);
            }
        }
        _ => {}
    });
    decoder.finish_with(|_| {});
    assert_eq!(reason, Some(FinishReason::ToolCalls));
    assert_eq!(signature, "EqQB+part/onepart/two==");
}

#[test]
fn damaged_bodies_never_panic_and_stay_well_formed() {
    // Deterministic damage (flipped, dropped and cut bytes) over the mixed body: the event
    // stream stays well formed (blocks never interleave, one finish, last).
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..300 {
        let mut body = MIXED.to_vec();
        for _ in 0..1 + next() % 6 {
            let at = (next() as usize) % body.len();
            match next() % 3 {
                0 => body[at] = next() as u8,
                1 => {
                    body.remove(at);
                }
                _ => body.truncate(at.max(1)),
            }
        }
        let size = 1 + (next() as usize) % 40;
        let events = decode(&body, size);
        let mut open = false;
        for (i, e) in events.iter().enumerate() {
            if e.starts_with(r#"{"event":"block_start""#) {
                assert!(!open, "round {round}: interleaved at {i}: {events:#?}");
                open = true;
            } else if e.starts_with(r#"{"event":"block_complete""#) {
                assert!(open, "round {round}: complete without start: {events:#?}");
                open = false;
            } else if e.starts_with(r#"{"event":"finish""#) {
                assert_eq!(i, events.len() - 1, "round {round}: {events:#?}");
            }
        }
        assert!(!open, "round {round}");
        let finishes = events
            .iter()
            .filter(|l| l.starts_with(r#"{"event":"finish""#))
            .count();
        assert_eq!(finishes, 1, "round {round}: {events:#?}");
    }
}

#[test]
fn after_a_broken_event_a_later_delta_opens_a_new_block() {
    let mut body = sse(&[
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\": 1"}}"#,
    ]);
    body.extend_from_slice(
        b"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",,}\n\n",
    );
    body.extend_from_slice(&sse(&[
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"b\": 2}"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        &delta("tool_use", 3),
        STOP,
    ]));
    let events = invariant(&body, 10);
    let fault = events
        .iter()
        .position(|l| l.contains(r#""source":"framing","code":"json""#))
        .unwrap_or_else(|| panic!("{events:#?}"));
    // The call completed before the fault (cut short), then opens again with its name and id.
    assert!(
        events[..fault]
            .iter()
            .any(|l| l.contains(r#""tool_id":"toolu_1","error":{"reason":"unfinished""#))
    );
    let again = find(&events[fault..], r#""tool_id":"toolu_1","input":{"b":2}}"#);
    assert!(again.contains(r#""tool_name":"f""#), "{again}");
    support::provider::ends_mentioning(&events, r#""reason":"tool_calls""#);
}

#[test]
fn text_deltas_run_through_the_text_dialect_and_signatures_keep_their_block() {
    let mut config = DecoderConfig::new(Provider::Anthropic);
    config.options.dialect = tokensieve::Dialect::Hermes;
    let body = sse(&[
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi <think>hmm</think>ok <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>"}}"#,
        // No content_block_stop: the signature's thinking block ends the dialect's run.
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"SIG"}}"#,
        r#"{"type":"content_block_stop","index":1}"#,
        &delta("end_turn", 9),
        STOP,
    ]);
    let whole = support::provider::invariant(&config, &body, 1..=20, None);
    let completes: Vec<&String> = whole
        .iter()
        .filter(|l| l.contains("block_complete"))
        .collect();
    assert_eq!(completes.len(), 5, "{whole:#?}");
    assert!(completes[1].contains(r#""index":1,"type":"thinking","content":"hmm""#));
    assert!(completes[3].contains(r#""index":3,"type":"tool_call","tool_name":"f""#));
    assert_eq!(
        completes[4],
        r#"{"event":"block_complete","index":4,"type":"thinking","content":"","signature":"SIG"}"#
    );
}

#[test]
fn a_signature_past_the_memory_bound_is_dropped_and_reported() {
    let sig = |s: &str| {
        format!(
            r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"signature_delta","signature":"{s}"}}}}"#
        )
    };
    let long = "S".repeat(100);
    let body = sse(&[
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Hmm."}}"#,
        &sig(&long),
        &sig(&long),
        &sig(&long),
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":""}}"#,
        &sig("short").replace("\"index\":0", "\"index\":1"),
        r#"{"type":"content_block_stop","index":1}"#,
        &delta("end_turn", 3),
        STOP,
    ]);
    // 640 bytes of memory: 128 for signatures.
    let config = DecoderConfig::new(Provider::Anthropic);
    for size in [1, 7, body.len()] {
        let lines = support::provider::non_chunks(&config, &body, size, Some(640));
        assert_eq!(
            lines,
            [
                r#"{"event":"block_start","index":0,"type":"thinking"}"#,
                r#"{"event":"block_complete","index":0,"type":"thinking","content":"Hmm."}"#,
                r#"{"event":"error","source":"framing","code":"max-call-bytes","message":"a thinking block's signature or redacted data exceeded max_call_bytes; it is dropped"}"#,
                r#"{"event":"block_start","index":1,"type":"thinking"}"#,
                r#"{"event":"block_complete","index":1,"type":"thinking","content":"","signature":"short"}"#,
                r#"{"event":"finish","reason":"stop","raw_reason":"end_turn","usage":{"input_tokens":25,"output_tokens":3,"cache_read_tokens":0,"cache_write_tokens":0},"response_id":"msg_1","model":"claude-x"}"#,
            ],
            "size {size}"
        );
    }
}

#[test]
fn a_compaction_keeps_its_summary_and_latest_encrypted_content() {
    let cmp = |content: &str, enc: &str| {
        format!(
            r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"compaction_delta","content":"{content}","encrypted_content":"{enc}"}}}}"#
        )
    };
    let body = sse(&[
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"compaction","content":null,"encrypted_content":null}}"#,
        &cmp("Sum", "old"),
        &cmp("mary.", "new+/=="),
        r#"{"type":"content_block_stop","index":0}"#,
        &delta("compaction", 3),
        STOP,
    ]);
    let events = invariant(&body, 40);
    assert_eq!(
        find(&events, "block_complete"),
        r#"{"event":"block_complete","index":0,"type":"thinking","content":"Summary.","redacted":"new+/==","compaction":true}"#
    );
    assert!(find(&events, "finish").contains(r#""reason":"other","raw_reason":"compaction""#));
}

#[test]
fn a_compaction_encrypted_content_past_the_memory_bound_is_dropped_and_reported() {
    let long = "E".repeat(300);
    let body = sse(&[
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"compaction","content":null}}"#,
        &format!(
            r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"compaction_delta","content":"S.","encrypted_content":"{long}"}}}}"#
        ),
        r#"{"type":"content_block_stop","index":0}"#,
        &delta("end_turn", 3),
        STOP,
    ]);
    let config = DecoderConfig::new(Provider::Anthropic);
    for size in [1, 7, body.len()] {
        // 640 bytes of memory: 128 for the encrypted content.
        let lines = support::provider::non_chunks(&config, &body, size, Some(640));
        assert_eq!(
            lines[..3],
            [
                r#"{"event":"block_start","index":0,"type":"thinking"}"#,
                r#"{"event":"block_complete","index":0,"type":"thinking","content":"S.","compaction":true}"#,
                r#"{"event":"error","source":"framing","code":"max-call-bytes","message":"a compaction block's encrypted_content exceeded max_call_bytes; it is dropped"}"#,
            ],
            "size {size}"
        );
    }
}

#[test]
fn citations_past_the_memory_bound_are_dropped_and_reported() {
    let cite = |index: u32, s: &str| {
        format!(
            r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"citations_delta","citation":{{"type":"char_location","cited_text":"{s}","document_index":0}}}}}}"#
        )
    };
    let text = |index: u32, s: &str| {
        format!(
            r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"text_delta","text":"{s}"}}}}"#
        )
    };
    let long = "C".repeat(60);
    let body = sse(&[
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        &text(0, "One"),
        &cite(0, "a"),
        &cite(0, &long),
        &cite(0, "b"),
        &text(0, " two"),
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
        &cite(1, "a"),
        &cite(1, "b"),
        &text(1, "Three"),
        r#"{"type":"content_block_stop","index":1}"#,
        &delta("end_turn", 3),
        STOP,
    ]);
    // 640 bytes of memory: 128 for a text block's citations (shared with redacted data).
    let config = DecoderConfig::new(Provider::Anthropic);
    for size in [1, 7, body.len()] {
        let lines = support::provider::non_chunks(&config, &body, size, Some(640));
        assert_eq!(
            lines,
            [
                r#"{"event":"block_start","index":0,"type":"text"}"#,
                r#"{"event":"block_complete","index":0,"type":"text","content":"One"}"#,
                r#"{"event":"error","source":"framing","code":"max-call-bytes","message":"a text block's citations exceeded max_call_bytes; they are dropped"}"#,
                r#"{"event":"block_start","index":1,"type":"text"}"#,
                r#"{"event":"block_complete","index":1,"type":"text","content":" two"}"#,
                r#"{"event":"block_start","index":2,"type":"text"}"#,
                r#"{"event":"block_complete","index":2,"type":"text","content":"Three","citations":[{"type":"char_location","cited_text":"a","document_index":0},{"type":"char_location","cited_text":"b","document_index":0}]}"#,
                r#"{"event":"finish","reason":"stop","raw_reason":"end_turn","usage":{"input_tokens":25,"output_tokens":3,"cache_read_tokens":0,"cache_write_tokens":0},"response_id":"msg_1","model":"claude-x"}"#,
            ],
            "size {size}"
        );
    }
}

/// Citations stay on the block they cite when blocks switch inside one event (a stream that
/// leaves out a `content_block_stop` and the next `content_block_start`, or interleaves
/// blocks): the earlier text block's citations are on its completion, the next block's on
/// its own (never lost, never on the other's), whatever the key order, at every read size.
#[test]
fn citations_stay_on_their_block_when_the_next_block_starts_without_a_stop() {
    const CITE_A: &str = r#"{"type":"char_location","cited_text":"A","document_index":0}"#;
    const CITE_B: &str = r#"{"type":"char_location","cited_text":"B","document_index":0}"#;
    let cite_delta = |index: u32, cite: &str, index_last: bool| {
        let d = format!(r#""delta":{{"type":"citations_delta","citation":{cite}}}"#);
        if index_last {
            format!(r#"{{"type":"content_block_delta",{d},"index":{index}}}"#)
        } else {
            format!(r#"{{"type":"content_block_delta","index":{index},{d}}}"#)
        }
    };
    let sig_delta = |index_last: bool| {
        let d = r#""delta":{"type":"signature_delta","signature":"SIG=="}"#;
        if index_last {
            format!(r#"{{"type":"content_block_delta",{d},"index":1}}"#)
        } else {
            format!(r#"{{"type":"content_block_delta","index":1,{d}}}"#)
        }
    };
    for index_last in [false, true] {
        for (cited_first, next) in [
            (true, sig_delta(index_last)),
            (true, cite_delta(1, CITE_B, index_last)),
            (false, cite_delta(1, CITE_B, index_last)),
        ] {
            let mut events = vec![
                START.to_string(),
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"","citations":[]}}"#.to_string(),
            ];
            if cited_first {
                events.push(cite_delta(0, CITE_A, false));
            }
            events.push(
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"First."}}"#.to_string(),
            );
            events.push(next.clone());
            events.push(delta("end_turn", 9));
            events.push(STOP.to_string());
            let refs: Vec<&str> = events.iter().map(String::as_str).collect();
            let whole = invariant(&sse(&refs), 40);
            let first = find(&whole, r#""content":"First.""#);
            let cite_b = next.contains("citations_delta");
            if index_last && cite_b {
                // Its index is read after it: it joins the open text block's list, and the
                // error after it says the stream named another block (docs/providers.md).
                let a = if cited_first {
                    "A\",\"document_index\":0},"
                } else {
                    ""
                };
                assert!(first.contains(a) && first.contains(CITE_B), "{whole:#?}");
                find(&whole, "unexpected-block-index");
                continue;
            }
            if cited_first {
                assert!(
                    first.contains(&format!(r#""citations":[{CITE_A}]"#)),
                    "{next}: {whole:#?}"
                );
            } else {
                assert!(!first.contains("citations"), "{next}: {whole:#?}");
            }
            if cite_b {
                // On a block of its own.
                let b = find(&whole, &format!(r#""citations":[{CITE_B}]"#));
                assert!(!b.contains("First."), "{next}: {whole:#?}");
            } else {
                find(&whole, r#""signature":"SIG==""#);
            }
        }
    }
}
