//! WebAssembly exports of tokensieve for the npm package `tokensieve` (`js/`).
//!
//! Raw `extern "C"` functions (no wasm-bindgen): the JS glue (`js/src/index.js`) copies input
//! into a buffer from [`ts_alloc`], calls one function per feed, and reads that call's events
//! from the output buffer ([`ts_out_ptr`], the returned length): binary records for the object
//! API (decoded with typed arrays and one `TextDecoder` call; [`parse`] describes them), or JSON
//! objects separated by commas — exactly the CLI's `--json` form — for `js/cli.mjs`.
//!
//! A negative return value means an error; the output buffer then holds its message (UTF-8).
//! Handles are pointers to boxed [`parse::State`]s (a parser or a decoder, made by
//! [`parse::ts_sieve_new`] or [`parse::ts_decoder_new`]); one export set serves both
//! ([`parse::ts_feed`], [`parse::ts_finish`], [`parse::ts_reset`], [`parse::ts_drop`]). A null handle is an error (-1, "null handle"), never undefined behaviour.
//!
//! On wasm32 the crate is `no_std` (the core without its `std` feature): std's panic
//! machinery and its formatting code would be about 15 % of the .wasm, and a panic only
//! traps anyway (`panic = "abort"`). The allocator is std's own, dlmalloc.
//!
//! Three features, three modules of the npm package: `parse` (the model-text parser's exports;
//! js/build.sh builds it alone into `tokensieve.wasm`), `decode` (the provider-stream decoder's:
//! `tokensieve-decode.wasm`, instantiated on the first `Decoder`) and `writers` (tool calls,
//! definitions, results, stop sequences: `tokensieve-format.wasm`, instantiated on the first
//! writer call), so a host loads only what it uses (js/README.md, "Size and start-up"). All
//! are on by default, for the native tests.

#![cfg_attr(target_arch = "wasm32", no_std)]

extern crate alloc;

use alloc::vec::Vec;

#[cfg(any(feature = "parse", feature = "decode"))]
pub mod parse;
#[cfg(feature = "writers")]
pub mod writers;

/// A panic (which the core must never reach) traps, as `panic = "abort"` did with std.
#[cfg(all(target_arch = "wasm32", not(test)))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOC: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

/// The output of the last call (events or an error message).
struct Out {
    buf: Vec<u8>,
}

static mut OUT: Out = Out { buf: Vec::new() };

fn out() -> &'static mut Vec<u8> {
    // SAFETY: wasm32-unknown-unknown is single-threaded and no reference to OUT outlives
    // one exported call; on the host (tests) the functions are called from one thread.
    unsafe { &mut *core::ptr::addr_of_mut!(OUT.buf) }
}

fn set_error(msg: &str) -> i32 {
    let o = out();
    o.clear();
    o.extend_from_slice(msg.as_bytes());
    -1
}

/// Reserves `len` bytes in wasm memory for input (a config, a chunk) and returns where.
#[unsafe(no_mangle)]
pub extern "C" fn ts_alloc(len: usize) -> *mut u8 {
    let mut v = Vec::<u8>::with_capacity(len.max(1));
    let p = v.as_mut_ptr();
    core::mem::forget(v);
    p
}

/// Frees a buffer from [`ts_alloc`].
///
/// # Safety
/// `ptr` and `len` must be a pair returned by / passed to [`ts_alloc`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_free(ptr: *mut u8, len: usize) {
    // SAFETY: the caller passes back what ts_alloc returned, with its capacity.
    drop(unsafe { Vec::from_raw_parts(ptr, 0, len.max(1)) });
}

/// Where the output of the last call starts.
#[unsafe(no_mangle)]
pub extern "C" fn ts_out_ptr() -> *const u8 {
    out().as_ptr()
}

/// # Safety
/// `ptr..ptr+len` must be readable (a [`ts_alloc`] buffer, or any when `len` is 0).
unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if len == 0 {
        &[]
    } else {
        // SAFETY: per the caller's contract.
        unsafe { core::slice::from_raw_parts(ptr, len) }
    }
}

/// The length of the output buffer (after an error).
#[unsafe(no_mangle)]
pub extern "C" fn ts_out_len() -> usize {
    out().len()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(all(feature = "parse", feature = "decode"))]
    use crate::parse::*;

    #[test]
    fn the_exports_answer() {
        #[cfg(all(feature = "parse", feature = "decode"))]
        parser_exports();
        #[cfg(feature = "writers")]
        writers_write();
    }

    /// The parser's exports (called from the test above: the one output buffer).
    #[cfg(all(feature = "parse", feature = "decode"))]
    fn parser_exports() {
        // SAFETY: a null handle is allowed by every export's contract; no input bytes.
        unsafe {
            let null = core::ptr::null_mut();
            assert_eq!(ts_feed(null, core::ptr::null(), 0, 1), -1);
            assert_eq!(out().as_slice(), b"null handle");
            assert_eq!(ts_finish(null, 0), -1);
            assert_eq!(ts_reset(null), -1);
            assert_eq!(ts_prefill(null, core::ptr::null(), 0), -1);
            ts_drop(null);
        }
        // One test: the output buffer is one static, shared by test threads.
        let cfg = br#"{"provider":"openai-chat"}"#;
        // SAFETY: cfg is readable for its length; the handle is live until dropped once.
        unsafe {
            let h = ts_decoder_new(cfg.as_ptr(), cfg.len());
            assert!(!h.is_null());
            assert_eq!(ts_prefill(h, core::ptr::null(), 0), -1);
            assert_eq!(ts_reset(h), 0);
            ts_drop(h);
        }
        // Binary records (parse.rs): a text chunk, then the block's completion with its
        // content; strings' lengths in UTF-16 units ("é" is 1, "😀" 2), bytes in the area.
        let cfg = br#"{"dialect":"passthrough"}"#;
        let w = |o: &[u8], i: usize| u32::from_le_bytes(o[4 * i..4 * i + 4].try_into().unwrap());
        // SAFETY: cfg and the inputs are readable for their lengths; one live handle.
        unsafe {
            let h = ts_sieve_new(cfg.as_ptr(), cfg.len());
            let text = "é😀".as_bytes();
            let n = ts_feed(h, text.as_ptr(), text.len(), 0) as usize;
            let o = &out()[..n];
            // [R=3+5][block_start: 0, index 0, choice 0][chunk: kind 1 type text, block 0,
            // choice 0, mask 0, length 3]
            assert_eq!(
                (0..9).map(|i| w(o, i)).collect::<Vec<_>>(),
                [8, 0, 0, 0, 1, 0, 0, 0, 3]
            );
            assert_eq!(&o[36..], text);
            let n = ts_finish(h, 0) as usize;
            let o = &out()[..n];
            // [R=4+1][block_complete: kind 2, index 0, choice 0, mask 1 (content), length 3]
            assert_eq!(
                (0..6).map(|i| w(o, i)).collect::<Vec<_>>(),
                [5, 2, 0, 0, 1, 3]
            );
            assert_eq!(&o[24..], text);
            // The same stream as JSON text (the CLI's form), after a reset.
            assert_eq!(ts_reset(h), 0);
            let n = ts_feed(h, b"Hi".as_ptr(), 2, 1) as usize;
            assert_eq!(
                &out()[..n],
                br#"{"event":"block_start","index":0,"type":"text"},{"event":"chunk","text":"Hi","type":"text","visible":true,"block":0,"depth":0}"#
            );
            let n = ts_finish(h, 1) as usize;
            assert_eq!(
                &out()[..n],
                br#"{"event":"block_complete","index":0,"type":"text","content":"Hi"}"#
            );
            ts_drop(h);
        }
    }

    /// The writers (called from the test above: the one output buffer).
    #[cfg(feature = "writers")]
    fn writers_write() {
        use crate::writers::*;
        let input = br#"{"dialect":"hermes"}[{"name":"f","input":{"a":1.50}}]"#;
        // SAFETY: `input` is readable for its length.
        let n = unsafe { ts_format_calls(input.as_ptr(), 20, input.len() - 20) };
        assert_eq!(
            &out()[..n as usize],
            b"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1.50}}\n</tool_call>"
        );
        let input = b"harmony";
        // SAFETY: as above.
        let n = unsafe { ts_stop_sequences(input.as_ptr(), input.len()) };
        assert_eq!(&out()[..n as usize], br#"["<|return|>","<|call|>"]"#);
        let input = b"anthropic-xml";
        // SAFETY: as above.
        let n = unsafe { ts_stop_sequences(input.as_ptr(), input.len()) };
        assert_eq!(&out()[..n as usize], br#"["\nHuman:","\nUser:"]"#);
        let input = br#"nope[]"#;
        // SAFETY: as above.
        assert_eq!(unsafe { ts_format_results(input.as_ptr(), 4, 2) }, -1);
        assert_eq!(out().as_slice(), br#"unknown dialect "nope""#);
    }
}
