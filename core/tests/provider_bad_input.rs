#![cfg(feature = "alloc")]
//! Bad input to the provider decoders gets a clear outcome and loses nothing (issue 16, "Bad
//! input"): invalid UTF-8, binary garbage, 10⁴-deep JSON, a 20 MB single event, 1 MB of SSE
//! comments, a truncated body — for every provider this build decodes. The decoder never
//! panics, never stalls (a good event after the bad one still decodes), and the event model
//! holds (blocks complete, a finish ends the stream).

mod support;

use tokensieve::accumulate::OwnedEvent;
use tokensieve::provider::{Decoder, DecoderConfig, Provider};

fn decode(provider: Provider, body: &[u8], read: usize) -> Vec<OwnedEvent> {
    support::provider::events(&DecoderConfig::new(provider), body, &[read], None)
}

fn text_of(events: &[OwnedEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            OwnedEvent::Chunk {
                text,
                block_type: tokensieve::BlockType::Text,
                ..
            } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn finishes(events: &[OwnedEvent]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, OwnedEvent::Finish { .. }))
        .count()
}

fn errors(events: &[OwnedEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            OwnedEvent::Error { code, .. } => Some(code.clone().unwrap_or_default()),
            _ => None,
        })
        .collect()
}

const GOOD: &str = "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"}}]}\n\n";

#[test]
fn garbage_never_panics_and_always_finishes() {
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    for provider in Provider::ALL.into_iter().filter(|p| p.is_supported()) {
        for len in [0usize, 1, 2, 7, 64, 1000, 20_000] {
            let body: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            for read in [1, 5, 4096] {
                let events = decode(provider, &body, read);
                assert!(
                    finishes(&events) >= 1,
                    "{provider:?} {len} bytes: no finish"
                );
            }
        }
    }
}

#[test]
fn invalid_utf8_in_text_is_replaced_not_lost() {
    let body = b"data: {\"choices\":[{\"delta\":{\"content\":\"a\xffb\xe6\x9d\"}}]}\n\n\
data: {\"choices\":[{\"delta\":{\"content\":\"c\"},\"finish_reason\":\"stop\"}]}\n\n";
    for read in [1, 2, 3, 64] {
        let events = decode(Provider::OpenAiChat, body, read);
        assert_eq!(text_of(&events), "a\u{FFFD}b\u{FFFD}c", "read {read}");
    }
}

#[test]
fn deep_json_is_skipped_and_the_next_event_decodes() {
    let deep = format!(
        "data: {{\"choices\":[{{\"delta\":{{\"x\":{}{}}}}}]}}\n\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let body = format!("{deep}{GOOD}");
    for read in [7, 4096] {
        let events = decode(Provider::OpenAiChat, body.as_bytes(), read);
        assert_eq!(text_of(&events), "ok", "read {read}: {:?}", errors(&events));
    }
}

#[test]
fn a_20_mb_event_streams_without_a_buffer() {
    let big = "x".repeat(20 << 20);
    let body = format!("data: {{\"choices\":[{{\"delta\":{{\"content\":\"{big}\"}}}}]}}\n\n{GOOD}");
    let events = decode(Provider::OpenAiChat, body.as_bytes(), 64 * 1024);
    let text = text_of(&events);
    assert_eq!(text.len(), big.len() + 2);
    assert!(text.ends_with("ok"));
}

#[test]
fn a_megabyte_of_comments_is_skipped() {
    let comments = ": keep-alive\n".repeat(1 << 20 >> 4);
    let body = format!("{comments}{GOOD}{comments}");
    let events = decode(Provider::OpenAiChat, body.as_bytes(), 4096);
    assert_eq!(text_of(&events), "ok");
    assert!(errors(&events).is_empty());
}

#[test]
fn a_truncated_body_finishes_with_an_error() {
    let body = b"data: {\"choices\":[{\"delta\":{\"content\":\"par";
    for read in [1, 64] {
        let events = decode(Provider::OpenAiChat, body, read);
        assert_eq!(text_of(&events), "par");
        match events.last() {
            Some(OwnedEvent::Finish { reason, .. }) => {
                assert_eq!(*reason, tokensieve::FinishReason::Error)
            }
            other => panic!("{other:?}"),
        }
    }
}

/// An error message longer than the memory for it is cut at a character boundary, not lost.
#[test]
fn a_long_error_message_keeps_its_whole_characters() {
    let message = "é".repeat(300);
    let body = format!("data: {{\"error\":{{\"message\":\"{message}\",\"code\":\"busy\"}}}}\n\n");
    let config = DecoderConfig::new(Provider::OpenAiChat);
    let mut memory = [0u8; 640];
    let mut decoder = Decoder::with_memory(&config, &mut memory).unwrap();
    let mut got = None;
    for read in [1usize, 3] {
        decoder.reset();
        for piece in body.as_bytes().chunks(read) {
            decoder.feed_with(piece, |ev| {
                if let tokensieve::Event::Error(e) = ev {
                    got = Some(e.message.to_owned());
                }
            });
        }
        let m = got.take().expect("an error event");
        assert!(!m.is_empty() && message.starts_with(&m), "{m:?}");
    }
}
