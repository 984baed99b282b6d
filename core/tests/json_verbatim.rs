//! `Lexer::verbatim` (the run path) against `Lexer::next` + `Writer::render` (a token at a
//! time): the same output, the same end, the same offset, over any chunking, on strict
//! compact JSON with escapes, unicode and control characters, and on that JSON mutated
//! (whitespace, relaxed spellings, invalid UTF-8, cut escapes).
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Map, Number, Value};
use tokensieve::json::relaxed::{Lex, Lexer, Writer};

#[derive(Debug, PartialEq, Eq)]
struct Run {
    out: Vec<u8>,
    end: String,
    offset: u64,
}

/// Feeds `chunks`; with `runs`, tries `verbatim` before every token (what the dialects do).
fn run(chunks: &[&[u8]], runs: bool, end_depth: usize, string_only: bool) -> Run {
    let mut lexer = Lexer::new();
    let mut writer = Writer::new();
    let mut out = Vec::new();
    let mut end = String::from("unfinished");
    'chunks: for chunk in chunks {
        let mut input = *chunk;
        loop {
            if runs {
                let v = lexer.verbatim(&mut writer, input, end_depth, string_only);
                assert!(v.len <= input.len());
                out.extend_from_slice(&input[v.start..v.len]);
                input = &input[v.len..];
                if v.ended {
                    assert_eq!(lexer.depth(), end_depth);
                }
            }
            match lexer.next(&mut input) {
                Lex::Token(t) => {
                    if let Some(p) = writer.render(t) {
                        out.extend_from_slice(p.as_bytes());
                    }
                }
                Lex::NeedMore => {
                    assert!(input.is_empty());
                    break;
                }
                Lex::Done => {
                    end = "done".into();
                    break 'chunks;
                }
                Lex::Error(e) => {
                    end = format!("{e}");
                    break 'chunks;
                }
            }
        }
    }
    if end == "unfinished" {
        loop {
            match lexer.finish() {
                Lex::Token(t) => {
                    if let Some(p) = writer.render(t) {
                        out.extend_from_slice(p.as_bytes());
                    }
                }
                Lex::NeedMore => unreachable!(),
                Lex::Done => {
                    end = "done".into();
                    break;
                }
                Lex::Error(e) => {
                    end = format!("{e}");
                    break;
                }
            }
        }
    }
    Run {
        out,
        end,
        offset: lexer.offset(),
    }
}

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

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => "[a-z0-9 ]{1,6}",
            1 => Just("\"".to_owned()),
            1 => Just("\\".to_owned()),
            1 => Just("/".to_owned()),
            1 => "[\u{0}-\u{1f}]",
            1 => Just("\u{7f}".to_owned()),
            1 => "[é東😀\u{2028}]",
        ],
        0..6,
    )
    .prop_map(|v| v.concat())
}

fn number() -> impl Strategy<Value = String> {
    "-?(0|[1-9][0-9]{0,30})(\\.[0-9]{1,4})?([eE][+-]?[0-9]{1,3})?"
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number().prop_map(|n| Value::Number(n.parse::<Number>().unwrap())),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((text(), inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Bytes that break the verbatim form somewhere: each is read by `next` alone.
fn mutation() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(b" ".to_vec()),
        Just(b"\n".to_vec()),
        Just(b",".to_vec()),
        Just(b"\\/".to_vec()),
        Just(b"\\u00e9".to_vec()),
        Just(b"\\ud83d\\ude00".to_vec()),
        Just(b"\\u000A".to_vec()),
        Just(b"\\u000a".to_vec()),
        Just(b"\\u0008".to_vec()),
        Just(b"\\u001f".to_vec()),
        Just(b"\\n".to_vec()),
        Just(b"\\".to_vec()),
        Just(b"\xff".to_vec()),
        Just(b"\xc3".to_vec()),
        Just(b"\t".to_vec()),
        Just(b"/* c */".to_vec()),
        Just(b"'q'".to_vec()),
        Just(b"word".to_vec()),
        Just(b"tru".to_vec()),
        Just(b"}".to_vec()),
        Just(b"]".to_vec()),
        Just(b"\"".to_vec()),
        Just(b"1".to_vec()),
    ]
}

fn doc() -> impl Strategy<Value = Vec<u8>> {
    (
        value(),
        prop::collection::vec((any::<Index>(), mutation()), 0..3),
    )
        .prop_map(|(v, muts)| {
            let mut d = serde_json::to_vec(&v).unwrap();
            for (at, m) in muts {
                let k = at.index(d.len() + 1);
                d.splice(k..k, m);
            }
            d
        })
}

fn check(d: &[u8], cuts: &[Index], end_depth: usize, string_only: bool) {
    let chunks = split(d, cuts);
    let want = run(&chunks, false, end_depth, string_only);
    let got = run(&chunks, true, end_depth, string_only);
    assert_eq!(
        got,
        want,
        "{:?} in {} chunks",
        String::from_utf8_lossy(d),
        chunks.len()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn runs_read_what_tokens_read(
        d in doc(),
        cuts in prop::collection::vec(any::<Index>(), 0..8),
        end_depth in 0usize..3,
        string_only in any::<bool>(),
    ) {
        check(&d, &cuts, end_depth, string_only);
    }

    #[test]
    fn runs_read_what_tokens_read_byte_by_byte(d in doc()) {
        let chunks: Vec<&[u8]> = d.chunks(1).collect();
        let want = run(&chunks, false, 0, false);
        let got = run(&chunks, true, 0, false);
        prop_assert_eq!(&got, &want);
        // Whole, the strict compact form is read in one run.
        let whole = run(&[&d[..]], true, 0, false);
        prop_assert_eq!(&whole, &run(&[&d[..]], false, 0, false));
    }
}

#[test]
fn strict_compact_json_is_one_run() {
    let d = br#"{"a":[1,-2.5e3,true,false,null,"x\ny\"\\\u0001\t","\u00e9"],"b":{"c":{}},"d":[]}"#;
    let mut lexer = Lexer::new();
    let mut writer = Writer::new();
    let v = lexer.verbatim(&mut writer, d, 0, false);
    // Up to `\u00e9`, which the writer spells `é`.
    assert_eq!(
        &d[..v.len],
        &br#"{"a":[1,-2.5e3,true,false,null,"x\ny\"\\\u0001\t",""#[..]
    );
    check(d, &[], 0, false);
}
