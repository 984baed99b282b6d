#![cfg(feature = "alloc")]
//! Provider decoders (docs/providers.md): chunk invariance (rule 4) and interleaving (rule 1)
//! over every split of recorded-shape bodies, and the caller-memory decoder.

mod support;

use tokensieve::provider::{Decoder, DecoderConfig, Provider};
use tokensieve::{Event, FinishReason};

const MIXED: &[u8] = include_bytes!("data/openai-chat-mixed.sse");

/// JSON lines of the coalesced event stream of `body` fed `size` bytes at a time.
fn decode(provider: Provider, body: &[u8], size: usize) -> Vec<String> {
    support::provider::lines(&DecoderConfig::new(provider), body, size, None)
}

/// The events of `body` read whole, asserted equal at every read size up to `max`.
#[track_caller]
fn invariant(body: &[u8], max: usize) -> Vec<String> {
    support::provider::invariant(
        &DecoderConfig::new(Provider::OpenAiChat),
        body,
        1..=max,
        None,
    )
}

#[test]
fn openai_chat_is_chunk_invariant() {
    let whole = invariant(MIXED, 70);
    let text = whole.iter().find(|l| l.contains("\"content\":")).unwrap();
    assert!(text.contains(r#""content":"Hi \"there\" é""#), "{text}");
    assert!(
        whole
            .last()
            .unwrap()
            .starts_with(r#"{"event":"finish","reason":"tool_calls""#)
    );
}

#[test]
fn openai_chat_arguments_stream_as_compact_json() {
    let body = b"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\": [1, 2.50]\"}}]}}]}\n\n\
data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n";
    let whole = invariant(body, 9);
    support::provider::mentions(&whole, r#""input":{"a":[1,2.50]}"#);
    // No [DONE]: the finish reason makes the end normal.
    support::provider::ends_mentioning(&whole, r#""reason":"tool_calls""#);
}

#[test]
fn arguments_written_as_an_object_are_captured_as_compact_json() {
    // Some compatible servers write `arguments` as a JSON object (not a string); the whole
    // value becomes the call's input, whatever the chunking, and what follows still decodes.
    let body = b"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"f\",\"arguments\":{\"a\": [1, {\"b\": \"x\\u00e9\\\"\"}], \"c\": null}}}]}}]}\n\n\
data: {\"choices\":[{\"delta\":{\"content\":\"after\"},\"finish_reason\":\"stop\"}]}\n\n";
    let whole = invariant(body, 12);
    support::provider::mentions(&whole, r#""input":{"a":[1,{"b":"xé\""}],"c":null}"#);
    support::provider::mentions(&whole, r#""content":"after""#);
}

#[test]
fn eof_inside_a_call_is_an_error_finish() {
    let body = b"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\"\"}}]}}]}\n\n";
    let lines = decode(Provider::OpenAiChat, body, 5);
    support::provider::mentions(&lines, r#""reason":"unfinished""#);
    support::provider::ends_mentioning(&lines, r#""reason":"error","raw_reason":"eof""#);
}

#[test]
fn provider_errors_are_events_and_decoding_goes_on() {
    let body = b"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n\
event: error\ndata: {\"message\":\"overloaded\",\"code\":529}\n\n\
data: {not json}\n\n\
data: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\n";
    let whole = invariant(body, 9);
    support::provider::mentions(
        &whole,
        r#""source":"provider","code":"529","message":"overloaded""#,
    );
    support::provider::mentions(&whole, r#""content":"b""#);
}

#[test]
fn caller_memory_decoder() {
    let config = DecoderConfig::new(Provider::OpenAiChat);
    let mut memory = [0u8; 4096];
    let mut decoder = Decoder::with_memory(&config, &mut memory).unwrap();
    let mut reason = None;
    decoder.feed_with(MIXED, |ev| {
        if let Event::Finish(f) = ev {
            reason = Some(f.reason);
        }
    });
    decoder.finish_with(|_| {});
    assert_eq!(reason, Some(FinishReason::ToolCalls));
}

#[test]
fn decoder_state_is_bounded() {
    let size = core::mem::size_of::<Decoder<'static>>();
    println!("size_of::<Decoder>() = {size} bytes");
    // 10 KiB since Bedrock: the AWS event-stream framer holds a frame's headers (up to
    // 1 KiB), and the Bedrock mapper a second reader and mapper for the documents that
    // InvokeModel `chunk` frames wrap (8288 bytes with the openai-chat mapper as the largest).
    // 10.25 KiB since 2026-11-29: the event queue holds 16 entries, not 8 (fuzz finding F25:
    // with a text dialect's entries waiting, 8 overflowed), and Vertex's streamed arguments
    // and compaction blocks keep a little state (10,256 bytes then).
    assert!(size <= 10496, "Decoder is {size} bytes");
}

/// A text dialect's blocks take the text's place in the decoder's index space, before and
/// after the provider's own blocks, whatever the chunking; its held bytes are flushed when a
/// provider block comes.
#[test]
fn text_dialect_blocks_share_the_index_space() {
    let mut config = DecoderConfig::new(Provider::OpenAiChat);
    config.options.dialect = tokensieve::Dialect::Hermes;
    let delta = |c: &str| {
        format!(
            "data: {{\"choices\":[{{\"delta\":{{\"content\":{}}}}}]}}\n\n",
            serde_json_string(c)
        )
    };
    let native = "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"n1\",\"function\":{\"name\":\"native\",\"arguments\":\"{}\"}}]}}]}\n\n";
    let mut body = String::new();
    body += &delta("<think>hm</think>Hi <tool_call>{\"name\": \"f\", ");
    body += &delta("\"arguments\": {\"a\": 1}}</tool_call> then <tool_");
    body += native;
    body += &delta("after");
    body += "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    let body = body.as_bytes();
    let whole = support::provider::invariant(&config, body, 1..=40, None);
    let starts: Vec<&String> = whole.iter().filter(|l| l.contains("block_start")).collect();
    let kinds: Vec<String> = starts
        .iter()
        .map(|l| {
            l.split("\"type\":\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .to_owned()
        })
        .collect();
    // thinking, text, hermes call, text (" then " + the held "<tool_" flushed), the native
    // call, text after it.
    assert_eq!(
        kinds,
        ["thinking", "text", "tool_call", "text", "tool_call", "text"],
        "{whole:#?}"
    );
    for (i, l) in starts.iter().enumerate() {
        assert!(l.contains(&format!("\"index\":{i},")), "{l}");
    }
    support::provider::mentions(&whole, r#""content":" then <tool_""#);
    assert!(
        whole
            .iter()
            .any(|l| l.contains(r#""tool_name":"f""#) && l.contains(r#""input":{"a":1}"#)),
        "{whole:#?}"
    );
    support::provider::ends_mentioning(&whole, r#""reason":"stop""#);
}

/// The caller-memory decoder gives the text dialect its share of the memory.
#[test]
fn text_dialect_on_caller_memory() {
    let mut config = DecoderConfig::new(Provider::OpenAiChat);
    config.options.dialect = tokensieve::Dialect::Hermes;
    let mut small = [0u8; 700];
    assert!(Decoder::with_memory(&config, &mut small).is_err());
    let mut memory = [0u8; 8192];
    let mut decoder = Decoder::with_memory(&config, &mut memory).unwrap();
    let mut thinking = String::new();
    decoder.feed_with(
        b"data: {\"choices\":[{\"delta\":{\"content\":\"<think>a</think>b\"}}]}\n\n",
        |ev| {
            if let Event::Chunk(c) = ev {
                if c.block_type == tokensieve::BlockType::Thinking {
                    thinking.push_str(c.text);
                }
            }
        },
    );
    decoder.finish_with(|_| {});
    assert_eq!(thinking, "a");
}

/// A JSON string literal of `s` (quotes and backslashes escaped).
fn serde_json_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Arguments held before their call's name (a proxy's field order) that outgrow
/// `max_call_bytes` end in a clear error, and decoding goes on.
#[test]
fn held_arguments_past_max_call_bytes_are_an_error() {
    let mut config = DecoderConfig::new(Provider::OpenAiChat);
    config.options.max_call_bytes = 64;
    let args = format!("{{\\\"a\\\":\\\"{}\\\"}}", "x".repeat(200));
    let body = format!(
        "data: {{\"choices\":[{{\"delta\":{{\"tool_calls\":[{{\"function\":{{\"arguments\":\"{args}\",\"name\":\"f\"}},\"index\":0}}]}}}}]}}\n\n\
data: {{\"choices\":[{{\"delta\":{{\"content\":\"after\"}},\"finish_reason\":\"stop\"}}]}}\n\n"
    );
    let whole = support::provider::invariant(&config, body.as_bytes(), [1, 7, 64], None);
    assert!(
        whole
            .iter()
            .any(|l| l.contains(r#""event":"error""#) && l.contains("max-call-bytes")),
        "{whole:#?}"
    );
    support::provider::mentions(&whole, r#""content":"after""#);
}

/// A thought signature (Gemini's OpenAI-compatible `extra_content`) or an OpenRouter
/// `reasoning_details` signature longer than `max_call_bytes` would be refused when sent back
/// cut: the block completes unsigned with all its content, and a `max-call-bytes` error
/// follows once it has completed (an error with the block open would complete it early) —
/// at every chunking. (Not a vector: caller memory sizes the signature buffer otherwise.)
#[test]
fn signatures_past_max_call_bytes_are_dropped_after_their_block() {
    let mut config = DecoderConfig::new(Provider::OpenAiChat);
    config.options.max_call_bytes = 64;
    let sig = format!("CiQB{}==", "A".repeat(100));
    let call = format!(
        "data: {{\"choices\":[{{\"delta\":{{\"tool_calls\":[{{\"extra_content\":{{\"google\":{{\"thought_signature\":\"{sig}\"}}}},\"function\":{{\"arguments\":\"{{\\\"a\\\":1}}\",\"name\":\"f\"}},\"id\":\"c1\",\"index\":0}}]}},\"finish_reason\":\"tool_calls\"}}]}}\n\n"
    );
    let reasoning = format!(
        "data: {{\"choices\":[{{\"delta\":{{\"reasoning\":\"hm\"}}}}]}}\n\n\
data: {{\"choices\":[{{\"delta\":{{\"reasoning_details\":[{{\"type\":\"reasoning.text\",\"signature\":\"{sig}\"}}]}}}}]}}\n\n\
data: {{\"choices\":[{{\"delta\":{{\"content\":\"ok\"}},\"finish_reason\":\"stop\"}}]}}\n\n"
    );
    for (body, complete) in [
        (
            call,
            r#"{"event":"block_complete","index":0,"type":"tool_call","tool_name":"f","tool_id":"c1","input":{"a":1}}"#,
        ),
        (
            reasoning,
            r#"{"event":"block_complete","index":0,"type":"thinking","content":"hm"}"#,
        ),
    ] {
        let whole = support::provider::invariant(&config, body.as_bytes(), [1, 7, 64], None);
        support::provider::before(
            &whole,
            |l| l == complete,
            |l| l.contains(r#""event":"error""#) && l.contains("max-call-bytes"),
        );
        assert!(
            !whole.iter().any(|l| l.contains("signature\":")),
            "{whole:#?}"
        );
    }
}

/// Whole JSON documents one after another (no SSE framing) are each decoded.
#[test]
fn concatenated_whole_documents_each_decode() {
    let body = b"{\"choices\":[{\"delta\":{\"content\":\"a\"}}]}{\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n{\"choices\":[{\"delta\":{\"content\":\"c\"},\"finish_reason\":\"stop\"}]}";
    let whole = invariant(body, 20);
    support::provider::mentions(&whole, r#""content":"abc""#);
    support::provider::ends_mentioning(&whole, r#""reason":"stop""#);
}
