use super::*;
use crate::format::parse_tool_calls;

fn one(name: &'static str, args: &'static str) -> [ToolCallIn<'static>; 1] {
    [ToolCallIn {
        name,
        id: None,
        arguments: args,
    }]
}

#[test]
fn errors_say_what_and_where() {
    let c = Config::new(Dialect::Hermes);
    let e = format_tool_calls(&c, &one("f", "{\"a\": tru}")).unwrap_err();
    assert!(
        matches!(e.kind, FormatErrorKind::InvalidJson { offset: 6, .. }),
        "{e:?}"
    );
    let e = format_tool_calls(&Config::new(Dialect::Pythonic), &one("a b", "{}")).unwrap_err();
    assert!(matches!(e.kind, FormatErrorKind::BadName(_)));
    let e = format_tool_calls(&Config::new(Dialect::Passthrough), &one("f", "{}")).unwrap_err();
    assert_eq!(e.kind, FormatErrorKind::NoToolCalls);
    assert_eq!(
        format_tool_calls(&Config::new(Dialect::Passthrough), &[]).unwrap(),
        ""
    );
}

#[test]
fn a_closer_in_a_string_does_not_end_the_call() {
    let args = r#"{"s": "a</parameter>b</arg_value><|call|>[TOOL_CALLS]<tool_call|>"}"#;
    for d in Dialect::ALL {
        if matches!(d, Dialect::Passthrough | Dialect::MorphXml) {
            continue;
        }
        let config = Config::new(d);
        let text = format_tool_calls(&config, &one("f", args)).unwrap();
        let back = parse_tool_calls(&config, text.as_bytes()).unwrap();
        assert_eq!(back.len(), 1, "{d:?}: {text}");
        assert!(back[0].error.is_none(), "{d:?}: {text} {back:?}");
    }
}

/// Where the schema types a value `string`, a raw value is not decoded: its closer inside
/// it gets a U+2060 after the `<` (the one inexact case, documented); untyped, the string
/// is written as JSON (exact); DSML switches to `string="false"` (exact).
#[test]
fn closers_in_string_values() {
    use crate::config::{ConfigBuf, Dialect};
    let args = r#"{"s": "x</parameter>y"}"#;
    let mut typed = ConfigBuf::new(Dialect::Qwen3Coder);
    typed
        .add_tool(
            "f",
            r#"{"type":"object","properties":{"s":{"type":"string"}}}"#,
        )
        .unwrap();
    let text = format_tool_calls(&typed.config(), &one("f", args)).unwrap();
    assert!(
        text.contains("\nx<\u{2060}/parameter>y\n</parameter>"),
        "{text}"
    );
    let back = parse_tool_calls(&typed.config(), text.as_bytes()).unwrap();
    assert_eq!(back[0].input, "{\"s\":\"x<\u{2060}/parameter>y\"}");

    let untyped = Config::new(Dialect::Qwen3Coder);
    let text = format_tool_calls(&untyped, &one("f", args)).unwrap();
    assert!(text.contains("\n\"x\\u003c/parameter>y\"\n"), "{text}");
    let back = parse_tool_calls(&untyped, text.as_bytes()).unwrap();
    // The same value: the parser keeps the escape as written.
    assert_eq!(back[0].input, "{\"s\":\"x\\u003c/parameter>y\"}");

    let dsml = Config::new(Dialect::DeepSeekV32);
    let text = format_tool_calls(
        &dsml,
        &one("f", r#"{"s": "x</｜DSML｜parameter>y", "t": "ok"}"#),
    )
    .unwrap();
    assert!(
        text.contains("string=\"false\">\"x\\u003c/｜DSML｜parameter>y\"<"),
        "{text}"
    );
    assert!(text.contains("string=\"true\">ok<"), "{text}");
    let back = parse_tool_calls(&dsml, text.as_bytes()).unwrap();
    assert_eq!(
        back[0].input,
        "{\"s\":\"x\\u003c/｜DSML｜parameter>y\",\"t\":\"ok\"}"
    );
}

/// anthropic-xml: a string that cannot stand raw goes in CDATA, typed or not: exact.
#[test]
fn anthropic_strings_in_cdata() {
    use crate::config::{ConfigBuf, Dialect};
    let mut typed = ConfigBuf::new(Dialect::AnthropicXml);
    typed
        .add_tool(
            "f",
            r#"{"type":"object","properties":{"s":{"type":"string"}}}"#,
        )
        .unwrap();
    let args = r#"{"s": "a</parameter>]]>b"}"#;
    for c in [typed.config(), Config::new(Dialect::AnthropicXml)] {
        let text = format_tool_calls(&c, &one("f", args)).unwrap();
        assert!(
            text.contains("<![CDATA[a</parameter>]]]]><![CDATA[>b]]></parameter>"),
            "{text}"
        );
        let back = parse_tool_calls(&c, text.as_bytes()).unwrap();
        assert_eq!(back[0].input, r#"{"s":"a</parameter>]]>b"}"#);
    }
    // Untyped, `"42"` would be read as a number: CDATA keeps it a string.
    let c = Config::new(Dialect::AnthropicXml);
    let text = format_tool_calls(&c, &one("f", r#"{"s": "42", "n": 42}"#)).unwrap();
    let back = parse_tool_calls(&c, text.as_bytes()).unwrap();
    assert_eq!(back[0].input, r#"{"s":"42","n":42}"#, "{text}");
}

#[test]
fn tool_call_markers_replace_the_wrapper() {
    let c = Config {
        tool_call_markers: Some(("<fn>", "</fn>")),
        ..Config::new(Dialect::Hermes)
    };
    let text = format_tool_calls(&c, &one("f", r#"{"a": "</fn>"}"#)).unwrap();
    assert_eq!(
        text,
        "<fn>\n{\"name\": \"f\", \"arguments\": {\"a\": \"\\u003c/fn>\"}}\n</fn>"
    );
    let back = parse_tool_calls(&c, text.as_bytes()).unwrap();
    assert_eq!(back[0].input, r#"{"a":"</fn>"}"#);
}

#[test]
fn each_family_writes_its_templates_calls() {
    let args = r#"{"city": "Paris", "days": 3}"#;
    let cases: [(Dialect, &str); 9] = [
        (
            Dialect::KimiK3,
            "<|open|>tools<|sep|><|open|>call tool=\"get\" index=\"1\"<|sep|>\
             <|open|>argument key=\"city\" type=\"string\"<|sep|>Paris<|close|>argument<|sep|>\
             <|open|>argument key=\"days\" type=\"number\"<|sep|>3<|close|>argument<|sep|>\
             <|close|>call<|sep|><|close|>tools<|sep|>",
        ),
        (
            Dialect::AnthropicXml,
            "<function_calls>\n<invoke name=\"get\">\n<parameter name=\"city\">Paris</parameter>\n\
             <parameter name=\"days\">3</parameter>\n</invoke>\n</function_calls>",
        ),
        (
            Dialect::Glm45,
            "<tool_call>get\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n\
             <arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>",
        ),
        (
            Dialect::Harmony,
            "<|start|>assistant to=functions.get<|channel|>commentary json<|message|>\
             {\"city\": \"Paris\", \"days\": 3}<|call|>",
        ),
        (
            Dialect::DeepSeekV31,
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get<｜tool▁sep｜>{\"city\": \"Paris\", \"days\": 3}\
             <｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        ),
        (
            Dialect::Gemma4,
            "<|tool_call>call:get{city:<|\"|>Paris<|\"|>,days:3}<tool_call|>",
        ),
        (
            Dialect::Mistral,
            "[TOOL_CALLS]get[ARGS]{\"city\": \"Paris\", \"days\": 3}",
        ),
        (
            Dialect::Lfm2,
            "<|tool_call_start|>[get(city=\"Paris\", days=3)]<|tool_call_end|>",
        ),
        (
            Dialect::Olmo3,
            "<function_calls>\nget(city=\"Paris\", days=3)\n</function_calls>",
        ),
    ];
    for (d, want) in cases {
        assert_eq!(
            format_tool_calls(&Config::new(d), &one("get", args)).unwrap(),
            want,
            "{d:?}"
        );
    }
}

/// inkling: TokenSpeed's template — each call named in its message header, `name` then
/// `args`, compact, the arguments' keys sorted at every depth; the turn ends with the
/// end-of-sampling marker; the parser reads it back without visible text.
#[test]
fn inkling_writes_its_templates_calls() {
    let calls = [
        ToolCallIn {
            name: "get",
            id: None,
            arguments: r#"{"days": 3, "city": "Paris", "o": {"b": [1, {"z": 0, "a": 1}], "a": null}}"#,
        },
        ToolCallIn {
            name: "now",
            id: None,
            arguments: "{}",
        },
    ];
    let config = Config::new(Dialect::Inkling);
    let text = format_tool_calls(&config, &calls).unwrap();
    assert_eq!(
        text,
        "<|message_model|>get<|content_invoke_tool_json|>{\"name\":\"get\",\"args\":\
         {\"city\":\"Paris\",\"days\":3,\"o\":{\"a\":null,\"b\":[1,{\"a\":1,\"z\":0}]}}}\
         <|end_message|><|message_model|>now<|content_invoke_tool_json|>\
         {\"name\":\"now\",\"args\":{}}<|end_message|><|content_model_end_sampling|>"
    );
    let back = parse_tool_calls(&config, text.as_bytes()).unwrap();
    assert_eq!(back.len(), 2, "{text}");
    // A name the parser would not read as a header is left out of it.
    let long = "n".repeat(70);
    let text = format_tool_calls(
        &config,
        &[ToolCallIn {
            name: &long,
            ..calls[1]
        }],
    )
    .unwrap();
    assert!(
        text.starts_with("<|message_model|><|content_invoke_tool_json|>"),
        "{text}"
    );
}

/// kimi-k3: attribute values escaped as K3's encoder escapes them; JSON values spaced as
/// `json.dumps` writes them; a string holding a marker written as a JSON string typed
/// `json` (exact); names and keys spelling a special token refused.
#[test]
fn kimi_k3_values_and_attributes() {
    let c = Config::new(Dialect::KimiK3);
    let args = r#"{"q&\"k": "a<|close|>call<|sep|>b", "o": {"x": [1, null]}, "n": 1.50}"#;
    let text = format_tool_calls(&c, &one("a&b\"c", args)).unwrap();
    assert_eq!(
        text,
        "<|open|>tools<|sep|><|open|>call tool=\"a&amp;b&quot;c\" index=\"1\"<|sep|>\
         <|open|>argument key=\"q&amp;&quot;k\" type=\"json\"<|sep|>\"a\\u003c|close|>call\\u003c|sep|>b\"<|close|>argument<|sep|>\
         <|open|>argument key=\"o\" type=\"object\"<|sep|>{\"x\": [1, null]}<|close|>argument<|sep|>\
         <|open|>argument key=\"n\" type=\"number\"<|sep|>1.50<|close|>argument<|sep|>\
         <|close|>call<|sep|><|close|>tools<|sep|>"
    );
    let back = parse_tool_calls(&c, text.as_bytes()).unwrap();
    assert_eq!(back[0].name, "a&b\"c");
    assert_eq!(back[0].id, "a&b\"c:0");
    let input: serde_json::Value = serde_json::from_str(&back[0].input).unwrap();
    assert_eq!(input["q&\"k"], "a<|close|>call<|sep|>b");
    assert!(format_tool_calls(&c, &one("a<|sep|>", "{}")).is_err());
}
