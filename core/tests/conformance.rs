#![cfg(feature = "alloc")]
//! Every conformance vector — the project's own (`conformance/cases`) and, when present, the
//! shared ones (`../shared/conformance/cases`) — through the Rust API at chunk sizes
//! 1, 2, 3, 5, 7, 64 and whole (docs/design.md rule 4), compared as check.py compares.

mod support;

use std::path::{Path, PathBuf};
use support::{Vector, check_vector, lint, load_dir, supported};

const SIZES: [usize; 7] = [1, 2, 3, 5, 7, 64, 0];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run_all(vectors: &[Vector], label: &str) -> (usize, usize) {
    let mut failures = Vec::new();
    let (mut passed, mut skipped) = (0, 0);
    for v in vectors {
        if !supported(v) {
            skipped += 1;
            continue;
        }
        let lint_errs = lint(&v.events);
        assert!(
            lint_errs.is_empty(),
            "{label}/{}: the vector itself breaks the event model: {lint_errs:?}",
            v.name
        );
        let bad: Vec<String> = SIZES
            .iter()
            .filter_map(|&n| check_vector(v, n).map(|d| format!("chunk {n}: {d}")))
            .collect();
        if bad.is_empty() {
            passed += 1;
        } else {
            failures.push(format!("{label}/{}\n  {}", v.name, bad[0]));
        }
    }
    println!(
        "{label}: {passed} passed, {skipped} skipped (dialect not built yet), {} failed",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} vectors failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    (passed, skipped)
}

#[test]
fn project_vectors() {
    let vectors = load_dir(&root().join("conformance/cases"));
    assert!(
        vectors.len() >= 40,
        "only {} project vectors",
        vectors.len()
    );
    let (passed, _) = run_all(&vectors, "project");
    assert!(passed >= 40);
}

/// Host-defined dialects (docs/design.md, "Dialect descriptions"): each
/// `conformance/custom/<family>.json` is a complete config, and every vector in
/// `conformance/custom/<family>/` runs with exactly that config.
#[test]
fn custom_dialect_vectors() {
    let dir = root().join("conformance/custom");
    let mut families = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let config: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        tokensieve::ConfigBuf::from_value(&config)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let vectors = load_dir(&path.with_extension(""));
        assert!(
            vectors.len() >= 10,
            "{}: only {} vectors",
            path.display(),
            vectors.len()
        );
        for v in &vectors {
            // The vector's config is the family's, plus at most the host's own keys.
            let mut base = v.config.clone();
            for key in [
                "tools",
                "start_in",
                "unknown_tools",
                "on_malformed",
                "stop_sequences",
            ] {
                base.as_object_mut().unwrap().remove(key);
            }
            assert_eq!(
                base,
                config,
                "{}: not the config of {}",
                v.name,
                path.display()
            );
        }
        run_all(&vectors, &path.file_stem().unwrap().to_string_lossy());
        families += 1;
    }
    assert!(
        families >= 1,
        "no host-defined dialect in conformance/custom"
    );
}

#[test]
fn shared_vectors() {
    let dir = root().join("../shared/conformance/cases");
    if !dir.exists() {
        println!("no ../shared/conformance: skipped");
        return;
    }
    run_all(&load_dir(&dir), "shared");
}
