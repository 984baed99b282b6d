//! Unit tests of the ABI from Rust (the C tests are ffi-c/tests/*.c, run by ffi-c/test.sh).

use core::mem::{MaybeUninit, size_of};
use std::alloc::Layout;

use crate::error::{EVENT, Error, OK};
use crate::memory::STATE_ALIGN;
use crate::panic::with_parser;
use crate::types::EMPTY_EVENT;
use crate::*;

#[test]
fn a_panic_poisons_until_reset() {
    let c = default_config();
    // SAFETY: test: valid config pointer.
    let p = unsafe { tokensieve_new(&c) };
    assert!(!p.is_null());
    // SAFETY: live parser.
    let rc = unsafe { with_parser(p, "test", false, |_| panic!("boom")) };
    assert_eq!(rc, Error::Panic.code());
    // SAFETY: live parser.
    let rc = unsafe { tokensieve_feed(p, c"x".as_ptr(), 1) };
    assert_eq!(rc, Error::Panic.code());
    // SAFETY: live parser.
    assert_eq!(unsafe { tokensieve_reset(p) }, OK);
    // SAFETY: live parser.
    assert_eq!(unsafe { tokensieve_feed(p, c"x".as_ptr(), 1) }, OK);
    // SAFETY: live parser, freed once.
    unsafe { tokensieve_free(p) };
}

#[test]
fn a_panic_poisons_a_decoder_until_reset() {
    let json = br#"{"provider": "openai-chat"}"#;
    let mut d = core::ptr::null_mut();
    // SAFETY: test: valid config bytes and out pointer.
    let rc = unsafe { tokensieve_decoder_new_json(json.as_ptr().cast(), json.len(), 1, &mut d) };
    assert_eq!(rc, OK);
    // SAFETY: live decoder.
    let rc = unsafe { with_parser(d, "test", false, |_| panic!("boom")) };
    assert_eq!(rc, Error::Panic.code());
    // SAFETY: live decoder.
    let rc = unsafe { tokensieve_decoder_feed(d, c"x".as_ptr(), 1) };
    assert_eq!(rc, Error::Panic.code());
    // SAFETY: live decoder.
    assert_eq!(unsafe { tokensieve_decoder_reset(d) }, OK);
    // SAFETY: live decoder.
    assert_eq!(unsafe { tokensieve_decoder_feed(d, c"x".as_ptr(), 1) }, OK);
    // SAFETY: live decoder, freed once.
    unsafe { tokensieve_decoder_free(d) };
}

/// `tokensieve_config_default`'s config, with dialect anthropic-xml (the default has none).
fn default_config() -> tokensieve_config {
    let mut c = MaybeUninit::uninit();
    // SAFETY: test: writable for one config.
    assert_eq!(unsafe { tokensieve_config_default(c.as_mut_ptr()) }, OK);
    // SAFETY: written by the call above.
    let mut c: tokensieve_config = unsafe { c.assume_init() };
    assert_eq!(
        c.dialect,
        tokensieve_dialect_unset::TOKENSIEVE_DIALECT_NONE as u32
    );
    c.dialect = tokensieve_dialect::TOKENSIEVE_DIALECT_ANTHROPIC_XML as u32;
    c
}

/// The message of the thread's last error.
fn last_error() -> String {
    // SAFETY: test: NULL asks for the thread's message, a NUL-terminated string.
    unsafe { core::ffi::CStr::from_ptr(tokensieve_last_error(core::ptr::null())) }
        .to_string_lossy()
        .into_owned()
}

/// No default dialect: a config without one is refused by every constructor, and the
/// message names every dialect this build parses, whole (it fits the message buffer).
#[test]
fn no_default_dialect_and_the_error_names_them() {
    let mut c = default_config();
    c.dialect = tokensieve_dialect_unset::TOKENSIEVE_DIALECT_NONE as u32;
    let names: Vec<&str> = tokensieve::Dialect::ALL
        .iter()
        .filter(|d| d.is_supported())
        .map(|d| d.name())
        .collect();
    let check = |what: &str| {
        let msg = last_error();
        assert!(msg.contains("TOKENSIEVE_DIALECT_NONE"), "{what}: {msg}");
        for name in &names {
            assert!(msg.contains(name), "{what}: {msg} lacks {name}");
        }
    };
    // SAFETY: test: valid config pointer.
    assert!(unsafe { tokensieve_new(&c) }.is_null());
    check("tokensieve_new");
    // SAFETY: test: valid config pointer.
    assert_eq!(unsafe { tokensieve_state_size(&c) }, 0);
    check("tokensieve_state_size");
    let mut mem = vec![0u128; 1024];
    // SAFETY: test: 16 KiB of aligned, writable memory and a valid config.
    let p = unsafe { tokensieve_init(mem.as_mut_ptr().cast(), 16384, &c) };
    assert!(p.is_null());
    check("tokensieve_init");
    // SAFETY: test: a NUL-terminated string.
    assert!(unsafe { tokensieve_new_json(c"{}".as_ptr(), 0) }.is_null());
    let msg = last_error();
    assert!(
        msg.starts_with("config key `dialect`: is required, one of "),
        "{msg}"
    );
    for name in &names {
        assert!(msg.contains(name), "{msg} lacks {name}");
    }
    c.dialect = 99;
    // SAFETY: test: valid config pointer.
    assert!(unsafe { tokensieve_new(&c) }.is_null());
    let msg = last_error();
    assert!(msg.contains("99") && msg.contains("hermes"), "{msg}");
}

/// The headers state the minimum `buffer_size` as a number (C has no `MIN_MEMORY`); it
/// moves whenever the core's fixed buffers do (it was stale at 448 until 2026-11-22).
#[test]
fn headers_state_the_minimum_buffer_size() {
    let stated = format!("minimum {};", tokensieve::MIN_MEMORY);
    for (name, header) in [
        ("tokensieve.h", include_str!("../../include/tokensieve.h")),
        (
            "tokensieve_php.h",
            include_str!("../../include/tokensieve_php.h"),
        ),
    ] {
        assert!(
            header.contains(&stated),
            "{name} does not say \"{stated}\": update tokensieve_config::buffer_size's doc"
        );
    }
}

/// Caller memory with `accumulate`: the `content` of a block cut at `accumulate_size`
/// is the longest prefix (whole characters) of its text that fits, fed whole or a byte
/// at a time. (Found by the `ffi` fuzz target: whole chunks only were kept, so the cut
/// moved with the chunking.)
#[test]
fn a_cut_accumulation_does_not_depend_on_the_chunking() {
    let text = "ab\u{e9}cdefgh\u{1F600}ijklmnopqrstuvwxyz";
    let content = |piece: usize| -> (Vec<u8>, bool) {
        let mut c = default_config();
        c.dialect = tokensieve_dialect::TOKENSIEVE_DIALECT_PASSTHROUGH as u32;
        c.accumulate = 1;
        c.accumulate_size = 13;
        // SAFETY: test: valid config pointer.
        let size = unsafe { tokensieve_state_size(&c) };
        let layout = Layout::from_size_align(size, STATE_ALIGN).expect("layout");
        // SAFETY: non-zero size.
        let mem = unsafe { std::alloc::alloc_zeroed(layout) };
        // SAFETY: `mem` is aligned and writable for `size` bytes.
        let p = unsafe { tokensieve_init(mem.cast(), size, &c) };
        assert!(!p.is_null());
        let mut ev = EMPTY_EVENT;
        let mut got = None;
        let mut feed = |bytes: &[u8]| {
            // SAFETY: live parser; `bytes` outlives the draining below.
            let rc = unsafe { tokensieve_feed(p, bytes.as_ptr().cast(), bytes.len()) };
            assert_eq!(rc, OK);
            // SAFETY: live parser, writable event.
            while unsafe { tokensieve_next(p, &mut ev) } == EVENT {}
        };
        for chunk in text.as_bytes().chunks(piece) {
            feed(chunk);
        }
        // SAFETY: live parser.
        assert_eq!(unsafe { tokensieve_finish(p) }, OK);
        // SAFETY: live parser, writable event.
        while unsafe { tokensieve_next(p, &mut ev) } == EVENT {
            if ev.kind == tokensieve_kind::TOKENSIEVE_KIND_BLOCK_COMPLETE as u32 {
                // SAFETY: the ABI's slice, valid until the next call.
                let bytes = unsafe {
                    std::slice::from_raw_parts(ev.content.ptr.cast::<u8>(), ev.content.len)
                };
                got = Some((
                    bytes.to_vec(),
                    ev.flags & tokensieve_flag::TOKENSIEVE_FLAG_ACCUMULATED_TRUNCATED as u32 != 0,
                ));
            }
        }
        // SAFETY: caller-memory parser: only invalidated; then the memory is freed.
        unsafe {
            tokensieve_free(p);
            std::alloc::dealloc(mem, layout);
        }
        got.expect("a block_complete")
    };
    // 13 bytes: "ab", "é" (2), "cdefgh", then the 4-byte emoji does not fit (12 + 4).
    let want = ("ab\u{e9}cdefgh".as_bytes().to_vec(), true);
    for piece in [1, 2, 3, 5, 7, text.len()] {
        assert_eq!(content(piece), want, "fed in pieces of {piece}");
    }
}

#[test]
fn abi_facts() {
    // ABI 1: eight u32 and seven slices; ABI 2 appends four u32, five u64 and seven slices;
    // ABI 5 one slice (`citations`).
    assert_eq!(
        tokensieve_event_size(),
        32 + 7 * 2 * size_of::<usize>() + 16 + 5 * 8 + 8 * 2 * size_of::<usize>()
    );
    assert!(STATE_ALIGN.is_power_of_two());
}
