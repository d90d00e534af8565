//! A scenario file's bytes loaded and, if valid, run for a bounded time
//! (harness, bounds and invariants in
//! crates/airtcp-core/tests/fuzz_harness/mod.rs).
#![no_main]

#[path = "../../crates/airtcp-core/tests/fuzz_harness/mod.rs"]
mod fuzz_harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::scenario_run(data));
