#![cfg(feature = "alloc")]
//! Faults an audit of main found in the provider decoders (issue 25, item 7): each gets a
//! clear, documented outcome (docs/providers.md). Vectors under `conformance/providers/` pin
//! the ones a body file can show; these are the ones about the API and its limits.

mod support;

use tokensieve::accumulate::OwnedEvent;
use tokensieve::provider::{Decoder, DecoderConfig, Provider};
use tokensieve::{Misuse, Pull};

const TEXT: &[u8] = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n";
const LATE: &[u8] = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"late\"}}]}\n\n";

fn decode(config: &DecoderConfig<'_>, body: &[u8], read: usize) -> Vec<OwnedEvent> {
    support::provider::events(config, body, &[read], None)
}

/// R10: input after `finish` is drained is left unread by `next` and refused by `pull`, as
/// `Sieve` does; `reset` starts a new stream.
#[test]
fn input_after_finish_is_refused_not_dropped() {
    let config = DecoderConfig::new(Provider::OpenAiChat);
    let mut d = Decoder::new(&config).unwrap();
    let mut n = 0;
    d.feed_with(TEXT, |_| n += 1);
    d.finish_with(|_| n += 1);
    assert!(d.is_done());
    // text block (start, chunk, complete) and the finish
    assert_eq!(n, 4);
    let mut rest = LATE;
    assert!(d.next(&mut rest).is_none());
    assert_eq!(
        rest.len(),
        LATE.len(),
        "next leaves input after the end unread"
    );
    assert!(matches!(d.pull(&mut rest), Err(Misuse::InputAfterFinish)));
    assert!(matches!(d.pull(&mut &b""[..]), Ok(Pull::Done)));
    d.reset();
    assert!(!d.is_done());
    let mut m = 0;
    d.feed_with(LATE, |_| m += 1);
    d.finish_with(|_| m += 1);
    assert_eq!(m, 4);
}

/// R10: `pull` names every outcome through a whole stream.
#[test]
fn pull_names_every_outcome() {
    let config = DecoderConfig::new(Provider::OpenAiChat);
    let mut d = Decoder::new(&config).unwrap();
    let mut input = TEXT;
    let mut events = 0;
    while let Pull::Event(_) = d.pull(&mut input).unwrap() {
        events += 1;
    }
    assert!(input.is_empty());
    assert!(matches!(d.pull(&mut input), Ok(Pull::NeedMore)));
    d.finish();
    while let Pull::Event(_) = d.pull(&mut &b""[..]).unwrap() {
        events += 1;
    }
    assert_eq!(events, 4);
    assert!(matches!(d.pull(&mut &b""[..]), Ok(Pull::Done)));
}

/// R2: a choice index past u32 is one choice throughout: its blocks and its finish say the
/// same index (4294967295), and choice 0 still finishes.
#[test]
fn huge_choice_index_is_one_choice() {
    let body = b"data: {\"choices\":[{\"index\":4294967296,\"delta\":{\"content\":\"x\"},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n";
    for read in [1, 7, body.len()] {
        let events = decode(&DecoderConfig::new(Provider::OpenAiChat), body, read);
        let mut starts = Vec::new();
        let mut finishes = Vec::new();
        for e in &events {
            match e {
                OwnedEvent::BlockStart { choice, .. } => starts.push(*choice),
                OwnedEvent::Finish { choice, reason, .. } => finishes.push((*choice, *reason)),
                _ => {}
            }
        }
        assert_eq!(starts, [u32::MAX]);
        assert_eq!(
            finishes,
            [
                (0, tokensieve::FinishReason::Other),
                (u32::MAX, tokensieve::FinishReason::Length)
            ]
        );
    }
}

/// R3: `max_frame_bytes` 0 is the default (as the C struct and every binding read it); 1–15
/// is refused, naming the key.
#[test]
fn max_frame_bytes_zero_is_the_default() {
    let mut config = DecoderConfig::new(Provider::Bedrock);
    config.max_frame_bytes = 0;
    let body = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conformance/providers/bedrock/001-converse-text.bin"
    ))
    .unwrap();
    let events = decode(&config, &body, 7);
    assert!(!events.iter().any(|e| matches!(e, OwnedEvent::Error { .. })));
    for n in [1, 15] {
        config.max_frame_bytes = n;
        let e = Decoder::new(&config).err().unwrap();
        assert!(e.to_string().contains("max_frame_bytes"), "{e}");
    }
    config.max_frame_bytes = 16;
    assert!(Decoder::new(&config).is_ok());
}

fn text_chunks(events: &[OwnedEvent]) -> (usize, String) {
    let mut n = 0;
    let mut text = String::new();
    for e in events {
        if let OwnedEvent::Chunk { text: t, .. } = e {
            n += 1;
            text.push_str(t);
        }
    }
    (n, text)
}

/// R5: a delta full of JSON escapes goes out in a few large chunks, not one per escape.
#[test]
fn escapes_do_not_make_a_chunk_each() {
    let delta = "\\u00e9\\n\\\"x\\\"\\t".repeat(20_000);
    let body = format!(
        "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{delta}\"}}}}]}}\n\ndata: [DONE]\n\n"
    );
    let want = "é\n\"x\"\t".repeat(20_000);
    let events = decode(
        &DecoderConfig::new(Provider::OpenAiChat),
        body.as_bytes(),
        body.len(),
    );
    let (n, text) = text_chunks(&events);
    assert_eq!(text, want);
    // 140 KB of text: chunks of about 1 KB, not 100,000 chunks.
    assert!(n <= want.len() / 900 + 2, "{n} chunks");
    // The short delta of the audit: one chunk.
    let body = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"def f(x):\\n    return \\\"hi\\\"\\n\"}}]}\n\ndata: [DONE]\n\n";
    let events = decode(&DecoderConfig::new(Provider::OpenAiChat), body, body.len());
    assert_eq!(text_chunks(&events).0, 1);
    // Read by read, each read's text goes out when the read is used up (rule 5).
    let events = decode(&DecoderConfig::new(Provider::OpenAiChat), body, 7);
    assert_eq!(text_chunks(&events).1, "def f(x):\n    return \"hi\"\n");
}

/// R12: a Gemini text part past the hold bound streams in chunks of about 1 KB, not 64 bytes.
#[test]
fn a_long_gemini_part_streams_in_large_chunks() {
    let text = "abcdefgh".repeat(1 << 17);
    let body = format!(
        "data: {{\"candidates\":[{{\"content\":{{\"parts\":[{{\"text\":\"{text}\"}}]}},\"finishReason\":\"STOP\"}}]}}\n\n"
    );
    let mut config = DecoderConfig::new(Provider::Gemini);
    config.options.max_call_bytes = 4096;
    for read in [65536, body.len()] {
        let events = decode(&config, body.as_bytes(), read);
        let (n, got) = text_chunks(&events);
        assert_eq!(got, text);
        assert!(n <= text.len() / 900 + 2, "{n} chunks at read {read}");
    }
}

/// R1: arguments a proxy sends before their call's name that outgrow `max_call_bytes`
/// while held: a `max-call-bytes` error, then the call fails as `too-large` once its name
/// comes — no input, `raw` the first `max_call_bytes` bytes — never a call that succeeds
/// with part of its input or `{}`. (A test, not a vector: bindings differ in how they show a
/// `raw` cut at the limit.)
#[test]
fn args_held_past_max_call_bytes_fail_the_call() {
    let content = "x".repeat(200);
    let body = format!(
        "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":0,\"function\":{{\"arguments\":\"{{\\\"path\\\": \\\"/etc/important\\\", \\\"content\\\": \\\"{content}\\\"}}\"}}}}]}}}}]}}\n\n\
         data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{{\"name\":\"write_file\"}}}}]}}}}]}}\n\n\
         data: {{\"choices\":[{{\"index\":0,\"delta\":{{}},\"finish_reason\":\"tool_calls\"}}]}}\n\ndata: [DONE]\n\n"
    );
    let mut config = DecoderConfig::new(Provider::OpenAiChat);
    config.options.max_call_bytes = 64;
    for read in [1, 7, body.len()] {
        let events = decode(&config, body.as_bytes(), read);
        let errors: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                OwnedEvent::Error { code, .. } => code.clone(),
                _ => None,
            })
            .collect();
        assert_eq!(errors, ["max-call-bytes"], "{events:?}");
        let calls: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                OwnedEvent::BlockComplete {
                    block_type: tokensieve::BlockType::ToolCall,
                    tool_name,
                    tool_id,
                    input,
                    error,
                    ..
                } => Some((
                    tool_name.clone(),
                    tool_id.clone(),
                    input.clone(),
                    error.clone(),
                )),
                _ => None,
            })
            .collect();
        assert_eq!(calls.len(), 1, "{events:?}");
        let (name, id, input, error) = calls[0].clone();
        assert_eq!(name.as_deref(), Some("write_file"));
        assert_eq!(id.as_deref(), Some("call_1"));
        assert_eq!(input, None);
        let (reason, raw) = error.unwrap();
        assert_eq!(reason, tokensieve::ErrorReason::TooLarge);
        let want: Vec<u8> = format!("{{\"path\": \"/etc/important\", \"content\": \"{content}")
            .bytes()
            .take(64)
            .collect();
        assert_eq!(raw, want);
        assert!(!events.iter().any(|e| matches!(
            e,
            OwnedEvent::Chunk {
                part: Some(tokensieve::Part::Input),
                ..
            }
        )));
    }
}
