//! Streaming relaxed-JSON transcoder: one test per feature, each also run over every
//! two-way split and one byte at a time.
use tokensieve::json::relaxed::{self, ErrorKind, Step, Transcoder};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    /// Done, with the number of input bytes consumed.
    Done(usize),
    Error(ErrorKind, u64),
}

/// Feeds `chunks` in order, then `finish()`; returns the output and the outcome.
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
                Step::Out(p) => out.extend_from_slice(p.as_bytes()),
                Step::NeedMore => {
                    assert!(input.is_empty(), "NeedMore with input left");
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

/// Runs `src` whole, split in two at every position, and byte by byte; all must agree.
fn check_all_splits(src: &[u8]) -> (Vec<u8>, Outcome) {
    let whole = run(&[src]);
    for i in 0..=src.len() {
        let (a, b) = src.split_at(i);
        assert_eq!(
            run(&[a, b]),
            whole,
            "split at {i} of {:?}",
            String::from_utf8_lossy(src)
        );
    }
    let bytes: Vec<&[u8]> = src.chunks(1).collect();
    assert_eq!(
        run(&bytes),
        whole,
        "1-byte chunks of {:?}",
        String::from_utf8_lossy(src)
    );
    whole
}

#[track_caller]
fn done(src: &str, expected: &str) {
    done_bytes(src.as_bytes(), expected);
}

#[track_caller]
fn done_bytes(src: &[u8], expected: &str) {
    let (out, outcome) = check_all_splits(src);
    assert!(
        matches!(outcome, Outcome::Done(_)),
        "{:?}: {outcome:?} (out {:?})",
        String::from_utf8_lossy(src),
        String::from_utf8_lossy(&out)
    );
    assert_eq!(
        String::from_utf8(out).expect("output is UTF-8"),
        expected,
        "input {:?}",
        String::from_utf8_lossy(src)
    );
    assert!(
        tokensieve::json::strict::validate(expected.as_bytes()).is_ok(),
        "{expected} is strict JSON"
    );
}

#[track_caller]
fn fails(src: &str, kind: ErrorKind) -> u64 {
    let (_, outcome) = check_all_splits(src.as_bytes());
    match outcome {
        Outcome::Error(k, off) => {
            assert_eq!(k, kind, "{src:?}");
            off
        }
        o => panic!("{src:?} should fail, got {o:?}"),
    }
}

#[test]
fn size_is_bounded() {
    println!(
        "Transcoder {} Lexer {}",
        size_of::<Transcoder>(),
        size_of::<relaxed::Lexer>()
    );
    assert!(size_of::<Transcoder>() <= 96, "{}", size_of::<Transcoder>());
    assert!(size_of::<relaxed::Lexer>() <= 96);
}

#[test]
fn strict_input_is_compacted() {
    done(
        r#" { "a" : [ 1 , 2 , { } , [ ] ] , "b" : null , "c" : true , "d" : false } "#,
        r#"{"a":[1,2,{},[]],"b":null,"c":true,"d":false}"#,
    );
    done(r#""x""#, r#""x""#);
    done("[]", "[]");
    done("{}", "{}");
}

#[test]
fn numbers_exactly_as_written() {
    done("1.50", "1.50");
    done("[1.50, -0, 1E5, 1e-07, 0.000]", "[1.50,-0,1E5,1e-07,0.000]");
    done("12345678901234567890", "12345678901234567890");
    done(
        "{n: 123456789012345678901234567890.5e+10}",
        r#"{"n":123456789012345678901234567890.5e+10}"#,
    );
}

#[test]
fn unquoted_keys() {
    done("{city: 1}", r#"{"city":1}"#);
    done("{ $a_b-c : 1 , d2:2}", r#"{"$a_b-c":1,"d2":2}"#);
    done("{città: 1}", r#"{"città":1}"#);
    done("{a\\b: 1}", r#"{"a\\b":1}"#);
}

#[test]
fn single_quotes() {
    done(r#"'it\'s "x"'"#, r#""it's \"x\"""#);
    done(r#"{'k': 'v', "q": 'a\nb'}"#, r#"{"k":"v","q":"a\nb"}"#);
    done(r#""\'""#, r#""'""#);
}

#[test]
fn comments() {
    done(
        "// lead\n/* block */ [1, // one\n 2 /* two */, /* * / */ 3] ",
        "[1,2,3]",
    );
    done("{/*a*/a/*b*/:/*c*/1/*d*/,/*e*/}", r#"{"a":1}"#);
    done("{\"a\": 1 // trailing\n}", r#"{"a":1}"#);
    done("[/**/]", "[]");
    done("[/***/1]", "[1]");
}

#[test]
fn trailing_commas() {
    done("[1,2,]", "[1,2]");
    done("{a:1,b:2,}", r#"{"a":1,"b":2}"#);
    done("[[],{},]", "[[],{}]");
    fails("[1,,2]", ErrorKind::Syntax);
    fails("[,]", ErrorKind::Syntax);
    fails("{,}", ErrorKind::Syntax);
}

#[test]
fn bare_words() {
    done("{city: Paris}", r#"{"city":"Paris"}"#);
    done("[hello world, Paris ]", r#"["hello world","Paris"]"#);
    done(
        "{a: hello world\n, b: x\t y \t}",
        "{\"a\":\"hello world\",\"b\":\"x\\t y\"}",
    );
    done(
        "[true, false, null, truex, nully, True, tru]",
        r#"[true,false,null,"truex","nully","True","tru"]"#,
    );
    done(
        "[12, 1.50, -0, 1., +1, .5, 02134, NaN, -, 12 apples, 1e5x]",
        r#"[12,1.50,-0,"1.","+1",".5","02134","NaN","-","12 apples","1e5x"]"#,
    );
    done(
        "[http://x.com/a, a /b, a/ b, 1/2, 1 /2, a/*b*/]",
        r#"["http://x.com/a","a /b","a/ b","1/2","1 /2","a/*b*/"]"#,
    );
    done("[1/*x*/, true// y\n, 3 /* z */]", "[1,true,3]");
    done("[Paris // capital\n, 42 // answer\n]", r#"["Paris",42]"#);
    done(
        "[Paris /* capital */, 42 /* answer */ , 7 /**/]",
        r#"["Paris",42,7]"#,
    );
    done("[say \"hi\" \\o/]", r#"["say \"hi\" \\o/"]"#);
    done("{a: 10:30}", r#"{"a":"10:30"}"#);
    done("[caf\u{e9} \u{1F600}]", "[\"caf\u{e9} \u{1F600}\"]");
    done("[a\u{1}b]", r#"["a\u0001b"]"#);
    done("[true , null\n]", "[true,null]");
}

#[test]
fn top_level_bare_words_complete_at_delimiter_or_finish() {
    // At finish.
    assert_eq!(
        check_all_splits(b"Paris"),
        (b"\"Paris\"".to_vec(), Outcome::Done(5))
    );
    assert_eq!(check_all_splits(b"42"), (b"42".to_vec(), Outcome::Done(2)));
    assert_eq!(
        check_all_splits(b"  true  "),
        (b"true".to_vec(), Outcome::Done(8))
    );
    assert_eq!(
        check_all_splits(b"hello world "),
        (b"\"hello world\"".to_vec(), Outcome::Done(12))
    );
    assert_eq!(
        check_all_splits(b"a /"),
        (b"\"a /\"".to_vec(), Outcome::Done(3))
    );
    // At a delimiter, which is not consumed.
    assert_eq!(
        check_all_splits(b"42\nrest"),
        (b"42".to_vec(), Outcome::Done(2))
    );
    assert_eq!(
        check_all_splits(b"Paris}x"),
        (b"\"Paris\"".to_vec(), Outcome::Done(5))
    );
    assert_eq!(
        check_all_splits(b"1.5 , 2"),
        (b"1.5".to_vec(), Outcome::Done(4))
    );
    // A comment after whitespace ends the word (its `//` is consumed).
    assert_eq!(
        check_all_splits(b"7 // c"),
        (b"7".to_vec(), Outcome::Done(4))
    );
    assert_eq!(
        check_all_splits(b"7 /* c */"),
        (b"7".to_vec(), Outcome::Done(4))
    );
}

#[test]
fn done_leaves_rest_of_input() {
    let mut t = Transcoder::new();
    let mut input = &b"{\"a\":[1]}</tool_call> more"[..];
    let mut out = Vec::new();
    while let Step::Out(p) = t.next(&mut input) {
        out.extend_from_slice(p.as_bytes());
    }
    assert_eq!(out, br#"{"a":[1]}"#);
    assert_eq!(input, b"</tool_call> more");
    // Stays done.
    assert_eq!(t.next(&mut input), Step::Done);
    assert_eq!(input, b"</tool_call> more");
    assert_eq!(t.finish(), Step::Done);
}

#[test]
fn long_number_like_words() {
    // Longer than HOLD and a number: streamed as a number.
    let long = "9".repeat(relaxed::HOLD * 3);
    done(&format!("[{long}]"), &format!("[{long}]"));
    done(&format!("[{long}.5e3 ]"), &format!("[{long}.5e3]"));
    // Longer than HOLD and not a number after all: a documented limit.
    fails(&format!("[{long}x]"), ErrorKind::TooLong);
    fails(&format!("[{long}.]"), ErrorKind::TooLong);
    // Up to HOLD bytes it is still classified.
    let short = "9".repeat(relaxed::HOLD);
    done(&format!("[{short}x]"), &format!("[\"{short}x\"]"));
}

#[test]
fn raw_control_characters_in_strings() {
    done_bytes(
        b"\"a\nb\tc\rd\x01e\x1f\x08\x0c\x7f\"",
        "\"a\\nb\\tc\\rd\\u0001e\\u001f\\b\\f\u{7f}\"",
    );
    done_bytes(b"'\x00'", r#""\u0000""#);
}

#[test]
fn escapes_are_normalised() {
    done(
        r#""\/\u00e9\u00E9\u0041\u0000""#,
        "\"/\u{e9}\u{e9}A\\u0000\"",
    );
    done(r#""\d+\.""#, r#""\\d+\\.""#);
    fails(r#""\u12x4""#, ErrorKind::Syntax);
}

#[test]
fn surrogate_pairs() {
    done(r#""\uD83D\uDE00""#, "\"\u{1F600}\"");
    done(r#""\ud83d\ude00x""#, "\"\u{1F600}x\"");
    // Lone surrogates become U+FFFD (strict readers reject the escape; issue 13).
    done(r#""\uD83D""#, "\"\u{FFFD}\"");
    done(r#""\uDE00""#, "\"\u{FFFD}\"");
    done(r#""\uD83Dx""#, "\"\u{FFFD}x\"");
    done(r#""\uD83D\n""#, "\"\u{FFFD}\\n\"");
    done(r#""\uD83D\u0041""#, "\"\u{FFFD}A\"");
    done(r#""\uD83D\uD83D\uDE00""#, "\"\u{FFFD}\u{1F600}\"");
    done(r#""\uDE00\uD83D""#, "\"\u{FFFD}\u{FFFD}\"");
}

#[test]
fn surrogate_pair_split_at_every_byte_position() {
    // check_all_splits covers every 2-way split; also every 3-way split here.
    let src = br#"["\uD83D\uDE00", '\uD83D\uDE00']"#;
    let expected = "[\"\u{1F600}\",\"\u{1F600}\"]".as_bytes();
    assert_eq!(check_all_splits(src).0, expected);
    for i in 0..=src.len() {
        for j in i..=src.len() {
            let (out, outcome) = run(&[&src[..i], &src[i..j], &src[j..]]);
            assert_eq!(out, expected, "splits {i} {j}");
            assert_eq!(outcome, Outcome::Done(src.len()));
        }
    }
    // And never a piece that cuts the escape: every piece is valid UTF-8 on its own and
    // the only non-structural piece is the whole character.
    let mut t = Transcoder::new();
    let mut pieces = Vec::new();
    for b in src.chunks(1) {
        let mut input = b;
        while let Step::Out(p) = t.next(&mut input) {
            pieces.push(p.as_bytes().to_vec());
        }
    }
    assert!(pieces.iter().all(|p| std::str::from_utf8(p).is_ok()));
    assert!(pieces.contains(&"\u{1F600}".as_bytes().to_vec()));
}

#[test]
fn invalid_utf8_becomes_replacement_characters() {
    let cases: &[&[u8]] = &[
        b"ab\xffcd",
        b"\xe2\x82",
        b"\xe2\x82x",
        b"\xf0\x9f\x98",
        b"\xc0\xaf",
        b"\xed\xa0\x80",
        b"\xf4\x90\x80\x80",
        b"a\x80\x80b",
        b"\xe2\x82\xac\xe2",
        b"\xf0\x9f\x98\x80\xf0",
        b"\xf8\x88\x80\x80\x80",
    ];
    for body in cases {
        let mut src = b"\"".to_vec();
        src.extend_from_slice(body);
        src.push(b'"');
        let text = String::from_utf8_lossy(body);
        let expected = serde_json::to_string(&text).unwrap();
        done_bytes(&src, &expected);
        // In bare words too.
        let mut src = b"[x".to_vec();
        src.extend_from_slice(body);
        src.push(b']');
        let expected = format!("[{}]", serde_json::to_string(&format!("x{text}")).unwrap());
        done_bytes(&src, &expected);
    }
    // Multibyte characters split across chunks are never cut in the output.
    let (out, _) = run(&[b"\"\xe2", b"\x82", b"\xac\""]);
    assert_eq!(out, "\"\u{20ac}\"".as_bytes());
}

#[test]
fn errors() {
    assert_eq!(fails("{a 1}", ErrorKind::Syntax), 3);
    assert_eq!(fails("['1' 2]", ErrorKind::Syntax), 5);
    assert_eq!(fails("{a:[] b:2}", ErrorKind::Syntax), 6);
    assert_eq!(fails("[1}", ErrorKind::Syntax), 2);
    assert_eq!(fails("{a:1]", ErrorKind::Syntax), 4);
    fails("}", ErrorKind::Syntax);
    fails("{a:}", ErrorKind::Syntax);
    fails("{:1}", ErrorKind::Syntax);
    fails("[/x]", ErrorKind::Syntax);
    fails("{\"a\" \"b\"}", ErrorKind::Syntax);
    assert_eq!(fails("", ErrorKind::Unfinished), 0);
    assert_eq!(fails("  // only a comment", ErrorKind::Unfinished), 19);
    fails("[1", ErrorKind::Unfinished);
    fails("{a: 1", ErrorKind::Unfinished);
    fails("[Paris", ErrorKind::Unfinished);
    fails("\"abc", ErrorKind::Unfinished);
    fails("\"\\uD83D", ErrorKind::Unfinished);
    fails("/* never closed", ErrorKind::Unfinished);
}

#[test]
fn errors_are_sticky_and_reset_works() {
    let mut t = Transcoder::new();
    let mut input = &b"['1' 2]"[..];
    let e = loop {
        if let Step::Error(e) = t.next(&mut input) {
            break e;
        }
    };
    let mut more = &b"[3]"[..];
    assert_eq!(t.next(&mut more), Step::Error(e));
    assert_eq!(t.finish(), Step::Error(e));
    t.reset();
    let (out, _) = {
        let mut o = Vec::new();
        let mut input = &b"[3]"[..];
        while let Step::Out(p) = t.next(&mut input) {
            o.extend_from_slice(p.as_bytes());
        }
        (o, ())
    };
    assert_eq!(out, b"[3]");
}

#[test]
fn depth_128_ok_129_error() {
    let n = relaxed::MAX_DEPTH;
    let ok = format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert_eq!(
        run(&[ok.as_bytes()]),
        (ok.as_bytes().to_vec(), Outcome::Done(ok.len()))
    );
    let deep = format!("{}1{}", "{a:".repeat(n + 1), "}".repeat(n + 1));
    assert!(matches!(
        run(&[deep.as_bytes()]).1,
        Outcome::Error(ErrorKind::TooDeep, _)
    ));
    let deep = format!("{}{}", "[".repeat(n + 1), "]".repeat(n + 1));
    assert_eq!(
        run(&[deep.as_bytes()]).1,
        Outcome::Error(ErrorKind::TooDeep, n as u64)
    );
}

#[test]
fn lexer_tokens_and_depth() {
    use relaxed::{Lex, Lexer, Token};
    let mut lexer = Lexer::new();
    let mut input = &b"{a: [1, x]}"[..];
    let mut seen = Vec::new();
    while let Lex::Token(t) = lexer.next(&mut input) {
        seen.push((
            format!("{t:?}"),
            lexer.depth(),
            t.starts_value(),
            t.ends_value(),
        ));
    }
    let kinds: Vec<&str> = seen
        .iter()
        .map(|s| s.0.split('(').next().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "ObjectStart",
            "KeyStart",
            "Text",
            "KeyEnd",
            "ArrayStart",
            "NumberStart",
            "Number",
            "NumberEnd",
            "StringStart",
            "Text",
            "StringEnd",
            "ArrayEnd",
            "ObjectEnd"
        ]
    );
    let depths: Vec<usize> = seen.iter().map(|s| s.1).collect();
    assert_eq!(depths, [1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 1, 0]);
    let _ = Token::KeyEnd;
}

#[test]
fn no_allocation_in_transcoding() {
    // The crate is no_std without alloc; this documents that the API works from a
    // fixed stack buffer too.
    let mut buf = [0u8; 64];
    let mut len = 0;
    let mut t = Transcoder::new();
    let mut input = &b"{a: 'b'}"[..];
    while let Step::Out(p) = t.next(&mut input) {
        let b = p.as_bytes();
        buf[len..len + b.len()].copy_from_slice(b);
        len += b.len();
    }
    assert_eq!(&buf[..len], br#"{"a":"b"}"#);
}
