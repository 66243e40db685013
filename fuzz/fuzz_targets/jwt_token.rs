//! cargo-fuzz target `jwt_token`: see `viewset_fuzz::jwt` for what it drives and its checks.
#![no_main]

libfuzzer_sys::fuzz_target!(init: viewset_fuzz::jwt::self_check(), |data: &[u8]| viewset_fuzz::jwt::run(data));
