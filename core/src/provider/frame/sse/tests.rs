use super::super::testing::{Out, count, every_split, run};
use super::*;

/// The normalised result of `body`, checked to be the same at every split.
fn sse(body: &[u8]) -> Out {
    every_split(SseFramer::new, body)
}

fn chunks(reads: &[&[u8]]) -> Out {
    let all = run(&mut SseFramer::new(), reads.iter().copied(), usize::MAX);
    let one = run(&mut SseFramer::new(), reads.iter().copied(), 1);
    assert_eq!(all, one);
    all
}

#[test]
fn state_is_small() {
    assert!(core::mem::size_of::<SseFramer>() <= 128);
}

#[test]
fn events_become_documents() {
    assert_eq!(sse(b"data: {\"a\":1}\n\n"), "«{\"a\":1}»");
    assert_eq!(sse(b"data:{}\n\ndata: []\n\n"), "«{}»«[]»");
    // Only one space is framing.
    assert_eq!(sse(b"data:  x\n\n"), "« x»");
    assert_eq!(sse(b"data:x \n\n"), "«x »");
}

#[test]
fn line_ends_are_cr_lf_or_crlf() {
    let want = "«a\nb»«c»";
    assert_eq!(sse(b"data: a\ndata: b\n\ndata: c\n\n"), want);
    assert_eq!(sse(b"data: a\rdata: b\r\rdata: c\r\r"), want);
    assert_eq!(sse(b"data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n"), want);
    assert_eq!(sse(b"data: a\r\ndata: b\n\rdata: c\r\n\n"), want);
    // A CR ending a read: the LF starting the next is the same line end, not a blank line.
    assert_eq!(
        chunks(&[b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]),
        "«a\nb»"
    );
    assert_eq!(chunks(&[b"data: a\r", b"\r"]), "«a»");
}

#[test]
fn one_leading_bom_is_stripped() {
    assert_eq!(sse(b"\xEF\xBB\xBFdata: x\n\n"), "«x»");
    assert_eq!(chunks(&[b"\xEF", b"\xBB", b"\xBF", b"data: x\n\n"]), "«x»");
    assert_eq!(chunks(&[b"\xEF\xBB", b"\xBFdata: x\n\n"]), "«x»");
    // Only one, and only at the start: a second one is part of a field name.
    assert_eq!(sse(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: x\n\n"), "");
    assert_eq!(sse(b"\xEF\xBB\xBF\xEF\xBB\xBFdata\n\n"), "⟪not-sse⟫");
    assert_eq!(sse(b"data: \xEF\xBB\xBFx\n\n"), "«\u{FEFF}x»");
    // A broken BOM begins the first line's name: not a field.
    assert_eq!(sse(b"\xEF\xBBdata: x\n\ndata: y\n\n"), "«y»");
    assert_eq!(sse(b"\xEF\xBB\n\ndata: y\n\n"), "⟪not-sse⟫«y»");
    assert_eq!(sse(b"\xEF"), "⟪not-sse⟫");
    assert_eq!(sse(b""), "");
}

#[test]
fn comments_and_other_fields_are_skipped() {
    let body = b": ping\nid: 7\nretry: 100\ndata: x\nfoo: bar\n: mid\ndata: y\n\n: bye\n";
    assert_eq!(sse(body), "«x\ny»");
    // A field name of any length, with or without a value.
    assert_eq!(
        sse(b"data: x\nextraordinarily_long_name: v\nid\nretry\n\n"),
        "«x»"
    );
    assert_eq!(sse(b"id\n\nunknown_field_name: 1\n\n"), "");
    assert_eq!(sse(b":\n\n"), "");
}

#[test]
fn data_lines_join_with_newline() {
    assert_eq!(sse(b"data: {\"a\":\ndata: 1}\n\n"), "«{\"a\":\n1}»");
    // Empty data lines count (WHATWG: the value then LF each).
    assert_eq!(sse(b"data\ndata\n\n"), "«\n»");
    assert_eq!(sse(b"data: a\ndata:\ndata: b\n\n"), "«a\n\nb»");
    assert_eq!(sse(b"data: a\ndata\n\n"), "«a\n»");
    // Other lines between data lines do not break the document.
    assert_eq!(sse(b"data: a\n: c\nevent: e\ndata: b\n\n"), "«a\nb|e»");
}

#[test]
fn an_empty_data_line_begins_a_document() {
    assert_eq!(sse(b"data:\n\n"), "«»");
    assert_eq!(sse(b"data\n\n"), "«»");
    assert_eq!(sse(b"data: \n\n"), "«»");
    // A blank line alone, or an event without data, dispatches nothing.
    assert_eq!(sse(b"\n\n\nevent: x\n\nid: 1\n\n"), "");
}

#[test]
fn done_is_the_end_marker() {
    assert_eq!(sse(b"data: [DONE]\n\n"), "‡");
    assert_eq!(sse(b"data:[DONE]\r\n\r\n"), "‡");
    assert_eq!(sse(b"data: [DONE]  \n\n"), "‡");
    assert_eq!(sse(b"data: [DONE]\t\n\n"), "‡");
    assert_eq!(sse(b"data: [DONE]"), "‡");
    assert_eq!(sse(b"data: x\n\ndata: [DONE]\n\n: after\n"), "«x»‡");
    // Not the marker: ordinary values, held bytes included.
    assert_eq!(sse(b"data: [DONE]x\n\n"), "«[DONE]x»");
    assert_eq!(sse(b"data: [DONE\n\n"), "«[DONE»");
    assert_eq!(sse(b"data: [DON"), "«[DON»");
    assert_eq!(sse(b"data: [1,2]\n\n"), "«[1,2]»");
    assert_eq!(sse(b"data: [\n\n"), "«[»");
    assert_eq!(sse(b"data:  [DONE]\n\n"), "« [DONE]»");
    assert_eq!(sse(b"data: [done]\n\n"), "«[done]»");
    // Only as an event's first data value.
    assert_eq!(sse(b"data: a\ndata: [DONE]\n\n"), "«a\n[DONE]»");
    assert_eq!(sse(b"data: [DONE]\ndata: a\n\n"), "‡«a»");
}

#[test]
fn done_split_at_every_position_holds_at_most_six_bytes() {
    for body in [
        &b"data: [DONE]\n\n"[..],
        b"data: [DONE]x\n\n",
        b"data: [DONE",
        b"data: [DON]\n\ndata: [DONE] \n\n",
    ] {
        sse(body);
    }
    // The held bytes come back as Held, before the rest of the line.
    let mut f = SseFramer::new();
    let mut input = &b"data: [DO"[..];
    assert_eq!(f.next(&mut input), Framed::NeedMore);
    let mut input = &b"NX\n"[..];
    assert_eq!(f.next(&mut input), Framed::Begin);
    assert_eq!(f.next(&mut input), Framed::Held);
    assert_eq!(f.held(), b"[DO");
    assert_eq!(f.next(&mut input), Framed::Payload(2));
}

#[test]
fn event_names_are_kept_per_event() {
    let body = b"event: error\ndata: {\"e\":1}\n\ndata: {}\n\nevent:ping\n\n";
    assert_eq!(sse(body), "«error|{\"e\":1}|error»«{}»");
    // Known at End when the event: line comes after the data.
    assert_eq!(sse(b"data: x\nevent: late\n\n"), "«x|late»");
    // The last one wins; `event` alone clears it.
    assert_eq!(sse(b"event: a\nevent: b\ndata: x\n\n"), "«b|x|b»");
    assert_eq!(sse(b"event: a\nevent\ndata: x\n\n"), "«x»");
    // Readable right after End, cleared when the next event starts.
    let mut f = SseFramer::new();
    let mut input = &b"event: e\ndata: x\n\n"[..];
    assert_eq!(f.next(&mut input), Framed::Begin);
    assert_eq!(f.event_name(), b"e");
    assert_eq!(f.next(&mut input), Framed::Payload(1));
    f.consumed(b"x");
    input = &input[1..];
    assert_eq!(f.next(&mut input), Framed::End);
    assert_eq!(f.event_name(), b"e");
    assert_eq!(f.next(&mut input), Framed::NeedMore);
    assert_eq!(f.event_name(), b"e");
    let mut input = &b"data: y\n\n"[..];
    assert_eq!(f.next(&mut input), Framed::Begin);
    assert_eq!(f.event_name(), b"");
}

#[test]
fn long_event_names_are_truncated() {
    let mut body = [b'n'; 100 + 20];
    body[..7].copy_from_slice(b"event: ");
    body[107..].copy_from_slice(b"\ndata: x\n\n\n\n\n");
    let out = sse(&body);
    assert_eq!(&out.bytes()[..2], "«".as_bytes());
    let mut f = SseFramer::new();
    let mut input = &body[..];
    assert_eq!(f.next(&mut input), Framed::Begin);
    assert_eq!(f.event_name(), &[b'n'; EVENT_NAME_CAP][..]);
    // Cut at the cap: never equal to a known (short) name.
    let mut input = &b"event: short\ndata: x\n"[..];
    let mut f = SseFramer::new();
    assert_eq!(f.next(&mut input), Framed::Begin);
    assert_eq!(f.event_name(), b"short");
}

#[test]
fn a_bare_json_document_outside_events_is_framed() {
    // Vertex: a pretty-printed error after good events.
    let body = b"data: {\"a\":1}\n\n{\n  \"error\": {\n    \"code\": 429\n  }\n}\n";
    assert_eq!(
        sse(body),
        "«{\"a\":1}»«{\n  \"error\": {\n    \"code\": 429\n  }\n}»"
    );
    // Leading spaces before the bracket are framing; `[` too.
    assert_eq!(sse(b"  [{\"error\":1}]\n\n"), "«[{\"error\":1}]»");
    // It ends at a blank line, at data:, event: or a comment, or at the end.
    assert_eq!(sse(b"{\"e\":1}\n\ndata: x\n\n"), "«{\"e\":1}»«x»");
    assert_eq!(sse(b"{\"e\":\n1}\ndata: x\n\n"), "«{\"e\":\n1}»«x»");
    assert_eq!(
        sse(b"{\"e\":1}\nevent: e\ndata: x\n\n"),
        "«{\"e\":1}»«e|x|e»"
    );
    assert_eq!(sse(b"{\"e\":1}\n: c\ndata: x\n\n"), "«{\"e\":1}»«x»");
    assert_eq!(sse(b"{\"e\":1}"), "«{\"e\":1}»");
    // Lines that only start like a field are payload.
    assert_eq!(
        sse(b"{\n\"d\":1,\nda\ndat\ndata\ne\nevent\n}\n\n"),
        "«{\n\"d\":1,\nda\ndat\ndata\ne\nevent\n}»"
    );
    assert_eq!(sse(b"[\nd"), "«[\nd»");
    assert_eq!(sse(b"[\ndata"), "«[\ndata»");
    assert_eq!(sse(b"[\ndata:"), "«[»«»");
    // Inside an event a `{` line is not a document: an ignored line.
    assert_eq!(sse(b"data: x\n{\"e\":1}\n\n"), "«x»");
    assert_eq!(sse(b"id: 1\n{\"e\":1}\n\n"), "");
}

#[test]
fn the_held_start_of_a_bare_line_is_payload_or_a_field() {
    let mut f = SseFramer::new();
    assert_eq!(
        run(&mut f, [&b"{\nda"[..], b"ta: x\n\n"], usize::MAX),
        "«{»«x»"
    );
    let mut f = SseFramer::new();
    assert_eq!(
        run(&mut f, [&b"{\neve"[..], b"n\n}"], usize::MAX),
        "«{\neven\n}»"
    );
    let mut f = SseFramer::new();
    let mut input = &b"{\neve"[..];
    assert_eq!(f.next(&mut input), Framed::Begin);
    assert_eq!(f.next(&mut input), Framed::Payload(1));
    f.consumed(b"{");
    input = &input[1..];
    assert_eq!(f.next(&mut input), Framed::NeedMore);
    let mut input = &b"x"[..];
    assert_eq!(f.next(&mut input), Framed::Newline);
    assert_eq!(f.next(&mut input), Framed::Held);
    assert_eq!(f.held(), b"eve");
    assert_eq!(f.next(&mut input), Framed::Payload(1));
}

#[test]
fn other_lines_outside_events_are_not_sse() {
    assert_eq!(sse(b"garbage\ndata: x\n\n"), "⟪not-sse⟫«x»");
    assert_eq!(sse(b"garbage\r\nmore\r\n\r\n"), "⟪not-sse⟫⟪not-sse⟫");
    assert_eq!(sse(b"a_very_long_line_that_is_not_a_field\n"), "⟪not-sse⟫");
    assert_eq!(sse(b"a_very_long_line_that_is_not_a_field"), "⟪not-sse⟫");
    assert_eq!(sse(b"<html>"), "⟪not-sse⟫");
    // A line with a colon is a field (unknown, ignored); spaces alone are ignored.
    assert_eq!(sse(b"<html lang=\"x:y\">\n"), "");
    assert_eq!(sse(b"   \n\t\n"), "");
    // Inside an event such lines are ignored.
    assert_eq!(sse(b"data: x\ngarbage\n\n"), "«x»");
}

#[test]
fn an_open_event_is_dispatched_at_the_end() {
    assert_eq!(sse(b"data: x\n"), "«x»");
    assert_eq!(sse(b"data: x"), "«x»");
    assert_eq!(sse(b"data: x\r"), "«x»");
    assert_eq!(sse(b"data: x\ndata: y"), "«x\ny»");
    assert_eq!(sse(b"data"), "«»");
    assert_eq!(sse(b"event: e\ndata: x"), "«e|x|e»");
    assert_eq!(sse(b"data: x\n\n: tail"), "«x»");
}

#[test]
fn partly_consumed_payload_is_not_rescanned_and_may_be_abandoned() {
    let mut f = SseFramer::new();
    let mut input = &b"data: abcdef"[..];
    assert_eq!(f.next(&mut input), Framed::Begin);
    assert_eq!(f.next(&mut input), Framed::Payload(6));
    f.consumed(&input[..2]);
    input = &input[2..];
    assert_eq!(f.next(&mut input), Framed::Payload(4));
    assert_eq!(f.known, 4);
    // The caller stops: the event is still dispatched.
    assert_eq!(f.finish(), Framed::End);
    assert_eq!(f.finish(), Framed::Finished);
}

#[test]
fn tricky_bodies_at_every_split() {
    for body in [
        &b"\xEF\xBB\xBF: c\r\nevent: error\r\ndata:{\"a\":\r\ndata: 1}\r\n\r\ndata: [DONE]\r\n\r\n"
            [..],
        b"data: [DONE]\r\r\rdata:[DONE\r\r",
        b"data: x\r\n\r\n{\r\n \"error\": [1]\r\n}\r\ndata: y\r\r",
        b"garbage\rid\r\ndata\n\n  {\"e\"}\ndat\nevent\n\n",
        b"\xEF\xBB\xBF{\n}\n\xEF\xBB\n",
        b"event: 0123456789012345678901234567890123456789012345678901234567890123456789\ndata: z\n",
    ] {
        sse(body);
    }
}

#[test]
fn long_comments_and_lines_stream_in_linear_time() {
    let mut comments = [b'c'; 4096];
    comments[0] = b':';
    comments[2047] = b'\n';
    comments[2048] = b':';
    comments[4095] = b'\n';
    let (payload, items) = count(&mut SseFramer::new(), b"", &comments, 256, b"data: x\n\n");
    assert_eq!((payload, items), (1, 2));
    // A 1 MiB comment line.
    let (payload, items) = count(&mut SseFramer::new(), b":", &[b'c'; 4096], 256, b"\n");
    assert_eq!((payload, items), (0, 0));
    // A 20 MiB data line in 4 KiB reads.
    let reads = 20 * 256;
    let (payload, items) = count(
        &mut SseFramer::new(),
        b"data: ",
        &[b'x'; 4096],
        reads,
        b"\n\n",
    );
    assert_eq!((payload, items), (reads * 4096, 2));
}

#[cfg(feature = "std")]
mod props {
    use super::super::super::testing::{cuts, same_at_any_cut};
    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;

    const ATOMS: &[&[u8]] = &[
        b"data: {\"a\":1}",
        b"data:x",
        b"data:",
        b"data",
        b"data: [DONE]",
        b"data: [DONE] ",
        b"data: [DONE]x",
        b"data: [DON",
        b"data: [",
        b"event: error",
        b"event:",
        b"event",
        b": keep-alive",
        b":",
        b"id: 5",
        b"retry: 10",
        b"garbage",
        b"{\"error\":1}",
        b"  [1,",
        b"  \"x\": 2",
        b"}",
        b"da",
        b"eve",
        b"long_field_name_here: v",
        b"\xEF\xBB\xBF",
        b"\n",
        b"\n",
        b"\r\n",
        b"\r",
        b"",
    ];

    fn body() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(prop::sample::select(ATOMS), 0..40).prop_map(|v| v.concat())
    }

    /// Bytes from SSE's own alphabet, for bodies no atom list thinks of.
    fn soup() -> impl Strategy<Value = Vec<u8>> {
        let alphabet = b"data:event[DONE] \t\r\n{}:x\xEF\xBB\xBF";
        prop::collection::vec(prop::sample::select(&alphabet[..]), 0..200)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        #[test]
        fn chunking_never_matters(body in body(), cuts in cuts(), step in 1usize..4) {
            same_at_any_cut(SseFramer::new, &body, &cuts, step);
        }

        #[test]
        fn any_bytes_frame_the_same_at_any_cut(body in soup(), cuts in cuts(), step in 1usize..4) {
            same_at_any_cut(SseFramer::new, &body, &cuts, step);
        }
    }
}
