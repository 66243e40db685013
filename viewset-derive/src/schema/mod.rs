//! `#[derive(ModelSchema)]` on a sea-orm `Model`: parse (`attrs`) → check and resolve (`check`) → expand.
//!
//! It reads the model's own `#[sea_orm(...)]` attributes (primary key, defaults, string length) and the field
//! options of `#[viewset(...)]` (`read_only`, `max_length`), and emits `<Model>Create` and `<Model>Patch` types.

mod attrs;
mod check;
mod expand;

use proc_macro2::TokenStream;

/// Runs the steps; every error is reported at its own span, all in one build.
pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    let mut errors = darling::Error::accumulator();
    let model = attrs::parse(input, &mut errors).map(|parsed| check::check(parsed, &mut errors));
    match (errors.finish(), model) {
        (Ok(()), Some(model)) => expand::expand(&model),
        (Err(err), _) => err.write_errors(),
        (Ok(()), None) => unreachable!("a failed step always records an error"),
    }
}
