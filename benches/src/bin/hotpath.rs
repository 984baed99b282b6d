//! The hot-path driver of benches/README.md ("Hot-path work"): feeds `Sieve::next` a mixed
//! anthropic-xml transcript and prose at 64 KiB and 4-byte chunks. Run it under
//! `valgrind --tool=callgrind` for instruction counts (`hotpath prose` or `hotpath mixed`);
//! without valgrind it prints rough wall-clock figures.

use std::time::Instant;
use tokensieve::{Config, Dialect, Event, Sieve};

fn run(config: &Config, input: &[u8], chunk: usize, reps: usize) -> (f64, f64) {
    let mut total = 0u64;
    let t = Instant::now();
    let mut chunks = 0usize;
    for _ in 0..reps {
        let mut sieve = Sieve::new(config).unwrap();
        for piece in input.chunks(chunk) {
            chunks += 1;
            let mut rest = piece;
            while let Some(ev) = sieve.next(&mut rest) {
                if let Event::Chunk(c) = ev {
                    total += c.text.len() as u64;
                }
            }
        }
        sieve.finish();
        while sieve.next(&mut &b""[..]).is_some() {}
    }
    let secs = t.elapsed().as_secs_f64();
    std::hint::black_box(total);
    (
        (input.len() * reps) as f64 / secs / 1e9,
        secs * 1e9 / chunks as f64,
    )
}

fn main() {
    let prose: Vec<u8> = "The quick brown fox jumps over the lazy dog; models stream text token by token, and hosts want it at once. "
        .repeat(100_000).into_bytes();
    let mixed: Vec<u8> = concat!(
        "<thinking>The user wants the weather. I'll look it up in Paris and Tokyo.</thinking>\n",
        "Let me check that for you — un instant.\n\n<function_calls>\n<invoke name=\"get_weather\">\n",
        "<parameter name=\"city\">Paris</parameter>\n<parameter name=\"days\">3</parameter>\n",
        "<parameter name=\"opts\">{\"unit\": \"c\", \"hourly\": [1, 2, 3]}</parameter>\n</invoke>\n</function_calls>\n",
        "<function_results>\n<result tool_use_id=\"toolu_1\">\n<tool_name>get_weather</tool_name>\n",
        "<stdout>Paris: 18°C, light rain 🌧</stdout>\n</result>\n</function_results>\n",
        "It is 18°C and raining in Paris. a < b, and <b>bold</b> is text.\n",
    ).repeat(300).into_bytes();
    let mode = std::env::args().nth(1).unwrap_or_default();
    let cfg = Config::new(Dialect::AnthropicXml);
    if mode.is_empty() || mode == "prose" {
        let (gbs, ns) = run(&cfg, &prose, 65536, 20);
        println!("prose 64KiB: {gbs:.2} GB/s, {ns:.0} ns/chunk");
        let (gbs, ns) = run(&cfg, &prose, 4, 2);
        println!("prose 4B:    {gbs:.3} GB/s, {ns:.1} ns/chunk");
    }
    if mode.is_empty() || mode == "mixed" {
        let (gbs, ns) = run(&cfg, &mixed, 65536, 20);
        println!("mixed 64KiB: {gbs:.2} GB/s, {ns:.0} ns/chunk");
        let (gbs, ns) = run(&cfg, &mixed, 4, 2);
        println!("mixed 4B:    {gbs:.3} GB/s, {ns:.1} ns/chunk");
    }
}
