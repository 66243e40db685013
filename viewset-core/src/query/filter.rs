//! Filtering: the router's exact-match filters (allowlist `Hooks::get_filter_fields`) and
//! [`ServiceFilterBackend`] with lookups (allowlist `filterable_fields`). Two allowlists, as the spec says.
//!
//! Lookups: `field` (exact), `field__gt`, `__gte`, `__lt`, `__lte`, `__in` (comma list), `__isnull`,
//! `__contains`, `__icontains`. Values are converted to the column's type; a value that cannot be, or a lookup
//! that makes no sense for the column, is a 422 naming the parameter. Unrelated parameters are ignored; a filter
//! parameter given twice is a 422 (see [`QueryParams`](super::QueryParams)), and the conditions are combined as one
//! balanced conjunction, ANDed with the boolean group of `?or=(...)` ([`FilterGroup`]) when given.

use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{ColumnTrait, DbBackend, EntityTrait, QueryFilter, Select};

use crate::contract::viewset::ViewSet;
use crate::error::ApiError;
use crate::query::groups::{FilterGroup, group_condition};
use crate::query::text_match::{Wildcards, text_match};
use crate::request::RequestContext;
use crate::types::columns::column;
use crate::types::list_query::ListQuery;
use crate::types::lookups::FilterLookup;
use crate::types::options::RelatedField;
use crate::types::params::Filters;
use crate::types::query_limits::QueryLimits;
use crate::types::value::{check_text, is_integer, is_null_word, parse_bool, parse_value};

/// A filter backend: builds (never runs) the list query from the request. Runs synchronously.
///
/// ```
/// use viewset_core::query::{FilterBackend, ListQuery};
/// use viewset_core::{ApiError, RequestContext, ViewSet};
/// /// Hides drafts from everyone (an application backend).
/// struct Nothing;
/// impl FilterBackend for Nothing {
///     fn filter_queryset<V: ViewSet>(q: ListQuery<V::Entity>, _: &RequestContext) -> Result<ListQuery<V::Entity>, ApiError> {
///         Ok(q)
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a filter backend",
    label = "not a filter backend",
    note = "filter_backends takes types implementing `viewset_core::query::FilterBackend`: ServiceFilterBackend, SearchFilter, FullTextSearchFilter, OrderingFilter"
)]
pub trait FilterBackend {
    /// Adds this backend's conditions or ordering to the query.
    fn filter_queryset<V: ViewSet>(
        query: ListQuery<V::Entity>,
        request: &RequestContext,
    ) -> Result<ListQuery<V::Entity>, ApiError>;
}

/// Filters on `filterable_fields` with lookups.
#[derive(Debug, Clone, Copy, Default)]
pub struct ServiceFilterBackend;

/// Compatibility alias of [`ServiceFilterBackend`].
pub type DjangoFilterBackend = ServiceFilterBackend;

impl FilterBackend for ServiceFilterBackend {
    fn filter_queryset<V: ViewSet>(
        mut query: ListQuery<V::Entity>,
        request: &RequestContext,
    ) -> Result<ListQuery<V::Entity>, ApiError> {
        let allowed = V::CONFIG.filterable_fields;
        let backend = request.db.get_database_backend();
        let limits = *request.query.limits();
        // Every parameter naming an allowed field is read, so each may appear once (a repeated filter is a 422).
        let related = V::CONFIG.related_fields;
        let read = read_filters(request, allowed, related)?;
        let mut conditions = Vec::with_capacity(read.len());
        for (key, raw) in read {
            if let Some((path, lookup)) = RelatedField::find(related, key) {
                conditions.push(crate::query::related::filter::<V::Entity>(path, lookup, raw, key, request)?);
                continue;
            }
            let (field, lookup) = FilterLookup::split(key);
            let Some(col) = column::<V::Entity>(field) else { return Err(unknown_field(key, field)) };
            let Some(lookup) = lookup else { return Err(unsupported_lookup(key)) };
            conditions.push(condition(col, lookup, raw, key, backend, &limits)?);
        }
        if let Some(all) = all_of(conditions) {
            query.select = query.select.filter(all);
        }
        if let Some(raw) = request.query.one("or")? {
            let group = FilterGroup::parse(raw, &limits)?;
            query.select = query.select.filter(group_condition::<V>(&group, request, backend, &limits)?);
        }
        Ok(query)
    }
}

/// The filter parameters of a list: each naming an allowed field (or a related field's path) this caller may query,
/// read once. One function for every ViewSet.
fn read_filters<'r>(
    request: &'r RequestContext,
    allowed: &[&str],
    related: &'static [RelatedField],
) -> Result<Vec<(&'r str, &'r str)>, ApiError> {
    request.query.read_once(|key| match RelatedField::find(related, key) {
        Some((path, _)) => allowed.contains(&path.path),
        None => {
            let field = FilterLookup::split(key).0;
            allowed.contains(&field) && request.may_query(field)
        }
    })
}

/// A filter parameter `key` naming no field of the model.
fn unknown_field(key: &str, field: &str) -> ApiError {
    ApiError::input(["query", key], format!("Unknown field `{field}`"), "unknown_field")
}

/// A filter parameter `key` with a lookup no filter has.
fn unsupported_lookup(key: &str) -> ApiError {
    let suffix = key.split_once("__").map_or("", |(_, suffix)| suffix);
    ApiError::input(["query", key], format!("unsupported lookup `{suffix}`"), "unsupported_lookup")
}

/// The conjunction of `conditions` as a balanced tree: its depth (and so the stack its rendering and dropping
/// need, and SQLite's expression depth) grows with the logarithm of the number of conditions, not linearly.
pub(crate) fn all_of(mut conditions: Vec<Expr>) -> Option<Expr> {
    while conditions.len() > 1 {
        let mut paired = Vec::with_capacity(conditions.len().div_ceil(2));
        let mut it = conditions.into_iter();
        while let Some(left) = it.next() {
            paired.push(match it.next() {
                Some(right) => left.and(right),
                None => left,
            });
        }
        conditions = paired;
    }
    conditions.pop()
}

/// Query parameters named in `allowed` (`get_filter_fields()`) become the router's exact-match filters (each at
/// most once), except the reserved names (`query::RESERVED_QUERY_NAMES` and the paginator's `parameters`) and the
/// fields this caller may not query. One function for every ViewSet (in a generic one, the closures and the map's
/// sort were compiled again for each).
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// let db = sea_orm::Database::connect("sqlite::memory:").await?;
/// let mut request = viewset_core::RequestContext::new(db, viewset_core::Operation::List);
/// request.query = viewset_core::query::QueryParams::parse(Some("title=a&limit=5&utm=x"));
/// let filters = viewset_core::query::router_filters(&request, &["title", "limit"], &["limit"]).unwrap();
/// assert_eq!(filters.into_iter().collect::<Vec<_>>(), [("title".to_string(), "a".to_string())]);
/// # Ok(()) }
/// ```
pub fn router_filters(request: &RequestContext, allowed: &[&str], paginator: &[&str]) -> Result<Filters, ApiError> {
    let reserved = |k: &str| crate::types::params::is_reserved_query_name(k) || paginator.contains(&k);
    let read = request.query.read_once(|k| allowed.contains(&k) && !reserved(k) && request.may_query(k))?;
    Ok(read.into_iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
}

/// Applies the router's exact-match filters (used by the default `get_queryset`).
pub fn apply_exact_filters<E: EntityTrait>(
    select: Select<E>,
    filters: &Filters,
    backend: DbBackend,
) -> Result<Select<E>, ApiError> {
    apply_exact_filters_except(select, filters, backend, &[])
}

/// [`apply_exact_filters`] without the filters on `skipped` fields.
pub(crate) fn apply_exact_filters_except<E: EntityTrait>(
    select: Select<E>,
    filters: &Filters,
    backend: DbBackend,
    skipped: &[&str],
) -> Result<Select<E>, ApiError> {
    let limits = QueryLimits::DEFAULT;
    let mut conditions = Vec::with_capacity(filters.len());
    for (field, raw) in filters.iter().filter(|(field, _)| !skipped.contains(&field.as_str())) {
        if let Some(col) = column::<E>(field) {
            conditions.push(condition(col, FilterLookup::Exact, raw, field, backend, &limits)?);
        }
    }
    Ok(match all_of(conditions) {
        Some(all) => select.filter(all),
        None => select,
    })
}

/// One `field__lookup=raw` condition (errors located at `["query", param]`).
pub(crate) fn condition<C: ColumnTrait>(
    col: C,
    lookup: FilterLookup,
    raw: &str,
    param: &str,
    backend: DbBackend,
    limits: &QueryLimits,
) -> Result<Expr, ApiError> {
    // The checks and the values are worked out once for every column type; only the expression is `C`'s.
    Ok(match operand(col.def().get_column_type(), lookup, raw, param, limits)? {
        Operand::IsNull(true) => col.is_null(),
        Operand::IsNull(false) => col.is_not_null(),
        Operand::Eq(value) => col.eq(value),
        Operand::Gt(value) => col.gt(value),
        Operand::Gte(value) => col.gte(value),
        Operand::Lt(value) => col.lt(value),
        Operand::Lte(value) => col.lte(value),
        Operand::In(values) => col.is_in(values),
        Operand::Contains { insensitive } => text_match(col, raw, Wildcards::Literal, insensitive, backend),
    })
}

/// What a filter compares its column with, checked and typed.
enum Operand {
    IsNull(bool),
    Eq(sea_orm::Value),
    Gt(sea_orm::Value),
    Gte(sea_orm::Value),
    Lt(sea_orm::Value),
    Lte(sea_orm::Value),
    In(Vec<sea_orm::Value>),
    Contains { insensitive: bool },
}

/// The operand of `lookup` on a column of type `ty` for the raw value `raw` of `param` (a 422 naming `param` when
/// the lookup does not apply or the value does not parse).
fn operand(
    ty: &sea_orm::sea_query::ColumnType,
    lookup: FilterLookup,
    raw: &str,
    param: &str,
    limits: &QueryLimits,
) -> Result<Operand, ApiError> {
    let bad = |msg: String, kind: &str| ApiError::input(["query", param], msg, kind);
    let value = |raw: &str| parse_value(ty, raw).map_err(|msg| bad(msg, "value_error"));
    if !lookup.applies_to(ty) {
        let name = lookup.name();
        let msg = match lookup {
            FilterLookup::Contains | FilterLookup::IContains => format!("lookup `{name}` needs a text field"),
            _ => format!("lookup `{name}` is not supported on this field"),
        };
        return Err(bad(msg, "unsupported_lookup"));
    }
    Ok(match lookup {
        FilterLookup::Exact if is_null_word(raw) => Operand::IsNull(true),
        FilterLookup::Exact => Operand::Eq(value(raw)?),
        FilterLookup::Gt | FilterLookup::Gte | FilterLookup::Lt | FilterLookup::Lte => {
            let v = comparable(ty, raw, lookup).map_err(|msg| bad(msg, "value_error"))?;
            match lookup {
                FilterLookup::Gt => Operand::Gt(v),
                FilterLookup::Gte => Operand::Gte(v),
                FilterLookup::Lt => Operand::Lt(v),
                _ => Operand::Lte(v),
            }
        }
        FilterLookup::In => {
            let items: Vec<&str> = raw.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
            limits.check_in_values(param, items.len())?;
            Operand::In(items.into_iter().map(value).collect::<Result<Vec<_>, _>>()?)
        }
        FilterLookup::IsNull => match parse_bool(raw) {
            Some(null) => Operand::IsNull(null),
            None => {
                return Err(bad("Input should be a valid boolean (true/false, yes/no, 1/0)".into(), "bool_parsing"));
            }
        },
        FilterLookup::Contains | FilterLookup::IContains => {
            limits.check_search(param, raw)?;
            check_text(raw).map_err(|msg| bad(msg, "value_error"))?;
            Operand::Contains { insensitive: lookup == FilterLookup::IContains }
        }
    })
}

/// A comparison operand of the column's own type. The spec coerces a value with a dot to a float; on an integer
/// column the float is rounded to the equivalent integer bound (`views > 2.5` is `views > 2`, `views >= 2.5` is
/// `views >= 3`), so the parameter keeps the column's type (PostgreSQL rejects a float bound to an integer).
fn comparable(ty: &sea_orm::sea_query::ColumnType, raw: &str, lookup: FilterLookup) -> Result<sea_orm::Value, String> {
    // Any number that is not an integer (`2.5`, `1e-5`) is a float bound, as the OpenAPI document's `number` says.
    if is_integer(ty) && raw.trim().parse::<i128>().is_err() && raw.trim().parse::<f64>().is_ok() {
        let f = raw.trim().parse::<f64>().ok().filter(|f| f.is_finite()).ok_or("Input should be a valid number")?;
        let bound = if matches!(lookup, FilterLookup::Gt | FilterLookup::Lte) { f.floor() } else { f.ceil() };
        if bound.abs() > 9.0e15 {
            return Err("Input is out of range for this field".into());
        }
        return parse_value(ty, &format!("{bound:.0}")).map_err(|_| "Input is out of range for this field".into());
    }
    parse_value(ty, raw)
}
