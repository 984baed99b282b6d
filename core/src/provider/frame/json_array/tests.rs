use super::super::testing::{Out, count, every_split, run};
use super::*;

/// The normalised result of `body`, checked to be the same at every split.
fn arr(body: &[u8]) -> Out {
    every_split(JsonArrayFramer::new, body)
}

#[test]
fn state_is_small() {
    assert!(core::mem::size_of::<JsonArrayFramer>() <= 128);
}

#[test]
fn elements_become_documents() {
    assert_eq!(
        arr(b"[{\"a\":1},{\"b\":[2,3]}]"),
        "«{\"a\":1}»«{\"b\":[2,3]}»"
    );
    assert_eq!(arr(b"[]"), "");
    assert_eq!(arr(b" \n[ \n] \n"), "");
    assert_eq!(
        arr(b"[1, -2.5e3, true, null, \"s\", [], {}]"),
        "«1»«-2.5e3»«true»«null»«\"s\"»«[]»«{}»"
    );
    // Lenient commas.
    assert_eq!(arr(b"[,1,,2,]"), "«1»«2»");
}

#[test]
fn pretty_printed_elements_keep_their_bytes() {
    let body =
        b"[{\n  \"candidates\": [\n    {\"text\": \"a\"}\n  ]\n}\n,\r\n{\n  \"b\": 2\n}\n]\n";
    assert_eq!(
        arr(body),
        "«{\n  \"candidates\": [\n    {\"text\": \"a\"}\n  ]\n}»«{\n  \"b\": 2\n}»"
    );
    // CRLF between elements, and a BOM.
    assert_eq!(arr(b"\xEF\xBB\xBF[\r\n{}\r\n,\r\n{}\r\n]\r\n"), "«{}»«{}»");
}

#[test]
fn strings_hide_brackets_and_escaped_quotes() {
    let body = br#"[{"a":"x]}\"\\","b":"\\\"}]"},"]}\"",{"c":"\u005d"}]"#;
    assert_eq!(
        arr(body),
        r#"«{"a":"x]}\"\\","b":"\\\"}]"}»«"]}\""»«{"c":"\u005d"}»"#
    );
    // An escape split across reads.
    let mut f = JsonArrayFramer::new();
    let out = run(&mut f, [&b"[\"a\\"[..], b"\"]\"]"], usize::MAX);
    assert_eq!(out, "«\"a\\\"]\"»");
}

#[test]
fn depth_is_a_counter() {
    let mut body = [b'['; 2 + 2 * 3000];
    body[3001..].fill(b']');
    let mut want = [0u8; 2 + 6000 + 2];
    want[..2].copy_from_slice("«".as_bytes());
    want[2..2 + 6000].copy_from_slice(&body[1..6001]);
    want[6002..].copy_from_slice("»".as_bytes());
    let out = run(&mut JsonArrayFramer::new(), body.chunks(7), usize::MAX);
    assert_eq!(out.bytes(), &want[..]);
}

#[test]
fn a_truncated_element_is_a_fault_a_missing_bracket_is_not() {
    assert_eq!(arr(b"[{\"a\":1},{\"b\":"), "«{\"a\":1}»«{\"b\":⟪truncated⟫");
    assert_eq!(arr(b"[\"abc"), "«\"abc⟪truncated⟫");
    assert_eq!(arr(b"[\"abc\\"), "«\"abc\\⟪truncated⟫");
    assert_eq!(arr(b"[{\"a\":1}"), "«{\"a\":1}»");
    assert_eq!(arr(b"[{\"a\":1},\n"), "«{\"a\":1}»");
    // A number ends at the end of the body.
    assert_eq!(arr(b"[1, 23"), "«1»«23»");
    assert_eq!(arr(b"["), "");
    assert_eq!(arr(b""), "");
}

#[test]
fn the_caller_may_stop_inside_an_element() {
    let mut f = JsonArrayFramer::new();
    let mut input = &b"[{\"a\":1}]"[..];
    assert_eq!(f.next(&mut input), Framed::Begin);
    assert_eq!(f.next(&mut input), Framed::Payload(7));
    f.consumed(&input[..3]);
    input = &input[3..];
    assert_eq!(f.next(&mut input), Framed::Payload(4));
    assert_eq!(f.known, 4);
    assert_eq!(f.finish(), Framed::Fault(Fault::Truncated));
    assert_eq!(f.finish(), Framed::Finished);
    f = JsonArrayFramer::new();
    let mut input = &b"[2]"[..];
    assert_eq!(f.next(&mut input), Framed::Begin);
}

#[test]
fn bad_separators_are_reported_once_and_skipped() {
    assert_eq!(
        arr(b"[{\"a\":1} x {\"b\":2}]"),
        "«{\"a\":1}»⟪bad-separator⟫«{\"b\":2}»"
    );
    // A missing comma: a fault, and both elements.
    assert_eq!(arr(b"[{}{}]"), "«{}»⟪bad-separator⟫«{}»");
    assert_eq!(arr(b"[{};;;,{}]"), "«{}»⟪bad-separator⟫«{}»");
    // Framing resumes at an object, array or string only.
    assert_eq!(arr(b"[1 2, 3]"), "«1»⟪bad-separator⟫");
    assert_eq!(arr(b"[}, {}]"), "⟪bad-separator⟫«{}»");
    assert_eq!(arr(b"[\xC3\xA9]"), "⟪bad-separator⟫");
    // Before the opening bracket, and after the closing one.
    assert_eq!(arr(b"data: [{}]"), "⟪bad-separator⟫«{}»");
    assert_eq!(arr(b"\xEF\xBB[{}]"), "⟪bad-separator⟫«{}»");
    assert_eq!(arr(b"[{}] \n x [{}]"), "«{}»⟪bad-separator⟫");
    assert_eq!(arr(b"[{}] \r\n"), "«{}»");
}

#[test]
fn tricky_bodies_at_every_split() {
    for body in [
        &br#"  [ {"t":"a\\\"b]}[{"} , "s\\" ,{"x":[[{}]]},-1e+5,tru ]  "#[..],
        b"\xEF\xBB\xBF[\r\n  {\r\n    \"k\": \"v\\u0022\"\r\n  }\r\n]",
        b"[{}}{\"a\":\"}\"}x\"q\"]]x",
        b"[\"\\\\\",\"\\\\\\\"\"]",
    ] {
        arr(body);
    }
}

#[test]
fn a_long_element_streams_in_linear_time() {
    // A 20 MiB string inside one element, in 4 KiB reads.
    let reads = 20 * 256;
    let (payload, items) = count(
        &mut JsonArrayFramer::new(),
        b"[{\"text\":\"",
        &[b'x'; 4096],
        reads,
        b"\"}]",
    );
    assert_eq!((payload, items), (reads * 4096 + 11, 2));
    // Many small pretty-printed elements.
    let mut chunk = [b' '; 4096];
    for (i, b) in b"{\"a\": [1, \"]\"]},\n".iter().enumerate() {
        chunk[i] = *b;
    }
    let (payload, items) = count(&mut JsonArrayFramer::new(), b"[", &chunk, 256, b"]");
    assert_eq!((payload, items), (256 * 15, 512));
}

#[cfg(feature = "std")]
mod props {
    use super::super::super::testing::{cuts, same_at_any_cut};
    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;

    const ATOMS: &[&[u8]] = &[
        b"{\"a\":1}",
        b"{\"s\":\"x]}\\\"\"}",
        b"{\n  \"k\": [\n    1,\n    {}\n  ]\n}",
        b"\"str\\\\\"",
        b"\"q\\\"]\"",
        b"[[],{}]",
        b"12",
        b"true",
        b",",
        b",",
        b" ",
        b"\r\n",
        b"]",
        b"}",
        b"x",
        b"\\",
        b"\"",
    ];

    fn body() -> impl Strategy<Value = Vec<u8>> {
        (
            any::<bool>(),
            prop::collection::vec(prop::sample::select(ATOMS), 0..30),
        )
            .prop_map(|(bom, v)| {
                let mut b = if bom {
                    b"\xEF\xBB\xBF[".to_vec()
                } else {
                    b"[".to_vec()
                };
                b.extend(v.concat());
                b
            })
    }

    /// Bytes from JSON's structural alphabet, for bodies no atom list thinks of.
    fn soup() -> impl Strategy<Value = Vec<u8>> {
        let alphabet = b"[[{{}}]]\"\"\\,, \r\nx1";
        prop::collection::vec(prop::sample::select(&alphabet[..]), 0..200)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        #[test]
        fn chunking_never_matters(body in body(), cuts in cuts(), step in 1usize..4) {
            same_at_any_cut(JsonArrayFramer::new, &body, &cuts, step);
        }

        #[test]
        fn any_bytes_frame_the_same_at_any_cut(body in soup(), cuts in cuts(), step in 1usize..4) {
            same_at_any_cut(JsonArrayFramer::new, &body, &cuts, step);
        }
    }
}
