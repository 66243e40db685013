//! Read replicas: the read-only connection a GET request reads from ([`crate::ServiceState::with_replica`]), what
//! is known of its health, and the [`Reader`] that says where one request's reads go
//! ([`crate::RequestContext::reader`]). The store sends each read where its `Reader` says (`store/run.rs`): to the
//! replica first, and to the primary when the replica cannot be reached; the replica is then left alone for
//! [`REPLICA_RETRY_AFTER`], so a dead replica costs one failed attempt per interval rather than one per read.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use sea_orm::{DatabaseConnection, DbBackend, DbErr};

/// How long reads go straight to the primary after the replica could not be reached, before it is tried again.
///
/// ```
/// assert_eq!(viewset_core::request::REPLICA_RETRY_AFTER.as_secs(), 5);
/// ```
pub const REPLICA_RETRY_AFTER: Duration = Duration::from_secs(5);

/// A read-only connection (a streaming replica of the primary) and its health, shared by every clone of the state.
/// Made by [`crate::ServiceState::with_replica`].
#[derive(Clone, Debug)]
pub struct Replica {
    db: DatabaseConnection,
    health: Arc<Health>,
}

#[derive(Debug, Default)]
struct Health {
    /// Reads the primary served because the replica could not be reached (or was remembered so).
    fallbacks: AtomicU64,
    /// Until when reads skip the replica, in milliseconds on [`now_ms`]'s clock; 0: reads try it.
    down_until: AtomicU64,
}

impl Replica {
    /// `db` as a replica, reachable until a read says otherwise.
    pub(crate) fn new(db: DatabaseConnection) -> Self {
        Replica { db, health: Arc::default() }
    }

    /// The replica's connection (pool).
    pub fn connection(&self) -> &DatabaseConnection {
        &self.db
    }

    /// How many reads the primary served because this replica could not be reached: a failed attempt, and every
    /// read of the [`REPLICA_RETRY_AFTER`] that follows it.
    pub fn fallbacks(&self) -> u64 {
        self.health.fallbacks.load(Ordering::Relaxed)
    }

    /// Whether a read should try the replica now; when not (it failed less than [`REPLICA_RETRY_AFTER`] ago), the
    /// read the primary serves instead is counted. Costs one atomic load while the replica is healthy.
    pub(crate) fn try_now(&self) -> bool {
        let until = self.health.down_until.load(Ordering::Relaxed);
        if until == 0 || now_ms() >= until {
            return true;
        }
        self.health.fallbacks.fetch_add(1, Ordering::Relaxed);
        false
    }

    /// After a read on the replica failed with `err`: whether it is to be read on the primary instead, because the
    /// replica cannot be reached (no connection in time, a refused or broken connection, a server shutting down or
    /// still starting), rather than because the statement failed. Then the fallback is counted, and the replica
    /// skipped for [`REPLICA_RETRY_AFTER`] (logged once when it starts).
    pub(crate) fn unreachable(&self, err: &DbErr) -> bool {
        if !crate::error::unavailable(err) {
            return false;
        }
        let now = now_ms();
        let previous = self.health.down_until.swap(now + REPLICA_RETRY_AFTER.as_millis() as u64, Ordering::Relaxed);
        if previous == 0 || previous <= now {
            tracing::warn!(error = %err, retry_after_s = REPLICA_RETRY_AFTER.as_secs(), "read replica unreachable; reading the primary");
        }
        self.health.fallbacks.fetch_add(1, Ordering::Relaxed);
        true
    }

    /// After a read on the replica succeeded: it is used again (one atomic load while it was never down).
    pub(crate) fn reached(&self) {
        crate::measure::replica_read();
        if self.health.down_until.load(Ordering::Relaxed) != 0 && self.health.down_until.swap(0, Ordering::Relaxed) != 0
        {
            tracing::info!("read replica reachable again");
        }
    }
}

/// Milliseconds since the first call, on a monotonic clock; never 0 (0 means "not down").
fn now_ms() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_millis() as u64 + 1
}

/// Where one request's reads go ([`crate::RequestContext::reader`]): its replica first when it has one (a GET, with
/// a replica configured), else the primary. A `&DatabaseConnection` is a reader of that connection alone, so the
/// functions taking `impl Into<Reader>` (e.g. [`crate::pagination::fetch_rows`]) accept either.
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// let db = sea_orm::Database::connect("sqlite::memory:").await?;
/// let reader = viewset_core::request::Reader::from(&db);
/// assert!(reader.replica().is_none());
/// assert_eq!(reader.backend(), sea_orm::DbBackend::Sqlite);
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Reader<'a> {
    primary: &'a DatabaseConnection,
    replica: Option<&'a Replica>,
}

impl<'a> Reader<'a> {
    /// Reads of `primary`, tried on `replica` first when there is one.
    pub(crate) fn new(primary: &'a DatabaseConnection, replica: Option<&'a Replica>) -> Self {
        Reader { primary, replica }
    }

    /// The primary: it serves the reads when there is no replica, or when the replica cannot be reached.
    pub fn primary(self) -> &'a DatabaseConnection {
        self.primary
    }

    /// The replica reads try first, if any.
    pub fn replica(self) -> Option<&'a Replica> {
        self.replica
    }

    /// The backend statements are built for (the primary's; a replica runs the same engine).
    pub fn backend(self) -> DbBackend {
        self.primary.get_database_backend()
    }
}

impl<'a> From<&'a DatabaseConnection> for Reader<'a> {
    fn from(db: &'a DatabaseConnection) -> Self {
        Reader { primary: db, replica: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused() -> DbErr {
        DbErr::ConnectionAcquire(sea_orm::ConnAcquireErr::Timeout)
    }

    #[tokio::test]
    async fn an_unreachable_replica_is_skipped_and_counted_until_it_is_retried() {
        let replica = Replica::new(sea_orm::Database::connect("sqlite::memory:").await.expect("sqlite"));
        assert!(replica.try_now());
        assert!(!replica.unreachable(&DbErr::Custom("a statement failed".into())), "a query error is not an outage");
        assert_eq!(replica.fallbacks(), 0);
        assert!(replica.unreachable(&refused()));
        assert!(!replica.try_now(), "remembered as down");
        assert_eq!(replica.fallbacks(), 2, "the failed read and the one sent straight to the primary");
        replica.health.down_until.store(now_ms(), Ordering::Relaxed);
        assert!(replica.try_now(), "tried again once the interval is over");
        replica.reached();
        assert_eq!(replica.health.down_until.load(Ordering::Relaxed), 0);
        assert_eq!(replica.fallbacks(), 2);
    }
}
