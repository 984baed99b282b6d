//! Property tests: strict JSON round trips, chunk invariance on relaxed input, validity of
//! the output.
use tokensieve::json::relaxed::{ErrorKind, Step, Transcoder};
use tokensieve::json::strict;

use proptest::prelude::*;
use proptest::sample::Index;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Done(usize),
    Error(ErrorKind, u64),
}

fn run(chunks: &[&[u8]]) -> (Vec<u8>, Outcome) {
    let mut t = Transcoder::new();
    let mut out = Vec::new();
    let mut consumed = 0;
    for chunk in chunks {
        let mut input = *chunk;
        loop {
            let before = input.len();
            let step = t.next(&mut input);
            consumed += before - input.len();
            match step {
                Step::Out(p) => {
                    assert!(
                        std::str::from_utf8(p.as_bytes()).is_ok(),
                        "piece is not UTF-8: {p:?}"
                    );
                    out.extend_from_slice(p.as_bytes())
                }
                Step::NeedMore => {
                    assert!(input.is_empty());
                    break;
                }
                Step::Done => return (out, Outcome::Done(consumed)),
                Step::Error(e) => return (out, Outcome::Error(e.kind, e.offset)),
            }
        }
    }
    loop {
        match t.finish() {
            Step::Out(p) => out.extend_from_slice(p.as_bytes()),
            Step::NeedMore => panic!("finish() returned NeedMore"),
            Step::Done => return (out, Outcome::Done(consumed)),
            Step::Error(e) => return (out, Outcome::Error(e.kind, e.offset)),
        }
    }
}

/// Splits `src` at the given positions (any order, duplicates allowed).
fn split<'a>(src: &'a [u8], cuts: &[Index]) -> Vec<&'a [u8]> {
    let mut pos: Vec<usize> = cuts.iter().map(|i| i.index(src.len() + 1)).collect();
    pos.sort_unstable();
    let mut out = Vec::new();
    let mut last = 0;
    for p in pos {
        out.push(&src[last..p]);
        last = p;
    }
    out.push(&src[last..]);
    out
}

// ----- (i) strict JSON values with random whitespace and escape spellings ----------------

#[derive(Debug, Clone)]
enum J {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

fn number_text() -> impl Strategy<Value = String> {
    "-?(0|[1-9][0-9]{0,25})(\\.[0-9]{1,6})?([eE][+-]?[0-9]{1,3})?"
}

fn string_value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z /\\\\\"]{0,8}",
        prop::collection::vec(any::<char>(), 0..10).prop_map(String::from_iter),
        "[\\x00-\\x1f\u{e9}\u{1F600}\u{FFFF}\u{10000}]{0,6}",
    ]
}

fn json() -> impl Strategy<Value = J> {
    let leaf = prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        number_text().prop_map(J::Num),
        string_value().prop_map(J::Str),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(J::Arr),
            prop::collection::vec((string_value(), inner), 0..6).prop_map(J::Obj),
        ]
    })
}

/// A tiny deterministic generator for whitespace and escape choices.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

fn write_str(s: &str, rng: &mut Rng, out: &mut Vec<u8>) {
    out.push(b'"');
    for c in s.chars() {
        let style = rng.next() % 4;
        let mut u16s = [0u16; 2];
        let upper = rng.next() % 2 == 0;
        let escape_u = |out: &mut Vec<u8>, units: &[u16]| {
            for u in units {
                let t = if upper {
                    format!("\\u{u:04X}")
                } else {
                    format!("\\u{u:04x}")
                };
                out.extend_from_slice(t.as_bytes());
            }
        };
        match c {
            '"' | '\\' | '\u{0}'..='\u{1f}' if style == 0 => {
                escape_u(out, c.encode_utf16(&mut u16s))
            }
            '"' | '\\' | '\u{0}'..='\u{1f}' => {
                let q = serde_json::to_string(&c.to_string()).unwrap();
                out.extend_from_slice(&q.as_bytes()[1..q.len() - 1])
            }
            '/' if style == 0 => out.extend_from_slice(b"\\/"),
            _ if style == 0 => escape_u(out, c.encode_utf16(&mut u16s)),
            _ => {
                let mut b = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
            }
        }
    }
    out.push(b'"');
}

/// Writes `j`; whitespace from `ws` (None = compact), escape spellings from `esc`.
fn write(j: &J, ws: &mut Option<Rng>, esc: &mut Rng, out: &mut Vec<u8>) {
    let mut space = |out: &mut Vec<u8>| {
        if let Some(r) = ws.as_mut() {
            let w: &[u8] = match r.next() % 6 {
                0 => b" ",
                1 => b"\n",
                2 => b"\t  ",
                3 => b"\r\n ",
                _ => b"",
            };
            out.extend_from_slice(w);
        }
    };
    space(out);
    match j {
        J::Null => out.extend_from_slice(b"null"),
        J::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        J::Num(n) => out.extend_from_slice(n.as_bytes()),
        J::Str(s) => write_str(s, esc, out),
        J::Arr(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(item, ws, esc, out);
            }
            if ws.is_some() {
                out.push(b' ');
            }
            out.push(b']');
        }
        J::Obj(members) => {
            out.push(b'{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                if ws.is_some() {
                    out.push(b'\n');
                }
                write_str(k, esc, out);
                if ws.is_some() {
                    out.push(b' ');
                }
                out.push(b':');
                write(v, ws, esc, out);
            }
            out.push(b'}');
        }
    }
    let mut space2 = |out: &mut Vec<u8>| {
        if let Some(r) = ws.as_mut()
            && r.next() % 3 == 0
        {
            out.push(b' ');
        }
    };
    space2(out);
}

/// What the transcoder must produce: compact, strings as serde_json writes them, numbers
/// as written.
fn expected(j: &J, out: &mut Vec<u8>) {
    match j {
        J::Null => out.extend_from_slice(b"null"),
        J::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        J::Num(n) => out.extend_from_slice(n.as_bytes()),
        J::Str(s) => out.extend_from_slice(serde_json::to_string(s).unwrap().as_bytes()),
        J::Arr(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                expected(item, out);
            }
            out.push(b']');
        }
        J::Obj(members) => {
            out.push(b'{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(serde_json::to_string(k).unwrap().as_bytes());
                out.push(b':');
                expected(v, out);
            }
            out.push(b'}');
        }
    }
}

// ----- (ii) relaxed inputs from a grammar ------------------------------------------------

fn gap() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => Just(&b""[..]),
        2 => Just(&b" "[..]),
        1 => Just(&b"\n"[..]),
        1 => Just(&b"\t "[..]),
        1 => Just(&b" // c\n"[..]),
        1 => Just(&b"/* x */"[..]),
        1 => Just(&b" /* * / */ "[..]),
        1 => Just(&b"//\n"[..]),
    ]
    .prop_map(<[u8]>::to_vec)
}

fn string_piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        "[a-zA-Z0-9 ,:{}\\[\\]]{1,6}".prop_map(String::into_bytes),
        Just(b"\\n".to_vec()),
        Just(b"\\'".to_vec()),
        Just(b"\\\"".to_vec()),
        Just(b"\\\\".to_vec()),
        Just(b"\\/".to_vec()),
        Just(b"\\d".to_vec()),
        Just(b"\\u00e9".to_vec()),
        Just(b"\\uD83D\\uDE00".to_vec()),
        Just(b"\\ud83d".to_vec()),
        Just(b"\\uDE00".to_vec()),
        Just(b"\\u0000".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\t".to_vec()),
        Just(b"\x01".to_vec()),
        Just("\u{e9}\u{1F600}".as_bytes().to_vec()),
        Just(b"\xff".to_vec()),
        Just(b"\xe2\x82".to_vec()),
        Just(b"\xf0\x9f\x98".to_vec()),
        Just(b"\xc0\xaf".to_vec()),
        Just(b"\"".to_vec()),
        Just(b"'".to_vec()),
    ]
}

fn quoted() -> impl Strategy<Value = Vec<u8>> {
    (prop::bool::ANY, prop::collection::vec(string_piece(), 0..5)).prop_map(|(single, pieces)| {
        let q = if single { b'\'' } else { b'"' };
        let mut out = vec![q];
        for p in pieces {
            if p == [q] {
                out.push(b'\\');
            }
            out.extend_from_slice(&p);
        }
        out.push(q);
        out
    })
}

fn bare_word() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::sample::select(vec![
            "Paris",
            "hello world",
            "true",
            "false",
            "null",
            "tru",
            "nully",
            "True",
            "1.50",
            "-0",
            "12345678901234567890",
            "1.",
            "+1",
            ".5",
            "02",
            "12 apples",
            "http://x.com/a",
            "a /b",
            "a\tb",
            "citt\u{e9}",
            "a\"b",
            "\\o/",
            "1/*x*/",
            "2 // y\n",
            "-",
            "1e5",
            "9 /x",
            "999999999999999999999999999999",
            "99999999999999999999999999999.5",
            "\u{1F600}x",
            "a\x01b",
            "x\u{7f}",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        number_text().prop_map(String::into_bytes),
        "[a-z][a-z0-9 ]{0,8}".prop_map(String::into_bytes),
        Just(b"ab\xffc".to_vec()),
    ]
}

fn key() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        "[a-zA-Z_$][a-zA-Z0-9_]{0,5}".prop_map(String::into_bytes),
        Just("citt\u{e9}".as_bytes().to_vec()),
        quoted(),
    ]
}

fn relaxed_value() -> impl Strategy<Value = Vec<u8>> {
    let leaf = prop_oneof![quoted(), bare_word()];
    leaf.prop_recursive(4, 40, 5, |inner| {
        let elems = prop::collection::vec((gap(), inner.clone(), gap()), 0..5);
        let members = prop::collection::vec((gap(), key(), gap(), gap(), inner, gap()), 0..5);
        prop_oneof![
            (elems, prop::bool::ANY).prop_map(|(items, trailing)| {
                let mut out = b"[".to_vec();
                let n = items.len();
                for (i, (g1, v, g2)) in items.into_iter().enumerate() {
                    out.extend(g1);
                    out.extend(v);
                    out.extend(g2);
                    if i + 1 < n || trailing {
                        out.push(b',');
                    }
                }
                out.push(b']');
                out
            }),
            (members, prop::bool::ANY).prop_map(|(items, trailing)| {
                let mut out = b"{".to_vec();
                let n = items.len();
                for (i, (g1, k, g2, g3, v, g4)) in items.into_iter().enumerate() {
                    out.extend(g1);
                    out.extend(k);
                    out.extend(g2);
                    out.push(b':');
                    out.extend(g3);
                    out.extend(v);
                    out.extend(g4);
                    if i + 1 < n || trailing {
                        out.push(b',');
                    }
                }
                out.push(b'}');
                out
            }),
        ]
    })
}

/// Relaxed documents, sometimes damaged (a byte inserted, or cut short) to exercise errors.
fn relaxed_doc() -> impl Strategy<Value = Vec<u8>> {
    (
        gap(),
        relaxed_value(),
        gap(),
        0u8..10,
        any::<Index>(),
        any::<u8>(),
    )
        .prop_map(|(g1, v, g2, damage, at, byte)| {
            let mut doc = g1;
            doc.extend(v);
            doc.extend(g2);
            match damage {
                0 => {
                    let i = at.index(doc.len() + 1);
                    doc.insert(i, byte);
                }
                1 => {
                    let i = at.index(doc.len() + 1);
                    doc.truncate(i);
                }
                _ => {}
            }
            doc
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// (i) Strict JSON with random whitespace and escape spellings, in random chunks and
    /// byte by byte, transcodes to the compact serialisation (numbers as written), and
    /// serde_json reads the same value from input and output.
    #[test]
    fn strict_values_round_trip(j in json(), seed in any::<u64>(), cuts in prop::collection::vec(any::<Index>(), 0..8)) {
        let mut src = Vec::new();
        write(&j, &mut Some(Rng(seed)), &mut Rng(seed ^ 0xabc), &mut src);
        let mut want = Vec::new();
        expected(&j, &mut want);

        prop_assert!(strict::validate(&src).is_ok(), "{}", String::from_utf8_lossy(&src));
        let mut compact_src = Vec::new();
        write(&j, &mut None, &mut Rng(seed ^ 0xabc), &mut compact_src);
        let compacted: Vec<u8> = strict::compact(&src).flatten().copied().collect();
        prop_assert_eq!(&compacted, &compact_src);

        let (out, outcome) = run(&split(&src, &cuts));
        prop_assert!(matches!(outcome, Outcome::Done(_)), "{:?} for {}", outcome, String::from_utf8_lossy(&src));
        prop_assert_eq!(String::from_utf8_lossy(&out), String::from_utf8_lossy(&want));
        let bytes: Vec<&[u8]> = src.chunks(1).collect();
        prop_assert_eq!(run(&bytes).0, want);

        let a: serde_json::Value = serde_json::from_slice(&src).unwrap();
        let b: serde_json::Value = serde_json::from_slice(&out).unwrap();
        prop_assert_eq!(a, b);
    }

    /// (ii) Chunk invariance on relaxed input: every split gives the same output and the
    /// same outcome as the whole input; (iii) a Done output is strict JSON.
    #[test]
    fn relaxed_chunk_invariance(doc in relaxed_doc(), cuts in prop::collection::vec(any::<Index>(), 0..10)) {
        let whole = run(&[&doc]);
        let chunks = split(&doc, &cuts);
        prop_assert_eq!(&run(&chunks), &whole, "{:?}", String::from_utf8_lossy(&doc));
        let bytes: Vec<&[u8]> = doc.chunks(1).collect();
        prop_assert_eq!(&run(&bytes), &whole, "{:?}", String::from_utf8_lossy(&doc));

        if let (out, Outcome::Done(_)) = &whole {
            prop_assert!(strict::validate(out).is_ok(), "{}", String::from_utf8_lossy(out));
            // Every output decodes with a strict reader (lone surrogates became U+FFFD).
            let read = serde_json::from_slice::<serde_json::Value>(out);
            prop_assert!(read.is_ok(), "{:?}: {}", read.err(), String::from_utf8_lossy(out));
        }
    }

    /// Undamaged generated documents always transcode.
    #[test]
    fn relaxed_grammar_is_accepted(g1 in gap(), v in relaxed_value(), g2 in gap()) {
        let mut doc = g1;
        doc.extend(v);
        doc.extend(g2);
        let (out, outcome) = run(&[&doc]);
        prop_assert!(matches!(outcome, Outcome::Done(_)) || matches!(outcome, Outcome::Error(ErrorKind::TooLong, _)),
            "{:?} for {:?} (out {:?})", outcome, String::from_utf8_lossy(&doc), String::from_utf8_lossy(&out));
    }

    /// Arbitrary bytes never panic, and strict validation agrees with serde_json.
    #[test]
    fn arbitrary_bytes(src in prop::collection::vec(any::<u8>(), 0..64), cuts in prop::collection::vec(any::<Index>(), 0..6)) {
        let whole = run(&[&src]);
        prop_assert_eq!(&run(&split(&src, &cuts)), &whole);
        let _ = strict::compact(&src).count();
        let ours = strict::validate(&src).is_ok();
        let theirs = serde_json::from_slice::<serde_json::Value>(&src).is_ok();
        prop_assert_eq!(ours, theirs);
    }

    /// Strict validation agrees with serde_json on near-JSON text.
    #[test]
    fn strict_agrees_with_serde(doc in relaxed_doc()) {
        let ours = strict::validate(&doc).is_ok();
        match serde_json::from_slice::<serde_json::Value>(&doc) {
            Ok(_) => prop_assert!(ours, "{:?}", String::from_utf8_lossy(&doc)),
            Err(e) => prop_assert!(!ours || e.to_string().contains("escape"), "{e}: {:?}", String::from_utf8_lossy(&doc)),
        }
    }
}
