//! (feature `compare`) The Rust peers from crates.io, fed the same files in `&str` pieces.
//!
//! * `tool-parser` 1.10 (SGLang's, `smg-project`): `QwenParser` reads hermes-style
//!   `<tool_call>\n{json}\n</tool_call>`, `QwenXmlParser` reads qwen3-coder; for the issue 15
//!   formats `MinimaxM2Parser`, `Glm4MoeParser` (`glm45()` and `glm47()`), `KimiK2Parser`,
//!   `DeepSeek31Parser`, `DeepSeekParser` (V3), `MistralParser`, `LlamaParser` (JSON) and
//!   `PythonicParser`. For the issue 24 families: `DeepSeekDsmlParser` (`v32()`,
//!   `v4()`), `KimiK3Parser`, `MinimaxM3Parser`, `Gemma4Parser`, `CohereParser`, `HyV4Parser`
//!   (Hunyuan), `Step3Parser`, `InklingParser` and `JsonParser` (bare JSON, on xlam files); it
//!   has none for seed-oss, olmo-3, lfm2, apertus, granite, phi-4-mini, minicpm5 or
//!   functiongemma. None reads `<think>` (that is a separate crate): thinking stays in
//!   `normal_text`. It has no harmony (gpt-oss) parser.
//! * `dynamo-parsers-v2` 0.9.6 (NVIDIA Dynamo): the unified families `qwen3`, `glm47`,
//!   and `kimi_k2` read tool calls and reasoning in one state machine; `minimax_m2` exists
//!   only as a tool-call parser. Its `harmony` family is not driven here: it loads the
//!   tokenizer's vocabulary (openai-harmony downloads it) and fails offline. It has no hermes,
//!   DeepSeek V3/V3.1, Mistral, Llama or pythonic family.
//!   For the issue 24 families it has the unified `deepseek_v4`, `kimi_k3`, `minimax_m3` and
//!   `gemma4` (none of the others).
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
    /// `tool_parser::MinimaxM2Parser` on minimax-m2 files.
    SglangMinimaxM2,
    /// `tool_parser::Glm4MoeParser::glm45()` on glm-4.5 files.
    SglangGlm45,
    /// `tool_parser::Glm4MoeParser::glm47()` (the 4.7 form, no newlines) on glm-4.5 files.
    SglangGlm47,
    /// `tool_parser::KimiK2Parser` on kimi-k2 files.
    SglangKimiK2,
    /// `tool_parser::DeepSeek31Parser` on deepseek-v3.1 files.
    SglangDeepSeek31,
    /// `tool_parser::DeepSeekParser` (V3) on deepseek-v3 files.
    SglangDeepSeek,
    /// `tool_parser::MistralParser` on mistral files.
    SglangMistral,
    /// `tool_parser::LlamaParser` on llama3-json files.
    SglangLlama,
    /// `tool_parser::PythonicParser` on pythonic files.
    SglangPythonic,
    /// `dynamo_parsers_v2` tool-only `minimax_m2` parser on minimax-m2 files (no unified
    /// family: `<think>` stays in its text).
    DynamoMinimaxM2,
    /// `dynamo_parsers_v2` unified `glm47` on glm-4.5 files (with `<think>`).
    DynamoGlm47,
    /// `dynamo_parsers_v2` unified `kimi_k2` on kimi-k2 files (with `<think>`).
    DynamoKimiK2,
    /// `tool_parser::DeepSeekDsmlParser::v32()` on deepseek-v3.2 files.
    SglangDeepSeekV32,
    /// `tool_parser::DeepSeekDsmlParser::v4()` on deepseek-v4 files.
    SglangDeepSeekV4,
    /// `dynamo_parsers_v2` unified `deepseek_v4` on deepseek-v4 files (with `<think>`).
    DynamoDeepSeekV4,
    /// `tool_parser::KimiK3Parser` on kimi-k3 files.
    SglangKimiK3,
    /// `dynamo_parsers_v2` unified `kimi_k3` on kimi-k3 files.
    DynamoKimiK3,
    /// `tool_parser::MinimaxM3Parser` on minimax-m3 files.
    SglangMinimaxM3,
    /// `dynamo_parsers_v2` unified `minimax_m3` on minimax-m3 files.
    DynamoMinimaxM3,
    /// `tool_parser::Gemma4Parser` on gemma-4 files.
    SglangGemma4,
    /// `dynamo_parsers_v2` unified `gemma4` on gemma-4 files.
    DynamoGemma4,
    /// `tool_parser::CohereParser` on cohere-command files.
    SglangCohere,
    /// `tool_parser::HyV4Parser` (Hunyuan v4) on hunyuan files.
    SglangHyV4,
    /// `tool_parser::Step3Parser` on step-3 files.
    SglangStep3,
    /// `tool_parser::InklingParser` on inkling files.
    SglangInkling,
    /// `tool_parser::JsonParser` (bare JSON calls) on xlam files.
    SglangJsonXlam,
}

/// How a peer is built and driven.
enum Engine {
    /// A `tool_parser::ToolParser` (async, `parse_incremental`).
    Sglang(fn() -> Box<dyn tool_parser::ToolParser>),
    /// A `dynamo_parsers_v2` unified parser of this family (`parse_into`).
    DynamoUnified(&'static str),
    /// A `dynamo_parsers_v2` tool-only parser of this family (`push`).
    DynamoTool(&'static str),
}

impl Peer {
    /// Every peer.
    pub const ALL: [Peer; 29] = [
        Peer::SglangQwen,
        Peer::SglangQwenXml,
        Peer::DynamoQwen3,
        Peer::SglangMinimaxM2,
        Peer::DynamoMinimaxM2,
        Peer::SglangGlm45,
        Peer::SglangGlm47,
        Peer::DynamoGlm47,
        Peer::SglangKimiK2,
        Peer::DynamoKimiK2,
        Peer::SglangDeepSeek31,
        Peer::SglangDeepSeek,
        Peer::SglangMistral,
        Peer::SglangLlama,
        Peer::SglangPythonic,
        Peer::SglangDeepSeekV32,
        Peer::SglangDeepSeekV4,
        Peer::DynamoDeepSeekV4,
        Peer::SglangKimiK3,
        Peer::DynamoKimiK3,
        Peer::SglangMinimaxM3,
        Peer::DynamoMinimaxM3,
        Peer::SglangGemma4,
        Peer::DynamoGemma4,
        Peer::SglangCohere,
        Peer::SglangHyV4,
        Peer::SglangStep3,
        Peer::SglangInkling,
        Peer::SglangJsonXlam,
    ];

    /// A short name for tables and criterion ids.
    pub fn name(self) -> &'static str {
        match self {
            Peer::SglangQwen => "tool-parser-qwen",
            Peer::SglangQwenXml => "tool-parser-qwen-xml",
            Peer::DynamoQwen3 => "dynamo-qwen3",
            Peer::SglangMinimaxM2 => "tool-parser-minimax-m2",
            Peer::SglangGlm45 => "tool-parser-glm45",
            Peer::SglangGlm47 => "tool-parser-glm47",
            Peer::SglangKimiK2 => "tool-parser-kimik2",
            Peer::SglangDeepSeek31 => "tool-parser-deepseek31",
            Peer::SglangDeepSeek => "tool-parser-deepseek",
            Peer::SglangMistral => "tool-parser-mistral",
            Peer::SglangLlama => "tool-parser-llama",
            Peer::SglangPythonic => "tool-parser-pythonic",
            Peer::DynamoMinimaxM2 => "dynamo-minimax-m2",
            Peer::DynamoGlm47 => "dynamo-glm47",
            Peer::DynamoKimiK2 => "dynamo-kimi-k2",
            Peer::SglangDeepSeekV32 => "tool-parser-deepseek32",
            Peer::SglangDeepSeekV4 => "tool-parser-deepseek-v4",
            Peer::DynamoDeepSeekV4 => "dynamo-deepseek-v4",
            Peer::SglangKimiK3 => "tool-parser-kimi-k3",
            Peer::DynamoKimiK3 => "dynamo-kimi-k3",
            Peer::SglangMinimaxM3 => "tool-parser-minimax-m3",
            Peer::DynamoMinimaxM3 => "dynamo-minimax-m3",
            Peer::SglangGemma4 => "tool-parser-gemma4",
            Peer::DynamoGemma4 => "dynamo-gemma4",
            Peer::SglangCohere => "tool-parser-cohere",
            Peer::SglangHyV4 => "tool-parser-hy-v4",
            Peer::SglangStep3 => "tool-parser-step3",
            Peer::SglangInkling => "tool-parser-inkling",
            Peer::SglangJsonXlam => "tool-parser-json",
        }
    }

    /// A peer by its [`name`](Peer::name).
    pub fn from_name(name: &str) -> Option<Peer> {
        Peer::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The dialect of the files it reads.
    pub fn dialect(self) -> Dialect {
        match self {
            Peer::SglangQwen => Dialect::Hermes,
            Peer::SglangQwenXml | Peer::DynamoQwen3 => Dialect::Qwen3Coder,
            Peer::SglangMinimaxM2 | Peer::DynamoMinimaxM2 => Dialect::MinimaxM2,
            Peer::SglangGlm45 | Peer::SglangGlm47 | Peer::DynamoGlm47 => Dialect::Glm45,
            Peer::SglangKimiK2 | Peer::DynamoKimiK2 => Dialect::KimiK2,
            Peer::SglangDeepSeek31 => Dialect::DeepSeekV31,
            Peer::SglangDeepSeek => Dialect::DeepSeekV3,
            Peer::SglangMistral => Dialect::Mistral,
            Peer::SglangLlama => Dialect::Llama3Json,
            Peer::SglangPythonic => Dialect::Pythonic,
            Peer::SglangDeepSeekV32 => Dialect::DeepSeekV32,
            Peer::SglangDeepSeekV4 => Dialect::DeepSeekV4,
            Peer::DynamoDeepSeekV4 => Dialect::DeepSeekV4,
            Peer::SglangKimiK3 => Dialect::KimiK3,
            Peer::DynamoKimiK3 => Dialect::KimiK3,
            Peer::SglangMinimaxM3 => Dialect::MinimaxM3,
            Peer::DynamoMinimaxM3 => Dialect::MinimaxM3,
            Peer::SglangGemma4 => Dialect::Gemma4,
            Peer::DynamoGemma4 => Dialect::Gemma4,
            Peer::SglangCohere => Dialect::CohereCommand,
            Peer::SglangHyV4 => Dialect::Hunyuan,
            Peer::SglangStep3 => Dialect::Step3,
            Peer::SglangInkling => Dialect::Inkling,
            Peer::SglangJsonXlam => Dialect::Xlam,
        }
    }

    fn engine(self) -> Engine {
        use tool_parser::ToolParser as P;
        fn b<T: P + 'static>(p: T) -> Box<dyn P> {
            Box::new(p)
        }
        match self {
            Peer::SglangQwen => Engine::Sglang(|| b(tool_parser::QwenParser::new())),
            Peer::SglangQwenXml => Engine::Sglang(|| b(tool_parser::parsers::QwenXmlParser::new())),
            Peer::SglangMinimaxM2 => Engine::Sglang(|| b(tool_parser::MinimaxM2Parser::new())),
            Peer::SglangGlm45 => Engine::Sglang(|| b(tool_parser::Glm4MoeParser::glm45())),
            Peer::SglangGlm47 => Engine::Sglang(|| b(tool_parser::Glm4MoeParser::glm47())),
            Peer::SglangKimiK2 => Engine::Sglang(|| b(tool_parser::KimiK2Parser::new())),
            Peer::SglangDeepSeek31 => Engine::Sglang(|| b(tool_parser::DeepSeek31Parser::new())),
            Peer::SglangDeepSeek => Engine::Sglang(|| b(tool_parser::DeepSeekParser::new())),
            Peer::SglangMistral => Engine::Sglang(|| b(tool_parser::MistralParser::new())),
            Peer::SglangLlama => Engine::Sglang(|| b(tool_parser::LlamaParser::new())),
            Peer::SglangPythonic => Engine::Sglang(|| b(tool_parser::PythonicParser::new())),
            Peer::DynamoQwen3 => Engine::DynamoUnified("qwen3"),
            Peer::DynamoGlm47 => Engine::DynamoUnified("glm47"),
            Peer::DynamoKimiK2 => Engine::DynamoUnified("kimi_k2"),
            Peer::DynamoMinimaxM2 => Engine::DynamoTool("minimax_m2"),
            Peer::SglangDeepSeekV32 => {
                Engine::Sglang(|| b(tool_parser::parsers::DeepSeekDsmlParser::v32()))
            }
            Peer::SglangDeepSeekV4 => {
                Engine::Sglang(|| b(tool_parser::parsers::DeepSeekDsmlParser::v4()))
            }
            Peer::DynamoDeepSeekV4 => Engine::DynamoUnified("deepseek_v4"),
            Peer::SglangKimiK3 => Engine::Sglang(|| b(tool_parser::parsers::KimiK3Parser::new())),
            Peer::DynamoKimiK3 => Engine::DynamoUnified("kimi_k3"),
            Peer::SglangMinimaxM3 => {
                Engine::Sglang(|| b(tool_parser::parsers::MinimaxM3Parser::new()))
            }
            Peer::DynamoMinimaxM3 => Engine::DynamoUnified("minimax_m3"),
            Peer::SglangGemma4 => Engine::Sglang(|| b(tool_parser::parsers::Gemma4Parser::new())),
            Peer::DynamoGemma4 => Engine::DynamoUnified("gemma4"),
            Peer::SglangCohere => Engine::Sglang(|| b(tool_parser::parsers::CohereParser::new())),
            Peer::SglangHyV4 => Engine::Sglang(|| b(tool_parser::parsers::HyV4Parser::new())),
            Peer::SglangStep3 => Engine::Sglang(|| b(tool_parser::parsers::Step3Parser::new())),
            Peer::SglangInkling => Engine::Sglang(|| b(tool_parser::parsers::InklingParser::new())),
            Peer::SglangJsonXlam => Engine::Sglang(|| b(tool_parser::parsers::JsonParser::new())),
        }
    }

    /// The peers that read files of dialect `d`.
    pub fn for_dialect(d: Dialect) -> impl Iterator<Item = Peer> {
        Peer::ALL.into_iter().filter(move |p| p.dialect() == d)
    }

    /// Feeds `text` in pieces of about `chunk` bytes (at char boundaries), then finishes.
    pub fn run(self, text: &str, chunk: usize) -> Tally {
        let mut t = Tally::default();
        match self.engine() {
            Engine::Sglang(make) => sglang(make(), text, chunk, &mut t, &mut |_, _| {}),
            Engine::DynamoUnified(family) => dynamo(family, text, chunk, &mut t, &mut |_| {}),
            Engine::DynamoTool(family) => dynamo_tool(family, text, chunk, &mut t, &mut |_, _| {}),
        }
        black_box(t)
    }

    /// What the peer makes of `text`, in the terms of [`Outcome`] (text, thinking, calls).
    pub fn outcome(self, text: &str, chunk: usize) -> Outcome {
        let mut o = Outcome::default();
        let mut t = Tally::default();
        let mut calls: Vec<(String, String)> = Vec::new();
        let add = |calls: &mut Vec<(String, String)>, i: usize, name: Option<&str>, args: &str| {
            while calls.len() <= i {
                calls.push(Default::default());
            }
            if let Some(n) = name {
                calls[i].0.push_str(n);
            }
            calls[i].1.push_str(args);
        };
        match self.engine() {
            Engine::Sglang(make) => {
                let mut see = |normal: &str, items: &[tool_parser::types::ToolCallItem]| {
                    o.text.push_str(normal);
                    for it in items {
                        add(
                            &mut calls,
                            it.tool_index,
                            it.name.as_deref(),
                            &it.parameters,
                        );
                    }
                };
                sglang(make(), text, chunk, &mut t, &mut see);
            }
            Engine::DynamoUnified(family) => {
                let mut see = |ev: &dynamo_parsers_v2::UnifiedParserEvent| {
                    use dynamo_parsers_v2::UnifiedParserEvent as E;
                    match ev {
                        E::Text(s) => o.text.push_str(s),
                        E::Reasoning(s) => o.thinking.push_str(s),
                        E::ToolCall(d) => {
                            add(&mut calls, d.tool_index, d.name.as_deref(), &d.arguments)
                        }
                        _ => {}
                    }
                };
                dynamo(family, text, chunk, &mut t, &mut see);
            }
            Engine::DynamoTool(family) => {
                let mut see = |normal: &str, items: &[dynamo_parsers_v2::ToolCallDelta]| {
                    o.text.push_str(normal);
                    for d in items {
                        add(&mut calls, d.tool_index, d.name.as_deref(), &d.arguments);
                    }
                };
                dynamo_tool(family, text, chunk, &mut t, &mut see);
            }
        }
        o.calls = calls
            .into_iter()
            .map(|(n, a)| (n, serde_json::from_str(&a).unwrap_or(Value::Null)))
            .collect();
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

fn sglang(
    mut p: Box<dyn tool_parser::ToolParser>,
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
    // `PythonicParser` panics on some non-ASCII input (it slices inside a character): the
    // stream is lost from there, so the runner stops feeding (and the bench goes on).
    let mut panicked = false;
    for_each_char_chunk(text, chunk, |piece| {
        if panicked {
            return;
        }
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            block_on(p.parse_incremental(piece, &tools))
        }));
        match r {
            Ok(Ok(r)) => take(r, t),
            Ok(Err(_)) => {}
            Err(_) => panicked = true,
        }
    });
    if panicked {
        t.events += 1;
        return;
    }
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

fn dynamo_tools() -> Vec<dynamo_parsers_v2::Tool> {
    tools_json()
        .as_array()
        .expect("array")
        .iter()
        .map(|t| dynamo_parsers_v2::Tool {
            name: t["name"].as_str().unwrap_or_default().into(),
            description: None,
            parameters: t["schema"].clone(),
            strict: None,
        })
        .collect()
}

fn dynamo(
    family: &str,
    text: &str,
    chunk: usize,
    t: &mut Tally,
    see: &mut dyn FnMut(&dynamo_parsers_v2::UnifiedParserEvent),
) {
    use dynamo_parsers_v2::{UnifiedParserEvent as E, UnifiedParserInit, UnifiedParserOutput};
    let tools = dynamo_tools();
    let mut p = dynamo_parsers_v2::create_unified_parser_for_family(family, &tools)
        .expect("a unified family");
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

fn dynamo_tool(
    family: &str,
    text: &str,
    chunk: usize,
    t: &mut Tally,
    see: &mut dyn FnMut(&str, &[dynamo_parsers_v2::ToolCallDelta]),
) {
    let tools = dynamo_tools();
    let mut p =
        dynamo_parsers_v2::create_tool_parser_for_family(family, &tools).expect("a tool family");
    let mut take = |r: dynamo_parsers_v2::ToolParseResult, t: &mut Tally| {
        t.events += 1 + r.calls.len() as u64;
        t.text_bytes += r.normal_text.len() as u64;
        for c in &r.calls {
            t.text_bytes +=
                c.arguments.len() as u64 + c.name.as_ref().map_or(0, |n| n.len() as u64);
        }
        see(&r.normal_text, &r.calls);
    };
    for_each_char_chunk(text, chunk, |piece| {
        if let Ok(r) = p.push(piece) {
            take(r, t);
        }
    });
    if let Ok(r) = p.finish() {
        take(r, t);
    }
}
