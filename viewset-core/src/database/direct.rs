//! The generated reads sent to sqlx directly, on the pool sea-orm opened: the statement is built by sea-query as
//! before and the rows come back as sea-orm `QueryResult`s, but sea-orm's driver call around the query is left out.
//!
//! That call (`SqlxPostgresPoolConnection::query_one` and its kin) is an `async fn` under `#[instrument]`, which
//! builds its body's future (the pool's acquire and the query, about 9 KB) and then moves it whole into the
//! instrumented wrapper: a 9 KB `memcpy` on every query, a tenth of a retrieve's instructions (BENCHMARKS.md), and
//! a clone of the statement's values. Here the values are moved and the futures are written where they run.
//!
//! What differs from going through sea-orm: a metric callback set with `DatabaseConnection::set_metric_callback`
//! is not called for these reads (sea-orm keeps it private, so it cannot be called from here; `set_direct_reads`
//! turns this path off for a process that relies on one), and sea-orm's `trace`-level span is not opened; sqlx's
//! own statement logging and spans run as usual. Errors are mapped to the same `DbErr` variants sea-orm maps them
//! to, so the answers (503 on an unreachable pool, …) are unchanged.

use sea_orm::{ConnAcquireErr, DbErr, QueryResult, RuntimeErr, Statement, Values};
use sea_query_sqlx::SqlxValues;

/// The first row of `statement` on `pool`, or `None`.
pub(super) async fn row<DB>(pool: &sqlx::Pool<DB>, statement: Statement) -> Result<Option<QueryResult>, DbErr>
where
    DB: sqlx::Database,
    QueryResult: From<DB::Row>,
    for<'c> &'c mut DB::Connection: sqlx::Executor<'c, Database = DB>,
    SqlxValues: for<'q> sqlx::IntoArguments<DB>,
{
    let mut conn = pool.acquire().await.map_err(acquire_error)?;
    let query = query(statement);
    match query.fetch_optional(&mut *conn).await {
        Ok(row) => Ok(row.map(QueryResult::from)),
        Err(err) => Err(query_error(err)),
    }
}

/// Every row of `statement` on `pool`, collected into room for `capacity` rows (the page size: growing a vector
/// from empty to a page of rows copies it four or five times).
pub(super) async fn rows<DB>(
    pool: &sqlx::Pool<DB>,
    statement: Statement,
    capacity: usize,
) -> Result<Vec<QueryResult>, DbErr>
where
    DB: sqlx::Database,
    QueryResult: From<DB::Row>,
    for<'c> &'c mut DB::Connection: sqlx::Executor<'c, Database = DB>,
    SqlxValues: for<'q> sqlx::IntoArguments<DB>,
{
    use futures_util::TryStreamExt;
    let mut conn = pool.acquire().await.map_err(acquire_error)?;
    let query = query(statement);
    let mut rows = Vec::with_capacity(capacity);
    let mut stream = query.fetch(&mut *conn);
    while let Some(row) = stream.try_next().await.map_err(query_error)? {
        rows.push(QueryResult::from(row));
    }
    Ok(rows)
}

/// `statement` as an sqlx query, its values moved rather than cloned.
fn query<DB: sqlx::Database>(statement: Statement) -> sqlx::query::Query<'static, DB, SqlxValues>
where
    SqlxValues: for<'q> sqlx::IntoArguments<DB>,
{
    let Statement { sql, values, .. } = statement;
    sqlx::query_with(sqlx::AssertSqlSafe(sql), SqlxValues(values.unwrap_or(Values(Vec::new()))))
}

/// A failed acquire as sea-orm reports it (`ConnectionAcquire` for a timeout or a closed pool).
fn acquire_error(err: sqlx::Error) -> DbErr {
    match err {
        sqlx::Error::PoolTimedOut => DbErr::ConnectionAcquire(ConnAcquireErr::Timeout),
        sqlx::Error::PoolClosed => DbErr::ConnectionAcquire(ConnAcquireErr::ConnectionClosed),
        other => DbErr::Conn(RuntimeErr::SqlxError(other.into())),
    }
}

/// A failed query as sea-orm reports it.
fn query_error(err: sqlx::Error) -> DbErr {
    DbErr::Query(RuntimeErr::SqlxError(err.into()))
}
