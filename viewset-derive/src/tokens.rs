//! Code shapes more than one derive emits. Generated code names `viewset_core` only through its `__private`
//! facade, so the runtime's modules can move without breaking the derives.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::Expr;
use syn::spanned::Spanned;

/// The path every generated item of `viewset_core` is named through.
pub fn private() -> TokenStream {
    quote!(::viewset_core::__private)
}

/// A function that visits each value as a `&dyn Trait` (a permission list, a row-policy list). Each value is
/// named once, at its own span, so a value of the wrong kind fails once, at its token.
pub fn visitor_fn(name: &syn::Ident, trait_name: &str, values: &[Expr]) -> TokenStream {
    let vs = private();
    let bound = syn::Ident::new(trait_name, proc_macro2::Span::call_site());
    let visits = values.iter().map(|v| quote_spanned!(v.span()=> visit(&#v)?;));
    quote! {
        fn #name(
            visit: &mut dyn ::core::ops::FnMut(&dyn #vs::#bound) -> ::core::result::Result<(), #vs::ApiError>,
        ) -> ::core::result::Result<(), #vs::ApiError> {
            #(#visits)*
            let _ = &visit;
            ::core::result::Result::Ok(())
        }
    }
}

/// `Some(x)` or `None` as an expression.
pub fn option(value: Option<TokenStream>) -> TokenStream {
    match value {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    }
}

/// `tokens` with every token (inside groups too) at `span`: rustc reports an error of generated code at the span of
/// the whole expression, which is the user's token only when every token of it carries that span.
pub fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    use proc_macro2::{Group, TokenTree};
    tokens
        .into_iter()
        .map(|token| match token {
            TokenTree::Group(group) => {
                let mut respanned = Group::new(group.delimiter(), respan(group.stream(), span));
                respanned.set_span(span);
                TokenTree::Group(respanned)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}
