//! (feature `compare`) The Rust peers from crates.io, fed the same files in `&str` pieces.
//!
//! * `tool-parser` 1.10 (SGLang's, `smg-project`): `QwenParser` reads hermes-style
//!   `<tool_call>\n{json}\n</tool_call>`, `QwenXmlParser` reads qwen3-coder. Neither reads
//!   `<think>` (that is a separate crate): thinking stays in `normal_text`.
//! * `dynamo-parsers-v2` 0.9.6 (NVIDIA Dynamo): the unified `qwen3` family reads
//!   qwen3-coder tool calls and `<think>` in one state machine. It has no hermes family.
//!
//! Each runner consumes every output item (sums the lengths of texts and argument
//! fragments into a [`Tally`]) exactly as the tokensieve runner does.

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use serde_json::Value;
use tokensieve::Dialect;

use crate::{Outcome, Tally, for_each_char_chunk, tools_json};

/// A peer and the dialect (of ours) whose files it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peer {
    /// `tool_parser::QwenParser` on hermes files.
    SglangQwen,
    /// `tool_parser::parsers::QwenXmlParser` on qwen3-coder files.
    SglangQwenXml,
    /// `dynamo_parsers_v2` unified `qwen3` on qwen3-coder files (with `<think>`).
    DynamoQwen3,
}

impl Peer {
    /// Every peer.
    pub const ALL: [Peer; 3] = [Peer::SglangQwen, Peer::SglangQwenXml, Peer::DynamoQwen3];

    /// A short name for tables and criterion ids.
    pub fn name(self) -> &'static str {
        match self {
            Peer::SglangQwen => "tool-parser-qwen",
            Peer::SglangQwenXml => "tool-parser-qwen-xml",
            Peer::DynamoQwen3 => "dynamo-qwen3",
        }
    }

    /// The dialect of the files it reads.
    pub fn dialect(self) -> Dialect {
        match self {
            Peer::SglangQwen => Dialect::Hermes,
            Peer::SglangQwenXml | Peer::DynamoQwen3 => Dialect::Qwen3Coder,
        }
    }

    /// The peers that read files of dialect `d`.
    pub fn for_dialect(d: Dialect) -> impl Iterator<Item = Peer> {
        Peer::ALL.into_iter().filter(move |p| p.dialect() == d)
    }

    /// Feeds `text` in pieces of about `chunk` bytes (at char boundaries), then finishes.
    pub fn run(self, text: &str, chunk: usize) -> Tally {
        let mut t = Tally::default();
        match self {
            Peer::SglangQwen => sglang(
                tool_parser::QwenParser::new(),
                text,
                chunk,
                &mut t,
                &mut |_, _| {},
            ),
            Peer::SglangQwenXml => sglang(
                tool_parser::parsers::QwenXmlParser::new(),
                text,
                chunk,
                &mut t,
                &mut |_, _| {},
            ),
            Peer::DynamoQwen3 => dynamo(text, chunk, &mut t, &mut |_| {}),
        }
        black_box(t)
    }

    /// What the peer makes of `text`, in the terms of [`Outcome`] (text, thinking, calls).
    pub fn outcome(self, text: &str, chunk: usize) -> Outcome {
        let mut o = Outcome::default();
        let mut t = Tally::default();
        match self {
            Peer::SglangQwen | Peer::SglangQwenXml => {
                let mut calls: Vec<(String, String)> = Vec::new();
                let mut see = |normal: &str, items: &[tool_parser::types::ToolCallItem]| {
                    o.text.push_str(normal);
                    for it in items {
                        while calls.len() <= it.tool_index {
                            calls.push(Default::default());
                        }
                        if let Some(n) = &it.name {
                            calls[it.tool_index].0.push_str(n);
                        }
                        calls[it.tool_index].1.push_str(&it.parameters);
                    }
                };
                if self == Peer::SglangQwen {
                    sglang(
                        tool_parser::QwenParser::new(),
                        text,
                        chunk,
                        &mut t,
                        &mut see,
                    );
                } else {
                    sglang(
                        tool_parser::parsers::QwenXmlParser::new(),
                        text,
                        chunk,
                        &mut t,
                        &mut see,
                    );
                }
                o.calls = calls
                    .into_iter()
                    .map(|(n, a)| (n, serde_json::from_str(&a).unwrap_or(Value::Null)))
                    .collect();
            }
            Peer::DynamoQwen3 => {
                let mut calls: Vec<(String, String)> = Vec::new();
                let mut see = |ev: &dynamo_parsers_v2::UnifiedParserEvent| {
                    use dynamo_parsers_v2::UnifiedParserEvent as E;
                    match ev {
                        E::Text(s) => o.text.push_str(s),
                        E::Reasoning(s) => o.thinking.push_str(s),
                        E::ToolCall(d) => {
                            while calls.len() <= d.tool_index {
                                calls.push(Default::default());
                            }
                            if let Some(n) = &d.name {
                                calls[d.tool_index].0.push_str(n);
                            }
                            calls[d.tool_index].1.push_str(&d.arguments);
                        }
                        _ => {}
                    }
                };
                dynamo(text, chunk, &mut t, &mut see);
                o.calls = calls
                    .into_iter()
                    .map(|(n, a)| (n, serde_json::from_str(&a).unwrap_or(Value::Null)))
                    .collect();
            }
        }
        o
    }
}

/// Runs a future that never waits (the peers' `async fn`s do no I/O) to completion.
fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

fn sglang_tools() -> Vec<openai_protocol::common::Tool> {
    tools_json()
        .as_array()
        .expect("array")
        .iter()
        .map(|t| {
            serde_json::from_value(serde_json::json!({"type": "function", "function": {
                "name": t["name"], "parameters": t["schema"]}}))
            .expect("an OpenAI tool")
        })
        .collect()
}

fn sglang<P: tool_parser::ToolParser>(
    mut p: P,
    text: &str,
    chunk: usize,
    t: &mut Tally,
    see: &mut dyn FnMut(&str, &[tool_parser::types::ToolCallItem]),
) {
    let tools = sglang_tools();
    let mut take = |r: tool_parser::StreamingParseResult, t: &mut Tally| {
        t.events += 1 + r.calls.len() as u64;
        t.text_bytes += r.normal_text.len() as u64;
        for c in &r.calls {
            t.text_bytes +=
                c.parameters.len() as u64 + c.name.as_ref().map_or(0, |n| n.len() as u64);
        }
        see(&r.normal_text, &r.calls);
    };
    for_each_char_chunk(text, chunk, |piece| {
        if let Ok(r) = block_on(p.parse_incremental(piece, &tools)) {
            take(r, t);
        }
    });
    // End of stream: what is still buffered, as the trait documents.
    if let Some(items) = p.get_unstreamed_tool_args() {
        take(
            tool_parser::StreamingParseResult {
                normal_text: String::new(),
                calls: items,
            },
            t,
        );
    }
    let rest = p.take_unstreamed_normal_text();
    take(
        tool_parser::StreamingParseResult {
            normal_text: rest,
            calls: Vec::new(),
        },
        t,
    );
}

fn dynamo(
    text: &str,
    chunk: usize,
    t: &mut Tally,
    see: &mut dyn FnMut(&dynamo_parsers_v2::UnifiedParserEvent),
) {
    use dynamo_parsers_v2::{UnifiedParserEvent as E, UnifiedParserInit, UnifiedParserOutput};
    let tools: Vec<dynamo_parsers_v2::Tool> = tools_json()
        .as_array()
        .expect("array")
        .iter()
        .map(|t| dynamo_parsers_v2::Tool {
            name: t["name"].as_str().unwrap_or_default().into(),
            description: None,
            parameters: t["schema"].clone(),
            strict: None,
        })
        .collect();
    let mut p = dynamo_parsers_v2::create_unified_parser_for_family("qwen3", &tools)
        .expect("the qwen3 family");
    p.initialize_request(UnifiedParserInit::default())
        .expect("initialise");
    let mut take = |out: &mut UnifiedParserOutput, t: &mut Tally| {
        for ev in &out.events {
            t.events += 1;
            t.text_bytes += match ev {
                E::Text(s) | E::Reasoning(s) => s.len() as u64,
                E::ToolCall(d) => d.arguments.len() as u64,
                _ => 0,
            };
            see(ev);
        }
        out.events.clear();
    };
    let mut out = UnifiedParserOutput::default();
    for_each_char_chunk(text, chunk, |piece| {
        if p.parse_into(piece, &mut out).is_ok() {
            take(&mut out, t);
        }
    });
    if let Ok(mut tail) = p.finish() {
        take(&mut tail, t);
    }
}
