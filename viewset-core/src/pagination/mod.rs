//! Paginators (`pagination_class`): which query parameters select a page, how the page is fetched and how it is
//! enveloped. Built in: [`LimitOffsetPagination`] (the default), [`PageNumberPagination`], [`CursorPagination`].

mod count;
pub(crate) mod csv;
mod csv_stream;
mod cursor;
mod cursor_token;
mod limit_offset;
mod page_body;
mod page_number;
mod page_sql;
mod picked;

use std::future::Future;

use sea_orm::{EntityTrait, QuerySelect, QueryTrait, Select};
use serde::Serialize;

use crate::access::fields::Items;
use crate::error::ApiError;
use crate::query::OrderTerm;
use crate::query::QueryParams;
use crate::query::ordering::apply_order;
use crate::request::RequestContext;
use crate::schema::ReadSchema;
use crate::viewset::{Config, ModelOf, ViewSet};

pub use count::{CountMode, Counted, EXACT_BELOW, fetch_with_count};
pub use csv::{CSV_CONTENT_TYPE, ListFormat, csv_of_page, write_csv_record};
pub use csv_stream::CSV_CHUNK_ROWS;
pub(crate) use csv_stream::{stream_csv, streams};
pub use cursor::CursorPagination;
pub use limit_offset::LimitOffsetPagination;
pub use page_body::PageBody;
pub(crate) use page_body::json_response;
pub use page_number::PageNumberPagination;

/// The default envelope: `{count, results, limit, offset}`.
#[derive(Debug, Clone, Serialize)]
pub struct Page<R> {
    /// Size of the filtered result set.
    pub count: u64,
    /// Records of the requested page.
    pub results: R,
    /// Page size used.
    pub limit: u64,
    /// Offset used.
    pub offset: u64,
}

/// The page a request asks for, as the spec's `list(request, limit, offset, filters)` arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Page size.
    pub limit: u64,
    /// Rows skipped (0 for cursor pagination).
    pub offset: u64,
}

/// A filtered, not yet ordered list query with its effective ordering and window.
#[derive(Debug)]
pub struct PageQuery<E: EntityTrait> {
    /// Conditions (filters, search, policy).
    pub select: Select<E>,
    /// Effective ordering, primary key last.
    pub order: Vec<OrderTerm<E>>,
    /// Page size.
    pub limit: u64,
    /// Offset.
    pub offset: u64,
}

/// A pagination class. Implement it for your own envelope; declare your query parameters and response fields so
/// the API documentation can show them (anything else you add to the body is documented as free-form).
///
/// ```
/// use viewset_core::{ApiError, Config, RequestContext, ViewSet};
/// use viewset_core::pagination::{PageBody, PageQuery, Paginator, Window};
/// use viewset_core::query::QueryParams;
/// /// Like limit/offset, but only `{"items": [...]}`.
/// struct ItemsOnly;
/// impl Paginator for ItemsOnly {
///     const PARAMETERS: &'static [&'static str] = &["limit", "offset"];
///     const RESPONSE_FIELDS: &'static [&'static str] = &["items"];
///     fn window(query: &QueryParams, config: &Config) -> Result<Window, ApiError> {
///         viewset_core::pagination::LimitOffsetPagination::window(query, config)
///     }
///     async fn paginate<V: ViewSet>(page: PageQuery<V::Entity>, request: &RequestContext) -> Result<PageBody, ApiError> {
///         let rows = viewset_core::pagination::fetch_rows::<V>(page, &request.db).await?;
///         PageBody::new(&serde_json::json!({ "items": viewset_core::pagination::list_items::<V>(rows, request).await? }))
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a pagination class",
    note = "pagination_class takes a type implementing `viewset_core::pagination::Paginator`: LimitOffsetPagination, PageNumberPagination or CursorPagination"
)]
pub trait Paginator: Send + Sync + 'static {
    /// Query parameters it reads.
    const PARAMETERS: &'static [&'static str];
    /// Fields of its response body.
    const RESPONSE_FIELDS: &'static [&'static str];
    /// The window the query string asks for; 422 naming the parameter when it is invalid.
    fn window(query: &QueryParams, config: &Config) -> Result<Window, ApiError>;
    /// Fetches the page and builds the response body.
    fn paginate<V: ViewSet>(
        page: PageQuery<V::Entity>,
        request: &RequestContext,
    ) -> impl Future<Output = Result<PageBody, ApiError>> + Send;
}

/// The ordered rows of a page window.
///
/// The statement is rendered when this is called, so the future holds it rather than the query it came from (a
/// `Select` is about 550 bytes, and an `async fn` keeps its arguments for as long as it runs). Likewise
/// [`fetch_counted`], [`fetch_with_count`] and the built-in paginators: a list's future was 7.9 KB, allocated for
/// every request in flight.
pub fn fetch_rows<'a, V: ViewSet>(
    page: PageQuery<V::Entity>,
    db: &'a sea_orm::DatabaseConnection,
) -> impl Future<Output = Result<Vec<ModelOf<V>>, ApiError>> + Send + 'a {
    let limit = page.limit;
    select_rows::<V>(ordered_window(page), limit, db)
}

/// `page`'s select with its ordering, offset and limit.
fn ordered_window<E: EntityTrait>(page: PageQuery<E>) -> Select<E> {
    apply_order(page.select, &page.order, false).offset(page.offset).limit(page.limit)
}

/// The rows of `select`, recorded as the `page` statement ([`crate::database::record_statements`]), read
/// through the driver connection ([`crate::database::query_all`]) and decoded by the ViewSet
/// ([`ViewSet::decode_rows`]: by position when the columns are the entity's own, in order). `limit` is the
/// statement's `LIMIT`: room for that many rows (at most 256) is reserved before they arrive.
pub(crate) fn select_rows<'a, V: ViewSet>(
    select: Select<V::Entity>,
    limit: u64,
    db: &'a sea_orm::DatabaseConnection,
) -> impl Future<Output = Result<Vec<ModelOf<V>>, ApiError>> + Send + 'a {
    statement_rows::<V>(select.build(db.get_database_backend()), limit, db)
}

/// The rows of a page `statement` (see [`select_rows`]).
async fn statement_rows<V: ViewSet>(
    statement: sea_orm::Statement,
    limit: u64,
    db: &sea_orm::DatabaseConnection,
) -> Result<Vec<ModelOf<V>>, ApiError> {
    let recording = crate::database::Recording::start("page", || statement.clone());
    let capacity = limit.min(256) as usize;
    let rows = crate::database::rows(db, statement, capacity).await.and_then(|rows| V::decode_rows(&rows));
    let rows = rows.map_err(crate::viewset::handlers::db_err::<V>);
    recording.finish();
    rows
}

/// The ordered rows of a page window and the size of the filtered set. The two queries run concurrently (each on
/// its own pool connection), so a list costs about one round trip. Measured on 20,000 rows: a single query with
/// `COUNT(*) OVER ()` has to read and buffer every matching row and took 7.2 ms for page 1, against 3.2 ms for a
/// count plus an index-ordered page even 10,000 rows deep. Both statements are rendered when this is called.
pub fn fetch_counted<'a, V: ViewSet>(
    page: PageQuery<V::Entity>,
    db: &'a sea_orm::DatabaseConnection,
) -> impl Future<Output = Result<(Vec<ModelOf<V>>, u64), ApiError>> + Send + 'a {
    CountedPage::of::<V>(page, db.get_database_backend()).rows_and_count::<V>(db)
}

/// The statements of a counted page: the page's own, and the filtered select it counts.
struct CountedPage {
    /// The rows of the window, ordered.
    page: sea_orm::Statement,
    /// The filtered select without ordering or window, which the count wraps.
    inner: sea_orm::Statement,
    /// The window's size.
    limit: u64,
}

impl CountedPage {
    /// Both statements of `page` for `backend`. The count wraps the select rendered before the page's ordering and
    /// window are added to it (cloning the statement cost more than rendering it). The default scope holds no
    /// ordering (its terms are kept apart until the page is built); a custom `get_queryset` may add one, which the
    /// count leaves out. Without custom hooks the select is the framework's own, so the page is `inner` with its
    /// ordering and window after it (`page_sql`): the conditions are rendered once for both statements.
    fn of<V: ViewSet>(page: PageQuery<V::Entity>, backend: sea_orm::DbBackend) -> Self {
        let limit = page.limit;
        if V::CONFIG.custom_hooks {
            let inner = unordered(page.select.clone(), backend);
            return CountedPage { page: ordered_window(page).build(backend), inner, limit };
        }
        let inner = page.select.build(backend);
        let page = page_sql::page_statement(std::any::TypeId::of::<V>(), page, &inner, backend);
        CountedPage { page, inner, limit }
    }

    /// The page's rows alone.
    fn rows<'a, V: ViewSet>(
        self,
        db: &'a sea_orm::DatabaseConnection,
    ) -> impl Future<Output = Result<Vec<ModelOf<V>>, ApiError>> + Send + 'a {
        statement_rows::<V>(self.page, self.limit, db)
    }

    /// The page's rows and the size of the filtered set, concurrently.
    fn rows_and_count<'a, V: ViewSet>(
        self,
        db: &'a sea_orm::DatabaseConnection,
    ) -> impl Future<Output = Result<(Vec<ModelOf<V>>, u64), ApiError>> + Send + 'a {
        futures_util::future::try_join(statement_rows::<V>(self.page, self.limit, db), count_of::<V>(self.inner, db))
    }
}

/// The size of the filtered result set (any ordering of `select` is left out).
pub async fn count_rows<V: ViewSet>(
    select: Select<V::Entity>,
    db: &sea_orm::DatabaseConnection,
) -> Result<u64, ApiError> {
    count_of::<V>(unordered(select, db.get_database_backend()), db).await
}

/// `select` rendered for `backend` without its ordering.
fn unordered<E: EntityTrait>(select: Select<E>, backend: sea_orm::DbBackend) -> sea_orm::Statement {
    let mut inner = select.into_query();
    inner.clear_order_by();
    backend.build(&inner)
}

/// The number of rows `inner` (a built select, its `ORDER BY` ignored by the database) returns: sea-orm's
/// `PaginatorTrait::count` statement, `SELECT COUNT(*) AS num_items FROM (<inner>) AS "sub_query"`, read through
/// the driver connection.
async fn count_of<V: ViewSet>(inner: sea_orm::Statement, db: &sea_orm::DatabaseConnection) -> Result<u64, ApiError> {
    let recording = crate::database::Recording::start("count", || inner.clone());
    let count = crate::database::query_one::<Count>(db, count_statement(inner)).await;
    recording.finish();
    Ok(count.map_err(crate::viewset::handlers::db_err::<V>)?.map_or(0, |c| c.0))
}

/// `SELECT COUNT(*) AS num_items FROM (<inner>) AS "sub_query"`, written as sea-query writes it (the unit test
/// compares both) around SQL already rendered: its values keep their places.
fn count_statement(inner: sea_orm::Statement) -> sea_orm::Statement {
    let alias = if inner.db_backend == sea_orm::DbBackend::MySql { "`sub_query`" } else { r#""sub_query""# };
    let sql = format!("SELECT COUNT(*) AS num_items FROM ({}) AS {alias}", inner.sql);
    sea_orm::Statement { sql, ..inner }
}

/// The row of a count statement.
struct Count(u64);

impl sea_orm::FromQueryResult for Count {
    fn from_query_result(row: &sea_orm::QueryResult, pre: &str) -> Result<Self, sea_orm::DbErr> {
        Ok(Count(row.try_get::<i64>(pre, "num_items")?.max(0) as u64))
    }
}

/// Rows as the list representation, without the fields hidden from this caller, with the relations `?expand=`
/// asks for embedded ([`crate::embed`]: one query per relation for the whole page).
pub async fn list_items<V: ViewSet>(
    rows: Vec<ModelOf<V>>,
    request: &RequestContext,
) -> Result<Items<V::ListItem>, ApiError> {
    let embedded = crate::embed::embed_rows::<V>(&rows, &request.expand, request).await?;
    let items = Items::new(rows.into_iter().map(V::ListItem::from_model).collect(), request.left_out());
    Ok(if request.expand.is_empty() { items } else { items.with_embedded(embedded) })
}

#[cfg(test)]
mod tests {
    use sea_orm::entity::prelude::*;
    use sea_orm::sea_query::{Expr, Query};
    use sea_orm::{DbBackend, QueryTrait};

    use crate::test_entity as item;

    #[test]
    fn the_count_around_rendered_sql_is_what_sea_query_writes() {
        for backend in [DbBackend::Postgres, DbBackend::Sqlite, DbBackend::MySql] {
            let select = item::Entity::find().filter(item::Column::Name.contains("a")).filter(item::Column::Id.gt(3));
            let mut wrapped = Query::select();
            wrapped.expr(Expr::cust("COUNT(*) AS num_items")).from_subquery(select.clone().into_query(), "sub_query");
            let ours = super::count_statement(select.build(backend));
            assert_eq!(ours, backend.build(&wrapped), "{backend:?}");
            assert_eq!(ours.values.as_ref().map(|v| v.0.len()), Some(2));
        }
    }
}
