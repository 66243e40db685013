//! `OrderingFilter` (`?ordering=-views,id`) and the final ordering: the default when none was requested, then the
//! primary key as tie-breaker.

use sea_orm::sea_query::NullOrdering;
use sea_orm::{ColumnTrait, EntityTrait, Iterable, Order, PrimaryKeyToColumn, QueryOrder, Select};

use crate::contract::viewset::ViewSet;
use crate::error::ApiError;
use crate::query::filter::FilterBackend;
use crate::request::RequestContext;
use crate::types::columns::column;
use crate::types::list_query::{Computed, OrderTerm};
use crate::types::list_query::{ListQuery, OrderingState};
use crate::types::options::Direction;

/// Client ordering over `ordering_fields`: comma-separated terms, `-` for descending. Terms outside the
/// allowlist are dropped; if every term is dropped no requested or default ordering applies (spec). Without an
/// allowlist (no `ordering_fields`) the parameter is ignored and the default ordering applies (spec). A repeated
/// column keeps its first term; more than `max_ordering_terms` terms ([`QueryLimits`](super::QueryLimits)) are a 422.
#[derive(Debug, Clone, Copy, Default)]
pub struct OrderingFilter;

impl FilterBackend for OrderingFilter {
    fn filter_queryset<V: ViewSet>(
        mut query: ListQuery<V::Entity>,
        request: &RequestContext,
    ) -> Result<ListQuery<V::Entity>, ApiError> {
        let Some(raw) = request.query.one("ordering")? else { return Ok(query) };
        if !V::CONFIG.ordering_fields.exists() {
            return Ok(query);
        }
        let terms = ordering_terms(raw);
        request.query.limits().check_ordering_terms(terms.len())?;
        if terms.is_empty() {
            return Ok(query);
        }
        let mut applied = false;
        for term in terms {
            let (name, direction) = match term.strip_prefix('-') {
                Some(name) => (name, Direction::Desc),
                None => (term, Direction::Asc),
            };
            if !V::CONFIG.ordering_fields.allows(name) {
                continue;
            }
            if let Some(term) = order_term::<V>(name, direction, request) {
                // A key already ordered by decides nothing more: the first term for it wins.
                if !ordered_by(&query.order, term.key()) {
                    query.order.push(term);
                }
                applied = true;
            }
        }
        query.ordering = if applied { OrderingState::Applied } else { OrderingState::OnlyInvalid };
        Ok(query)
    }
}

/// Whether `terms` order by `key` already. A loop: an adapter over a closure is compiled again per ViewSet.
fn ordered_by<E: EntityTrait>(terms: &[OrderTerm<E>], key: &str) -> bool {
    for term in terms {
        if term.key() == key {
            return true;
        }
    }
    false
}

/// The terms of `?ordering=`, trimmed, empty ones left out.
fn ordering_terms(raw: &str) -> Vec<&str> {
    raw.split(',').map(str::trim).filter(|term| !term.is_empty()).collect()
}

/// The effective ordering: requested terms, or the ViewSet's default when none was requested, then the primary key
/// (unless already present), so every page is deterministic.
pub fn effective_order<V: ViewSet>(
    query: &ListQuery<V::Entity>,
    request: &RequestContext,
) -> Vec<OrderTerm<V::Entity>> {
    // Loops, not adapters over closures: this is compiled for every ViewSet.
    let mut terms = query.order.clone();
    if query.ordering == OrderingState::NotRequested {
        for (name, direction) in V::CONFIG.ordering {
            if let Some(term) = order_term::<V>(name, *direction, request) {
                terms.push(term);
            }
        }
    }
    for key in <V::Entity as EntityTrait>::PrimaryKey::iter() {
        let column = key.into_column();
        if !ordered_by(&terms, sea_orm::IdenStatic::as_str(&column)) {
            terms.push(OrderTerm::new(column, Direction::Asc));
        }
    }
    terms
}

/// The term ordering by the field or related path `name`, when this caller may order by it.
fn order_term<V: ViewSet>(name: &str, direction: Direction, request: &RequestContext) -> Option<OrderTerm<V::Entity>> {
    if let Some(rf) = V::CONFIG.related_fields.iter().find(|rf| rf.path == name) {
        let (column, expr) = crate::query::related::order::<V::Entity>(rf, request)?;
        return Some(OrderTerm {
            column,
            direction,
            computed: Some(Computed { name: rf.path, expr, droppable: false }),
        });
    }
    column::<V::Entity>(name).filter(|_| request.may_query(name)).map(|column| OrderTerm::new(column, direction))
}

/// Applies `terms` to `select`; `reversed` flips every direction (keyset pages walked backwards).
///
/// NULL placement is spelled out only for nullable columns: on a NOT NULL column it changes nothing, and
/// PostgreSQL cannot walk a plain index for `ORDER BY id DESC NULLS LAST` (it would sort the whole table).
pub fn apply_order<E: EntityTrait>(mut select: Select<E>, terms: &[OrderTerm<E>], reversed: bool) -> Select<E> {
    for term in terms {
        let direction = if reversed { term.direction.reversed() } else { term.direction };
        let (order, nulls) = match direction {
            Direction::Asc => (Order::Asc, NullOrdering::First),
            Direction::Desc => (Order::Desc, NullOrdering::Last),
        };
        select = if let Some(computed) = &term.computed {
            select.order_by_with_nulls(computed.expr.clone(), order, nulls)
        } else if term.column.def().is_null() {
            select.order_by_with_nulls(term.column, order, nulls)
        } else {
            select.order_by(term.column, order)
        };
    }
    select
}
