//! The store: the one layer that builds, caches, records and runs SQL. Everything above it asks for *what* (the
//! record at this lookup within this scope, this page, this count, this insert) and never decides *how*; the store
//! decides, from the ViewSet's `Plan` and the connection's backend.
//!
//! An application names only connecting ([`connect`], [`options`], [`connect_with`], [`connect_replica`]), the
//! statement recording ([`record_statements`]), running a statement of its own through the same hook
//! ([`query_all`], [`query_one`]) and a statement's plan ([`explain`]). The rest is the crate's: its statements,
//! caches and plans change with every release, so they are private (a few are `#[doc(hidden)]` for the crate's own
//! tests and benchmarks).
//!
//! | part | holds |
//! |---|---|
//! | this file | connecting with the measured pool policy ([`connect`], [`options`]) |
//! | `Plan` (`plan.rs`) | which path each operation of a ViewSet takes, computed once per ViewSet and backend |
//! | `read.rs`, `write.rs` | the statements the access path, the paginators, embedding and the stream ask for |
//! | `writing.rs` | one write and its events: in the write's transaction on an outbox bus, else published after it |
//! | `bulk.rs` | a bulk create's multi-row `INSERT … RETURNING` per chunk (`rows_per_statement`), a bulk delete |
//! | `page.rs` | a list's page and count statements, the page written after the count's text |
//! | `keyset.rs` | a cursor page's statement, its text kept per cursor shape where nothing narrowed the select |
//! | `statements.rs`, `prototype.rs` (caches: `crate::memo`) | statements and column lists built once per type and backend |
//! | `run.rs`, `direct.rs` | running a statement: sqlx directly on the pool, sea-orm inside a transaction |
//! | `replica.rs` | reads through a request's [`Reader`](crate::request::Reader): the replica, else the primary |
//! | `observe.rs` | the statement hook: a `tracing` span per statement, and [`record_statements`] |
//! | `idempotency.rs` | the records of [`crate::idempotency`]: claim, read, answer, release, prune |
//! | `sqlite.rs` | the pragmas every connection to a SQLite file starts with (WAL, `synchronous=NORMAL`, a busy timeout, a bounded log, a larger cache) and their durability trade-off |
//! | `mysql.rs` | the session every MariaDB / MySQL connection starts with (strict `sql_mode`, UTC, `utf8mb4`); the server's version (MariaDB inserts with `RETURNING`) |
//! | `explain.rs` | the database's plan of a statement ([`explain`]) and the planner's row estimate |
//!
//! Every statement the generated routes run passes through one hook (`observe.rs`), whichever way it is sent: a
//! `DEBUG` span on the target `viewset::sql` with the statement (`sql`, values written in), its `role`, and once it
//! returned `rows` and `elapsed_ms`; and, inside [`record_statements`], an entry of the recording.
//!
//! ```
//! # async fn run() -> Result<(), sea_orm::DbErr> {
//! use sea_orm::{ConnectionTrait, Statement};
//! let db = viewset_core::store::connect("sqlite::memory:").await?;
//! db.execute_unprepared("CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1), (2)").await?;
//! let statement = Statement::from_string(db.get_database_backend(), "SELECT n FROM t ORDER BY n");
//! let (rows, recorded) = viewset_core::store::record_statements(async {
//!     viewset_core::store::query_all::<sea_orm::JsonValue>(&db, statement).await
//! })
//! .await;
//! assert_eq!(rows?, [serde_json::json!({"n": 1}), serde_json::json!({"n": 2})]);
//! assert_eq!((recorded.len(), recorded[0].role), (1, "query"));
//! # Ok(()) }
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(run()).unwrap();
//! ```

use std::time::Duration;

use sea_orm::{ConnectOptions, Database, DatabaseConnection, DbErr};

pub(crate) mod bulk;
#[cfg(any(feature = "postgres", feature = "sqlite"))]
pub(crate) mod direct;
pub(crate) mod explain;
pub(crate) mod idempotency;
pub(crate) mod keyset;
#[cfg(feature = "mysql")]
pub(crate) mod mysql;
pub(crate) mod observe;
pub(crate) mod page;
pub(crate) mod plan;
pub(crate) mod prototype;
pub(crate) mod read;
pub(crate) mod replica;
pub(crate) mod run;
#[cfg(feature = "sqlite")]
pub(crate) mod sqlite;
pub(crate) mod statements;
pub(crate) mod visibility;
pub(crate) mod write;
pub(crate) mod writing;

// What the crate's tests and the bench measure, not an application's API: reached through `crate::__private`.
#[doc(hidden)]
pub use bulk::{POSTGRES_MAX_PARAMETERS, SQLITE_MAX_PARAMETERS, rows_per_statement};
pub(crate) use bulk::{all_in, delete_many, insert_many};
pub use explain::explain;
pub(crate) use keyset::KeysetPage;
#[cfg(feature = "mysql")]
pub use mysql::MYSQL_SQL_MODE;
pub use observe::{RecordedStatement, record_statements};
#[doc(hidden)]
pub use page::count_rows;
pub(crate) use page::{CountedPage, page_rows, select_page};
#[doc(hidden)]
pub use plan::Plan;
pub(crate) use prototype::find as prototype;
pub(crate) use read::{Find, admits_row, all, decoded, find, lookup_row};
pub use replica::{REPLICA_ACQUIRE_TIMEOUT, connect_replica};
pub use run::{query_all, query_one};
#[cfg(feature = "sqlite")]
pub use sqlite::{
    SQLITE_BUSY_TIMEOUT, SQLITE_CACHE_KIB, SQLITE_JOURNAL_SIZE_LIMIT, SQLITE_MAX_CONNECTIONS, sqlite_defaults,
};
pub(crate) use statements::lookup_condition;
#[doc(hidden)]
pub use write::insert_returning;
pub(crate) use write::{begin_immediate, delete, insert, update, update_where};

/// Connections idle at least this long are pinged before use; busier ones are handed out as they are.
const PING_AFTER_IDLE: Duration = Duration::from_secs(30);

/// How long a request waits for a pool connection (and a new connection for its handshake) before it is answered
/// 503 `database_unavailable`: short, so an outage fails fast instead of holding every request for sea-orm's 30 s.
pub const DEFAULT_ACQUIRE_TIMEOUT: Duration = Duration::from_secs(2);

/// The options [`connect`] uses for `url`, to adjust before [`connect_with`]: sea-orm's defaults, except that only
/// connections idle for 30 s are pinged on checkout (pinging every checkout costs a round trip per request:
/// +29 % / +43 % retrieves at 16 / 64 connections in `BENCHMARKS.md`), SQL statements are not logged, and a
/// connection must be acquired (or opened) within [`DEFAULT_ACQUIRE_TIMEOUT`]. A MariaDB / MySQL connection starts
/// with a strict `sql_mode`, UTC and `utf8mb4` (`MYSQL_SQL_MODE`, README "MariaDB / MySQL").
///
/// A SQLite *file* is opened in WAL with `synchronous=NORMAL`, a 5 s busy timeout, a bounded log, a 16 MiB page
/// cache per connection and foreign keys on ([`sqlite_defaults`]), with a pool of [`SQLITE_MAX_CONNECTIONS`] (one:
/// see there why; `max_connections` on the returned options changes it); in-memory databases are left as sqlx opens them, with
/// sea-orm's one connection. The trade-off: a process crash loses no acknowledged write, a power loss or an operating-system crash can
/// lose the last transactions (never the database's integrity). Override with
/// `options.map_sqlx_sqlite_opts(|o| sqlite_defaults(o).synchronous(SqliteSynchronous::Full))`, which replaces
/// these defaults with your function (the `store::sqlite` module's documentation has the full list and an example).
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// let mut options = viewset_core::store::options("sqlite::memory:");
/// options.acquire_timeout(std::time::Duration::from_millis(500)).max_connections(8);
/// let db = viewset_core::store::connect_with(options).await?;
/// # let _ = db; Ok(()) }
/// ```
pub fn options(url: &str) -> ConnectOptions {
    let mut options = ConnectOptions::new(url.to_string());
    options
        .sqlx_logging(false)
        .test_before_acquire_if_idle_for(PING_AFTER_IDLE)
        .acquire_timeout(DEFAULT_ACQUIRE_TIMEOUT)
        .connect_timeout(DEFAULT_ACQUIRE_TIMEOUT);
    #[cfg(feature = "mysql")]
    mysql::session(&mut options);
    #[cfg(feature = "sqlite")]
    sqlite::file_defaults(url, &mut options);
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

/// The connections of `db`'s pool and how many of them are idle, `(size, idle)`; `(0, 0)` for a connection whose
/// driver this build does not include (a mock or proxy connection). For health pages (Studio's database panel).
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// let db = viewset_core::connect("sqlite::memory:").await?;
/// let (size, idle) = viewset_core::store::pool_counts(&db);
/// assert!(size >= 1 && idle <= size);
/// # Ok(()) }
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(run()).unwrap();
/// ```
pub fn pool_counts(db: &DatabaseConnection) -> (u32, u32) {
    match db.get_database_backend() {
        #[cfg(feature = "postgres")]
        sea_orm::DbBackend::Postgres => {
            let pool = db.get_postgres_connection_pool();
            (pool.size(), pool.num_idle() as u32)
        }
        #[cfg(feature = "sqlite")]
        sea_orm::DbBackend::Sqlite => {
            let pool = db.get_sqlite_connection_pool();
            (pool.size(), pool.num_idle() as u32)
        }
        #[cfg(feature = "mysql")]
        sea_orm::DbBackend::MySql => {
            let pool = db.get_mysql_connection_pool();
            (pool.size(), pool.num_idle() as u32)
        }
        _ => (0, 0),
    }
}
