#![cfg(feature = "alloc")]
//! The pull API's contract: `next` consumes what it decides and asks for more only when the
//! input is used up; `reset` is a fresh parser; `is_done` after a stop and after draining;
//! `prefill` is silent and leaves block indices and call ids at 0.

mod support;

use support::{coalesce, run, to_value};
use tokensieve::accumulate::Collector;
use tokensieve::{Config, ConfigBuf, Dialect, Event, ParamBuf, Sieve, ValueType};

const TRANSCRIPT: &[u8] = b"Hi <thinking>plan</thinking><function_calls><invoke name=\"f\">\
<parameter name=\"a\">1</parameter></invoke></function_calls>done <thin";

fn events(sieve: &mut Sieve<'_>, input: &[u8]) -> Vec<serde_json::Value> {
    let mut c = Collector::new();
    let mut out = Vec::new();
    sieve.feed_with(input, |e| out.push(to_value(&c.push(&e))));
    sieve.finish_with(|e| out.push(to_value(&c.push(&e))));
    out
}

#[test]
fn reset_gives_a_fresh_parser() {
    let config = Config::new(Dialect::AnthropicXml);
    let mut sieve = Sieve::new(&config).unwrap();
    let first = events(&mut sieve, TRANSCRIPT);
    // Leave it mid-call, holding bytes, then reset.
    let mut rest = &b"<function_calls><invoke name=\"g\"><parameter name=\"x\">abc</para"[..];
    while sieve.next(&mut rest).is_some() {}
    sieve.reset();
    assert_eq!(events(&mut sieve, TRANSCRIPT), first);
}

#[test]
fn next_returns_none_only_when_the_input_is_used_up() {
    let config = Config::new(Dialect::AnthropicXml);
    let mut sieve = Sieve::new(&config).unwrap();
    for piece in TRANSCRIPT.chunks(3) {
        let mut rest = piece;
        while sieve.next(&mut rest).is_some() {}
        assert!(rest.is_empty());
        assert!(!sieve.is_done());
    }
    sieve.finish();
    while sieve.next(&mut &b""[..]).is_some() {}
    assert!(sieve.is_done());
}

#[test]
fn a_stop_ends_the_stream_and_later_input_is_ignored() {
    let config =
        ConfigBuf::from_json(r#"{"dialect":"passthrough","stop_sequences":["END"]}"#).unwrap();
    let mut sieve = Sieve::from_config_buf(config).unwrap();
    let mut rest = &b"abcEND and more"[..];
    let mut last = None;
    while let Some(e) = sieve.next(&mut rest) {
        last = Some(matches!(e, Event::Stop { sequence: "END" }));
    }
    assert_eq!(last, Some(true));
    assert!(rest.is_empty() && sieve.is_done());
    let mut later = &b"<thinking>x"[..];
    assert!(sieve.next(&mut later).is_none());
}

#[test]
fn prefill_is_silent_and_counts_from_zero() {
    let config =
        ConfigBuf::from_json(r#"{"dialect":"anthropic-xml","stop_sequences":["\nHuman:"]}"#)
            .unwrap();
    // A prefill with text, a completed call and a stop sequence, ending inside thinking.
    let prefill = b"\nHuman: hi\n\nAssistant: ok<function_calls><invoke name=\"f\"></invoke></function_calls><thinking>";
    let events = coalesce(run(&config, Some(prefill), b"plan</thinking>go", &[2]));
    assert_eq!(
        events[0],
        serde_json::json!({"event": "block_start", "index": 0, "type": "thinking"})
    );
    assert_eq!(events[1]["text"], "plan");
    assert_eq!(events[4]["text"], "go");
    assert_eq!(events.len(), 6);
}

/// The parser remembers how far a text run reaches in the caller's input (by address) while
/// a dialect consumes it piece by piece; a caller that reuses one buffer for every read must
/// get exactly what a fresh, whole-input parse gives.
#[test]
fn a_reused_input_buffer_gives_the_same_events() {
    let config = ConfigBuf::from_json(r#"{"dialect": "hermes"}"#).unwrap();
    let input: &[u8] = b"Hi <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"line\\none \
\\\"q\\\" <tag>\", \"b\": [1, 2, {\"c\": \"</x>\"}]}}</tool_call> after <tool_call>{\"name\": \
\"g\", \"arguments\": {\"s\": \"</tool_call> inside\"}}</tool_call> end";
    let whole = events(&mut Sieve::from_config_buf(config.clone()).unwrap(), input);
    for size in [7, 16, 33, 64] {
        let mut sieve = Sieve::from_config_buf(config.clone()).unwrap();
        let mut c = Collector::new();
        let mut out = Vec::new();
        let mut buf = [0u8; 64];
        for piece in input.chunks(size) {
            // Scribble over the buffer first: stale bytes must never be read as input.
            buf.fill(b'<');
            buf[..piece.len()].copy_from_slice(piece);
            let mut rest = &buf[..piece.len()];
            while let Some(e) = sieve.next(&mut rest) {
                out.push(to_value(&c.push(&e)));
            }
        }
        sieve.finish_with(|e| out.push(to_value(&c.push(&e))));
        assert_eq!(
            coalesce(out),
            coalesce(whole.clone()),
            "reads of {size} bytes"
        );
    }
}

/// The input chunks of every call in `input`, fed whole, as they come (not merged).
fn input_chunks(config: &Config<'_>, input: &[u8]) -> Vec<String> {
    let mut sieve = Sieve::new(config).unwrap();
    let mut out = Vec::new();
    let mut keep = |e: Event<'_>| {
        if let Event::Chunk(c) = e {
            if c.part == Some(tokensieve::Part::Input) {
                out.push(c.text.to_owned());
            }
        }
    };
    sieve.feed_with(input, &mut keep);
    sieve.finish_with(&mut keep);
    out
}

#[test]
fn queued_pieces_of_one_part_come_as_one_chunk() {
    // A member opener (`,"` key `":`) and a held string (`"` escaped value `"`) are queued
    // as pieces; they are handed out packed, one event each (the packing only changes the
    // event count: merged, the chunks are the same whatever the chunking).
    let config = Config::new(Dialect::AnthropicXml);
    let input = br#"<function_calls><invoke name="f"><parameter name="city">Par"is</parameter><parameter name="days">3</parameter><parameter name="note">a\b</parameter></invoke></function_calls>"#;
    assert_eq!(
        input_chunks(&config, input),
        [
            r#"{"city":"#,
            r#""Par\"is""#,
            r#","days":"#,
            "3",
            r#","note":"#,
            r#""a\\b""#,
            "}"
        ]
    );
    // Escapes inside a streamed string are packed with the text around them.
    let config = ConfigBuf::from_json(
        r#"{"dialect":"anthropic-xml","tools":[{"name":"f","schema":{"properties":{"s":{"type":"string"}}}}]}"#,
    )
    .unwrap();
    let config = config.config();
    let input = b"<function_calls><invoke name=\"f\"><parameter name=\"s\">a\"b\nc\\d</parameter></invoke></function_calls>";
    assert_eq!(
        input_chunks(&config, input),
        [r#"{"s":""#, r#"a\"b\nc\\d"#, r#"""#, "}"]
    );
}

/// Misuse is refused with a typed error and changes nothing (issue 13, item 4).
#[test]
fn misuse_is_an_error_not_silence() {
    use tokensieve::{Misuse, Pull};
    let config = Config::new(Dialect::AnthropicXml);
    let mut sieve = Sieve::new(&config).unwrap();
    sieve.prefill(b"Sure: <thinking>").unwrap();
    let mut input = &b"hmm</thinking>Hi"[..];
    let mut before = Vec::new();
    while let Pull::Event(ev) = sieve.pull(&mut input).unwrap() {
        before.push(format!("{ev:?}"));
    }
    // A prefill in mid-stream would renumber blocks: refused, and the stream goes on.
    assert_eq!(sieve.prefill(b"<thinking>"), Err(Misuse::PrefillAfterInput));
    assert!(matches!(sieve.pull(&mut &b""[..]), Ok(Pull::NeedMore)));
    sieve.finish();
    let mut after = Vec::new();
    while let Pull::Event(ev) = sieve.pull(&mut &b""[..]).unwrap() {
        after.push(format!("{ev:?}"));
    }
    assert!(before[0].contains("index: 0") && before[0].contains("Thinking"));
    assert!(after.last().unwrap().contains("BlockComplete"));
    assert!(matches!(sieve.pull(&mut &b""[..]), Ok(Pull::Done)));
    // Input after the finished stream: refused by pull, left unread by next.
    let mut late = &b"late"[..];
    assert_eq!(sieve.pull(&mut late).err(), Some(Misuse::InputAfterFinish));
    assert!(sieve.next(&mut late).is_none());
    assert_eq!(late, b"late");
    assert_eq!(sieve.prefill(b"x"), Err(Misuse::PrefillAfterInput));
    // After reset, a prefill is welcome again.
    sieve.reset();
    assert_eq!(sieve.prefill(b"x"), Ok(()));
    // After a stop, input is read and ignored (the model may go on past its stop).
    let stops = ["STOP"];
    let config = Config {
        stop_sequences: (&stops[..]).into(),
        ..Config::new(Dialect::Passthrough)
    };
    let mut sieve = Sieve::new(&config).unwrap();
    let mut input = &b"aSTOPb"[..];
    while let Pull::Event(_) = sieve.pull(&mut input).unwrap() {}
    let mut more = &b"more"[..];
    assert!(matches!(sieve.pull(&mut more), Ok(Pull::Done)));
    assert!(more.is_empty());
}

/// One reader (`tokensieve::json::schema`) for a schema however it comes: text for
/// `add_tool`, text or an object in a JSON config. A later `properties` replaces the earlier;
/// a later duplicate property replaces the earlier, in its place.
#[test]
fn a_schema_reads_alike_as_text_and_as_an_object() {
    let schema = r#"{"properties":{"x":{}},"properties":{"a":{"type":"string"},
        "b\u0061":{"type":"array","items":{"type":"integer"}},"a":{"type":"number"}}}"#;
    let mut added = ConfigBuf::new(Dialect::AnthropicXml);
    added.add_tool("f", schema).unwrap();
    let text =
        serde_json::json!({"dialect": "anthropic-xml", "tools": [{"name": "f", "schema": schema}]});
    let object =
        format!(r#"{{"dialect":"anthropic-xml","tools":[{{"name":"f","schema":{schema}}}]}}"#);
    let want = vec![
        ParamBuf {
            name: "a".into(),
            value_type: ValueType::Number,
            items: ValueType::Any,
        },
        ParamBuf {
            name: "ba".into(),
            value_type: ValueType::Array,
            items: ValueType::Integer,
        },
    ];
    for (how, config) in [
        ("add_tool", added),
        ("text", ConfigBuf::from_json(&text.to_string()).unwrap()),
        ("object", ConfigBuf::from_json(&object).unwrap()),
    ] {
        assert_eq!(config.tools[0].params, want, "schema as {how}");
    }
    // Errors: not JSON, then an empty name, then not an object.
    let key = |name: &str, schema: &str| {
        let mut c = ConfigBuf::new(Dialect::AnthropicXml);
        let e = c.add_tool(name, schema).unwrap_err();
        (e.key().to_string(), e.message())
    };
    assert_eq!(key("", "{"), ("schema".into(), "is not valid JSON"));
    assert_eq!(
        key("", "[]"),
        ("tools".into(), "a tool name must not be empty")
    );
    assert_eq!(
        key("f", "[]"),
        ("schema".into(), "must be a JSON Schema object")
    );
}

/// Aliases name the preset whose format the family writes; the parser reports the preset.
#[test]
fn aliases_resolve_to_their_preset() {
    for (alias, preset) in tokensieve::Dialect::ALIASES {
        assert_eq!(tokensieve::Dialect::from_name(alias), Some(preset));
        assert!(tokensieve::Dialect::from_name(preset.name()).is_some());
        let buf =
            tokensieve::ConfigBuf::from_json(&format!(r#"{{"dialect": "{alias}"}}"#)).unwrap();
        assert_eq!(buf.config().dialect, preset);
    }
}

/// Every outcome of the pull API, through the trait: the parser and the decoder answer the
/// same calls the same way (R10: input after `finish` is refused, not dropped).
fn pull_outcomes(source: &mut impl tokensieve::EventSource, read: &[u8]) -> Vec<&'static str> {
    use tokensieve::{Misuse, Pull};
    let mut seen = Vec::new();
    let mut input = read;
    loop {
        match source.pull(&mut input) {
            Ok(Pull::Event(_)) => {}
            Ok(Pull::NeedMore) => break seen.push("need-more"),
            other => panic!("{other:?}"),
        }
    }
    assert!(input.is_empty());
    source.finish();
    while let Ok(Pull::Event(_)) = source.pull(&mut &b""[..]) {}
    seen.push(if source.is_done() { "done" } else { "not-done" });
    assert!(matches!(source.pull(&mut &b""[..]), Ok(Pull::Done)));
    // `next` leaves input after the finish unread; `pull` refuses it.
    let mut late = &b"late"[..];
    assert!(source.next(&mut late).is_none());
    assert_eq!(late, b"late");
    assert!(matches!(
        source.pull(&mut late),
        Err(Misuse::InputAfterFinish)
    ));
    source.reset();
    seen.push(if source.is_done() { "done" } else { "fresh" });
    let mut n = 0;
    source.feed_with(read, |_| n += 1);
    source.finish_with(|_| n += 1);
    assert!(n > 0 && source.is_done());
    seen
}

#[test]
fn sieve_and_decoder_pull_alike_through_one_trait() {
    use tokensieve::provider::{Decoder, DecoderConfig, Provider};
    let config = Config::new(Dialect::Hermes);
    let mut sieve = Sieve::new(&config).unwrap();
    let text = pull_outcomes(
        &mut sieve,
        b"hi <tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>",
    );
    // A temporary config: the decoder keeps what it needs of it.
    let mut decoder = Decoder::new(&DecoderConfig::new(Provider::OpenAiChat)).unwrap();
    let body = pull_outcomes(
        &mut decoder,
        b"data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n",
    );
    assert_eq!(text, ["need-more", "done", "fresh"]);
    assert_eq!(body, text);
}

#[test]
fn a_decoder_of_a_temporary_config_with_a_text_dialect() {
    use tokensieve::provider::{Decoder, DecoderConfig, Provider};
    let mut decoder = Decoder::new(&DecoderConfig {
        options: Config::new(Dialect::Hermes),
        ..DecoderConfig::new(Provider::OpenAiChat)
    })
    .unwrap();
    let mut calls = 0;
    decoder.feed_with(
        b"data: {\"choices\":[{\"delta\":{\"content\":\"<tool_call>{\\\"name\\\":\\\"f\\\",\\\"arguments\\\":{}}</tool_call>\"}}]}\n\n",
        |ev| calls += matches!(ev, Event::BlockComplete(_)) as usize,
    );
    decoder.finish_with(|ev| calls += matches!(ev, Event::BlockComplete(_)) as usize);
    assert_eq!(calls, 1);
}
