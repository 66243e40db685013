//! Connecting to the database with the pool settings the generated handlers are measured with.

use std::time::Duration;

use sea_orm::{ConnectOptions, Database, DatabaseConnection, DbErr};

#[cfg(any(feature = "postgres", feature = "sqlite"))]
mod direct;
pub(crate) mod memo;

/// Connections idle at least this long are pinged before use; busier ones are handed out as they are.
const PING_AFTER_IDLE: Duration = Duration::from_secs(30);

/// How long a request waits for a pool connection (and a new connection for its handshake) before it is answered
/// 503 `database_unavailable`: short, so an outage fails fast instead of holding every request for sea-orm's 30 s.
pub const DEFAULT_ACQUIRE_TIMEOUT: Duration = Duration::from_secs(2);

/// The options [`connect`] uses for `url`, to adjust before [`connect_with`]: sea-orm's defaults, except that only
/// connections idle for 30 s are pinged on checkout (pinging every checkout costs a round trip per request:
/// +29 % / +43 % retrieves at 16 / 64 connections in `BENCHMARKS.md`), SQL statements are not logged, and a
/// connection must be acquired (or opened) within [`DEFAULT_ACQUIRE_TIMEOUT`].
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// let mut options = viewset_core::database::options("sqlite::memory:");
/// options.acquire_timeout(std::time::Duration::from_millis(500)).max_connections(8);
/// let db = viewset_core::database::connect_with(options).await?;
/// # let _ = db; Ok(()) }
/// ```
pub fn options(url: &str) -> ConnectOptions {
    let mut options = ConnectOptions::new(url.to_string());
    options
        .sqlx_logging(false)
        .test_before_acquire_if_idle_for(PING_AFTER_IDLE)
        .acquire_timeout(DEFAULT_ACQUIRE_TIMEOUT)
        .connect_timeout(DEFAULT_ACQUIRE_TIMEOUT);
    options
}

/// Connects to `url` (a SQLite file is created if missing with `?mode=rwc`) with [`options`].
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// let db = viewset_core::connect("sqlite::memory:").await?;
/// # let _ = db; Ok(()) }
/// ```
pub async fn connect(url: &str) -> Result<DatabaseConnection, DbErr> {
    connect_with(options(url)).await
}

/// Connects with explicit options (start from [`options`] to keep the measured policy).
pub async fn connect_with(options: ConnectOptions) -> Result<DatabaseConnection, DbErr> {
    Database::connect(options).await
}

/// The rows of `statement` decoded as `M`, sent to sqlx directly on the pool sea-orm opened (PostgreSQL and SQLite).
///
/// sea-orm's `DatabaseConnection` runs every query through one `async fn` that dispatches over all the backends
/// it was built with, and its driver connections wrap theirs in a span, moving a future of about 9 KB into it;
/// every await level above moved it again (a fifth of a retrieve's instructions were `memcpy`). Here the acquire
/// and the query run in one boxed future, written where it runs. sqlx's statement logging runs as before; sea-orm's
/// metric callback and its `trace` span do not see these reads unless [`set_direct_reads`] turned them off. Errors
/// map to the `DbErr` variants sea-orm uses. Other connection kinds (a mock, a proxy) go through
/// `DatabaseConnection` as usual.
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// use sea_orm::{ConnectionTrait, Statement};
/// let db = viewset_core::connect("sqlite::memory:").await?;
/// let statement = Statement::from_string(db.get_database_backend(), "SELECT 1 AS one UNION SELECT 2");
/// let rows: Vec<sea_orm::JsonValue> = viewset_core::database::query_all(&db, statement).await?;
/// assert_eq!(rows.len(), 2);
/// # Ok(()) }
/// ```
pub async fn query_all<M: sea_orm::FromQueryResult>(
    db: &DatabaseConnection,
    statement: sea_orm::Statement,
) -> Result<Vec<M>, DbErr> {
    crate::schema::rows::decode_by_name(&rows(db, statement, 0).await?)
}

/// Whether the generated reads go to sqlx directly ([`set_direct_reads`]).
static DIRECT_READS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Sends the generated reads (list, count, retrieve, and the rows `INSERT`/`UPDATE … RETURNING` give back) to sqlx
/// directly (`true`, the default) or through sea-orm's driver connection (`false`), for this process. sea-orm keeps a
/// metric callback (`DatabaseConnection::set_metric_callback`) private to its driver connection, so only the second
/// way calls it: switch direct reads off at start-up when you rely on one. Writes sea-orm runs itself (deletes,
/// the `ActiveModel` paths) call it either way.
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// use sea_orm::{ConnectionTrait, Statement};
/// let mut db = viewset_core::connect("sqlite::memory:").await?;
/// let seen = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
/// let counter = seen.clone();
/// db.set_metric_callback(move |_| { counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed); });
/// viewset_core::database::set_direct_reads(false);
/// let statement = Statement::from_string(db.get_database_backend(), "SELECT 1 AS one");
/// let _: Option<sea_orm::JsonValue> = viewset_core::database::query_one(&db, statement).await?;
/// assert_eq!(seen.load(std::sync::atomic::Ordering::Relaxed), 1);
/// # Ok(()) }
/// ```
pub fn set_direct_reads(direct: bool) {
    DIRECT_READS.store(direct, std::sync::atomic::Ordering::Relaxed);
}

/// [`query_all`] before decoding; not generic, so it is compiled once rather than per model.
/// `capacity`: the rows expected at most (a page's size), reserved up front where the rows are collected here.
pub(crate) async fn rows(
    db: &DatabaseConnection,
    statement: sea_orm::Statement,
    capacity: usize,
) -> Result<Vec<sea_orm::QueryResult>, DbErr> {
    #[cfg(any(feature = "postgres", feature = "sqlite"))]
    use sea_orm::DatabaseConnectionType as Driver;
    match &db.inner {
        _ if !DIRECT_READS.load(std::sync::atomic::Ordering::Relaxed) => {
            boxed(|| sea_orm::ConnectionTrait::query_all_raw(db, statement)).await
        }
        #[cfg(feature = "postgres")]
        Driver::SqlxPostgresPoolConnection(_) => {
            boxed(|| direct::rows(db.get_postgres_connection_pool(), statement, capacity)).await
        }
        #[cfg(feature = "sqlite")]
        Driver::SqlxSqlitePoolConnection(_) => {
            boxed(|| direct::rows(db.get_sqlite_connection_pool(), statement, capacity)).await
        }
        _ => boxed(|| sea_orm::ConnectionTrait::query_all_raw(db, statement)).await,
    }
}

/// The first row of `statement` decoded as `M`, sent to sqlx directly as [`query_all`] explains.
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// use sea_orm::{ConnectionTrait, Statement};
/// let db = viewset_core::connect("sqlite::memory:").await?;
/// let statement = Statement::from_string(db.get_database_backend(), "SELECT 7 AS seven");
/// let row: Option<sea_orm::JsonValue> = viewset_core::database::query_one(&db, statement).await?;
/// assert_eq!(row.unwrap()["seven"], 7);
/// # Ok(()) }
/// ```
pub async fn query_one<M: sea_orm::FromQueryResult>(
    db: &DatabaseConnection,
    statement: sea_orm::Statement,
) -> Result<Option<M>, DbErr> {
    row(db, statement).await?.map(|row| M::from_query_result(&row, "")).transpose()
}

/// How rows become models: [`crate::ViewSet::decode_rows`], or [`crate::schema::rows::decode_by_name`].
pub(crate) type Decode<M> = fn(&[sea_orm::QueryResult]) -> Result<Vec<M>, DbErr>;

/// The first row of `statement` decoded by `decode`: a ViewSet's [`crate::ViewSet::decode_rows`], which decodes by
/// position when the row holds the entity's columns in order.
pub(crate) async fn query_one_decoded<M>(
    db: &DatabaseConnection,
    statement: sea_orm::Statement,
    decode: Decode<M>,
) -> Result<Option<M>, DbErr> {
    let Some(row) = row(db, statement).await? else { return Ok(None) };
    Ok(decode(std::slice::from_ref(&row))?.pop())
}

/// [`query_one`] before decoding; not generic, so it is compiled once rather than per model.
async fn row(db: &DatabaseConnection, statement: sea_orm::Statement) -> Result<Option<sea_orm::QueryResult>, DbErr> {
    #[cfg(any(feature = "postgres", feature = "sqlite"))]
    use sea_orm::DatabaseConnectionType as Driver;
    match &db.inner {
        _ if !DIRECT_READS.load(std::sync::atomic::Ordering::Relaxed) => {
            boxed(|| sea_orm::ConnectionTrait::query_one_raw(db, statement)).await
        }
        #[cfg(feature = "postgres")]
        Driver::SqlxPostgresPoolConnection(_) => {
            boxed(|| direct::row(db.get_postgres_connection_pool(), statement)).await
        }
        #[cfg(feature = "sqlite")]
        Driver::SqlxSqlitePoolConnection(_) => boxed(|| direct::row(db.get_sqlite_connection_pool(), statement)).await,
        _ => boxed(|| sea_orm::ConnectionTrait::query_one_raw(db, statement)).await,
    }
}

/// `make()`'s future in a heap allocation, written there rather than built on the stack and copied in whole as
/// `Box::pin(make())` does: a sea-orm driver query's future is about 9 KB (most of it the pool's acquire, not yet in
/// use), and that copy was 9k instructions of every query (BENCHMARKS.md). Every boxed database call in the crate
/// goes through it.
pub(crate) fn boxed<F: std::future::Future>(make: impl FnOnce() -> F) -> std::pin::Pin<Box<F>> {
    let mut slot = Box::<F>::new_uninit();
    slot.write(make());
    // SAFETY: `write` just initialized the allocation.
    Box::into_pin(unsafe { slot.assume_init() })
}

tokio::task_local! {
    static STATEMENTS: std::cell::RefCell<Vec<RecordedStatement>>;
}

/// One SQL statement a list ran, as recorded by [`record_statements`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RecordedStatement {
    /// `page` (the rows) or `count` (the filtered set that is counted).
    pub role: &'static str,
    /// The statement built by sea-query for the connection's backend, values inlined for reading.
    pub sql: String,
    /// Milliseconds from just before it was sent until its rows were read (`None` if it did not finish).
    pub elapsed_ms: Option<f64>,
    /// The statement as it ran: SQL with placeholders and its bound values (what [`explain`] plans).
    #[serde(skip)]
    pub statement: sea_orm::Statement,
}

/// The database's plan for a recorded statement, one line per plan row, without running it: `EXPLAIN` on
/// PostgreSQL, `EXPLAIN QUERY PLAN` on SQLite, with the statement's own bound values (nothing is inlined into the
/// SQL). Only `SELECT`s are recorded, so planning one never writes.
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// use sea_orm::ConnectionTrait;
/// let db = viewset_core::connect("sqlite::memory:").await?;
/// db.execute_unprepared("CREATE TABLE posts (id INTEGER PRIMARY KEY, views INTEGER)").await?;
/// let statement = sea_orm::Statement::from_sql_and_values(
///     db.get_database_backend(),
///     "SELECT id FROM posts WHERE views > ?",
///     [7.into()],
/// );
/// let recorded =
///     viewset_core::database::RecordedStatement { role: "page", sql: statement.to_string(), elapsed_ms: None, statement };
/// let plan = viewset_core::database::explain(&db, &recorded).await?;
/// assert!(plan.iter().any(|line| line.contains("posts")), "{plan:?}");
/// # Ok(()) }
/// ```
pub async fn explain(db: &DatabaseConnection, recorded: &RecordedStatement) -> Result<Vec<String>, DbErr> {
    use sea_orm::{ConnectionTrait, DbBackend};
    let backend = db.get_database_backend();
    let prefix = if backend == DbBackend::Sqlite { "EXPLAIN QUERY PLAN " } else { "EXPLAIN " };
    let values = recorded.statement.values.clone().map(|v| v.0).unwrap_or_default();
    let plan = sea_orm::Statement::from_sql_and_values(backend, format!("{prefix}{}", recorded.statement.sql), values);
    let rows = boxed(|| db.query_all_raw(plan)).await?;
    let line = |row: &sea_orm::QueryResult| -> String {
        if backend == DbBackend::Sqlite {
            row.try_get::<String>("", "detail").unwrap_or_default()
        } else {
            row.try_get::<String>("", "QUERY PLAN").unwrap_or_default()
        }
    };
    Ok(rows.iter().map(line).collect())
}

/// Runs `future` and returns what it produced with the SQL statements the list path ran inside it (the page and
/// the count). The text is built from the very `Select` each query executes, just before it runs; outside this
/// scope nothing is built or recorded.
///
/// ```
/// # async fn run() {
/// let (answer, statements) = viewset_core::database::record_statements(async { 42 }).await;
/// assert_eq!(answer, 42);
/// assert!(statements.is_empty());
/// # }
/// ```
pub async fn record_statements<F: std::future::Future>(future: F) -> (F::Output, Vec<RecordedStatement>) {
    STATEMENTS
        .scope(std::cell::RefCell::new(Vec::new()), async {
            let output = future.await;
            (output, STATEMENTS.with(|s| s.take()))
        })
        .await
}

/// A statement being recorded: started by [`Recording::start`] just before it runs, [`Recording::finish`]ed when it
/// returned (its time is then known).
pub(crate) struct Recording {
    index: Option<usize>,
    started: std::time::Instant,
}

impl Recording {
    /// Records `statement` under `role` when a [`record_statements`] scope is active.
    pub(crate) fn start(role: &'static str, statement: impl FnOnce() -> sea_orm::Statement) -> Self {
        let index = STATEMENTS
            .try_with(|recorded| {
                let statement = statement();
                let sql = statement.to_string();
                let mut recorded = recorded.borrow_mut();
                recorded.push(RecordedStatement { role, sql, elapsed_ms: None, statement });
                recorded.len() - 1
            })
            .ok();
        Recording { index, started: std::time::Instant::now() }
    }

    /// Notes the statement's time (from [`Recording::start`] to now).
    pub(crate) fn finish(self) {
        if let Some(index) = self.index {
            let elapsed = self.started.elapsed().as_secs_f64() * 1000.0;
            let _ = STATEMENTS.try_with(|recorded| {
                if let Some(statement) = recorded.borrow_mut().get_mut(index) {
                    statement.elapsed_ms = Some(elapsed);
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
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
