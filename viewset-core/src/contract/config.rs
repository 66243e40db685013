//! The constant configuration of a ViewSet, as written in `#[viewset(...)]`.

use crate::throttle::Throttles;
use crate::types::options::{
    Aggregates, Bulk, CountMode, Direction, Expandable, FullText, Nested, OrderingFields, RelatedField,
};

/// A ViewSet's configuration; the derive fills it from the attributes, and names the `DEFAULT_*` constants below
/// for the values the attributes leave out (the spec's defaults are written there, once).
///
/// ```
/// use viewset_core::viewset::{Config, OrderingFields};
/// const C: Config = Config { name: "PostViewSet", model_name: "Post", prefix: "/api/posts", tags: &["Post"], lookup_field: "id",
///     ai_exposed: Config::DEFAULT_AI_EXPOSED, stream_enabled: Config::DEFAULT_STREAM_ENABLED,
///     require_if_match: Config::DEFAULT_REQUIRE_IF_MATCH, default_limit: Config::DEFAULT_LIMIT, max_limit: Config::DEFAULT_MAX_LIMIT, filterable_fields: &[],
///     search_fields: &[], ordering_fields: OrderingFields::Only(&[]), ordering: &[], tenant_field: None,
///     staff_only_fields: &[], filter_backends: &[], count_mode: Config::DEFAULT_COUNT_MODE, expandable: &[], related_fields: &[], fulltext: None, custom_hooks: false, save_hooks: false, basename: "", csv_keep_formulas: false, throttle: viewset_core::throttle::Throttles::NONE,
///     bulk: viewset_core::viewset::Bulk::OFF, aggregates: None, nested: viewset_core::viewset::Nested::OFF, module: "app::api" };
/// assert_eq!(C.default_limit, 20);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// The ViewSet struct's name.
    pub name: &'static str,
    /// The model's name (`post::Entity` → `Post`).
    pub model_name: &'static str,
    /// Public path prefix; empty means `/` + the model's table name.
    pub prefix: &'static str,
    /// API-documentation tags (default: the model's name).
    pub tags: &'static [&'static str],
    /// Field used by detail routes. Its default (`id`) is the derive's: the generated code names the field.
    pub lookup_field: &'static str,
    /// Exposure to AI/MCP access (default [`Config::DEFAULT_AI_EXPOSED`]).
    pub ai_exposed: bool,
    /// Whether `GET <prefix>/stream` is registered (default [`Config::DEFAULT_STREAM_ENABLED`]).
    pub stream_enabled: bool,
    /// Whether PATCH and DELETE require `If-Match` (428 `precondition_required` without it): the default of
    /// [`Hooks::require_if_match`](crate::Hooks::require_if_match) (default [`Config::DEFAULT_REQUIRE_IF_MATCH`]).
    pub require_if_match: bool,
    /// Page size when `limit` is omitted (default [`Config::DEFAULT_LIMIT`], lowered to `max_limit` if above it).
    pub default_limit: u64,
    /// Largest accepted `limit` (default [`Config::DEFAULT_MAX_LIMIT`]).
    pub max_limit: u64,
    /// Allowlist of `ServiceFilterBackend`.
    pub filterable_fields: &'static [&'static str],
    /// Text fields of `SearchFilter`.
    pub search_fields: &'static [&'static str],
    /// Allowlist of `OrderingFilter`.
    pub ordering_fields: OrderingFields,
    /// Default ordering.
    pub ordering: &'static [(&'static str, Direction)],
    /// The tenant column: rows are scoped to the principal's tenant and stamped with it on create.
    pub tenant_field: Option<&'static str>,
    /// Fields only staff principals see.
    pub staff_only_fields: &'static [&'static str],
    /// Names of the filter backends, in order (for documentation).
    pub filter_backends: &'static [&'static str],
    /// How the counting paginators count when the request gives no `?count=` (`#[viewset(count_mode = "...")]`,
    /// default [`Config::DEFAULT_COUNT_MODE`]).
    pub count_mode: CountMode,
    /// `expandable`: the relations `?expand=` may embed ([`crate::embed`]).
    pub expandable: &'static [Expandable],
    /// The related paths of `filterable_fields` and `ordering_fields` (`author__name`), each once
    /// ([`RelatedField`]).
    pub related_fields: &'static [RelatedField],
    /// `fulltext(...)`: what `FullTextSearchFilter` searches ([`FullText`]).
    pub fulltext: Option<FullText>,
    /// `custom_hooks`: the application writes `impl Hooks` (and may override `list`, so a CSV list converts its
    /// JSON page instead of streaming rows).
    pub custom_hooks: bool,
    /// `save_hooks`: the model's `ActiveModelBehavior` hooks must run on PATCH, so it reads the row and saves it
    /// through the `ActiveModel`. Without it (and without object permissions, `custom_hooks` or `If-Match`) PATCH is
    /// one `UPDATE … RETURNING` ([`crate::access::update_in_scope`]).
    pub save_hooks: bool,
    /// `basename`: what the names of the ViewSet's operations start with (its OpenAPI `operationId`s and AI tool
    /// names, `<basename>_list`); empty means the model's table name ([`ViewSet::basename`](crate::ViewSet::basename)).
    pub basename: &'static str,
    /// `csv_keep_formulas`: CSV lists write text cells as they are, even those a spreadsheet would run as a formula
    /// (for machine consumers); by default such a cell is neutralised ([`crate::pagination::Formulas`]).
    pub csv_keep_formulas: bool,
    /// `throttle(...)`: the ViewSet's own rates per caller scope and operation ([`crate::throttle`]).
    pub throttle: Throttles,
    /// `bulk`, `max_bulk`: the many-record writes of the ViewSet ([`Bulk`], default [`Bulk::OFF`]).
    pub bulk: Bulk,
    /// `aggregates(...)`: what `GET <prefix>/aggregate` may group by and compute ([`Aggregates`]); `None`: no
    /// such route.
    pub aggregates: Option<Aggregates>,
    /// `writable_relations`, `max_nested_depth`, `max_nested_rows`: the relations a create body may write with
    /// the record ([`Nested`], default [`Nested::OFF`]).
    pub nested: Nested,
    /// The Rust module that defines the ViewSet (`module_path!()`), for discovery.
    pub module: &'static str,
}

impl Config {
    /// `default_limit` when the attributes leave it out (and `max_limit` too).
    pub const DEFAULT_LIMIT: u64 = 20;
    /// `max_limit` when the attributes leave it out.
    pub const DEFAULT_MAX_LIMIT: u64 = 100;
    /// `ai_exposed` when the attributes leave it out.
    pub const DEFAULT_AI_EXPOSED: bool = true;
    /// `stream_enabled` when the attributes leave it out.
    pub const DEFAULT_STREAM_ENABLED: bool = true;
    /// `require_if_match` when the attributes leave it out: `If-Match` is optional.
    pub const DEFAULT_REQUIRE_IF_MATCH: bool = false;
    /// `count_mode` when the attributes leave it out: the spec's exact count.
    pub const DEFAULT_COUNT_MODE: CountMode = CountMode::Exact;

    /// `default_limit` when only `max_limit` is written: the default, lowered to `max_limit` if above it.
    ///
    /// ```
    /// use viewset_core::Config;
    /// assert_eq!(Config::default_limit_within(10), 10);
    /// assert_eq!(Config::default_limit_within(500), Config::DEFAULT_LIMIT);
    /// ```
    pub const fn default_limit_within(max_limit: u64) -> u64 {
        if Config::DEFAULT_LIMIT < max_limit { Config::DEFAULT_LIMIT } else { max_limit }
    }

    /// Whether `filter_backends` holds `ServiceFilterBackend` (or its alias `DjangoFilterBackend`): the backend that
    /// reads every `filterable_fields` parameter, with lookups.
    ///
    /// ```
    /// # use viewset_core::viewset::{Config, OrderingFields};
    /// # const C: Config = Config { name: "P", model_name: "P", prefix: "/p", tags: &[], lookup_field: "id",
    /// #     ai_exposed: true, stream_enabled: true, require_if_match: false, default_limit: 20, max_limit: 100,
    /// #     filterable_fields: &[], search_fields: &[], ordering_fields: OrderingFields::Only(&[]), ordering: &[],
    /// #     tenant_field: None, staff_only_fields: &[], filter_backends: &[], count_mode: Config::DEFAULT_COUNT_MODE,
    /// #     expandable: &[], related_fields: &[], fulltext: None, custom_hooks: false, save_hooks: false, basename: "",
    /// #     csv_keep_formulas: false, throttle: viewset_core::throttle::Throttles::NONE,
    /// #     bulk: viewset_core::viewset::Bulk::OFF, aggregates: None, nested: viewset_core::viewset::Nested::OFF,
    /// #     module: "m" };
    /// let config = Config { filter_backends: &["DjangoFilterBackend", "OrderingFilter"], ..C };
    /// assert!(config.filters_with_lookups());
    /// assert!(!Config { filter_backends: &["SearchFilter"], ..C }.filters_with_lookups());
    /// ```
    pub fn filters_with_lookups(&self) -> bool {
        self.filter_backends.iter().any(|b| matches!(*b, "ServiceFilterBackend" | "DjangoFilterBackend"))
    }
}
