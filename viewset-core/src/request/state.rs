//! [`ServiceState`]: what the generated routes need from the application's state.

use std::time::Duration;

use sea_orm::DatabaseConnection;

use super::replica::Replica;
use crate::bus::event_bus::EventBus;
use crate::throttle::Throttle;
use crate::types::query_limits::QueryLimits;

/// State the generated routes need. Put it in your router's state directly, or implement
/// `FromRef<YourState> for ServiceState`.
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// let db = sea_orm::Database::connect("sqlite::memory:").await?;
/// let state = viewset_core::ServiceState::new(db);
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct ServiceState {
    /// The database connection (pool): the primary, which every write and every read of a write request uses.
    pub db: DatabaseConnection,
    /// A read-only connection GET requests read from ([`ServiceState::with_replica`]).
    pub replica: Option<Replica>,
    /// Lifecycle events for the stream routes.
    pub events: EventBus,
    /// Limits on list query strings ([`ServiceState::with_query_limits`]).
    pub query_limits: QueryLimits,
    /// Rate limits: the application's defaults and where the buckets live ([`ServiceState::with_throttle`]).
    pub throttle: Throttle,
    /// How long an `Idempotency-Key`'s answer is kept ([`ServiceState::with_idempotency_retention`]).
    pub idempotency_retention: Duration,
}

/// How long an `Idempotency-Key`'s answer is kept unless the state says otherwise: 24 hours
/// ([`crate::idempotency`]).
///
/// ```
/// assert_eq!(viewset_core::request::DEFAULT_IDEMPOTENCY_RETENTION.as_secs(), 86_400);
/// ```
pub const DEFAULT_IDEMPOTENCY_RETENTION: Duration = Duration::from_secs(24 * 60 * 60);

impl ServiceState {
    /// State over a connected database, with in-process events.
    pub fn new(db: DatabaseConnection) -> Self {
        ServiceState::with_events(db, EventBus::in_process())
    }

    /// State with the given event bus (e.g. [`EventBus::postgres`] for several processes).
    pub fn with_events(db: DatabaseConnection, events: EventBus) -> Self {
        crate::measure::touch();
        ServiceState {
            db,
            replica: None,
            events,
            query_limits: QueryLimits::DEFAULT,
            throttle: Throttle::default(),
            idempotency_retention: DEFAULT_IDEMPOTENCY_RETENTION,
        }
    }

    /// The same state with other limits on list query strings.
    ///
    /// ```
    /// # async fn run() -> Result<(), sea_orm::DbErr> {
    /// use viewset_core::query::QueryLimits;
    /// let db = sea_orm::Database::connect("sqlite::memory:").await?;
    /// let state = viewset_core::ServiceState::new(db)
    ///     .with_query_limits(QueryLimits::DEFAULT.with_max_in_values(100));
    /// assert_eq!(state.query_limits.max_in_values, 100);
    /// # Ok(()) }
    /// ```
    pub fn with_query_limits(mut self, limits: QueryLimits) -> Self {
        self.query_limits = limits;
        self
    }

    /// The same state with the application's [`Throttle`] (default rates, Redis, trusted proxies). Without one,
    /// only the rates ViewSets declare apply, counted in this process.
    ///
    /// ```
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use viewset_core::throttle::Throttle;
    /// let db = sea_orm::Database::connect("sqlite::memory:").await?;
    /// let state = viewset_core::ServiceState::new(db).with_throttle(Throttle::new().user("600/minute".parse()?));
    /// assert!(state.throttle.defaults().user.is_some());
    /// # Ok(()) }
    /// ```
    pub fn with_throttle(mut self, throttle: Throttle) -> Self {
        self.throttle = throttle;
        self
    }

    /// The same state keeping `Idempotency-Key` answers for `retention` instead of
    /// [`DEFAULT_IDEMPOTENCY_RETENTION`] ([`crate::idempotency`]).
    ///
    /// ```
    /// # async fn run() -> Result<(), sea_orm::DbErr> {
    /// let db = sea_orm::Database::connect("sqlite::memory:").await?;
    /// let hour = std::time::Duration::from_secs(3600);
    /// let state = viewset_core::ServiceState::new(db).with_idempotency_retention(hour);
    /// assert_eq!(state.idempotency_retention, hour);
    /// # Ok(()) }
    /// ```
    pub fn with_idempotency_retention(mut self, retention: Duration) -> Self {
        self.idempotency_retention = retention;
        self
    }

    /// The same state reading GET requests from `replica`, a read-only connection to a streaming replica of the
    /// primary ([`crate::store::connect_replica`] connects one with a short acquire timeout). The list, retrieve and
    /// count of a GET, with its `?expand=` embedding and related filters, and CSV lists, are read there; every
    /// statement of a write request (its object-permission read, the `If-Match` locked read, `RETURNING`, bulk,
    /// upsert, idempotency) and the event stream's visibility reads use the primary. A replica that cannot be
    /// reached falls back to the primary (logged, counted by [`ServiceState::replica_fallbacks`]), never a 503.
    /// A client may not read its own write on a GET right after it (README, "Read replicas").
    ///
    /// # Panics
    ///
    /// When `replica` is another kind of database than the primary.
    ///
    /// ```
    /// # async fn run() -> Result<(), sea_orm::DbErr> {
    /// let primary = viewset_core::connect("sqlite::memory:").await?;
    /// let replica = viewset_core::store::connect_replica("sqlite::memory:").await?;
    /// let state = viewset_core::ServiceState::new(primary).with_replica(replica);
    /// assert!(state.replica.is_some());
    /// assert_eq!(state.replica_fallbacks(), 0);
    /// # Ok(()) }
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(run()).unwrap();
    /// ```
    pub fn with_replica(mut self, replica: DatabaseConnection) -> Self {
        let (primary, read_only) = (self.db.get_database_backend(), replica.get_database_backend());
        assert_eq!(primary, read_only, "a read replica runs the primary's database engine");
        self.replica = Some(Replica::new(replica));
        self
    }

    /// How many reads the primary served because the replica could not be reached ([`Replica::fallbacks`]); 0
    /// without a replica.
    pub fn replica_fallbacks(&self) -> u64 {
        self.replica.as_ref().map_or(0, Replica::fallbacks)
    }
}
