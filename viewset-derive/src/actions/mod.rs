//! `#[actions]` on an `impl` block of a ViewSet: parse each `#[action(...)]` (`attrs`) → check and resolve
//! (`check`) → expand into routes (`expand`).

mod attrs;
mod check;
mod expand;

use proc_macro2::TokenStream;

/// Every error is reported at its own span; the `impl` block is re-emitted either way, so its methods still exist.
pub fn expand(args: TokenStream, mut item: syn::ItemImpl) -> TokenStream {
    let mut errors = darling::Error::accumulator();
    if !args.is_empty() {
        errors.push(
            darling::Error::custom("`#[actions]` takes no arguments; options go on each `#[action(...)]`")
                .with_span(&args),
        );
    }
    let methods = attrs::take_actions(&mut item, &mut errors);
    let actions = check::check_all(methods, &mut errors);
    let routes = match errors.finish() {
        Ok(()) => expand::routes(&item, &actions),
        Err(err) => err.write_errors(),
    };
    quote::quote!(#item #routes)
}
