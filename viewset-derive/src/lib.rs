//! Derive macros of viewset. Use them through `viewset_core`, which re-exports both:
//!
//! - [`ModelViewSet`](macro@ModelViewSet) on a unit struct turns a sea-orm entity into a CRUD ViewSet;
//! - [`ModelSchema`](macro@ModelSchema) on a sea-orm `Model` derives its create, update and read representations.
//!
//! Each derive is three steps, one module each: parse the attributes (`attrs`), check them and collect every
//! mistake with its span (`check`), then emit thin code that calls generic functions in `viewset_core` (`expand`).

mod actions;
mod lists;
mod names;
mod schema;
mod throttle;
mod tokens;
mod viewset;

use proc_macro::TokenStream;

/// Turns a unit struct into a ViewSet for a sea-orm entity. See `viewset_core::ViewSet` for the attributes.
#[proc_macro_derive(ModelViewSet, attributes(viewset))]
pub fn derive_model_viewset(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    viewset::derive(&input).into()
}

/// Derives the create, update and read representations of a sea-orm `Model`. See `viewset_core::ModelSchema`.
#[proc_macro_derive(ModelSchema, attributes(viewset))]
pub fn derive_model_schema(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    schema::derive(&input).into()
}

/// Turns methods marked `#[action(...)]` in an `impl` block of a ViewSet into routes. See `viewset_core` docs.
#[proc_macro_attribute]
pub fn actions(args: TokenStream, input: TokenStream) -> TokenStream {
    let item = syn::parse_macro_input!(input as syn::ItemImpl);
    actions::expand(args.into(), item).into()
}
