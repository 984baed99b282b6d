//! Zero heap allocations in feed/next/finish (docs/design.md "Measured, not assumed"), proven with
//! a counting global allocator. CI runs this with `alloc` off
//! (`cargo test -p tokensieve --no-default-features --test zero_alloc`); with `alloc` on it
//! checks the caller-memory parser, which must not allocate either.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    // Per thread: the test harness's own threads allocate while a test runs.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

// SAFETY: forwards to the system allocator unchanged; only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

use tokensieve::{
    BlockType, Config, DEFAULT_MEMORY, Dialect, Event, Param, Sieve, StrList, Tool, ToolList,
    ValueType,
};

/// A mixed transcript exercising every path: text, thinking, calls with typed and untyped
/// parameters, CDATA, a failed call, results, multibyte and invalid UTF-8, near-miss tags.
fn transcript() -> Vec<u8> {
    let one: &[u8] = b"Let me think <b>a < b</b> \xe6\x9d\xb1\xe4\xba\xac \xf0\x9f\x8c\x8f \xff.\n\
<thinking mode='deep'>Plan: call f, then g. <thinking about it></thinking>\n\n\
<function_calls>\n<invoke name=\"f\">\n<parameter name=\"s\">\nline \"one\"\n</parameter>\n\
<parameter name=\"n\"> 42 </parameter>\n<parameter name=\"j\">{\"a\": [1, 2.50]}</parameter>\n\
<parameter name=\"c\"><![CDATA[x</parameter>]]></parameter>\n</invoke>\n\
<invoke name=\"g\">stray</invoke>\n</function_calls>\n\
<function_results>\n<result tool_use_id=\"t1\">\n<tool_name>f</tool_name>\n<stdout>ok \xe2\x82</stdout>\n</result>\n\
</function_results>\nDone, <thinkin <thinking_x> \nHum\n\
<think>hermes</think><tool_call>\n{\"name\": \"f\", \"arguments\": {\"s\": \"a\\u00e9\\uD83D\\uDE00\", n: 1.50, l: [1, 'x',], // c\n}}\n</tool_call>\n\
<tool_call>{\"arguments\": \"{\\\"k\\\": true}\", \"name\": \"g\"}</tool_call><tool_call>[{\"name\": \"f\"}, {oops}]</tool_call>\n\
<tool_response>ok</tool_response>\n\
<tool_call>\n<function=f>\n<parameter=s>\nx &amp; y\n</parameter>\n<parameter=n>7</parameter>\n</function>\n</tool_call>\n\
<f><s>a &lt; b</s><n> 3 </n><l>1</l><l>2</l></f> <f/> <ff>x</ff>\n\
<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"s\">\nline\n</parameter>\n<parameter name=\"n\"> 42 </parameter>\n\
</invoke>\n<invoke name=\"g\">stray</invoke>\n</minimax:tool_call>\n\
<tool_call>f\n<arg_key>s</arg_key>\n<arg_value>\nline\n</arg_value>\n<arg_key>n</arg_key><arg_value> 42 </arg_value>\n</tool_call>\n\
<tool_call>g\n<arg_key>k</arg_key>\nstray\n</tool_call>\n\
<|channel|>analysis<|message|>why<|end|><|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"s\": \"a\\u00e9\", n: 2}<|call|>\
<|start|>functions.f to=assistant<|channel|>commentary<|message|>ok<|end|><|channel|>final<|message|>bye <|x|><|return|>\n\
<|tool_calls_section_begin|>\n<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"s\": \"a\\u00e9\", n: 1.50, l: [1, 'x',]}<|tool_call_end|>\n\
<|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>{oops<|tool_call_end|> stray <|tool_calls_section_end|>\n\
<|python_start|>[f(s='it\\'s\\n', n=42, l=[1, (2, None)], d={'a': True}), g()]<|python_end|> [1, 2]\n\
[f(x=1, 2)] [f(s=2 x)]\n\
[THINK]mistral[/THINK]On it.[TOOL_CALLS]f[ARGS]{\"s\": \"a\\u00e9\", n: 2,}[TOOL_CALLS]g[CALL_ID]x1[ARGS]\"{\\\"k\\\": 1}\"\n\
[TOOL_CALLS] [{\"name\": \"f\", \"arguments\": {}}, {oops}] [TOOL_CALLS]h\xff{} [TOOL_CA\n\
<|python_tag|>{\"name\": \"f\", \"parameters\": {\"s\": \"x\"}}; {\"name\": \"g\", \"parameters\": {n: 1,}}\n\
<|python_tag|>{\"name\": \"f\", \"parameters\": {\"s\": }}<|python_tag|>code() <|python_ta\n";
    // The DeepSeek markers (fullwidth bars, U+2581) are not ASCII: a str.
    let deepseek = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"s\": \"\\u00e9\", n: [1, 'x',]}<｜tool▁call▁end｜>\n\
<｜tool▁call▁begin｜>g<｜tool▁sep｜>{oops<｜tool▁call▁end｜><｜tool▁calls▁end｜> <｜tool▁call▁begin｜>h<｜tool▁sep｜>{}<｜tool▁call▁end｜>\n\
<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"s\": \"```\", n: 1.50}\n```<｜tool▁call▁end｜>\n<｜tool▁calls▁end｜>\n\
<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"s\" string=\"true\">a \"q\"</｜DSML｜parameter>\n\
<｜DSML｜parameter name=\"n\" string=\"false\">42</｜DSML｜parameter>\n</｜DSML｜invoke>\n<|DSML|invoke name=\"g\">stray</|DSML|invoke>\n</｜DSML｜function_calls>\n\
<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"s\" string=\"true\">x</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>\n\
<seed:think>why</seed:think><seed:tool_call>\n<function=f>\n<parameter=s>\nx\n</parameter>\n<parameter=n>7</parameter>\n</function>\n</seed:tool_call>\n\
<function_calls>\nf(s='a\\'b', n=42)\ng(x=[1, {\"k\": null}])\nbad(1)\n</function_calls>\n<|tool_call_start|>[f(s=\"x\"), g()]<|tool_call_end|>\n\
<|START_THINKING|>plan<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"f\", \"parameters\": {\"s\": \"\\u00e9\", n: 2}}, {oops}]<|END_ACTION|>\
<|START_RESPONSE|>ok<|END_RESPONSE|><|START_TEXT|>t<|END_TEXT|><|START_ACTION|>[{\"tool_name\": \"g\", \"parameters\": {}}]<|END_ACT\n\
<think>g<|tool_call|>[{\"name\": \"f\", \"arguments\": {\"s\": \"x\"}}, {oops}, {\"name\": \"g\", \"arguments\": {n: 1]}}</think> x <|tool_call|>{\"name\": \"h\"} <response>ok</response>\n\
functools.partial functools[{\"name\": \"f\", \"arguments\": {\"s\": \"x\"}}, {\"name\": \"g\", \"parameters\": [1]}] ok functools[{\"name\": \"h\"\n\
<|inner_prefix|>why<|tools_prefix|>[{\"f\": {\"s\": \"\\u00e9\", n: 2}}, {\"g\": \"{\\\"k\\\": 1}\"}, {\"h\": 3}]<|tools_suffix|><|inner_suffix|>ok <|tools_prefix|>[{}]<|tools_suf\n\
```json\n[{\"name\": \"f\", \"arguments\": {\"s\": \"x\"}}, {oops}]\n```\n```json\n{\"name\": \"g\", \"arguments\": \"{}\"}\n``\n\
<|channel>thought\nwhy<channel|><|tool_call>call:f{s:<|\"|>a \"q\" é\n<|\"|>,n:42,l:[1,<|\"|>x<|\"|>],o:{k:null}}<tool_call|>\
<|tool_call>call:g{oops<|\"|>x<|\"|>}<tool_call|>\n<|tool_response>response:f{value:<|\"|>ok<|\"|>}<tool_response|>\n\
<start_function_call>call:f{s:<escape>a \"q\"<escape>,n:1.50,l:[true,<escape>x<escape>]}<end_function_call>\
<start_function_call>call:{}<end_function_call>\n<start_function_response>response:f{value:<escape>ok<escape>}<end_function_response>\n\
<function name=\"f\">\n<param name=\"s\"><![CDATA[a </param> b]]></param>\n<param name=\"n\"> 42 </param>\n</function>\n\
<function>nameless</function> <function name=\"g\">stray</function> <function name=\"h\"><param name=\"s\"><![CDATA[cut\n\
<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\">\n<steptml:parameter name=\"s\">x</steptml:parameter>\n\
</steptml:invoke><｜tool_call_end｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke>x</steptml:invoke> stray <｜tool_calls_end｜>\n\
</mm:think><mm:think>why</mm:think>]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"f\">]<]minimax[>[<s>a \"q\" ]<]minimax[>[ é]<]minimax[>[</s>\
]<]minimax[>[<n> 42 ]<]minimax[>[</n>]<]minimax[>[<o>]<]minimax[>[<k>v]<]minimax[>[</k>]<]minimax[>[<k>w]<]minimax[>[</k>]<]minimax[>[</o>\
]<]minimax[>[<l>]<]minimax[>[<item>1]<]minimax[>[</item>]<]minimax[>[</l>]<]minimax[>[</invoke>\n]<]minimax[>[<invoke name=\"g\">stray]<]minimax[>[</invoke>\n\
]<]minimax[>[</tool_call> ]<]minimax[>[ x ]<]minimax[>[<tool_call>]<]minimax[>[<invoke name=\"h\">]<]minimax[>[<s>cut]<]mini\n\
<|message_model|><|content_thinking|>why<|end_message|><|message_model|><|content_invoke_tool_json|>{\"name\": \"f\", \"args\": {\"s\": \"x\", n: 1}}<|end_message|>\
<|message_model|><|content_text|>ok<|end_message|><|content_invoke_tool_json|>{oops}<|end_message|><|content_model_end_sampling|>\n\
<|open|>think<|sep|>why<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument key=\"s\" type=\"string\"<|sep|>a &amp; \"q\" é\n<|close|>argument<|sep|>\
<|open|>argument key=\"n\" type=\"number\"<|sep|>1.50<|close|>argument<|sep|><|open|>argument key=\"o\" type=\"object\"<|sep|>{\"k\": [1, null]}<|close|>argument<|sep|>\
<|open|>argument key=\"p\"<|sep|> 7 <|close|>argument<|sep|><|close|>call<|sep|>\n<|open|>call tool=\"g&quot;x\" index=\"2\"<|sep|>stray<|close|>call<|sep|><|open|>call index=\"3\"<|sep|><|close|>call<|sep|> stray \
<|close|>tools<|sep|><|close|>think<|sep|><|open|>response<|sep|>ok<|close|>response<|sep|><|close|>message<|sep|><|end_of_msg|>\n\
<|open|>call tool=\"h\"<|sep|><|open|>argument key=\"s\" type=\"json\"<|sep|>\"x\"<|close|>call<|sep|><|open|>call tool=\"h\"<|sep|><|open|>json type=\"object\"<|sep|>{}<|close|>json<|sep|><|close|>call<|sep|>\n";
    [one, deepseek.as_bytes()].concat().repeat(200)
}

/// (allocations, events, tool_call blocks) while parsing `input` in `chunk`-byte pieces.
fn count_while_parsing(config: &Config<'_>, input: &[u8], chunk: usize) -> (usize, usize, usize) {
    let mut memory = [0u8; DEFAULT_MEMORY];
    let mut sieve = Sieve::with_memory(config, &mut memory).unwrap();
    let mut events = 0usize;
    let mut calls = 0usize;
    let before = allocations();
    for piece in input.chunks(chunk) {
        let mut rest = piece;
        while let Some(ev) = sieve.next(&mut rest) {
            events += 1;
            calls += matches!(
                ev,
                Event::BlockStart {
                    block_type: BlockType::ToolCall,
                    ..
                }
            ) as usize;
            std::hint::black_box(&ev);
        }
    }
    sieve.finish();
    while let Some(ev) = sieve.next(&mut &b""[..]) {
        events += matches!(ev, Event::BlockComplete(_)) as usize;
    }
    (allocations() - before, events, calls)
}

const PARAMS: &[Param<'static>] = &[
    Param {
        name: "s",
        value_type: ValueType::String,
        items: ValueType::Any,
    },
    Param {
        name: "n",
        value_type: ValueType::Integer,
        items: ValueType::Any,
    },
];
const TOOLS: &[Tool<'static>] = &[Tool {
    name: "f",
    params: PARAMS,
}];
const STOPS: &[&str] = &["\nHuman:", "<|eot|>"];

#[test]
fn the_counter_sees_allocations() {
    let before = allocations();
    let v: Vec<u8> = std::hint::black_box(Vec::with_capacity(10));
    drop(v);
    assert_eq!(allocations() - before, 1);
}

#[test]
fn feeding_never_allocates() {
    let input = transcript();
    for dialect in Dialect::ALL {
        let config = Config {
            stop_sequences: StrList::Strs(STOPS),
            tools: ToolList::Tools(TOOLS),
            ..Config::new(dialect)
        };
        for chunk in [4, 1, 7, 65_536] {
            let (allocations, events, calls) = count_while_parsing(&config, &input, chunk);
            if dialect != Dialect::Passthrough {
                assert!(
                    calls >= 200,
                    "{dialect:?}: the transcript has no calls of this dialect ({calls})"
                );
            }
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

/// Host-defined dialects (docs/design.md, "Dialect descriptions") read their markers from the
/// configuration's memory: feeding allocates nothing for them either, nor with
/// `unknown_tools: Fail` (a failed call's raw text lives in the memory given).
#[test]
fn feeding_never_allocates_with_a_description() {
    use tokensieve::{Description, Shape, UnknownTools};
    let seed = Description {
        wrapper: ("<seed:tool_call>", "</seed:tool_call>"),
        thinking_tags: ("<seed:think>", "</seed:think>"),
        ..Description::preset(Dialect::Qwen3Coder).unwrap()
    };
    let json = Description {
        shape: Shape::JsonCall,
        wrapper: ("<|call|>", "<|/call|>"),
        result_wrapper: Some(("<|result|>", "<|/result|>")),
        markup: Some(("<answer>", "</answer>")),
        name_keys: StrList::Strs(&["tool_name", "name"]),
        argument_keys: StrList::Strs(&["args"]),
        thinking_tags: ("<|think|>", "<|/think|>"),
        elements: StrList::Strs(&[]),
        tag_prefixes: StrList::Strs(&[]),
        string_attribute: None,
        bare_calls: false,
        more_markup: StrList::Strs(&[]),
        name_as_key: false,
        bare_array: false,
        cdata: false,
        call_markers: ("", ""),
        header_ends: StrList::Strs(&[]),
        fence: None,
        wire_id: false,
        alt_openers: StrList::Strs(&[]),
        call_header: None,
    };
    let dsml = Description {
        elements: StrList::Strs(&["calls", "call", "arg"]),
        tag_prefixes: StrList::Strs(&["!x!"]),
        string_attribute: Some("str"),
        ..Description::preset(Dialect::DeepSeekV32).unwrap()
    };
    let kv = Description {
        wrapper: ("<hy:call>", "</hy:call>"),
        elements: StrList::Strs(&["k", "v", "sep"]),
        markup: Some(("<calls>", "</calls>")),
        more_markup: StrList::Strs(&["<answer>", "</answer>"]),
        ..Description::preset(Dialect::Glm45).unwrap()
    };
    let kv_text: &[u8] = "<think>Plan \u{6771}\u{4eac}.\n<calls>\n<hy:call>f<sep>\n<k>s</k>\n<v>line \"one\"</v>\n\
<k>n</k><v>7</v>\n</hy:call>\n<hy:call>zz<sep></hy:call></calls>\n<answer>Done <hy:call> x</answer>\n\
<hy:call>f<sep><k>s</k>oops</hy:call>\n"
        .as_bytes();
    let sect = Description {
        wrapper: ("<|calls|>", "<|/calls|>"),
        call_markers: ("<|call|>", "<|/call|>"),
        header_ends: StrList::Strs(&["<|sep|>", "\n"]),
        fence: Some(("```json", "```")),
        wire_id: true,
        ..Description::preset(Dialect::KimiK2).unwrap()
    };
    let sect_text: &[u8] = "<think>Plan \u{6771}\u{4eac}.</think>Sure.<|calls|>\n\
<|call|>function<|sep|>functions.f:0\n```json\n{\"s\": \"line \\\"one\\\"\", \"n\": 7}\n```<|/call|>\n\
<|call|>function<|sep|>zz:1\n{}<|/call|><|call|>function<|sep|>f:2\n{oops<|/call|><|/calls|>\n"
        .as_bytes();
    let seed_text: &[u8] = "<seed:think>Plan \u{6771}\u{4eac}.</seed:think>Sure.\n\
<seed:tool_call>\n<function=f>\n<parameter=s>\nline \"one\"\n</parameter>\n<parameter=n>7</parameter>\n</function>\n\
<function=zz>\n<parameter=a>1</parameter>\n</function>\n</seed:tool_call>\n"
        .as_bytes();
    let json_text: &[u8] = b"<|think|>why<|/think|><answer>Ok <|call|>{\"tool_name\": \"f\", \"args\": {\"s\": \"a\\u00e9\", n: 1.50}}<|/call|>\n\
<|call|>{\"name\": \"zz\", \"args\": {}}<|/call|><|result|>ok<|/result|> <|call|>{oops}<|/call|></answer>\n";
    let dsml_text: &[u8] = "<think>Plan \u{6771}\u{4eac}.\n<!x!calls>\n<!x!call name=\"f\">\n\
<!x!arg name=\"s\" str=\"true\">line \"one\"</!x!arg>\n<!x!arg name=\"n\" str=\"false\">7</!x!arg>\n</!x!call>\n\
<!x!call name=\"zz\"><!x!arg name=\"a\">[1, {\"b\": null}]</!x!arg></!x!call>\n</!x!calls></think>\nDone <!x!call> x\n"
        .as_bytes();
    for (description, text) in [
        (seed, seed_text),
        (json, json_text),
        (dsml, dsml_text),
        (kv, kv_text),
        (sect, sect_text),
    ] {
        let input = text.repeat(300);
        for unknown_tools in [UnknownTools::Call, UnknownTools::Fail] {
            let config = Config {
                description: Some(description),
                stop_sequences: StrList::Strs(STOPS),
                tools: ToolList::Tools(TOOLS),
                unknown_tools,
                ..Config::new(description.shape.preset())
            };
            config.validate().unwrap();
            for chunk in [4, 1, 7, 65_536] {
                let (allocations, events, calls) = count_while_parsing(&config, &input, chunk);
                assert!(calls >= 600, "{:?}: {calls} calls", description.shape);
                assert!(
                    events > 1000,
                    "{:?}/{chunk}: {events} events",
                    description.shape
                );
                assert_eq!(
                    allocations, 0,
                    "{:?} at {chunk}-byte chunks allocated {allocations} times",
                    description.shape
                );
            }
        }
    }
}
