//! The sans-I/O TCP sender and receiver fed arbitrary segment sequences
//! (harness and invariants in crates/airtcp-core/tests/fuzz_harness/mod.rs).
#![no_main]

#[path = "../../crates/airtcp-core/tests/fuzz_harness/mod.rs"]
mod fuzz_harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::tcp_endpoints(data));
