//! The `request` every handler and hook receives, and the state the routes need. What a request can reach beyond its
//! own ViewSet (the registered ViewSets, the relations it embeds) is in `request/embedders.rs`, re-exported by
//! [`crate::embed`].

pub(crate) mod embedders;
pub(crate) mod nested;
pub(crate) mod registry;
pub(crate) mod replica;
mod state;

use axum::extract::{ConnectInfo, FromRef, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, Uri};
use sea_orm::DatabaseConnection;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use crate::bus::event_bus::EventBus;
use crate::throttle::Throttle;
use crate::types::operation::Operation;
use crate::types::params::QueryParams;
use crate::types::principal::Principal;
use embedders::{Embedders, Expand, SharedEmbedders};
pub use replica::{REPLICA_RETRY_AFTER, Reader, Replica};
pub use state::{DEFAULT_IDEMPOTENCY_RETENTION, ServiceState};

/// One request as handlers see it: the database, the server-owned principal, method, URI, headers, the
/// decoded query and the operation being performed.
///
/// What the framework decides while admitting the request (the operation, the hidden, restricted and omitted
/// fields, the embedded relations, the URI bound) is read through methods and cannot be overwritten by a handler;
/// the rest are fields. Made by the generated routes, by `RequestContext` as an axum extractor, or by
/// [`RequestContext::new`] (the struct is `#[non_exhaustive]`).
#[derive(Clone, Debug)]
#[non_exhaustive]
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
    /// The operation ([`RequestContext::operation`]); set by the generated route before permissions run.
    pub(crate) operation: Operation,
    /// Decoded query parameters.
    pub query: QueryParams,
    /// Fields this caller may not see ([`RequestContext::hidden_fields`]).
    pub(crate) hidden_fields: Vec<&'static str>,
    /// Fields this caller may not write, filter, search or order by ([`RequestContext::restricted_fields`]).
    pub(crate) restricted_fields: Vec<&'static str>,
    /// Fields `?fields=` left out ([`RequestContext::omitted_fields`]).
    pub(crate) omitted_fields: Vec<&'static str>,
    /// The relations `?expand=` embeds ([`RequestContext::expand`]).
    pub(crate) expand: Expand,
    /// The ViewSets serving embedded records ([`RequestContext::embedders`]).
    pub(crate) embedders: Option<Arc<Embedders>>,
    /// The longest request URI the server accepts ([`RequestContext::max_uri_bytes`]).
    pub(crate) max_uri_bytes: Option<usize>,
    /// The application's throttle ([`ServiceState::throttle`]).
    pub throttle: Throttle,
    /// The connection's peer address, when the server was started with
    /// `into_make_service_with_connect_info::<SocketAddr>()` (anonymous callers are throttled by it).
    pub peer: Option<IpAddr>,
    /// How long an `Idempotency-Key`'s answer is kept ([`ServiceState::idempotency_retention`]).
    pub idempotency_retention: Duration,
    /// A bearer authenticator ([`crate::auth::Authenticate::bearer`] or `jwt`) saw this request: an anonymous caller
    /// refused for lack of an identity is told 401 with `WWW-Authenticate: Bearer`, not 403.
    pub(crate) challenges: bool,
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

    /// The operation being performed; set by the generated route before permissions run.
    ///
    /// ```
    /// # async fn run() -> Result<(), sea_orm::DbErr> {
    /// let db = viewset_core::connect("sqlite::memory:").await?;
    /// let ctx = viewset_core::RequestContext::new(db, viewset_core::Operation::Retrieve);
    /// assert!(ctx.operation().is_safe());
    /// # Ok(()) }
    /// ```
    pub fn operation(&self) -> Operation {
        self.operation
    }

    /// Fields this caller may not see, decided by admission from `Hooks::hidden_fields` (empty before it).
    pub fn hidden_fields(&self) -> &[&'static str] {
        &self.hidden_fields
    }

    /// Fields this caller may not write, filter, search or order by: the hidden ones and the tenant field.
    pub fn restricted_fields(&self) -> &[&'static str] {
        &self.restricted_fields
    }

    /// Fields left out of this response because `?fields=` did not name them (list, retrieve and the stream; set
    /// by [`admit`](crate::access::admit) with [`sparse_fields`](crate::access::sparse_fields)).
    pub fn omitted_fields(&self) -> &[&'static str] {
        &self.omitted_fields
    }

    /// The relations `?expand=` embeds (list and retrieve; set by [`admit`](crate::access::admit)).
    pub fn expand(&self) -> &Expand {
        &self.expand
    }

    /// The ViewSets serving embedded records (given by [`crate::Api::into_router`] to its routes, and to action
    /// routes as a request extension; `None` without an `Api`).
    pub fn embedders(&self) -> Option<&Arc<Embedders>> {
        self.embedders.as_ref()
    }

    /// The longest request URI the server accepts, when [`crate::limits::Limits`] is applied: links the server
    /// writes (a cursor page's `next`) stay within it.
    pub fn max_uri_bytes(&self) -> Option<usize> {
        self.max_uri_bytes
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
    /// let ctx = viewset_core::RequestContext::new(db, viewset_core::Operation::List);
    /// // Admission fills both lists; a context made by hand leaves nothing out.
    /// assert!(ctx.left_out().is_empty());
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
            challenges: false,
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
            challenges: parts.extensions.get::<crate::auth::Challenges>().is_some(),
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
