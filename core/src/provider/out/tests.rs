//! The queue's bound (issue 25 item 6): full, it says so with an error event.

use super::*;

fn out(mem: &mut [u8]) -> Out<'_> {
    let [a, b, c, d, e] = {
        let (a, rest) = mem.split_at_mut(128);
        let (b, rest) = rest.split_at_mut(128);
        let (c, rest) = rest.split_at_mut(128);
        let (d, e) = rest.split_at_mut(128);
        [a, b, c, d, e]
    };
    Out::new(
        [
            Buf::slice(a),
            Buf::slice(b),
            Buf::slice(c),
            Buf::slice(d),
            Buf::slice(e),
        ],
        "call_",
        OnMalformed::Text,
    )
}

/// Queues `n` blocks' start and completion (2 entries each) without handing anything out.
fn blocks(o: &mut Out, n: usize) {
    for _ in 0..n {
        o.open_text(BlockType::Text, 0, false);
        o.close();
    }
}

/// Is this the error event a full queue makes?
fn full(ev: &Event<'_>) -> bool {
    matches!(ev, Event::Error(e) if e.code == Some(QUEUE_FULL))
}

#[test]
fn a_full_queue_ends_in_an_error_event_not_a_silent_drop() {
    let mut mem = [0u8; 640];
    let mut o = out(&mut mem);
    // One entry more than fits: the last slot says the queue overflowed.
    blocks(&mut o, QUEUE / 2);
    let mut events = 0;
    let mut last_full = false;
    while let Some(ev) = o.pop() {
        events += 1;
        last_full = full(&ev);
    }
    assert_eq!(events, QUEUE);
    assert!(last_full);
    // Emptied, the queue works as before (indices go on where they were: 7 starts were
    // handed out).
    blocks(&mut o, 1);
    assert!(matches!(o.pop(), Some(Event::BlockStart { index: 8, .. })));
    assert!(matches!(o.pop(), Some(Event::BlockComplete(_))));
    assert!(o.pop().is_none());
}

#[test]
fn a_queue_one_short_of_full_loses_nothing() {
    let mut mem = [0u8; 640];
    let mut o = out(&mut mem);
    // `QUEUE - 1` entries (the most a token could make without touching the last slot).
    blocks(&mut o, (QUEUE - 1) / 2);
    o.open_text(BlockType::Text, 0, false);
    let mut n = 0;
    while let Some(ev) = o.pop() {
        assert!(!full(&ev));
        n += 1;
    }
    assert_eq!(n, QUEUE - 1);
}
