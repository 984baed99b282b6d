//! The JSON module: `strict::validate`, `strict::compact`, `compact_piece`, against
//! serde_json (see tokensieve_fuzz::check_json).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tokensieve_fuzz::check_json(data);
});
