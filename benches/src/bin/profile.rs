//! A driver for profilers: feeds one input at one chunk size, `reps` times.
//!
//! Built with the `profiling` profile (release code with symbols; release is stripped):
//!
//! ```text
//! CARGO_TARGET_DIR=target-bench cargo build --profile profiling -p tokensieve-benches --bin profile
//! valgrind --tool=callgrind target-bench/profiling/profile mixed-anthropic-xml 4 1
//! perf record -e cpu-clock -g target-bench/profiling/profile prose 65536 50
//! ```
//!
//! With feature `compare`, a fourth argument names a peer (`tool-parser-kimik2`,
//! `dynamo-harmony`, …: `Peer::name`) to drive instead of tokensieve, on the same file
//! (in `&str` pieces ending at the next character boundary, as the benches feed them):
//!
//! ```text
//! valgrind --tool=callgrind target-bench/profiling/profile mixed-kimi-k2 4 1 tool-parser-kimik2
//! PROFILE_BYTES=100000 valgrind --tool=callgrind target-bench/profiling/profile mixed-kimi-k2 4 1 dynamo-kimi-k2
//! ```

use std::time::Instant;

use tokensieve_benches::{load, tokensieve_run};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().map_or("mixed-anthropic-xml", String::as_str);
    let chunk: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(4);
    let reps: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let contender = args.get(3).map_or("tokensieve", String::as_str);
    let mut input = load(name);
    // `PROFILE_BYTES=N`: only the first N bytes (to the next character boundary), for peers
    // too slow to run a whole input under callgrind.
    if let Some(n) = std::env::var("PROFILE_BYTES")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
    {
        let text = input.text();
        let mut k = n.min(text.len());
        while !text.is_char_boundary(k) {
            k += 1;
        }
        input.bytes.truncate(k);
    }
    let config = input.config_buf();
    let text = if contender == "tokensieve" {
        ""
    } else {
        input.text()
    };
    let t0 = Instant::now();
    let (chunks, total) = if contender == "tokensieve" {
        let mut total = Default::default();
        for _ in 0..reps {
            total = tokensieve_run(&config, &input.bytes, chunk);
        }
        (input.bytes.len().div_ceil(chunk) as u64, total)
    } else {
        run_peer(contender, text, chunk, reps)
    };
    let dt = t0.elapsed().as_secs_f64() / reps as f64;
    eprintln!(
        "{name} @ {chunk} B, {contender}: {:.1} MB/s, {:.2} ns/chunk ({chunks} chunks), {:?}",
        input.bytes.len() as f64 / dt / 1e6,
        dt * 1e9 / chunks as f64,
        total
    );
}

/// Runs the peer named `name` `reps` times; its chunk count and last tally.
#[cfg(feature = "compare")]
fn run_peer(name: &str, text: &str, chunk: usize, reps: usize) -> (u64, tokensieve_benches::Tally) {
    let Some(peer) = tokensieve_benches::peers::Peer::from_name(name) else {
        eprintln!("no peer named {name}");
        std::process::exit(2);
    };
    let mut total = Default::default();
    for _ in 0..reps {
        total = peer.run(text, chunk);
    }
    (tokensieve_benches::char_chunk_count(text, chunk), total)
}

#[cfg(not(feature = "compare"))]
fn run_peer(
    name: &str,
    _text: &str,
    _chunk: usize,
    _reps: usize,
) -> (u64, tokensieve_benches::Tally) {
    eprintln!("{name}: the peers need feature `compare`");
    std::process::exit(2);
}
