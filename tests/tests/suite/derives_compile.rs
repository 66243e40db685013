//! Configurations of the derives that must compile, and what they configure: every attribute at once
//! (`full_config`), actions with extractors, hooks overriding `get_queryset`, a list serializer, throttle rates, the
//! least a ViewSet needs, and (`deny_warnings_in_module`) a ViewSet whose expansion causes no warning under
//! `#![deny(warnings)]`. They were trybuild `pass` cases; compiled as modules of this test binary they cost nothing
//! more than the tests around them, and trybuild (`ui.rs`) checks only what must not compile, with `cargo check`.

mod actions_with_extractors;
mod custom_hooks_get_queryset;
mod deny_warnings_in_module;
mod full_config;
mod list_serializer_class;
mod minimal;
mod throttle_rates;

#[test]
fn each_configuration_compiles_and_mounts() {
    actions_with_extractors::run();
    custom_hooks_get_queryset::run();
    deny_warnings_in_module::run();
    full_config::run();
    list_serializer_class::run();
    minimal::run();
    throttle_rates::run();
}
