//! The provider decoder, ollama: NDJSON after a whole first document: random read splits and
//! configurations; the event model's rules as assertions (see
//! tokensieve_fuzz::provider::check_decode).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tokensieve::provider::Provider;

fuzz_target!(|data: &[u8]| {
    tokensieve_fuzz::provider::check_decode(Provider::Ollama, data);
});
