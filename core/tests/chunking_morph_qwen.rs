//! Rule 4 (chunking never matters) for morph-xml and qwen3-coder: generated inputs mixing
//! calls, arguments, entities, markers, near-miss tags, multibyte and invalid UTF-8, split at
//! random (so edges fall inside entities, tags, look-ahead markers and characters), give the
//! same coalesced events as the whole input and as one-byte feeding; the events obey the
//! event model (rules 1, 3, 8, 9) and structural tags never reach a name, id or text chunk.
//! Also: feeding either dialect with caller-provided memory never allocates.

#[cfg(feature = "alloc")]
mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use tokensieve::{
    Config, DEFAULT_MEMORY, Dialect, Event, Param, Sieve, StrList, Tool, ToolList, ValueType,
};

struct Counting;

thread_local! {
    // Per thread: other tests of this binary allocate concurrently.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

// SAFETY: forwards to the system allocator unchanged; only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Chunk invariance (needs `alloc`: configs from JSON, events as JSON values).
#[cfg(feature = "alloc")]
mod chunking {
    use super::support::{coalesce, lint, one_call_then_text, run};
    use proptest::prelude::*;
    use serde_json::{Value, json};
    use tokensieve::ConfigBuf;

    const MORPH_ATOMS: &[&[u8]] = &[
        b"Hello ",
        b"a < b",
        b"<b>x</b>",
        b"<get_weather>",
        b"</get_weather>",
        b"<get_weather >",
        b"<get_weather/>",
        b"<get_weath",
        b"<get>",
        b"</get>",
        b"<getter>",
        b"<city>",
        b"</city>",
        b"<days>",
        b"</days>",
        b"<tags>",
        b"</tags>",
        b"<item>",
        b"</item>",
        b"<opts>",
        b"</opts>",
        b"<x>",
        b"</x>",
        b"<x/>",
        b"<city lang=\"en\">",
        b"Paris",
        b" 3 ",
        b"[1, 2]",
        b"{\"a\": 1}",
        b"true",
        b"&amp;",
        b"&lt;",
        b"&quot;",
        b"&apos;",
        b"&gt;",
        b"&am",
        b"&#60;",
        b"\n",
        b"  ",
        b"\r\n\t",
        b"<think>",
        b"</think>",
        b"<thi",
        "é".as_bytes(),
        "東京".as_bytes(),
        "🌏".as_bytes(),
        b"\nUser:",
        b"\xff",
        b"\xe2\x82",
        b"\xf0\x9f",
    ];

    const QWEN_ATOMS: &[&[u8]] = &[
        b"Hello ",
        b"a < b",
        b"<toolbar>",
        b"<tool_call>",
        b"</tool_call>",
        b"<tool_call>\n",
        b"<tool_ca",
        b"<function=get_weather>",
        b"<function=f>",
        b"<function= g >",
        b"<function=>",
        b"<function>",
        b"</function>",
        b"<functi",
        b"<parameter=city>",
        b"<parameter=days>",
        b"<parameter=s>",
        b"<parameter>",
        b"</parameter>",
        b"</param",
        b"Paris",
        b" 3 ",
        b"[1, 2]",
        b"{\"a\": 1}",
        b"False",
        b"&amp;",
        b"{\"name\": \"f\"}",
        b"\n",
        b"  ",
        b"\r\n\t",
        b"<think>",
        b"</think>",
        b"<thi",
        "é".as_bytes(),
        "東京".as_bytes(),
        "🌏".as_bytes(),
        b"\nUser:",
        b"\xff",
        b"\xe2\x82",
        b"\xf0\x9f",
    ];

    fn input(atoms: &'static [&'static [u8]]) -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(prop::sample::select(atoms), 0..48).prop_map(|v| v.concat())
    }

    fn splits() -> impl Strategy<Value = Vec<usize>> {
        prop::collection::vec(1usize..10, 1..8)
    }

    fn morph_config(stops: bool, drop: bool) -> ConfigBuf {
        let mut c = json!({"dialect": "morph-xml", "tools": [
            {"name": "get_weather", "schema": {"type": "object", "properties": {
                "city": {"type": "string"}, "days": {"type": "integer"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "opts": {"type": "object"}}}},
            {"name": "get", "schema": {"type": "object", "properties": {"x": {"type": "number"}}}}
        ]});
        if stops {
            c["stop_sequences"] = json!(["\nUser:"]);
        }
        if drop {
            c["on_malformed"] = json!("drop");
        }
        ConfigBuf::from_value(&c).unwrap()
    }

    fn qwen_config(stops: bool, schema: bool) -> ConfigBuf {
        let mut c = json!({"dialect": "qwen3-coder"});
        if stops {
            c["stop_sequences"] = json!(["\nUser:"]);
        }
        if schema {
            c["tools"] = json!([{"name": "get_weather", "schema": {"type": "object", "properties": {
            "city": {"type": "string"}, "days": {"type": "integer"}, "s": {"type": "string"}}}},
            {"name": "f", "schema": {"type": "object", "properties": {"days": {"type": "boolean"}}}}]);
        }
        ConfigBuf::from_value(&c).unwrap()
    }

    /// Names and ids never carry markup; top-level text never carries a thinking marker.
    fn no_wire_syntax(events: &[Value]) -> Result<(), String> {
        for e in events.iter().filter(|e| e["event"] == "chunk") {
            let t = e["text"].as_str().unwrap_or("");
            if e["type"] == "tool_call" && e["part"] != "input" && t.contains(['<', '>']) {
                return Err(format!("markup in a tool name or id: {e}"));
            }
            if e["type"] == "thinking" && t.contains("</think>") {
                return Err(format!("closer in thinking chunk: {e}"));
            }
        }
        Ok(())
    }

    fn check(config: &ConfigBuf, data: &[u8], sizes: &[usize]) -> Result<(), TestCaseError> {
        let whole = coalesce(run(config, None, data, &[data.len().max(1)]));
        let split = coalesce(run(config, None, data, sizes));
        prop_assert_eq!(&whole, &split, "input {:?}", String::from_utf8_lossy(data));
        let one = coalesce(run(config, None, data, &[1]));
        prop_assert_eq!(&whole, &one, "input {:?}", String::from_utf8_lossy(data));
        let errs = lint(&whole);
        prop_assert!(
            errs.is_empty(),
            "{:?}\n{:?}",
            errs,
            String::from_utf8_lossy(data)
        );
        prop_assert!(
            no_wire_syntax(&whole).is_ok(),
            "{:?}",
            no_wire_syntax(&whole)
        );
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        #[test]
        fn morph_xml_chunk_invariance(data in input(MORPH_ATOMS), sizes in splits(),
                                      stops in any::<bool>(), drop in any::<bool>()) {
            check(&morph_config(stops, drop), &data, &sizes)?;
        }

        #[test]
        fn qwen3_coder_chunk_invariance(data in input(QWEN_ATOMS), sizes in splits(),
                                        stops in any::<bool>(), schema in any::<bool>()) {
            check(&qwen_config(stops, schema), &data, &sizes)?;
        }

        /// Well-formed calls with random argument texts: always one successful call whose
        /// input is a JSON object, at any chunking.
        #[test]
        fn morph_xml_well_formed_calls(city in "[ a-zA-Z&<>;é東🌏\n]{0,12}", days in "[ 0-9a]{0,4}",
                                       tags in prop::collection::vec("[a-z &;]{0,5}", 0..4),
                                       sizes in splits()) {
            let mut call = String::from("<get_weather>\n<city>");
            call.push_str(&city.replace("</city>", ""));
            call.push_str("</city>\n<days>");
            call.push_str(&days);
            call.push_str("</days>\n");
            for t in &tags {
                call.push_str(&format!("<tags>{t}</tags>"));
            }
            call.push_str("\n</get_weather>");
            let config = morph_config(false, false);
            check(&config, call.as_bytes(), &sizes)?;
            let events = coalesce(run(&config, None, call.as_bytes(), &sizes));
            let done: Vec<&Value> = events.iter()
                .filter(|e| e["event"] == "block_complete" && e["type"] == "tool_call").collect();
            prop_assert_eq!(done.len(), 1, "{:?}", call);
            prop_assert!(done[0].get("error").is_none(), "{:?} {:?}", call, done[0]);
            prop_assert!(done[0]["input"].is_object());
            // A blank element adds no item; any other is one string item.
            let items = tags.iter().filter(|t| !t.trim().is_empty()).count();
            if !tags.is_empty() {
                prop_assert_eq!(done[0]["input"]["tags"].as_array().map(Vec::len), Some(items));
            }
        }

        /// Well-formed qwen3-coder calls: one successful call per function, at any chunking.
        #[test]
        fn qwen3_coder_well_formed_calls(values in prop::collection::vec("[ a-z0-9<>&\"\n{}\\[\\],:]{0,10}", 1..4),
                                         sizes in splits(), schema in any::<bool>()) {
            let mut call = String::from("<tool_call>\n<function=get_weather>\n");
            for (i, v) in values.iter().enumerate() {
                let key = ["city", "days", "s"][i % 3];
                call.push_str(&format!("<parameter={key}>\n{}\n</parameter>\n", v.replace("</parameter>", "")));
            }
            call.push_str("</function>\n</tool_call>");
            let config = qwen_config(false, schema);
            check(&config, call.as_bytes(), &sizes)?;
            let events = coalesce(run(&config, None, call.as_bytes(), &sizes));
            let done: Vec<&Value> = events.iter()
                .filter(|e| e["event"] == "block_complete" && e["type"] == "tool_call").collect();
            prop_assert_eq!(done.len(), 1, "{:?}", call);
            prop_assert!(done[0].get("error").is_none(), "{:?} {:?}", call, done[0]);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        /// A well-formed morph-xml call whose last argument or closer the end of input cuts
        /// (`max_tokens`, docs/design.md, Clarifications, "Tool calls"): the call completes
        /// without error and the cut closer is wire syntax (no text after it), at any chunking.
        #[test]
        fn morph_xml_cut_closer_completes_the_call(city in "[ a-zA-Z&;é東]{0,8}", days in "[ 0-9]{0,3}",
                                                   last in 0usize..3, cut in 0usize..1000, sizes in splits()) {
            let mut data = String::from("<get_weather>\n");
            let args = [format!("<city>{city}"), format!("<days>{days}"), "<unit>C".to_string()];
            let closers = ["</city>", "</days>", "</unit>"];
            for i in 0..last {
                data.push_str(&format!("{}{}\n", args[i], closers[i]));
            }
            data.push_str(&args[last]);
            let suffix = format!("{}\n</get_weather>", closers[last]);
            let kept = &suffix[..1 + cut % suffix.len()];
            data.push_str(kept);
            let config = morph_config(false, false);
            let data = data.as_bytes();
            check(&config, data, &sizes)?;
            let events = coalesce(run(&config, None, data, &sizes));
            let (call, text, depths) = one_call_then_text(&events)
                .map_err(|e| TestCaseError::fail(format!("{e}: {:?}", String::from_utf8_lossy(data))))?;
            prop_assert!(call["input"].is_object());
            prop_assert_eq!(text.as_str(), "", "{:?}", String::from_utf8_lossy(data));
            prop_assert!(depths.is_empty());
        }

        /// The same for qwen3-coder: the cut marker is wire syntax, and so is the whitespace
        /// before it when it sits directly in the wrapper.
        #[test]
        fn qwen3_coder_cut_closer_completes_the_call(values in prop::collection::vec("[ a-z0-9<>&\"\n{}\\[\\],:]{0,10}", 1..3),
                                                     cut in 0usize..1000, sizes in splits(), schema in any::<bool>()) {
            let mut data = String::from("<tool_call>\n<function=get_weather>\n");
            for (i, v) in values.iter().enumerate() {
                let key = ["city", "days", "s"][i % 3];
                data.push_str(&format!("<parameter={key}>\n{v}"));
                if i + 1 < values.len() {
                    data.push_str("\n</parameter>\n");
                }
            }
            let suffix = "</parameter>\n</function>\n</tool_call>";
            let kept = &suffix[..1 + cut % suffix.len()];
            data.push_str(kept);
            let config = qwen_config(false, schema);
            let data = data.as_bytes();
            check(&config, data, &sizes)?;
            let events = coalesce(run(&config, None, data, &sizes));
            let (call, text, depths) = one_call_then_text(&events)
                .map_err(|e| TestCaseError::fail(format!("{e}: {:?}", String::from_utf8_lossy(data))))?;
            prop_assert!(call["input"].is_object());
            prop_assert_eq!(text.as_str(), "", "{:?}", String::from_utf8_lossy(data));
            prop_assert!(depths.is_empty());
        }
    }

    /// Entities and look-ahead markers split at every position give the same events.
    #[test]
    fn every_split_point_of_entities_and_markers() {
        let morph = morph_config(false, false);
        let m =
            "x <get_weather>\n<city>a &amp; b &lt;é&quot;</city><tags>&apos;t</tags></get_weather>";
        let qwen = qwen_config(false, true);
        let q = "Use <tool_call> then\n<tool_call> \n<function=get_weather>\n<parameter=s>\n東 &amp;\n</parameter>\n</function>\n</tool_call>";
        for (config, text) in [(&morph, m), (&qwen, q)] {
            let data = text.as_bytes();
            let whole = coalesce(run(config, None, data, &[data.len()]));
            assert!(lint(&whole).is_empty());
            for cut in 1..data.len() {
                let split = coalesce(run(config, None, data, &[cut, data.len()]));
                assert_eq!(whole, split, "cut at {cut}");
            }
        }
    }
}

const PARAMS: &[Param<'static>] = &[
    Param {
        name: "city",
        value_type: ValueType::String,
        items: ValueType::Any,
    },
    Param {
        name: "days",
        value_type: ValueType::Integer,
        items: ValueType::Any,
    },
    Param {
        name: "tags",
        value_type: ValueType::Array,
        items: ValueType::String,
    },
    Param {
        name: "opts",
        value_type: ValueType::Object,
        items: ValueType::Any,
    },
];
const TOOLS: &[Tool<'static>] = &[
    Tool {
        name: "get_weather",
        params: PARAMS,
    },
    Tool {
        name: "get",
        params: &[],
    },
];
const STOPS: &[&str] = &["\nUser:"];

fn count_while_parsing(config: &Config<'_>, input: &[u8], chunk: usize) -> (usize, usize) {
    let mut memory = [0u8; DEFAULT_MEMORY];
    let mut sieve = Sieve::with_memory(config, &mut memory).unwrap();
    let mut events = 0usize;
    let before = allocations();
    for piece in input.chunks(chunk) {
        let mut rest = piece;
        while let Some(ev) = sieve.next(&mut rest) {
            events += 1;
            std::hint::black_box(&ev);
        }
    }
    sieve.finish();
    while let Some(ev) = sieve.next(&mut &b""[..]) {
        events += matches!(ev, Event::BlockComplete(_)) as usize;
    }
    (allocations() - before, events)
}

#[test]
fn feeding_never_allocates() {
    let morph: &[u8] = b"Hi <b>a < b</b> \xe6\x9d\xb1 \xff <think>x <get/></think>\n\
<get_weather>\n<city> Par&amp;is \xf0\x9f\x8c\x8f</city>\n<days> 3 </days>\n<tags>a</tags><tags><item>b</item></tags>\n\
<opts><k>1</k><k>2</k><m>{\"a\": [1]}</m></opts><extra>x</extra><extra>y</extra><more>1</more>\n</get_weather>\n\
<get/><get_weather>stray</get_weather><get_weather><days>1</city></get_weather> <get_wea";
    let qwen: &[u8] = b"Hi <tool_call> is a tag. \xe6\x9d\xb1 \xff <think>x</think>\n<tool_call>\n\
<function=get_weather>\n<parameter=city>\nPar&amp;is\n\n</parameter>\n<parameter=days>\n 3 \n</parameter>\n\
<parameter=opts>\n{\"a\": [1, 2]}\n</parameter>\n<parameter=x>\nword\n</parameter>\n</function>\nnote\n\
<function=f>\nstray\n</function>\n<function>\n</function>\n</tool_call>\n<tool_call>\n<function=g>\n<parameter=p>\nab";
    for (dialect, one) in [(Dialect::MorphXml, morph), (Dialect::Qwen3Coder, qwen)] {
        let input = one.repeat(100);
        let config = Config {
            stop_sequences: StrList::Strs(STOPS),
            tools: ToolList::Tools(TOOLS),
            ..Config::new(dialect)
        };
        for chunk in [1, 4, 7, 65_536] {
            let (allocations, events) = count_while_parsing(&config, &input, chunk);
            assert!(
                events > 1000 || chunk == 65_536,
                "{dialect:?}/{chunk}: only {events} events"
            );
            assert_eq!(
                allocations, 0,
                "{dialect:?} at {chunk}-byte chunks allocated {allocations} times"
            );
        }
    }
}
