//! A list's statements: the page's rows and the count of the filtered set. A counted list renders its filtered
//! select once for the count, and the page is that same SQL with `ORDER BY …`, `LIMIT` and `OFFSET` after it; the
//! `ORDER BY` text is kept per ViewSet, backend and ordering once sea-query's own rendering of a page proved it
//! (a page written here is always the statement sea-query writes). Measurements: BENCHMARKS.md, "Instructions per
//! request".

use std::any::TypeId;
use std::mem::Discriminant;
use std::sync::Arc;

use sea_orm::sea_query::Expr;
use sea_orm::{
    DbBackend, EntityTrait, IdenStatic, Iterable, QuerySelect, QueryTrait, Select, Statement, Value, Values,
};

use super::replica::{read_row, read_rows};
use super::write::table;
use crate::contract::paginator::PageQuery;
use crate::contract::viewset::{ModelOf, ViewSet};
use crate::error::{ApiError, db_err};
use crate::memo::Memo;
use crate::query::ordering::apply_order;
use crate::request::Reader;
use crate::schema::rows::WINDOW_COUNT;
use crate::types::list_query::OrderTerm;
use crate::types::options::Direction;

impl<E: EntityTrait> PageQuery<E> {
    /// The select with its ordering, offset and limit.
    pub(crate) fn ordered_window(self) -> Select<E> {
        apply_order(self.select, &self.order, false).offset(self.offset).limit(self.limit)
    }
}

/// The statements of a counted page: the page's own, and the filtered select it counts.
pub(crate) struct CountedPage {
    /// The rows of the window, ordered.
    page: Statement,
    /// The filtered select without ordering or window, which the count wraps.
    pub(crate) inner: Statement,
    /// The window's size.
    limit: u64,
    /// The window's offset.
    offset: u64,
    /// The page's statement also counts the filtered set (`COUNT(*) OVER ()`, [`CountedPage::windowed`]).
    windowed: bool,
}

impl CountedPage {
    /// Both statements of `page` for `backend`. The count wraps the select rendered before the page's ordering and
    /// window are added to it (cloning the statement cost more than rendering it). The default scope holds no
    /// ordering (its terms are kept apart until the page is built); a custom `get_queryset` may add one, which the
    /// count leaves out. In the default scope ([`super::Plan::default_scope`]) the page is `inner` with its ordering
    /// and window after it: the conditions are rendered once for both statements.
    pub(crate) fn of<V: ViewSet>(page: PageQuery<V::Entity>, backend: DbBackend) -> Self {
        let (limit, offset) = (page.limit, page.offset);
        if !super::Plan::of::<V>(backend).default_scope {
            let inner = unordered(page.select.clone(), backend);
            return CountedPage { page: page.ordered_window().build(backend), inner, limit, offset, windowed: false };
        }
        let inner = page.select.build(backend);
        let page = page_statement(TypeId::of::<V>(), page, &inner, backend);
        CountedPage { page, inner, limit, offset, windowed: false }
    }

    /// Both statements of `page`, the page's own also counting the filtered set: `COUNT(*) OVER ()` as its last
    /// column ([`WINDOW_COUNT`]), computed before the window's `LIMIT`, so any row of the page carries the count.
    /// For a select whose conditions make the database read every match anyway (a search); the plan says where
    /// ([`super::Plan::window_count`]). The count's own statement is kept for a page past the end.
    pub(crate) fn windowed<E: EntityTrait>(mut page: PageQuery<E>, backend: DbBackend) -> Self {
        let (limit, offset) = (page.limit, page.offset);
        let inner = page.select.build(backend);
        page.select = page.select.expr_as(Expr::cust("COUNT(*) OVER ()"), WINDOW_COUNT);
        CountedPage { page: rendered(page, backend), inner, limit, offset, windowed: true }
    }

    /// The page's rows, undecoded, and when `counts` the size of the filtered set: concurrently (each on its own
    /// pool connection), or from the one statement of a [`CountedPage::windowed`] page. One future for every
    /// ViewSet, its errors read for `table`; the caller decodes the rows ([`ViewSet::decode_rows`]).
    pub(crate) async fn read(
        self,
        reader: Reader<'_>,
        counts: bool,
        table: &'static str,
    ) -> Result<(Vec<sea_orm::QueryResult>, Option<u64>), ApiError> {
        if self.windowed && counts {
            return counted_raw_rows(self, reader, table).await.map(|(rows, count)| (rows, Some(count)));
        }
        let rows = raw_page_rows(self.page, self.limit, reader, table);
        if !counts {
            return Ok((rows.await?, None));
        }
        let (rows, count) = futures_util::future::try_join(rows, count_of(self.inner, reader, table)).await?;
        Ok((rows, Some(count)))
    }

    /// The page's rows and the size of the filtered set, decoded by `V` ([`CountedPage::read`]).
    pub(crate) async fn rows_and_count<V: ViewSet>(
        self,
        reader: Reader<'_>,
    ) -> Result<(Vec<ModelOf<V>>, u64), ApiError> {
        let table = table::<V>();
        let (rows, count) = self.read(reader, true, table).await?;
        Ok((V::decode_rows(&rows).map_err(|err| ApiError::from_db(err, table))?, count.unwrap_or(0)))
    }
}

/// The rows and count of a [`CountedPage::windowed`] page, its errors read for `table`: the count from its first
/// row; an empty page at offset 0 counts 0, and one past the end asks the count's own statement.
async fn counted_raw_rows(
    page: CountedPage,
    reader: Reader<'_>,
    table: &'static str,
) -> Result<(Vec<sea_orm::QueryResult>, u64), ApiError> {
    let rows = raw_page_rows(page.page, page.limit, reader, table).await?;
    let count = match rows.first() {
        Some(row) => row.try_get::<i64>("", WINDOW_COUNT).map_err(|err| ApiError::from_db(err, table))?.max(0) as u64,
        None if page.offset == 0 => 0,
        None => count_of(page.inner, reader, table).await?,
    };
    Ok((rows, count))
}

/// The rows of a page `statement` (role `page`), undecoded, its errors read for `table`. `limit` is the
/// statement's `LIMIT`: room for that many rows (at most 256) is reserved before they arrive. Read through `reader`.
async fn raw_page_rows(
    statement: Statement,
    limit: u64,
    reader: Reader<'_>,
    table: &'static str,
) -> Result<Vec<sea_orm::QueryResult>, ApiError> {
    let capacity = limit.min(256) as usize;
    read_rows(reader, statement, capacity, "page").await.map_err(|err| ApiError::from_db(err, table))
}

/// The rows of a page `statement` ([`raw_page_rows`]), decoded by the ViewSet ([`ViewSet::decode_rows`]: by
/// position when the columns are the entity's own, in order).
pub(crate) async fn page_rows<V: ViewSet>(
    statement: Statement,
    limit: u64,
    reader: Reader<'_>,
) -> Result<Vec<ModelOf<V>>, ApiError> {
    let rows = raw_page_rows(statement, limit, reader, table::<V>()).await?;
    V::decode_rows(&rows).map_err(db_err::<V::Entity>)
}

/// The rows of `select`, an ordered window whose `LIMIT` is `limit`, as a page ([`page_rows`]). The statement is
/// rendered when this is called, so the future holds it rather than the `Select` (about 550 bytes).
pub(crate) fn select_page<'a, V: ViewSet>(
    select: Select<V::Entity>,
    limit: u64,
    reader: Reader<'a>,
) -> impl Future<Output = Result<Vec<ModelOf<V>>, ApiError>> + Send + 'a {
    page_rows::<V>(select.build(reader.backend()), limit, reader)
}

/// The size of the filtered result set of `select` (any ordering of it is left out), read on `db` (a connection,
/// or a request's [`Reader`](crate::RequestContext::reader)).
///
/// ```
/// # mod post { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
/// #   #[sea_orm(table_name = "posts")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub title: String }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
/// use viewset_core::prelude::*;
///
/// #[derive(ModelViewSet)]
/// #[viewset(model = post::Entity)]
/// pub struct Posts;
///
/// # async fn run() -> Result<(), ApiError> {
/// let db = viewset_core::connect("sqlite::memory:").await?;
/// db.execute_unprepared("CREATE TABLE posts (id INTEGER PRIMARY KEY, title TEXT); INSERT INTO posts (title) VALUES ('a'), ('b')").await?;
/// let select = post::Entity::find().filter(post::Column::Title.eq("b"));
/// assert_eq!(viewset_core::store::count_rows::<Posts>(select, &db).await?, 1);
/// # Ok(()) }
/// ```
pub async fn count_rows<'a, V: ViewSet>(select: Select<V::Entity>, db: impl Into<Reader<'a>>) -> Result<u64, ApiError> {
    let reader = db.into();
    count_of(unordered(select, reader.backend()), reader, table::<V>()).await
}

/// `select` rendered for `backend` without its ordering.
fn unordered<E: EntityTrait>(select: Select<E>, backend: DbBackend) -> Statement {
    let mut inner = select.into_query();
    inner.clear_order_by();
    backend.build(&inner)
}

/// The number of rows `inner` (a built select, its `ORDER BY` ignored by the database) returns: sea-orm's
/// `PaginatorTrait::count` statement (role `count`).
async fn count_of(inner: Statement, reader: Reader<'_>, table: &'static str) -> Result<u64, ApiError> {
    let refused = |err| ApiError::from_db(err, table);
    let count = read_row(reader.into(), count_statement(inner), "count").await.map_err(refused)?;
    let count = count.map(|row| row.try_get::<i64>("", "num_items")).transpose().map_err(refused)?;
    Ok(count.map_or(0, |n| n.max(0) as u64))
}

/// `SELECT COUNT(*) AS num_items FROM (<inner>) AS "sub_query"`, written as sea-query writes it (the unit test
/// compares both) around SQL already rendered: its values keep their places.
fn count_statement(inner: Statement) -> Statement {
    let alias = if inner.db_backend == DbBackend::MySql { "`sub_query`" } else { r#""sub_query""# };
    let sql = format!("SELECT COUNT(*) AS num_items FROM ({}) AS {alias}", inner.sql);
    Statement { sql, ..inner }
}

/// The `ORDER BY` text of each ViewSet, backend and ordering; `None` where sea-query's page was not the select and
/// a tail (a computed ordering that binds values, say), which is then rendered in full every time.
static CACHE: Memo<(TypeId, Discriminant<DbBackend>, u64), Option<Arc<str>>> = Memo::new();

/// The statement of `page` for `backend` (of the ViewSet `of`), given `inner`, its select rendered without
/// ordering or window: `inner`'s SQL and values followed by the ordering and the window, or sea-query's rendering
/// of the whole page where that text is not known.
fn page_statement<E: EntityTrait>(of: TypeId, page: PageQuery<E>, inner: &Statement, backend: DbBackend) -> Statement {
    let Some(key) = ordering_key(&page.order).map(|k| (of, std::mem::discriminant(&backend), k)) else {
        return rendered(page, backend);
    };
    // The statement is written under the read lock, which is released before `learn` takes the write lock.
    let cached = match CACHE.read().get(&key) {
        Some(Some(order)) => Some(Some(from_cached(inner, order, window_values(&page), backend))),
        Some(None) => Some(None),
        None => None,
    };
    match cached {
        Some(Some(statement)) => statement,
        Some(None) => rendered(page, backend),
        None => {
            let window = window_values(&page);
            let full = rendered(page, backend);
            learn(key, inner, &full, window, backend);
            full
        }
    }
}

/// `inner`, then the cached `order` text, then the window: the page's statement without sea-query.
fn from_cached(inner: &Statement, order: &str, window: [Value; 2], backend: DbBackend) -> Statement {
    let before = inner.values.as_ref().map_or(0, |v| v.0.len());
    let mut sql = String::with_capacity(inner.sql.len() + order.len() + 32);
    sql.push_str(&inner.sql);
    sql.push_str(order);
    push_window(&mut sql, backend, before);
    let mut values = Vec::with_capacity(before + 2);
    if let Some(inner) = &inner.values {
        values.extend_from_slice(&inner.0);
    }
    values.extend(window);
    Statement { sql, values: Some(Values(values)), db_backend: backend }
}

/// Caches under `key` the ordering text of `full` (the page sea-query rendered), found between `inner` and the
/// window when the values agree; else that this ordering is rendered in full every time.
fn learn(
    key: (TypeId, Discriminant<DbBackend>, u64),
    inner: &Statement,
    full: &Statement,
    expected: [Value; 2],
    backend: DbBackend,
) {
    let before = inner.values.as_ref().map_or(0, |v| v.0.len());
    let mut window = String::new();
    push_window(&mut window, backend, before);
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
}

/// The page rendered through sea-query: the select ordered, then its offset and limit.
fn rendered<E: EntityTrait>(page: PageQuery<E>, backend: DbBackend) -> Statement {
    page.ordered_window().build(backend)
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
pub(super) fn ordering_key<E: EntityTrait>(order: &[OrderTerm<E>]) -> Option<u64> {
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
    use sea_orm::sea_query::{Expr, Query};
    use sea_orm::{ColumnTrait, QueryFilter};

    #[test]
    fn the_count_around_rendered_sql_is_what_sea_query_writes() {
        for backend in [DbBackend::Postgres, DbBackend::Sqlite, DbBackend::MySql] {
            let select = Entity::find().filter(Column::Name.contains("a")).filter(Column::Id.gt(3));
            let mut wrapped = Query::select();
            wrapped.expr(Expr::cust("COUNT(*) AS num_items")).from_subquery(select.clone().into_query(), "sub_query");
            let ours = count_statement(select.build(backend));
            assert_eq!(ours, backend.build(&wrapped), "{backend:?}");
            assert_eq!(ours.values.as_ref().map(|v| v.0.len()), Some(2));
        }
    }

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
