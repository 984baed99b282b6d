//! The newline-delimited JSON framing (Ollama) alone: chunk invariance and the pull contract
//! (see tokensieve_fuzz::frame::check_frame).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tokensieve_fuzz::frame::{Which, check_frame};

fuzz_target!(|data: &[u8]| {
    check_frame(Which::Ndjson, data);
});
