//! The `#[viewset(...)]` attribute of a ViewSet as typed data (darling).

use darling::FromDeriveInput;
use darling::util::{Flag, SpannedValue};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Meta, Token};

use crate::lists::{ExprList, StrList};
use crate::names::NO_EFFECT;

/// Everything `#[viewset(...)]` accepts. Unknown keys are errors with a did-you-mean (darling's suggestions).
/// The shape of the item (a unit struct) is checked by [`parse`], with our wording.
#[derive(Debug, FromDeriveInput)]
#[darling(attributes(viewset))]
pub struct ViewSetAttrs {
    pub ident: syn::Ident,
    pub vis: syn::Visibility,
    pub generics: syn::Generics,
    pub model: Option<syn::Path>,
    pub prefix: Option<syn::LitStr>,
    /// What operation names start with (`<basename>_list`): OpenAPI `operationId`s and AI tool names.
    pub basename: Option<syn::LitStr>,
    pub tags: Option<StrList>,
    pub lookup_field: Option<syn::LitStr>,
    pub permission_classes: ExprList,
    pub ai_exposed: Option<bool>,
    pub stream_enabled: Option<bool>,
    /// PATCH and DELETE require `If-Match` (428 without it): `require_if_match` or `require_if_match = true`.
    pub require_if_match: Option<bool>,
    pub default_limit: Option<SpannedValue<u64>>,
    pub max_limit: Option<SpannedValue<u64>>,
    pub pagination_class: Option<syn::Path>,
    /// The count of the counting paginators when the request gives no `?count=`: "exact", "estimated" or "none".
    pub count_mode: Option<syn::LitStr>,
    pub filter_backends: ExprList,
    pub filterable_fields: StrList,
    pub search_fields: StrList,
    pub ordering_fields: StrList,
    pub ordering: StrList,
    pub list_serializer_class: Option<syn::Path>,
    pub retrieve_serializer_class: Option<syn::Path>,
    pub create_serializer_class: Option<syn::Path>,
    pub update_serializer_class: Option<syn::Path>,
    pub create_schema_class: Option<syn::Path>,
    pub update_schema_class: Option<syn::Path>,
    pub read_schema_class: Option<syn::Path>,
    /// The tenant column: rows are scoped to the principal's tenant and stamped with it.
    pub tenant_field: Option<syn::LitStr>,
    /// Required row policies (`RowPolicy` values).
    pub policy: ExprList,
    /// Fields only staff principals see.
    pub staff_only_fields: StrList,
    /// Relations (`Relation` variants of the model's module, snake_case) a client may embed with `?expand=`.
    pub expandable: StrList,
    /// Relations related paths (`"author__name"`) go through: `relations(author = author::Entity)`.
    pub relations: super::related::RelationMap,
    /// `fulltext(fields = [...], language = "...", sqlite_table = "...")`: what `FullTextSearchFilter` searches.
    pub fulltext: Option<super::fulltext::FullTextAttr>,
    /// The application implements `viewset_core::Hooks` itself (to override handlers or `get_queryset`).
    pub custom_hooks: Flag,
    /// The model's `ActiveModelBehavior` has save hooks: PATCH reads the row and saves it through the `ActiveModel`.
    pub save_hooks: Flag,
    /// CSV lists keep text cells a spreadsheet would run as formulas (machine consumers).
    pub csv_keep_formulas: Flag,
    /// `throttle(anon = "...", user = "...", create = "...")`: rates per caller scope and operation.
    pub throttle: Option<crate::throttle::ThrottleAttr>,
    /// `bulk`, `bulk = true` or `bulk(create, update, delete)`: writes of many records in one request.
    pub bulk: Option<SpannedValue<super::bulk::BulkAttr>>,
    /// The most records (or keys) one bulk request may name.
    pub max_bulk: Option<SpannedValue<u64>>,
    /// `upsert_keys = ["slug"]`: the unique fields `POST <prefix>/upsert?on_conflict=<field>` may name.
    pub upsert_keys: StrList,
    /// `aggregates(group_by = [...], sum = [...], ...)`: what `GET <prefix>/aggregate` may group and compute.
    pub aggregates: Option<super::aggregates::AggregatesAttr>,
    /// `writable_relations = ["author"]`: `expandable` relations a create body may write with the record.
    pub writable_relations: StrList,
    /// The most relations deep a nested create may go.
    pub max_nested_depth: Option<SpannedValue<u64>>,
    /// The most related rows one nested create may name.
    pub max_nested_rows: Option<SpannedValue<u64>>,
}

/// Parses `#[viewset(...)]`, recording every mistake in `errors`. A mistaken item (unknown key, no-effect key,
/// value of the wrong kind) is reported and left out, so the items around it are still parsed and checked: a
/// missing `model`, an unknown key and a bad `prefix` all show in one build. `None` only when what is left
/// still cannot be parsed (a key given twice, a syntax error).
pub fn parse(input: &syn::DeriveInput, errors: &mut darling::error::Accumulator) -> Option<ViewSetAttrs> {
    check_shape(input, errors);
    let mut out = input.clone();
    for attr in &mut out.attrs {
        if !attr.path().is_ident("viewset") {
            continue;
        }
        let Meta::List(list) = &attr.meta else { continue };
        let Ok(items) = list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) else {
            continue; // darling reports the syntax error itself
        };
        let kept: Punctuated<Meta, Token![,]> =
            items.into_iter().filter(|item| item_is_valid(input, item, errors)).collect();
        let mut new_list = list.clone();
        new_list.tokens = quote::quote!(#kept);
        attr.meta = Meta::List(new_list);
    }
    errors.handle(ViewSetAttrs::from_derive_input(&out))
}

/// Whether one item of `#[viewset(...)]` parses on its own; if not, its errors are recorded.
fn item_is_valid(input: &syn::DeriveInput, item: &Meta, errors: &mut darling::error::Accumulator) -> bool {
    if let Some((name, instead)) = NO_EFFECT.iter().find(|(name, _)| item.path().is_ident(name)) {
        errors.push(
            darling::Error::custom(format!("`{name}` is not a viewset option (it would have no effect): {instead}"))
                .with_span(item.path()),
        );
        return false;
    }
    let alone = syn::DeriveInput { attrs: vec![syn::parse_quote!(#[viewset(#item)])], ..input.clone() };
    errors.handle(ViewSetAttrs::from_derive_input(&alone)).is_some()
}

/// A ViewSet is a unit struct: it carries no data, its configuration is the attribute.
fn check_shape(input: &syn::DeriveInput, errors: &mut darling::error::Accumulator) {
    let hint = "derive `ModelViewSet` on a unit struct, e.g. `pub struct PostViewSet;`: a ViewSet holds no data, \
                its configuration is `#[viewset(...)]`";
    let span = match &input.data {
        syn::Data::Struct(data) if matches!(data.fields, syn::Fields::Unit) => return,
        syn::Data::Struct(data) => data.fields.iter().next().map_or(input.ident.span(), |f| f.span()),
        syn::Data::Enum(data) => data.enum_token.span(),
        syn::Data::Union(data) => data.union_token.span(),
    };
    let what = match &input.data {
        syn::Data::Struct(_) => "a ViewSet has no fields",
        syn::Data::Enum(_) => "a ViewSet is a struct, not an enum",
        syn::Data::Union(_) => "a ViewSet is a struct, not a union",
    };
    errors.push(darling::Error::custom(format!("{what}: {hint}")).with_span(&span));
}
