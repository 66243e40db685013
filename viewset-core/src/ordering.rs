//! `OrderingFilter` (`?ordering=-views,id`) and the default ordering with its primary-key tie-breaker.

use sea_orm::{EntityTrait, Iterable, Order, PrimaryKeyToColumn, QueryOrder};

use crate::columns::column;
use crate::{ApiError, Direction, FilterBackend, ListQuery, OrderingState, RequestContext, ViewSet};

/// Client ordering over `ordering_fields`: comma-separated terms, `-` for descending. Terms outside the
/// allowlist are dropped; if every term is dropped the query stays unordered by request (spec).
#[derive(Debug, Clone, Copy, Default)]
pub struct OrderingFilter;

impl FilterBackend for OrderingFilter {
    fn filter_queryset<V: ViewSet>(
        mut query: ListQuery<V::Entity>,
        request: &RequestContext,
    ) -> Result<ListQuery<V::Entity>, ApiError> {
        let Some(raw) = request.query.get("ordering") else { return Ok(query) };
        let terms: Vec<&str> = raw.split(',').map(str::trim).filter(|t| !t.is_empty()).collect();
        if terms.is_empty() {
            return Ok(query);
        }
        let mut applied = false;
        for term in terms {
            let (name, order) = match term.strip_prefix('-') {
                Some(name) => (name, Order::Desc),
                None => (term, Order::Asc),
            };
            if !V::CONFIG.ordering_fields.allows(name) {
                continue;
            }
            if let Some(col) = column::<V::Entity>(name) {
                query.select = query.select.order_by(col, order);
                applied = true;
            }
        }
        query.ordering = if applied { OrderingState::Applied } else { OrderingState::OnlyInvalid };
        Ok(query)
    }
}

/// Applies the ViewSet's default ordering when no client ordering was requested, then the primary key as the
/// final tie-breaker so pages are deterministic.
pub fn finish_ordering<V: ViewSet>(mut query: ListQuery<V::Entity>) -> ListQuery<V::Entity> {
    if query.ordering == OrderingState::NotRequested {
        for (name, direction) in V::CONFIG.ordering {
            if let Some(col) = column::<V::Entity>(name) {
                let order = match direction {
                    Direction::Asc => Order::Asc,
                    Direction::Desc => Order::Desc,
                };
                query.select = query.select.order_by(col, order);
            }
        }
    }
    for key in <V::Entity as EntityTrait>::PrimaryKey::iter() {
        query.select = query.select.order_by(key.into_column(), Order::Asc);
    }
    query
}
