//! Routes for checked actions: one thin axum handler per action (admit → fetch the record for detail actions →
//! call the method), and an `ActionRoutes` impl that the ViewSet's registration finds at compile time.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::check::Action;
use crate::tokens::{option, private, visitor_fn};

/// The handlers of the checked actions and the `ActionRoutes` impl that registers and describes them.
pub fn routes(item: &syn::ItemImpl, actions: &[Action]) -> TokenStream {
    let self_ty = &item.self_ty;
    let vs = private();
    let handlers = actions.iter().map(|a| handler(self_ty, a, &vs));

    // One MethodRouter per path, in declaration order; detail paths go under `{pk}`.
    let mut paths: BTreeMap<(bool, String), Vec<TokenStream>> = BTreeMap::new();
    for action in actions {
        let handler = format_ident!("__viewset_action_{}", action.ident);
        for (method, span) in &action.methods {
            let filter = format_ident!("{}", method, span = *span);
            paths
                .entry((action.detail, action.path.clone()))
                .or_default()
                .push(quote!(.on(#vs::axum::routing::MethodFilter::#filter, #handler)));
        }
    }
    let registrations = paths.iter().map(|((detail, path), ons)| {
        quote! {
            let router = router.route(
                &#vs::action_route(base, #detail, #path),
                #vs::axum::routing::MethodRouter::<S>::new() #(#ons)* .fallback(#vs::method_not_allowed),
            );
        }
    });

    let infos = actions.iter().map(|a| {
        let name = a.ident.to_string();
        let detail = a.detail;
        let methods = a.methods.iter().map(|(m, _)| m);
        let path = &a.path;
        let doc = &a.doc;
        let schema = |ty: &Option<syn::Type>| {
            option(ty.as_ref().map(|ty| {
                quote!(|| {
                    #[allow(unused_imports)]
                    use #vs::{ViaModelSchema as _, ViaNothing as _, ViaToSchema as _};
                    (&&&#vs::SchemaProbe::<#ty>::new()).action_schema()
                })
            }))
        };
        let ai_exposed = match a.ai_exposed {
            Some(exposed) => quote!(#exposed),
            None => quote!(#vs::Config::DEFAULT_AI_EXPOSED),
        };
        let request_schema = schema(&a.body);
        let response_schema = schema(&a.returns);
        quote!(#vs::ActionInfo {
            name: #name, detail: #detail, methods: &[#(#methods),*], path: #path, doc: #doc,
            request_schema: #request_schema, response_schema: #response_schema, ai_exposed: #ai_exposed,
        })
    });
    quote! {
        const _: () = {
            #(#handlers)*
            impl #vs::ActionRoutes<#self_ty> for #vs::Probe<#self_ty> {
                fn register<S>(&self, router: #vs::axum::Router<S>, prefix: &str) -> #vs::axum::Router<S>
                where
                    S: ::core::clone::Clone + ::core::marker::Send + ::core::marker::Sync + 'static,
                    #vs::ServiceState: #vs::axum::extract::FromRef<S>,
                {
                    let base = #vs::route_base(prefix);
                    #(#registrations)*
                    router
                }
                fn describe(&self) -> ::std::vec::Vec<#vs::ActionInfo> {
                    ::std::vec![#(#infos),*]
                }
            }
        };
    }
}

fn handler(self_ty: &syn::Type, action: &Action, vs: &TokenStream) -> TokenStream {
    let ident = &action.ident;
    let name = ident.to_string();
    let handler = format_ident!("__viewset_action_{}", ident);
    let (permissions_fn, permissions) = match &action.permissions {
        Some(list) => {
            let f = format_ident!("__viewset_permissions_{}", ident);
            let def = visitor_fn(&f, "Permission", &list.0);
            (def, quote!(#f))
        }
        None => (quote!(), quote!(#vs::inherited::<#self_ty>())),
    };
    let args: Vec<_> = (0..action.extractors.len()).map(|i| format_ident!("arg{}", i)).collect();
    let types = &action.extractors;
    let (path_param, fetch, object) = if action.detail {
        (
            quote!(path: ::core::result::Result<#vs::axum::extract::Path<::std::string::String>, #vs::axum::extract::rejection::PathRejection>,),
            quote!(let object = #vs::action_object::<#self_ty>(path, &request, #permissions).await?;),
            quote!(object,),
        )
    } else {
        (quote!(), quote!(), quote!())
    };
    let throttle = &action.throttle;
    let call = quote_spanned!(action.path_span=> <#self_ty>::#ident(request, #object #(#args),*).await);
    quote! {
        #permissions_fn
        #[allow(non_snake_case)]
        async fn #handler(
            mut request: #vs::RequestContext,
            #path_param
            #(#args: #types),*
        ) -> #vs::axum::response::Response {
            #vs::respond(
                async {
                    let pass = #vs::enter_action::<#self_ty>(&mut request, #name, #permissions, #throttle).await?;
                    pass.answer(async {
                        #fetch
                        ::core::result::Result::Ok(#vs::axum::response::IntoResponse::into_response(#call))
                    }
                    .await)
                }
                .await,
            )
        }
    }
}
