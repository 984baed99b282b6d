//! The the AWS event stream (Bedrock): preludes, headers, CRCs, a frame length cap framing alone: chunk invariance and the pull contract
//! (see tokensieve_fuzz::frame::check_frame).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tokensieve_fuzz::frame::{Which, check_frame};

fuzz_target!(|data: &[u8]| {
    check_frame(Which::EventStream, data);
});
