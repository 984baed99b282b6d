#![cfg(feature = "alloc")]
//! The Gemini decoder (docs/providers.md): chunk invariance over every read size of its
//! vector bodies, and one test per wire quirk.

mod support;

use tokensieve::Event;
use tokensieve::provider::{DecoderConfig, Provider};

const VECTORS: &[(&str, &[u8])] = &[
    (
        "003",
        include_bytes!("../../conformance/providers/gemini/003-thought-parts-and-signature.sse"),
    ),
    (
        "006",
        include_bytes!("../../conformance/providers/gemini/006-parallel-function-calls.jsonarray"),
    ),
    (
        "008",
        include_bytes!("../../conformance/providers/gemini/008-vertex-bare-error-after-sse.sse"),
    ),
    (
        "012",
        include_bytes!("../../conformance/providers/gemini/012-non-streaming-body.body"),
    ),
    (
        "013",
        include_bytes!("../../conformance/providers/gemini/013-two-candidates.sse"),
    ),
    (
        "017",
        include_bytes!("../../conformance/providers/gemini/017-eof-mid-function-call.sse"),
    ),
];

/// JSON lines of the coalesced event stream of `body` fed `size` bytes at a time; `memory`:
/// a caller-memory decoder of that many bytes instead of the heap one.
fn decode_with(body: &[u8], size: usize, memory: Option<usize>) -> Vec<String> {
    support::provider::lines(&DecoderConfig::new(Provider::Gemini), body, size, memory)
}

/// The events of `body` read whole, asserted equal at every read size up to `max`.
#[track_caller]
fn invariant_with(body: &[u8], max: usize, memory: Option<usize>) -> Vec<String> {
    support::provider::invariant(&DecoderConfig::new(Provider::Gemini), body, 1..=max, memory)
}

#[track_caller]
fn invariant(body: &[u8]) -> Vec<String> {
    invariant_with(body, 16, None)
}

use support::provider::has;

#[track_caller]
fn last(lines: &[String], line: &str) {
    assert_eq!(lines.last().map(String::as_str), Some(line), "{lines:#?}");
}

/// One SSE event.
fn sse(doc: &str) -> String {
    format!("data: {doc}\r\n\r\n")
}

/// A candidate document with these parts (JSON text) and extra candidate fields.
fn cand(parts: &str, extra: &str) -> String {
    format!(r#"{{"candidates":[{{"content":{{"parts":[{parts}],"role":"model"}}{extra}}}]}}"#)
}

#[test]
fn vector_bodies_are_chunk_invariant_at_every_read_size() {
    for (name, body) in VECTORS {
        let whole = decode_with(body, body.len(), None);
        for size in 1..=70 {
            assert_eq!(decode_with(body, size, None), whole, "{name} size {size}");
        }
    }
}

#[test]
fn candidate_index_is_the_choice() {
    // The second candidate is written first, with its `index` before its content.
    let body = sse(
        r#"{"candidates":[{"index":1,"content":{"parts":[{"text":"B"}]},"finishReason":"MAX_TOKENS"},{"index":0,"content":{"parts":[{"text":"A"}]},"finishReason":"STOP"}]}"#,
    );
    let lines = invariant(body.as_bytes());
    has(
        &lines,
        r#"{"event":"block_complete","index":0,"type":"text","content":"B","choice":1}"#,
    );
    has(
        &lines,
        r#"{"event":"block_complete","index":1,"type":"text","content":"A"}"#,
    );
    let n = lines.len();
    assert_eq!(
        &lines[n - 2..],
        [
            r#"{"event":"finish","reason":"stop","raw_reason":"STOP"}"#,
            r#"{"event":"finish","reason":"length","raw_reason":"MAX_TOKENS","choice":1}"#,
        ]
    );
}

#[test]
fn thought_parts_are_thinking_whichever_key_comes_first() {
    for part in [
        r#"{"text":"Hm, ","thought":true}"#,
        r#"{"thought":true,"text":"Hm, "}"#,
    ] {
        let body = sse(&cand(part, "")) + &sse(&cand(r#"{"thought":true,"text":"ok."}"#, ""));
        let lines = invariant(body.as_bytes());
        has(
            &lines,
            r#"{"event":"block_complete","index":0,"type":"thinking","content":"Hm, ok."}"#,
        );
    }
}

#[test]
fn text_parts_join_across_chunks_and_parts() {
    let body = sse(&cand(r#"{"text":"a"},{"text":"b"}"#, ""))
        + &sse(&cand(r#"{"text":"c\u00e9\n"}"#, ""))
        + &sse(&cand(r#"{"text":"d"}"#, r#","finishReason":"STOP""#));
    let lines = invariant(body.as_bytes());
    assert_eq!(
        lines,
        [
            r#"{"event":"block_start","index":0,"type":"text"}"#,
            r#"{"event":"chunk","text":"abcé\nd","type":"text","visible":true,"block":0,"depth":0}"#,
            r#"{"event":"block_complete","index":0,"type":"text","content":"abcé\nd"}"#,
            r#"{"event":"finish","reason":"stop","raw_reason":"STOP"}"#,
        ]
    );
}

#[test]
fn a_signature_ends_its_parts_block() {
    // On a thought part with text, on a text part, then an empty part with none open.
    let body = sse(&cand(
        r#"{"text":"t","thought":true,"thoughtSignature":"S1"},{"text":"more thought","thought":true}"#,
        "",
    )) + &sse(&cand(
        r#"{"text":"x","thoughtSignature":"S2"},{"text":"y"}"#,
        "",
    )) + &sse(&cand(
        r#"{"text":"","thoughtSignature":"S3"},{"thoughtSignature":"S4"}"#,
        r#","finishReason":"STOP""#,
    ));
    let lines = invariant(body.as_bytes());
    let completes: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("block_complete"))
        .collect();
    assert_eq!(
        completes,
        [
            r#"{"event":"block_complete","index":0,"type":"thinking","content":"t","signature":"S1"}"#,
            r#"{"event":"block_complete","index":1,"type":"thinking","content":"more thought"}"#,
            r#"{"event":"block_complete","index":2,"type":"text","content":"x","signature":"S2"}"#,
            // The empty part signs the open text block; the next one has none open.
            r#"{"event":"block_complete","index":3,"type":"text","content":"y","signature":"S3"}"#,
            r#"{"event":"block_complete","index":4,"type":"thinking","content":"","signature":"S4"}"#,
        ]
    );
}

#[test]
fn an_empty_signature_is_none() {
    let body = sse(&cand(
        r#"{"text":"x","thoughtSignature":""},{"text":"y"}"#,
        "",
    ));
    let lines = invariant(body.as_bytes());
    has(
        &lines,
        r#"{"event":"block_complete","index":0,"type":"text","content":"xy"}"#,
    );
}

#[test]
fn function_calls_take_the_wire_id_or_a_generated_one() {
    let body = sse(&cand(
        r#"{"functionCall":{"name":"a","args":{"k": [1, 2.50, "\u00e9"]}}},{"functionCall":{"id":"w1","name":"b","args":{}}},{"functionCall":{"name":"c"}},{"functionCall":{"name":"d","args":"{\"s\": 1}"}}"#,
        r#","finishReason":"STOP""#,
    ));
    let lines = invariant(body.as_bytes());
    has(
        &lines,
        r#"{"event":"block_complete","index":0,"type":"tool_call","tool_name":"a","tool_id":"call_0","input":{"k":[1,2.50,"é"]}}"#,
    );
    has(
        &lines,
        r#"{"event":"block_complete","index":1,"type":"tool_call","tool_name":"b","tool_id":"w1","input":{}}"#,
    );
    has(
        &lines,
        r#"{"event":"block_complete","index":2,"type":"tool_call","tool_name":"c","tool_id":"call_2","input":{}}"#,
    );
    // Arguments written as JSON text.
    has(
        &lines,
        r#"{"event":"block_complete","index":3,"type":"tool_call","tool_name":"d","tool_id":"call_3","input":{"s":1}}"#,
    );
    last(
        &lines,
        r#"{"event":"finish","reason":"tool_calls","raw_reason":"STOP"}"#,
    );
}

#[test]
fn finish_reasons_map() {
    for (raw, reason) in [
        ("STOP", "stop"),
        ("MAX_TOKENS", "length"),
        ("SAFETY", "content_filter"),
        ("RECITATION", "content_filter"),
        ("BLOCKLIST", "content_filter"),
        ("PROHIBITED_CONTENT", "content_filter"),
        ("SPII", "content_filter"),
        ("IMAGE_SAFETY", "content_filter"),
        ("MALFORMED_FUNCTION_CALL", "malformed_tool_call"),
        ("UNEXPECTED_TOOL_CALL", "malformed_tool_call"),
        ("LANGUAGE", "other"),
    ] {
        let body = sse(&cand(
            r#"{"text":"x"}"#,
            &format!(r#","finishReason":"{raw}""#),
        ));
        let lines = invariant(body.as_bytes());
        last(
            &lines,
            &format!(r#"{{"event":"finish","reason":"{reason}","raw_reason":"{raw}"}}"#),
        );
    }
}

#[test]
fn stop_is_tool_calls_only_in_the_choice_that_called() {
    let body = sse(
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f"}}]},"finishReason":"STOP","index":0},{"content":{"parts":[{"text":"no call"}]},"finishReason":"STOP","index":1}]}"#,
    );
    let lines = invariant(body.as_bytes());
    let n = lines.len();
    assert_eq!(
        &lines[n - 2..],
        [
            r#"{"event":"finish","reason":"tool_calls","raw_reason":"STOP"}"#,
            r#"{"event":"finish","reason":"stop","raw_reason":"STOP","choice":1}"#,
        ]
    );
}

#[test]
fn usage_ids_and_model_take_the_last_non_empty_value() {
    let body = sse(
        r#"{"candidates":[{"content":{"parts":[{"text":"x"}]}}],"usageMetadata":{"promptTokenCount":3,"totalTokenCount":3},"modelVersion":"m-1","responseId":"r1"}"#,
    ) + &sse(
        r#"{"candidates":[{"content":{"parts":[{"text":"y"}]},"finishReason":"STOP"}],"modelVersion":"","responseId":""}"#,
    ) + &sse(
        r#"{"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":2,"cachedContentTokenCount":4,"thoughtsTokenCount":0,"totalTokenCount":7,"promptTokensDetails":[{"modality":"TEXT","tokenCount":5}]},"modelVersion":"m-2"}"#,
    );
    let lines = invariant(body.as_bytes());
    // Usage after the finishReason still counts: the finish comes at the end of the body.
    last(
        &lines,
        r#"{"event":"finish","reason":"stop","raw_reason":"STOP","usage":{"input_tokens":5,"output_tokens":2,"cache_read_tokens":4,"reasoning_tokens":0},"response_id":"r1","model":"m-2"}"#,
    );
}

#[test]
fn a_blocked_prompt_is_content_filter() {
    let body = sse(
        r#"{"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[{"category":"HARM_CATEGORY_HARASSMENT","probability":"HIGH"}]},"usageMetadata":{"promptTokenCount":9}}"#,
    );
    let lines = invariant(body.as_bytes());
    assert_eq!(
        lines,
        [
            r#"{"event":"finish","reason":"content_filter","raw_reason":"SAFETY","usage":{"input_tokens":9}}"#
        ]
    );
}

#[test]
fn a_bare_error_after_sse_events_is_a_provider_error() {
    let body = sse(&cand(r#"{"text":"hi"}"#, ""))
        + "{\n  \"error\": {\n    \"code\": 503,\n    \"message\": \"The model is overloaded.\"\n  }\n}\n";
    let lines = invariant(body.as_bytes());
    assert_eq!(
        &lines[2..],
        [
            r#"{"event":"block_complete","index":0,"type":"text","content":"hi"}"#,
            r#"{"event":"error","source":"provider","code":"503","message":"The model is overloaded."}"#,
            r#"{"event":"finish","reason":"error","raw_reason":"503"}"#,
        ]
    );
}

#[test]
fn crlf_and_pretty_printed_array_elements() {
    let body = "\u{feff}[{\r\n  \"candidates\": [\r\n    {\r\n      \"content\": {\r\n        \"parts\": [\r\n          {\r\n            \"text\": \"one\"\r\n          }\r\n        ]\r\n      }\r\n    }\r\n  ]\r\n}\r\n,\r\n{\r\n  \"candidates\": [\r\n    {\r\n      \"content\": {\r\n        \"parts\": [\r\n          {\r\n            \"text\": \" two\"\r\n          }\r\n        ]\r\n      },\r\n      \"finishReason\": \"STOP\"\r\n    }\r\n  ]\r\n}\r\n]\r\n";
    let lines = invariant(body.as_bytes());
    has(
        &lines,
        r#"{"event":"block_complete","index":0,"type":"text","content":"one two"}"#,
    );
    last(
        &lines,
        r#"{"event":"finish","reason":"stop","raw_reason":"STOP"}"#,
    );
}

#[test]
fn the_end_of_the_body_is_the_end_marker() {
    // A finishReason seen: a normal finish. None: error, eof.
    let done = sse(&cand(r#"{"text":"x"}"#, r#","finishReason":"STOP""#));
    last(
        &invariant(done.as_bytes()),
        r#"{"event":"finish","reason":"stop","raw_reason":"STOP"}"#,
    );
    let cut = sse(&cand(r#"{"text":"x"}"#, ""));
    let lines = invariant(cut.as_bytes());
    has(
        &lines,
        r#"{"event":"block_complete","index":0,"type":"text","content":"x"}"#,
    );
    last(
        &lines,
        r#"{"event":"finish","reason":"error","raw_reason":"eof"}"#,
    );
    // An empty body: the one finish of choice 0.
    assert_eq!(
        decode_with(b"", 1, None),
        [r#"{"event":"finish","reason":"error","raw_reason":"eof"}"#]
    );
}

#[test]
fn a_document_cut_inside_a_text_part_keeps_its_text() {
    let body = "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"kept";
    let lines = invariant(body.as_bytes());
    has(
        &lines,
        r#"{"event":"block_complete","index":0,"type":"text","content":"kept"}"#,
    );
    last(
        &lines,
        r#"{"event":"finish","reason":"error","raw_reason":"json"}"#,
    );
}

#[test]
fn unknown_parts_and_fields_are_skipped() {
    let body = sse(&cand(
        r#"{"text":"a"},{"inlineData":{"mimeType":"image/png","data":"AAAA"}},{"text":"b","videoMetadata":{}}"#,
        r#","finishReason":"STOP","citationMetadata":{"citationSources":[{"uri":"u"}]},"avgLogprobs":-0.5"#,
    ));
    let lines = invariant(body.as_bytes());
    has(
        &lines,
        r#"{"event":"block_complete","index":0,"type":"text","content":"ab"}"#,
    );
}

/// Code execution parts are server tool blocks (issue 25 item 1), not skipped: the call's
/// input is the `executableCode` object, the result's content the `codeExecutionResult`
/// object, both as compact JSON; a `STOP` after them stays `stop`.
#[test]
fn code_execution_parts_are_server_tool_blocks() {
    let body = sse(&cand(
        r#"{"executableCode":{"language":"PYTHON","code":"print(1)"}},{"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"1"}},{"text":"one"}"#,
        r#","finishReason":"STOP""#,
    ));
    let lines = invariant(body.as_bytes());
    has(
        &lines,
        r#"{"event":"block_complete","index":0,"type":"tool_call","tool_name":"code_execution","tool_id":"call_0","input":{"language":"PYTHON","code":"print(1)"},"server":true}"#,
    );
    has(
        &lines,
        r#"{"event":"block_complete","index":1,"type":"tool_result","content":"{\"outcome\":\"OUTCOME_OK\",\"output\":\"1\"}","tool_name":"code_execution","tool_id":"call_0","server":true}"#,
    );
    has(
        &lines,
        r#"{"event":"block_complete","index":2,"type":"text","content":"one"}"#,
    );
    last(
        &lines,
        r#"{"event":"finish","reason":"stop","raw_reason":"STOP"}"#,
    );
}

#[test]
fn text_past_the_held_bound_is_decided_where_it_stands() {
    // 640 bytes of caller memory: 128 for held text. A part longer than that, written
    // text-first, takes the kind of the open text or thinking block (else text) and streams.
    let long: String = (0..60).map(|i| format!("w{i} ")).collect();
    let body = sse(&cand(r#"{"text":"start ","thought":true}"#, ""))
        + &sse(&cand(&format!(r#"{{"text":"{long}","thought":true}}"#), ""))
        + &sse(&cand(r#"{"text":"Answer: "}"#, ""))
        + &sse(&cand(
            &format!(r#"{{"text":"{long}"}}"#),
            r#","finishReason":"STOP""#,
        ));
    let lines = invariant_with(body.as_bytes(), 40, Some(640));
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("block_complete"))
            .collect::<Vec<_>>(),
        [
            &format!(
                r#"{{"event":"block_complete","index":0,"type":"thinking","content":"start {long}"}}"#
            ),
            &format!(
                r#"{{"event":"block_complete","index":1,"type":"text","content":"Answer: {long}"}}"#
            ),
        ]
    );
    // The heap decoder holds it all: the same events.
    assert_eq!(decode_with(body.as_bytes(), 7, None), lines);
}

/// Decodes `body` in reads of `size` with a decoder on `memory` bytes of caller memory (or
/// the heap) and checks the stream is well formed: blocks never interleave, chunks and
/// completions belong to the open block, indices count up, and the stream ends with at
/// least choice 0's one finish, no choice finishing twice.
fn well_formed(body: &[u8], size: usize, memory: Option<usize>) {
    well_formed_config(&DecoderConfig::new(Provider::Gemini), body, size, memory)
}

fn well_formed_config(config: &DecoderConfig<'_>, body: &[u8], size: usize, memory: Option<usize>) {
    let mut open: Option<(u32, u32)> = None;
    let mut next = 0u32;
    let mut finished: Vec<u32> = Vec::new();
    let check = |ev: Event<'_>| {
        assert!(
            finished.is_empty() || matches!(ev, Event::Finish(_)),
            "{ev:?} after a finish"
        );
        match ev {
            Event::BlockStart { index, choice, .. } => {
                assert_eq!(open, None, "block {index} starts inside another");
                assert_eq!(index, next);
                next += 1;
                open = Some((index, choice));
            }
            Event::Chunk(c) => assert_eq!(open, Some((c.block, c.choice)), "{c:?}"),
            Event::BlockComplete(c) => {
                assert_eq!(open.map(|o| o.0), Some(c.index));
                open = None;
            }
            Event::Finish(f) => {
                assert_eq!(open, None);
                assert!(
                    !finished.contains(&f.choice),
                    "choice {} finished twice",
                    f.choice
                );
                finished.push(f.choice);
            }
            Event::Error(_) => assert_eq!(open, None, "error inside a block"),
            Event::Stop { .. } => panic!("no stop sequences here"),
        }
    };
    support::provider::each(config, body, &[size], memory, check);
    assert!(finished.contains(&0), "no finish for choice 0");
}

#[test]
fn every_cut_and_corruption_of_the_vector_bodies_stays_well_formed() {
    for (name, body) in VECTORS {
        for cut in 0..=body.len() {
            let prefix = &body[..cut];
            for (size, memory) in [(prefix.len(), None), (3, Some(640)), (17, None)] {
                let r = std::panic::catch_unwind(|| well_formed(prefix, size, memory));
                assert!(r.is_ok(), "{name} cut at {cut}, reads of {size}");
            }
            let memory = tokensieve::MIN_MEMORY + 640;
            let r =
                std::panic::catch_unwind(|| well_formed_config(&hermes(), prefix, 7, Some(memory)));
            assert!(r.is_ok(), "{name} cut at {cut}, hermes");
        }
        // One byte changed at a time, to a few troublesome values.
        for at in 0..body.len() {
            for b in [b'"', b'{', b']', b'\\', b'\n', 0xC3] {
                let mut bad = body.to_vec();
                bad[at] = b;
                let r = std::panic::catch_unwind(|| well_formed(&bad, 5, Some(640)));
                assert!(r.is_ok(), "{name} byte {at} set to {b:#x}");
            }
        }
    }
}

#[test]
fn a_part_with_text_and_a_call_keeps_their_order() {
    let body = sse(&cand(
        r#"{"text":"a","functionCall":{"name":"f","args":{"x":1}},"text":"b"},{"text":"c"}"#,
        r#","finishReason":"STOP""#,
    ));
    let lines = invariant(body.as_bytes());
    let completes: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("block_complete"))
        .collect();
    assert_eq!(
        completes,
        [
            r#"{"event":"block_complete","index":0,"type":"text","content":"a"}"#,
            r#"{"event":"block_complete","index":1,"type":"tool_call","tool_name":"f","tool_id":"call_0","input":{"x":1}}"#,
            r#"{"event":"block_complete","index":2,"type":"text","content":"bc"}"#,
        ]
    );
}

fn hermes() -> DecoderConfig<'static> {
    let mut config = DecoderConfig::new(Provider::Gemini);
    config.options.dialect = tokensieve::Dialect::Hermes;
    config
}

/// The events of `body` through the hermes text dialect, equal at every read size up to 40,
/// on the heap and on `memory` bytes of caller memory.
#[track_caller]
fn hermes_invariant(body: &[u8], memory: usize) -> Vec<String> {
    let config = hermes();
    let whole = support::provider::invariant(&config, body, 1..=40, None);
    let on_memory = support::provider::invariant(&config, body, 1..=40, Some(memory));
    assert_eq!(on_memory, whole, "memory");
    whole
}

fn block_kinds(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l.contains("block_complete"))
        .map(|l| {
            let ty = l
                .split("\"type\":\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            let index = l
                .split("\"index\":")
                .nth(1)
                .unwrap()
                .split(',')
                .next()
                .unwrap();
            format!("{index}:{ty}")
        })
        .collect()
}

#[test]
fn text_parts_run_through_a_text_dialect() {
    // The `<think>` tag and a hermes call split across parts and documents; a native thought
    // part and a native call end the dialect's run; a signed text part signs a signature-only
    // thinking block after its run (a dialect's blocks are not the part's).
    let body = sse(&cand(
        r#"{"text":"<thi"},{"text":"nk>plan</think>Hi "}"#,
        "",
    )) + &sse(&cand(
        r#"{"text":"<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_"}"#,
        "",
    )) + &sse(&cand(r#"{"text":"call> so"}"#, ""))
        + &sse(&cand(r#"{"text":"native thought","thought":true}"#, ""))
        + &sse(&cand(r#"{"text":"after","thoughtSignature":"SIG"}"#, ""))
        + &sse(&cand(
            r#"{"functionCall":{"name":"native","args":{}}},{"text":"end"}"#,
            r#","finishReason":"STOP""#,
        ));
    let min = tokensieve::MIN_MEMORY + 640;
    let lines = hermes_invariant(body.as_bytes(), min);
    assert_eq!(
        block_kinds(&lines),
        [
            "0:thinking",
            "1:text",
            "2:tool_call",
            "3:text",
            "4:thinking",
            "5:text",
            "6:thinking",
            "7:tool_call",
            "8:text"
        ],
        "{lines:#?}"
    );
    has(
        &lines,
        r#"{"event":"block_complete","index":0,"type":"thinking","content":"plan"}"#,
    );
    has(
        &lines,
        r#"{"event":"block_complete","index":3,"type":"text","content":" so"}"#,
    );
    has(
        &lines,
        r#"{"event":"block_complete","index":6,"type":"thinking","content":"","signature":"SIG"}"#,
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains(r#""tool_name":"f""#) && l.contains(r#""input":{"a":1}"#)),
        "{lines:#?}"
    );
    last(
        &lines,
        r#"{"event":"finish","reason":"tool_calls","raw_reason":"STOP"}"#,
    );
}

#[test]
fn long_held_text_feeds_a_text_dialect_in_pieces() {
    // One text part far longer than a dialect step and than the held bound of the
    // caller-memory decoder, with a thinking section in its middle.
    let words: String = (0..200).map(|i| format!("w{i} ")).collect();
    let text = format!("{words}<think>{words}</think>{words}");
    let body = sse(&cand(
        &format!(r#"{{"text":"{text}"}}"#),
        r#","finishReason":"STOP""#,
    ));
    let min = tokensieve::MIN_MEMORY + 640;
    let lines = hermes_invariant(body.as_bytes(), min);
    assert_eq!(
        block_kinds(&lines),
        ["0:text", "1:thinking", "2:text"],
        "{lines:#?}"
    );
    has(
        &lines,
        &format!(r#"{{"event":"block_complete","index":1,"type":"thinking","content":"{words}"}}"#),
    );
}

#[test]
fn arguments_that_are_a_whole_word_or_number_fail_the_call() {
    // Found by the decode_gemini fuzz target: a top-level word or number completes only at
    // the end of the arguments, and is not an object (rule 9).
    for args in [r#" f"#, r#""12""#, r#""true""#] {
        let body = sse(&cand(
            &format!(r#"{{"functionCall":{{"name":"f","args":{args}}}}}"#),
            r#","finishReason":"STOP""#,
        ));
        let lines = invariant(body.as_bytes());
        assert!(
            lines
                .iter()
                .any(|l| l.contains(r#""error":{"reason":"malformed-body""#)),
            "{args}: {lines:#?}"
        );
    }
}

#[test]
fn a_signature_past_max_call_bytes_is_reported_not_cut() {
    let mut config = DecoderConfig::new(Provider::Gemini);
    config.options.max_call_bytes = 64;
    let sig = "S".repeat(100);
    let body = sse(&cand(
        &format!(
            r#"{{"text":"x","thoughtSignature":"{sig}"}},{{"text":"y","thoughtSignature":"short"}}"#
        ),
        r#","finishReason":"STOP""#,
    ));
    let whole = support::provider::invariant(&config, body.as_bytes(), 1..=30, None);
    assert_eq!(
        &whole[2..],
        [
            r#"{"event":"block_complete","index":0,"type":"text","content":"x"}"#,
            r#"{"event":"error","source":"framing","code":"max-call-bytes","message":"a thoughtSignature exceeded max_call_bytes; it is dropped"}"#,
            r#"{"event":"block_start","index":1,"type":"text"}"#,
            r#"{"event":"chunk","text":"y","type":"text","visible":true,"block":1,"depth":0}"#,
            r#"{"event":"block_complete","index":1,"type":"text","content":"y","signature":"short"}"#,
            r#"{"event":"finish","reason":"stop","raw_reason":"STOP"}"#,
        ]
    );
}

#[test]
fn a_long_name_is_cut_the_same_at_every_read_size() {
    // Found by the decode_gemini fuzz target: a name past the 96 bytes kept, whose cut falls
    // inside a multibyte character; later pieces must not add what the whole value would not.
    let name = format!("{}€€€abc", "n".repeat(94));
    let body = sse(&cand(
        &format!(r#"{{"functionCall":{{"name":"{name}","args":{{}}}}}}"#),
        r#","finishReason":"STOP""#,
    ));
    let lines = invariant_with(body.as_bytes(), 70, None);
    let kept = "n".repeat(94);
    has(
        &lines,
        &format!(
            r#"{{"event":"block_complete","index":0,"type":"tool_call","tool_name":"{kept}","tool_id":"call_0","input":{{}}}}"#
        ),
    );
}

#[test]
fn two_dialect_runs_ending_in_one_step_keep_block_order() {
    // Found by the decode_gemini fuzz target: choice 1's run ends when choice 0's signed text
    // starts one, and that run ends at once for the signature's block. Blocks started behind
    // the second run's end wait for it (indices in the order blocks start).
    let body = sse(r#"{"candidates":[{"index":1,"content":{"parts":[{"text":"a"}]}}]}"#)
        + &sse(
            r#"{"candidates":[{"index":0,"content":{"parts":[{"text":"b","thoughtSignature":"S"}]}}]}"#,
        );
    let min = tokensieve::MIN_MEMORY + 640;
    let lines = hermes_invariant(body.as_bytes(), min);
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("block_complete"))
            .collect::<Vec<_>>(),
        [
            r#"{"event":"block_complete","index":0,"type":"text","content":"a","choice":1}"#,
            r#"{"event":"block_complete","index":1,"type":"text","content":"b"}"#,
            r#"{"event":"block_complete","index":2,"type":"thinking","content":"","signature":"S"}"#,
        ]
    );
}
