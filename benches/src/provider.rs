//! Provider-stream inputs (generated response bodies) and the decode loop every provider
//! bench and the profiler run (benches/decode.rs, bin/profile-decode.rs).

use tokensieve::Event;
use tokensieve::provider::{Decoder, DecoderConfig};

const WORDS: &[&str] = &[
    "the ",
    "model ",
    "streams ",
    "its ",
    "answer ",
    "token ",
    "by ",
    "token, ",
    "and ",
    "a ",
    "host ",
    "speaks ",
    "it ",
    "as ",
    "it ",
    "comes: ",
    "\"quoted\" ",
    "naïve ",
    "café ",
    "🌍 ",
];

/// An OpenAI Chat Completions SSE body of about `size` bytes; the number of events.
pub fn openai_body(size: usize) -> (Vec<u8>, u64) {
    let mut out = Vec::with_capacity(size + 256);
    let mut n = 0u64;
    let mut i = 0usize;
    while out.len() < size {
        let w = WORDS[i % WORDS.len()].replace('"', "\\\"");
        i += 1;
        out.extend_from_slice(
            format!(
                "data: {{\"id\":\"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT\",\"object\":\"chat.completion.chunk\",\"created\":1741569952,\"model\":\"gpt-4.1-2025-04-14\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{w}\"}},\"finish_reason\":null}}]}}\n\n"
            )
            .as_bytes(),
        );
        n += 1;
    }
    out.extend_from_slice(b"data: {\"id\":\"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT\",\"object\":\"chat.completion.chunk\",\"created\":1741569952,\"model\":\"gpt-4.1-2025-04-14\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    (out, n + 2)
}

/// The JSON of a token's `bytes` (its UTF-8 as numbers).
fn json_bytes(token: &str) -> String {
    let b: Vec<String> = token.bytes().map(|b| b.to_string()).collect();
    format!("[{}]", b.join(","))
}

/// As [`openai_body`], with `logprobs: true, top_logprobs: 3` (each delta's `logprobs`: the
/// token, its log probability, bytes and three alternatives) and the envelope fields
/// current servers add (`system_fingerprint`, `service_tier`, `obfuscation`): a body where
/// most bytes are values no mapper reads.
pub fn openai_logprobs_body(size: usize) -> (Vec<u8>, u64) {
    let mut out = Vec::with_capacity(size + 1024);
    let mut n = 0u64;
    let mut i = 0usize;
    while out.len() < size {
        let raw = WORDS[i % WORDS.len()];
        let alt = WORDS[(i + 7) % WORDS.len()];
        let w = raw.replace('"', "\\\"");
        let a = alt.replace('"', "\\\"");
        let lp = -((i % 97) as f64) / 37.0 - 0.0001234;
        i += 1;
        let top = format!(
            "[{{\"token\":\"{w}\",\"logprob\":{lp:.8},\"bytes\":{}}},{{\"token\":\"{a}\",\"logprob\":-3.0517578e-5,\"bytes\":{}}},{{\"token\":\"\\u00e9}}]\",\"logprob\":-12.625,\"bytes\":null}}]",
            json_bytes(raw),
            json_bytes(alt)
        );
        out.extend_from_slice(
            format!(
                "data: {{\"id\":\"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT\",\"object\":\"chat.completion.chunk\",\"created\":1741569952,\"model\":\"gpt-4.1-2025-04-14\",\"service_tier\":\"default\",\"system_fingerprint\":\"fp_c7ca0ebaca\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{w}\"}},\"logprobs\":{{\"content\":[{{\"token\":\"{w}\",\"logprob\":{lp:.8},\"bytes\":{},\"top_logprobs\":{top}}}],\"refusal\":null}},\"finish_reason\":null}}],\"obfuscation\":\"x9Fq\"}}\n\n",
                json_bytes(raw)
            )
            .as_bytes(),
        );
        n += 1;
    }
    out.extend_from_slice(b"data: {\"id\":\"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT\",\"object\":\"chat.completion.chunk\",\"created\":1741569952,\"model\":\"gpt-4.1-2025-04-14\",\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    (out, n + 2)
}

/// An Anthropic Messages SSE body of about `size` bytes; the number of events.
pub fn anthropic_body(size: usize) -> (Vec<u8>, u64) {
    let mut out = Vec::with_capacity(size + 1024);
    out.extend_from_slice(b"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_01XFDUDYJgAACzvnptvVoYEL\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"stop_reason\":null,\"usage\":{\"input_tokens\":25,\"output_tokens\":1}}}\n\n\
event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
    let mut n = 2u64;
    let mut i = 0usize;
    while out.len() < size {
        let w = WORDS[i % WORDS.len()].replace('"', "\\\"");
        i += 1;
        out.extend_from_slice(
            format!(
                "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"{w}\"}}}}\n\n"
            )
            .as_bytes(),
        );
        n += 1;
    }
    out.extend_from_slice(b"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":15}}\n\n\
event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    (out, n + 3)
}

/// An AWS Bedrock ConverseStream body (AWS event-stream frames, as the service sends them:
/// a `p` padding field in every payload) of about `size` bytes; the number of events.
pub fn bedrock_body(size: usize) -> (Vec<u8>, u64) {
    const PAD: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ";
    let mut out = Vec::with_capacity(size + 1024);
    aws_frame(
        &mut out,
        "messageStart",
        &format!("{{\"role\":\"assistant\",\"p\":\"{PAD}\"}}"),
    );
    let mut n = 1u64;
    let mut i = 0usize;
    while out.len() < size {
        let w = WORDS[i % WORDS.len()].replace('"', "\\\"");
        i += 1;
        let payload = format!(
            "{{\"contentBlockIndex\":0,\"delta\":{{\"text\":\"{w}\"}},\"p\":\"{}\"}}",
            &PAD[..i % PAD.len()]
        );
        aws_frame(&mut out, "contentBlockDelta", &payload);
        n += 1;
    }
    aws_frame(
        &mut out,
        "contentBlockStop",
        "{\"contentBlockIndex\":0,\"p\":\"abcd\"}",
    );
    aws_frame(
        &mut out,
        "messageStop",
        "{\"stopReason\":\"end_turn\",\"p\":\"abcdefgh\"}",
    );
    aws_frame(
        &mut out,
        "metadata",
        "{\"usage\":{\"inputTokens\":25,\"outputTokens\":15,\"totalTokens\":40},\"metrics\":{\"latencyMs\":512},\"p\":\"abc\"}",
    );
    (out, n + 3)
}

/// Appends one AWS event-stream frame (an `event` message of JSON) to `out`: the 12-byte
/// prelude with its CRC32, three string headers, the payload and the message CRC32.
fn aws_frame(out: &mut Vec<u8>, event_type: &str, payload: &str) {
    let mut headers = Vec::new();
    for (name, value) in [
        (":event-type", event_type),
        (":content-type", "application/json"),
        (":message-type", "event"),
    ] {
        headers.push(name.len() as u8);
        headers.extend_from_slice(name.as_bytes());
        headers.push(7); // string
        headers.extend_from_slice(&(value.len() as u16).to_be_bytes());
        headers.extend_from_slice(value.as_bytes());
    }
    let start = out.len();
    let total = 12 + headers.len() + payload.len() + 4;
    out.extend_from_slice(&(total as u32).to_be_bytes());
    out.extend_from_slice(&(headers.len() as u32).to_be_bytes());
    let prelude_crc = crc32fast::hash(&out[start..start + 8]);
    out.extend_from_slice(&prelude_crc.to_be_bytes());
    out.extend_from_slice(&headers);
    out.extend_from_slice(payload.as_bytes());
    let message_crc = crc32fast::hash(&out[start..]);
    out.extend_from_slice(&message_crc.to_be_bytes());
}

/// Decodes `body` in `read`-byte reads; the visible text's length.
pub fn tokensieve_decode(config: &DecoderConfig<'_>, body: &[u8], read: usize) -> usize {
    let mut decoder = Decoder::new(config).unwrap();
    let mut len = 0usize;
    crate::pump(&mut decoder, body, read, |ev| {
        if let Event::Chunk(c) = ev {
            len += c.text.len();
        }
    });
    len
}
