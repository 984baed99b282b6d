//! The `tokensieve` binary as a user and the conformance runner call it: `--version`,
//! `--help` of every subcommand, usage errors (exit status 2), failed runs (1), and `parse`'s output.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// Runs `tokensieve ARGS` with `stdin` on its standard input.
fn run_with(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tokensieve"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tokensieve");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("write stdin");
    child.wait_with_output().expect("wait for tokensieve")
}

/// Runs `tokensieve ARGS` with an empty standard input.
fn run(args: &[&str]) -> Output {
    run_with(args, b"")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

/// A file under this test binary's scratch directory holding `text`.
fn file(name: &str, text: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{name}"));
    std::fs::write(&path, text).expect("write scratch file");
    path
}

const SUBCOMMANDS: [&str; 4] = ["parse", "demo", "dialects", "decode"];

const INPUT: &str = "Hi <thinking>hmm</thinking>there";

/// `parse --dialect anthropic-xml --json` of [`INPUT`], whole.
const INPUT_JSON: [&str; 9] = [
    r#"{"event":"block_start","index":0,"type":"text"}"#,
    r#"{"event":"chunk","text":"Hi ","type":"text","visible":true,"block":0,"depth":0}"#,
    r#"{"event":"block_complete","index":0,"type":"text","content":"Hi "}"#,
    r#"{"event":"block_start","index":1,"type":"thinking"}"#,
    r#"{"event":"chunk","text":"hmm","type":"thinking","visible":false,"block":1,"depth":0}"#,
    r#"{"event":"block_complete","index":1,"type":"thinking","content":"hmm"}"#,
    r#"{"event":"block_start","index":2,"type":"text"}"#,
    r#"{"event":"chunk","text":"there","type":"text","visible":true,"block":2,"depth":0}"#,
    r#"{"event":"block_complete","index":2,"type":"text","content":"there"}"#,
];

#[test]
fn version() {
    for flag in ["--version", "-V"] {
        let o = run(&[flag]);
        assert!(o.status.success(), "{flag}: {o:?}");
        assert_eq!(
            stdout(&o),
            format!("tokensieve {}\n", env!("CARGO_PKG_VERSION"))
        );
        assert_eq!(stderr(&o), "");
    }
}

#[test]
fn help_lists_every_subcommand() {
    for args in [&["--help"][..], &["-h"], &["help"]] {
        let o = run(args);
        assert!(o.status.success(), "{args:?}: {o:?}");
        let out = stdout(&o);
        assert!(out.contains("Usage: tokensieve <COMMAND>"), "{out}");
        for sub in SUBCOMMANDS {
            let line = out
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("{sub} ")))
                .unwrap_or_else(|| panic!("`{sub}` missing from --help:\n{out}"));
            assert!(
                line.split_whitespace().count() > 2,
                "no description: {line}"
            );
        }
    }
}

/// The options `SUB -h` lists, each with the rest of its line (its description).
fn options(sub: &str) -> Vec<(String, String)> {
    let o = run(&[sub, "-h"]);
    assert!(o.status.success(), "{sub} -h: {o:?}");
    let out = stdout(&o);
    assert!(out.contains(&format!("Usage: tokensieve {sub}")), "{out}");
    let section = out
        .split("Options:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{sub} -h has no options:\n{out}"));
    section
        .lines()
        .take_while(|l| !l.is_empty())
        .map(|l| {
            let l = l.trim_start();
            let (flags, description) = l.split_once("  ").unwrap_or((l, ""));
            (flags.to_string(), description.trim().to_string())
        })
        .collect()
}

#[test]
fn every_option_of_every_subcommand_has_a_description() {
    let expected: [(&str, &[&str]); 4] = [
        (
            "parse",
            &[
                "--config <FILE>",
                "--dialect <D>",
                "--tools <FILE>",
                "--prefill <FILE>",
                "--chunk <N>",
                "--json",
                "--visible-only",
                "--stats",
            ],
        ),
        ("demo", &["--fast"]),
        ("dialects", &["--names", "--json"]),
        (
            "decode",
            &[
                "--provider <P>",
                "--text-dialect <D>",
                "--config <FILE>",
                "--chunk <N>",
                "--json",
                "--visible-only",
                "--stats",
            ],
        ),
    ];
    for (sub, wanted) in expected {
        let options = options(sub);
        for (flags, description) in &options {
            assert!(!description.is_empty(), "{sub} {flags}: no description");
        }
        for flag in wanted.iter().chain(&["-h, --help"]) {
            assert!(
                options.iter().any(|(f, _)| f == flag),
                "{sub} -h does not list {flag}: {options:?}"
            );
        }
        assert_eq!(options.len(), wanted.len() + 1, "{sub}: {options:?}");
    }
}

#[test]
fn long_help_of_every_subcommand() {
    for sub in SUBCOMMANDS {
        let o = run(&[sub, "--help"]);
        assert!(o.status.success(), "{sub} --help: {o:?}");
        let out = stdout(&o);
        assert!(out.contains(&format!("Usage: tokensieve {sub}")), "{out}");
        assert_eq!(stdout(&run(&["help", sub])), out, "help {sub}");
    }
    let parse = stdout(&run(&["parse", "--help"]));
    assert!(parse.contains("[possible values: passthrough, anthropic-xml"));
    let decode = stdout(&run(&["decode", "--help"]));
    for provider in [
        "openai-chat",
        "openai-responses",
        "anthropic",
        "gemini",
        "bedrock",
        "ollama",
    ] {
        assert!(decode.contains(&format!("- {provider}:")), "{decode}");
    }
}

#[test]
fn usage_errors_exit_2() {
    let cfg = file("usage.json", r#"{"dialect":"hermes"}"#);
    let cfg = cfg.to_str().unwrap();
    let cases: [&[&str]; 13] = [
        &[],
        &["bogus"],
        &["parse"],
        &["parse", "--bogus", "--dialect", "hermes"],
        &["parse", "--dialect", "nope"],
        &["parse", "--dialect"],
        &["parse", "--dialect", "hermes", "--chunk", "x"],
        &["parse", "--config", cfg, "--dialect", "hermes"],
        &["parse", "--config", cfg, "--tools", cfg],
        &["parse", "--dialect", "hermes", "a", "b"],
        &["demo", "--bogus"],
        &["decode", "--provider", "nope"],
        &["decode", "--provider", "gemini", "--config", cfg],
    ];
    for args in cases {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {o:?}");
        assert_eq!(stdout(&o), "", "{args:?}");
        let err = stderr(&o);
        assert!(
            err.starts_with("error:") || (args.is_empty() && err.starts_with("Parse model")),
            "{args:?}: {err}"
        );
        assert!(
            err.contains("Usage: tokensieve") || err.contains("--help"),
            "{err}"
        );
    }
}

#[test]
fn run_errors_exit_1_with_the_program_name() {
    let o = run(&[
        "parse",
        "--dialect",
        "hermes",
        "/nonexistent/tokensieve-input",
    ]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(
        stderr(&o).starts_with("tokensieve: reading /nonexistent/tokensieve-input: "),
        "{}",
        stderr(&o)
    );
    let bad = file("bad.json", "{not json");
    let o = run(&["parse", "--config", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(stderr(&o).starts_with("tokensieve: "), "{}", stderr(&o));
}

#[test]
fn parse_json_from_standard_input() {
    let o = run_with(
        &["parse", "--dialect", "anthropic-xml", "--json"],
        INPUT.as_bytes(),
    );
    assert!(o.status.success(), "{o:?}");
    assert_eq!(stdout(&o).lines().collect::<Vec<_>>(), INPUT_JSON);
    assert_eq!(stderr(&o), "");
    let dash = run_with(
        &["parse", "--dialect", "anthropic-xml", "--json", "-"],
        INPUT.as_bytes(),
    );
    assert_eq!(dash.stdout, o.stdout);
}

/// The conformance runner's call: `parse --config F [--prefill F] --chunk N --json FILE`.
#[test]
fn parse_json_as_the_conformance_runner_calls_it() {
    let cfg = file("conformance.json", r#"{"dialect":"anthropic-xml"}"#);
    let input = file("conformance.txt", INPUT);
    let (cfg, input) = (cfg.to_str().unwrap(), input.to_str().unwrap());
    let whole = INPUT.len().to_string();
    let o = run(&["parse", "--config", cfg, "--chunk", &whole, "--json", input]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(stdout(&o).lines().collect::<Vec<_>>(), INPUT_JSON);

    // In 4-byte pieces, "there" arrives as "t" + "here": the same blocks, one more chunk.
    let o = run(&["parse", "--config", cfg, "--chunk", "4", "--json", input]);
    assert!(o.status.success(), "{o:?}");
    let mut expected = INPUT_JSON[..7].to_vec();
    expected.extend([
        r#"{"event":"chunk","text":"t","type":"text","visible":true,"block":2,"depth":0}"#,
        r#"{"event":"chunk","text":"here","type":"text","visible":true,"block":2,"depth":0}"#,
        INPUT_JSON[8],
    ]);
    assert_eq!(stdout(&o).lines().collect::<Vec<_>>(), expected);

    // The prefill opens a thinking block silently; the input closes it.
    let prefill = file("prefill.txt", "a<thinking>b");
    let input = file("after-prefill.txt", "x</thinking>y");
    let o = run(&[
        "parse",
        "--config",
        cfg,
        "--prefill",
        prefill.to_str().unwrap(),
        "--chunk",
        "1",
        "--json",
        input.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        stdout(&o).lines().collect::<Vec<_>>(),
        [
            r#"{"event":"block_start","index":0,"type":"thinking"}"#,
            r#"{"event":"chunk","text":"x","type":"thinking","visible":false,"block":0,"depth":0}"#,
            r#"{"event":"block_complete","index":0,"type":"thinking","content":"x"}"#,
            r#"{"event":"block_start","index":1,"type":"text"}"#,
            r#"{"event":"chunk","text":"y","type":"text","visible":true,"block":1,"depth":0}"#,
            r#"{"event":"block_complete","index":1,"type":"text","content":"y"}"#,
        ]
    );
}

#[test]
fn parse_human_and_visible_views() {
    let human = run_with(&["parse", "--dialect", "anthropic-xml"], INPUT.as_bytes());
    assert!(human.status.success(), "{human:?}");
    assert_eq!(stdout(&human), "Hi [thinking] hmm\nthere\n");

    let visible = run_with(
        &["parse", "--dialect", "anthropic-xml", "--visible-only"],
        INPUT.as_bytes(),
    );
    assert_eq!(stdout(&visible), "Hi there\n");
    // The later of --json and --visible-only wins, as it always has.
    let later = run_with(
        &[
            "parse",
            "--json",
            "--dialect",
            "anthropic-xml",
            "--visible-only",
        ],
        INPUT.as_bytes(),
    );
    assert_eq!(later.stdout, visible.stdout);

    let call = r#"<function_calls><invoke name="f"><parameter name="a">1</parameter></invoke></function_calls>"#;
    let tools = file("tools.json", r#"[{"name":"f","schema":{"type":"object"}}]"#);
    let o = run_with(
        &[
            "parse",
            "--dialect",
            "anthropic-xml",
            "--tools",
            tools.to_str().unwrap(),
        ],
        call.as_bytes(),
    );
    assert!(o.status.success(), "{o:?}");
    assert_eq!(stdout(&o), "\n→ f({\"a\":1})\n");
}

#[test]
fn dialects_and_demo() {
    let o = run(&["dialects", "--names"]);
    assert!(o.status.success(), "{o:?}");
    let names: Vec<String> = stdout(&o).lines().map(String::from).collect();
    assert!(names.iter().any(|n| n == "anthropic-xml"), "{names:?}");
    assert!(names.iter().any(|n| n == "passthrough"), "{names:?}");

    let o = run(&["demo", "--fast"]);
    assert!(o.status.success(), "{o:?}");
    assert!(stdout(&o).contains("→ get_weather("), "{}", stdout(&o));
}

#[test]
fn decode_reads_a_body_and_refuses_what_is_not_built() {
    let dir = std::env::temp_dir().join(format!("tokensieve-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let body = dir.join("body.sse");
    std::fs::write(
        &body,
        "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
    )
    .unwrap();
    let path = body.to_str().unwrap();
    let o = run(&[
        "decode",
        "--provider",
        "openai-chat",
        "--json",
        "--chunk",
        "3",
        path,
    ]);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    assert!(
        out.contains(r#"{"event":"block_complete","index":0,"type":"text","content":"Hi"}"#),
        "{out}"
    );
    assert!(
        out.ends_with("{\"event\":\"finish\",\"reason\":\"stop\",\"raw_reason\":\"stop\"}\n"),
        "{out}"
    );

    // `providers` lists what this build decodes; any other provider is a config error.
    let o = run(&["providers", "--names"]);
    assert!(o.status.success(), "{o:?}");
    let built = stdout(&o);
    assert!(built.lines().any(|l| l == "openai-chat"), "{built}");
    for p in [
        "openai-chat",
        "openai-responses",
        "anthropic",
        "gemini",
        "bedrock",
        "ollama",
    ] {
        if built.lines().any(|l| l == p) {
            continue;
        }
        let o = run(&["decode", "--provider", p, "--json", path]);
        assert_eq!(o.status.code(), Some(1), "{o:?}");
        assert!(stderr(&o).contains("provider"), "{}", stderr(&o));
        assert_eq!(stdout(&o), "");
    }
    // A bad config key fails the run (status 1), naming it.
    let config = dir.join("config.json");
    std::fs::write(
        &config,
        r#"{"provider":"openai-chat","max_frame_bytes":"x"}"#,
    )
    .unwrap();
    let o = run(&["decode", "--config", config.to_str().unwrap(), path]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(stderr(&o).contains("max_frame_bytes"), "{}", stderr(&o));
}

/// `parse` prints the events of what has arrived before the input ends: half a body
/// written, the first events read back, then the rest.
#[test]
fn parse_streams_standard_input_as_it_arrives() {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_tokensieve"))
        .args(["parse", "--dialect", "hermes", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tokensieve");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    stdin
        .write_all(b"Hello there. ")
        .expect("write the first half");
    stdin.flush().expect("flush");
    // The first half's events arrive while standard input is still open.
    let first = lines.next().expect("a first event").expect("read");
    assert!(first.contains("block_start"), "{first}");
    let second = lines.next().expect("a second event").expect("read");
    assert!(second.contains("Hello there. "), "{second}");
    stdin
        .write_all(b"<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>")
        .expect("write the rest");
    drop(stdin);
    let rest: Vec<String> = lines.map(|l| l.expect("read")).collect();
    assert!(rest.iter().any(|l| l.contains("\"tool_call\"")), "{rest:?}");
    assert!(child.wait().expect("wait").success());
}

/// `decode` too: the first SSE event's text is out before the body ends.
#[test]
fn decode_streams_standard_input_as_it_arrives() {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tokensieve"))
        .args(["decode", "--provider", "openai-chat", "--visible-only"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tokensieve");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    stdin
        .write_all(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"}}]}\n\n")
        .expect("write the first event");
    stdin.flush().expect("flush");
    let mut got = [0u8; 5];
    stdout.read_exact(&mut got).expect("the first text");
    assert_eq!(&got, b"Hello");
    stdin
        .write_all(
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" world\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
        )
        .expect("write the rest");
    drop(stdin);
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).expect("read the rest");
    assert_eq!(rest, " world\n");
    assert!(child.wait().expect("wait").success());
}

/// Exit statuses: 0 success, 1 a failed run, 2 usage.
#[test]
fn exit_statuses() {
    let ok = run_with(&["parse", "--dialect", "hermes"], b"hi");
    assert_eq!(ok.status.code(), Some(0));
    let missing = run(&["parse", "--dialect", "hermes", "/nonexistent/input.txt"]);
    assert_eq!(missing.status.code(), Some(1), "{}", stderr(&missing));
    assert!(stderr(&missing).starts_with("tokensieve: reading"));
    let bad = file("bad-config.json", "{\"dialect\": \"nope\"}");
    let bad_config = run(&["parse", "--config", bad.to_str().expect("path")]);
    assert_eq!(bad_config.status.code(), Some(1));
    // No default dialect: a config without one is refused, naming the dialects.
    let none = file("no-dialect.json", "{}");
    let o = run(&["parse", "--config", none.to_str().expect("path")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("is required (one of: "),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("hermes"), "{}", stderr(&o));
    let usage = run(&["parse", "--dialect", "nope"]);
    assert_eq!(usage.status.code(), Some(2));
    let garbage = run_with(&["decode", "--provider", "openai-chat"], b"garbage\n");
    assert_eq!(garbage.status.code(), Some(1));
    let provider_error = run_with(
        &["decode", "--provider", "anthropic"],
        b"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
    );
    assert_eq!(provider_error.status.code(), Some(1));
    assert!(stdout(&provider_error).contains("Overloaded"));
    let text_dialect = file(
        "bad-text-dialect.json",
        "{\"provider\": \"openai-chat\", \"text_dialect\": \"nope\"}",
    );
    let o = run(&["decode", "--config", text_dialect.to_str().expect("path")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("`text_dialect`") && stderr(&o).contains("\"nope\""),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("hermes"), "{}", stderr(&o));
}

/// `| head -1`: the reader goes away; tokensieve ends quietly with status 0.
#[test]
fn closed_pipe_ends_quietly() {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_tokensieve"))
        .args(["parse", "--dialect", "hermes", "--json", "--chunk", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tokensieve");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    stdin.write_all(b"Hello. ").expect("write");
    stdin.flush().expect("flush");
    lines.read_line(&mut first).expect("a first line");
    drop(lines);
    // More input makes it write to the closed pipe.
    let _ = stdin.write_all(&b"and more text ".repeat(20_000));
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
}

/// `dialects` and `providers`: a description a line; `--names` bare names, `--json` for tools.
#[test]
fn lists_with_descriptions() {
    let o = run(&["dialects"]);
    assert!(
        stdout(&o)
            .lines()
            .any(|l| l.starts_with("hermes ") && l.contains("tool_call"))
    );
    let names = stdout(&run(&["dialects", "--names"]));
    assert!(names.lines().any(|l| l == "anthropic-xml"));
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&run(&["providers", "--json"]))).expect("JSON");
    assert!(
        json.as_array()
            .expect("array")
            .iter()
            .all(|p| p["name"].is_string()
                && !p["description"].as_str().expect("description").is_empty())
    );
}

/// Every sample transcript under examples/ parses into a call without errors.
#[test]
fn examples_parse() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let tools = dir.join("tools.json");
    for name in stdout(&run(&["dialects", "--names"])).lines() {
        let path = dir.join(format!("{name}.txt"));
        let o = run(&[
            "parse",
            "--dialect",
            name,
            "--tools",
            tools.to_str().expect("path"),
            "--json",
            path.to_str().expect("path"),
        ]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        let out = stdout(&o);
        assert!(!out.contains("\"error\""), "{name}: {out}");
        if name != "passthrough" {
            assert!(out.contains("\"tool_call\""), "{name}: {out}");
        }
    }
}

/// `format calls|results|stops`: the text a model writes or reads, read back by `parse`;
/// `--help` on each; bad input is a failed run (exit 1).
#[test]
fn format_calls_results_and_stops() {
    for sub in [
        &["format"][..],
        &["format", "calls"],
        &["format", "results"],
        &["format", "stops"],
    ] {
        let mut args = sub.to_vec();
        args.push("--help");
        let o = run(&args);
        assert!(o.status.success(), "{args:?}: {o:?}");
        assert!(
            stdout(&o).contains(&format!("Usage: tokensieve {}", sub.join(" "))),
            "{o:?}"
        );
    }

    let calls = r#"[{"name": "get_weather", "id": "call_9", "input": {"city": "Paris", "n": 1.0e5, "big": 12345678901234567890}}]"#;
    let o = run_with(
        &["format", "calls", "--dialect", "hermes"],
        calls.as_bytes(),
    );
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        stdout(&o),
        "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"n\": 1.0e5, \"big\": 12345678901234567890}}\n</tool_call>"
    );
    // What it writes, `parse` reads back as the same call.
    let written = file("format-calls.txt", &stdout(&o));
    let o = run(&[
        "parse",
        "--dialect",
        "hermes",
        "--json",
        written.to_str().unwrap(),
    ]);
    assert!(
        stdout(&o).contains(r#""input":{"city":"Paris","n":1.0e5,"big":12345678901234567890}"#),
        "{o:?}"
    );

    // A config file and an input file: mistral carries the id.
    let config = file("format-config.json", r#"{"dialect": "mistral"}"#);
    let input = file("format-calls.json", calls);
    let o = run(&[
        "format",
        "calls",
        "--config",
        config.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        stdout(&o),
        "[TOOL_CALLS]get_weather[CALL_ID]call_9[ARGS]{\"city\": \"Paris\", \"n\": 1.0e5, \"big\": 12345678901234567890}"
    );

    let results = r#"[{"tool_use_id": "call_9", "name": "get_weather", "content": "sunny"}, {"content": "ENOENT", "is_error": true}]"#;
    let o = run_with(
        &["format", "results", "--dialect", "kimi-k2", "-"],
        results.as_bytes(),
    );
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        stdout(&o),
        "<|im_system|>get_weather<|im_middle|>## Return of call_9\nsunny<|im_end|><|im_system|>tool<|im_middle|>ENOENT<|im_end|>"
    );

    let o = run(&["format", "stops", "--dialect", "harmony"]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(stdout(&o), "[\"<|return|>\",\"<|call|>\"]\n");

    // Failed runs: arguments that are not an object, a name the format cannot carry, not an
    // array.
    for (dialect, input) in [
        ("hermes", r#"[{"name": "f", "input": [1]}]"#),
        ("pythonic", r#"[{"name": "a b", "input": {}}]"#),
        ("hermes", r#"{"name": "f"}"#),
    ] {
        let o = run_with(&["format", "calls", "--dialect", dialect], input.as_bytes());
        assert_eq!(o.status.code(), Some(1), "{input}: {o:?}");
        assert!(stderr(&o).starts_with("tokensieve: "), "{o:?}");
    }
}

/// `format tools`: the prompt's tool section from the config's tool-list form (the schema an
/// object or its JSON text; keys and numbers as written); `--help`; bad input fails (exit 1).
#[test]
fn format_tools() {
    let o = run(&["format", "tools", "--help"]);
    assert!(o.status.success(), "{o:?}");
    assert!(
        stdout(&o).contains("Usage: tokensieve format tools"),
        "{o:?}"
    );

    let tools = r#"[{"name": "get_weather", "description": "Weather «now»", "schema": {"type": "object", "properties": {"n": {"type": "number", "default": 1.50}}}}, {"name": "ping", "schema": "{\"type\": \"object\"}"}]"#;
    let o = run_with(
        &["format", "tools", "--dialect", "kimi-k2"],
        tools.as_bytes(),
    );
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        stdout(&o),
        "<|im_system|>tool_declare<|im_middle|>[{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\": \"Weather «now»\", \"parameters\": {\"type\": \"object\", \"properties\": {\"n\": {\"type\": \"number\", \"default\": 1.50}}}}}, {\"type\": \"function\", \"function\": {\"name\": \"ping\", \"parameters\": {\"type\": \"object\"}}}]<|im_end|>"
    );
    let config = file("format-tools-config.json", r#"{"dialect": "harmony"}"#);
    let input = file("format-tools.json", tools);
    let o = run(&[
        "format",
        "tools",
        "--config",
        config.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        stdout(&o),
        "# Tools\n\n## functions\n\nnamespace functions {\n\n// Weather «now»\ntype get_weather = (_: {\nn?: number, // default: 1.50,\n}) => any;\n\ntype ping = () => any;\n\n} // namespace functions"
    );

    for input in [
        r#"[{"name": "f", "schema": [1]}]"#,
        r#"[{"name": "f", "schema": "{\"a\": "}]"#,
        r#"[{"name": "f", "parameters": {}}]"#,
        r#"[{"description": "no name"}]"#,
        r#"{"name": "f"}"#,
    ] {
        let o = run_with(
            &["format", "tools", "--dialect", "hermes"],
            input.as_bytes(),
        );
        assert_eq!(o.status.code(), Some(1), "{input}: {o:?}");
        assert!(stderr(&o).starts_with("tokensieve: "), "{o:?}");
    }
    let o = run_with(
        &["format", "tools", "--dialect", "passthrough"],
        br#"[{"name": "f"}]"#,
    );
    assert_eq!(o.status.code(), Some(1), "{o:?}");
}

/// The counts `--stats --json` should print, computed from the `--json` events of the same
/// run (so the summary is checked against the events, not against pinned numbers).
fn stats_of_events(json_lines: &str) -> serde_json::Value {
    use serde_json::{Map, Value, json};
    let mut events: Map<String, Value> = Map::new();
    for k in [
        "block_start",
        "chunk",
        "block_complete",
        "stop",
        "finish",
        "error",
    ] {
        events.insert(k.into(), 0.into());
    }
    let mut blocks = json!({"text":0,"thinking":0,"tool_call":0,"tool_result":0});
    let mut bytes = json!({"text":0,"thinking":0,"tool_call_name":0,"tool_call_id":0,
        "tool_call_input":0,"tool_result":0,"visible":0});
    let mut calls: Map<String, Value> = Map::new();
    let mut call_errors = json!({"malformed-body":0,"missing-name":0,"malformed-parameter":0,
        "unexpected-content":0,"unfinished":0,"too-large":0,"nesting-too-deep":0,"unknown-tool":0});
    let mut stream_errors: Map<String, Value> = Map::new();
    let mut finishes = json!({"stop":0,"length":0,"tool_calls":0,"content_filter":0,
        "refusal":0,"error":0,"other":0,"malformed_tool_call":0});
    let mut usage = json!({"input_tokens":0,"output_tokens":0,"cache_read_tokens":0,
        "cache_write_tokens":0,"reasoning_tokens":0});
    fn add(v: &mut Value, n: u64) {
        *v = (v.as_u64().unwrap_or(0) + n).into();
    }
    for line in json_lines.lines() {
        let e: Value = serde_json::from_str(line).expect("an event line is JSON");
        let kind = e["event"].as_str().expect("event kind");
        add(&mut events[kind], 1);
        match kind {
            "chunk" => {
                let n = e["text"].as_str().unwrap().len() as u64;
                let key = match (e["type"].as_str().unwrap(), e["part"].as_str()) {
                    ("tool_call", Some(part)) => format!("tool_call_{part}"),
                    (t, _) => t.to_string(),
                };
                add(&mut bytes[key.as_str()], n);
                if e["visible"] == true {
                    add(&mut bytes["visible"], n);
                }
            }
            "block_complete" => {
                let t = e["type"].as_str().unwrap();
                add(&mut blocks[t], 1);
                if t == "tool_call" {
                    let name = e["tool_name"].as_str().unwrap_or("").to_string();
                    add(calls.entry(name).or_insert(0.into()), 1);
                }
                if let Some(r) = e["error"]["reason"].as_str() {
                    add(&mut call_errors[r], 1);
                }
            }
            "finish" => {
                add(&mut finishes[e["reason"].as_str().unwrap()], 1);
                if let Some(u) = e["usage"].as_object() {
                    for (k, v) in u {
                        add(&mut usage[k.as_str()], v.as_u64().unwrap());
                    }
                }
            }
            "error" => {
                let key = match e["code"].as_str() {
                    Some(code) => format!("{}:{code}", e["source"].as_str().unwrap()),
                    None => e["source"].as_str().unwrap().to_string(),
                };
                add(stream_errors.entry(key).or_insert(0.into()), 1);
            }
            _ => {}
        }
    }
    json!({"events": events, "blocks": blocks, "bytes": bytes, "calls": calls,
        "call_errors": call_errors, "stream_errors": stream_errors,
        "finish_reasons": finishes, "usage": usage})
}

/// The inputs of hermes vectors (`conformance/cases/hermes/NAME.json`), one after another.
fn hermes_inputs(names: &[&str]) -> String {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../conformance/cases/hermes");
    names
        .iter()
        .map(|n| {
            let text = std::fs::read_to_string(format!("{dir}/{n}.json")).expect("read vector");
            let v: serde_json::Value = serde_json::from_str(&text).expect("vector is JSON");
            v["input"].as_str().expect("input").to_string()
        })
        .collect()
}

/// `parse --stats`: thinking, calls (one with a non-ASCII name), two malformed calls and
/// tool results, counted as the events of `parse --json` say, whole and in 3-byte pieces.
#[test]
fn parse_stats_match_the_events() {
    let input = hermes_inputs(&[
        "043-multibyte-utf8",
        "030-text-after-body-unexpected-content",
        "037-tool-response-content-as-written",
    ]);
    let path = file("stats-hermes.txt", &input);
    let path = path.to_str().unwrap();
    for chunk in ["0", "3"] {
        let events = run(&[
            "parse",
            "--dialect",
            "hermes",
            "--chunk",
            chunk,
            "--json",
            path,
        ]);
        assert!(events.status.success(), "{events:?}");
        let expected = stats_of_events(&stdout(&events));
        let o = run(&[
            "parse",
            "--dialect",
            "hermes",
            "--chunk",
            chunk,
            "--stats",
            "--json",
            path,
        ]);
        assert!(o.status.success(), "{o:?}");
        assert_eq!(stderr(&o), "");
        let out = stdout(&o);
        assert_eq!(out.lines().count(), 1, "one JSON object, one line: {out}");
        let got: serde_json::Value = serde_json::from_str(&out).expect("--stats --json is JSON");
        assert_eq!(got, expected);
        // The vector has what the test means to count.
        assert_eq!(got["call_errors"]["unexpected-content"], 2, "{got}");
        assert_eq!(got["calls"]["météo_🌦"], 1, "{got}");
        assert!(got["bytes"]["thinking"].as_u64() > Some(0), "{got}");
        assert!(got["blocks"]["tool_result"].as_u64() > Some(0), "{got}");
    }

    // The table for people: the same numbers, one aligned row each; from standard input too.
    let o = run_with(
        &["parse", "--dialect", "hermes", "--stats"],
        input.as_bytes(),
    );
    assert!(o.status.success(), "{o:?}");
    let table = stdout(&o);
    for section in [
        "events\n",
        "blocks\n",
        "bytes\n",
        "calls\n",
        "call errors\n",
    ] {
        assert!(table.contains(section), "{section:?} missing:\n{table}");
    }
    let row = |name: &str| {
        table
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no row {name}:\n{table}"))
            .to_string()
    };
    assert!(row("unexpected-content").ends_with(" 2"), "{table}");
    assert!(row("block_start").starts_with("  block_start "), "{table}");

    // Several files: each through a fresh parser, the counts summed; without --stats, refused.
    let one = file("stats-one.txt", &hermes_inputs(&["043-multibyte-utf8"]));
    let one = one.to_str().unwrap();
    let stats = |files: &[&str]| -> serde_json::Value {
        let mut args = vec!["parse", "--dialect", "hermes", "--stats", "--json"];
        args.extend(files);
        let o = run(&args);
        assert!(o.status.success(), "{o:?}");
        serde_json::from_str(&stdout(&o)).expect("JSON")
    };
    let (a, b, both) = (stats(&[path]), stats(&[one]), stats(&[path, one]));
    for (group, key) in [
        ("events", "chunk"),
        ("bytes", "thinking"),
        ("blocks", "tool_call"),
        ("call_errors", "unexpected-content"),
    ] {
        let sum = a[group][key].as_u64().unwrap() + b[group][key].as_u64().unwrap();
        assert_eq!(both[group][key], sum, "{group}.{key}");
    }
    assert_eq!(both["calls"]["météo_🌦"], 2, "{both}");
    let o = run(&["parse", "--dialect", "hermes", path, one]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(stderr(&o).contains("only with --stats"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("Usage: tokensieve parse"),
        "{}",
        stderr(&o)
    );

    // --stats prints counts, not events: it cannot be combined with --visible-only.
    let o = run(&["parse", "--dialect", "hermes", "--stats", "--visible-only"]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
}

/// `decode --stats` over the OpenAI chat vectors: finish reasons, usage totals and stream
/// errors as the events say; status 1 when the stream carried an error, as without --stats.
#[test]
fn decode_stats_match_the_events() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conformance/providers/openai-chat"
    );
    let config = file("stats-openai-chat.json", r#"{"provider":"openai-chat"}"#);
    let config = config.to_str().unwrap();
    let mut seen_usage = false;
    let mut seen_error = false;
    for name in [
        "004-one-tool-call",
        "005-parallel-tool-calls",
        "017-event-error",
    ] {
        let body = format!("{dir}/{name}.sse");
        let events = run(&["decode", "--config", config, "--json", &body]);
        let expected = stats_of_events(&stdout(&events));
        let o = run(&["decode", "--config", config, "--stats", "--json", &body]);
        assert_eq!(o.status.code(), events.status.code(), "{name}: {o:?}");
        let got: serde_json::Value =
            serde_json::from_str(&stdout(&o)).expect("--stats --json is JSON");
        assert_eq!(got, expected, "{name}");
        seen_usage |= got["usage"]["input_tokens"].as_u64() > Some(0);
        seen_error |= got["events"]["error"].as_u64() > Some(0);
        if got["events"]["error"].as_u64() > Some(0) {
            assert_eq!(o.status.code(), Some(1), "{name}: {o:?}");
        }
        let table = stdout(&run(&["decode", "--config", config, "--stats", &body]));
        assert!(table.contains("finish reasons\n"), "{name}:\n{table}");
    }
    assert!(seen_usage && seen_error);
}
