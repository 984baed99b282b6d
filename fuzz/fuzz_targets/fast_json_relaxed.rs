//! The relaxed-JSON transcoder fed once whole, no oracle: the cheap companion of
//! `json_relaxed` (see tokensieve_fuzz::fast::check_fast_relaxed).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tokensieve_fuzz::fast::check_fast_relaxed(data);
});
