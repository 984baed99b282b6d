#![cfg(feature = "alloc")]
//! The Bedrock decoder (docs/providers.md): chunk invariance over AWS event-stream bodies,
//! each framing fault (prelude CRC, message CRC, truncation, an out-of-range frame length,
//! malformed headers), exception and error frames, InvokeModel `chunk` frames with a nested
//! format, and the decoder in caller memory.

mod support;

use tokensieve::provider::{Decoder, DecoderConfig, Provider};
use tokensieve::{Event, FinishReason};

const TOOL_USE: &[u8] =
    include_bytes!("../../conformance/providers/bedrock/002-converse-tool-use.bin");
const REASONING: &[u8] =
    include_bytes!("../../conformance/providers/bedrock/003-converse-reasoning-signature.bin");
const INVOKE: &[u8] =
    include_bytes!("../../conformance/providers/bedrock/012-invoke-model-anthropic.bin");
const WHOLE: &[u8] =
    include_bytes!("../../conformance/providers/bedrock/014-converse-non-streaming-body.body");

// ---- frames ------------------------------------------------------------------------------

fn header(out: &mut Vec<u8>, name: &str, value: &str) {
    out.push(name.len() as u8);
    out.extend_from_slice(name.as_bytes());
    out.push(7);
    out.extend_from_slice(&(value.len() as u16).to_be_bytes());
    out.extend_from_slice(value.as_bytes());
}

fn frame(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut h = Vec::new();
    for (name, value) in headers {
        header(&mut h, name, value);
    }
    let total = (12 + h.len() + payload.len() + 4) as u32;
    let mut out = Vec::new();
    out.extend_from_slice(&total.to_be_bytes());
    out.extend_from_slice(&(h.len() as u32).to_be_bytes());
    out.extend_from_slice(&crc32fast::hash(&out).to_be_bytes());
    out.extend_from_slice(&h);
    out.extend_from_slice(payload);
    out.extend_from_slice(&crc32fast::hash(&out).to_be_bytes());
    out
}

fn event(ty: &str, payload: &str) -> Vec<u8> {
    frame(
        &[
            (":event-type", ty),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        payload.as_bytes(),
    )
}

fn delta(index: u32, text: &str) -> Vec<u8> {
    event(
        "contentBlockDelta",
        &format!(r#"{{"contentBlockIndex":{index},"delta":{{"text":"{text}"}}}}"#),
    )
}

fn exception(ty: &str, message: &str) -> Vec<u8> {
    frame(
        &[
            (":exception-type", ty),
            (":content-type", "application/json"),
            (":message-type", "exception"),
        ],
        format!(r#"{{"message":"{message}"}}"#).as_bytes(),
    )
}

fn base64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for group in data.chunks(3) {
        let b = [
            group[0],
            group.get(1).copied().unwrap_or(0),
            group.get(2).copied().unwrap_or(0),
        ];
        let n = u32::from_be_bytes([0, b[0], b[1], b[2]]);
        for i in 0..4 {
            if i <= group.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// An InvokeModelWithResponseStream frame wrapping `json`.
fn chunk(json: &str) -> Vec<u8> {
    event(
        "chunk",
        &format!(r#"{{"bytes":"{}"}}"#, base64(json.as_bytes())),
    )
}

fn stop_and_metadata(reason: &str) -> Vec<u8> {
    let mut body = event("contentBlockStop", r#"{"contentBlockIndex":0}"#);
    body.extend(event(
        "messageStop",
        &format!(r#"{{"stopReason":"{reason}"}}"#),
    ));
    body.extend(event(
        "metadata",
        r#"{"usage":{"inputTokens":1,"outputTokens":2,"totalTokens":3}}"#,
    ));
    body
}

// ---- decoding ----------------------------------------------------------------------------

/// JSON lines of the coalesced event stream of `body` fed `size` bytes at a time.
fn decode(body: &[u8], size: usize) -> Vec<String> {
    support::provider::lines(&DecoderConfig::new(Provider::Bedrock), body, size, None)
}

/// The events of `body` read whole, asserted equal at every read size up to `max`.
#[track_caller]
fn invariant_with(config: &DecoderConfig<'_>, body: &[u8], max: usize) -> Vec<String> {
    support::provider::invariant(config, body, 1..=max, None)
}

#[track_caller]
fn invariant(body: &[u8], max: usize) -> Vec<String> {
    invariant_with(&DecoderConfig::new(Provider::Bedrock), body, max)
}

fn kinds(events: &[String]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            let v: serde_json::Value = serde_json::from_str(e).unwrap();
            let mut k = v["event"].as_str().unwrap().to_string();
            for f in ["code", "reason", "raw_reason"] {
                if let Some(s) = v[f].as_str() {
                    k.push(' ');
                    k.push_str(s);
                }
            }
            k
        })
        .collect()
}

// ---- tests -------------------------------------------------------------------------------

#[test]
fn converse_stream_is_chunk_invariant() {
    let whole = invariant(TOOL_USE, 70);
    support::provider::mentions(&whole, r#""input":{"city":"Seattle","unit":"C"}"#);
    assert!(
        whole
            .last()
            .unwrap()
            .starts_with(r#"{"event":"finish","reason":"tool_calls","raw_reason":"tool_use""#)
    );
    let whole = invariant(REASONING, 70);
    assert!(whole.iter().any(|l| l.contains(r#""signature":"EqoB"#)));
}

#[test]
fn a_whole_converse_body_is_chunk_invariant() {
    let whole = invariant(WHOLE, 70);
    assert_eq!(
        kinds(&whole)[..],
        [
            "block_start",
            "chunk",
            "block_complete",
            "block_start",
            "chunk",
            "block_complete",
            "block_start",
            "chunk",
            "chunk",
            "chunk",
            "block_complete",
            "finish tool_calls tool_use",
        ]
    );
}

#[test]
fn a_bad_prelude_crc_ends_the_stream() {
    let mut body = delta(0, "Hi");
    let second = body.len();
    body.extend(delta(0, " there"));
    body.extend(stop_and_metadata("end_turn"));
    body[second + 8] ^= 1;
    let events = invariant(&body, 70);
    assert_eq!(
        kinds(&events)[..],
        [
            "block_start",
            "chunk",
            "block_complete",
            "error prelude-crc",
            "finish error prelude-crc",
        ]
    );
    assert!(!events.iter().any(|e| e.contains("there")));
}

#[test]
fn a_bad_message_crc_is_reported_and_the_next_frame_decodes() {
    let mut body = delta(0, "Hel");
    let end = body.len();
    body[end - 1] ^= 0x55;
    body.extend(delta(0, "lo"));
    body.extend(stop_and_metadata("end_turn"));
    let events = invariant(&body, 70);
    assert_eq!(
        kinds(&events)[..],
        [
            "block_start",
            "chunk",
            "block_complete",
            "error message-crc",
            "block_start",
            "chunk",
            "block_complete",
            "finish stop end_turn",
        ]
    );
    // The bad frame's payload streamed before its CRC was checked (nothing is retracted).
    assert!(events[1].contains(r#""text":"Hel""#));
}

#[test]
fn a_frame_cut_at_the_end_of_the_body_is_truncated() {
    let mut body = delta(0, "Hello");
    let full = delta(0, ", world");
    // Cut inside the payload, after the text's first bytes.
    let cut = full.len() - 8;
    body.extend_from_slice(&full[..cut]);
    let events = invariant(&body, 70);
    assert_eq!(
        kinds(&events)[..],
        [
            "block_start",
            "chunk",
            "block_complete",
            "error truncated",
            "finish error truncated",
        ]
    );
    assert!(events[1].contains(r#""text":"Hello, worl""#), "{events:?}");
}

/// A prelude with a right CRC.
fn prelude(total: u32, headers_len: u32) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&total.to_be_bytes());
    out.extend_from_slice(&headers_len.to_be_bytes());
    out.extend_from_slice(&crc32fast::hash(&out).to_be_bytes());
    out
}

#[test]
fn a_four_gib_frame_is_a_frame_length_fault_without_buffering() {
    let mut body = delta(0, "Before");
    body.extend(prelude(u32::MAX, 0));
    let events = decode(&body, 7);
    assert_eq!(
        kinds(&events)[..],
        [
            "block_start",
            "chunk",
            "block_complete",
            "error frame-length",
            "error truncated",
            "finish error truncated",
        ]
    );
    // The fault comes at the prelude: its length is the sender's (the CRC matched), so the
    // frame is skipped (issue 25, R9), never held; every later byte of it is dropped as it
    // comes, and a body that ends inside it is truncated.
    let config = DecoderConfig::new(Provider::Bedrock);
    let mut decoder = Decoder::new(&config).unwrap();
    let mut seen = Vec::new();
    decoder.feed_with(&prelude(u32::MAX, 0), |e| {
        if let Event::Error(err) = e {
            seen.push(err.code.unwrap_or("").to_string());
        }
    });
    assert_eq!(seen, ["frame-length"]);
    let junk = vec![b'x'; 1 << 20];
    for _ in 0..8 {
        decoder.feed_with(&junk, |e| panic!("{e:?}"));
    }
    let mut finish = None;
    decoder.finish_with(|e| {
        if let Event::Finish(f) = e {
            finish = Some(f.reason);
        }
    });
    assert_eq!(finish, Some(FinishReason::Error));
}

#[test]
fn a_large_frame_streams_its_payload_before_it_is_whole() {
    // With a cap that lets a 4 GiB frame through, its payload streams as it arrives.
    let mut config = DecoderConfig::new(Provider::Bedrock);
    config.max_frame_bytes = u32::MAX;
    let mut decoder = Decoder::new(&config).unwrap();
    let mut headers = Vec::new();
    header(&mut headers, ":event-type", "contentBlockDelta");
    header(&mut headers, ":message-type", "event");
    let mut body = prelude(u32::MAX, headers.len() as u32);
    body.extend(headers);
    body.extend_from_slice(br#"{"contentBlockIndex":0,"delta":{"text":""#);
    let mut text = 0;
    decoder.feed_with(&body, |_| {});
    let piece = vec![b'a'; 64 << 10];
    for _ in 0..16 {
        decoder.feed_with(&piece, |e| {
            if let Event::Chunk(c) = e {
                text += c.text.len();
            }
        });
    }
    assert_eq!(text, 16 * piece.len());
    let mut kinds = Vec::new();
    decoder.finish_with(|e| {
        kinds.push(match e {
            Event::BlockComplete(_) => "complete".to_string(),
            Event::Error(err) => format!("error {}", err.code.unwrap_or("")),
            Event::Finish(f) => format!("finish {:?}", f.reason),
            _ => "other".to_string(),
        })
    });
    assert_eq!(kinds, ["complete", "error truncated", "finish Error"]);
}

#[test]
fn malformed_headers_skip_the_frame() {
    let mut body = delta(0, "A");
    // headers_length says 5; the header's 11-byte name runs past it.
    let mut bad = prelude(12 + 5 + 3 + 4, 5);
    bad.extend_from_slice(b"\x0bname");
    bad.extend_from_slice(b"abc");
    let crc = crc32fast::hash(&bad);
    bad.extend_from_slice(&crc.to_be_bytes());
    body.extend(bad);
    body.extend(delta(0, "B"));
    body.extend(stop_and_metadata("end_turn"));
    let events = invariant(&body, 70);
    assert_eq!(
        kinds(&events)[..],
        [
            "block_start",
            "chunk",
            "block_complete",
            "error headers",
            "block_start",
            "chunk",
            "block_complete",
            "finish stop end_turn",
        ]
    );
}

#[test]
fn exception_frames_are_errors_and_decoding_goes_on() {
    let mut body = delta(0, "Part");
    body.extend(exception("modelStreamErrorException", "upstream timed out"));
    body.extend(delta(0, "more"));
    body.extend(frame(
        &[
            (":message-type", "error"),
            (":error-code", "InternalFailure"),
            (":error-message", "unknown error"),
        ],
        b"",
    ));
    let events = invariant(&body, 70);
    assert_eq!(
        kinds(&events)[..],
        [
            "block_start",
            "chunk",
            "block_complete",
            "error modelStreamErrorException",
            "block_start",
            "chunk",
            "block_complete",
            "error InternalFailure",
            "finish error InternalFailure",
        ]
    );
    assert!(events[3].contains(r#""message":"upstream timed out""#));
    assert!(events[7].contains(r#""message":"unknown error""#));
    // An exception, then the message goes on and ends normally.
    let mut body = exception("throttlingException", "slow down");
    body.extend(delta(0, "ok"));
    body.extend(stop_and_metadata("end_turn"));
    let events = invariant(&body, 70);
    assert_eq!(
        kinds(&events).last().map(String::as_str),
        Some("finish stop end_turn")
    );
}

#[test]
fn an_exception_frame_with_a_bad_crc_keeps_its_code() {
    let mut body = delta(0, "x");
    body.extend(exception("internalServerException", "boom"));
    let end = body.len();
    body[end - 1] ^= 1;
    let events = invariant(&body, 70);
    assert_eq!(
        kinds(&events)[..],
        [
            "block_start",
            "chunk",
            "block_complete",
            "error internalServerException",
            "error message-crc",
            "finish error message-crc",
        ]
    );
}

#[test]
fn a_bare_error_body_is_a_provider_error() {
    let body = br#"{"message":"The security token included in the request is invalid."}"#;
    let events = invariant(body, 70);
    assert_eq!(kinds(&events)[..], ["error", "finish error"]);
    assert!(events[0].contains(r#""message":"The security token included"#));
}

#[test]
fn a_delta_for_another_block_completes_the_open_one() {
    let mut body = delta(0, "one");
    body.extend(delta(1, "two"));
    body.extend(delta(1, ""));
    body.extend(stop_and_metadata("end_turn"));
    let events = invariant(&body, 40);
    assert_eq!(
        kinds(&events)[..],
        [
            "block_start",
            "chunk",
            "block_complete",
            "block_start",
            "chunk",
            "block_complete",
            "finish stop end_turn",
        ]
    );
}

#[test]
fn invoke_model_chunks_with_an_openai_chat_inner_format() {
    let mut config = DecoderConfig::new(Provider::Bedrock);
    config.invoke_format = Provider::OpenAiChat;
    let mut body = chunk(
        r#"{"id":"chatcmpl-1","model":"gpt-oss","choices":[{"index":0,"delta":{"role":"assistant","content":"Héllo, \"w\u00f6rld\""}}]}"#,
    );
    body.extend(chunk(
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":"{\"a\": [1, 2]}"}}]}}]}"#,
    ));
    body.extend(chunk(
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":4}}"#,
    ));
    let events = invariant_with(&config, &body, 70);
    assert_eq!(
        kinds(&events)[..],
        [
            "block_start",
            "chunk",
            "block_complete",
            "block_start",
            "chunk",
            "chunk",
            "chunk",
            "block_complete",
            "finish tool_calls tool_calls",
        ]
    );
    assert!(
        events[1].contains(r#""text":"Héllo, \"wörld\"""#),
        "{events:?}"
    );
    assert!(
        events[6].contains(r#""text":"{\"a\":[1,2]}""#),
        "{events:?}"
    );
    assert!(events[8].contains(r#""response_id":"chatcmpl-1""#));
    assert!(events[8].contains(r#""usage":{"input_tokens":3,"output_tokens":4}"#));
}

#[test]
fn invalid_base64_in_a_chunk_is_a_fault_and_the_next_chunk_decodes() {
    let mut config = DecoderConfig::new(Provider::Bedrock);
    config.invoke_format = Provider::OpenAiChat;
    let mut body = event("chunk", r#"{"bytes":"e30*"}"#);
    body.extend(chunk(
        r#"{"choices":[{"index":0,"delta":{"content":"fine"},"finish_reason":"stop"}]}"#,
    ));
    let events = invariant_with(&config, &body, 30);
    assert_eq!(
        kinds(&events)[..],
        [
            "error base64",
            "block_start",
            "chunk",
            "block_complete",
            "finish stop stop",
        ]
    );
}

#[test]
fn bytes_decoded_before_bad_base64_are_read_at_any_split() {
    let mut config = DecoderConfig::new(Provider::Bedrock);
    config.invoke_format = Provider::OpenAiChat;
    let mut json = String::from(r#"{"choices":[{"index":0,"delta":{"content":"abc"#);
    while json.len() % 3 != 0 {
        json.push('c');
    }
    let text = &json[json.find("abc").unwrap()..];
    let bad = format!(r#"{{"bytes":"{}A-B="}}"#, base64(json.as_bytes()));
    let events = invariant_with(&config, &event("chunk", &bad), 70);
    assert_eq!(
        kinds(&events)[..],
        [
            "block_start",
            "chunk",
            "block_complete",
            "error base64",
            "finish error base64",
        ]
    );
    assert!(
        events[1].contains(&format!(r#""text":"{text}""#)),
        "{events:?}"
    );
}

#[test]
fn invoke_model_anthropic_is_chunk_invariant() {
    let whole = invariant(INVOKE, 70);
    support::provider::mentions(&whole, r#""text":"Checking the weather in Zürich.""#);
    support::provider::ends_mentioning(
        &whole,
        r#""reason":"tool_calls","raw_reason":"tool_use","usage":{"input_tokens":310,"output_tokens":57}"#,
    );
}

#[test]
fn chunk_base64_may_escape_its_slashes() {
    // "???" is "Pz8/" where it falls on a base64 group.
    let (text, b64) = (0..3)
        .map(|pad| {
            let text = format!("{}???", " ".repeat(pad));
            let json = format!(
                r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"{text}"}}}}"#
            );
            (text, base64(json.as_bytes()))
        })
        .find(|(_, b)| b.contains('/'))
        .unwrap();
    let mut body = chunk(
        r#"{"type":"message_start","message":{"id":"msg_1","model":"claude","usage":{"input_tokens":1,"output_tokens":1}}}"#,
    );
    body.extend(chunk(
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    ));
    body.extend(event(
        "chunk",
        &format!(r#"{{"bytes":"{}","p":"abc"}}"#, b64.replace('/', "\\/")),
    ));
    body.extend(chunk(r#"{"type":"message_stop"}"#));
    let events = invariant(&body, 70);
    assert_eq!(
        kinds(&events)[..],
        ["block_start", "chunk", "block_complete", "finish other"]
    );
    assert!(
        events[1].contains(&format!(r#""text":"{text}""#)),
        "{events:?}"
    );
}

#[test]
fn a_chunk_frame_cut_inside_its_base64_ends_the_nested_document() {
    let mut body = chunk(
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    );
    body.extend(chunk(
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello there, this is long enough"}}"#,
    ));
    let full = body.len();
    body.extend(chunk(
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" and more"}}"#,
    ));
    // Cut the second frame inside its base64 text.
    body.truncate(full + 12 + 60 + 40);
    let events = invariant(&body, 70);
    let k = kinds(&events);
    assert_eq!(k.first().map(String::as_str), Some("block_start"));
    assert_eq!(
        k[k.len() - 3..],
        [
            "block_complete",
            "error truncated",
            "finish error truncated"
        ]
    );
    // A bad message CRC on a chunk frame: what streamed stays, the next frame decodes.
    let mut body = chunk(
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    );
    body.extend(chunk(
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"one"}}"#,
    ));
    let end = body.len();
    body[end - 2] ^= 1;
    body.extend(chunk(
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"two"}}"#,
    ));
    body.extend(chunk(r#"{"type":"message_stop"}"#));
    let events = invariant(&body, 70);
    assert_eq!(
        kinds(&events)[..],
        [
            "block_start",
            "chunk",
            "block_complete",
            "error message-crc",
            "block_start",
            "chunk",
            "block_complete",
            "finish error message-crc",
        ]
    );
}

#[test]
fn a_signature_past_max_call_bytes_is_dropped_and_reported() {
    let mut config = DecoderConfig::new(Provider::Bedrock);
    config.options.max_call_bytes = 64;
    let reasoning = |field: &str, value: &str| {
        event(
            "contentBlockDelta",
            &format!(
                r#"{{"contentBlockIndex":0,"delta":{{"reasoningContent":{{"{field}":"{value}"}}}}}}"#
            ),
        )
    };
    let mut body = reasoning("text", "Thinking.");
    body.extend(reasoning("signature", &"S".repeat(50)));
    body.extend(reasoning("signature", &"T".repeat(50)));
    body.extend(reasoning("signature", "more"));
    body.extend(stop_and_metadata("end_turn"));
    let events = invariant_with(&config, &body, 70);
    assert_eq!(
        kinds(&events)[..],
        [
            "block_start",
            "chunk",
            "block_complete",
            "error max-call-bytes",
            "finish stop end_turn",
        ]
    );
    assert!(!events[2].contains("signature"), "{events:?}");
}

#[test]
fn caller_memory_decoder() {
    let config = DecoderConfig::new(Provider::Bedrock);
    let mut memory = [0u8; 2048];
    let mut decoder = Decoder::with_memory(&config, &mut memory).unwrap();
    let mut text = String::new();
    let mut reason = None;
    for read in TOOL_USE.chunks(5) {
        decoder.feed_with(read, |e| match e {
            Event::Chunk(c) => text.push_str(c.text),
            Event::Finish(f) => reason = Some(f.reason),
            _ => {}
        });
    }
    decoder.finish_with(|_| {});
    assert!(text.starts_with("Let me check.get_weather"), "{text}");
    assert_eq!(reason, Some(FinishReason::ToolCalls));
}

#[test]
fn invoke_format_must_name_a_chunk_format() {
    let mut config = DecoderConfig::new(Provider::Bedrock);
    config.invoke_format = Provider::Gemini;
    assert!(Decoder::new(&config).is_err());
}

#[test]
fn citations_past_max_call_bytes_are_dropped_and_reported() {
    let mut config = DecoderConfig::new(Provider::Bedrock);
    config.options.max_call_bytes = 64;
    let cite = |index: u32, title: &str| {
        event(
            "contentBlockDelta",
            &format!(
                r#"{{"contentBlockIndex":{index},"delta":{{"citation":{{"title":"{title}","location":{{"web":{{"url":"u"}}}}}}}}}}"#
            ),
        )
    };
    let stop = |index: u32| {
        event(
            "contentBlockStop",
            &format!(r#"{{"contentBlockIndex":{index}}}"#),
        )
    };
    // Block 0: the second citation passes the bound, so none is kept, and the third is
    // ignored; block 1: one citation, kept whole.
    let mut body = cite(0, "a");
    body.extend(delta(0, "Text."));
    body.extend(cite(0, &"B".repeat(40)));
    body.extend(cite(0, "c"));
    body.extend(stop(0));
    body.extend(cite(1, "d"));
    body.extend(delta(1, "More."));
    body.extend(stop(1));
    body.extend(stop_and_metadata("end_turn"));
    let events = invariant_with(&config, &body, 70);
    assert_eq!(
        kinds(&events)[..],
        [
            "block_start",
            "chunk",
            "block_complete",
            "error max-call-bytes",
            "block_start",
            "chunk",
            "block_complete",
            "finish stop end_turn",
        ]
    );
    assert!(!events[2].contains("citations"), "{events:?}");
    assert!(
        events[6].ends_with(r#","citations":[{"title":"d","location":{"web":{"url":"u"}}}]}"#),
        "{events:?}"
    );
}

/// Citations and signatures stay on their block when the next block begins without a
/// `contentBlockStop` for it (issue 25, as Anthropic's): the first block's citations or
/// signature are on its completion, the next block's on its own (never lost, never on the
/// other's), at every read size.
#[test]
fn citations_stay_on_their_block_when_the_next_block_starts_without_a_stop() {
    const CITE_A: &str = r#"{"title":"a","location":{"web":{"url":"u"}}}"#;
    const CITE_B: &str = r#"{"title":"b","location":{"web":{"url":"v"}}}"#;
    let cite = |index: u32, cite: &str| {
        event(
            "contentBlockDelta",
            &format!(r#"{{"contentBlockIndex":{index},"delta":{{"citation":{cite}}}}}"#),
        )
    };
    let reasoning = |index: u32, member: &str| {
        event(
            "contentBlockDelta",
            &format!(
                r#"{{"contentBlockIndex":{index},"delta":{{"reasoningContent":{{{member}}}}}}}"#
            ),
        )
    };
    // The first block (block 0, its stop left out), what its completion carries.
    let mut cited = cite(0, CITE_A);
    cited.extend(delta(0, "First."));
    let mut signed = reasoning(0, r#""text":"First.""#);
    signed.extend(reasoning(0, r#""signature":"SIG0""#));
    let firsts = [
        (cited, format!(r#","citations":[{CITE_A}]}}"#)),
        (delta(0, "First."), r#""content":"First."}"#.to_string()),
        (signed, r#","signature":"SIG0"}"#.to_string()),
    ];
    // The next block (block 1), what its completion carries.
    let nexts = [
        (cite(1, CITE_B), format!(r#""citations":[{CITE_B}]"#)),
        (
            reasoning(1, r#""signature":"SIG1""#),
            r#""signature":"SIG1""#.to_string(),
        ),
        (
            reasoning(1, r#""redactedContent":"UkVE""#),
            r#""redacted":"UkVE""#.to_string(),
        ),
        (delta(1, "Second."), r#""content":"Second.""#.to_string()),
        (
            event(
                "contentBlockStart",
                r#"{"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"t1","name":"f"}}}"#,
            ),
            r#""tool_id":"t1""#.to_string(),
        ),
    ];
    for (first, first_ends) in &firsts {
        for (next, own) in &nexts {
            let mut body = first.clone();
            body.extend(next.iter().copied());
            body.extend(event("contentBlockStop", r#"{"contentBlockIndex":1}"#));
            body.extend(event("messageStop", r#"{"stopReason":"end_turn"}"#));
            body.extend(event(
                "metadata",
                r#"{"usage":{"inputTokens":1,"outputTokens":2,"totalTokens":3}}"#,
            ));
            let whole = invariant(&body, 90);
            let completes: Vec<&String> = whole
                .iter()
                .filter(|l| l.contains(r#""event":"block_complete""#))
                .collect();
            assert_eq!(completes.len(), 2, "{own}: {whole:#?}");
            assert!(
                completes[0].contains(r#""content":"First.""#)
                    && completes[0].ends_with(first_ends.as_str()),
                "{first_ends} then {own}: {whole:#?}"
            );
            assert!(
                completes[1].contains(own.as_str())
                    && !completes[1].contains("First.")
                    && !completes[1].contains("SIG0")
                    && !completes[1].contains(r#""title":"a""#),
                "{first_ends} then {own}: {whole:#?}"
            );
            assert!(
                !whole.iter().any(|l| l.contains(r#""event":"error""#)),
                "{whole:#?}"
            );
        }
    }
}
