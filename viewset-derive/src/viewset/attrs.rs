//! The `#[viewset(...)]` attribute of a ViewSet as typed data (darling).

use darling::FromDeriveInput;
use darling::util::{Flag, SpannedValue};
use syn::punctuated::Punctuated;
use syn::{Meta, Token};

use super::lists::{ExprList, StrList};
use crate::names::NO_EFFECT;

/// Everything `#[viewset(...)]` accepts. Unknown keys are errors with a did-you-mean (darling's suggestions).
#[derive(Debug, FromDeriveInput)]
#[darling(attributes(viewset), supports(struct_unit))]
pub struct ViewSetAttrs {
    pub ident: syn::Ident,
    pub vis: syn::Visibility,
    pub generics: syn::Generics,
    #[darling(default)]
    pub model: Option<syn::Path>,
    #[darling(default)]
    pub prefix: Option<syn::LitStr>,
    #[darling(default)]
    pub tags: Option<StrList>,
    #[darling(default)]
    pub lookup_field: Option<syn::LitStr>,
    #[darling(default)]
    pub permission_classes: ExprList,
    #[darling(default)]
    pub ai_exposed: Option<bool>,
    #[darling(default)]
    pub stream_enabled: Option<bool>,
    #[darling(default)]
    pub default_limit: Option<SpannedValue<u64>>,
    #[darling(default)]
    pub max_limit: Option<SpannedValue<u64>>,
    #[darling(default)]
    pub pagination_class: Option<syn::Path>,
    #[darling(default)]
    pub filter_backends: ExprList,
    #[darling(default)]
    pub filterable_fields: StrList,
    #[darling(default)]
    pub search_fields: StrList,
    #[darling(default)]
    pub ordering_fields: StrList,
    #[darling(default)]
    pub ordering: StrList,
    #[darling(default)]
    pub list_serializer_class: Option<syn::Path>,
    #[darling(default)]
    pub retrieve_serializer_class: Option<syn::Path>,
    #[darling(default)]
    pub create_serializer_class: Option<syn::Path>,
    #[darling(default)]
    pub update_serializer_class: Option<syn::Path>,
    #[darling(default)]
    pub create_schema_class: Option<syn::Path>,
    #[darling(default)]
    pub update_schema_class: Option<syn::Path>,
    #[darling(default)]
    pub read_schema_class: Option<syn::Path>,
    /// The tenant column: rows are scoped to the principal's tenant and stamped with it.
    #[darling(default)]
    pub tenant_field: Option<syn::LitStr>,
    /// Required row policies (`RowPolicy` values).
    #[darling(default)]
    pub policy: ExprList,
    /// Fields only staff principals see.
    #[darling(default)]
    pub staff_only_fields: StrList,
    /// The application implements `viewset_core::Hooks` itself (to override handlers or `get_queryset`).
    #[darling(default)]
    pub custom_hooks: Flag,
}

/// Reports each no-effect attribute the spec names (with what to use instead) and removes it, so the parser
/// that follows does not report it a second time as unknown.
pub fn strip_no_effect(input: &syn::DeriveInput, errors: &mut darling::error::Accumulator) -> syn::DeriveInput {
    let mut out = input.clone();
    for attr in &mut out.attrs {
        if !attr.path().is_ident("viewset") {
            continue;
        }
        let Meta::List(list) = &attr.meta else { continue };
        let Ok(items) = list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) else {
            continue; // darling reports the syntax error itself
        };
        let mut kept = Punctuated::<Meta, Token![,]>::new();
        for item in items {
            let hint = NO_EFFECT.iter().find(|(name, _)| item.path().is_ident(name));
            match hint {
                Some((name, instead)) => errors.push(
                    darling::Error::custom(format!(
                        "`{name}` is not a viewset option (it would have no effect): {instead}"
                    ))
                    .with_span(item.path()),
                ),
                None => kept.push(item),
            }
        }
        let mut new_list = list.clone();
        new_list.tokens = quote::quote!(#kept);
        attr.meta = Meta::List(new_list);
    }
    out
}
