//! One `#[action(...)]` method as typed data, and the signature helpers `check` reads it with.

use darling::FromMeta;
use darling::util::Flag;
use syn::{ImplItem, ImplItemFn, Type};

use crate::lists::{ExprList, StrList};

/// Options of `#[action(...)]`.
#[derive(Debug, Default, FromMeta)]
pub struct ActionOptions {
    /// A detail action: `<prefix>/{pk}/<path>`, the record is fetched and passed in.
    pub detail: Flag,
    /// HTTP methods (default GET).
    pub methods: StrList,
    /// Path segment(s) after the prefix (default: the method name).
    pub path: Option<syn::LitStr>,
    /// Replaces the ViewSet's permission list for this action.
    pub permission_classes: Option<ExprList>,
    /// `ai_exposed = false` keeps the action out of the AI tool catalog (default: the core's `DEFAULT_AI_EXPOSED`).
    pub ai_exposed: Option<bool>,
    /// `throttle = "5/minute"`: the action's own rate, for every caller, on top of the ViewSet's scope rate.
    pub throttle: Option<syn::LitStr>,
}

/// Removes every `#[action]` attribute from `item` and returns each marked method with its options; options that
/// do not parse are recorded in `errors` (that method is left out, the others are still checked).
pub fn take_actions(
    item: &mut syn::ItemImpl,
    errors: &mut darling::error::Accumulator,
) -> Vec<(ImplItemFn, ActionOptions)> {
    let mut actions = Vec::new();
    for impl_item in &mut item.items {
        let ImplItem::Fn(method) = impl_item else { continue };
        let Some(index) = method.attrs.iter().position(|a| a.path().is_ident("action")) else { continue };
        let attr = method.attrs.remove(index);
        let options = match &attr.meta {
            syn::Meta::Path(_) => Some(ActionOptions::default()),
            meta => errors.handle(ActionOptions::from_meta(meta)),
        };
        if let Some(options) = options {
            actions.push((method.clone(), options));
        }
    }
    actions
}

/// The last path segment of a type (`RequestContext` in `&viewset_core::RequestContext`).
pub fn last_segment(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        Type::Reference(r) => last_segment(&r.elem),
        _ => None,
    }
}

/// The `///` lines of an item, joined.
pub fn doc_comment(attrs: &[syn::Attribute]) -> String {
    let lines = attrs.iter().filter(|a| a.path().is_ident("doc")).filter_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) => match &nv.value {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value().trim().to_string()),
            _ => None,
        },
        _ => None,
    });
    lines.collect::<Vec<_>>().join("\n")
}

/// The first generic argument of `ty` when its last path segment is `name`.
pub fn generic_arg(ty: &Type, name: &str) -> Option<Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != name {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    args.args.iter().find_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t.clone()),
        _ => None,
    })
}

/// `T` of `Json<T>` or `JsonBody<T>`.
pub fn json_inner(ty: &Type) -> Option<Type> {
    generic_arg(ty, "Json").or_else(|| generic_arg(ty, "JsonBody"))
}
