//! Shared by the bench targets: criterion settings, the peers' time guard, skip records.

#![allow(dead_code)]

use std::io::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::Criterion;

/// Criterion settings for inputs of megabytes: flat sampling, 10 samples; command-line
/// options (`--measurement-time`, `--sample-size`, `--warm-up-time`) still override.
pub fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

/// Criterion's output directory (where `skipped.jsonl` goes too).
pub fn criterion_home() -> PathBuf {
    if let Some(h) = std::env::var_os("CRITERION_HOME") {
        return h.into();
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("criterion")
}

/// Records that a contender was not measured on an input, and why.
pub fn record_skip(group: &str, contender: &str, why: &str) {
    eprintln!("skipped {group} / {contender}: {why}");
    let dir = criterion_home();
    let _ = std::fs::create_dir_all(&dir);
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("skipped.jsonl"))
    {
        let line = serde_json::json!({"group": group, "contender": contender, "why": why});
        let _ = writeln!(f, "{line}");
    }
}

/// Seconds one pass over all of `text` would take, predicted from passes over doubling
/// prefixes (a quadratic peer on a 10 MB argument would otherwise run for hours): stops
/// at the first prefix that takes at least 0.2 s (or the whole text) and extrapolates with
/// the growth exponent seen between the last two prefixes (clamped to 1..=2; 1.5 when the
/// previous prefix was too quick to time).
pub fn predict_seconds(text: &str, run: impl Fn(&str)) -> f64 {
    let cut = |n: usize| {
        let mut k = n.min(text.len());
        while !text.is_char_boundary(k) {
            k += 1;
        }
        &text[..k]
    };
    let mut n = (text.len() / 1024).max(4096);
    let mut last: Option<(usize, f64)> = None;
    loop {
        let prefix = cut(n);
        let t0 = Instant::now();
        run(prefix);
        let t = t0.elapsed().as_secs_f64().max(1e-9);
        if prefix.len() == text.len() {
            return t;
        }
        if t >= 0.2 {
            let e = match last {
                Some((n0, t0)) if t0 >= 0.02 => {
                    ((t / t0).ln() / (prefix.len() as f64 / n0 as f64).ln()).clamp(1.0, 2.0)
                }
                _ => 1.5,
            };
            return t * (text.len() as f64 / prefix.len() as f64).powf(e);
        }
        last = Some((prefix.len(), t));
        n *= 2;
    }
}

/// A peer is measured only where one pass is predicted to take at most this long.
pub const PEER_BUDGET_SECONDS: f64 = 6.0;
