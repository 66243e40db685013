//! `bulk`, `bulk = true`, `bulk(create)`, `bulk(create, update, delete)` and `max_bulk = N`: parsed, checked
//! (`max_bulk` is at least 1, at most [`MAX_BULK`], and only with `bulk`; a bulk update or delete not with
//! `require_if_match`) and spelled
//! as core's `viewset::Bulk`, with the checked `upsert_keys` (their uniqueness is checked against the model's
//! `FIELDS` in `expand::field_checks`).

use darling::FromMeta;
use darling::ast::NestedMeta;
use darling::util::SpannedValue;
use proc_macro2::TokenStream;
use quote::quote;

use crate::tokens::private;

/// The largest `max_bulk`: a request of more records would be over any sensible body limit.
const MAX_BULK: u64 = 100_000;

/// The attribute as written: which bulk writes are on.
#[derive(Debug, Clone, Copy, Default)]
pub struct BulkAttr {
    create: bool,
    update: bool,
    delete: bool,
    /// In `bulk(...)`: the first of `update` and `delete` named, where a diagnostic about them points.
    named: Option<proc_macro2::Span>,
}

impl FromMeta for BulkAttr {
    /// `bulk`: all three.
    fn from_word() -> darling::Result<Self> {
        Ok(BulkAttr { create: true, update: true, delete: true, named: None })
    }

    /// `bulk = true` (all three) or `bulk = false` (none).
    fn from_bool(value: bool) -> darling::Result<Self> {
        Ok(BulkAttr { create: value, update: value, delete: value, named: None })
    }

    /// `bulk(create, update, delete)`: the named ones.
    fn from_list(items: &[NestedMeta]) -> darling::Result<Self> {
        let mut out = BulkAttr::default();
        let mut errors = darling::Error::accumulator();
        for item in items {
            match item {
                NestedMeta::Meta(syn::Meta::Path(path)) if path.is_ident("create") => out.create = true,
                NestedMeta::Meta(syn::Meta::Path(path)) if path.is_ident("update") || path.is_ident("delete") => {
                    out.update |= path.is_ident("update");
                    out.delete |= path.is_ident("delete");
                    out.named = out.named.or(Some(syn::spanned::Spanned::span(path)));
                }
                _ => errors.push(
                    darling::Error::custom(
                        "`bulk(...)` takes `create`, `update` and `delete`, e.g. `bulk(create, delete)`",
                    )
                    .with_span(item),
                ),
            }
        }
        if items.is_empty() {
            errors.push(darling::Error::custom(
                "`bulk()` names no write: write `bulk` for all three, or `bulk(create)`, `bulk(update)`, `bulk(delete)`",
            ));
        }
        errors.finish_with(out)
    }
}

/// The checked `bulk` and `max_bulk`, as tokens of core's `Bulk` (`Bulk::OFF` when `bulk` is not written). Each
/// mistake is reported in `errors` at its token.
pub fn entry(
    attr: &Option<SpannedValue<BulkAttr>>,
    max: Option<SpannedValue<u64>>,
    require_if_match: Option<bool>,
    upsert_keys: &[syn::LitStr],
    errors: &mut darling::error::Accumulator,
) -> TokenStream {
    let vs = private();
    let on = attr.as_ref().is_some_and(|a| a.create || a.update || a.delete);
    if let Some(attr) = attr.as_ref().filter(|a| (a.update || a.delete) && require_if_match == Some(true)) {
        let what = match (attr.update, attr.delete) {
            (true, true) => "a bulk update or delete",
            (true, false) => "a bulk update",
            _ => "a bulk delete",
        };
        let msg = format!(
            "{what} cannot send `If-Match` (one tag per record), so it cannot be combined with \
             `require_if_match`: write `bulk(create)`, or leave `require_if_match` out"
        );
        errors.push(darling::Error::custom(msg).with_span(&attr.named.unwrap_or_else(|| attr.span())));
    }
    if let Some(max) = &max {
        let message = if **max == 0 {
            Some("`max_bulk` must be at least 1".to_string())
        } else if **max > MAX_BULK {
            Some(format!("`max_bulk` is at most {MAX_BULK}"))
        } else if !on {
            Some("`max_bulk` has no effect without `bulk`: add `bulk` (or `bulk(create)`, `bulk(update)`, `bulk(delete)`)".into())
        } else {
            None
        };
        if let Some(message) = message {
            errors.push(darling::Error::custom(message).with_span(&max.span()));
        }
    }
    let keys = quote!(&[#(#upsert_keys),*]);
    let Some(attr) = attr.as_ref().filter(|_| on) else {
        return quote!(#vs::Bulk { upsert_keys: #keys, ..#vs::Bulk::OFF });
    };
    let (create, update, delete) = (attr.create, attr.update, attr.delete);
    let max = match max {
        Some(max) => {
            let max = usize::try_from(*max).unwrap_or(usize::MAX);
            quote!(#max)
        }
        None => quote!(#vs::Bulk::DEFAULT_MAX),
    };
    quote!(#vs::Bulk { create: #create, update: #update, delete: #delete, max: #max, upsert_keys: #keys })
}
