//! The list query as it passes through `get_queryset`, the filter backends and the policy.

use sea_orm::{EntityTrait, Select};

/// Whether a client's `ordering` parameter was applied; decides whether the default ordering applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OrderingState {
    /// No ordering was requested (or no ordering backend): the ViewSet's `ordering` applies.
    #[default]
    NotRequested,
    /// At least one requested term was allowed and applied.
    Applied,
    /// Ordering was requested but every term was rejected: the query stays as it is (spec), apart from the
    /// primary-key tie-breaker.
    OnlyInvalid,
}

/// A list query under construction.
///
/// ```
/// # mod cake { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel)] #[sea_orm(table_name = "cake")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32 }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// use sea_orm::EntityTrait;
/// let q = viewset_core::ListQuery::new(cake::Entity::find());
/// assert_eq!(q.ordering, viewset_core::OrderingState::NotRequested);
/// ```
#[derive(Debug, Clone)]
pub struct ListQuery<E: EntityTrait> {
    /// The select being built.
    pub select: Select<E>,
    /// What happened to client ordering so far.
    pub ordering: OrderingState,
}

impl<E: EntityTrait> ListQuery<E> {
    /// Wraps a select with no ordering requested yet.
    pub fn new(select: Select<E>) -> Self {
        ListQuery { select, ordering: OrderingState::NotRequested }
    }
}
