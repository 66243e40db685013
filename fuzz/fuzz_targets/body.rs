//! cargo-fuzz target `body`: see `viewset_fuzz::body` for what it drives and its input format.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| viewset_fuzz::body::run(data));
