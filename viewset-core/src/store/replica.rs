//! Reads through a request's [`Reader`]: on its replica first when it has one, and again on the primary when the
//! replica cannot be reached (`request/replica.rs` decides what "cannot be reached" is, counts and remembers it).
//! Each attempt is a statement of its own for the statement hook, so a fallback shows as two. Connecting a replica
//! ([`connect_replica`]) bounds how long a dead one can hold a read.

use std::time::Duration;

use futures_util::future::Either;
use sea_orm::{DatabaseConnection, DatabaseTransaction, DbErr, QueryResult, Statement};

use super::run::{On, row, rows};
use crate::request::Reader;

/// How long a read waits for a replica's connection (and a new connection for its handshake) before it is read on
/// the primary instead: a quarter of the primary's [`super::DEFAULT_ACQUIRE_TIMEOUT`], since the primary is there
/// to answer when the replica is not.
pub const REPLICA_ACQUIRE_TIMEOUT: Duration = Duration::from_millis(500);

/// Connects to a read replica at `url` with [`super::options`] (the measured pool policy), acquiring within
/// [`REPLICA_ACQUIRE_TIMEOUT`], and lazily: the application starts even while its replica is down (its reads go
/// to the primary until it is back). For [`crate::ServiceState::with_replica`].
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// let replica = viewset_core::store::connect_replica("sqlite::memory:").await?;
/// # let _ = replica; Ok(()) }
/// ```
pub async fn connect_replica(url: &str) -> Result<DatabaseConnection, DbErr> {
    let mut options = super::options(url);
    options.acquire_timeout(REPLICA_ACQUIRE_TIMEOUT).connect_timeout(REPLICA_ACQUIRE_TIMEOUT).connect_lazy(true);
    super::connect_with(options).await
}

/// Where a read runs: through a request's [`Reader`], or inside an open transaction (a locked read of a write).
#[derive(Clone, Copy)]
pub(crate) enum ReadOn<'a> {
    /// The reader's replica first, else its primary.
    Reader(Reader<'a>),
    /// The transaction's own connection.
    Txn(&'a DatabaseTransaction),
}

impl<'a> From<Reader<'a>> for ReadOn<'a> {
    fn from(reader: Reader<'a>) -> Self {
        ReadOn::Reader(reader)
    }
}

impl<'a> From<&'a DatabaseTransaction> for ReadOn<'a> {
    fn from(txn: &'a DatabaseTransaction) -> Self {
        ReadOn::Txn(txn)
    }
}

impl<'a> From<On<'a>> for ReadOn<'a> {
    /// A pool is read as a reader without a replica (a write's own reads, on the primary).
    fn from(on: On<'a>) -> Self {
        match on {
            On::Pool(db) => ReadOn::Reader(Reader::from(db)),
            On::Txn(txn) => ReadOn::Txn(txn),
        }
    }
}

impl ReadOn<'_> {
    /// The backend statements are built for.
    pub(crate) fn backend(self) -> sea_orm::DbBackend {
        match self {
            ReadOn::Reader(reader) => reader.backend(),
            ReadOn::Txn(txn) => On::Txn(txn).backend(),
        }
    }
}

/// The rows of `statement` ([`rows`]) read through `reader`.
pub(crate) async fn read_rows(
    reader: Reader<'_>,
    statement: Statement,
    capacity: usize,
    role: &'static str,
) -> Result<Vec<QueryResult>, DbErr> {
    let Some(replica) = reader.replica().filter(|replica| replica.try_now()) else {
        return rows(On::Pool(reader.primary()), statement, capacity, role).await;
    };
    let again = statement.clone();
    match rows(On::Pool(replica.connection()), statement, capacity, role).await {
        Err(err) if replica.unreachable(&err) => rows(On::Pool(reader.primary()), again, capacity, role).await,
        done => {
            replica.reached();
            done
        }
    }
}

/// What `read` answers on the reader's replica when it has one it may try, else (or when the replica cannot be
/// reached) on its primary: [`read_rows`] for a read that is more than one statement (an aggregate's bounded
/// transaction, `aggregate/bounded.rs`).
pub(crate) async fn read_with<'a, T, F, Fut>(reader: Reader<'a>, read: F) -> Result<T, DbErr>
where
    F: Fn(&'a DatabaseConnection) -> Fut,
    Fut: Future<Output = Result<T, DbErr>>,
{
    let Some(replica) = reader.replica().filter(|replica| replica.try_now()) else {
        return read(reader.primary()).await;
    };
    match read(replica.connection()).await {
        Err(err) if replica.unreachable(&err) => read(reader.primary()).await,
        done => {
            replica.reached();
            done
        }
    }
}

/// The first row of `statement` ([`row`]) read on `on`: through a reader as [`read_rows`] reads, or in a
/// transaction. Without a replica to try (the common case) this is [`row`]'s own future, without a level of its own.
pub(crate) fn read_row<'a>(
    on: ReadOn<'a>,
    statement: Statement,
    role: &'static str,
) -> impl Future<Output = Result<Option<QueryResult>, DbErr>> + Send + 'a {
    let reader = match on {
        ReadOn::Reader(reader) => reader,
        ReadOn::Txn(txn) => return Either::Left(row(On::Txn(txn), statement, role)),
    };
    match reader.replica().filter(|replica| replica.try_now()) {
        None => Either::Left(row(On::Pool(reader.primary()), statement, role)),
        Some(replica) => Either::Right(async move {
            let again = statement.clone();
            match row(On::Pool(replica.connection()), statement, role).await {
                Err(err) if replica.unreachable(&err) => row(On::Pool(reader.primary()), again, role).await,
                done => {
                    replica.reached();
                    done
                }
            }
        }),
    }
}
