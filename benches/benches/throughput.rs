//! Throughput of every contender on every input, at 4-byte and 64 KiB chunks.
//!
//! Two groups per (input, chunking), measuring the same work: `bytes.*` reports MB/s
//! (Throughput::Bytes), `chunks.*` reports chunks per second, whose inverse is the time per
//! chunk (Throughput::Elements = number of chunks). Every run feeds the whole input to a
//! fresh parser and consumes every event (the lengths of all texts are summed into
//! `black_box`).

mod common;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use tokensieve_benches::{CHUNKINGS, chunk_count, load, throughput_inputs, tokensieve_run};

fn throughput(c: &mut Criterion) {
    for name in throughput_inputs() {
        let input = load(&name);
        let config = input.config_buf();
        #[cfg(feature = "compare")]
        let peers: Vec<_> = tokensieve_benches::peers::Peer::for_dialect(input.dialect).collect();
        for (label, chunk) in CHUNKINGS {
            // The peers that can run this input at this chunking within the budget (decided
            // once for both groups).
            #[cfg(feature = "compare")]
            let runnable: Vec<_> = peers
                .iter()
                .copied()
                .filter(|peer| {
                    let predicted = common::predict_seconds(input.text(), |t| {
                        peer.run(t, chunk);
                    });
                    let ok = predicted <= common::PEER_BUDGET_SECONDS;
                    if !ok {
                        common::record_skip(
                            &format!("{name}.{label}"),
                            peer.name(),
                            &format!("one pass predicted to take {predicted:.0} s"),
                        );
                    }
                    ok
                })
                .collect();
            for unit in ["bytes", "chunks"] {
                let group_name = format!("{unit}.{name}.{label}");
                let mut g = c.benchmark_group(&group_name);
                g.sampling_mode(SamplingMode::Flat);
                g.throughput(if unit == "bytes" {
                    Throughput::Bytes(input.bytes.len() as u64)
                } else {
                    Throughput::Elements(chunk_count(input.bytes.len(), chunk))
                });
                g.bench_function("tokensieve", |b| {
                    b.iter(|| tokensieve_run(&config, &input.bytes, chunk))
                });
                #[cfg(feature = "compare")]
                for &peer in &runnable {
                    let text = input.text();
                    if unit == "chunks" {
                        g.throughput(Throughput::Elements(tokensieve_benches::char_chunk_count(
                            text, chunk,
                        )));
                    }
                    g.bench_function(peer.name(), |b| b.iter(|| peer.run(text, chunk)));
                }
                g.finish();
            }
        }
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = throughput
}
criterion_main!(benches);
