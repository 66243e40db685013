//! A ViewSet's configuration after `check`: every value resolved, either as the user wrote it or as "core's
//! default". Defaults that are plain values live in `viewset_core::Config` (its `DEFAULT_*` constants) and the
//! generated code names them; `expand` only spells what `check` decided.

use proc_macro2::Span;
use syn::{Expr, LitStr};

/// A ViewSet configuration that passed every check the macro can make.
pub struct Config {
    /// The ViewSet struct.
    pub ident: syn::Ident,
    /// Declared `pub` (listed as public by discovery).
    pub public: bool,
    /// The sea-orm entity.
    pub model: syn::Path,
    /// The model's name (`post::Entity` → `Post`).
    pub model_name: String,
    /// As written; empty means core's default (`/` + the table name).
    pub prefix: String,
    /// `basename` as written; `None`: core's default (the table's name).
    pub basename: Option<String>,
    /// As written, or the model's name.
    pub tags: Vec<String>,
    /// As written, or [`crate::names::DEFAULT_LOOKUP_FIELD`] at the span of `model` (checked like the allowlists).
    pub lookup_field: LitStr,
    /// `None`: core's `Config::DEFAULT_AI_EXPOSED`.
    pub ai_exposed: Option<bool>,
    /// `None`: core's `Config::DEFAULT_STREAM_ENABLED`.
    pub stream_enabled: Option<bool>,
    /// `None`: core's `Config::DEFAULT_REQUIRE_IF_MATCH`.
    pub require_if_match: Option<bool>,
    /// `default_limit`, resolved against `max_limit`.
    pub default_limit: DefaultLimit,
    /// `None`: core's `Config::DEFAULT_MAX_LIMIT`.
    pub max_limit: Option<u64>,
    /// `permission_classes`, in order.
    pub permissions: Vec<Expr>,
    /// `policy`: required row policies.
    pub policies: Vec<Expr>,
    /// `filter_backends`, in order.
    pub filter_backends: Vec<Expr>,
    /// The last path segment of each backend, for documentation.
    pub backend_names: Vec<String>,
    /// `filterable_fields`.
    pub filterable_fields: Vec<LitStr>,
    /// `search_fields`: text columns.
    pub search_fields: Vec<LitStr>,
    /// `None` means `"__all__"`.
    pub ordering_fields: Option<Vec<LitStr>>,
    /// Default ordering as (field, descending).
    pub ordering: Vec<(LitStr, bool)>,
    /// `tenant_field`.
    pub tenant_field: Option<LitStr>,
    /// `staff_only_fields`.
    pub staff_only_fields: Vec<LitStr>,
    /// `expandable`: snake_case names of the model's `Relation` variants, each checked by rustc at its literal, or
    /// of relations declared in `relations(...)` (followed through the model's `Related` impl: many-to-many too).
    pub expandable: Vec<LitStr>,
    /// `relations(...)`: each declared name with its related entity.
    pub relation_entities: Vec<(String, syn::Path)>,
    /// The related paths of `filterable_fields` and `ordering_fields`, each once, resolved through `relations`.
    pub related: Vec<super::related::RelatedPath>,
    /// `fulltext(...)`, checked.
    pub fulltext: Option<super::fulltext::FullText>,
    /// `count_mode`, checked to be a `CountMode` variant (`Exact`, `Estimated`, `None`); `None`: core's
    /// `Config::DEFAULT_COUNT_MODE`.
    pub count_mode: Option<syn::Ident>,
    /// `None`: core's default, `LimitOffsetPagination`.
    pub pagination: Option<syn::Path>,
    /// Body and read types.
    pub bodies: Bodies,
    /// The span of the `custom_hooks` flag when given: the application writes `impl Hooks` itself.
    pub custom_hooks: Option<Span>,
    /// `save_hooks`: PATCH saves through the `ActiveModel` so `ActiveModelBehavior` runs.
    pub save_hooks: bool,
    /// `csv_keep_formulas`: CSV cells are written as they are.
    pub csv_keep_formulas: bool,
    /// `throttle(...)`, checked: core's `Throttles` as tokens.
    pub throttle: proc_macro2::TokenStream,
    /// `bulk` and `max_bulk`, checked: core's `Bulk` as tokens.
    pub bulk: proc_macro2::TokenStream,
    /// `aggregates(...)`, checked: core's `Option<Aggregates>` as tokens.
    pub aggregates: proc_macro2::TokenStream,
    /// `writable_relations`, `max_nested_depth`, `max_nested_rows`, checked: core's `Nested` as tokens.
    pub nested: proc_macro2::TokenStream,
    /// The field names rustc checks.
    pub fields: FieldChecks,
}

/// How `default_limit` is resolved against `max_limit`.
pub enum DefaultLimit {
    /// Neither written: core's `Config::DEFAULT_LIMIT`.
    Core,
    /// Only `max_limit` written: core's default, lowered to it (`Config::default_limit_within`).
    CoreWithin(u64),
    /// Written, and already checked against the written `max_limit`.
    Checked(u64),
    /// Written without `max_limit`: the generated code asserts, at this span, that it is within core's default.
    AgainstCoreMax(u64, Span),
}

/// The request, response and schema types; `None` is the model's derived type.
pub struct Bodies {
    /// `create_serializer_class` or `create_schema_class`.
    pub create: Option<syn::Path>,
    /// `update_serializer_class` or `update_schema_class`.
    pub update: Option<syn::Path>,
    /// `list_serializer_class`, else `read_schema_class`.
    pub list_item: Option<syn::Path>,
    /// `retrieve_serializer_class`, else `read_schema_class`.
    pub detail: Option<syn::Path>,
}

/// Field names that only the compiler can check (a derive cannot see the model's fields): each is emitted as a
/// constant checked against the model's `ModelSchema::FIELDS` at the user's literal. Only names that passed the
/// macro's own checks are listed, so that a name is never reported twice; these are emitted even when other
/// attribute errors exist, so all show in one build.
pub struct FieldChecks {
    /// The sea-orm entity.
    pub model: syn::Path,
    /// Fields that must exist.
    pub plain: Vec<LitStr>,
    /// Fields that must exist and be text.
    pub text: Vec<LitStr>,
    /// The `lookup_field` (written or the default), when it is a field name: it must exist, and the generated
    /// routes read it only through its check (`LOOKUP_ALIAS` in `expand`), never by naming the field.
    pub lookup: Option<LitStr>,
    /// `expandable` names whose `Relation` variant must exist, when the ViewSet itself is not generated (other
    /// mistakes): the generated configuration names them otherwise, and they are checked once.
    pub relations: Vec<LitStr>,
    /// Related paths whose field must exist on the related model.
    pub related: Vec<super::related::RelatedPath>,
    /// Whether the `Related` impl of each related path is checked here (the ViewSet itself is not generated).
    pub related_links: bool,
    /// The literal `"__all__"` of `ordering_fields`, to warn at.
    pub all_fields_literal: Option<LitStr>,
    /// Default ordering fields `ordering_fields` does not list (spanned at their term), with the error to give when
    /// the field exists (otherwise the error is the unknown field's).
    pub ordering_not_allowed: Vec<(LitStr, String)>,
    /// `upsert_keys`: fields that must exist and be unique.
    pub unique: Vec<LitStr>,
    /// `aggregates(sum = [...], avg = [...])`: fields that must exist and be numeric.
    pub numeric: Vec<LitStr>,
    /// `aggregates(min = [...], max = [...])`: fields that must exist and have an order.
    pub ordered: Vec<LitStr>,
}
