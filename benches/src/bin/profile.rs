//! A driver for profilers: feeds one input at one chunk size, `reps` times.
//!
//! ```text
//! valgrind --tool=callgrind target-bench/release/profile mixed-anthropic-xml 4 1
//! perf record -e cpu-clock -g target-bench/release/profile prose 65536 50
//! ```

use std::time::Instant;

use tokensieve_benches::{load, tokensieve_run};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().map_or("mixed-anthropic-xml", String::as_str);
    let chunk: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(4);
    let reps: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let input = load(name);
    let config = input.config_buf();
    let t0 = Instant::now();
    let mut total = Default::default();
    for _ in 0..reps {
        total = tokensieve_run(&config, &input.bytes, chunk);
    }
    let dt = t0.elapsed().as_secs_f64() / reps as f64;
    let chunks = input.bytes.len().div_ceil(chunk);
    eprintln!(
        "{name} @ {chunk} B: {:.1} MB/s, {:.2} ns/chunk, {:?}",
        input.bytes.len() as f64 / dt / 1e6,
        dt * 1e9 / chunks as f64,
        total
    );
}
