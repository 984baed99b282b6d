#![cfg(feature = "alloc")]
//! Rule 4 for the provider decoders, proptested over generated streams: bodies built from
//! realistic and damaged events of each format (text with escapes and multibyte
//! characters, tool-call fragments in any order, thinking, usage, errors, comments, CRLF, broken
//! JSON), split at random, give the same coalesced events as the whole body; the event model
//! holds (blocks never interleave and complete in order, indices count up, a finish ends the
//! stream), with and without the hermes text dialect (openai-chat, openai-responses,
//! anthropic, gemini as SSE and as a JSON array, bedrock, ollama's NDJSON). Every provider this build decodes and that has atoms here is covered.

mod support;

use proptest::prelude::*;
use support::provider::coalesce;
use tokensieve::accumulate::OwnedEvent;
use tokensieve::provider::{DecoderConfig, Provider};

/// Pieces of text worth splitting inside: escapes, multibyte characters, tags a text dialect
/// reads, quotes.
const TEXTS: &[&str] = &[
    "Hello",
    " wor",
    "ld\\n",
    "caf\\u00e9 ",
    "\\ud83c\\udf0d",
    "日本",
    "\\\"q\\\"",
    "<think>",
    "</think>",
    "<tool_call>{\\\"name\\\": \\\"f\\\", \\\"arguments\\\": {}}</tool_call>",
    "",
    "\\\\",
    "A longer delta, as a model writes when a server batches its tokens: several words, \
     punctuation, \\u00e9, and enough bytes that one delta fills more than a read or a \
     buffer of a few hundred bytes would hold, so that every path which copies text in \
     bounded steps is crossed more than once before the delta ends. Then a little more.",
];

fn text(i: usize) -> &'static str {
    TEXTS[i % TEXTS.len()]
}

/// One OpenAI Chat Completions event (an SSE block) from a choice of shapes.
fn openai_atom(kind: usize, a: usize, b: usize) -> String {
    let data = |json: String| format!("data: {json}\n\n");
    match kind % 16 {
        0..=3 => data(format!(
            "{{\"id\":\"c1\",\"choices\":[{{\"index\":{},\"delta\":{{\"content\":\"{}\"}}}}]}}",
            a % 2,
            text(b)
        )),
        4 => data(format!(
            "{{\"choices\":[{{\"delta\":{{\"reasoning_content\":\"{}\"}}}}]}}",
            text(b)
        )),
        5 => data(format!(
            "{{\"choices\":[{{\"delta\":{{\"tool_calls\":[{{\"index\":{},\"id\":\"call_{}\",\"function\":{{\"name\":\"f{}\",\"arguments\":\"\"}}}}]}}}}]}}",
            a % 3,
            a % 3,
            b % 2
        )),
        6 => data(format!(
            "{{\"choices\":[{{\"delta\":{{\"tool_calls\":[{{\"index\":{},\"function\":{{\"arguments\":\"{}\"}}}}]}}}}]}}",
            a % 3,
            ["{\\\"a\\\":", " 1", "}", "[", "\\\"x\\\"", ",\\\"b\\\":2}"][b % 6]
        )),
        // Proxies: arguments before the name, index last.
        7 => data(format!(
            "{{\"choices\":[{{\"delta\":{{\"tool_calls\":[{{\"function\":{{\"arguments\":\"{{}}\",\"name\":\"g\"}},\"id\":\"p{}\",\"index\":{}}}]}}}}]}}",
            b % 4,
            a % 3
        )),
        8 => data(format!(
            "{{\"choices\":[{{\"index\":{},\"delta\":{{}},\"finish_reason\":\"{}\"}}]}}",
            a % 2,
            ["stop", "length", "tool_calls", "", "error"][b % 5]
        )),
        9 => {
            data("{\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":7}}".into())
        }
        10 => ": keep-alive\n\n".into(),
        11 => "event: error\ndata: {\"error\":{\"message\":\"overloaded\",\"code\":\"busy\"}}\n\n"
            .into(),
        12 => data("{\"choices\":[{\"delta\":{\"content\":\"broken".into()),
        13 => format!(
            "data: {{\"choices\":[{{\"delta\":\r\ndata: {{\"content\":\"{}\"}}}}]}}\r\n\r\n",
            text(b)
        ),
        14 => data(format!(
            "{{\"choices\":[{{\"delta\":{{\"refusal\":\"{}\"}}}}]}}",
            text(b)
        )),
        _ => "data: [DONE]\n\n".into(),
    }
}

/// One Anthropic Messages event from a choice of shapes.
fn anthropic_atom(kind: usize, a: usize, b: usize) -> String {
    let ev = |name: &str, json: String| format!("event: {name}\ndata: {json}\n\n");
    let i = a % 4;
    match kind % 14 {
        0 => ev("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"model\":\"claude\",\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}".into()),
        1 => ev("content_block_start", format!("{{\"type\":\"content_block_start\",\"index\":{i},\"content_block\":{{\"type\":\"text\",\"text\":\"\"}}}}")),
        2..=4 => ev("content_block_delta", format!("{{\"type\":\"content_block_delta\",\"index\":{i},\"delta\":{{\"type\":\"text_delta\",\"text\":\"{}\"}}}}", text(b))),
        5 => ev("content_block_start", format!("{{\"type\":\"content_block_start\",\"index\":{i},\"content_block\":{{\"type\":\"thinking\",\"thinking\":\"\"}}}}")),
        6 => ev("content_block_delta", format!("{{\"type\":\"content_block_delta\",\"index\":{i},\"delta\":{{\"type\":\"thinking_delta\",\"thinking\":\"{}\"}}}}", text(b))),
        7 => ev("content_block_delta", format!("{{\"type\":\"content_block_delta\",\"index\":{i},\"delta\":{{\"type\":\"signature_delta\",\"signature\":\"sig{b}\"}}}}")),
        8 => ev("content_block_start", format!("{{\"type\":\"content_block_start\",\"index\":{i},\"content_block\":{{\"type\":\"tool_use\",\"id\":\"toolu_{b}\",\"name\":\"f\",\"input\":{{}}}}}}")),
        9 => ev("content_block_delta", format!("{{\"type\":\"content_block_delta\",\"index\":{i},\"delta\":{{\"type\":\"input_json_delta\",\"partial_json\":\"{}\"}}}}", ["{\\\"a\\\":", " 1", "}", "", "\\\"x\\\""][b % 5])),
        10 => ev("content_block_stop", format!("{{\"type\":\"content_block_stop\",\"index\":{i}}}")),
        11 => ev("message_delta", format!("{{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"{}\"}},\"usage\":{{\"output_tokens\":9}}}}", ["end_turn", "max_tokens", "tool_use"][b % 3])),
        12 => ev("error", "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}".into()),
        _ => ev("message_stop", "{\"type\":\"message_stop\"}".into()),
    }
}

/// One OpenAI Responses event from a choice of shapes.
fn responses_atom(kind: usize, a: usize, b: usize) -> String {
    let ev =
        |ty: &str, json: String| format!("event: {ty}\ndata: {{\"type\":\"{ty}\",{json}}}\n\n");
    let o = a % 3;
    match kind % 18 {
        0 => ev("response.created", "\"response\":{\"id\":\"resp_1\",\"model\":\"gpt\",\"status\":\"in_progress\",\"output\":[]}".into()),
        1 => ev("response.output_item.added", format!("\"output_index\":{o},\"item\":{{\"id\":\"msg_{o}\",\"type\":\"message\",\"content\":[]}}")),
        2..=4 => ev("response.output_text.delta", format!("\"item_id\":\"msg_{o}\",\"output_index\":{o},\"content_index\":{},\"delta\":\"{}\"", b % 2, text(b))),
        5 => ev("response.output_item.added", format!("\"output_index\":{o},\"item\":{{\"id\":\"fc_{o}\",\"type\":\"function_call\",\"call_id\":\"call_{b}\",\"name\":\"f\",\"arguments\":\"\"}}")),
        6 => ev("response.function_call_arguments.delta", format!("\"item_id\":\"fc_{o}\",\"output_index\":{o},\"delta\":\"{}\"", ["{\\\"a\\\":", " 1", "}", ""][b % 4])),
        7 => ev("response.output_item.added", format!("\"output_index\":{o},\"item\":{{\"id\":\"rs_{o}\",\"type\":\"reasoning\",\"summary\":[]}}")),
        8 => ev("response.reasoning_summary_text.delta", format!("\"item_id\":\"rs_{o}\",\"output_index\":{o},\"summary_index\":{},\"delta\":\"{}\"", b % 2, text(b))),
        9 => ev("response.output_item.done", format!("\"output_index\":{o},\"item\":{{\"id\":\"rs_{o}\",\"type\":\"reasoning\",\"summary\":[],\"encrypted_content\":\"enc{b}\"}}")),
        10 => ev("response.output_item.done", format!("\"output_index\":{o},\"item\":{{\"id\":\"msg_{o}\",\"type\":\"message\",\"content\":[{{\"type\":\"output_text\",\"text\":\"snapshot\"}}]}}")),
        11 => ev("error", "\"code\":\"server_error\",\"message\":\"boom\"".into()),
        // Custom (free-form) tool calls, MCP calls, host tool items (issue 25 item 2).
        13 => ev("response.output_item.added", format!("\"output_index\":{o},\"item\":{{\"id\":\"ctc_{o}\",\"type\":\"custom_tool_call\",\"call_id\":\"call_c{b}\",\"input\":\"\",\"name\":\"apply_patch\"}}")),
        14 => ev("response.custom_tool_call_input.delta", format!("\"item_id\":\"ctc_{o}\",\"output_index\":{o},\"delta\":\"{}\"", text(b))),
        15 => ev("response.output_item.added", format!("\"output_index\":{o},\"item\":{{\"id\":\"mcp_{o}\",\"type\":\"mcp_call\",\"arguments\":\"\",\"name\":\"roll\",\"output\":null,\"server_label\":\"d\"}}")),
        16 => ev("response.mcp_call_arguments.delta", format!("\"item_id\":\"mcp_{o}\",\"output_index\":{o},\"delta\":\"{}\"", ["{\\\"a\\\":", " 1", "}", ""][b % 4])),
        17 => ev("response.output_item.done", [
            format!("\"output_index\":{o},\"item\":{{\"id\":\"ctc_{o}\",\"type\":\"custom_tool_call\",\"call_id\":\"call_c{b}\",\"input\":\"snapshot\",\"name\":\"apply_patch\"}}"),
            format!("\"output_index\":{o},\"item\":{{\"id\":\"mcp_{o}\",\"type\":\"mcp_call\",\"arguments\":\"{{}}\",\"error\":null,\"name\":\"roll\",\"output\":\"{}\"}}", text(b)),
            format!("\"output_index\":{o},\"item\":{{\"type\":\"computer_call\",\"id\":\"cu_{o}\",\"call_id\":\"call_u{b}\",\"action\":{{\"type\":\"type\",\"text\":\"{}\"}},\"pending_safety_checks\":[],\"status\":\"completed\"}}", text(b)),
        ][b % 3].clone()),
        _ => ev(
            ["response.completed", "response.incomplete", "response.failed"][b % 3],
            "\"response\":{\"id\":\"resp_1\",\"status\":\"completed\",\"usage\":{\"input_tokens\":2,\"output_tokens\":3}}".into(),
        ),
    }
}

/// One Gemini `GenerateContentResponse` (an array element or an SSE event) from a choice of
/// shapes.
fn gemini_element(kind: usize, a: usize, b: usize) -> String {
    let cand = |parts: String, extra: &str| {
        format!(
            "{{\"candidates\":[{{\"content\":{{\"parts\":[{parts}],\"role\":\"model\"}}{extra},\"index\":{}}}],\"modelVersion\":\"gemini-2.5-flash\",\"responseId\":\"r1\"}}",
            a % 2
        )
    };
    match kind % 9 {
        0..=2 => cand(format!("{{\"text\":\"{}\"}}", text(b)), ""),
        3 => cand(format!("{{\"text\":\"{}\",\"thought\":true}}", text(b)), ""),
        4 => cand(format!("{{\"text\":\"\",\"thoughtSignature\":\"sig{b}\"}}"), ""),
        5 => cand(
            format!("{{\"functionCall\":{{\"name\":\"f{}\",\"args\":{{\"city\":\"{}\",\"n\":[1,2.5]}}}}}}", b % 2, text(b)),
            "",
        ),
        6 => cand(
            "{\"text\":\"\"}".into(),
            [",\"finishReason\":\"STOP\"", ",\"finishReason\":\"MAX_TOKENS\"", ",\"finishReason\":\"SAFETY\""][b % 3],
        ),
        7 => "{\"usageMetadata\":{\"promptTokenCount\":4,\"candidatesTokenCount\":5,\"thoughtsTokenCount\":2}}".into(),
        _ => "{\"error\":{\"code\":503,\"message\":\"overloaded\",\"status\":\"UNAVAILABLE\"}}".into(),
    }
}

/// An AWS event-stream frame: string headers, the payload, both CRCs.
fn frame(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut h = Vec::new();
    for (name, value) in headers {
        h.push(name.len() as u8);
        h.extend_from_slice(name.as_bytes());
        h.push(7);
        h.extend_from_slice(&(value.len() as u16).to_be_bytes());
        h.extend_from_slice(value.as_bytes());
    }
    let total = 12 + h.len() + payload.len() + 4;
    let mut f = Vec::with_capacity(total);
    f.extend_from_slice(&(total as u32).to_be_bytes());
    f.extend_from_slice(&(h.len() as u32).to_be_bytes());
    let crc = crc32fast::hash(&f);
    f.extend_from_slice(&crc.to_be_bytes());
    f.extend_from_slice(&h);
    f.extend_from_slice(payload);
    let crc = crc32fast::hash(&f);
    f.extend_from_slice(&crc.to_be_bytes());
    f
}

/// One Bedrock ConverseStream frame (or a damaged one) from a choice of shapes.
fn bedrock_atom(kind: usize, a: usize, b: usize) -> Vec<u8> {
    let ev = |name: &str, json: String| {
        frame(
            &[
                (":event-type", name),
                (":content-type", "application/json"),
                (":message-type", "event"),
            ],
            json.as_bytes(),
        )
    };
    let i = a % 3;
    match kind % 12 {
        0 => ev("messageStart", "{\"role\":\"assistant\"}".into()),
        1..=3 => ev(
            "contentBlockDelta",
            format!(
                "{{\"contentBlockIndex\":{i},\"delta\":{{\"text\":\"{}\"}}}}",
                text(b)
            ),
        ),
        4 => ev(
            "contentBlockStart",
            format!(
                "{{\"contentBlockIndex\":{i},\"start\":{{\"toolUse\":{{\"toolUseId\":\"t{b}\",\"name\":\"f\"}}}}}}"
            ),
        ),
        5 => ev(
            "contentBlockDelta",
            format!(
                "{{\"contentBlockIndex\":{i},\"delta\":{{\"toolUse\":{{\"input\":\"{}\"}}}}}}",
                ["{\\\"a\\\":", " 1", "}", ""][b % 4]
            ),
        ),
        6 => ev(
            "contentBlockDelta",
            format!(
                "{{\"contentBlockIndex\":{i},\"delta\":{{\"reasoningContent\":{{\"text\":\"{}\"}}}}}}",
                text(b)
            ),
        ),
        7 => ev("contentBlockStop", format!("{{\"contentBlockIndex\":{i}}}")),
        8 => ev(
            "messageStop",
            format!(
                "{{\"stopReason\":\"{}\"}}",
                ["end_turn", "tool_use", "max_tokens"][b % 3]
            ),
        ),
        9 => ev(
            "metadata",
            "{\"usage\":{\"inputTokens\":3,\"outputTokens\":4}}".into(),
        ),
        10 => frame(
            &[
                (":exception-type", "throttlingException"),
                (":message-type", "exception"),
            ],
            b"{\"message\":\"slow down\"}",
        ),
        _ => {
            // A frame whose message CRC is wrong.
            let mut f = ev(
                "contentBlockDelta",
                format!("{{\"contentBlockIndex\":{i},\"delta\":{{\"text\":\"x\"}}}}"),
            );
            let n = f.len();
            f[n - 1] ^= 1;
            f
        }
    }
}

/// One line of Ollama's NDJSON stream (`/api/chat` or `/api/generate`).
fn ollama_atom(kind: usize, a: usize, b: usize) -> String {
    let line = match kind % 16 {
        0..=3 => format!(
            "{{\"model\":\"m\",\"message\":{{\"role\":\"assistant\",\"content\":\"{}\"}},\"done\":false}}",
            text(b)
        ),
        4 | 5 => format!(
            "{{\"model\":\"m\",\"message\":{{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"{}\"}},\"done\":false}}",
            text(b)
        ),
        6 => format!(
            "{{\"model\":\"m\",\"response\":\"{}\",\"done\":false}}",
            text(b)
        ),
        7 => format!(
            "{{\"response\":\"\",\"thinking\":\"{}\",\"done\":false}}",
            text(b)
        ),
        8 => format!(
            "{{\"message\":{{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{}]}},\"done\":false}}",
            [
                "{\"function\":{\"name\":\"f\",\"arguments\":{\"a\":[1,{\"b\":\"\\u00e9\"}]}}}",
                "{\"id\":\"call_x\",\"function\":{\"index\":0,\"name\":\"g\",\"arguments\":{}}},{\"function\":{\"index\":1,\"name\":\"h\"}}",
                "{\"function\":{\"arguments\":{\"early\":true},\"name\":\"late\"}}",
            ][a % 3]
        ),
        9 => format!(
            "{{\"model\":\"m\",\"message\":{{\"role\":\"assistant\",\"content\":\"\"}},\"done_reason\":\"{}\",\"done\":true,\"prompt_eval_count\":{a},\"eval_count\":{b}}}",
            ["stop", "length", "load"][b % 3]
        ),
        10 => "{\"error\":\"model runner has unexpectedly stopped\"}".into(),
        11 => format!("{{\"message\":{{\"content\":\"{}", text(b)),
        12 => " \t".into(),
        13 => "{\"response\":\"\",\"done\":true,\"context\":[1,2,3]}".into(),
        14 => "Internal Server Error".into(),
        _ => format!(
            "{{\n  \"message\": {{\n    \"content\": \"{}\"\n  }}\n}}",
            text(b)
        ),
    };
    format!("{line}\n")
}

/// Makes one event (an atom) of a body from three choices.
type Atom = fn(usize, usize, usize) -> Vec<u8>;

fn atoms(provider: Provider) -> Atom {
    match provider {
        Provider::OpenAiChat => |k, a, b| openai_atom(k, a, b).into_bytes(),
        Provider::Anthropic => |k, a, b| anthropic_atom(k, a, b).into_bytes(),
        Provider::OpenAiResponses => |k, a, b| responses_atom(k, a, b).into_bytes(),
        // SSE events; the array framing is built from the same elements below.
        Provider::Gemini => |k, a, b| format!("data: {}\n\n", gemini_element(k, a, b)).into_bytes(),
        Provider::Bedrock => bedrock_atom,
        Provider::Ollama => |k, a, b| ollama_atom(k, a, b).into_bytes(),
    }
}

fn decode(provider: Provider, hermes: bool, body: &[u8], sizes: &[usize]) -> Vec<OwnedEvent> {
    let mut config = DecoderConfig::new(provider);
    if hermes {
        config.options.dialect = tokensieve::Dialect::Hermes;
    }
    support::provider::events(&config, body, sizes, None)
}

fn well_formed(events: &[OwnedEvent]) -> Result<(), String> {
    let mut open = None;
    let mut next = 0;
    let mut finishes = 0;
    for ev in events {
        match ev {
            OwnedEvent::BlockStart { index, .. } => {
                if open.is_some() || *index != next {
                    return Err(format!("bad start {}", ev.to_json()));
                }
                open = Some(*index);
                next += 1;
            }
            OwnedEvent::Chunk { block, .. } if open != Some(*block) => {
                return Err(format!("chunk outside its block {}", ev.to_json()));
            }
            OwnedEvent::BlockComplete { index, .. } => {
                if open != Some(*index) {
                    return Err(format!("bad complete {}", ev.to_json()));
                }
                open = None;
            }
            OwnedEvent::Finish { .. } | OwnedEvent::Error { .. } if open.is_some() => {
                return Err(format!("{} with a block open", ev.to_json()));
            }
            OwnedEvent::Finish { .. } => finishes += 1,
            _ => {}
        }
    }
    if open.is_some() || finishes == 0 {
        return Err("the stream ended with a block open or without a finish".into());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn generated_streams_are_chunk_invariant(
        provider in prop::sample::select(&Provider::ALL[..]),
        parts in prop::collection::vec((0usize..64, 0usize..64, 0usize..64), 0..60),
        sizes in prop::collection::vec(1usize..40, 1..8),
        crlf in any::<bool>(),
        hermes in any::<bool>(),
    ) {
        if !provider.is_supported() {
            return Ok(());
        }
        let atom = atoms(provider);
        let mut body: Vec<u8> = parts.iter().flat_map(|&(k, a, b)| atom(k, a, b)).collect();
        if provider == Provider::Gemini && crlf {
            // Gemini's default framing: a streamed JSON array of the same elements.
            let elements: Vec<String> =
                parts.iter().map(|&(k, a, b)| gemini_element(k, a, b)).collect();
            body = format!("[{}]", elements.join(",\r\n")).into_bytes();
        }
        if crlf && !matches!(provider, Provider::Bedrock | Provider::Gemini) {
            body = String::from_utf8_lossy(&body).replace('\n', "\r\n").into_bytes();
        }
        let shown = String::from_utf8_lossy(&body).into_owned();
        let whole = coalesce(decode(provider, hermes, &body, &[]));
        prop_assert!(well_formed(&whole).is_ok(), "{:?}: {}", well_formed(&whole), shown);
        let split = coalesce(decode(provider, hermes, &body, &sizes));
        prop_assert_eq!(&whole, &split, "sizes {:?}\n{}", sizes, shown);
        let bytewise = coalesce(decode(provider, hermes, &body, &[1]));
        prop_assert_eq!(&whole, &bytewise);
    }
}
