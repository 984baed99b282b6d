//! Shared test support: run inputs through the parser at any chunking, coalesce events,
//! check the event model's invariants, and compare with conformance vectors.
#![allow(dead_code)]

pub mod provider;

use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use tokensieve::accumulate::{Collector, OwnedEvent};
use tokensieve::{ConfigBuf, Event, Sieve};

/// Runs `input` through a parser built from `config`, fed in the given piece lengths
/// (cycled), and returns the events as JSON values (uncoalesced).
pub fn run(
    config: &ConfigBuf,
    prefill: Option<&[u8]>,
    input: &[u8],
    sizes: &[usize],
) -> Vec<Value> {
    let mut sieve = Sieve::from_config_buf(config.clone()).expect("config validates");
    if let Some(p) = prefill {
        sieve.prefill(p).expect("a prefill on a fresh parser");
    }
    let mut collector = Collector::new();
    let mut out = Vec::new();
    feed(&mut sieve, input, sizes, |ev| {
        out.push(to_value(&collector.push(&ev)))
    });
    out
}

/// Feeds `input` to `sieve` in pieces of the given lengths (cycled), finishes it, and calls
/// `on` with every event, without keeping any (large inputs stream through).
pub fn feed(sieve: &mut Sieve<'_>, input: &[u8], sizes: &[usize], mut on: impl FnMut(Event<'_>)) {
    let mut at = 0;
    let mut k = 0;
    while at < input.len() {
        let n = sizes[k % sizes.len()].max(1);
        k += 1;
        let mut piece = &input[at..(at + n).min(input.len())];
        at += piece.len();
        while let Some(ev) = sieve.next(&mut piece) {
            on(ev);
        }
        assert!(
            piece.is_empty() || sieve.is_done(),
            "next() returned None with input left"
        );
    }
    sieve.finish();
    while let Some(ev) = sieve.next(&mut &b""[..]) {
        on(ev);
    }
}

pub fn to_value(ev: &OwnedEvent) -> Value {
    json_lenient(&ev.to_json()).expect("to_json writes valid JSON")
}

/// Parses JSON that may hold lone-surrogate escapes (`"\uD800"`: valid JSON text, which
/// tokensieve keeps as written, but rejected by serde_json): each lone one is read as the
/// literal text `\uD800`. Expected vectors and actual events go through the same reading.
pub fn json_lenient(text: &str) -> serde_json::Result<Value> {
    match serde_json::from_str(text) {
        Ok(v) => Ok(v),
        Err(e) => {
            let fixed = escape_lone_surrogates(text);
            if fixed == text {
                return Err(e);
            }
            serde_json::from_str(&fixed)
        }
    }
}

fn escape_lone_surrogates(text: &str) -> String {
    let b = text.as_bytes();
    let hex = |i: usize| -> Option<u16> {
        let h = text.get(i..i + 4)?;
        u16::from_str_radix(h, 16).ok()
    };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut last = 0;
    while i + 1 < b.len() {
        if b[i] == b'\\' && b[i + 1] == b'\\' {
            i += 2;
            continue;
        }
        if b[i] == b'\\' && b[i + 1] == b'u' {
            if let Some(v) = hex(i + 2) {
                let high = (0xD800..0xDC00).contains(&v);
                let low = (0xDC00..0xE000).contains(&v);
                let paired = high
                    && b.get(i + 6) == Some(&b'\\')
                    && b.get(i + 7) == Some(&b'u')
                    && hex(i + 8).is_some_and(|w| (0xDC00..0xE000).contains(&w));
                if paired {
                    i += 12;
                    continue;
                }
                if high || low {
                    out.push_str(&text[last..i]);
                    out.push_str("\\\\");
                    last = i + 1;
                }
                i += 6;
                continue;
            }
        }
        i += 1;
    }
    out.push_str(&text[last..]);
    out
}

/// Merges adjacent chunks whose fields other than `text` are all equal.
pub fn coalesce(events: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for ev in events {
        if ev["event"] == "chunk" {
            if let Some(last) = out.last_mut() {
                if last["event"] == "chunk" && same_but_text(last, &ev) {
                    let t = format!(
                        "{}{}",
                        last["text"].as_str().unwrap(),
                        ev["text"].as_str().unwrap()
                    );
                    last["text"] = Value::String(t);
                    continue;
                }
            }
        }
        out.push(ev);
    }
    out
}

fn same_but_text(a: &Value, b: &Value) -> bool {
    let strip = |v: &Value| {
        let mut m: Map<String, Value> = v.as_object().unwrap().clone();
        m.remove("text");
        m
    };
    strip(a) == strip(b)
}

/// Problems with an event list against the event model (rules 1, 3, 8, 9), [] if none.
pub fn lint(events: &[Value]) -> Vec<String> {
    let mut errs = Vec::new();
    let mut next = 0u64;
    let mut open: Option<OpenBlock> = None;
    let mut stopped = false;
    for (i, ev) in events.iter().enumerate() {
        if stopped {
            errs.push(format!("#{i}: event after stop"));
        }
        match ev["event"].as_str().unwrap_or("") {
            "block_start" => {
                lint_start(i, ev, open.is_some(), next, &mut errs);
                next += 1;
                open = Some(OpenBlock {
                    index: ev["index"].as_u64().unwrap_or(0),
                    ty: ev["type"].as_str().unwrap_or("").into(),
                    chunks: Vec::new(),
                });
            }
            "chunk" => match &mut open {
                None => errs.push(format!("#{i}: chunk outside a block")),
                Some(block) => {
                    lint_chunk(i, ev, block, &mut errs);
                    block.chunks.push(ev.clone());
                }
            },
            "block_complete" => match open.take() {
                None => errs.push(format!("#{i}: completes a block that did not start")),
                Some(block) => lint_complete(i, ev, &block, &mut errs),
            },
            "stop" => {
                if open.is_some() {
                    errs.push(format!("#{i}: block open at stop"));
                }
                stopped = true;
            }
            other => errs.push(format!("#{i}: unknown event {other}")),
        }
    }
    if open.is_some() {
        errs.push("a block never completes".into());
    }
    errs
}

/// The block `lint` is inside: its index and type (from its `block_start`) and its chunks.
struct OpenBlock {
    index: u64,
    ty: String,
    chunks: Vec<Value>,
}

/// `block_start` #`i`: none open, and indices count up from 0 without gaps.
fn lint_start(i: usize, ev: &Value, is_open: bool, next: u64, errs: &mut Vec<String>) {
    if is_open {
        errs.push(format!("#{i}: block_start while a block is open"));
    }
    if ev["index"].as_u64() != Some(next) {
        errs.push(format!("#{i}: index {} expected {next}", ev["index"]));
    }
}

/// `chunk` #`i` inside `block`: of that block, visible exactly for text, not empty, with a
/// part exactly on tool calls.
fn lint_chunk(i: usize, ev: &Value, block: &OpenBlock, errs: &mut Vec<String>) {
    let ty = &block.ty;
    if ev["block"].as_u64() != Some(block.index) || ev["type"].as_str() != Some(ty) {
        errs.push(format!("#{i}: chunk does not match the open block"));
    }
    if ev["visible"].as_bool() != Some(ty == "text") {
        errs.push(format!("#{i}: visible must be true exactly for text"));
    }
    if ev["text"].as_str().is_none_or(str::is_empty) {
        errs.push(format!("#{i}: empty chunk text"));
    }
    if (ty == "tool_call") != ev.get("part").is_some() {
        errs.push(format!("#{i}: part exactly on tool_call chunks"));
    }
}

/// `block_complete` #`i` of `block`: it completes that block, and what it carries (content,
/// or a call's input and name) is what the chunks said.
fn lint_complete(i: usize, ev: &Value, block: &OpenBlock, errs: &mut Vec<String>) {
    let OpenBlock { index, ty, chunks } = block;
    if ev["index"].as_u64() != Some(*index) || ev["type"].as_str() != Some(ty) {
        errs.push(format!("#{i}: does not complete the open block"));
    }
    if ty == "tool_call" {
        lint_tool_call_complete(i, ev, chunks, errs);
    } else if ev["content"].as_str() != Some(&chunk_text(chunks, None)) {
        errs.push(format!("#{i}: content is not the concatenation of chunks"));
    } else if ty != "tool_result" && chunks.is_empty() {
        errs.push(format!("#{i}: empty {ty} block"));
    }
}

/// A tool call's parts come name, id, input; unless it failed, its input is the JSON
/// object its input chunks spell, and its name what its name chunks spell.
fn lint_tool_call_complete(i: usize, ev: &Value, chunks: &[Value], errs: &mut Vec<String>) {
    let order: Vec<u8> = chunks
        .iter()
        .map(|c| match c["part"].as_str() {
            Some("name") => 0,
            Some("id") => 1,
            _ => 2,
        })
        .collect();
    if order.windows(2).any(|w| w[0] > w[1]) {
        errs.push(format!("#{i}: parts out of order"));
    }
    if ev.get("error").is_some() {
        return;
    }
    let input = chunk_text(chunks, Some("input"));
    match json_lenient(&input) {
        Ok(v) if v.is_object() => {
            if Some(&v) != ev.get("input") {
                errs.push(format!("#{i}: input differs from its chunks"));
            }
        }
        _ => errs.push(format!("#{i}: input chunks not an object: {input:?}")),
    }
    if ev["tool_name"].as_str() != Some(&chunk_text(chunks, Some("name"))) {
        errs.push(format!("#{i}: tool_name differs from name chunks"));
    }
}

/// The text of the chunks of one part (`None`: the chunks without a part).
fn chunk_text(chunks: &[Value], part: Option<&str>) -> String {
    chunks
        .iter()
        .filter(|c| c.get("part").and_then(Value::as_str) == part)
        .map(|c| c["text"].as_str().unwrap_or(""))
        .collect()
}

// --- conformance vectors ---------------------------------------------------------------

pub struct Vector {
    pub name: String,
    pub config: Value,
    pub prefill: Option<Vec<u8>>,
    pub input: Vec<u8>,
    pub events: Vec<Value>,
}

pub fn load_dir(dir: &Path) -> Vec<Vector> {
    let mut out = Vec::new();
    let mut files: Vec<PathBuf> = walk(dir);
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let v: Value = json_lenient(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let input = match (v.get("input"), v.get("input_hex")) {
            (Some(Value::String(s)), None) => s.as_bytes().to_vec(),
            (None, Some(Value::String(h))) => (0..h.len() / 2)
                .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).unwrap())
                .collect(),
            _ => panic!("{}: needs exactly one of input/input_hex", f.display()),
        };
        out.push(Vector {
            name: f.strip_prefix(dir).unwrap_or(&f).display().to_string(),
            config: v["config"].clone(),
            prefill: v
                .get("prefill")
                .and_then(Value::as_str)
                .map(|s| s.as_bytes().to_vec()),
            input,
            events: v["events"].as_array().unwrap().clone(),
        });
    }
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else if p.extension().is_some_and(|x| x == "json") {
                out.push(p);
            }
        }
    }
    out
}

const REASONS: &[&str] = &[
    "malformed-body",
    "missing-name",
    "malformed-parameter",
    "unexpected-content",
    "unfinished",
    "too-large",
    "nesting-too-deep",
    "unknown-tool",
];

/// Decodes `\uXXXX` (non-surrogate) and `\/` escapes so failed-call prefixes compare by text.
fn normalise_escapes(s: &str) -> String {
    let mut out = String::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            if b[i + 1] == b'/' {
                out.push('/');
                i += 2;
                continue;
            }
            if b[i + 1] == b'u' && i + 6 <= b.len() {
                if let Ok(cp) = u32::from_str_radix(&s[i + 2..i + 6], 16) {
                    if let Some(c) =
                        char::from_u32(cp).filter(|c| !c.is_control() && *c != '"' && *c != '\\')
                    {
                        out.push(c);
                        i += 6;
                        continue;
                    }
                }
            }
            out.push_str(&s[i..i + 2]);
            i += 2;
            continue;
        }
        let ch = s[i..].chars().next().unwrap();
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// A value's serialisation, keys in their order (`Value`'s `==` ignores key order).
fn in_wire_order(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// No whitespace outside strings.
pub fn is_compact(text: &str) -> bool {
    let (mut in_str, mut esc) = (false, false);
    for c in text.chars() {
        if in_str {
            if esc {
                esc = false;
            } else if c == '\\' {
                esc = true;
            } else if c == '"' {
                in_str = false;
            }
        } else if c == '"' {
            in_str = true;
        } else if c.is_whitespace() {
            return false;
        }
    }
    true
}

/// Compares one actual event with the expected one, per the conformance README's rules.
pub fn event_diff(exp: &Value, act: &Value) -> Option<String> {
    let (eo, ao) = (exp.as_object()?, act.as_object()?);
    let mut ek: Vec<&String> = eo.keys().collect();
    let mut ak: Vec<&String> = ao.keys().collect();
    ek.sort();
    ak.sort();
    if ek != ak {
        return Some(format!("keys differ: expected {ek:?}, got {ak:?}"));
    }
    for (k, ev) in eo {
        let av = &ao[k];
        let ok = match k.as_str() {
            "error" => {
                ev["raw"] == av["raw"]
                    && av["reason"].as_str().is_some_and(|r| REASONS.contains(&r))
            }
            "text" if exp.get("part").and_then(Value::as_str) == Some("input") => {
                let (es, as_) = (ev.as_str().unwrap_or(""), av.as_str().unwrap_or(""));
                match (
                    serde_json::from_str::<Value>(es),
                    serde_json::from_str::<Value>(as_),
                ) {
                    // Key order matters in input text: compare the serialisations.
                    (Ok(x), Ok(y)) => in_wire_order(&x) == in_wire_order(&y) && is_compact(as_),
                    _ => normalise_escapes(es) == normalise_escapes(as_),
                }
            }
            // Value equality: numbers by literal text (arbitrary_precision), key order free.
            _ => ev == av,
        };
        if !ok {
            return Some(format!("field `{k}`: expected {ev}, got {av}"));
        }
    }
    None
}

/// Whether this build parses the vector's dialect.
pub fn supported(v: &Vector) -> bool {
    // A description object (a host-defined dialect) is parsed by a shape every build has.
    v.config["dialect"].is_object()
        || v.config["dialect"]
            .as_str()
            .and_then(tokensieve::Dialect::from_name)
            .is_some_and(tokensieve::Dialect::is_supported)
}

/// Runs a vector at the given chunk size (0 = whole input); None when it passes.
pub fn check_vector(v: &Vector, size: usize) -> Option<String> {
    let config = match ConfigBuf::from_value(&v.config) {
        Ok(c) => c,
        Err(e) => return Some(format!("config rejected: {e}")),
    };
    let n = if size == 0 {
        v.input.len().max(1)
    } else {
        size
    };
    let actual = coalesce(run(&config, v.prefill.as_deref(), &v.input, &[n]));
    for (i, exp) in v.events.iter().enumerate() {
        let Some(act) = actual.get(i) else {
            return Some(format!("event #{i} missing: expected {exp}"));
        };
        if let Some(d) = event_diff(exp, act) {
            return Some(format!(
                "event #{i}: {d}\n  expected {exp}\n  actual   {act}"
            ));
        }
    }
    if actual.len() > v.events.len() {
        return Some(format!(
            "extra event #{}: {}",
            v.events.len(),
            actual[v.events.len()]
        ));
    }
    None
}

/// For inputs made of one call whose closer the end of input may cut (docs/design.md,
/// Clarifications, "Tool calls"): the call's completion, which must be the only tool_call
/// and carry no error, and the text that follows it (its text blocks, concatenated), with the
/// depth of each of them.
pub fn one_call_then_text(events: &[Value]) -> Result<(Value, String, Vec<u64>), String> {
    let calls: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "block_complete" && e["type"] == "tool_call")
        .collect();
    let [call] = calls[..] else {
        return Err(format!("{} calls", calls.len()));
    };
    if call.get("error").is_some() {
        return Err(format!("the call failed: {call}"));
    }
    let after = call["index"].as_u64().unwrap_or(0);
    let mut text = String::new();
    let mut depths = Vec::new();
    for e in events {
        if e["event"] == "chunk" && e["block"].as_u64() > Some(after) {
            if e["type"] != "text" {
                return Err(format!("not text after the call: {e}"));
            }
            text.push_str(e["text"].as_str().unwrap_or(""));
            depths.extend(e["depth"].as_u64());
        }
    }
    Ok((call.clone(), text, depths))
}
