//! Provider streams: tokensieve's `Decoder` on a 20 MB OpenAI Chat SSE body of small text
//! deltas (~210 bytes an event), an Anthropic Messages SSE body and an AWS Bedrock
//! ConverseStream body (event-stream frames) of the same text, at 4-byte, 4 KiB and 64 KiB
//! reads; with the `compare-sse` feature, side by side with `eventsource-stream` 0.2.3 +
//! `serde_json` into typed structs and into `serde_json::Value` on the same bytes (for
//! Bedrock: the AWS SDK's frame decoder, `aws-smithy-eventstream` 0.61.6, + `serde_json`).
//! Also linearity: one 1 MB and one 10 MB text event.
//!
//! `bytes.*` groups report MB/s; `events.*` report events a second (the inverse is the time
//! per provider event). Every run decodes the whole body with a fresh decoder and consumes
//! every event (text lengths summed into `black_box`).
//!
//! `cargo bench -p tokensieve-benches --features compare-sse --bench decode`

use std::hint::black_box;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use tokensieve::provider::{DecoderConfig, Provider};
use tokensieve_benches::provider::{anthropic_body, bedrock_body, openai_body, tokensieve_decode};

#[cfg(feature = "compare-sse")]
mod peer {
    //! eventsource-stream + serde_json, as a Rust host writes it today.
    use eventsource_stream::Eventsource;
    use futures::StreamExt;
    use serde::Deserialize;

    #[derive(Deserialize)]
    struct ChatChunk {
        #[allow(dead_code)]
        id: Option<String>,
        #[allow(dead_code)]
        model: Option<String>,
        choices: Vec<Choice>,
    }
    #[derive(Deserialize)]
    struct Choice {
        delta: Delta,
        #[allow(dead_code)]
        finish_reason: Option<String>,
    }
    #[derive(Deserialize)]
    struct Delta {
        content: Option<String>,
    }

    #[derive(Deserialize)]
    #[serde(tag = "type")]
    enum Anthropic {
        #[serde(rename = "content_block_delta")]
        Delta { delta: AnthropicDelta },
        #[serde(other)]
        Other,
    }
    #[derive(Deserialize)]
    struct AnthropicDelta {
        text: Option<String>,
    }

    /// Frames `body` in `read`-byte reads and hands each event's data to `f`.
    fn events(body: &[u8], read: usize, mut f: impl FnMut(&str)) {
        let reads = futures::stream::iter(
            body.chunks(read)
                .map(|c| Ok::<_, std::convert::Infallible>(c.to_vec())),
        );
        let mut stream = reads.eventsource();
        futures::executor::block_on(async {
            while let Some(ev) = stream.next().await {
                let ev = ev.unwrap();
                if ev.data != "[DONE]" {
                    f(&ev.data);
                }
            }
        });
    }

    pub fn openai_typed(body: &[u8], read: usize) -> usize {
        let mut len = 0;
        events(body, read, |data| {
            let c: ChatChunk = serde_json::from_str(data).unwrap();
            for ch in c.choices {
                len += ch.delta.content.map_or(0, |t| t.len());
            }
        });
        len
    }

    pub fn anthropic_typed(body: &[u8], read: usize) -> usize {
        let mut len = 0;
        events(body, read, |data| {
            if let Anthropic::Delta { delta } = serde_json::from_str(data).unwrap() {
                len += delta.text.map_or(0, |t| t.len());
            }
        });
        len
    }

    #[derive(Deserialize)]
    struct BedrockDelta {
        delta: BedrockText,
    }
    #[derive(Deserialize)]
    struct BedrockText {
        text: Option<String>,
    }

    /// Bedrock: the AWS SDK's streaming frame decoder over the reads (its buffer refilled
    /// as a host's HTTP client does), then `serde_json` on `contentBlockDelta` payloads.
    pub fn bedrock_typed(body: &[u8], read: usize) -> usize {
        use aws_smithy_eventstream::frame::{DecodedFrame, MessageFrameDecoder};
        use bytes::{Buf, BytesMut};
        let mut decoder = MessageFrameDecoder::new();
        let mut buf = BytesMut::new();
        let mut len = 0;
        for piece in body.chunks(read) {
            buf.extend_from_slice(piece);
            while let DecodedFrame::Complete(message) = decoder.decode_frame(&mut buf).unwrap() {
                let delta = message.headers().iter().any(|h| {
                    h.name().as_str() == ":event-type"
                        && h.value().as_string().map(|s| s.as_str()) == Ok("contentBlockDelta")
                });
                if delta {
                    let d: BedrockDelta = serde_json::from_slice(message.payload()).unwrap();
                    len += d.delta.text.map_or(0, |t| t.len());
                }
            }
            let _ = buf.remaining();
        }
        len
    }

    pub fn value(body: &[u8], read: usize) -> usize {
        let mut len = 0;
        events(body, read, |data| {
            let v: serde_json::Value = serde_json::from_str(data).unwrap();
            len += v.to_string().len() & 1;
        });
        len
    }
}

fn decode(c: &mut Criterion) {
    const SIZE: usize = 20 << 20;
    let inputs = [
        ("openai-chat", Provider::OpenAiChat, openai_body(SIZE)),
        ("anthropic", Provider::Anthropic, anthropic_body(SIZE)),
        ("bedrock", Provider::Bedrock, bedrock_body(SIZE)),
    ];
    for (name, provider, (body, events)) in &inputs {
        let config = DecoderConfig::new(*provider);
        if !provider.is_supported() {
            continue;
        }
        for (label, read) in [("4B", 4usize), ("4KiB", 4096), ("64KiB", 65536)] {
            for unit in ["bytes", "events"] {
                let mut g = c.benchmark_group(format!("{unit}.{name}.{label}"));
                g.sampling_mode(SamplingMode::Flat);
                g.sample_size(10);
                g.throughput(if unit == "bytes" {
                    Throughput::Bytes(body.len() as u64)
                } else {
                    Throughput::Elements(*events)
                });
                g.bench_function("tokensieve", |b| {
                    b.iter(|| black_box(tokensieve_decode(&config, body, read)))
                });
                #[cfg(feature = "compare-sse")]
                if read >= 4096 {
                    if *provider == Provider::Bedrock {
                        g.bench_function("aws-smithy-eventstream+serde_json(typed)", |b| {
                            b.iter(|| black_box(peer::bedrock_typed(body, read)))
                        });
                    } else {
                        let typed = match provider {
                            Provider::Anthropic => peer::anthropic_typed,
                            _ => peer::openai_typed,
                        };
                        g.bench_function("eventsource-stream+serde_json(typed)", |b| {
                            b.iter(|| black_box(typed(body, read)))
                        });
                        g.bench_function("eventsource-stream+serde_json(Value)", |b| {
                            b.iter(|| black_box(peer::value(body, read)))
                        });
                    }
                }
                g.finish();
            }
        }
    }
}

/// One text event of 1 MB and one of 10 MB: the time should grow ~10×.
fn linearity(c: &mut Criterion) {
    let config = DecoderConfig::new(Provider::OpenAiChat);
    let mut g = c.benchmark_group("linearity.openai-chat.one-event");
    g.sampling_mode(SamplingMode::Flat);
    g.sample_size(10);
    for mb in [1usize, 10] {
        let text = "lorem ipsum dolor sit amet, \\\"quoted\\\" é ".repeat((mb << 20) / 40);
        let body = format!(
            "data: {{\"choices\":[{{\"delta\":{{\"content\":\"{text}\"}}}}]}}\n\ndata: [DONE]\n\n"
        );
        g.throughput(Throughput::Bytes(body.len() as u64));
        g.bench_function(format!("{mb}MB"), |b| {
            b.iter(|| black_box(tokensieve_decode(&config, body.as_bytes(), 4096)))
        });
    }
    g.finish();
}

criterion_group!(benches, decode, linearity);
criterion_main!(benches);
