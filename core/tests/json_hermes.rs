//! How the hermes dialect drives the JSON layer: read the `name`, stream only the
//! `arguments`/`parameters` value as strict JSON, and transcode JSON-encoded string
//! arguments — over every chunking, with fixed-size state.
use tokensieve::json::relaxed::{Lex, Lexer, Step, Token, Transcoder, Writer};

enum Arg {
    None,
    /// Streaming a value through a writer.
    Value(Writer),
    /// Transcoding a JSON-encoded string.
    Encoded(Transcoder),
}

/// A minimal, allocation-free-in-spirit extractor: a fixed key buffer, a lexer, and at most
/// one writer or inner transcoder. Output goes to the `name`/`args` sinks.
struct Hermes {
    lexer: Lexer,
    key: [u8; 16],
    key_len: usize, // > 16 = too long to be interesting
    in_key: bool,
    current: Current,
    arg: Arg,
    inner_failed: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Current {
    Other,
    Name,
    Args,
}

impl Hermes {
    fn new() -> Self {
        Hermes {
            lexer: Lexer::new(),
            key: [0; 16],
            key_len: 0,
            in_key: false,
            current: Current::Other,
            arg: Arg::None,
            inner_failed: false,
        }
    }

    fn key_is(&self, k: &[u8]) -> bool {
        self.key_len <= 16 && &self.key[..self.key_len] == k
    }

    /// Handles one token; returns pieces through the sinks.
    fn token(&mut self, tok: Token<'_>, name: &mut Vec<u8>, args: &mut Vec<u8>) {
        let depth = self.lexer.depth();
        if let Arg::Value(w) = &mut self.arg {
            if let Some(p) = w.render(tok) {
                args.extend_from_slice(p.as_bytes());
            }
            if tok.ends_value() && depth == 1 {
                self.arg = Arg::None;
                self.current = Current::Other;
            }
            return;
        }
        let mut scratch = [0u8; 4];
        match tok {
            Token::KeyStart if depth == 1 => {
                self.in_key = true;
                self.key_len = 0;
            }
            Token::KeyEnd if depth == 1 => {
                self.in_key = false;
                self.current = if self.key_is(b"name") {
                    Current::Name
                } else if self.key_is(b"arguments") || self.key_is(b"parameters") {
                    Current::Args
                } else {
                    Current::Other
                };
            }
            Token::Text(t) if self.in_key => {
                for &b in t.decoded(&mut scratch) {
                    if let Some(slot) = self.key.get_mut(self.key_len) {
                        *slot = b;
                    }
                    self.key_len += 1;
                }
            }
            Token::Text(t) if self.current == Current::Name => {
                name.extend_from_slice(t.decoded(&mut scratch))
            }
            Token::Text(t) => {
                if let Arg::Encoded(inner) = &mut self.arg {
                    let mut bytes = t.decoded(&mut scratch);
                    loop {
                        match inner.next(&mut bytes) {
                            Step::Out(p) => args.extend_from_slice(p.as_bytes()),
                            Step::Error(_) => {
                                self.inner_failed = true;
                                break;
                            }
                            Step::NeedMore | Step::Done => break,
                        }
                    }
                }
            }
            Token::StringStart if depth == 1 && self.current == Current::Args => {
                self.arg = Arg::Encoded(Transcoder::new());
            }
            Token::StringEnd if depth == 1 => {
                if let Arg::Encoded(inner) = &mut self.arg {
                    loop {
                        match inner.finish() {
                            Step::Out(p) => args.extend_from_slice(p.as_bytes()),
                            Step::Error(_) => {
                                self.inner_failed = true;
                                break;
                            }
                            _ => break,
                        }
                    }
                }
                self.arg = Arg::None;
                self.current = Current::Other;
            }
            t if depth >= 1 && t.starts_value() && self.current == Current::Args => {
                let mut w = Writer::new();
                if let Some(p) = w.render(t) {
                    args.extend_from_slice(p.as_bytes());
                }
                if t.ends_value() && depth == 1 {
                    self.current = Current::Other;
                } else {
                    self.arg = Arg::Value(w);
                }
            }
            t if t.ends_value() && depth == 1 => self.current = Current::Other,
            _ => {}
        }
    }
}

/// Feeds the body in chunks; returns (name, args, completed, rest after the body).
fn extract(chunks: &[&[u8]]) -> (String, String, bool, Vec<u8>) {
    let mut h = Hermes::new();
    let (mut name, mut args) = (Vec::new(), Vec::new());
    let mut rest = Vec::new();
    let mut done = false;
    for chunk in chunks {
        let mut input = *chunk;
        if done {
            rest.extend_from_slice(input);
            continue;
        }
        loop {
            match h.lexer.next(&mut input) {
                Lex::Token(t) => h.token(t, &mut name, &mut args),
                Lex::NeedMore => break,
                Lex::Done => {
                    done = true;
                    rest.extend_from_slice(input);
                    break;
                }
                Lex::Error(e) => panic!("{e}"),
            }
        }
    }
    assert!(!h.inner_failed);
    (
        String::from_utf8(name).unwrap(),
        String::from_utf8(args).unwrap(),
        done,
        rest,
    )
}

fn check(body: &str, tail: &str, want_name: &str, want_args: &str) {
    let src = format!("{body}{tail}");
    let src = src.as_bytes();
    let want = (
        want_name.to_string(),
        want_args.to_string(),
        true,
        tail.as_bytes().to_vec(),
    );
    assert_eq!(extract(&[src]), want, "{body}");
    for i in 0..=src.len() {
        assert_eq!(
            extract(&[&src[..i], &src[i..]]),
            want,
            "{body} split at {i}"
        );
    }
    let bytes: Vec<&[u8]> = src.chunks(1).collect();
    assert_eq!(extract(&bytes), want, "{body} byte by byte");
}

#[test]
fn plain_call() {
    check(
        r#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#,
        "</tool_call>",
        "get_weather",
        r#"{"city":"Paris"}"#,
    );
}

#[test]
fn relaxed_call() {
    check(
        "{name: 'get_weather', // the tool\n parameters: {city: Paris, days: 3, units: 'metric',},}",
        "\n</tool_call>",
        "get_weather",
        r#"{"city":"Paris","days":3,"units":"metric"}"#,
    );
}

#[test]
fn arguments_before_name_and_other_keys_ignored() {
    check(
        r#"{"id": 7, "arguments": [1, {"a": [true]}], "extra": {"name": "no"}, "name": "f\u00e9"}"#,
        "",
        "f\u{e9}",
        r#"[1,{"a":[true]}]"#,
    );
}

#[test]
fn scalar_arguments() {
    check(r#"{"name": "f", "arguments": 1.50}"#, "", "f", "1.50");
    check(r#"{"name": "f", "arguments": null}"#, "", "f", "null");
}

#[test]
fn json_encoded_string_arguments() {
    check(
        r#"{"name": "f", "arguments": "{\"a\": 1, \"b\": \"x\\\"y\", \"e\": \"\\uD83D\\uDE00\"}"}"#,
        "</tool_call>",
        "f",
        "{\"a\":1,\"b\":\"x\\\"y\",\"e\":\"\u{1F600}\"}",
    );
    // Single-quoted outer string holding relaxed JSON.
    check(
        "{name: f, arguments: '{city: Paris}'}",
        "",
        "f",
        r#"{"city":"Paris"}"#,
    );
}

#[test]
fn extractor_state_is_small() {
    // Everything the dialect needs for one call is fixed-size.
    assert!(size_of::<Hermes>() <= 256, "{}", size_of::<Hermes>());
}
