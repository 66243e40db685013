//! The list query as it passes through `get_queryset`, the filter backends, the policy and the paginator.

use sea_orm::{EntityTrait, Select};

use crate::types::options::Direction;

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
    /// The column (for a computed term, the column it is computed from).
    pub column: E::Column,
    /// The direction.
    pub direction: Direction,
    /// A value computed in SQL to order by instead of the column: a related field (`author__name`).
    pub computed: Option<Computed>,
}

/// The computed sort key of an [`OrderTerm`]: its name in `?ordering=` and its SQL expression.
#[derive(Debug, Clone)]
pub struct Computed {
    /// `author__name`.
    pub name: &'static str,
    /// The expression sorted by (may be NULL).
    pub expr: sea_orm::sea_query::Expr,
    /// Whether a keyset (cursor) page may leave the term out: a search rank orders the same rows differently, but a
    /// client's related ordering may not be ignored (such a page is a 422).
    pub droppable: bool,
}

impl<E: EntityTrait> OrderTerm<E> {
    /// A term ordering by `column`.
    ///
    /// ```
    /// # mod cake { use sea_orm::entity::prelude::*;
    /// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel)] #[sea_orm(table_name = "cake")]
    /// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32 }
    /// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
    /// #   impl ActiveModelBehavior for ActiveModel {} }
    /// use viewset_core::query::OrderTerm;
    /// use viewset_core::viewset::Direction;
    /// let term = OrderTerm::<cake::Entity>::new(cake::Column::Id, Direction::Desc);
    /// assert_eq!(term.key(), "id");
    /// ```
    pub fn new(column: E::Column, direction: Direction) -> Self {
        OrderTerm { column, direction, computed: None }
    }

    /// What the term orders by: the computed term's name, or the column's database name.
    pub fn key(&self) -> &str {
        match &self.computed {
            Some(computed) => computed.name,
            None => sea_orm::IdenStatic::as_str(&self.column),
        }
    }
}

impl<E: EntityTrait> Clone for OrderTerm<E> {
    fn clone(&self) -> Self {
        OrderTerm { column: self.column, direction: self.direction, computed: self.computed.clone() }
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
