//! A provider body decoded once, for a profiler or a quick wall-clock figure:
//! `valgrind --tool=callgrind target-bench/profiling/profile-decode openai-chat 4096 1`
//! (provider `openai-chat`, `anthropic` or `bedrock`, read size, megabytes of the generated SSE body the
//! `decode` bench reads: short text deltas; `openai-logprobs`: OpenAI with `logprobs` in
//! every event, `openai_logprobs_body`).

use tokensieve::provider::{DecoderConfig, Provider};
use tokensieve_benches::provider::{
    anthropic_body, bedrock_body, openai_body, openai_logprobs_body, tokensieve_decode,
};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map_or("openai-chat", |s| s.as_str());
    let logprobs = name == "openai-logprobs";
    let provider =
        Provider::from_name(if logprobs { "openai-chat" } else { name }).expect("a provider name");
    let read: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(4096);
    let mb: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(2);
    let (body, events) = match provider {
        Provider::Anthropic => anthropic_body(mb << 20),
        Provider::Bedrock => bedrock_body(mb << 20),
        _ if logprobs => openai_logprobs_body(mb << 20),
        _ => openai_body(mb << 20),
    };
    let config = DecoderConfig::new(provider);
    let start = std::time::Instant::now();
    let len = tokensieve_decode(&config, &body, read);
    let t = start.elapsed();
    eprintln!(
        "{} bytes, {events} events, {len} text bytes: {:.1} MB/s, {:.0} ns/event",
        body.len(),
        body.len() as f64 / t.as_secs_f64() / 1e6,
        t.as_nanos() as f64 / events as f64
    );
}
