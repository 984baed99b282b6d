#![cfg(feature = "alloc")]
//! A chunk's tool name and id are handed out without validating them again at every chunk
//! (the configured tool's name, a generated id from a static table): the same texts as the
//! slots hold, for configured and unknown names, the first ids and those past the table,
//! the default and a custom `id_prefix`, borrowed and owned configurations.

mod support;

use tokensieve::{BlockType, Config, ConfigBuf, Dialect, Event, Part, Sieve, Tool, ToolList};

const TOOLS: &[Tool<'static>] = &[
    Tool {
        name: "get_weather",
        params: &[],
    },
    Tool {
        name: "get",
        params: &[],
    },
];

/// The name of the `k`th call: two configured tools, a prefix of one and an unknown one.
fn name(k: usize) -> &'static str {
    ["get_weather", "get", "get_w", "nope"][k % 4]
}

/// 130 hermes calls (past the 100 ids of the table), each with a string argument.
fn transcript() -> Vec<u8> {
    let mut s = String::from("hi\n");
    for k in 0..130 {
        s += &format!(
            "<tool_call>\n{{\"name\":\"{}\",\"arguments\":{{\"city\":\"Zürich {k}\"}}}}\n</tool_call>\n",
            name(k)
        );
    }
    s.into_bytes()
}

/// Every tool name and id the events carry, per call, checked against `prefix`.
fn check(config: &Config<'_>, prefix: &str, chunk: usize) {
    let input = transcript();
    let mut sieve = Sieve::new(config).unwrap();
    let mut calls = 0usize;
    let seen = |ev: Event<'_>, calls: &mut usize| match ev {
        Event::Chunk(c) if c.part == Some(Part::Input) => {
            let k = *calls - 1;
            assert_eq!(c.tool_name, Some(name(k)), "call {k}");
            assert_eq!(c.tool_id, Some(&*format!("{prefix}{k}")), "call {k}");
        }
        Event::BlockStart {
            block_type: BlockType::ToolCall,
            ..
        } => *calls += 1,
        Event::Chunk(c) if c.part == Some(Part::Name) => assert_eq!(c.tool_name, None),
        Event::BlockComplete(b) if b.tool_id.is_some() => {
            let k = *calls - 1;
            assert_eq!(b.tool_name, Some(name(k)), "call {k}");
            assert_eq!(b.tool_id, Some(&*format!("{prefix}{k}")), "call {k}");
        }
        _ => {}
    };
    support::feed(&mut sieve, &input, &[chunk], |ev| seen(ev, &mut calls));
    assert_eq!(calls, 130);
}

#[test]
fn names_and_ids_borrowed_config() {
    for chunk in [1, 4, 64, 65536] {
        let config = Config {
            tools: ToolList::Tools(TOOLS),
            ..Config::new(Dialect::Hermes)
        };
        check(&config, "call_", chunk);
        let config = Config {
            tools: ToolList::Tools(TOOLS),
            id_prefix: "tc_",
            ..Config::new(Dialect::Hermes)
        };
        check(&config, "tc_", chunk);
    }
}

#[test]
fn names_and_ids_owned_config() {
    let mut owned = ConfigBuf::new(Dialect::Hermes);
    owned.add_tool("get_weather", "{}").unwrap();
    owned.add_tool("get", "{}").unwrap();
    for chunk in [1, 4, 65536] {
        check(&owned.config(), "call_", chunk);
    }
}
