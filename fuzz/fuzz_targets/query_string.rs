//! cargo-fuzz target `query_string`: see `viewset_fuzz::query` for what it drives and its input format.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| viewset_fuzz::query::run(data));
