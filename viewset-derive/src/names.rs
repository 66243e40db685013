//! Every attribute name the derives understand, written once.

/// Attributes of `#[viewset(...)]` on a ViewSet that the spec names but that have no effect, with what to use instead.
pub const NO_EFFECT: &[(&str, &str)] = &[
    (
        "serializer_class",
        "use `list_serializer_class`, `retrieve_serializer_class`, `create_serializer_class` or `update_serializer_class`",
    ),
    (
        "authentication_classes",
        "authenticate in your own middleware and attach a `viewset_core::Principal` request extension; use `permission_classes` for access rules",
    ),
    ("queryset", "the model's query comes from `model`; override `Hooks::get_queryset` to change it"),
    ("filterset_fields", "use `filterable_fields` with `filter_backends = [ServiceFilterBackend]`"),
    ("page_size", "use `default_limit`"),
    ("max_page_size", "use `max_limit`"),
    ("allowed_actions", "restrict operations with `permission_classes = [OperationPermission::allow(&[..])]`"),
    ("excluded_actions", "restrict operations with `permission_classes = [OperationPermission::allow(&[..])]`"),
    ("url_name_prefix", "route names come from the handler functions; there is nothing to prefix"),
];

/// The value of `ordering_fields` that allows every column.
pub const ALL_FIELDS: &str = "__all__";

/// Filter backends recognised by their last path segment, for cross-attribute checks.
pub const SERVICE_FILTER: &[&str] = &["ServiceFilterBackend", "DjangoFilterBackend"];
/// See [`SERVICE_FILTER`].
pub const SEARCH_FILTER: &str = "SearchFilter";
/// See [`SERVICE_FILTER`].
pub const ORDERING_FILTER: &str = "OrderingFilter";
/// A lowercase name as fields, SQL tables and text search configurations are written: `[a-z_][a-z0-9_]*`.
pub fn is_lowercase_name(value: &str) -> bool {
    value.chars().next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && value.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// See [`SERVICE_FILTER`].
pub const FULLTEXT_FILTER: &str = "FullTextSearchFilter";
/// The paginator that never counts (so `count_mode` has no effect with it), recognised by its last path segment.
pub const CURSOR_PAGINATION: &str = "CursorPagination";

/// The field detail routes look records up by when `lookup_field` is not written. Unlike the other defaults
/// (`viewset_core::Config::DEFAULT_*`), this one must be known when the macro runs: the generated code names the
/// field (`&m.id`) so that rustc checks it exists and takes its type for parsing and for the OpenAPI parameter.
pub const DEFAULT_LOOKUP_FIELD: &str = "id";
