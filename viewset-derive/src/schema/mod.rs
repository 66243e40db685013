//! `#[derive(ModelSchema)]` on a sea-orm `Model`: parse → check → expand.
//!
//! It reads the model's own `#[sea_orm(...)]` attributes (primary key, defaults, string length) and the field
//! options of `#[viewset(...)]` (`read_only`, `max_length`), and emits `<Model>Create` and `<Model>Patch` types.

mod attrs;
mod expand;

use proc_macro2::TokenStream;

/// Runs the steps; every error is reported at its own span.
pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    match attrs::parse(input) {
        Ok(model) => expand::expand(&model),
        Err(err) => err.write_errors(),
    }
}
