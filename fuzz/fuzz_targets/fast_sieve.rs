//! Every dialect, fed once whole, no oracle: the cheap companion of the `sieve_*` targets,
//! for many executions (see tokensieve_fuzz::fast::check_fast_sieve).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tokensieve_fuzz::fast::check_fast_sieve(data);
});
