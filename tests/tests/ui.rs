//! Compile-time diagnostics of the derives (trybuild). Each `.stderr` was reviewed: the error must point at the offending token and say what to do.
#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    t.compile_fail("ui/fail/*.rs");
}
