//! The code generator's endpoints: `/ai/codegen/preview`, `/ai/patch/preview|apply`, `/ai/plan/preview|apply`
//! (`handlers`, `apply_routes`) and the optional language-model provider (`provider`). The generator itself is the
//! `viewset-codegen` crate, re-exported here as `viewset_studio::codegen`; `viewset generate` (viewset-cli) calls
//! the same crate.

mod apply_routes;
pub(crate) mod handlers;
pub(crate) mod provider;

pub use viewset_codegen::*;

#[cfg(test)]
mod tests {
    #[test]
    fn the_generator_reserves_the_query_names_viewset_core_reserves() {
        assert_eq!(super::RESERVED_QUERY_NAMES, viewset_core::query::RESERVED_QUERY_NAMES);
    }
}
