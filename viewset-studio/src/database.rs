//! The database status: a real `SELECT 1` with its latency, and the pool's size.

use std::time::{Duration, Instant};

use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, Statement};

use crate::protocol::DatabaseStatus;

/// How long the check query may take before the database counts as unreachable.
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(3);

/// The dialect name of a backend.
pub fn dialect(backend: DbBackend) -> &'static str {
    match backend {
        DbBackend::Postgres => "postgresql",
        DbBackend::Sqlite => "sqlite",
        DbBackend::MySql => "mysql",
        _ => "unknown",
    }
}

/// Runs `SELECT 1` (bounded by [`CHECK_TIMEOUT`]) and reads the pool counters.
pub async fn check(db: &DatabaseConnection) -> DatabaseStatus {
    let backend = db.get_database_backend();
    let started = Instant::now();
    let outcome =
        tokio::time::timeout(CHECK_TIMEOUT, db.query_one_raw(Statement::from_string(backend, "SELECT 1".to_string())))
            .await;
    let elapsed = started.elapsed().as_secs_f64() * 1000.0;
    let (connected, latency_ms, last_error) = match outcome {
        Ok(Ok(_)) => (true, Some((elapsed * 1000.0).round() / 1000.0), None),
        Ok(Err(e)) => (false, None, Some(e.to_string())),
        Err(_) => (false, None, Some(format!("the check query took longer than {} s", CHECK_TIMEOUT.as_secs()))),
    };
    let (pool_size, pool_available) = viewset_core::store::pool_counts(db);
    DatabaseStatus {
        connected,
        dialect: dialect(backend).to_string(),
        pool_size,
        pool_available,
        latency_ms,
        last_error,
    }
}
