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
            group: str_at(&b, "group_id").into(),
            function: str_at(&b, "function_id").into(),
            value: str_at(&b, "value_str").into(),
            median_ns: e["median"]["point_estimate"].as_f64().unwrap_or(f64::NAN),
            bytes: t["Bytes"].as_f64().or(t["BytesDecimal"].as_f64()),
            elements: t["Elements"].as_f64(),
        });
    }
    out
}

/// The string at `key` in `v`, "" when there is none.
fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or("")
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

/// The command line: where criterion's results and the other run.sh outputs are.
struct Args {
    criterion: PathBuf,
    allocs: Option<PathBuf>,
    node: Option<PathBuf>,
    diff: Option<PathBuf>,
}

impl Args {
    /// `--criterion`, `--allocs`, `--node`, `--diff`, each followed by a path; the criterion
    /// directory defaults to `$CARGO_TARGET_DIR/criterion` (or the workspace's `target/`).
    fn parse() -> Self {
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
        let criterion = crit.unwrap_or_else(|| {
            std::env::var_os("CARGO_TARGET_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"))
                .join("criterion")
        });
        Args {
            criterion,
            allocs,
            node,
            diff,
        }
    }
}

/// (peer, input, chunking) -> how its output differs from tokensieve's.
type Notes = BTreeMap<(String, String, String), String>;

/// (input, chunking) -> contender -> (MB/s, ns/chunk).
type Table = BTreeMap<(String, String), BTreeMap<String, (f64, f64)>>;

fn main() {
    let args = Args::parse();
    let rows = rows(&args.criterion);
    let diff = lines(&args.diff);
    let notes = diff_notes(&diff);
    let (table, order) = throughput_table(&rows);
    print_throughput(&table, &order, &notes);
    print_ratios(&table);
    print_linearity(&rows);
    print_skipped(lines(&Some(args.criterion.join("skipped.jsonl"))));
    print_allocations(lines(&args.allocs));
    print_node(lines(&args.node), &table);
    print_differences(diff);
}

/// The short notes (⚠ in the throughput table) on how each peer's output differs from
/// tokensieve's; lines with a `note` (the peer could not run) get none.
fn diff_notes(diff: &[Value]) -> Notes {
    let mut notes = Notes::new();
    for d in diff {
        if d.get("note").is_some() {
            continue;
        }
        if let Some(what) = diff_note(d) {
            let key = (
                str_at(d, "peer").to_owned(),
                str_at(d, "input").to_owned(),
                str_at(d, "chunking").to_owned(),
            );
            notes.insert(key, what);
        }
    }
    notes
}

/// "2 of 3 calls equal, visible text 90 of 100 bytes, no thinking", or None when the
/// peer saw what tokensieve saw.
fn diff_note(d: &Value) -> Option<String> {
    let g = |k: &str| d[k].as_u64().unwrap_or(0);
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
    (!what.is_empty()).then(|| what.join(", "))
}

/// The `bytes.<input>.<chunking>` and `chunks.<input>.<chunking>` groups as one table,
/// and the inputs in the order they are shown.
fn throughput_table(rows: &[Row]) -> (Table, Vec<String>) {
    let mut table = Table::new();
    let mut order: Vec<String> = Vec::new();
    for r in rows {
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
    sort_inputs(&mut order);
    (table, order)
}

/// Prose first, then the mixed transcripts, then the rest; the 1 MB and 10 MB files after
/// the small ones.
fn sort_inputs(order: &mut [String]) {
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
}

fn print_throughput(table: &Table, order: &[String], notes: &Notes) {
    println!("### Throughput (median of criterion samples)\n");
    println!("| input | contender | 4 B: ns/chunk | 4 B: MB/s | 64 KiB: ns/chunk | 64 KiB: MB/s |");
    println!("| --- | --- | ---: | ---: | ---: | ---: |");
    for input in order {
        for c in contenders(table, input) {
            print_throughput_row(table, notes, input, &c);
        }
    }
}

/// The contenders measured on `input` at either chunking, tokensieve first.
fn contenders(table: &Table, input: &str) -> Vec<String> {
    let mut contenders: Vec<String> = Vec::new();
    for ch in ["4B", "64KiB"] {
        if let Some(m) = table.get(&(input.to_owned(), ch.into())) {
            for k in m.keys() {
                if !contenders.contains(k) {
                    contenders.push(k.clone());
                }
            }
        }
    }
    contenders.sort_by_key(|c| (c != "tokensieve", c.clone()));
    contenders
}

fn print_throughput_row(table: &Table, notes: &Notes, input: &str, c: &str) {
    let cell = |ch: &str| {
        table
            .get(&(input.to_owned(), ch.into()))
            .and_then(|m| m.get(c))
            .copied()
            .unwrap_or((f64::NAN, f64::NAN))
    };
    let (a, b) = (cell("4B"), cell("64KiB"));
    let show = |x: f64, f: fn(f64) -> String| {
        if x.is_nan() { "–".into() } else { f(x) }
    };
    let note = |ch: &str| {
        notes
            .get(&(c.to_owned(), input.to_owned(), ch.to_owned()))
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

/// Ratios tokensieve / peer (throughput ratio: how many times faster).
fn print_ratios(table: &Table) {
    let mut ratio_lines = Vec::new();
    for ((input, ch), m) in table {
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
}

/// The `linearity.<dialect>` groups: time at 100 KB and 1 MB, and their ratio.
fn print_linearity(rows: &[Row]) {
    let mut lin: BTreeMap<(String, String), BTreeMap<String, f64>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.group.starts_with("linearity.")) {
        lin.entry((r.group["linearity.".len()..].into(), r.function.clone()))
            .or_default()
            .insert(r.value.clone(), r.median_ns);
    }
    if lin.is_empty() {
        return;
    }
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

/// The benches' `skipped.jsonl`: what was not measured and why, each once.
fn print_skipped(skipped: Vec<Value>) {
    if skipped.is_empty() {
        return;
    }
    println!("\n### Not measured\n");
    let mut seen = std::collections::BTreeSet::new();
    for s in skipped {
        let l = format!(
            "- {} / {}: {}",
            str_at(&s, "group"),
            str_at(&s, "contender"),
            str_at(&s, "why")
        );
        if seen.insert(l.clone()) {
            println!("{l}");
        }
    }
}

fn print_allocations(allocs: Vec<Value>) {
    if allocs.is_empty() {
        return;
    }
    println!("\n### Heap allocations per chunk (feed + consume + finish; construction excluded)\n");
    println!("| input | chunking | contender | chunks | allocations | per chunk | bytes asked |");
    println!("| --- | --- | --- | ---: | ---: | ---: | ---: |");
    for a in allocs {
        println!(
            "| {} | {} | {} | {} | {} | {:.4} | {} |",
            str_at(&a, "input"),
            str_at(&a, "chunking"),
            str_at(&a, "contender"),
            a["chunks"],
            a["allocs"],
            a["per_chunk"].as_f64().unwrap_or(f64::NAN),
            a["bytes"]
        );
    }
}

/// The Node harness's figures, each next to tokensieve's throughput on the same file.
fn print_node(node: Vec<Value>, table: &Table) {
    if node.is_empty() {
        return;
    }
    println!("\n### Node prior art (@ai-sdk-tool/parser 4.1.26, harness.mjs) on the same files\n");
    println!("Chunk sizes are UTF-16 code units there (the files are nearly all ASCII).\n");
    println!(
        "| file | protocol | feed | chunk | ns/chunk | MB/s | tool calls | tokensieve / Node |"
    );
    println!("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |");
    for n in node {
        print_node_row(&n, table);
    }
}

fn print_node_row(n: &Value, table: &Table) {
    let file = str_at(n, "file");
    if let Some(t) = n["timedOutSeconds"].as_u64() {
        println!(
            "| {file} | {} | {} | {} | – | did not finish in {t} s | – | – |",
            str_at(n, "protocol"),
            str_at(n, "feed"),
            n["chunkBytes"]
        );
        return;
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
        str_at(n, "protocol"),
        str_at(n, "feed"),
        n["chunkBytes"],
        fmt_ns(n["nsPerChunk"].as_f64().unwrap_or(f64::NAN)),
        fmt_mbps(mbps),
        n["toolCalls"]
    );
}

/// The peers' output differences (diff-peers), in full.
fn print_differences(diff: Vec<Value>) {
    if diff.is_empty() {
        return;
    }
    println!("\n### Do the peers see what tokensieve sees? (mixed transcripts)\n");
    println!(
        "| peer | input | chunking | calls ours / theirs / equal | visible text bytes ours / theirs | thinking bytes ours / theirs | text equal |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for d in diff {
        print_difference_row(&d);
    }
}

fn print_difference_row(d: &Value) {
    if d.get("note").is_some() {
        println!(
            "| {} | {} | – | {} | | | |",
            str_at(d, "peer"),
            str_at(d, "input"),
            str_at(d, "note")
        );
        return;
    }
    println!(
        "| {} | {} | {} | {} / {} / {} | {} / {} | {} / {} | {} |",
        str_at(d, "peer"),
        str_at(d, "input"),
        str_at(d, "chunking"),
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
