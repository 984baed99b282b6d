//! Linearity: one long tool argument of 100 KB and of 1 MB, fed in 30-byte chunks. A
//! linear parser takes 10 times as long for the second; `summarize` prints the ratio.
//! Every supported dialect with tool calls is measured; the peers on the files they read.

mod common;

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use tokensieve_benches::{TOOL_DIALECTS, load, tokensieve_run};

const CHUNK: usize = 30;

fn linearity(c: &mut Criterion) {
    for d in TOOL_DIALECTS.into_iter().filter(|d| d.is_supported()) {
        let group_name = format!("linearity.{}", d.name());
        let mut g = c.benchmark_group(&group_name);
        g.sampling_mode(SamplingMode::Flat);
        for size in ["100k", "1m"] {
            let input = load(&format!("longarg-{}-{size}", d.name()));
            let config = input.config_buf();
            g.throughput(Throughput::Bytes(input.bytes.len() as u64));
            g.bench_function(BenchmarkId::new("tokensieve", size), |b| {
                b.iter(|| tokensieve_run(&config, &input.bytes, CHUNK))
            });
            #[cfg(feature = "compare")]
            for peer in tokensieve_benches::peers::Peer::for_dialect(d) {
                let text = input.text();
                let predicted = common::predict_seconds(text, |t| {
                    peer.run(t, CHUNK);
                });
                if predicted > common::PEER_BUDGET_SECONDS {
                    common::record_skip(
                        &format!("{group_name}/{size}"),
                        peer.name(),
                        &format!("one pass predicted to take {predicted:.0} s"),
                    );
                    continue;
                }
                g.bench_function(BenchmarkId::new(peer.name(), size), |b| {
                    b.iter(|| peer.run(text, CHUNK))
                });
            }
        }
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = linearity
}
criterion_main!(benches);
