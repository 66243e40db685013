//! The list query as it passes through `get_queryset`, the filter backends, the policy and the paginator.

use sea_orm::{EntityTrait, Select};

use crate::viewset::Direction;

/// Whether a client's `ordering` parameter was applied; decides whether the default ordering applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OrderingState {
    /// No ordering was requested (or no ordering backend): the ViewSet's `ordering` applies.
    #[default]
    NotRequested,
    /// At least one requested term was allowed.
    Applied,
    /// Ordering was requested but every term was rejected: no requested or default ordering applies (spec); the
    /// primary-key tie-breaker still does.
    OnlyInvalid,
}

/// One ordering term: a column and a direction. NULLs sort first ascending and last descending on every database.
#[derive(Debug)]
pub struct OrderTerm<E: EntityTrait> {
    /// The column.
    pub column: E::Column,
    /// The direction.
    pub direction: Direction,
}

impl<E: EntityTrait> Clone for OrderTerm<E> {
    fn clone(&self) -> Self {
        OrderTerm { column: self.column, direction: self.direction }
    }
}

/// A list query under construction: conditions go into `select`, ordering terms into `order` (the paginator
/// applies them, since keyset pagination needs them as data).
///
/// ```
/// # mod cake { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel)] #[sea_orm(table_name = "cake")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32 }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// use sea_orm::EntityTrait;
/// let q = viewset_core::query::ListQuery::new(cake::Entity::find());
/// assert_eq!(q.ordering, viewset_core::query::OrderingState::NotRequested);
/// ```
#[derive(Debug, Clone)]
pub struct ListQuery<E: EntityTrait> {
    /// The select being built (conditions only).
    pub select: Select<E>,
    /// What happened to client ordering so far.
    pub ordering: OrderingState,
    /// Ordering terms requested so far.
    pub order: Vec<OrderTerm<E>>,
}

impl<E: EntityTrait> ListQuery<E> {
    /// Wraps a select with no ordering requested yet.
    pub fn new(select: Select<E>) -> Self {
        ListQuery { select, ordering: OrderingState::NotRequested, order: Vec::new() }
    }
}
