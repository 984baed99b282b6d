//! Fuzz findings, minimised, as tests (see fuzz/README.md, "Findings").
//!
//! * `replay_*`: every file under `fuzz/regressions/<target>/` is a raw fuzz input of that
//!   target (`[flags, seed, …]`; see each target's layout); each must pass the target's checks.
//! * The findings as readable reproducers; open ones are `#[ignore]`d until the core fixes
//!   them (`cargo test -- --ignored` shows them failing).

use std::path::Path;

use tokensieve::{BlockType, ConfigBuf, Dialect, MIN_MEMORY, Sieve};
use tokensieve_fuzz::{Ev, coalesce, drive};

fn replay(target: &str, check: impl Fn(&[u8]) + std::panic::RefUnwindSafe) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("regressions")
        .join(target);
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return;
    };
    let mut failed = Vec::new();
    for e in rd.flatten() {
        let data = std::fs::read(e.path()).expect("read");
        if std::panic::catch_unwind(|| check(&data)).is_err() {
            failed.push(e.path().display().to_string());
        }
    }
    assert!(failed.is_empty(), "failing regressions: {failed:?}");
}

#[test]
fn replay_decode_targets() {
    use tokensieve::provider::Provider;
    for p in Provider::ALL {
        let target = format!("decode_{}", p.name().replace('-', "_"));
        replay(&target, move |data| {
            tokensieve_fuzz::provider::check_decode(p, data)
        });
    }
}

#[test]
fn replay_stream_targets() {
    for (t, d) in [
        ("sieve_passthrough", Dialect::Passthrough),
        ("sieve_anthropic_xml", Dialect::AnthropicXml),
        ("sieve_hermes", Dialect::Hermes),
        ("sieve_morph_xml", Dialect::MorphXml),
        ("sieve_qwen3_coder", Dialect::Qwen3Coder),
        ("sieve_minimax_m2", Dialect::MinimaxM2),
        ("sieve_glm_4_5", Dialect::Glm45),
        ("sieve_harmony", Dialect::Harmony),
        ("sieve_kimi_k2", Dialect::KimiK2),
        ("sieve_deepseek_v3_1", Dialect::DeepSeekV31),
        ("sieve_deepseek_v3", Dialect::DeepSeekV3),
        ("sieve_mistral", Dialect::Mistral),
        ("sieve_llama3_json", Dialect::Llama3Json),
        ("sieve_pythonic", Dialect::Pythonic),
        ("sieve_minicpm5", Dialect::MiniCpm5),
        ("sieve_step_3", Dialect::Step3),
        ("sieve_hunyuan", Dialect::Hunyuan),
        ("sieve_minimax_m3", Dialect::MinimaxM3),
        ("sieve_inkling", Dialect::Inkling),
        ("sieve_kimi_k3", Dialect::KimiK3),
    ] {
        replay(t, move |data| tokensieve_fuzz::check_stream(d, data));
    }
}

#[test]
fn replay_json_and_format() {
    replay("json", tokensieve_fuzz::check_json);
    replay("json_relaxed", tokensieve_fuzz::check_relaxed);
    replay("format", tokensieve_fuzz::check_format);
}

#[test]
fn replay_fast_targets() {
    replay("fast_sieve", tokensieve_fuzz::fast::check_fast_sieve);
    replay(
        "fast_json_relaxed",
        tokensieve_fuzz::fast::check_fast_relaxed,
    );
}

#[test]
fn replay_ffi() {
    replay("ffi", tokensieve_fuzz::ffi::check_ffi);
}

/// The `ffi` target's decoder inputs (`[0xE0 + provider, flags, seed, body…]`, seeded from the
/// provider vectors' bodies) pass its checks, plainly and with every flag combination the
/// seeds do not carry: the decoder functions work before any campaign ran them.
#[test]
fn ffi_decoder_passes_its_seeds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds/ffi");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).expect("seeds").flatten() {
        let mut data = std::fs::read(e.path()).expect("read");
        if !(0xE0..0xF0).contains(&data[0]) {
            continue;
        }
        n += 1;
        for flags in [0, 1 | 2 | 4, 8 | 1, 16, 32 | 16, 64, 8 | 64 | 2] {
            data[1] = flags;
            tokensieve_fuzz::ffi::check_ffi(&data);
        }
    }
    assert!(n > 0, "no decoder seeds in {}", dir.display());
}

/// Events of `input` (coalesced) through a parser on `memory` bytes of caller memory, fed
/// whole (`split` = None) or in two pieces.
fn fixed(config: &str, memory: usize, input: &[u8], split: Option<usize>) -> Vec<Ev> {
    let config = ConfigBuf::from_json(config).expect("config");
    let c = config.config();
    let mut mem = vec![0u8; memory];
    let mut sieve = Sieve::with_memory(&c, &mut mem).expect("memory");
    let sizes: Vec<usize> = split.into_iter().collect();
    coalesce(&drive(&mut sieve, &[], input, &sizes))
}

/// F1 (anthropic-xml, fixed memory): an untyped parameter value longer than the value
/// buffer (here 86 bytes) loses the whitespace after `[1,` when the input is split just
/// after it: `{"a": [1, "xx…` becomes `{"a": [1,"xx…` in the string the value degrades to.
#[test]
fn f1_anthropic_fixed_memory_overflowing_value_is_chunk_invariant() {
    let x = "x".repeat(90);
    let input = format!(
        "<function_calls><invoke name=\"f\"><parameter name=\"p\">{{\"a\": [1, \"{x}\"]}}</parameter></invoke></function_calls>"
    );
    let cfg = r#"{"dialect": "anthropic-xml"}"#;
    let at = input.find("\"x").expect("marker");
    assert_eq!(
        fixed(cfg, MIN_MEMORY + 26, input.as_bytes(), None),
        fixed(cfg, MIN_MEMORY + 26, input.as_bytes(), Some(at))
    );
}

/// F2 (qwen3-coder, fixed memory, DEFAULT_MEMORY): an untyped parameter value longer than
/// the value buffer keeps its leading framing newline when fed whole (`"\n{\"a\"…`) and
/// drops it when the input is split right after `<parameter=p>\n`.
#[test]
fn f2_qwen3_fixed_memory_overflowing_value_is_chunk_invariant() {
    let x = "x".repeat(600);
    let input = format!(
        "<tool_call>\n<function=f>\n<parameter=p>\n{{\"a\": [1, \"{x}\"]}}\n</parameter>\n</function>\n</tool_call>"
    );
    let cfg = r#"{"dialect": "qwen3-coder"}"#;
    let at = input.find('{').expect("value");
    assert_eq!(
        fixed(cfg, tokensieve::DEFAULT_MEMORY, input.as_bytes(), None),
        fixed(cfg, tokensieve::DEFAULT_MEMORY, input.as_bytes(), Some(at))
    );
}

/// Events of `input` (coalesced) through a heap parser, fed whole or in pieces of `n`.
fn heap(config: &str, input: &[u8], n: Option<usize>) -> Vec<Ev> {
    let config = ConfigBuf::from_json(config).expect("config");
    let c = config.config();
    let mut sieve = Sieve::new(&c).expect("config");
    let sizes: Vec<usize> = match n {
        Some(n) => std::iter::repeat_n(n, input.len().div_ceil(n)).collect(),
        None => Vec::new(),
    };
    coalesce(&drive(&mut sieve, &[], input, &sizes))
}

fn reasons(events: &[Ev]) -> Vec<tokensieve::ErrorReason> {
    events
        .iter()
        .filter_map(|e| match e {
            Ev::Complete {
                error: Some((r, _, _)),
                ..
            } => Some(*r),
            _ => None,
        })
        .collect()
}

/// F4 (anthropic-xml, qwen3-coder, morph-xml; heap): a call that outgrows `max_call_bytes`
/// and is still open at the end of input fails as `unfinished` when fed whole but as
/// `too-large` when fed in small pieces (and morph-xml's streamed string then differs by
/// the bytes after the limit). docs/design.md: a call that outgrows the limit "fails as
/// `too-large` at that byte", whatever the chunking.
#[test]
fn f4_outgrowing_max_call_bytes_is_too_large_at_any_chunking() {
    let digits = "0123456789".repeat(4);
    let cases = [
        (
            r#"{"dialect": "anthropic-xml", "max_call_bytes": 64}"#,
            format!("<function_calls><invoke name=\"f\"><parameter name=\"p\">{digits}"),
        ),
        (
            r#"{"dialect": "qwen3-coder", "max_call_bytes": 64}"#,
            format!("<tool_call><function=f>\n<parameter=p>\n{digits}"),
        ),
        (
            r#"{"dialect": "morph-xml", "max_call_bytes": 64, "tools": [{"name": "f",
                "schema": {"type": "object", "properties": {"p": {"type": "string"}}}}]}"#,
            format!("<f><p>{digits}{digits}"),
        ),
    ];
    for (cfg, input) in cases {
        let whole = heap(cfg, input.as_bytes(), None);
        assert_eq!(
            reasons(&whole),
            [tokensieve::ErrorReason::TooLarge],
            "{cfg}"
        );
        for n in [1, 2, 3, 7, 64] {
            assert_eq!(
                heap(cfg, input.as_bytes(), Some(n)),
                whole,
                "{cfg} in pieces of {n}"
            );
        }
    }
}

/// F9 (morph-xml): an untyped argument holding malformed markup whose attribute has an
/// invalid UTF-8 byte (`<k><r><y g="\xff"></y></y></k>`) completes the call without an
/// error but with input `{"k":�}`, which is not JSON (rule 9: the input chunks concatenate
/// to strict JSON). Either a valid value or a failed call is fine; invalid JSON is not.
#[test]
fn f9_morph_malformed_untyped_argument_never_yields_invalid_json() {
    let cfg = r#"{"dialect": "morph-xml", "tools": [{"name": "get",
        "schema": {"type": "object", "properties": {"url": {"type": "string"}}}}]}"#;
    let input = b"<get><k><r><y g=\"\xff\"></y></y></k></get>";
    for n in [None, Some(1), Some(3)] {
        let events = heap(cfg, input, n);
        tokensieve_fuzz::lint(&events, input);
    }
}

/// F10 (hermes, fixed memory; campaign of 2026-11-22): the arguments of a call whose name
/// comes after them are held in the value buffer; a string longer than that buffer failed
/// the call as too large only after its whole piece was consumed. With the string begun in
/// the prefill, the stream's first piece (`xx…<b></tool_call> after`, decided inside the
/// string) ran past a `</tool_call>` — content until the failure, the skip's closer after
/// it — so the skip missed it and swallowed the rest; split inside the piece, the skip found
/// it. Now the skip starts at the first byte that did not fit, whatever the chunking.
#[test]
fn f10_hermes_held_arguments_overflow_skips_from_the_same_byte() {
    let config = ConfigBuf::from_json(r#"{"dialect": "hermes"}"#).expect("config");
    let c = config.config();
    let events = |prefill: &[u8], input: &[u8], sizes: &[usize]| {
        let mut mem = vec![0u8; MIN_MEMORY];
        let mut sieve = Sieve::with_memory(&c, &mut mem).expect("memory");
        coalesce(&drive(&mut sieve, prefill, input, sizes))
    };
    let prefill = b"<tool_call>{\"arguments\": {\"a\": \"";
    for n in 0..300 {
        let x = "x".repeat(n);
        let input = format!("{x}<b></tool_call> after\"}}, \"name\": \"f\"}}</tool_call> end");
        let whole = events(prefill, input.as_bytes(), &[]);
        for at in 1..input.len() {
            assert_eq!(
                whole,
                events(prefill, input.as_bytes(), &[at]),
                "{n} x, split at {at}"
            );
        }
    }
}

#[test]
fn replay_frame_targets() {
    use tokensieve_fuzz::frame::{Which, check_frame};
    for (target, which) in [
        ("frame_sse", Which::Sse),
        ("frame_json_array", Which::JsonArray),
        ("frame_event_stream", Which::EventStream),
    ] {
        replay(target, move |data| check_frame(which, data));
    }
}

/// The framing targets' seeds (the provider vectors' bodies) pass their checks: the targets
/// work before any campaign ran them.
#[test]
fn frame_targets_pass_their_seeds() {
    use tokensieve_fuzz::frame::{Which, check_frame};
    for (target, which) in [
        ("frame_sse", Which::Sse),
        ("frame_json_array", Which::JsonArray),
        ("frame_event_stream", Which::EventStream),
    ] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("seeds")
            .join(target);
        let files: Vec<_> = std::fs::read_dir(&dir).expect("seeds").flatten().collect();
        assert!(!files.is_empty(), "no seeds in {}", dir.display());
        for e in files {
            let data = std::fs::read(e.path()).expect("read");
            check_frame(which, &data);
            // Some damage too: every 7th byte flipped, and the body cut in half.
            let mut bent = data.clone();
            for b in bent.iter_mut().skip(2).step_by(7) {
                *b ^= 0x21;
            }
            check_frame(which, &bent);
            check_frame(which, &data[..data.len().max(2) / 2 + 1]);
        }
    }
}

/// F19 (hermes, fixed memory `MIN_MEMORY`, `max_call_bytes` 64): a call that went on past
/// a full `raw` and failed later lost the bytes between from its re-emitted text (fed byte
/// by byte, the space before the last value). A call longer than the memory's `raw` budget
/// now fails as too large at that byte, as one past `max_call_bytes` does on the heap: the
/// text comes back whole at every split.
#[test]
fn f19_fixed_memory_call_past_raw_loses_nothing() {
    let input = include_bytes!("data/f19-minimised-input");
    let config = r#"{"dialect": "hermes", "max_call_bytes": 64}"#;
    let whole = fixed(config, MIN_MEMORY, input, None);
    let text: String = whole
        .iter()
        .filter_map(|e| match e {
            Ev::Chunk {
                text,
                ty: BlockType::Text,
                ..
            } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        text.as_bytes(),
        String::from_utf8_lossy(input).as_bytes()
    );
    for at in 1..input.len() {
        assert_eq!(
            whole,
            fixed(config, MIN_MEMORY, input, Some(at)),
            "split at {at}"
        );
    }
}
