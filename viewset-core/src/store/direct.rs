//! Statements sent to sqlx directly, on the pool sea-orm opened: built by sea-query as before, rows back as sea-orm
//! `QueryResult`s, errors mapped to the `DbErr` variants sea-orm maps them to; only sea-orm's driver call, whose
//! `#[instrument]` wrapper moved a ~9 KB future on every query, is left out (BENCHMARKS.md, "Instructions per
//! request"). The statement hook sees these statements as it sees the others (`observe.rs`).

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
