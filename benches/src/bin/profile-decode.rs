//! A provider body decoded in a loop, for a profiler:
//! `valgrind --tool=callgrind target-bench/release/profile-decode openai-chat 4096 2`
//! (provider, read size, megabytes of generated SSE with short text deltas: OpenAI chat
//! chunks, or for `anthropic` Anthropic `content_block_delta` events).

use tokensieve::Event;
use tokensieve::provider::{Decoder, DecoderConfig, Provider};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let provider = Provider::from_name(args.get(1).map_or("openai-chat", |s| s.as_str()))
        .expect("a provider name");
    let read: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(4096);
    let mb: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(2);
    let mut body = Vec::new();
    let mut events = 0u64;
    let anthropic = provider == Provider::Anthropic;
    if anthropic {
        body.extend_from_slice(b"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_01XFDUDYJgAACzvnptvVoYEL\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"stop_reason\":null,\"usage\":{\"input_tokens\":25,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
    }
    while anthropic && body.len() < mb << 20 {
        body.extend_from_slice(b"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"token \"}}\n\n");
        events += 1;
    }
    while body.len() < mb << 20 {
        body.extend_from_slice(b"data: {\"id\":\"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT\",\"object\":\"chat.completion.chunk\",\"created\":1741569952,\"model\":\"gpt-4.1-2025-04-14\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"token \"},\"finish_reason\":null}]}\n\n");
        events += 1;
    }
    if anthropic {
        body.extend_from_slice(b"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":15}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    } else {
        body.extend_from_slice(b"data: [DONE]\n\n");
    }
    let config = DecoderConfig::new(provider);
    let start = std::time::Instant::now();
    let mut decoder = Decoder::new(&config).unwrap();
    let mut len = 0usize;
    for piece in body.chunks(read) {
        let mut input = piece;
        while let Some(ev) = decoder.next(&mut input) {
            if let Event::Chunk(c) = ev {
                len += c.text.len();
            }
        }
    }
    decoder.finish_with(|_| {});
    let t = start.elapsed();
    eprintln!(
        "{} bytes, {events} events, {len} text bytes: {:.1} MB/s, {:.0} ns/event",
        body.len(),
        body.len() as f64 / t.as_secs_f64() / 1e6,
        t.as_nanos() as f64 / events as f64
    );
}
