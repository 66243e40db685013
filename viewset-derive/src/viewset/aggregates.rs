//! `aggregates(group_by = [...], sum = [...], avg = [...], min = [...], max = [...], count_distinct = [...],
//! max_groups = N)`: parsed, checked (plain field names of this model, each once per list, never the tenant
//! field; `max_groups` within bounds) and spelled as core's `aggregate::Aggregates`. Whether each name is a field,
//! and of a type its list accepts (numeric for `sum`/`avg`, ordered for `min`/`max`), is checked by rustc at the
//! literal (`expand::field_checks`).

use darling::FromMeta;
use darling::util::SpannedValue;
use proc_macro2::TokenStream;
use quote::quote;
use syn::LitStr;

use crate::lists::StrList;
use crate::tokens::{option, private};

/// The largest `max_groups`: an answer of more groups is a table, not an aggregate.
const MAX_GROUPS: u64 = 100_000;

/// The attribute as written.
#[derive(Debug, Clone, FromMeta)]
pub struct AggregatesAttr {
    group_by: StrList,
    sum: StrList,
    avg: StrList,
    min: StrList,
    max: StrList,
    count_distinct: StrList,
    max_groups: Option<SpannedValue<u64>>,
}

/// The checked attribute: the valid names of each list.
pub struct Aggregates {
    lists: [(&'static str, Vec<LitStr>); 6],
    max_groups: Option<u64>,
}

impl Aggregates {
    /// Names that must be fields of the model (`group_by`, `count_distinct`).
    pub fn plain(&self) -> impl Iterator<Item = &LitStr> {
        self.named(&["group_by", "count_distinct"])
    }

    /// Names that must be numeric fields (`sum`, `avg`).
    pub fn numeric(&self) -> impl Iterator<Item = &LitStr> {
        self.named(&["sum", "avg"])
    }

    /// Names that must be fields with an order (`min`, `max`).
    pub fn ordered(&self) -> impl Iterator<Item = &LitStr> {
        self.named(&["min", "max"])
    }

    fn named<'a>(&'a self, kinds: &'a [&str]) -> impl Iterator<Item = &'a LitStr> {
        self.lists.iter().filter(move |(kind, _)| kinds.contains(kind)).flat_map(|(_, names)| names)
    }
}

/// Checks `aggregates(...)`; `valid` tells which names are field names (the caller's check, which reports them).
pub fn check(
    attr: &Option<AggregatesAttr>,
    tenant_field: Option<&LitStr>,
    valid: impl Fn(&LitStr, &mut darling::error::Accumulator) -> bool,
    errors: &mut darling::error::Accumulator,
) -> Option<Aggregates> {
    let attr = attr.as_ref()?;
    let written = [
        ("group_by", &attr.group_by),
        ("sum", &attr.sum),
        ("avg", &attr.avg),
        ("min", &attr.min),
        ("max", &attr.max),
        ("count_distinct", &attr.count_distinct),
    ];
    let lists = written.map(|(kind, list)| {
        let mut names: Vec<LitStr> = Vec::new();
        for name in &list.0 {
            let value = name.value();
            let message = if value.contains("__") {
                format!(
                    "relation paths are not supported in `aggregates({kind} = ...)`: name a field of this model \
                     (a time bucket is asked for at run time: `group_by=created_at__month`)"
                )
            } else if !valid(name, errors) {
                continue;
            } else if names.iter().any(|seen| seen.value() == value) {
                format!("`{value}` is listed twice in `aggregates({kind} = ...)`")
            } else if tenant_field.is_some_and(|tenant| tenant.value() == value) {
                format!(
                    "`{value}` is the `tenant_field`: an aggregate counts only the caller's tenant, so it cannot \
                     be in `aggregates({kind} = ...)`"
                )
            } else {
                names.push(name.clone());
                continue;
            };
            errors.push(darling::Error::custom(message).with_span(name));
        }
        (kind, names)
    });
    if let Some(max) = &attr.max_groups
        && !(1..=MAX_GROUPS).contains(&**max)
    {
        let message = format!("`max_groups` must be between 1 and {MAX_GROUPS}");
        errors.push(darling::Error::custom(message).with_span(&max.span()));
    }
    Some(Aggregates { lists, max_groups: attr.max_groups.as_ref().map(|m| **m) })
}

/// The `aggregates` value of the configuration constant.
pub fn entry(aggregates: &Option<Aggregates>) -> TokenStream {
    let vs = private();
    option(aggregates.as_ref().map(|declared| {
        let fields = declared.lists.iter().map(|(kind, names)| {
            let kind = syn::Ident::new(kind, proc_macro2::Span::call_site());
            quote!(#kind: &[#(#names),*])
        });
        let max_groups =
            declared.max_groups.map_or_else(|| quote!(#vs::Aggregates::DEFAULT_MAX_GROUPS), |max| quote!(#max));
        quote!(#vs::Aggregates { #(#fields,)* max_groups: #max_groups })
    }))
}
