//! Running a statement. On a pool connection (PostgreSQL, SQLite) the statement goes to sqlx directly
//! (`direct.rs`); inside a transaction, and for other connection kinds (a mock, a proxy), through sea-orm's
//! `ConnectionTrait`. Either way it passes through the statement hook (`observe.rs`) first and last. Every database
//! future is written straight into its heap allocation (`crate::boxed::boxed`).

use sea_orm::{ConnectionTrait, DatabaseConnection, DatabaseTransaction, DbErr, QueryResult, Statement};

use super::observe::observe;
use crate::boxed::boxed;

/// Where a statement runs: the pool, or an open transaction.
#[derive(Clone, Copy)]
pub(crate) enum On<'a> {
    /// A connection of the pool, for this one statement.
    Pool(&'a DatabaseConnection),
    /// The transaction's own connection.
    Txn(&'a DatabaseTransaction),
}

impl<'a> On<'a> {
    /// The connection as one type of [`sea_orm::ConnectionTrait`], for the model's `ActiveModelBehavior` hooks: a
    /// hook is compiled once per model, not once per kind of connection.
    pub(crate) fn executor(self) -> sea_orm::DatabaseExecutor<'a> {
        match self {
            On::Pool(db) => sea_orm::DatabaseExecutor::Connection(db),
            On::Txn(txn) => sea_orm::DatabaseExecutor::Transaction(txn),
        }
    }

    /// The backend of the connection.
    pub(crate) fn backend(self) -> sea_orm::DbBackend {
        match self {
            On::Pool(db) => db.get_database_backend(),
            On::Txn(txn) => txn.get_database_backend(),
        }
    }

    /// Whether the database writes `RETURNING` clauses.
    pub(crate) fn support_returning(self) -> bool {
        match self {
            On::Pool(db) => db.support_returning(),
            On::Txn(txn) => txn.support_returning(),
        }
    }
}

/// How rows become models: [`crate::ViewSet::decode_rows`], or [`crate::schema::rows::decode_by_name`].
pub(crate) type Decode<M> = fn(&[QueryResult]) -> Result<Vec<M>, DbErr>;

/// The rows of `statement` decoded as `M` (by column name), run as every statement of the store is: sent to sqlx
/// directly on the pool sea-orm opened, seen by the statement hook (role `query`).
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// use sea_orm::{ConnectionTrait, Statement};
/// let db = viewset_core::connect("sqlite::memory:").await?;
/// let statement = Statement::from_string(db.get_database_backend(), "SELECT 1 AS one UNION SELECT 2");
/// let rows: Vec<sea_orm::JsonValue> = viewset_core::store::query_all(&db, statement).await?;
/// assert_eq!(rows.len(), 2);
/// # Ok(()) }
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(run()).unwrap();
/// ```
pub async fn query_all<M: sea_orm::FromQueryResult>(
    db: &DatabaseConnection,
    statement: Statement,
) -> Result<Vec<M>, DbErr> {
    crate::schema::rows::decode_by_name(&rows(On::Pool(db), statement, 0, "query").await?)
}

/// The first row of `statement` decoded as `M`, run as [`query_all`] runs it.
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// use sea_orm::{ConnectionTrait, Statement};
/// let db = viewset_core::connect("sqlite::memory:").await?;
/// db.execute_unprepared("CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (7)").await?;
/// let statement = Statement::from_string(db.get_database_backend(), "SELECT n FROM t");
/// let row: Option<sea_orm::JsonValue> = viewset_core::store::query_one(&db, statement).await?;
/// assert_eq!(row.unwrap()["n"], 7);
/// # Ok(()) }
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(run()).unwrap();
/// ```
pub async fn query_one<M: sea_orm::FromQueryResult>(
    db: &DatabaseConnection,
    statement: Statement,
) -> Result<Option<M>, DbErr> {
    row(On::Pool(db), statement, "query").await?.map(|row| M::from_query_result(&row, "")).transpose()
}

/// The rows of `statement`; not generic over the model, so it is compiled once. `capacity`: the rows expected at
/// most (a page's size), reserved up front where the rows are collected here.
pub(crate) async fn rows(
    on: On<'_>,
    statement: Statement,
    capacity: usize,
    role: &'static str,
) -> Result<Vec<QueryResult>, DbErr> {
    #[cfg(any(feature = "postgres", feature = "sqlite"))]
    use sea_orm::DatabaseConnectionType as Driver;
    #[cfg(not(any(feature = "postgres", feature = "sqlite")))]
    let _ = capacity; // only the direct sqlx paths reserve
    let statement = portable(statement);
    let seen = observe(role, &statement);
    let rows = match on {
        #[cfg(feature = "postgres")]
        On::Pool(db) if matches!(db.inner, Driver::SqlxPostgresPoolConnection(_)) => {
            boxed(|| super::direct::rows(db.get_postgres_connection_pool(), statement, capacity)).await
        }
        #[cfg(feature = "sqlite")]
        On::Pool(db) if matches!(db.inner, Driver::SqlxSqlitePoolConnection(_)) => {
            boxed(|| super::direct::rows(db.get_sqlite_connection_pool(), statement, capacity)).await
        }
        On::Pool(db) => boxed(|| db.query_all_raw(statement)).await,
        On::Txn(txn) => boxed(|| txn.query_all_raw(statement)).await,
    };
    seen.finish(rows.as_ref().map(Vec::len));
    rows
}

/// The first row of `statement`, or `None`; compiled once, like [`rows`].
pub(crate) async fn row(on: On<'_>, statement: Statement, role: &'static str) -> Result<Option<QueryResult>, DbErr> {
    #[cfg(any(feature = "postgres", feature = "sqlite"))]
    use sea_orm::DatabaseConnectionType as Driver;
    let statement = portable(statement);
    let seen = observe(role, &statement);
    let row = match on {
        #[cfg(feature = "postgres")]
        On::Pool(db) if matches!(db.inner, Driver::SqlxPostgresPoolConnection(_)) => {
            boxed(|| super::direct::row(db.get_postgres_connection_pool(), statement)).await
        }
        #[cfg(feature = "sqlite")]
        On::Pool(db) if matches!(db.inner, Driver::SqlxSqlitePoolConnection(_)) => {
            boxed(|| super::direct::row(db.get_sqlite_connection_pool(), statement)).await
        }
        On::Pool(db) => boxed(|| db.query_one_raw(statement)).await,
        On::Txn(txn) => boxed(|| txn.query_one_raw(statement)).await,
    };
    seen.finish(row.as_ref().map(|row| usize::from(row.is_some())));
    row
}

/// Runs `statement`, which returns no rows; the number of rows it changed.
pub(crate) async fn execute(on: On<'_>, statement: Statement, role: &'static str) -> Result<u64, DbErr> {
    let statement = portable(statement);
    let seen = observe(role, &statement);
    let done = match on {
        On::Pool(db) => boxed(|| db.execute_raw(statement)).await,
        On::Txn(txn) => boxed(|| txn.execute_raw(statement)).await,
    };
    let changed = done.map(|done| done.rows_affected());
    seen.finish(changed.as_ref().map(|&n| n as usize));
    changed
}

/// Runs the `INSERT` `statement`; the key the database generated (`LAST_INSERT_ID()`; 0 when it generated none).
pub(crate) async fn insert_id(on: On<'_>, statement: Statement, role: &'static str) -> Result<u64, DbErr> {
    let statement = portable(statement);
    let seen = observe(role, &statement);
    let done = match on {
        On::Pool(db) => boxed(|| db.execute_raw(statement)).await,
        On::Txn(txn) => boxed(|| txn.execute_raw(statement)).await,
    };
    seen.finish(done.as_ref().map(|done| done.rows_affected() as usize));
    done.map(|done| done.last_insert_id())
}

/// `statement` with its values as the backend reads them. On MariaDB / MySQL a date-time with a time zone is bound
/// as the UTC `DATETIME` it stands for (the session's time zone is UTC, `store/mysql.rs`): sqlx binds a
/// `DateTime<Utc>` as a `TIMESTAMP` parameter, which MariaDB turns into `NULL` outside `TIMESTAMP`'s 1970–2038 range
/// (a write of 9999-12-31 became a `NULL`, a filter past 2038 matched nothing). Elsewhere `statement` as it is.
pub(crate) fn portable(mut statement: Statement) -> Statement {
    use sea_orm::Value;
    if statement.db_backend != sea_orm::DbBackend::MySql {
        return statement;
    }
    for value in statement.values.iter_mut().flat_map(|values| values.0.iter_mut()) {
        let utc = match value {
            Value::ChronoDateTimeUtc(at) => at.map(|at| at.naive_utc()),
            Value::ChronoDateTimeLocal(at) => at.map(|at| at.naive_utc()),
            Value::ChronoDateTimeWithTimeZone(at) => at.map(|at| at.naive_utc()),
            _ => continue,
        };
        *value = Value::ChronoDateTime(utc);
    }
    statement
}

/// The first row of `statement` decoded by `decode`: a ViewSet's [`crate::ViewSet::decode_rows`], which decodes by
/// position when the row holds the entity's columns in order.
pub(crate) async fn one_decoded<M>(
    on: On<'_>,
    statement: Statement,
    decode: Decode<M>,
    role: &'static str,
) -> Result<Option<M>, DbErr> {
    let Some(row) = row(on, statement, role).await? else { return Ok(None) };
    Ok(decode(std::slice::from_ref(&row))?.pop())
}

#[cfg(test)]
mod tests {
    #[test]
    fn mysql_binds_a_utc_date_time_as_datetime() {
        use sea_orm::{DbBackend, Statement, Value};
        let at = chrono::DateTime::<chrono::Utc>::from_timestamp(253_402_214_400, 0).expect("9999-12-31");
        let values = [Value::ChronoDateTimeUtc(Some(at)), Value::ChronoDateTimeUtc(None), Value::Int(Some(1))];
        for backend in [DbBackend::MySql, DbBackend::Postgres] {
            let statement = super::portable(Statement::from_sql_and_values(backend, "SELECT ?, ?, ?", values.clone()));
            let bound = statement.values.expect("values").0;
            if backend == DbBackend::MySql {
                let expected =
                    [Value::ChronoDateTime(Some(at.naive_utc())), Value::ChronoDateTime(None), Value::Int(Some(1))];
                assert_eq!(bound, expected);
            } else {
                assert_eq!(bound, values);
            }
        }
    }

    #[tokio::test]
    async fn a_boxed_future_runs_once_to_its_value() {
        let mut runs = 0;
        let big = [7u8; 16 * 1024];
        let value = super::boxed(|| async {
            runs += 1;
            big.iter().map(|&b| u32::from(b)).sum::<u32>()
        })
        .await;
        assert_eq!((value, runs), (7 * 16 * 1024, 1));
    }
}
