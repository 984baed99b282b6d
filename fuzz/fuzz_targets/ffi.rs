//! The C ABI, called as C calls it: memory safety of every slice (run it under
//! AddressSanitizer: `fuzz/run.sh` does), rule 4 through the ABI, agreement with the core,
//! misuse statuses (see tokensieve_fuzz::ffi).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tokensieve_fuzz::ffi::check_ffi(data);
});
