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

/// Decodes `body` in `read`-byte reads; the visible text's length.
pub fn tokensieve_decode(config: &DecoderConfig<'_>, body: &[u8], read: usize) -> usize {
    let mut decoder = Decoder::new(config).unwrap();
    let mut len = 0usize;
    for piece in body.chunks(read) {
        let mut input = piece;
        while let Some(ev) = decoder.next(&mut input) {
            if let Event::Chunk(c) = ev {
                len += c.text.len();
            }
        }
    }
    decoder.finish();
    let mut empty: &[u8] = &[];
    while decoder.next(&mut empty).is_some() {}
    len
}
