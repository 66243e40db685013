//! The `request` every handler and hook receives, and the state the routes need. What a request can reach beyond its
//! own ViewSet (the registered ViewSets, the relations it embeds) is in `request/embedders.rs`, re-exported by
//! [`crate::embed`].

pub(crate) mod embedders;
pub(crate) mod replica;

use axum::extract::{ConnectInfo, FromRef, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, Uri};
use sea_orm::DatabaseConnection;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use crate::access::operation::Operation;
use crate::access::principal::Principal;
use crate::events::bus::EventBus;
use crate::query::limits::QueryLimits;
use crate::query::params::QueryParams;
use crate::throttle::Throttle;
use embedders::{Embedders, Expand, SharedEmbedders};
pub use replica::{REPLICA_RETRY_AFTER, Reader, Replica};

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
    ///     .with_query_limits(QueryLimits { max_in_values: 100, ..QueryLimits::DEFAULT });
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

/// One request as handlers see it: the database, the server-owned principal, method, URI, headers, the
/// decoded query and the operation being performed.
#[derive(Clone, Debug)]
pub struct RequestContext {
    /// The database connection: the primary. Reads through the access path pick theirs with
    /// [`RequestContext::reader`].
    pub db: DatabaseConnection,
    /// The read-only connection of [`ServiceState::with_replica`], if any.
    pub replica: Option<Replica>,
    /// The event bus (publish after writes with [`crate::events::publish`]).
    pub events: EventBus,
    /// The caller (anonymous when the application attached none).
    pub principal: Principal,
    /// HTTP method.
    pub method: Method,
    /// Request URI.
    pub uri: Uri,
    /// Request headers.
    pub headers: HeaderMap,
    /// The operation; set by the generated route before permissions run.
    pub operation: Operation,
    /// Decoded query parameters.
    pub query: QueryParams,
    /// Fields this caller may not see (set by the route from `Hooks::hidden_fields`).
    pub hidden_fields: Vec<&'static str>,
    /// Fields this caller may not write, filter, search or order by: the hidden ones and the tenant field.
    pub restricted_fields: Vec<&'static str>,
    /// Fields left out of this response because `?fields=` did not name them (list, retrieve and the stream; set
    /// by [`admit`](crate::access::admit) with [`sparse_fields`](crate::access::sparse_fields)).
    pub omitted_fields: Vec<&'static str>,
    /// The relations `?expand=` embeds (list and retrieve; set by [`admit`](crate::access::admit)).
    pub expand: Expand,
    /// The ViewSets serving embedded records (given by [`crate::Api::into_router`] to its routes, and to action
    /// routes as a request extension; `None` without an `Api`).
    pub embedders: Option<Arc<Embedders>>,
    /// The longest request URI the server accepts, when [`crate::limits::Limits`] is applied: links the server
    /// writes (a cursor page's `next`) stay within it.
    pub max_uri_bytes: Option<usize>,
    /// The application's throttle ([`ServiceState::throttle`]).
    pub throttle: Throttle,
    /// The connection's peer address, when the server was started with
    /// `into_make_service_with_connect_info::<SocketAddr>()` (anonymous callers are throttled by it).
    pub peer: Option<IpAddr>,
    /// How long an `Idempotency-Key`'s answer is kept ([`ServiceState::idempotency_retention`]).
    pub idempotency_retention: Duration,
}

impl RequestContext {
    /// Where this request's reads go, decided here once for every read of the access path, the paginators,
    /// embedding and CSV lists: the replica first (falling back to the primary when it cannot be reached) for a GET
    /// or HEAD when the state has one; the primary for every other request, so a write and the reads it makes
    /// (object permissions, `If-Match`, bulk, upsert, idempotency) never see a lagging copy; and the primary for
    /// the event stream, whose events announce writes a replica may not have replayed yet.
    ///
    /// ```
    /// # async fn run() -> Result<(), sea_orm::DbErr> {
    /// let db = viewset_core::connect("sqlite::memory:").await?;
    /// let mut ctx = viewset_core::RequestContext::new(db.clone(), viewset_core::Operation::List);
    /// assert!(ctx.reader().replica().is_none(), "no replica configured");
    /// ctx.replica = viewset_core::ServiceState::new(db.clone()).with_replica(db).replica;
    /// assert!(ctx.reader().replica().is_some(), "a GET reads the replica");
    /// ctx.method = axum::http::Method::PATCH;
    /// assert!(ctx.reader().replica().is_none(), "a write reads the primary");
    /// # Ok(()) }
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(run()).unwrap();
    /// ```
    pub fn reader(&self) -> Reader<'_> {
        let reads_replica = matches!(self.method, Method::GET | Method::HEAD) && self.operation != Operation::Stream;
        Reader::new(&self.db, self.replica.as_ref().filter(|_| reads_replica))
    }

    /// Whether clients may filter, search or order by `field` in this request.
    pub fn may_query(&self, field: &str) -> bool {
        !self.restricted_fields.contains(&field)
    }

    /// The fields this response leaves out: the hidden ones, then those `?fields=` did not name.
    ///
    /// ```
    /// # async fn run() -> Result<(), sea_orm::DbErr> {
    /// let db = sea_orm::Database::connect("sqlite::memory:").await?;
    /// let mut ctx = viewset_core::RequestContext::new(db, viewset_core::Operation::List);
    /// ctx.hidden_fields = vec!["email"];
    /// ctx.omitted_fields = vec!["bio"];
    /// assert_eq!(ctx.left_out(), ["email", "bio"]);
    /// # Ok(()) }
    /// ```
    pub fn left_out(&self) -> Vec<&'static str> {
        let mut out = self.hidden_fields.clone();
        out.extend(&self.omitted_fields);
        out
    }
}

impl RequestContext {
    /// A context for calling handlers directly (tests, scripts): an anonymous `GET /`.
    ///
    /// ```
    /// # async fn run() -> Result<(), sea_orm::DbErr> {
    /// let db = sea_orm::Database::connect("sqlite::memory:").await?;
    /// let ctx = viewset_core::RequestContext::new(db, viewset_core::Operation::List);
    /// assert!(!ctx.principal.is_authenticated());
    /// # Ok(()) }
    /// ```
    pub fn new(db: DatabaseConnection, operation: Operation) -> Self {
        RequestContext {
            db,
            replica: None,
            events: EventBus::in_process(),
            principal: Principal::anonymous(),
            method: Method::GET,
            uri: Uri::from_static("/"),
            headers: HeaderMap::new(),
            operation,
            query: QueryParams::default(),
            hidden_fields: Vec::new(),
            restricted_fields: Vec::new(),
            omitted_fields: Vec::new(),
            expand: Expand::default(),
            embedders: None,
            max_uri_bytes: None,
            throttle: Throttle::default(),
            peer: None,
            idempotency_retention: DEFAULT_IDEMPOTENCY_RETENTION,
        }
    }
}

impl<S> FromRequestParts<S> for RequestContext
where
    ServiceState: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        // Extractors after this one may read the headers and URI (a user handler's `Json` reads `Content-Type`).
        let (headers, uri) = (parts.headers.clone(), parts.uri.clone());
        let principal = parts.extensions.get::<Principal>().cloned().unwrap_or_default();
        Ok(RequestContext::from_parts(parts, ServiceState::from_ref(state), headers, uri, principal))
    }
}

impl RequestContext {
    /// The context of the request `parts` belong to, with its `headers`, `uri` and `principal`.
    fn from_parts(parts: &Parts, service: ServiceState, headers: HeaderMap, uri: Uri, principal: Principal) -> Self {
        let operation = if parts.method == Method::GET { Operation::List } else { Operation::Create };
        RequestContext {
            db: service.db,
            replica: service.replica,
            events: service.events,
            principal,
            method: parts.method.clone(),
            query: QueryParams::parse_with(uri.query(), service.query_limits),
            uri,
            headers,
            operation,
            hidden_fields: Vec::new(),
            restricted_fields: Vec::new(),
            omitted_fields: Vec::new(),
            expand: Expand::default(),
            embedders: parts.extensions.get::<Arc<Embedders>>().cloned(),
            max_uri_bytes: crate::limits::UriLimit::current().map(|limit| limit.0),
            throttle: service.throttle,
            peer: parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|info| info.0.ip()),
            idempotency_retention: service.idempotency_retention,
        }
    }
}

/// Headers that differ per connection and decide nothing a view shows.
const PER_CONNECTION: [&str; 2] = ["last-event-id", "x-request-id"];

impl RequestContext {
    /// Everything in a request that hooks can read, except [`PER_CONNECTION`]: equal keys mean equal views.
    pub(crate) fn view_key(&self) -> Arc<str> {
        let mut headers: Vec<(&str, &[u8])> = self
            .headers
            .iter()
            .filter(|(name, _)| !PER_CONNECTION.contains(&name.as_str()))
            .map(|(name, value)| (name.as_str(), value.as_bytes()))
            .collect();
        headers.sort();
        format!("{:?}\n{} {}\n{:?}", self.principal, self.method, self.uri, headers).into()
    }
}

impl RequestContext {
    /// The context of a generated route's request: it takes the headers, the URI and the principal of `parts`
    /// instead of copying them (the route's other extractors, the `{pk}` and the body, read none of them), with the
    /// embedders of the route's `Api` once it has become a router (else those of a request extension, if the
    /// application installed one).
    pub(crate) fn of_route(parts: &mut Parts, service: ServiceState, shared: &SharedEmbedders) -> Self {
        let (headers, uri) = (std::mem::take(&mut parts.headers), std::mem::take(&mut parts.uri));
        let principal = parts.extensions.remove::<Principal>().unwrap_or_default();
        let mut context = RequestContext::from_parts(parts, service, headers, uri, principal);
        if let Some(embedders) = shared.get() {
            context.embedders = Some(embedders.clone());
        }
        context
    }
}
