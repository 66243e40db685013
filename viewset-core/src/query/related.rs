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
//!     &[RelatedField { path: "author__name", relation: "author", field: "name", def, via: || None, column_type: |_| None }];
//! let (found, lookup) = RelatedField::find(RELATED, "author__name__icontains").unwrap();
//! assert_eq!((found.field, lookup), ("name", Some(FilterLookup::IContains)));
//! assert!(RelatedField::find(RELATED, "author_id").is_none());
//! ```

use sea_orm::EntityTrait;
use sea_orm::sea_query::{ColumnType, Expr, ExprTrait};

use crate::error::ApiError;
use crate::request::RequestContext;
use crate::request::embedders::Ask;
use crate::request::registry::{Hop, HopError};
use crate::types::columns::{column_named, field_name};
use crate::types::lookups::FilterLookup;
use crate::types::options::RelatedField;

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
    crate::types::columns::column::<E>(name).map(|c| sea_orm::ColumnTrait::def(&c).get_column_type().clone())
}

pub(crate) fn composite(param: &str) -> ApiError {
    let msg = format!("`{param}` goes through a relation over a composite key, which is not supported");
    ApiError::input(["query", param], msg, "unsupported_relation")
}

/// The relation of `rf`, followed through the request's registered ViewSets.
fn hop(rf: &RelatedField, request: &RequestContext, param: &str) -> Result<Hop, ApiError> {
    Hop::of(&(rf.def)(), (rf.via)(), request.embedders.as_deref()).map_err(|error| match error {
        HopError::Unserved(table) => {
            let msg =
                format!("`{param}` is unavailable here: no ViewSet serving `{table}` is registered with this API");
            ApiError::input(["query", param], msg, "unsupported_relation")
        }
        HopError::Composite => composite(param),
    })
}

/// The field of `E` stored in database column `column`: what a relation's generic part hands to the plain
/// functions below (the rest is compiled once, not per entity).
fn field_of_column<E: EntityTrait>(column: &str) -> Option<&'static str> {
    column_named::<E>(column).map(field_name::<E>)
}

/// The column the relation starts from (of the entity `field_of` reads), when the caller may see its field: a
/// hidden foreign key hides the relation.
fn followed_from(hop: &Hop, request: &RequestContext, field_of: fn(&str) -> Option<&'static str>) -> Option<String> {
    let column = hop.from_col.to_string();
    field_of(&column).filter(|field| request.may_query(field)).map(|_| column)
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
    condition(rf, lookup, raw, param, request, field_of_column::<E>)
}

/// [`filter`] past its generic part (`field_of`: the entity's columns to its fields).
fn condition(
    rf: &RelatedField,
    lookup: Option<FilterLookup>,
    raw: &str,
    param: &str,
    request: &RequestContext,
    field_of: fn(&str) -> Option<&'static str>,
) -> Result<Expr, ApiError> {
    let hop = hop(rf, request, param)?;
    if followed_from(&hop, request, field_of).is_none() {
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
    Ok(match ((hop.target.scope)(request, &ask)?, hop.junction) {
        (Some(sub), None) => Expr::col((hop.from_table, hop.from_col)).in_subquery(sub),
        // Many-to-many: this model's key among the join table's rows naming a matching related record (a record
        // with two matching ones is matched once).
        (Some(sub), Some(junction)) => {
            let mut linked = sea_orm::sea_query::Query::select();
            linked
                .column((junction.table.clone(), junction.parent.clone()))
                .from(junction.table.clone())
                .and_where(Expr::col((junction.table, junction.child)).in_subquery(sub));
            Expr::col((hop.from_table, hop.from_col)).in_subquery(linked)
        }
        (None, _) => Expr::value(false),
    })
}

/// The ordering term of `rf` for `E` (the column it starts from and its sort key), when this caller may order by it:
/// not when the related ViewSet does not admit them or hides the field (the term is dropped like any term outside the
/// allowlist), nor through a to-many relation (which related row would decide?) or a relation of a table to itself
/// (the correlated subquery would name one table on both sides).
pub(crate) fn order<E: EntityTrait>(rf: &RelatedField, request: &RequestContext) -> Option<(E::Column, Expr)> {
    let (column, expr) = sort_key(rf, request, field_of_column::<E>)?;
    Some((column_named::<E>(&column)?, expr))
}

/// [`order`] past its generic part: the name of the column the term starts from, and its sort key.
fn sort_key(
    rf: &RelatedField,
    request: &RequestContext,
    field_of: fn(&str) -> Option<&'static str>,
) -> Option<(String, Expr)> {
    let hop =
        hop(rf, request, rf.path).ok().filter(|h| !h.many && h.from_table.to_string() != h.to_table.to_string())?;
    let column = followed_from(&hop, request, field_of)?;
    let to_col = hop.to_col.to_string();
    let limits = *request.query.limits();
    let ask = Ask { field: rf.field, key: &to_col, filter: None, param: rf.path, limits };
    let mut sub = (hop.target.scope)(request, &ask).ok()??;
    sub.and_where(Expr::col((hop.to_table, hop.to_col)).equals((hop.from_table, hop.from_col)));
    Some((column, Expr::from(sub)))
}
