//! The relaxed-JSON transcoder (`json::relaxed::Transcoder`): strict compact output
//! whenever it completes, chunk invariance, strict input kept as its value (see
//! tokensieve_fuzz::check_relaxed).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tokensieve_fuzz::check_relaxed(data);
});
