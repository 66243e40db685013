//! cargo-fuzz target `bulk`: see `viewset_fuzz::bulk` for what it drives and its input format.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| viewset_fuzz::bulk::run(data));
