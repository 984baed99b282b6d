//! Turns criterion's output (and the other run.sh outputs) into the tables of
//! benches/README.md.
//!
//! ```text
//! summarize [--criterion DIR] [--allocs FILE] [--node FILE] [--diff FILE]
//! ```
//!
//! Reads every `*/new/benchmark.json` + `estimates.json` under the criterion directory
//! (default `$CARGO_TARGET_DIR/criterion`), takes the median time per iteration, and prints
//! Markdown: MB/s and ns per chunk per input, contender and chunking; the ratios
//! tokensieve / peer; the linearity ratios; skipped measurements; allocations per chunk;
//! the Node harness figures on the same files; and the peers' output differences.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

struct Row {
    group: String,
    function: String,
    value: String,
    median_ns: f64,
    bytes: Option<f64>,
    elements: Option<f64>,
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n == "new") {
                    let b = p.join("benchmark.json");
                    if b.exists() {
                        out.push(p);
                    }
                } else {
                    walk(&p, out);
                }
            }
        }
    }
}

fn read_json(p: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok()
}

fn rows(dir: &Path) -> Vec<Row> {
    let mut dirs = Vec::new();
    walk(dir, &mut dirs);
    let mut out = Vec::new();
    for d in dirs {
        let (Some(b), Some(e)) = (
            read_json(&d.join("benchmark.json")),
            read_json(&d.join("estimates.json")),
        ) else {
            continue;
        };
        let t = &b["throughput"];
        out.push(Row {
            group: b["group_id"].as_str().unwrap_or("").into(),
            function: b["function_id"].as_str().unwrap_or("").into(),
            value: b["value_str"].as_str().unwrap_or("").into(),
            median_ns: e["median"]["point_estimate"].as_f64().unwrap_or(f64::NAN),
            bytes: t["Bytes"].as_f64().or(t["BytesDecimal"].as_f64()),
            elements: t["Elements"].as_f64(),
        });
    }
    out
}

fn lines(path: &Option<PathBuf>) -> Vec<Value> {
    path.as_ref()
        .and_then(|p| std::fs::read_to_string(p).ok())
        .map(|s| {
            s.lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect()
        })
        .unwrap_or_default()
}

fn fmt_mbps(x: f64) -> String {
    if x >= 1000.0 {
        format!("{:.2} GB/s", x / 1000.0)
    } else if x >= 10.0 {
        format!("{x:.0} MB/s")
    } else {
        format!("{x:.2} MB/s")
    }
}

fn fmt_ns(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.2} ms", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1} µs", x / 1e3)
    } else {
        format!("{x:.1} ns")
    }
}

/// "12.3×" when tokensieve is faster, "0.25× (peer 4× faster)" when not.
fn fmt_ratio(r: f64) -> String {
    if !r.is_finite() {
        "–".into()
    } else if r >= 1.0 {
        format!("{r:.1}×")
    } else {
        format!("{r:.2}× (peer {:.0}× faster)", 1.0 / r)
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut crit: Option<PathBuf> = None;
    let (mut allocs, mut node, mut diff) = (None, None, None);
    while let Some(a) = args.next() {
        let v = args.next().map(PathBuf::from);
        match a.as_str() {
            "--criterion" => crit = v,
            "--allocs" => allocs = v,
            "--node" => node = v,
            "--diff" => diff = v,
            other => panic!("unknown argument {other}"),
        }
    }
    let crit = crit.unwrap_or_else(|| {
        std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"))
            .join("criterion")
    });
    let rows = rows(&crit);
    let diff = lines(&diff);
    // (peer, input, chunking) -> how its output differs from tokensieve's.
    let mut notes: BTreeMap<(String, String, String), String> = BTreeMap::new();
    for d in &diff {
        let g = |k: &str| d[k].as_u64().unwrap_or(0);
        if d.get("note").is_some() {
            continue;
        }
        let mut what = Vec::new();
        if g("calls_equal") < g("calls_ours") || g("calls_theirs") != g("calls_ours") {
            what.push(format!(
                "{} of {} calls equal",
                g("calls_equal"),
                g("calls_ours")
            ));
        }
        if g("text_theirs") < g("text_ours") {
            what.push(format!(
                "visible text {} of {} bytes",
                g("text_theirs"),
                g("text_ours")
            ));
        } else if d["text_equal"] == false {
            what.push("visible text differs".into());
        }
        if g("thinking_theirs") == 0 && g("thinking_ours") > 0 {
            what.push("no thinking".into());
        }
        if !what.is_empty() {
            let key = (
                d["peer"].as_str().unwrap_or("").to_owned(),
                d["input"].as_str().unwrap_or("").to_owned(),
                d["chunking"].as_str().unwrap_or("").to_owned(),
            );
            notes.insert(key, what.join(", "));
        }
    }

    // (input, chunking) -> contender -> (MB/s, ns/chunk)
    let mut table: BTreeMap<(String, String), BTreeMap<String, (f64, f64)>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for r in &rows {
        let mut parts = r.group.splitn(2, '.');
        let unit = parts.next().unwrap_or("");
        let Some(rest) = parts.next() else { continue };
        let Some((input, chunking)) = rest.rsplit_once('.') else {
            continue;
        };
        if unit != "bytes" && unit != "chunks" {
            continue;
        }
        if !order.contains(&input.to_owned()) {
            order.push(input.to_owned());
        }
        let e = table
            .entry((input.into(), chunking.into()))
            .or_default()
            .entry(r.function.clone())
            .or_insert((f64::NAN, f64::NAN));
        match (unit, r.bytes, r.elements) {
            ("bytes", Some(b), _) => e.0 = b / r.median_ns * 1e3,
            ("chunks", _, Some(n)) => e.1 = r.median_ns / n,
            _ => {}
        }
    }
    order.sort_by_key(|n| {
        (
            if n == "prose" {
                0
            } else if n.starts_with("mixed") {
                1
            } else {
                2
            },
            n.contains("-10m"),
            n.contains("-1m"),
            n.clone(),
        )
    });

    println!("### Throughput (median of criterion samples)\n");
    println!("| input | contender | 4 B: ns/chunk | 4 B: MB/s | 64 KiB: ns/chunk | 64 KiB: MB/s |");
    println!("| --- | --- | ---: | ---: | ---: | ---: |");
    for input in &order {
        let mut contenders: Vec<String> = Vec::new();
        for ch in ["4B", "64KiB"] {
            if let Some(m) = table.get(&(input.clone(), ch.into())) {
                for k in m.keys() {
                    if !contenders.contains(k) {
                        contenders.push(k.clone());
                    }
                }
            }
        }
        contenders.sort_by_key(|c| (c != "tokensieve", c.clone()));
        for c in contenders {
            let cell = |ch: &str| {
                table
                    .get(&(input.clone(), ch.into()))
                    .and_then(|m| m.get(&c))
                    .copied()
                    .unwrap_or((f64::NAN, f64::NAN))
            };
            let (a, b) = (cell("4B"), cell("64KiB"));
            let show = |x: f64, f: fn(f64) -> String| {
                if x.is_nan() { "–".into() } else { f(x) }
            };
            let note = |ch: &str| {
                notes
                    .get(&(c.clone(), input.clone(), ch.to_owned()))
                    .map(|n| format!(" ⚠ {n}"))
                    .unwrap_or_default()
            };
            println!(
                "| {input} | {c} | {} | {}{} | {} | {}{} |",
                show(a.1, fmt_ns),
                show(a.0, fmt_mbps),
                note("4B"),
                show(b.1, fmt_ns),
                show(b.0, fmt_mbps),
                note("64KiB")
            );
        }
    }

    // Ratios tokensieve / peer (throughput ratio: how many times faster).
    let mut ratio_lines = Vec::new();
    for ((input, ch), m) in &table {
        let Some(ours) = m.get("tokensieve") else {
            continue;
        };
        for (c, theirs) in m {
            if c != "tokensieve" && theirs.0.is_finite() {
                ratio_lines.push(format!(
                    "| {input} | {ch} | {c} | {} |",
                    fmt_ratio(ours.0 / theirs.0)
                ));
            }
        }
    }
    if !ratio_lines.is_empty() {
        println!("\n### Speed ratio tokensieve / peer (same file, same chunking)\n");
        println!("| input | chunking | peer | tokensieve is faster by |");
        println!("| --- | --- | --- | ---: |");
        for l in ratio_lines {
            println!("{l}");
        }
    }

    // Linearity.
    let mut lin: BTreeMap<(String, String), BTreeMap<String, f64>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.group.starts_with("linearity.")) {
        lin.entry((r.group["linearity.".len()..].into(), r.function.clone()))
            .or_default()
            .insert(r.value.clone(), r.median_ns);
    }
    if !lin.is_empty() {
        println!("\n### Linearity (one long argument, 30-byte chunks)\n");
        println!("| dialect | contender | 100 KB | 1 MB | ratio 1 MB / 100 KB (linear: ≈ 10) |");
        println!("| --- | --- | ---: | ---: | ---: |");
        for ((d, c), m) in &lin {
            let (a, b) = (
                m.get("100k").copied().unwrap_or(f64::NAN),
                m.get("1m").copied().unwrap_or(f64::NAN),
            );
            let show = |x: f64| if x.is_nan() { "–".into() } else { fmt_ns(x) };
            let ratio = if (b / a).is_finite() {
                format!("{:.2}", b / a)
            } else {
                "–".into()
            };
            println!("| {d} | {c} | {} | {} | {ratio} |", show(a), show(b));
        }
    }

    let skipped = lines(&Some(crit.join("skipped.jsonl")));
    if !skipped.is_empty() {
        println!("\n### Not measured\n");
        let mut seen = std::collections::BTreeSet::new();
        for s in skipped {
            let l = format!(
                "- {} / {}: {}",
                s["group"].as_str().unwrap_or(""),
                s["contender"].as_str().unwrap_or(""),
                s["why"].as_str().unwrap_or("")
            );
            if seen.insert(l.clone()) {
                println!("{l}");
            }
        }
    }

    let allocs = lines(&allocs);
    if !allocs.is_empty() {
        println!(
            "\n### Heap allocations per chunk (feed + consume + finish; construction excluded)\n"
        );
        println!(
            "| input | chunking | contender | chunks | allocations | per chunk | bytes asked |"
        );
        println!("| --- | --- | --- | ---: | ---: | ---: | ---: |");
        for a in allocs {
            println!(
                "| {} | {} | {} | {} | {} | {:.4} | {} |",
                a["input"].as_str().unwrap_or(""),
                a["chunking"].as_str().unwrap_or(""),
                a["contender"].as_str().unwrap_or(""),
                a["chunks"],
                a["allocs"],
                a["per_chunk"].as_f64().unwrap_or(f64::NAN),
                a["bytes"]
            );
        }
    }

    let node = lines(&node);
    if !node.is_empty() {
        println!(
            "\n### Node prior art (@ai-sdk-tool/parser 4.1.26, harness.mjs) on the same files\n"
        );
        println!("Chunk sizes are UTF-16 code units there (the files are nearly all ASCII).\n");
        println!(
            "| file | protocol | feed | chunk | ns/chunk | MB/s | tool calls | tokensieve / Node |"
        );
        println!("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |");
        for n in node {
            let file = n["file"].as_str().unwrap_or("");
            if let Some(t) = n["timedOutSeconds"].as_u64() {
                println!(
                    "| {file} | {} | {} | {} | – | did not finish in {t} s | – | – |",
                    n["protocol"].as_str().unwrap_or(""),
                    n["feed"].as_str().unwrap_or(""),
                    n["chunkBytes"]
                );
                continue;
            }
            let input = file.trim_end_matches(".txt");
            let ch = match n["chunkBytes"].as_u64() {
                Some(4) => "4B",
                Some(65536) => "64KiB",
                _ => "",
            };
            let mbps = n["mbPerSec"].as_f64().unwrap_or(f64::NAN);
            let ours = table
                .get(&(input.into(), ch.into()))
                .and_then(|m| m.get("tokensieve"))
                .map(|t| t.0)
                .unwrap_or(f64::NAN);
            let ratio = fmt_ratio(ours / mbps);
            println!(
                "| {file} | {} | {} | {} | {} | {} | {} | {ratio} |",
                n["protocol"].as_str().unwrap_or(""),
                n["feed"].as_str().unwrap_or(""),
                n["chunkBytes"],
                fmt_ns(n["nsPerChunk"].as_f64().unwrap_or(f64::NAN)),
                fmt_mbps(mbps),
                n["toolCalls"]
            );
        }
    }

    if !diff.is_empty() {
        println!("\n### Do the peers see what tokensieve sees? (mixed transcripts)\n");
        println!(
            "| peer | input | chunking | calls ours / theirs / equal | visible text bytes ours / theirs | thinking bytes ours / theirs | text equal |"
        );
        println!("| --- | --- | --- | --- | --- | --- | --- |");
        for d in diff {
            if d.get("note").is_some() {
                println!(
                    "| {} | {} | – | {} | | | |",
                    d["peer"].as_str().unwrap_or(""),
                    d["input"].as_str().unwrap_or(""),
                    d["note"].as_str().unwrap_or("")
                );
                continue;
            }
            println!(
                "| {} | {} | {} | {} / {} / {} | {} / {} | {} / {} | {} |",
                d["peer"].as_str().unwrap_or(""),
                d["input"].as_str().unwrap_or(""),
                d["chunking"].as_str().unwrap_or(""),
                d["calls_ours"],
                d["calls_theirs"],
                d["calls_equal"],
                d["text_ours"],
                d["text_theirs"],
                d["thinking_ours"],
                d["thinking_theirs"],
                d["text_equal"]
            );
        }
    }
}
