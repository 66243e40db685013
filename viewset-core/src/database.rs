//! Connecting to the database with the pool settings the generated handlers are measured with.

use std::time::Duration;

use sea_orm::{ConnectOptions, Database, DatabaseConnection, DbErr};

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
