#![cfg(feature = "alloc")]
//! Bad input gets a clear outcome and loses nothing: huge runs of `<`, unclosed tags, absurd
//! names, deep nesting, invalid UTF-8 — no panic, bounded memory (the parser's buffers are
//! fixed at construction), every byte accounted for.

mod support;

use serde_json::Value;
use support::{coalesce, lint, run};
use tokensieve::{Config, ConfigBuf, DEFAULT_MEMORY, Dialect, Event, Sieve};

fn config(dialect: &str) -> ConfigBuf {
    ConfigBuf::from_json(&format!(r#"{{"dialect":"{dialect}"}}"#)).unwrap()
}

fn visible_text(events: &[Value]) -> String {
    events
        .iter()
        .filter(|e| e["event"] == "chunk" && e["type"] == "text")
        .map(|e| e["text"].as_str().unwrap())
        .collect()
}

fn all_chunk_text(events: &[Value]) -> String {
    events
        .iter()
        .filter(|e| e["event"] == "chunk")
        .map(|e| e["text"].as_str().unwrap())
        .collect()
}

#[test]
fn a_megabyte_of_angle_brackets_is_text() {
    let input = vec![b'<'; 1 << 20];
    for d in ["anthropic-xml", "passthrough"] {
        let events = coalesce(run(&config(d), None, &input, &[4096]));
        assert!(lint(&events).is_empty());
        assert_eq!(visible_text(&events).len(), 1 << 20, "{d}");
    }
}

#[test]
fn unclosed_thinking_tag_without_gt_is_flushed_as_text() {
    let input = b"Before <thinking mode='x' and then the stream just goes on and on";
    let events = coalesce(run(&config("anthropic-xml"), None, input, &[3]));
    assert_eq!(visible_text(&events).as_bytes(), input);
    let input = b"Before <thinking";
    let events = coalesce(run(&config("anthropic-xml"), None, input, &[1]));
    assert_eq!(visible_text(&events).as_bytes(), input);
}

#[test]
fn a_100kb_invoke_name_degrades_to_text_and_loses_nothing() {
    let mut input = b"<function_calls><invoke name=\"".to_vec();
    input.extend(std::iter::repeat_n(b'n', 100_000));
    input.extend(b"\"><parameter name=\"a\">1</parameter></invoke></function_calls>after");
    let events = coalesce(run(&config("anthropic-xml"), None, &input, &[7]));
    assert!(lint(&events).is_empty(), "{:?}", lint(&events));
    // The over-long tag is stray text in the region; everything from it on is text or
    // wire syntax of the region, and the tail after the region is text.
    let text = all_chunk_text(&events);
    assert!(text.contains(&"n".repeat(100_000)));
    assert!(text.ends_with("after"));
}

#[test]
fn a_100kb_harmony_header_degrades_to_text_and_loses_nothing() {
    // A header keeps 128 bytes; past them it is not one: its text is visible, markers left
    // out, and the rest of the stream is top-level text (a stray `<|message|>` and `<|end|>`
    // are dropped as wire syntax).
    let mut input = b"<|start|>".to_vec();
    input.extend(std::iter::repeat_n(b'h', 100_000));
    input.extend(b"<|message|>hi<|end|>");
    for size in [1, 7, 4096, input.len()] {
        let events = coalesce(run(&config("harmony"), None, &input, &[size]));
        assert!(lint(&events).is_empty(), "{:?}", lint(&events));
        assert_eq!(visible_text(&events), format!("{}hi", "h".repeat(100_000)));
    }
    // A megabyte of marker look-alikes is text.
    let input = b"<|<|en<|d|>".repeat(1 << 16);
    let events = coalesce(run(&config("harmony"), None, &input, &[4096]));
    assert_eq!(visible_text(&events).as_bytes(), &input[..]);
}

#[test]
fn ten_thousand_nested_tags_are_text() {
    let mut input = Vec::new();
    for _ in 0..10_000 {
        input.extend(b"<a><b x=\"1\">");
    }
    input.extend(b"core");
    for _ in 0..10_000 {
        input.extend(b"</b></a>");
    }
    for d in ["anthropic-xml", "passthrough"] {
        let events = coalesce(run(&config(d), None, &input, &[5]));
        assert_eq!(visible_text(&events).as_bytes(), &input[..], "{d}");
    }
    // Nested thinking is opaque: the first closer ends it, the rest is text.
    let mut input = Vec::new();
    for _ in 0..10_000 {
        input.extend(b"<thinking>");
    }
    input.extend(b"x");
    for _ in 0..10_000 {
        input.extend(b"</thinking>");
    }
    let events = coalesce(run(&config("anthropic-xml"), None, &input, &[64]));
    assert!(lint(&events).is_empty());
    let thinking: String = events
        .iter()
        .filter(|e| e["event"] == "chunk" && e["type"] == "thinking")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(thinking, format!("{}x", "<thinking>".repeat(9_999)));
    assert_eq!(visible_text(&events), "</thinking>".repeat(9_999));
}

#[test]
fn invalid_utf8_becomes_replacement_characters_like_from_utf8_lossy() {
    let mut input = Vec::new();
    for i in 0..=255u8 {
        input.extend([b'x', i, 0xe2, i, 0xf0, 0x9f, i]);
    }
    let expected = String::from_utf8_lossy(&input).into_owned();
    for d in ["anthropic-xml", "passthrough"] {
        for n in [1, 2, 3, 4096] {
            let events = coalesce(run(&config(d), None, &input, &[n]));
            // `<` (0x3c) opens nothing here: only `<` + a name could.
            assert_eq!(visible_text(&events), expected, "{d} at {n}");
        }
    }
}

#[test]
fn invalid_utf8_in_names_ids_and_keys_becomes_replacement_characters() {
    // Attribute values are raw bytes: a name, id or parameter key keeps its valid text and
    // gets one U+FFFD per invalid sequence (rule 7), never a lost neighbour (rule 6), and
    // the call's input stays a JSON object.
    let cases: [(&str, &[u8], &str, &str, &str); 8] = [
        (
            "anthropic-xml",
            b"<function_calls><invoke name=\"f\xe2\x82\"><parameter name=\"coun\xfft\">3</parameter></invoke></function_calls>",
            "f\u{FFFD}",
            "call_0",
            "{\"coun\u{FFFD}t\":3}",
        ),
        (
            "qwen3-coder",
            b"<tool_call>\n<function=g\xff>\n<parameter=k\xc3>\n1\n</parameter>\n</function>\n</tool_call>",
            "g\u{FFFD}",
            "call_0",
            "{\"k\u{FFFD}\":1}",
        ),
        (
            "minimax-m2",
            b"<minimax:tool_call><invoke name=\"h\xc3\"><parameter name=\"\xffv\">true</parameter></invoke></minimax:tool_call>",
            "h\u{FFFD}",
            "call_0",
            "{\"\u{FFFD}v\":true}",
        ),
        (
            "glm-4.5",
            b"<tool_call>g\xe2\x82\n<arg_key>k\xff</arg_key>\n<arg_value>[1]</arg_value>\n</tool_call>",
            "g\u{FFFD}",
            "call_0",
            "{\"k\u{FFFD}\":[1]}",
        ),
        (
            "kimi-k2",
            b"<|tool_calls_section_begin|><|tool_call_begin|>functions.g\xff:0<|tool_call_argument_begin|>{\"k\xc3\": 1}<|tool_call_end|><|tool_calls_section_end|>",
            "g\u{FFFD}",
            "functions.g\u{FFFD}:0",
            "{\"k\u{FFFD}\":1}",
        ),
        (
            "deepseek-v3.1",
            b"<\xef\xbd\x9ctool\xe2\x96\x81call\xe2\x96\x81begin\xef\xbd\x9c>g\xe2\x82<\xef\xbd\x9ctool\xe2\x96\x81sep\xef\xbd\x9c>{\"k\xc3\": 1}<\xef\xbd\x9ctool\xe2\x96\x81call\xe2\x96\x81end\xef\xbd\x9c>",
            "g\u{FFFD}",
            "call_0",
            "{\"k\u{FFFD}\":1}",
        ),
        (
            "mistral",
            b"[TOOL_CALLS]f\xe2\x82[CALL_ID]a\xff[ARGS]{\"k\xc3\": 1}",
            "f\u{FFFD}",
            "a\u{FFFD}",
            "{\"k\u{FFFD}\":1}",
        ),
        (
            "llama3-json",
            b"<|python_tag|>{\"name\": \"f\xe2\x82\", \"parameters\": {\"k\xff\": 1}}",
            "f\u{FFFD}",
            "call_0",
            "{\"k\u{FFFD}\":1}",
        ),
    ];
    for (dialect, input, name, id, json) in cases {
        let expected: Value = serde_json::from_str(json).unwrap();
        for n in [1, 2, 3, 7, input.len()] {
            let events = coalesce(run(&config(dialect), None, input, &[n]));
            let done = events
                .iter()
                .find(|e| e["event"] == "block_complete" && e["type"] == "tool_call")
                .unwrap_or_else(|| panic!("{dialect} at {n}: no call in {events:?}"));
            assert_eq!(done["tool_name"], name, "{dialect} at {n}");
            assert_eq!(done["tool_id"], id, "{dialect} at {n}");
            assert_eq!(done["input"], expected, "{dialect} at {n}");
            assert!(done.get("error").is_none(), "{dialect} at {n}: {done}");
        }
    }
}

#[test]
fn failed_calls_keep_their_raw_text_and_the_stream_goes_on() {
    let input =
        b"<function_calls><invoke name=\"f\">junk<parameter name=\"a\">1</parameter></invoke>\
<invoke>no name</invoke><invoke name=\"g\"><parameter>v</parameter></invoke></function_calls>tail";
    let events = coalesce(run(&config("anthropic-xml"), None, input, &[2]));
    assert!(lint(&events).is_empty());
    let errors: Vec<&Value> = events.iter().filter(|e| e.get("error").is_some()).collect();
    assert_eq!(errors.len(), 3);
    assert_eq!(
        errors[0]["error"]["raw"],
        "<invoke name=\"f\">junk<parameter name=\"a\">1</parameter></invoke>"
    );
    assert_eq!(errors[1]["error"]["reason"], "missing-name");
    assert_eq!(errors[2]["error"]["reason"], "malformed-parameter");
    assert!(visible_text(&events).ends_with("tail"));
}

#[test]
fn too_large_calls_fail_at_max_call_bytes_and_lose_nothing() {
    // The call fails as too large once it passes max_call_bytes (raw keeps the bytes up to
    // the act that crossed the limit); with on_malformed = text its raw comes back as text
    // and the rest of the call streams after it, closer included: the visible text holds
    // every byte of the call.
    let config =
        ConfigBuf::from_json(r#"{"dialect":"anthropic-xml","max_call_bytes":100}"#).unwrap();
    let head = b"<function_calls><invoke name=\"f\"><parameter name=\"a\">".to_vec();
    let mut call = b"<invoke name=\"f\"><parameter name=\"a\">".to_vec();
    call.extend(std::iter::repeat_n(b'v', 10_000));
    call.extend(b"</parameter></invoke>");
    let mut input = b"<function_calls>".to_vec();
    input.extend(&call);
    input.extend(b"</function_calls>after");
    assert!(input.starts_with(&head));
    for sizes in [&[9][..], &[1], &[input.len()]] {
        let events = coalesce(run(&config, None, &input, sizes));
        assert!(lint(&events).is_empty(), "{:?}", lint(&events));
        let failed = events.iter().find(|e| e.get("error").is_some()).unwrap();
        assert_eq!(failed["error"]["reason"], "too-large");
        let raw = failed["error"]["raw"].as_str().unwrap();
        assert!(raw.len() > 100 && raw.len() <= 100 + 128, "{}", raw.len());
        assert!(call.starts_with(raw.as_bytes()));
        let text = visible_text(&events);
        assert_eq!(
            text.as_bytes(),
            [&call[..], b"after"].concat(),
            "sizes {sizes:?}"
        );
    }
    // on_malformed = drop: the call's text is dropped, what follows is not.
    let drop = ConfigBuf::from_json(
        r#"{"dialect":"anthropic-xml","max_call_bytes":100,"on_malformed":"drop"}"#,
    )
    .unwrap();
    let events = coalesce(run(&drop, None, &input, &[7]));
    assert!(lint(&events).is_empty());
    assert_eq!(visible_text(&events), "after");
}

#[test]
fn fixed_memory_cuts_raw_text_and_says_so_but_loses_nothing() {
    // Caller memory: a failed call longer than its raw buffer completes with a cut raw
    // (raw_truncated) and the rest of its text streams after it, closer included.
    let config = Config::new(Dialect::AnthropicXml);
    let mut input = b"<function_calls><invoke name=\"f\">".to_vec();
    input.extend(std::iter::repeat_n(b'x', 5_000));
    input.extend(b"</invoke></function_calls>");
    let call = &input[b"<function_calls>".len()..input.len() - b"</function_calls>".len()];
    for size in [1, 7, 64, input.len()] {
        let mut memory = [0u8; tokensieve::MIN_MEMORY];
        let mut sieve = Sieve::with_memory(&config, &mut memory).unwrap();
        let (mut cut, mut visible) = (None, String::new());
        let mut on = |ev: Event<'_>| match ev {
            Event::BlockComplete(b) => {
                if let Some(e) = b.error {
                    cut = Some((e.raw_truncated, e.raw.len()));
                }
            }
            Event::Chunk(c) if c.visible() => visible.push_str(c.text),
            _ => {}
        };
        for piece in input.chunks(size) {
            let mut rest = piece;
            while let Some(ev) = sieve.next(&mut rest) {
                on(ev);
            }
        }
        sieve.finish();
        while let Some(ev) = sieve.next(&mut &b""[..]) {
            on(ev);
        }
        let (truncated, len) = cut.expect("the call fails");
        assert!(truncated);
        assert!(len > 0 && len < 5_000);
        assert_eq!(visible.as_bytes(), call, "size {size}");
    }
    let _ = DEFAULT_MEMORY;
}

#[test]
fn input_after_a_stop_is_ignored() {
    let config =
        ConfigBuf::from_json(r#"{"dialect":"passthrough","stop_sequences":["STOP"]}"#).unwrap();
    let events = coalesce(run(&config, None, b"abcSTOPdef<thinking>x", &[1]));
    assert_eq!(events.last().unwrap()["event"], "stop");
    assert_eq!(visible_text(&events), "abc");
}
