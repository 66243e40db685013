//! cargo-fuzz target `cursor`: see `viewset_fuzz::cursor` for what it drives and its input format.
#![no_main]

libfuzzer_sys::fuzz_target!(init: viewset_fuzz::cursor_self_check(), |data: &[u8]| viewset_fuzz::cursor::run(data));
