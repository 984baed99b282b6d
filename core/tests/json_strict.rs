//! Strict whole-value JSON: `validate` and `compact` edge cases.
use tokensieve::json::strict::{self, Kind, MAX_DEPTH};

fn ok(src: &str) -> Kind {
    match strict::validate(src.as_bytes()) {
        Ok(k) => k,
        Err(e) => panic!("{src:?} should be valid: {e}"),
    }
}

fn bad(src: &[u8]) -> strict::Error {
    match strict::validate(src) {
        Ok(k) => panic!(
            "{:?} should be invalid, got {k:?}",
            String::from_utf8_lossy(src)
        ),
        Err(e) => e,
    }
}

fn compacted(src: &[u8]) -> Vec<u8> {
    strict::compact(src).flatten().copied().collect()
}

#[test]
fn kinds() {
    assert_eq!(ok("{}"), Kind::Object);
    assert_eq!(ok(" { \"a\" : 1 } "), Kind::Object);
    assert_eq!(ok("[]"), Kind::Array);
    assert_eq!(ok("[[], {}]"), Kind::Array);
    assert_eq!(ok("\"x\""), Kind::String);
    assert_eq!(ok("0"), Kind::Number);
    assert_eq!(ok("true"), Kind::Bool);
    assert_eq!(ok("false"), Kind::Bool);
    assert_eq!(ok("\r\n\tnull\n"), Kind::Null);
}

#[test]
fn rfc_numbers() {
    for n in [
        "0",
        "-0",
        "1",
        "-1",
        "10",
        "1.5",
        "1.50",
        "0.0",
        "-0.0e0",
        "1e5",
        "1E5",
        "1e+5",
        "1e-5",
        "1.5E-05",
        "12345678901234567890",
        "123456789012345678901234567890.123456789",
    ] {
        assert_eq!(ok(n), Kind::Number, "{n}");
    }
    for n in [
        "02134",
        "00",
        "-01",
        "1.",
        "+1",
        ".5",
        "-",
        "1e",
        "1e+",
        "1.e5",
        "NaN",
        "Infinity",
        "-Infinity",
        "0x10",
        "1_000",
        "1.5.5",
        "--1",
        "1e5.5",
        "- 1",
    ] {
        bad(n.as_bytes());
    }
}

#[test]
fn strings_and_escapes() {
    ok(r#""\"\\\/\b\f\n\r\t""#);
    ok(r#""\u00e9\u00E9\uD83D\uDE00""#);
    // Lone surrogates: grammatical per RFC 8259, refused as serde_json refuses them (issue 13).
    bad(br#""\uD800""#);
    bad(br#""\uDC00""#);
    bad(br#""\uD800\u0041""#);
    bad(br#""\uD800x""#);
    ok("\"caf\u{e9} \u{1F600}\"");
    ok("\"\u{7f}\"");
    bad(br#""\x""#);
    bad(br#""\'""#);
    bad(br#""\u12""#);
    bad(br#""\u12G4""#);
    bad(b"\"a\nb\"");
    bad(b"\"a\x00b\"");
    bad(b"\"a\x1fb\"");
    bad(b"\"abc");
    bad(b"'abc'");
}

#[test]
fn invalid_utf8() {
    let e = bad(b"\"ab\xffcd\"");
    assert_eq!(e.offset, 3);
    bad(b"\"\xe2\x82\"");
    bad(b"\"\xc0\xaf\"");
    bad(b"\"\xed\xa0\x80\""); // encoded surrogate
    bad(b"[1]\xff");
}

#[test]
fn structure_errors() {
    for s in [
        "",
        " ",
        "[",
        "]",
        "{",
        "}",
        "[1,]",
        "{\"a\":1,}",
        "{\"a\" 1}",
        "{a:1}",
        "[1 2]",
        "{\"a\"}",
        "[1]]",
        "{}{}",
        "1 2",
        "tru",
        "nul",
        "truee",
        "[,1]",
        "{,}",
        "// c\n1",
        "[1}",
        "{\"a\":1]",
    ] {
        bad(s.as_bytes());
    }
    assert_eq!(bad(b"[1, 02]").offset, 5);
    assert_eq!(bad(b"[1 2]").offset, 3);
}

#[test]
fn depth_limit() {
    let nest = |n: usize| {
        let mut s = "[".repeat(n);
        s.push_str(&"]".repeat(n));
        s
    };
    assert_eq!(ok(&nest(MAX_DEPTH)), Kind::Array);
    let e = bad(nest(MAX_DEPTH + 1).as_bytes());
    assert_eq!(e.offset, MAX_DEPTH);
    let mut objs = "{\"a\":".repeat(MAX_DEPTH - 1);
    objs.push_str("[1]");
    objs.push_str(&"}".repeat(MAX_DEPTH - 1));
    assert_eq!(ok(&objs), Kind::Object);
    let mut objs = "{\"a\":".repeat(MAX_DEPTH);
    objs.push_str("[1]");
    objs.push_str(&"}".repeat(MAX_DEPTH));
    bad(objs.as_bytes());
    // Deep garbage never panics.
    bad("[".repeat(100_000).as_bytes());
}

#[test]
fn compact_cases() {
    assert_eq!(
        compacted(b" { \"a b\" : [ 1 , 2.50 ] , \"c\":\"x\\\" y\" } "),
        br#"{"a b":[1,2.50],"c":"x\" y"}"#
    );
    assert_eq!(
        compacted(b"\n\t 12345678901234567890 \r\n"),
        b"12345678901234567890"
    );
    assert_eq!(compacted(br#""\\" "#), br#""\\""#);
    assert_eq!(compacted(b"[ \"\\u00e9 \" ]"), b"[\"\\u00e9 \"]");
    assert_eq!(compacted(b""), b"");
    assert_eq!(compacted(b"   "), b"");
    // Pieces borrow from the source.
    let src = b"[1, 2]";
    for piece in strict::compact(src) {
        let start = piece.as_ptr() as usize - src.as_ptr() as usize;
        assert!(start + piece.len() <= src.len());
    }
}

#[test]
fn compact_never_panics_on_garbage() {
    for src in [
        &b"\"abc"[..],
        b"\"\\",
        b"\"\\\"",
        b"\\",
        b"\" \\",
        b"[\"a\\",
        b"\xff \xfe",
    ] {
        let _ = compacted(src);
    }
}
