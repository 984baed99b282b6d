#![cfg(feature = "alloc")]
//! Host-defined dialects (docs/design.md, "Dialect descriptions"): random descriptions of
//! every shape — random markers, element and key names — with random calls rendered in them.
//! For each: the events do not depend on the chunking (rule 4), the calls come back equal
//! (names and inputs as JSON values), and the visible text is the input without the calls
//! and the thinking (rule 6: nothing lost, rule 2: no marker leaks).

mod support;

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use support::{coalesce, lint, run};
use tokensieve::ConfigBuf;

/// A marker: a delimiter no content below can spell (content has no `<`, `|` or `[`), then
/// a name.
fn marker(open: &'static str, close: &'static str) -> impl Strategy<Value = (String, String)> {
    "[a-z][a-z_:]{1,8}".prop_map(move |name| (format!("{open}{name}{close}"), name))
}

/// A pair `[open, close]` of tag-like markers `<n>`/`</n>` or special-token-like ones.
fn pair() -> impl Strategy<Value = (String, String)> {
    prop_oneof![
        marker("<", ">").prop_map(|(o, n)| (o, format!("</{n}>"))),
        marker("<|", "|>").prop_map(|(o, n)| (o, format!("<|/{n}|>"))),
        marker("[", "]").prop_map(|(o, n)| (o, format!("[/{n}]"))),
    ]
}

/// Prose between calls: words, spaces, newlines, a multibyte character, and near-misses of
/// markup that no marker can be (`a > b`, `x/y`).
fn prose() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            "[a-zA-Z]{1,6}",
            Just(" ".to_string()),
            Just("\n".to_string()),
            Just("é東".to_string()),
            Just(" a > b ".to_string()),
            Just("x/y".to_string()),
        ],
        0..6,
    )
    .prop_map(|v| v.concat())
}

/// A call: a tool name and string arguments (keys and values that are plain words, so an
/// untyped xml-params value stays a string: it starts with a letter and is no JSON literal).
fn call() -> impl Strategy<Value = (String, Vec<(String, String)>)> {
    (
        "[a-z][a-z_]{0,8}",
        prop::collection::vec(("[a-z][a-z0-9_]{0,5}", "v[a-z é東\"]{0,8}[a-z]"), 0..3),
    )
        .prop_map(|(name, mut args)| {
            // Unique keys: a repeated key keeps its first value in json-call, its last in
            // xml-params; the expectation below needs one.
            let mut seen = std::collections::BTreeSet::new();
            args.retain(|(k, _)| seen.insert(k.clone()));
            (name, args)
        })
}

/// The expected input object of a call.
fn input_of(args: &[(String, String)]) -> Value {
    Value::Object(
        args.iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect::<Map<_, _>>(),
    )
}

/// The calls (name, input) and the visible text of an event stream.
fn calls_and_text(events: &[Value]) -> (Vec<(String, Value)>, String) {
    let mut calls = Vec::new();
    let mut text = String::new();
    for e in events {
        if e["event"] == "block_complete" && e["type"] == "tool_call" {
            assert!(e.get("error").is_none(), "a call failed: {e}");
            calls.push((
                e["tool_name"].as_str().unwrap_or("").to_string(),
                e["input"].clone(),
            ));
        }
        if e["event"] == "chunk" && e["visible"] == true {
            text.push_str(e["text"].as_str().unwrap_or(""));
        }
    }
    (calls, text)
}

/// Parses `data` whole, in `sizes` pieces and byte by byte: the same events, well formed.
fn invariant(config: &ConfigBuf, data: &str, sizes: &[usize]) -> Result<Vec<Value>, TestCaseError> {
    let data = data.as_bytes();
    let whole = coalesce(run(config, None, data, &[data.len().max(1)]));
    let split = coalesce(run(config, None, data, sizes));
    prop_assert_eq!(&whole, &split, "input {:?}", String::from_utf8_lossy(data));
    let one = coalesce(run(config, None, data, &[1]));
    prop_assert_eq!(&whole, &one, "input {:?}", String::from_utf8_lossy(data));
    let errs = lint(&whole);
    prop_assert!(errs.is_empty(), "{:?}", errs);
    Ok(whole)
}

/// `data` at any chunking gives exactly the `expected` calls and the visible `text`.
fn same_calls_and_text(
    config: &ConfigBuf,
    data: &str,
    sizes: &[usize],
    expected: &[(String, Value)],
    text: &str,
) -> Result<(), TestCaseError> {
    let events = invariant(config, data, sizes)?;
    let (calls, visible) = calls_and_text(&events);
    prop_assert_eq!(&calls[..], expected, "input {:?}", data);
    prop_assert_eq!(visible.as_str(), text, "input {:?}", data);
    Ok(())
}

/// Two marker pairs that cannot be confused (neither opener begins the other's markers).
fn distinct(a: &(String, String), b: &(String, String)) -> bool {
    let all = [&a.0, &a.1, &b.0, &b.1];
    all.iter().enumerate().all(|(i, x)| {
        all.iter()
            .enumerate()
            .all(|(j, y)| i == j || (!x.starts_with(y.as_str()) && !y.starts_with(x.as_str())))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    /// json-call: random wrapper (or no closer: the JSON value's end ends the call),
    /// thinking markers, name and argument keys.
    #[test]
    fn json_call_descriptions(
        wrapper in pair(), thinking in pair(), closerless in any::<bool>(),
        name_as_key in any::<bool>(), bare in prop::option::of(call()),
        name_key in "[a-z][a-z_]{0,9}", arg_key in "[a-z][a-z_]{0,9}",
        pieces in prop::collection::vec((prose(), call(), any::<bool>()), 1..4),
        tail in prose(), think in prose(), sizes in prop::collection::vec(1usize..10, 1..8),
    ) {
        prop_assume!(name_key != arg_key && distinct(&wrapper, &thinking));
        let close = if closerless { "" } else { wrapper.1.as_str() };
        let config = ConfigBuf::from_value(&json!({"dialect": {
            "shape": "json-call",
            "wrapper": [wrapper.0, close],
            "result_wrapper": null,
            "name_keys": [name_key],
            "argument_keys": [arg_key],
            "thinking_tags": [thinking.0, thinking.1],
            "name_as_key": name_as_key,
            "bare_array": bare.is_some(),
        }})).unwrap();
        let mut data = format!("{}{think}{}", thinking.0, thinking.1);
        let mut text = String::new();
        let mut expected = Vec::new();
        if let Some((name, args)) = &bare {
            // A bare list of calls at the start of the message (xlam's `bare_array`).
            let body = if name_as_key {
                json!([{ name.as_str(): input_of(args) }])
            } else {
                json!([{ name_key.as_str(): name, arg_key.as_str(): input_of(args) }])
            };
            data.push_str(&body.to_string());
            expected.push((name.clone(), input_of(args)));
        }
        for (before, (name, args), spaced) in &pieces {
            data.push_str(before);
            text.push_str(before);
            let body = if name_as_key {
                // Apertus's `{"NAME": {arguments}}`.
                json!({ name.as_str(): input_of(args) })
            } else {
                json!({ name_key.as_str(): name, arg_key.as_str(): input_of(args) })
            };
            let ws = if *spaced { "\n" } else { "" };
            data.push_str(&format!("{}{ws}{body}{ws}{close}", wrapper.0));
            if closerless {
                // What follows the value is text.
                text.push_str(ws);
            }
            expected.push((name.clone(), input_of(args)));
        }
        data.push_str(&tail);
        text.push_str(&tail);
        same_calls_and_text(&config, &data, &sizes, &expected, &text)?;
    }

    /// xml-params: random wrapper (its closer a closing tag) and thinking markers.
    #[test]
    fn xml_params_descriptions(
        wrap_open in pair(), wrap_name in "[a-z][a-z_:]{1,8}", thinking in pair(),
        pieces in prop::collection::vec((prose(), prop::collection::vec(call(), 1..3)), 1..3),
        tail in prose(), think in prose(), sizes in prop::collection::vec(1usize..10, 1..8),
    ) {
        let wrapper = (wrap_open.0.clone(), format!("</{wrap_name}>"));
        prop_assume!(distinct(&wrapper, &thinking));
        let config = ConfigBuf::from_value(&json!({"dialect": {
            "shape": "xml-params",
            "wrapper": [wrapper.0, wrapper.1],
            "thinking_tags": [thinking.0, thinking.1],
        }})).unwrap();
        let mut data = format!("{}{think}{}", thinking.0, thinking.1);
        let mut text = String::new();
        let mut expected = Vec::new();
        for (before, calls) in &pieces {
            data.push_str(before);
            text.push_str(before);
            data.push_str(&wrapper.0);
            data.push('\n');
            for (name, args) in calls {
                data.push_str(&format!("<function={name}>\n"));
                for (k, v) in args {
                    data.push_str(&format!("<parameter={k}>\n{v}\n</parameter>\n"));
                }
                data.push_str("</function>\n");
                expected.push((name.clone(), input_of(args)));
            }
            data.push_str(&wrapper.1);
        }
        data.push_str(&tail);
        text.push_str(&tail);
        same_calls_and_text(&config, &data, &sizes, &expected, &text)?;
    }

    /// invoke: random region, call and parameter element names, an optional prefix (ASCII
    /// or full-width bars), an optional typing attribute, random thinking markers.
    #[test]
    fn invoke_descriptions(
        names in prop::collection::btree_set("[a-z][a-z_:]{1,8}", 3),
        prefix in prop_oneof![Just(String::new()), "[|!~][A-Z]{1,4}[|!~]", "｜[A-Z]{1,4}｜"],
        typed in any::<bool>(), thinking in pair(), region_kind in 0u8..3,
        cdata in any::<bool>(), markers in pair(), inner in pair(),
        pieces in prop::collection::vec((prose(), prop::collection::vec(call(), 1..3)), 1..3),
        tail in prose(), think in prose(), sizes in prop::collection::vec(1usize..10, 1..8),
    ) {
        let names: Vec<String> = names.into_iter().collect();
        // An empty region name: the calls stand in text (MiniCPM5), or (kind 2) between a
        // marker pair, with a markup pair dropped around each call (Step-3).
        let regionless = region_kind == 1;
        let marked = region_kind == 2;
        let region = if region_kind == 0 { names[0].as_str() } else { "" };
        let (invoke, param) = (&names[1], &names[2]);
        let tag = |closing: bool, name: &str| {
            format!("<{}{prefix}{name}", if closing { "/" } else { "" })
        };
        let region_tags = match region_kind {
            0 => (format!("{}>", tag(false, region)), format!("{}>", tag(true, region))),
            1 => (String::new(), String::new()),
            _ => markers.clone(),
        };
        prop_assume!(regionless || distinct(&region_tags, &thinking));
        prop_assume!(!marked || (distinct(&inner, &thinking) && distinct(&inner, &markers)));
        // No marker may spell an element's tag.
        let spells = |m: &str| names.iter().any(|n| m.contains(&format!("<{n}")) || m.contains(&format!("/{n}")));
        prop_assume!(!marked || ![&markers.0, &markers.1, &inner.0, &inner.1].iter().any(|m| spells(m)));
        prop_assume!(names.iter().all(|n| !thinking.0.starts_with(&format!("<{n}"))));
        let prefixes: Vec<&str> = if prefix.is_empty() { vec![] } else { vec![prefix.as_str()] };
        let config = ConfigBuf::from_value(&json!({"dialect": {
            "shape": "invoke",
            "elements": [region, invoke, param],
            "tag_prefixes": prefixes,
            "string_attribute": if typed { Some("string") } else { None },
            "thinking_tags": [thinking.0, thinking.1],
            "cdata": cdata,
            "wrapper": if marked { json!([markers.0, markers.1]) } else { json!(["", ""]) },
            "markup": if marked { json!([inner.0, inner.1]) } else { Value::Null },
        }})).unwrap();
        let mut data = format!("{}{think}{}", thinking.0, thinking.1);
        let mut text = String::new();
        let mut expected = Vec::new();
        for (before, calls) in &pieces {
            data.push_str(before);
            text.push_str(before);
            data.push_str(&region_tags.0);
            if !regionless {
                data.push('\n');
            }
            for (name, args) in calls {
                if marked {
                    data.push_str(&inner.0);
                }
                data.push_str(&format!("{} name=\"{name}\">\n", tag(false, invoke)));
                for (k, v) in args {
                    let attr = if typed { " string=\"true\"" } else { "" };
                    data.push_str(&format!(
                        "{} name=\"{k}\"{attr}>{}{}>\n",
                        tag(false, param),
                        if cdata { format!("<![CDATA[{v}]]>") } else { v.clone() },
                        tag(true, param)
                    ));
                }
                // Without a region, what follows a call is text: nothing here.
                let after = if regionless { "" } else { "\n" };
                data.push_str(&format!("{}>{after}", tag(true, invoke)));
                if marked {
                    data.push_str(&inner.1);
                }
                expected.push((name.clone(), input_of(args)));
            }
            data.push_str(&region_tags.1);
        }
        data.push_str(&tail);
        text.push_str(&tail);
        same_calls_and_text(&config, &data, &sizes, &expected, &text)?;
    }

    /// pythonic: a random wrapper; the list bracketed inside it, or (bare calls) the calls
    /// one per line inside it.
    #[test]
    fn pythonic_descriptions(
        wrapper in pair(), thinking in pair(), bare in any::<bool>(),
        pieces in prop::collection::vec((prose(), prop::collection::vec(call(), 1..3)), 1..3),
        tail in prose(), think in prose(), sizes in prop::collection::vec(1usize..10, 1..8),
    ) {
        prop_assume!(distinct(&wrapper, &thinking));
        let config = ConfigBuf::from_value(&json!({"dialect": {
            "shape": "pythonic",
            "wrapper": [wrapper.0, wrapper.1],
            "bare_calls": bare,
            "thinking_tags": [thinking.0, thinking.1],
        }})).unwrap();
        let mut data = format!("{}{think}{}", thinking.0, thinking.1);
        let mut text = String::new();
        let mut expected = Vec::new();
        for (before, calls) in &pieces {
            // Prose must not read as a call: no `[` or `(` in it by construction.
            data.push_str(before);
            text.push_str(before);
            data.push_str(&wrapper.0);
            let rendered: Vec<String> = calls
                .iter()
                .map(|(name, args)| {
                    let kw: Vec<String> = args
                        .iter()
                        .map(|(k, v)| format!("{k}={}", serde_json::to_string(v).unwrap()))
                        .collect();
                    format!("{name}({})", kw.join(", "))
                })
                .collect();
            if bare {
                data.push('\n');
                data.push_str(&rendered.join("\n"));
                data.push('\n');
            } else {
                data.push_str(&format!("[{}]", rendered.join(", ")));
            }
            data.push_str(&wrapper.1);
            expected.extend(calls.iter().map(|(n, a)| (n.clone(), input_of(a))));
        }
        data.push_str(&tail);
        text.push_str(&tail);
        same_calls_and_text(&config, &data, &sizes, &expected, &text)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    /// key-value: random call, key, value and separator element names (the separator
    /// optional), random thinking markers, an optional markup region around the calls, calls
    /// with or without newlines between their elements.
    #[test]
    fn key_value_descriptions(
        names in prop::collection::btree_set("[a-z][a-z_:]{1,8}", 4),
        with_sep in any::<bool>(), thinking in pair(), region in prop::option::of(pair()),
        newlines in any::<bool>(),
        pieces in prop::collection::vec((prose(), prop::collection::vec(call(), 1..3)), 1..3),
        tail in prose(), think in prose(), sizes in prop::collection::vec(1usize..10, 1..8),
    ) {
        let names: Vec<String> = names.into_iter().collect();
        let (call_el, key, value, sep) = (&names[0], &names[1], &names[2], &names[3]);
        let wrapper = (format!("<{call_el}>"), format!("</{call_el}>"));
        prop_assume!(distinct(&wrapper, &thinking));
        prop_assume!(names.iter().all(|n| !thinking.0.starts_with(&format!("<{n}"))));
        if let Some(r) = &region {
            prop_assume!(distinct(r, &wrapper) && distinct(r, &thinking));
        }
        let mut elements = vec![key.as_str(), value.as_str()];
        if with_sep {
            elements.push(sep.as_str());
        }
        let config = ConfigBuf::from_value(&json!({"dialect": {
            "shape": "key-value",
            "wrapper": [wrapper.0, wrapper.1],
            "elements": elements,
            "markup": region.as_ref().map(|r| [&r.0, &r.1]),
            "thinking_tags": [thinking.0, thinking.1],
        }})).unwrap();
        let nl = if newlines { "\n" } else { "" };
        let mut data = format!("{}{think}{}", thinking.0, thinking.1);
        let mut text = String::new();
        let mut expected = Vec::new();
        for (before, calls) in &pieces {
            data.push_str(before);
            text.push_str(before);
            if let Some(r) = &region {
                data.push_str(&r.0);
            }
            for (name, args) in calls {
                data.push_str(&format!("{}{name}", wrapper.0));
                if with_sep {
                    data.push_str(&format!("<{sep}>"));
                }
                data.push_str(nl);
                for (k, v) in args {
                    data.push_str(&format!("<{key}>{k}</{key}>{nl}<{value}>{v}</{value}>{nl}"));
                }
                data.push_str(&wrapper.1);
                expected.push((name.clone(), input_of(args)));
            }
            if let Some(r) = &region {
                data.push_str(&r.1);
            }
        }
        data.push_str(&tail);
        text.push_str(&tail);
        same_calls_and_text(&config, &data, &sizes, &expected, &text)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    /// sectioned: random special-token markers for the section, the call and the header's
    /// end; a header of one part (the name, or with `wire_id` an id `functions.NAME:IDX`) or
    /// two (a type, then the name ended by a line break, as deepseek-v3); an optional fence
    /// around the body; random thinking markers.
    #[test]
    fn sectioned_descriptions(
        names in prop::collection::btree_set("[a-z][a-z_]{1,8}", 7),
        wire_id in any::<bool>(), two_parts in any::<bool>(), fenced in any::<bool>(),
        thinking in pair(),
        pieces in prop::collection::vec((prose(), prop::collection::vec(call(), 1..3)), 1..3),
        tail in prose(), think in prose(), sizes in prop::collection::vec(1usize..10, 1..8),
    ) {
        let n: Vec<String> = names.into_iter().map(|n| format!("<|{n}|>")).collect();
        let (section, call_m) = ((&n[0], &n[1]), (&n[2], &n[3]));
        let (sep, fence) = (&n[4], (&n[5], &n[6]));
        prop_assume!(n.iter().all(|m| *m != thinking.0 && *m != thinking.1));
        prop_assume!(!thinking.0.starts_with("<|") || distinct(&thinking, &(n[0].clone(), n[2].clone())));
        let header_ends: Vec<&str> = if two_parts { vec![sep, "\n"] } else { vec![sep] };
        let config = ConfigBuf::from_value(&json!({"dialect": {
            "shape": "sectioned",
            "wrapper": [section.0, section.1],
            "call_markers": [call_m.0, call_m.1],
            "header_ends": header_ends,
            "fence": if fenced { Some([fence.0, fence.1]) } else { None },
            "wire_id": wire_id,
            "thinking_tags": [thinking.0, thinking.1],
        }})).unwrap();
        let mut data = format!("{}{think}{}", thinking.0, thinking.1);
        let mut text = String::new();
        let mut expected = Vec::new();
        let mut index = 0;
        for (before, calls) in &pieces {
            data.push_str(before);
            text.push_str(before);
            data.push_str(section.0);
            data.push('\n');
            for (name, args) in calls {
                let header = if wire_id {
                    index += 1;
                    format!("functions.{name}:{index}")
                } else {
                    name.clone()
                };
                data.push_str(call_m.0);
                if two_parts {
                    data.push_str(&format!("function{sep}{header}\n"));
                } else {
                    data.push_str(&format!("{header}{sep}"));
                }
                let body = input_of(args).to_string();
                if fenced {
                    data.push_str(&format!("{}\n{body}\n{}", fence.0, fence.1));
                } else {
                    data.push_str(&body);
                }
                data.push_str(call_m.1);
                data.push('\n');
                expected.push((name.clone(), input_of(args)));
            }
            data.push_str(section.1);
        }
        data.push_str(&tail);
        text.push_str(&tail);
        same_calls_and_text(&config, &data, &sizes, &expected, &text)?;
    }
}

/// A description is checked when the parser is made; the error names the field.
#[test]
fn bad_descriptions_name_the_field() {
    for (description, key) in [
        (
            json!({"shape": "json-call", "wrapper": ["", "x"]}),
            "dialect.wrapper",
        ),
        (
            json!({"shape": "json-call", "wrapper": ["<a>", "<a>x"]}),
            "dialect.wrapper",
        ),
        (
            json!({"shape": "json-call", "wrapper": ["<think>", "</x>"]}),
            "dialect.wrapper",
        ),
        (
            json!({"shape": "json-call", "name_keys": []}),
            "dialect.name_keys",
        ),
        (
            json!({"shape": "json-call", "argument_keys": ["a_very_long_key"]}),
            "dialect.argument_keys",
        ),
        (
            json!({"shape": "json-call", "name_keys": ["k"], "argument_keys": ["k"]}),
            "dialect.argument_keys",
        ),
        (
            json!({"shape": "xml-params", "wrapper": ["<w>", "[/w]"]}),
            "dialect.wrapper",
        ),
        (
            json!({"shape": "xml-params", "result_wrapper": ["<r>", "</r>"]}),
            "dialect.result_wrapper",
        ),
        (
            json!({"shape": "xml-params", "colour": 1}),
            "dialect.colour",
        ),
        (
            json!({"shape": "json-call", "wrapper": ["", ""]}),
            "dialect.wrapper",
        ),
        (
            json!({"shape": "xml-params", "wrapper": ["<w>", ""]}),
            "dialect.wrapper",
        ),
        (
            json!({"shape": "json-call", "more_markup": ["<a>", "</a>"]}),
            "dialect.more_markup",
        ),
        (
            json!({"shape": "json-call", "markup": [["<a>", "</a>"], ["<b>", "</b>"]]}),
            "dialect.more_markup",
        ),
        (
            json!({"shape": "json-call", "result_wrapper": null,
                   "markup": [["<a>", "</a>"], ["<a>", "</b>"]]}),
            "dialect.more_markup",
        ),
        (
            json!({"shape": "xml-params", "bare_array": true}),
            "dialect.bare_array",
        ),
        (
            json!({"shape": "xml-params", "name_as_key": true}),
            "dialect.name_as_key",
        ),
        (
            json!({"shape": "json-call", "name_as_key": 1}),
            "dialect.name_as_key",
        ),
        (
            json!({"shape": "xml-params", "more_markup": ["<a>", "</a>"]}),
            "dialect.more_markup",
        ),
        (
            json!({"shape": "invoke", "elements": ["a", "b"]}),
            "dialect.elements",
        ),
        (
            json!({"shape": "invoke", "elements": ["a", "b", "a"]}),
            "dialect.elements",
        ),
        (
            json!({"shape": "invoke", "elements": ["a", "b", "c d"]}),
            "dialect.elements",
        ),
        (
            // Only the region may be unnamed (none: the calls stand in text).
            json!({"shape": "invoke", "elements": ["a", "", "c"]}),
            "dialect.elements",
        ),
        (
            json!({"shape": "json-call", "cdata": true}),
            "dialect.cdata",
        ),
        (
            // A region is an element or a marker pair, not both.
            json!({"shape": "invoke", "wrapper": ["<a>", "</a>"]}),
            "dialect.wrapper",
        ),
        (
            // Markup between calls needs a marker region.
            json!({"shape": "invoke", "elements": ["", "invoke", "parameter"], "markup": ["<a>", "</a>"]}),
            "dialect.markup",
        ),
        (
            json!({"shape": "invoke", "elements": ["think", "b", "c"]}),
            "dialect.elements",
        ),
        (
            json!({"shape": "invoke", "tag_prefixes": ["a>"]}),
            "dialect.tag_prefixes",
        ),
        (
            json!({"shape": "invoke", "tag_prefixes": [""]}),
            "dialect.tag_prefixes",
        ),
        (
            json!({"shape": "invoke", "string_attribute": "name"}),
            "dialect.string_attribute",
        ),
        (
            json!({"shape": "invoke", "wrapper": ["<a>", "</a>"]}),
            "dialect.wrapper",
        ),
        (
            json!({"shape": "xml-params", "elements": ["a", "b", "c"]}),
            "dialect.elements",
        ),
        (
            json!({"shape": "json-call", "bare_calls": true}),
            "dialect.bare_calls",
        ),
        (
            json!({"shape": "pythonic", "markup": ["<a>", "</a>"]}),
            "dialect.markup",
        ),
        (
            json!({"shape": "key-value", "wrapper": ["<c>", "</d>"]}),
            "dialect.wrapper",
        ),
        (
            json!({"shape": "key-value", "wrapper": ["[c]", "[/c]"]}),
            "dialect.wrapper",
        ),
        (
            json!({"shape": "key-value", "elements": ["k"]}),
            "dialect.elements",
        ),
        (
            json!({"shape": "key-value", "elements": ["k", "k"]}),
            "dialect.elements",
        ),
        (
            json!({"shape": "key-value", "elements": ["k", "tool_call"]}),
            "dialect.elements",
        ),
        (
            json!({"shape": "key-value", "elements": ["k", "v", "think"]}),
            "dialect.elements",
        ),
        (
            json!({"shape": "key-value", "elements": ["k", "v", ""]}),
            "dialect.elements",
        ),
        (
            json!({"shape": "key-value", "markup": ["<tool_call>", "</x>"]}),
            "dialect.markup",
        ),
        (
            json!({"shape": "key-value", "markup": ["<a>", "<a>"]}),
            "dialect.markup",
        ),
        (
            json!({"shape": "key-value", "name_keys": ["n"]}),
            "dialect.name_keys",
        ),
        (
            json!({"shape": "key-value", "tag_prefixes": ["x"]}),
            "dialect.tag_prefixes",
        ),
        (
            json!({"shape": "sectioned", "call_markers": ["", "<|e|>"]}),
            "dialect.call_markers",
        ),
        (
            json!({"shape": "sectioned", "call_markers": ["<|c|>", "<|c|>"]}),
            "dialect.call_markers",
        ),
        (
            json!({"shape": "sectioned", "call_markers": ["<|tool_calls_section_begin|>", "<|e|>"]}),
            "dialect.call_markers",
        ),
        (
            json!({"shape": "sectioned", "header_ends": []}),
            "dialect.header_ends",
        ),
        (
            json!({"shape": "sectioned", "header_ends": ["<|a|>", "<|b|>", "<|c|>"]}),
            "dialect.header_ends",
        ),
        (
            json!({"shape": "sectioned", "header_ends": ["<|tool_call_end|>"]}),
            "dialect.header_ends",
        ),
        (
            json!({"shape": "sectioned", "fence": ["", "```"]}),
            "dialect.fence",
        ),
        (
            json!({"shape": "sectioned", "alt_openers": ["a", "b", "c", "d", "e"]}),
            "dialect.alt_openers",
        ),
        (
            json!({"shape": "sectioned", "alt_openers": ["<|tool_call_begin|>"]}),
            "dialect.alt_openers",
        ),
        (
            json!({"shape": "sectioned", "markup": ["<a>", "</a>"]}),
            "dialect.markup",
        ),
        (
            json!({"shape": "sectioned", "wire_id": "yes"}),
            "dialect.wire_id",
        ),
        (
            json!({"shape": "json-call", "call_markers": ["<a>", "</a>"]}),
            "dialect.call_markers",
        ),
        (
            json!({"shape": "xml-params", "call_header": ["<m>", "<tool_call>"]}),
            "dialect.call_header",
        ),
        (
            json!({"shape": "json-call", "call_header": ["<m>", "<tool_call>"]}),
            "dialect.call_header",
        ),
        (
            json!({"shape": "json-call", "result_wrapper": null, "markup": ["<m>", "</m>"],
                "call_header": ["<m>", "<x>"]}),
            "dialect.call_header",
        ),
        (
            json!({"shape": "json-call", "markup": ["<m>", "</m>"],
                "call_header": ["<m>", "<tool_call>"]}),
            "dialect.call_header",
        ),
        (json!({"shape": "yaml"}), "dialect.shape"),
        (json!({"wrapper": ["<a>", "</a>"]}), "dialect.shape"),
        (
            json!({"shape": "json-call", "thinking_tags": ["<t>", "<t>"]}),
            "dialect.thinking_tags",
        ),
    ] {
        let err = ConfigBuf::from_value(&json!({ "dialect": description })).unwrap_err();
        assert_eq!(err.key(), key, "{description}: {err}");
    }
    // tool_call_markers still overrides a json-call wrapper, and is refused elsewhere.
    assert!(
        ConfigBuf::from_value(&json!({"dialect": {"shape": "json-call"},
            "tool_call_markers": ["<c>", "</c>"]}))
        .is_ok()
    );
    let err = ConfigBuf::from_value(&json!({"dialect": {"shape": "xml-params"},
        "tool_call_markers": ["<c>", "</c>"]}))
    .unwrap_err();
    assert_eq!(err.key(), "tool_call_markers");
}

/// A host-described call header (`call_header`, Inkling's form): the name between the
/// message opener and the call opener is wire syntax, dropped; before another marker, or
/// over 64 bytes, it is text. The same at every chunking.
#[test]
fn call_header_from_a_description() {
    let config = ConfigBuf::from_value(&json!({"dialect": {
        "shape": "json-call",
        "wrapper": ["<|call|>", "<|end|>"],
        "result_wrapper": null,
        "markup": ["<|msg|>", "<|text|>"],
        "call_header": ["<|msg|>", "<|call|>"],
    }}))
    .unwrap();
    let long = "x".repeat(65);
    let data = format!(
        "<|msg|>f<|call|>{{\"name\": \"f\", \"arguments\": {{}}}}<|end|>\
         <|msg|>role<|text|>hi <|msg|>{long}<|call|>{{\"name\": \"g\"}}<|end|>"
    );
    let expected = [("f".to_string(), json!({})), ("g".to_string(), json!({}))];
    same_calls_and_text(
        &config,
        &data,
        &[3, 5, 7],
        &expected,
        &format!("rolehi {long}"),
    )
    .unwrap();
}
