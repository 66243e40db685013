//! Related-field filters and ordering: `filterable_fields = ["author__name"]` and `ordering_fields =
//! ["author__name"]` with `relations(author = author::Entity)` let a client write `?author__name__icontains=ada` and
//! `?ordering=author__name`. The derive checks at compile time that `author` is a declared relation (the model's
//! `sea_orm::Related<author::Entity>` gives its columns) and that `name` is a field of the related model.
//!
//! The related rows come from the ViewSet registered for the related table ([`crate::embed::Embedders`]), through
//! [`crate::access`] exactly as its own list: its `permission_classes` (a caller it does not admit to `list` matches
//! nothing and cannot order by it), `get_queryset`, row policies and hidden fields (a field the caller may not see
//! is an unknown field). A filter is `from_col IN (SELECT to_col FROM related WHERE <its scope> AND <condition>)`; an
//! ordering term is the scalar subquery `(SELECT field FROM related WHERE to_col = from_col AND <its scope>)`, so a
//! row the caller may not see sorts as a missing value and is never revealed, not even through the order. Object
//! permissions are per-record checks in Rust that SQL cannot run: they do not narrow a related filter (express
//! record secrecy as a row policy or in `get_queryset`, as tenants do).
//!
//! ```
//! use viewset_core::query::{FilterLookup, RelatedField};
//! # fn def() -> sea_orm::RelationDef { unimplemented!() }
//! const RELATED: &[RelatedField] =
//!     &[RelatedField { path: "author__name", relation: "author", field: "name", def, column_type: |_| None }];
//! let (found, lookup) = RelatedField::find(RELATED, "author__name__icontains").unwrap();
//! assert_eq!((found.field, lookup), ("name", Some(FilterLookup::IContains)));
//! assert!(RelatedField::find(RELATED, "author_id").is_none());
//! ```

use sea_orm::sea_query::{ColumnType, Expr, ExprTrait, SelectStatement};
use sea_orm::{EntityTrait, QueryFilter, QuerySelect, QueryTrait, RelationDef};

use super::Filters;
use super::columns::{column_named, field_name};
use super::filter::condition;
use super::lookups::FilterLookup;
use crate::access;
use crate::embed::{Hop, HopError};
use crate::error::ApiError;
use crate::request::RequestContext;
use crate::viewset::Hooks;

/// One related path of `filterable_fields` or `ordering_fields` (the derive writes one per distinct path).
#[derive(Debug, Clone, Copy)]
pub struct RelatedField {
    /// `author__name`: how clients write it.
    pub path: &'static str,
    /// `author`: the name declared in `relations(...)`.
    pub relation: &'static str,
    /// `name`: the field of the related model.
    pub field: &'static str,
    /// The relation from this ViewSet's model (`<Entity as Related<author::Entity>>::to`).
    pub def: fn() -> RelationDef,
    /// The column type of a field of the related model (for the OpenAPI document).
    pub column_type: fn(&str) -> Option<ColumnType>,
}

impl RelatedField {
    /// The related path a filter parameter `key` names, with its lookup (`None`: not a lookup we know).
    pub fn find(related: &'static [RelatedField], key: &str) -> Option<(&'static RelatedField, Option<FilterLookup>)> {
        related.iter().find_map(|rf| {
            if key == rf.path {
                return Some((rf, Some(FilterLookup::Exact)));
            }
            let rest = key.strip_prefix(rf.path)?.strip_prefix("__")?;
            Some((rf, FilterLookup::from_name(rest)))
        })
    }
}

/// The column type of `E`'s field `name` (the derive's [`RelatedField::column_type`]).
///
/// ```
/// # mod cake { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel)] #[sea_orm(table_name = "cake")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32 }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// use sea_orm::sea_query::ColumnType;
/// assert_eq!(viewset_core::query::column_type_of::<cake::Entity>("id"), Some(ColumnType::Integer));
/// assert_eq!(viewset_core::query::column_type_of::<cake::Entity>("name"), None);
/// ```
pub fn column_type_of<E: EntityTrait>(name: &str) -> Option<ColumnType> {
    super::columns::column::<E>(name).map(|c| sea_orm::ColumnTrait::def(&c).get_column_type().clone())
}

/// What a related path asks of the ViewSet serving the related table.
pub(crate) struct Ask<'a> {
    /// The related model's field the client named.
    pub field: &'a str,
    /// The database column the subquery selects when `filter` is given (the relation's `to` column).
    pub key: &'a str,
    /// The condition on `field` (a filter), or none (an ordering term: the subquery selects `field`).
    pub filter: Option<(FilterLookup, &'a str)>,
    /// The query parameter, for error locations.
    pub param: &'a str,
    /// The bounds of the original request.
    pub limits: super::QueryLimits,
}

/// `R`'s scoped query for `ask`, as the caller may run it: `None` when `R` does not admit the caller to `list`; a 422
/// `unknown_field` when the caller may not see the field.
pub(crate) fn scope<R: Hooks>(request: &RequestContext, ask: &Ask<'_>) -> Result<Option<SelectStatement>, ApiError> {
    let own = access::admit_related::<R>(request);
    let unknown = || ApiError::input(["query", ask.param], format!("Unknown field `{}`", ask.param), "unknown_field");
    let field = super::columns::column::<R::Entity>(ask.field).ok_or_else(unknown)?;
    // The value is checked first, for every caller: a bad value is a 422 whether or not anything could match.
    let condition = match ask.filter {
        Some((lookup, raw)) => {
            let backend = request.db.get_database_backend();
            Some(condition(field, lookup, raw, ask.param, backend, &ask.limits)?)
        }
        None => None,
    };
    let Some(own) = own else { return Ok(None) };
    if !own.may_query(ask.field) {
        return Err(unknown());
    }
    let select = access::scoped_query::<R>(&own, &Filters::new())?;
    Ok(Some(match condition {
        Some(condition) => {
            let key = column_named::<R::Entity>(ask.key);
            select.filter(condition).select_only().column(key.ok_or_else(|| composite(ask.param))?).into_query()
        }
        None => select.select_only().column(field).limit(1).into_query(),
    }))
}

fn composite(param: &str) -> ApiError {
    let msg = format!("`{param}` goes through a relation over a composite key, which is not supported");
    ApiError::input(["query", param], msg, "unsupported_relation")
}

/// The relation of `rf`, followed through the request's registered ViewSets.
fn hop(rf: &RelatedField, request: &RequestContext, param: &str) -> Result<Hop, ApiError> {
    Hop::of(&(rf.def)(), request.embedders.as_deref()).map_err(|error| match error {
        HopError::Unserved(table) => {
            let msg =
                format!("`{param}` is unavailable here: no ViewSet serving `{table}` is registered with this API");
            ApiError::input(["query", param], msg, "unsupported_relation")
        }
        HopError::Composite => composite(param),
    })
}

/// The column of `E` the relation starts from, when the caller may see it: a hidden foreign key hides the relation.
fn followed_from<E: EntityTrait>(hop: &Hop, request: &RequestContext) -> Option<E::Column> {
    column_named::<E>(&hop.from_col.to_string()).filter(|c| request.may_query(field_name::<E>(*c)))
}

/// The condition of the filter parameter `param` (`author__name__icontains`) on the related path `rf` of `E`: a 422
/// for a lookup we do not know, or a relation or field this caller may not see. Not admitted by the related ViewSet:
/// a condition that holds for no row.
pub(crate) fn filter<E: EntityTrait>(
    rf: &RelatedField,
    lookup: Option<FilterLookup>,
    raw: &str,
    param: &str,
    request: &RequestContext,
) -> Result<Expr, ApiError> {
    let hop = hop(rf, request, param)?;
    if followed_from::<E>(&hop, request).is_none() {
        return Err(ApiError::input(["query", param], format!("Unknown field `{}`", rf.path), "unknown_field"));
    }
    let Some(lookup) = lookup else {
        let suffix = param.strip_prefix(rf.path).unwrap_or(param).trim_start_matches('_');
        let msg = format!("unsupported lookup `{suffix}`");
        return Err(ApiError::input(["query", param], msg, "unsupported_lookup"));
    };
    let to_col = hop.to_col.to_string();
    let limits = *request.query.limits();
    let ask = Ask { field: rf.field, key: &to_col, filter: Some((lookup, raw)), param, limits };
    Ok(match (hop.target.scope)(request, &ask)? {
        Some(sub) => Expr::col((hop.from_table, hop.from_col)).in_subquery(sub),
        None => Expr::value(false),
    })
}

/// The ordering term of `rf` for `E` (the column it starts from and its sort key), when this caller may order by it:
/// not when the related ViewSet does not admit them or hides the field (the term is dropped like any term outside the
/// allowlist), nor through a to-many relation (which related row would decide?) or a relation of a table to itself
/// (the correlated subquery would name one table on both sides).
pub(crate) fn order<E: EntityTrait>(rf: &RelatedField, request: &RequestContext) -> Option<(E::Column, Expr)> {
    let hop =
        hop(rf, request, rf.path).ok().filter(|h| !h.many && h.from_table.to_string() != h.to_table.to_string())?;
    let column = followed_from::<E>(&hop, request)?;
    let to_col = hop.to_col.to_string();
    let limits = *request.query.limits();
    let ask = Ask { field: rf.field, key: &to_col, filter: None, param: rf.path, limits };
    let mut sub = (hop.target.scope)(request, &ask).ok()??;
    sub.and_where(Expr::col((hop.to_table, hop.to_col)).equals((hop.from_table, hop.from_col)));
    Some((column, Expr::from(sub)))
}
