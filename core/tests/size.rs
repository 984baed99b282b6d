//! The parser's state is small and fixed: docs/design.md "Measured, not assumed".

use tokensieve::{Event, Sieve};

#[test]
fn parser_state_fits_in_512_bytes() {
    let size = core::mem::size_of::<Sieve<'static>>();
    println!("size_of::<Sieve>() = {size} bytes");
    assert!(size <= 512, "Sieve is {size} bytes");
}

#[test]
fn events_are_small() {
    let size = core::mem::size_of::<Event<'static>>();
    println!("size_of::<Event>() = {size} bytes");
    // 104 since provider streams: a completion carries `signature` and `redacted` too (a
    // text block's `citations` share `redacted`'s storage: the two never meet on one block).
    assert!(size <= 104, "Event is {size} bytes");
}
