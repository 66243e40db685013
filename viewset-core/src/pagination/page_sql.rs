//! The page statement of a counted list, written from the count's: a counted list renders its filtered select once
//! for the count, and the page is that same SQL with `ORDER BY …`, `LIMIT` and `OFFSET` after it. Rendering the
//! select a second time through sea-query (its conditions, its search over every field) was a twentieth of a list's
//! instructions. The text after the select depends only on the ordering (columns and directions), the backend and
//! the number of values before it, so the `ORDER BY` text is kept per ViewSet, backend and ordering, taken from
//! the first page sea-query renders in full, and only when that page is exactly the select followed by the text
//! this module writes: a page written here is always the statement sea-query writes.

use std::any::TypeId;
use std::mem::Discriminant;
use std::sync::Arc;

use sea_orm::{DbBackend, EntityTrait, IdenStatic, Iterable, QuerySelect, QueryTrait, Statement, Value, Values};

use super::PageQuery;
use crate::database::memo::Memo;
use crate::query::OrderTerm;
use crate::query::ordering::apply_order;
use crate::viewset::Direction;

/// The `ORDER BY` text of each ViewSet, backend and ordering; `None` where sea-query's page was not the select and
/// a tail (a computed ordering that binds values, say), which is then rendered in full every time.
static CACHE: Memo<(TypeId, Discriminant<DbBackend>, u64), Option<Arc<str>>> = Memo::new();

/// The statement of `page` for `backend` (of the ViewSet `of`), given `inner`, its select rendered without
/// ordering or window: `inner`'s SQL and values followed by the ordering and the window, or sea-query's rendering
/// of the whole page where that text is not known.
pub(super) fn page_statement<E: EntityTrait>(
    of: TypeId,
    page: PageQuery<E>,
    inner: &Statement,
    backend: DbBackend,
) -> Statement {
    let Some(key) = ordering_key(&page.order).map(|k| (of, std::mem::discriminant(&backend), k)) else {
        return rendered(page, backend);
    };
    let before = inner.values.as_ref().map_or(0, |v| v.0.len());
    if let Some(found) = CACHE.read().get(&key) {
        let Some(order) = found else { return rendered(page, backend) };
        let mut sql = String::with_capacity(inner.sql.len() + order.len() + 32);
        sql.push_str(&inner.sql);
        sql.push_str(order);
        push_window(&mut sql, backend, before);
        let mut values = Vec::with_capacity(before + 2);
        values.extend(inner.values.iter().flat_map(|v| v.0.iter().cloned()));
        values.extend(window_values(&page));
        return Statement { sql, values: Some(Values(values)), db_backend: backend };
    }
    let expected = window_values(&page);
    let mut window = String::new();
    push_window(&mut window, backend, before);
    let full = rendered(page, backend);
    let order = full
        .sql
        .strip_prefix(inner.sql.as_str())
        .and_then(|rest| rest.strip_suffix(window.as_str()))
        .filter(|_| {
            let (full, inner) = (full.values.as_ref().map(|v| &v.0[..]), inner.values.as_ref().map(|v| &v.0[..]));
            let (full, inner) = (full.unwrap_or_default(), inner.unwrap_or_default());
            full.len() == before + 2 && full.starts_with(inner) && full[before..] == expected
        })
        .map(Arc::from);
    CACHE.insert(key, order);
    full
}

/// The page rendered through sea-query: the select ordered, then its offset and limit.
fn rendered<E: EntityTrait>(page: PageQuery<E>, backend: DbBackend) -> Statement {
    apply_order(page.select, &page.order, false).offset(page.offset).limit(page.limit).build(backend)
}

/// The values of the window, as sea-query binds them (`LIMIT`, then `OFFSET`).
fn window_values<E: EntityTrait>(page: &PageQuery<E>) -> [Value; 2] {
    [Value::BigUnsigned(Some(page.limit)), Value::BigUnsigned(Some(page.offset))]
}

/// ` LIMIT <placeholder> OFFSET <placeholder>` after `before` values, written at the end of `sql`.
fn push_window(sql: &mut String, backend: DbBackend, before: usize) {
    use std::fmt::Write;
    match backend {
        DbBackend::Postgres => write!(sql, " LIMIT ${} OFFSET ${}", before + 1, before + 2).expect("a String takes it"),
        _ => sql.push_str(" LIMIT ? OFFSET ?"),
    }
}

/// The ordering as a number: each term's column position and direction (`None` past 8 terms or 63 columns, or
/// with a computed term, whose expression is not a column's).
fn ordering_key<E: EntityTrait>(order: &[OrderTerm<E>]) -> Option<u64> {
    if order.len() > 8 {
        return None;
    }
    let mut key = order.len() as u64;
    for (i, term) in order.iter().enumerate() {
        if term.computed.is_some() {
            return None;
        }
        let column = E::Column::iter().position(|c| c.as_str() == term.column.as_str()).filter(|&p| p < 63)?;
        let bits = ((column as u64) << 1) | u64::from(term.direction == Direction::Desc);
        key |= bits << (4 + 7 * i);
    }
    Some(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_entity::{Column, Entity};
    use sea_orm::{ColumnTrait, QueryFilter};

    fn page(search: &str, order: Vec<OrderTerm<Entity>>) -> PageQuery<Entity> {
        let select = Entity::find().filter(Column::Name.contains(search)).filter(Column::Id.gt(3));
        PageQuery { select, order, limit: 20, offset: 40 }
    }

    fn term(column: Column, direction: Direction) -> OrderTerm<Entity> {
        OrderTerm { column, direction, computed: None }
    }

    /// A unique type per test, so the cache entries of the tests do not meet.
    struct Marker<const N: usize>;

    #[test]
    fn pages_written_here_are_the_pages_sea_query_writes() {
        for backend in [DbBackend::Postgres, DbBackend::Sqlite, DbBackend::MySql] {
            let order = || vec![term(Column::Name, Direction::Desc), term(Column::Id, Direction::Asc)];
            let of = TypeId::of::<Marker<1>>();
            for search in ["a", "b%", "longer"] {
                let inner = page(search, order()).select.build(backend);
                let ours = page_statement(of, page(search, order()), &inner, backend);
                assert_eq!(ours, rendered(page(search, order()), backend), "{backend:?} {search}");
            }
            let key = (of, std::mem::discriminant(&backend), ordering_key(&order()).unwrap());
            assert!(CACHE.read().get(&key).is_some_and(Option::is_some), "{backend:?}: cached");
        }
    }

    #[test]
    fn orderings_do_not_share_a_text() {
        let of = TypeId::of::<Marker<2>>();
        let backend = DbBackend::Postgres;
        for order in [vec![term(Column::Id, Direction::Asc)], vec![term(Column::Id, Direction::Desc)]] {
            for _ in 0..2 {
                let inner = page("x", order.clone()).select.build(backend);
                let ours = page_statement(of, page("x", order.clone()), &inner, backend);
                assert_eq!(ours, rendered(page("x", order.clone()), backend));
            }
        }
        let one = ordering_key(&[term(Column::Id, Direction::Asc), term(Column::Name, Direction::Asc)]);
        let other = ordering_key(&[term(Column::Name, Direction::Asc), term(Column::Id, Direction::Asc)]);
        assert_ne!(one, other);
    }
}
