//! A cursor page's statement: the keyset condition, the ordering and `LIMIT` after the default scope's select. When
//! nothing narrowed that select (no filter, search, row policy or sparse field list: it is still the entity's
//! [`prototype`](super::prototype)), the statement depends only on the ViewSet, the backend, the ordering and the
//! cursor's shape (its direction, which of its values are null), so its text is kept per shape once sea-query's own
//! rendering of it proved that the values the paginator lists are the ones sea-query binds, in their order. A page
//! written here is always the statement sea-query writes. Measurements: bench/notes/build-time-rounds.md, "Eighth
//! round".

use std::any::TypeId;
use std::mem::Discriminant;
use std::sync::Arc;

use sea_orm::{DbBackend, EntityTrait, QueryTrait, Select, Statement, Value, Values};

use crate::memo::Memo;
use crate::types::list_query::OrderTerm;

/// The text of each ViewSet's keyset page by backend, ordering ([`super::page::ordering_key`]) and cursor shape;
/// `None` where the paginator's values were not sea-query's (the page is then rendered every time).
static CACHE: Memo<Key, Option<Arc<str>>> = Memo::new();

/// The ViewSet, the backend, the ordering and the cursor's shape.
type Key = (TypeId, Discriminant<DbBackend>, u64, u16);

/// A cursor page of the ViewSet `of`, before it is rendered: `select` (the scoped, filtered select), its `order`, and
/// what the paginator knows of the statement the page becomes.
pub(crate) struct KeysetPage<'a, E: EntityTrait> {
    /// The select the keyset condition narrows.
    pub(crate) select: Select<E>,
    /// The page's ordering terms.
    pub(crate) order: &'a [OrderTerm<E>],
    /// The cursor's shape: its direction and which of its values are null (the same shape, the same text).
    pub(crate) shape: u16,
}

impl<E: EntityTrait> KeysetPage<'_, E> {
    /// The page's statement for `backend`: the kept text with the values `bound` lists (the keyset's, then the
    /// `LIMIT`'s, in the order the statement binds them) when `select` is the entity's prototype and this shape's
    /// text is known, else `page(select)` rendered by sea-query (and its text kept when its values are `bound`'s).
    /// `bound` is only called for a prototype select.
    pub(crate) fn statement(
        self,
        of: TypeId,
        backend: DbBackend,
        bound: impl FnOnce() -> Vec<Value>,
        page: impl FnOnce(Select<E>) -> Select<E>,
    ) -> Statement {
        let key = super::page::ordering_key(self.order)
            .filter(|_| super::prototype::is_prototype(&self.select, backend))
            .map(|ordering| (of, std::mem::discriminant(&backend), ordering, self.shape));
        let Some(key) = key else {
            return page(self.select).build(backend);
        };
        let known = CACHE.read().get(&key).cloned();
        match known {
            Some(Some(sql)) => Statement { sql: sql.to_string(), values: Some(Values(bound())), db_backend: backend },
            Some(None) => page(self.select).build(backend),
            None => {
                let full = page(self.select).build(backend);
                let agrees = full.values.as_ref().is_some_and(|values| values.0 == bound());
                CACHE.insert(key, agrees.then(|| Arc::from(full.sql.as_str())));
                full
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_entity::{Column, Entity};
    use crate::types::options::Direction;
    use sea_orm::{ColumnTrait, QueryFilter, QuerySelect};

    struct Marker<const N: usize>;

    fn order() -> Vec<OrderTerm<Entity>> {
        vec![OrderTerm { column: Column::Id, direction: Direction::Desc, computed: None }]
    }

    fn page(select: Select<Entity>) -> Select<Entity> {
        select.filter(Column::Id.lt(40)).limit(21)
    }

    fn keyset(select: Select<Entity>, order: &[OrderTerm<Entity>]) -> KeysetPage<'_, Entity> {
        KeysetPage { select, order, shape: 1 }
    }

    #[test]
    fn a_kept_text_is_what_sea_query_writes_and_only_for_the_prototype() {
        let of = TypeId::of::<Marker<1>>();
        for backend in [DbBackend::Postgres, DbBackend::Sqlite, DbBackend::MySql] {
            let order = order();
            let bound = || vec![Value::Int(Some(40)), Value::BigUnsigned(Some(21))];
            let expected = page(Entity::find()).build(backend);
            for _ in 0..2 {
                let base = crate::store::prototype::<Entity>(backend);
                assert_eq!(keyset(base, &order).statement(of, backend, bound, page), expected, "{backend:?}");
            }
            let key = (of, std::mem::discriminant(&backend), super::super::page::ordering_key(&order).unwrap(), 1);
            assert!(CACHE.read().get(&key).is_some_and(Option::is_some), "{backend:?}: kept");
            // A filtered select is never written from the kept text.
            let filtered = crate::store::prototype::<Entity>(backend).filter(Column::Name.contains("a"));
            let ours = keyset(filtered.clone(), &order).statement(of, backend, bound, page);
            assert_eq!(ours, page(filtered).build(backend), "{backend:?}");
        }
    }

    #[test]
    fn values_that_are_not_sea_querys_keep_nothing() {
        let of = TypeId::of::<Marker<2>>();
        let backend = DbBackend::Postgres;
        let order = order();
        for _ in 0..2 {
            let base = crate::store::prototype::<Entity>(backend);
            let wrong = || vec![Value::Int(Some(41)), Value::BigUnsigned(Some(21))];
            assert_eq!(keyset(base, &order).statement(of, backend, wrong, page), page(Entity::find()).build(backend));
        }
        let key = (of, std::mem::discriminant(&backend), super::super::page::ordering_key(&order).unwrap(), 1);
        assert!(CACHE.read().get(&key).is_some_and(Option::is_none));
    }
}
