//! kimi-k3: random chunk splits, random configurations; the event model's rules as
//! assertions (see tokensieve_fuzz::check_stream).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tokensieve::Dialect;

fuzz_target!(|data: &[u8]| {
    tokensieve_fuzz::check_stream(Dialect::KimiK3, data);
});
