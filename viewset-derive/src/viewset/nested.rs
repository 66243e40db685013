//! `writable_relations = ["author", "posts"]`, `max_nested_depth = N` and `max_nested_rows = N`: checked (each
//! name is one of the ViewSet's checked `expandable` relations, each once; the bounds at least 1, at most
//! [`MAX_DEPTH`] and [`MAX_ROWS`], and only with `writable_relations`) and spelled as core's `viewset::Nested`.
//! Whether a relation is to-one, to-many or many-to-many is its sea-orm definition's, read where the body is written.

use darling::util::SpannedValue;
use proc_macro2::TokenStream;
use quote::quote;
use syn::LitStr;

use crate::tokens::private;

/// The deepest `max_nested_depth`: `?expand=` embeds at most three relations deep, and the answer embeds what was
/// written.
const MAX_DEPTH: u64 = 3;

/// The largest `max_nested_rows`.
const MAX_ROWS: u64 = 10_000;

/// What `#[viewset(...)]` says about nested writes, as written.
pub struct NestedAttr<'a> {
    /// `writable_relations`.
    pub writable: &'a [LitStr],
    /// `max_nested_depth`.
    pub max_depth: Option<SpannedValue<u64>>,
    /// `max_nested_rows`.
    pub max_rows: Option<SpannedValue<u64>>,
}

/// The checked declaration as tokens of core's `Nested` (`Nested::OFF` without `writable_relations`). `expandable`
/// holds the names that passed their own checks; a name `expandable` does not list (mistaken or not) is reported at
/// its literal in `errors`, with the names it may be.
pub fn entry(attr: NestedAttr<'_>, expandable: &[LitStr], errors: &mut darling::error::Accumulator) -> TokenStream {
    let vs = private();
    let mut names: Vec<&LitStr> = Vec::new();
    for name in attr.writable {
        let value = name.value();
        let message = if names.iter().any(|seen| seen.value() == value) {
            format!("`{value}` is listed twice in `writable_relations`")
        } else if !expandable.iter().any(|e| e.value() == value) {
            let known: Vec<String> = expandable.iter().map(LitStr::value).collect();
            let hint = match known.is_empty() {
                true => "nothing is expandable here".to_string(),
                false => format!("expandable: {}", known.join(", ")),
            };
            format!(
                "`{value}` is not an `expandable` relation of this ViewSet ({hint}): a writable relation is written \
                 and answered as `?expand=` embeds it, so add it to `expandable` first"
            )
        } else {
            names.push(name);
            continue;
        };
        errors.push(darling::Error::custom(message).with_span(name));
    }
    let declared = !attr.writable.is_empty();
    let bound = |value: &Option<SpannedValue<u64>>, key: &str, max: u64, errors: &mut darling::error::Accumulator| {
        let value = value.as_ref()?;
        let message = if **value == 0 {
            format!("`{key}` must be at least 1")
        } else if **value > max {
            format!("`{key}` is at most {max}")
        } else if !declared {
            format!("`{key}` has no effect without `writable_relations`: name the relations a create may write")
        } else {
            return Some(usize::try_from(**value).unwrap_or(usize::MAX));
        };
        errors.push(darling::Error::custom(message).with_span(&value.span()));
        None
    };
    let depth = bound(&attr.max_depth, "max_nested_depth", MAX_DEPTH, errors);
    let rows = bound(&attr.max_rows, "max_nested_rows", MAX_ROWS, errors);
    if !declared {
        return quote!(#vs::Nested::OFF);
    }
    let depth = depth.map_or_else(|| quote!(#vs::Nested::DEFAULT_MAX_DEPTH), |d| quote!(#d));
    let rows = rows.map_or_else(|| quote!(#vs::Nested::DEFAULT_MAX_ROWS), |r| quote!(#r));
    quote!(#vs::Nested::new(&[#(#names),*], #depth, #rows))
}
