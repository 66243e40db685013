//! `#[derive(ModelViewSet)]`: parse → check → expand.

mod attrs;
mod check;
mod expand;
pub(crate) mod lists;

use proc_macro2::TokenStream;

/// Runs the three steps; every error found is reported at its own span, all in one build.
pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    let mut errors = darling::Error::accumulator();
    let input = attrs::strip_no_effect(input, &mut errors);
    let parsed = errors.handle(<attrs::ViewSetAttrs as darling::FromDeriveInput>::from_derive_input(&input));
    let checked = parsed.and_then(|attrs| errors.handle(check::check(attrs)));
    match (errors.finish(), checked) {
        (Ok(()), Some(config)) => expand::expand(&config),
        (Err(err), _) => err.write_errors(),
        (Ok(()), None) => unreachable!("a failed step always records an error"),
    }
}
