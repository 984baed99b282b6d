#![cfg(feature = "alloc")]
//! `format_tool_definitions` compared byte for byte with what each family's published chat
//! template renders for the same tools.
//!
//! The fixtures in `tool_definitions/` were made by `tool_definitions/gen.py` (jinja2, with
//! the environment transformers gives chat templates) from the tools in
//! `tool_definitions/tools.json`; it records each template's repository, path and commit:
//!
//! | fixture | template |
//! | --- | --- |
//! | hermes | ye-NX/llama.cpp `models/templates/Qwen-Qwen3-0.6B.jinja` @ b354d7c9ecb7 |
//! | qwen3-coder | wbpxre150/llama.cpp `models/templates/Qwen3-Coder.jinja` @ 90dd63ae86bd |
//! | harmony | ye-NX/llama.cpp `models/templates/openai-gpt-oss-120b.jinja` @ b354d7c9ecb7 |
//! | llama3-json | ye-NX/llama.cpp `models/templates/meta-llama-Llama-3.3-70B-Instruct.jinja` @ b354d7c9ecb7 |
//! | mistral | ye-NX/llama.cpp `models/templates/unsloth-mistral-Devstral-Small-2507.jinja` @ b354d7c9ecb7 |
//! | kimi-k2 | ggml-org/llama.cpp `models/templates/moonshotai-Kimi-K2.jinja` @ 02f4a631678b |
//! | deepseek-v3.1 | sgl-project/sglang `examples/chat_template/tool_chat_template_deepseekv31.jinja` @ 365525805e50 |
//! | glm-4.5 | ggml-org/llama.cpp `models/templates/glm_4_5.jinja` @ 623f3dd04b05 |
//! | minimax-m2 | ggml-org/llama.cpp `models/templates/unsloth-MiniMax-M2.jinja` @ a21f05affbf6 |
//! | seed-oss | ggml-org/llama.cpp `models/templates/ByteDance-Seed-OSS.jinja` @ b1933d306f92 |
//! | deepseek-v3.2 | ggml-org/llama.cpp `models/templates/DeepSeek-V3.2.jinja` @ 708653def250 |
//! | deepseek-v4 | sgl-project/sglang `examples/chat_template/tool_chat_template_deepseekv4.jinja` @ f4d42afb6702 |
//! | pythonic | vllm-project/vllm `examples/tool_chat_template_llama3.2_pythonic.jinja` @ 3a9445d9d68e |
//! | phi-4-mini | vllm-project/vllm `examples/tool_chat_template_phi4_mini.jinja` @ 07b13497a9b5 |
//! | lfm2 | ggml-org/llama.cpp `models/templates/llama-cpp-lfm2.jinja` @ 3700b6f7b10b |
//! | granite | ye-NX/llama.cpp `models/templates/ibm-granite-granite-3.3-2B-Instruct.jinja` @ b354d7c9ecb7 |
//! | olmo-3 | vllm-project/vllm `examples/tool_chat_template_olmo3.jinja` @ 2e30b474731f |
//! | xlam | vllm-project/vllm `examples/tool_chat_template_xlam_qwen.jinja` @ 31106f4f486d |
//! | deepseek-v3 | sgl-project/sglang `examples/chat_template/tool_chat_template_deepseekv3.jinja` @ 11507615695b |
//! | apertus | ye-NX/llama.cpp `models/templates/Apertus-8B-Instruct.jinja` @ b354d7c9ecb7 |
//! | cohere-command | ggml-org/llama.cpp `models/templates/CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja` @ 041462bd55ae |
//! | gemma-4 | ggml-org/llama.cpp `models/templates/gemma4.jinja` @ 75f1ba738906 (the first two tools) |
//! | anthropic-xml | no public template: Claude's tool-prompt form, written by `gen.py` itself |
//!
//! (The llama.cpp forks hold the same files as ggml-org/llama.cpp's `models/templates/`.)

use tokensieve::format::{ToolDef, format_tool_definitions};
use tokensieve::{Config, Dialect};

const TOOLS: &str = include_str!("tool_definitions/tools.json");

/// The tools in the config's tool-list form: name, description, schema as JSON text (keys in
/// order and numbers as written: serde_json with `preserve_order` and `arbitrary_precision`).
fn tools() -> Vec<(String, Option<String>, Option<String>)> {
    let list: serde_json::Value = serde_json::from_str(TOOLS).unwrap();
    list.as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t.get("description")
                    .and_then(|d| d.as_str())
                    .map(String::from),
                t.get("schema").map(|s| s.to_string()),
            )
        })
        .collect()
}

fn render(dialect: Dialect) -> String {
    let mut owned = tools();
    // gemma-4's template fails on the third tool (`additionalProperties: false`): its fixture
    // holds the first two (gen.py's TOOL_COUNT).
    if dialect == Dialect::Gemma4 {
        owned.truncate(2);
    }
    let defs: Vec<ToolDef<'_>> = owned
        .iter()
        .map(|(name, description, schema)| ToolDef {
            name,
            description: description.as_deref(),
            schema: schema.as_deref(),
        })
        .collect();
    format_tool_definitions(&Config::new(dialect), &defs).unwrap()
}

fn check(dialect: Dialect, fixture: &str) {
    let got = render(dialect);
    if got != fixture {
        // Where they part, and some context, in characters.
        let (g, w): (Vec<char>, Vec<char>) = (got.chars().collect(), fixture.chars().collect());
        let at = g
            .iter()
            .zip(&w)
            .position(|(a, b)| a != b)
            .unwrap_or(g.len().min(w.len()));
        let around = |v: &[char]| -> String {
            v[at.saturating_sub(40)..(at + 80).min(v.len())]
                .iter()
                .collect()
        };
        panic!(
            "{}: differs from the template's rendering at character {at}:\n got: {:?}\nwant: {:?}",
            dialect.name(),
            around(&g),
            around(&w),
        );
    }
}

macro_rules! fixture {
    ($($test:ident: $dialect:ident, $file:literal;)*) => {$(
        #[test]
        fn $test() {
            check(Dialect::$dialect, include_str!(concat!("tool_definitions/", $file, ".txt")));
        }
    )*};
}

fixture! {
    hermes_qwen3: Hermes, "hermes";
    qwen3_coder: Qwen3Coder, "qwen3-coder";
    anthropic_xml: AnthropicXml, "anthropic-xml";
    harmony: Harmony, "harmony";
    llama3_json: Llama3Json, "llama3-json";
    mistral: Mistral, "mistral";
    kimi_k2: KimiK2, "kimi-k2";
    deepseek_v31: DeepSeekV31, "deepseek-v3.1";
    glm_45: Glm45, "glm-4.5";
    minimax_m2: MinimaxM2, "minimax-m2";
    seed_oss: SeedOss, "seed-oss";
    deepseek_v32: DeepSeekV32, "deepseek-v3.2";
    deepseek_v4: DeepSeekV4, "deepseek-v4";
    pythonic: Pythonic, "pythonic";
    phi_4_mini: Phi4Mini, "phi-4-mini";
    lfm2: Lfm2, "lfm2";
    granite: Granite, "granite";
    olmo_3: Olmo3, "olmo-3";
    xlam: Xlam, "xlam";
    deepseek_v3: DeepSeekV3, "deepseek-v3";
    apertus: Apertus, "apertus";
    cohere_command: CohereCommand, "cohere-command";
    gemma_4: Gemma4, "gemma-4";
}

fn one(dialect: Dialect, def: ToolDef<'_>) -> String {
    format_tool_definitions(&Config::new(dialect), &[def]).unwrap()
}

#[test]
fn every_preset_writes_a_section_naming_each_tool() {
    let owned = tools();
    let defs: Vec<ToolDef<'_>> = owned
        .iter()
        .map(|(name, description, schema)| ToolDef {
            name,
            description: description.as_deref(),
            schema: schema.as_deref(),
        })
        .collect();
    for d in Dialect::ALL {
        let got = format_tool_definitions(&Config::new(d), &defs);
        if d == Dialect::Passthrough {
            assert_eq!(
                got.unwrap_err().to_string(),
                "call 0: the dialect writes no tool calls"
            );
            continue;
        }
        let text = got.unwrap_or_else(|e| panic!("{}: {e}", d.name()));
        for (name, _, _) in &owned {
            assert!(text.contains(name.as_str()), "{}: {name} missing", d.name());
        }
        assert_eq!(format_tool_definitions(&Config::new(d), &[]).unwrap(), "");
    }
}

#[test]
fn the_conventional_form_shows_a_call_in_the_format() {
    let def = ToolDef {
        name: "f",
        description: Some("Does f."),
        schema: Some(r#"{"type": "object", "properties": {}}"#),
    };
    let text = one(Dialect::Hunyuan, def);
    assert!(
        text.starts_with("# Tools\n\nYou may call one or more functions"),
        "{text}"
    );
    assert!(text.contains("\n<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"f\", \"description\": \"Does f.\", \"parameters\": {\"type\": \"object\", \"properties\": {}}}}\n</tools>\n"));
    let example = tokensieve::format::format_tool_calls(
        &Config::new(Dialect::Hunyuan),
        &[tokensieve::format::ToolCallIn {
            name: "example_function_name",
            id: None,
            arguments: r#"{"example_parameter": "value"}"#,
        }],
    )
    .unwrap();
    assert!(example.contains("<tool_sep>"), "{example}");
    assert!(
        text.ends_with(&format!(
            "For each function call, write it in this format:\n{example}"
        )),
        "{text}"
    );
    // morph-xml writes only configured tools: the example is written by hand.
    assert!(one(Dialect::MorphXml, def).ends_with(
        "<example_function_name><example_parameter>value</example_parameter></example_function_name>"
    ));
}

#[test]
fn a_host_description_gets_its_shape_conventional_form() {
    let buf = tokensieve::ConfigBuf::from_json(
        r#"{"dialect": {"shape": "xml-params", "wrapper": ["<seed:tool_call>", "</seed:tool_call>"]}}"#,
    )
    .unwrap();
    let def = ToolDef {
        name: "f",
        description: None,
        schema: None,
    };
    let text = format_tool_definitions(&buf.config(), &[def]).unwrap();
    assert!(
        text.contains("{\"type\": \"function\", \"function\": {\"name\": \"f\"}}"),
        "{text}"
    );
    assert!(text.ends_with("<seed:tool_call>\n<function=example_function_name>\n<parameter=example_parameter>\nvalue\n</parameter>\n</function>\n</seed:tool_call>"), "{text}");
}

#[test]
fn no_description_and_no_schema() {
    let def = ToolDef {
        name: "ping",
        description: None,
        schema: None,
    };
    assert_eq!(
        one(Dialect::Harmony, def),
        "# Tools\n\n## functions\n\nnamespace functions {\n\ntype ping = () => any;\n\n} // namespace functions"
    );
    assert!(one(Dialect::Qwen3Coder, def).contains(
        "<function>\n<name>ping</name>\n<description></description>\n<parameters>\n</parameters>\n</function>"
    ));
    assert!(one(Dialect::DeepSeekV31, def).contains("### ping\nDescription: \n\nParameters: {}\n"));
    assert!(one(Dialect::AnthropicXml, def).contains("<function>{\"name\": \"ping\"}</function>"));
}

#[test]
fn numbers_and_key_order_as_given() {
    let def = ToolDef {
        name: "f",
        description: None,
        schema: Some(r#"{"z": 1.50, "a": 1e400, "m": -0.0}"#),
    };
    assert!(
        one(Dialect::KimiK2, def).contains(r#""parameters": {"z": 1.50, "a": 1e400, "m": -0.0}"#)
    );
}

#[test]
fn strings_cannot_spell_the_markers() {
    let def = ToolDef {
        name: "f",
        description: Some("ends </tools> and <|im_end|> here\u{1}"),
        schema: None,
    };
    let text = one(Dialect::Hermes, def);
    assert!(
        text.contains(r#""description": "ends \u003c/tools> and \u003c|im_end|> here\u0001""#),
        "{text}"
    );
    assert_eq!(text.matches("</tools>").count(), 2, "{text}");
    let kimi = one(
        Dialect::KimiK2,
        ToolDef {
            description: Some("<|im_end|>"),
            ..def
        },
    );
    assert_eq!(kimi.matches("<|im_end|>").count(), 1, "{kimi}");
    let mistral = one(
        Dialect::Mistral,
        ToolDef {
            description: Some("[/AVAILABLE_TOOLS]"),
            ..def
        },
    );
    assert_eq!(
        mistral.matches("[/AVAILABLE_TOOLS]").count(),
        1,
        "{mistral}"
    );
}

#[test]
fn bad_tools_are_errors_that_say_which_and_why() {
    let cfg = Config::new(Dialect::Hermes);
    let ok = ToolDef {
        name: "f",
        description: None,
        schema: None,
    };
    let err = |def: ToolDef<'_>| {
        format_tool_definitions(&cfg, &[ok, def])
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err(ToolDef { name: "", ..ok }),
        "tool 1: the name cannot be written: it is empty"
    );
    assert_eq!(
        err(ToolDef {
            schema: Some("[1]"),
            ..ok
        }),
        "tool 1: the schema is not a JSON object"
    );
    assert!(
        err(ToolDef {
            schema: Some("{\"a\": tru}"),
            ..ok
        })
        .starts_with("tool 1: the schema is not JSON: "),
    );
}

#[test]
fn gemma_4_search() {
    // The third tool less `extra` and `filter` (gemma-4's template fails on them), as gen.py
    // renders it.
    let (name, description, schema) = tools().swap_remove(2);
    let mut schema: serde_json::Value = serde_json::from_str(&schema.unwrap()).unwrap();
    let props = schema["properties"].as_object_mut().unwrap();
    props.shift_remove("extra");
    props.shift_remove("filter");
    let schema = schema.to_string();
    let def = ToolDef {
        name: &name,
        description: description.as_deref(),
        schema: Some(&schema),
    };
    assert_eq!(
        one(Dialect::Gemma4, def),
        include_str!("tool_definitions/gemma-4-search.txt")
    );
}

#[test]
fn replaced_call_markers_get_the_conventional_form() {
    let config = Config {
        tool_call_markers: Some(("<call>", "</call>")),
        ..Config::new(Dialect::Hermes)
    };
    let def = ToolDef {
        name: "f",
        description: None,
        schema: None,
    };
    let text = format_tool_definitions(&config, &[def]).unwrap();
    assert!(
        text.ends_with("write it in this format:\n<call>\n{\"name\": \"example_function_name\", \"arguments\": {\"example_parameter\": \"value\"}}\n</call>"),
        "{text}"
    );
}
