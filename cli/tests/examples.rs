//! Every sample transcript in `examples/` parses with its dialect (the README's commands use
//! them): at least one tool call, no failed call, exit status 0.

use std::path::Path;
use std::process::Command;

#[test]
fn every_example_parses() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(dialect) = name.strip_suffix(".txt") else {
            continue;
        };
        let mut args = vec!["parse", "--dialect", dialect, "--json"];
        let tools = dir.join(format!("{dialect}.tools.json"));
        let tools = tools.to_string_lossy().into_owned();
        if Path::new(&tools).exists() {
            args.extend(["--tools", tools.as_str()]);
        }
        let file = path.to_string_lossy().into_owned();
        args.push(&file);
        let o = Command::new(env!("CARGO_BIN_EXE_tokensieve"))
            .args(&args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{name}: {o:?}");
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(!out.contains("\"error\":"), "{name}: a call failed:\n{out}");
        if dialect != "passthrough" {
            assert!(
                out.contains("\"type\":\"tool_call\""),
                "{name}: no call:\n{out}"
            );
        }
        seen += 1;
    }
    assert!(seen >= 14, "only {seen} examples");
}
