//! Filtering: the router's exact-match filters (allowlist `Hooks::get_filter_fields`) and
//! [`ServiceFilterBackend`] with lookups (allowlist `filterable_fields`). Two allowlists, as the spec says.
//!
//! Lookups: `field` (exact), `field__gt`, `__gte`, `__lt`, `__lte`, `__in` (comma list), `__isnull`,
//! `__contains`, `__icontains`. Values are converted to the column's type; a value that cannot be, or a lookup
//! that makes no sense for the column, is a 422 naming the parameter. Unrelated parameters are ignored.

use std::collections::BTreeMap;

use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, DbBackend, EntityTrait, QueryFilter, Select};

use crate::columns::column;
use crate::list_query::ListQuery;
use crate::text_match::{Wildcards, text_match};
use crate::value::{is_null_word, is_ordered, is_text, parse_bool, parse_value};
use crate::{ApiError, RequestContext, ViewSet};

/// Exact-match filters the router passes to `list`: field name → raw query value.
pub type Filters = BTreeMap<String, String>;

/// A filter backend: builds (never runs) the list query from the request. Runs synchronously.
///
/// ```
/// use viewset_core::{ApiError, FilterBackend, ListQuery, RequestContext, ViewSet};
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
    note = "filter_backends takes types implementing `viewset_core::FilterBackend`: ServiceFilterBackend, SearchFilter, OrderingFilter"
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
        for (key, raw) in request.query.iter() {
            let (field, lookup) = key.split_once("__").unwrap_or((key, "exact"));
            if !allowed.contains(&field) || !request.may_query(field) {
                continue;
            }
            let col = column::<V::Entity>(field)
                .ok_or_else(|| ApiError::input(["query", key], format!("Unknown field `{field}`"), "unknown_field"))?;
            query.select = apply_lookup(query.select, col, lookup, raw, key, backend)?;
        }
        Ok(query)
    }
}

/// Applies the router's exact-match filters (used by the default `get_queryset`).
pub fn apply_exact_filters<E: EntityTrait>(
    mut select: Select<E>,
    filters: &Filters,
    backend: DbBackend,
) -> Result<Select<E>, ApiError> {
    for (field, raw) in filters {
        if let Some(col) = column::<E>(field) {
            select = apply_lookup(select, col, "exact", raw, field, backend)?;
        }
    }
    Ok(select)
}

/// One `field__lookup=raw` condition.
fn apply_lookup<E: EntityTrait>(
    select: Select<E>,
    col: E::Column,
    lookup: &str,
    raw: &str,
    param: &str,
    backend: DbBackend,
) -> Result<Select<E>, ApiError> {
    let def = col.def();
    let ty = def.get_column_type();
    let bad = |msg: String, kind: &str| ApiError::input(["query", param], msg, kind);
    let value = |raw: &str| parse_value(ty, raw).map_err(|msg| bad(msg, "value_error"));
    let condition: Expr = match lookup {
        "exact" if is_null_word(raw) => col.is_null(),
        "exact" => col.eq(value(raw)?),
        "gt" | "gte" | "lt" | "lte" => {
            if !is_ordered(ty) {
                return Err(bad(format!("lookup `{lookup}` is not supported on this field"), "unsupported_lookup"));
            }
            let v = comparable(ty, raw, lookup).map_err(|msg| bad(msg, "value_error"))?;
            match lookup {
                "gt" => col.gt(v),
                "gte" => col.gte(v),
                "lt" => col.lt(v),
                _ => col.lte(v),
            }
        }
        "in" => {
            let values =
                raw.split(',').map(str::trim).filter(|s| !s.is_empty()).map(value).collect::<Result<Vec<_>, _>>()?;
            col.is_in(values)
        }
        "isnull" => match parse_bool(raw) {
            Some(true) => col.is_null(),
            Some(false) => col.is_not_null(),
            None => {
                return Err(bad("Input should be a valid boolean (true/false, yes/no, 1/0)".into(), "bool_parsing"));
            }
        },
        "contains" | "icontains" => {
            if !is_text(ty) {
                return Err(bad(format!("lookup `{lookup}` needs a text field"), "unsupported_lookup"));
            }
            text_match(col, raw, Wildcards::Literal, lookup == "icontains", backend)
        }
        other => return Err(bad(format!("unsupported lookup `{other}`"), "unsupported_lookup")),
    };
    Ok(select.filter(condition))
}

/// A comparison operand of the column's own type. The spec coerces a value with a dot to a float; on an integer
/// column the float is rounded to the equivalent integer bound (`views > 2.5` is `views > 2`, `views >= 2.5` is
/// `views >= 3`), so the parameter keeps the column's type (PostgreSQL rejects a float bound to an integer).
fn comparable(ty: &sea_orm::sea_query::ColumnType, raw: &str, lookup: &str) -> Result<sea_orm::Value, String> {
    use sea_orm::sea_query::ColumnType as T;
    let integer = matches!(
        ty,
        T::TinyInteger
            | T::SmallInteger
            | T::Integer
            | T::BigInteger
            | T::TinyUnsigned
            | T::SmallUnsigned
            | T::Unsigned
            | T::BigUnsigned
    );
    if integer && raw.contains('.') {
        let f = raw.trim().parse::<f64>().ok().filter(|f| f.is_finite()).ok_or("Input should be a valid number")?;
        let bound = if matches!(lookup, "gt" | "lte") { f.floor() } else { f.ceil() };
        if bound.abs() > 9.0e15 {
            return Err("Input is out of range for this field".into());
        }
        return parse_value(ty, &format!("{bound:.0}")).map_err(|_| "Input is out of range for this field".into());
    }
    parse_value(ty, raw)
}
