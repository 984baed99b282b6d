//! Per-event cost of the Rust API on the transcript of `bench/bench_c.c` (the baseline the
//! C API's cost is compared with). `cargo run --release -p tokensieve-ffi --example
//! bench_rust -- [CHUNK] [REPEAT]`.
use std::time::Instant;

use tokensieve::{Config, ConfigBuf, Dialect, Sieve};

const UNIT: &str = "Sure, here is the plan for today.\n<thinking>Step one, then step two; check the weather.</thinking>\n\
Calling the tool now.<function_calls><invoke name=\"get_weather\"><parameter name=\"city\">Paris</parameter>\
<parameter name=\"days\">3</parameter></invoke></function_calls>\n";

fn run(sieve: &mut Sieve<'_>, input: &[u8], chunk: usize) -> (f64, u64) {
    let t0 = Instant::now();
    let (mut n, mut bytes) = (0u64, 0usize);
    sieve.reset();
    for piece in input.chunks(chunk) {
        let mut rest = piece;
        while let Some(ev) = sieve.next(&mut rest) {
            n += 1;
            if let tokensieve::Event::Chunk(c) = ev {
                bytes += c.text.len();
            }
        }
    }
    sieve.finish();
    while sieve.next(&mut &b""[..]).is_some() {
        n += 1;
    }
    std::hint::black_box(bytes);
    (t0.elapsed().as_secs_f64(), n)
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let chunk = args.first().copied().unwrap_or(16);
    let repeat = args.get(1).copied().unwrap_or(4000);
    let input = UNIT.repeat(repeat).into_bytes();
    let mut buf = ConfigBuf::new(Dialect::AnthropicXml);
    buf.add_tool(
        "get_weather",
        r#"{"properties":{"city":{"type":"string"},"days":{"type":"integer"}}}"#,
    )
    .unwrap();
    let config: Config<'_> = buf.config();
    let mut memory = vec![0u8; tokensieve::DEFAULT_MEMORY];
    for (name, mut sieve) in [
        ("heap", Sieve::new(&config).unwrap()),
        (
            "caller memory",
            Sieve::with_memory(&config, &mut memory).unwrap(),
        ),
    ] {
        let (mut best, mut events) = (f64::MAX, 0);
        for _ in 0..5 {
            let (t, n) = run(&mut sieve, &input, chunk);
            best = best.min(t);
            events = n;
        }
        println!(
            "Rust   {name:<26} chunk {chunk:>4}: {events:>8} events, {:>6.1} ns/event, {:>6.1} MB/s",
            best * 1e9 / events as f64,
            input.len() as f64 / best / 1e6
        );
    }
}
