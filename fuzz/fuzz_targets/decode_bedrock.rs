//! The provider decoder, bedrock: the AWS event-stream framing (CRCs, headers, base64 chunks): random read splits and configurations;
//! the event model's rules as assertions (see tokensieve_fuzz::provider::check_decode).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tokensieve::provider::Provider;

fuzz_target!(|data: &[u8]| {
    tokensieve_fuzz::provider::check_decode(Provider::Bedrock, data);
});
