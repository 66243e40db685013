//! Connecting to the database with the pool settings the generated handlers are measured with.

use std::time::Duration;

use sea_orm::{ConnectOptions, Database, DatabaseConnection, DbErr};

/// Connections idle at least this long are pinged before use; busier ones are handed out as they are.
const PING_AFTER_IDLE: Duration = Duration::from_secs(30);

/// Connects to `url` (a SQLite file is created if missing with `?mode=rwc`) with sea-orm's defaults, except that
/// only connections idle for 30 s are pinged on checkout (pinging every checkout costs a round trip per request:
/// +29 % / +43 % retrieves at 16 / 64 connections in `BENCHMARKS.md`) and SQL statements are not logged.
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// let db = viewset_core::connect("sqlite::memory:").await?;
/// # let _ = db; Ok(()) }
/// ```
pub async fn connect(url: &str) -> Result<DatabaseConnection, DbErr> {
    let mut options = ConnectOptions::new(url.to_string());
    options.sqlx_logging(false).test_before_acquire_if_idle_for(PING_AFTER_IDLE);
    Database::connect(options).await
}
