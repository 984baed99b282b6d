//! Host-defined dialects (docs/design.md, "Dialect descriptions"): the first byte picks a
//! description (shape, wrapper, thinking markers, keys), the rest is a stream target's input;
//! random chunk splits, random configurations, the event model's rules as assertions.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tokensieve_fuzz::check_described(data);
});
