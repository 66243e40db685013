//! Compile-time diagnostics of the derives (trybuild). Each `.stderr` was reviewed: the error must point at the offending token and say what to do.
//! Only what must not compile is here (so trybuild checks its dependencies rather than builds them); what must
//! compile is `suite/derives_compile`.
#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/fail/*.rs");
}
