#![cfg(feature = "alloc")]
//! The decoder fuzz targets' findings (fuzz/README.md, "Findings"), minimised, at several
//! chunkings. The raw fuzz inputs are replayed by the fuzz crate's tests
//! (`fuzz/regressions/decode_*`); they are read here too when the tree has them.

mod support;

use serde_json::Value;
use support::provider::{invariant, lines};
use tokensieve::Dialect;
use tokensieve::provider::{DecoderConfig, Provider};

/// Read sizes every finding is decoded at (whole is compared against them).
const SIZES: [usize; 8] = [1, 2, 3, 5, 7, 13, 64, 100];

/// The event rules the decoder fuzz targets assert: a block_start gets its block_complete
/// before any other block starts, chunks belong to the open block, no error or finish with
/// a block open, and the stream ends with a finish (docs/design.md rules 1, 8).
#[track_caller]
fn well_formed(lines: &[String]) {
    let mut open: Option<u64> = None;
    let mut next = 0;
    for (i, line) in lines.iter().enumerate() {
        let ev: Value = serde_json::from_str(line).unwrap();
        let at = format!("event #{i}: {line}\nin {lines:#?}");
        match ev["event"].as_str().unwrap() {
            "block_start" => {
                assert!(open.is_none(), "blocks interleave: {at}");
                assert_eq!(ev["index"].as_u64(), Some(next), "indices in order: {at}");
                open = Some(next);
                next += 1;
            }
            "chunk" => assert_eq!(ev["block"].as_u64(), open, "a chunk outside: {at}"),
            "block_complete" => {
                assert_eq!(ev["index"].as_u64(), open, "completes another: {at}");
                open = None;
            }
            "error" | "finish" => assert!(open.is_none(), "with a block open: {at}"),
            _ => {}
        }
    }
    assert!(open.is_none(), "ended with a block open: {lines:#?}");
    assert!(
        lines
            .last()
            .is_some_and(|l| l.contains("\"event\":\"finish\"")),
        "ends with a finish: {lines:#?}"
    );
}

/// A raw fuzz input (`[flags, seed, body…]`) of a fixed finding, when the tree has it.
fn raw(path: &str) -> Option<Vec<u8>> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/regressions")
        .join(path);
    std::fs::read(p).ok().map(|d| d[2..].to_vec())
}

fn ollama_hermes() -> DecoderConfig<'static> {
    let mut config = DecoderConfig::new(Provider::Ollama);
    config.options.dialect = Dialect::Hermes;
    config
}

/// F23: undecodable JSON while the text dialect's call block is open. The routed run is
/// drained (its call completes, failed as `unfinished`, and its raw text follows) before
/// the error, and before the finish; it was never completed.
#[test]
fn f23_error_while_the_text_dialects_call_is_open_waits_for_it() {
    let config = ollama_hermes();
    let body = b"{\"message\":{\"content\":\"<tool_call>\\n{\\\"na</f>me\\\": \\\"f\\\", \"},\"done\":false}\n\
                 {\"message\":{\"content\":st\xf3\xf3\n";
    let l = invariant(&config, body, SIZES, None);
    well_formed(&l);
    assert!(l[1].contains("\"block_complete\"") && l[1].contains("\"unfinished\""));
    let error = l
        .iter()
        .position(|l| l.contains("\"event\":\"error\""))
        .unwrap();
    assert!(error > 1, "the error comes after the call: {l:#?}");
    // The same at the end of the body, without an error line after it.
    let cut = b"{\"message\":{\"content\":\"<tool_call>\\n{\\\"na</f>me\\\": \\\"f\\\", \"},\"done\":false}\n\
                {\"message\":{\"content\":st\xf3\xf3";
    well_formed(&invariant(&config, cut, SIZES, None));
    if let Some(body) = raw("decode_ollama/f23-error-inside-dialect-call") {
        for memory in [None, Some(16 * 1024)] {
            for size in SIZES {
                well_formed(&lines(&config, &body, size, memory));
            }
        }
    }
}

/// F24: text gathered behind a decoded character (here U+FFFD for an invalid byte) fills
/// the gathering buffer; once handed out, the next short plain piece went through the
/// 72-byte `small` buffer instead of the (not yet reset) gathering buffer, and lost the
/// rest of its bytes — at some chunkings only.
#[test]
fn f24_gathered_text_loses_nothing_at_any_chunking() {
    let config = DecoderConfig::new(Provider::Bedrock);
    let pre = b"{\"output\":{\"message\":{\"content\":[{\"reasoningContent\":{\"reasoningText\":{\"text\":\"";
    for middle in [&b"\xff"[..], b"\\n", b"\xff\xff\xff\xff\xff\xff\xff\xff"] {
        let mut body = pre.to_vec();
        body.extend_from_slice(b"xxxxxxxxxx");
        body.extend_from_slice(middle);
        for _ in 0..100 {
            body.extend_from_slice(b"<end_function_call>");
        }
        body.extend_from_slice(b"\"}}}]}}}");
        for memory in [None, Some(16 * 1024)] {
            let l = invariant(&config, &body, SIZES, memory);
            well_formed(&l);
            let text: String = l
                .iter()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .filter(|e| e["event"] == "chunk")
                .map(|e| e["text"].as_str().unwrap().to_owned())
                .collect();
            assert_eq!(text.matches("<end_function_call>").count(), 100);
        }
    }
    if let Some(body) = raw("decode_bedrock/f24-chunking-changes-text") {
        for memory in [None, Some(16 * 1024)] {
            well_formed(&invariant(&config, &body, SIZES, memory));
        }
    }
}

/// F25 (gemini, the hermes text dialect): with the dialect's run end and input waiting in
/// the decoder's 8-entry queue, a failed call's completion, its raw text block and the next
/// blocks overflowed it: a thinking block's `block_complete` was dropped (an error followed
/// with the block open). The queue holds 16 now.
#[test]
fn f25_a_full_queue_drops_no_event() {
    let mut config = DecoderConfig::new(Provider::Gemini);
    config.options.dialect = Dialect::Hermes;
    if let Some(body) = raw("decode_gemini/f25-queue-overflow-drops-complete") {
        for memory in [None, Some(16 * 1024)] {
            well_formed(&invariant(&config, &body, SIZES, memory));
        }
    }
}
