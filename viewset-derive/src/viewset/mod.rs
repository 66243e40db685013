//! `#[derive(ModelViewSet)]`: parse (`attrs`) → check and resolve (`check`, into `config::Config`) → expand.

mod aggregates;
mod attrs;
mod bulk;
mod check;
mod config;
mod expand;
mod fulltext;
mod nested;
mod related;
mod routes;

use proc_macro2::TokenStream;

/// Runs the three steps; every error found is reported at its own span, all in one build. When the attributes
/// have mistakes, the field names that can still be checked are emitted too, so rustc's errors come in the same build.
pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    let mut errors = darling::Error::accumulator();
    let checked = attrs::parse(input, &mut errors).map(|attrs| check::check(attrs, &mut errors));
    let (err, checked) = match (errors.finish(), checked) {
        (Ok(()), Some(Ok(config))) => return expand::expand(&config),
        (Ok(()), _) => unreachable!("a failed step always records an error"),
        (Err(err), checked) => (err, checked),
    };
    let fields = match &checked {
        Some(Ok(config)) => Some(&config.fields),
        Some(Err(fields)) => fields.as_deref(),
        None => None,
    };
    let fields = fields.map(|f| {
        let f = expand::field_checks(f);
        quote::quote!(const _: () = { #f };)
    });
    let errors = err.write_errors();
    quote::quote!(#errors #fields)
}
