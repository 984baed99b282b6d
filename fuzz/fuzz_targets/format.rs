//! The whole-text helpers: `parse`, `parse_tool_calls`, `has_tool_use`, and the
//! `format_tool_results` round trip (see tokensieve_fuzz::check_format).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tokensieve_fuzz::check_format(data);
});
