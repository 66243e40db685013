//! Transport limits, each refused with a JSON error naming the limit, and JSON for every other error a layer or
//! axum answers on its own (405, 413, 415, …). [`Limits::apply`] puts them on a router:
//!
//! | limit | default | refused with |
//! |---|---|---|
//! | `max_body_bytes` | 1 MiB | 413 `payload_too_large` |
//! | `max_uri_bytes` | 8 KiB | 414 `uri_too_long` |
//! | `max_header_bytes` (names and values together) | 16 KiB | 431 `request_header_fields_too_large` |
//! | `request_timeout` (until the response starts; a stream's later events are not cut) | 30 s | 503 `request_timeout` |
//! | `max_in_flight` (requests of this instance whose response has not started) | 1,024 | 503 `overloaded`, `Retry-After` |
//! | `max_streams` (open event streams of this instance) | 10,000 | 503 `overloaded`, `Retry-After` |
//!
//! hyper itself answers larger URIs (over 64 KiB) and headers (over about 400 KiB, or more than 100 headers)
//! before any application code runs; below those, these limits answer first, in JSON.
//!
//! ```
//! # async fn run(db: sea_orm::DatabaseConnection) {
//! use viewset_core::limits::Limits;
//! let limits = Limits::default().with_max_body_bytes(64 * 1024);
//! let app: axum::Router = limits.apply(viewset_core::Api::new().into_router().with_state(viewset_core::ServiceState::new(db)));
//! # }
//! ```

use std::convert::Infallible;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::future::Either;
use tower::layer::util::{Identity, Stack};
use tracing::Instrument;

use crate::error::ApiError;
use answer::LimitsFuture;

mod answer;
mod deadline;
mod setters;
pub mod shed;

use shed::{Slot, Slots};

/// The transport limits of an application (see the [module](self) for defaults and answers): start from
/// [`Limits::default`] and set what changes (`Limits::default().with_max_body_bytes(64 * 1024)`); new limits may be
/// added in a minor release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Largest request body, in bytes (413).
    pub max_body_bytes: usize,
    /// Longest request target (path and query), in bytes (414).
    pub max_uri_bytes: usize,
    /// Largest sum of header name and value lengths, in bytes (431).
    pub max_header_bytes: usize,
    /// Longest time until the response starts (503 `request_timeout`).
    pub request_timeout: Duration,
    /// Most requests in flight in this instance, counted until their response starts; beyond it a request is
    /// answered at once with 503 `overloaded` and `Retry-After` ([`shed`]). `None`: no bound.
    pub max_in_flight: Option<usize>,
    /// Most open event streams in this instance (they do not count as in flight once their answer started).
    pub max_streams: Option<usize>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body_bytes: 1024 * 1024,
            max_uri_bytes: 8 * 1024,
            max_header_bytes: 16 * 1024,
            request_timeout: Duration::from_secs(30),
            max_in_flight: Some(1024),
            max_streams: Some(10_000),
        }
    }
}

impl Limits {
    /// `router` with these limits, and every non-JSON error response of the router and its layers rewritten as
    /// JSON (`{"detail", "code"}`). Every request gets an `x-request-id` (the client's, or a new UUID; echoed in the
    /// response, recorded on the `request` tracing span around the handler); a 5xx is logged with it and carries
    /// it in its body (`"request_id"`), so a user's report leads to the log line. Apply it last (outermost), after
    /// routes, fallback and other layers: like any `Router::layer`, it wraps the routes and the fallback `router`
    /// has, so a route added or merged into the router afterwards is not limited.
    pub fn apply(self, router: Router) -> Router {
        // One service per route rather than the whole router behind the fallback of an outer one: measured under
        // callgrind, the second routing step cost more than the extra boxed level a `Router::layer` adds.
        router.layer(self.layer())
    }

    /// The limits as one tower layer, for an application that puts several layers on its router: stacked in one
    /// `tower::ServiceBuilder` (outermost first) and given to a single `Router::layer`, they wrap each route once.
    /// Every `Router::layer` call wraps each route in another boxed service, which is cloned and boxes its future on
    /// every request (two allocations; `bench/profile.sh`). [`Limits::apply`] is `router.layer(limits.layer())`.
    ///
    /// ```
    /// # async fn run(db: sea_orm::DatabaseConnection) {
    /// use viewset_core::limits::Limits;
    /// use viewset_core::{Api, ServiceState};
    /// let layers = tower::ServiceBuilder::new()
    ///     .layer(tower_http::trace::TraceLayer::new_for_http()) // outermost
    ///     .layer(Limits::default().layer())
    ///     .layer(axum::Extension("settings")); // innermost, around each route
    /// let app: axum::Router = Api::new().into_router().with_state(ServiceState::new(db)).layer(layers);
    /// # }
    /// ```
    pub fn layer(self) -> LimitsStack {
        // axum's extractors read at most 2 MB of a body unless told otherwise; the body is limited here already, so
        // they are only told when the limit is above theirs.
        let raised = (self.max_body_bytes > AXUM_BODY_LIMIT).then(|| DefaultBodyLimit::max(self.max_body_bytes));
        let in_flight = Slots::new(self.max_in_flight, "max_in_flight");
        let streams = Slots::new(self.max_streams, "max_streams");
        tower::ServiceBuilder::new().layer(LimitsLayer { limits: self, in_flight, streams }).option_layer(raised)
    }

    fn refuse(&self, status: StatusCode, limit: &'static str, detail: String) -> Response {
        crate::measure::rejected(limit);
        ApiError::Limit { status, limit, detail }.into_response()
    }
}

/// The `max_uri_bytes` in force for the request being served ([`UriLimit::current`], read into
/// [`crate::RequestContext::max_uri_bytes`]).
///
/// ```
/// let limit = viewset_core::limits::UriLimit(8192);
/// assert_eq!(limit.0, viewset_core::limits::Limits::default().max_uri_bytes);
/// assert!(viewset_core::limits::UriLimit::current().is_none()); // not inside a request under `Limits::apply`
/// ```
#[derive(Debug, Clone, Copy)]
pub struct UriLimit(pub usize);

/// What the [`Limits`] the running request passed through tell its handler.
pub(crate) struct InForce {
    uri: UriLimit,
    streams: Option<Slots>,
    /// The generated route serving the request, named by it for the metrics and the access log ([`name_route`]).
    route: crate::measure::RouteCell,
}

tokio::task_local! {
    /// The limits in force for the running request. A task-local rather than a request extension: axum inserts
    /// three extensions of its own, and a fourth grows the request's extension map (a new table and a rehash on
    /// every request).
    static IN_FORCE: InForce;
}

impl UriLimit {
    /// The limit of the request this task is serving, when it came through [`Limits::apply`]'s layer (its handler
    /// and extractors run inside it); `None` elsewhere (another task, no `Limits`).
    pub fn current() -> Option<UriLimit> {
        IN_FORCE.try_with(|in_force| in_force.uri).ok()
    }
}

impl InForce {
    /// The route that named itself ([`crate::measure::Route::OTHER`] when none did).
    fn route(&self) -> crate::measure::Route {
        self.route.get()
    }
}

/// Names the generated route serving the request this task is serving, for its metrics and access-log line.
pub(crate) fn name_route(route: crate::measure::Route) {
    let _ = IN_FORCE.try_with(|in_force| in_force.route.set(route));
    tracing::Span::current().record("operation", route.operation());
}

/// A place for an event stream of the request this task is serving, held until the stream ends: `Ok(None)` when no
/// `max_streams` bounds it, [`shed::Shed`] (503 `overloaded`) when every place is taken.
pub(crate) fn stream_slot() -> Result<Option<Slot>, shed::Shed> {
    match IN_FORCE.try_with(|in_force| in_force.streams.as_ref().map(Slots::take)) {
        Ok(Some(taken)) => taken.map(Some),
        _ => Ok(None),
    }
}

/// The request id, URI, announced body and header sizes before the request runs, the body cut at its limit, the
/// timeout and the `request` span around it, then the JSON form of error answers and the id echoed: one service
/// rather than six layers (tower-http's body limit and set and propagate request-id layers, axum's
/// `DefaultBodyLimit` and two `axum::middleware` layers, which each cloned the boxed route below them and boxed
/// another future on every request).
///
/// ```
/// let stack = viewset_core::limits::Limits::default().layer(); // a `LimitsLayer` and axum's body limit, if raised
/// # let _: viewset_core::limits::LimitsStack = stack;
/// ```
#[derive(Debug, Clone)]
pub struct LimitsLayer {
    limits: Limits,
    /// Shared by every route's service: the count is the instance's.
    in_flight: Option<Slots>,
    streams: Option<Slots>,
}

/// What [`Limits::layer`] returns: [`LimitsLayer`], then axum's `DefaultBodyLimit` raised to `max_body_bytes` where
/// that is above axum's own 2 MB.
///
/// ```
/// let stack: viewset_core::limits::LimitsStack = viewset_core::limits::Limits::default().layer();
/// ```
pub type LimitsStack =
    tower::ServiceBuilder<Stack<tower::util::Either<DefaultBodyLimit, Identity>, Stack<LimitsLayer, Identity>>>;

impl<S> tower::Layer<S> for LimitsLayer {
    type Service = LimitsService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        let (in_flight, streams) = (self.in_flight, self.streams);
        LimitsService { limits: self.limits, in_flight, streams, inner }
    }
}

/// The service of [`LimitsLayer`] around the service `S` it limits.
///
/// ```
/// use tower::Layer;
/// let limited = viewset_core::limits::Limits::default().layer().layer(axum::Router::<()>::new());
/// # let _ = limited;
/// ```
#[derive(Debug, Clone)]
pub struct LimitsService<S> {
    limits: Limits,
    in_flight: Option<Slots>,
    streams: Option<Slots>,
    inner: S,
}

impl<S, B> tower::Service<Request> for LimitsService<S>
where
    S: tower::Service<Request, Response = axum::http::Response<B>, Error = Infallible> + Send + 'static,
    S::Future: Send + 'static,
    B: axum::body::HttpBody<Data = axum::body::Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = LimitsFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        let limits = self.limits;
        let started = crate::measure::Started::now(request.method(), request.uri().path());
        let id = match request.headers().get(REQUEST_ID) {
            Some(theirs) => theirs.clone(),
            None => {
                let ours = new_request_id();
                request.headers_mut().insert(REQUEST_ID, ours.clone());
                ours
            }
        };
        if let Some(refused) = limits.refusal(&request) {
            return LimitsFuture::done(limits, refused, id, started);
        }
        let slot = match self.in_flight.as_ref().map(Slots::take).transpose() {
            Ok(slot) => slot,
            Err(shed) => return LimitsFuture::done(limits, shed.into_response(), id, started),
        };
        // A body without a known length is cut at the limit as it is read (413 from the extractor that reads it).
        // One whose length is known and within the limit (hyper holds a `Content-Length` body to that length; an
        // empty GET is 0) is not wrapped: the wrapper cost an allocation and a level on every read.
        let within =
            axum::body::HttpBody::size_hint(request.body()).upper().is_some_and(|n| n <= limits.max_body_bytes as u64);
        let request = if within {
            request
        } else {
            request.map(|body| Body::new(http_body_util::Limited::new(body, limits.max_body_bytes)))
        };
        let operation = tracing::field::Empty; // recorded by the generated route (`name_route`)
        let span = tracing::info_span!("request", request_id = id.to_str().unwrap_or(""), operation);
        // No subscriber wants the span: the request runs without entering it on every poll.
        let run = if span.is_disabled() {
            Either::Right(self.inner.call(request))
        } else {
            #[cfg(feature = "otel")]
            started.traced(crate::trace::adopt(&span, request.headers(), started.logs_access()));
            Either::Left(span.in_scope(|| self.inner.call(request)).instrument(span))
        };
        deadline::KEEPER.keep_ahead_of(limits.request_timeout);
        let route = crate::measure::RouteCell::default();
        let in_force = InForce { uri: UriLimit(limits.max_uri_bytes), streams: self.streams, route };
        // The task-local outside the timeout: its value (the route's name) is taken back once the answer is ready.
        let run = IN_FORCE.scope(in_force, tokio::time::timeout(limits.request_timeout, run));
        LimitsFuture::running(limits, run, id, slot, started)
    }
}

impl Limits {
    /// The answer to a request whose URI, announced body length or headers are over the limits, before it runs.
    fn refusal(&self, request: &Request) -> Option<Response> {
        let uri_len = request.uri().path_and_query().map_or(0, |pq| pq.as_str().len());
        if uri_len > self.max_uri_bytes {
            let detail = format!("The request URI is {uri_len} bytes; at most {} are accepted.", self.max_uri_bytes);
            return Some(self.refuse(StatusCode::URI_TOO_LONG, "max_uri_bytes", detail));
        }
        let announced =
            request.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
        if announced.is_some_and(|length| length > self.max_body_bytes as u64) {
            let detail = format!("The request body is larger than {} bytes.", self.max_body_bytes);
            return Some(self.refuse(StatusCode::PAYLOAD_TOO_LARGE, "max_body_bytes", detail));
        }
        let header_len: usize = request.headers().iter().map(|(name, value)| name.as_str().len() + value.len()).sum();
        if header_len > self.max_header_bytes {
            let detail =
                format!("The request headers are {header_len} bytes; at most {} are accepted.", self.max_header_bytes);
            return Some(self.refuse(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, "max_header_bytes", detail));
        }
        None
    }
}

/// The most axum's body extractors read without a `DefaultBodyLimit` (axum-core's `DEFAULT_LIMIT`).
const AXUM_BODY_LIMIT: usize = 2_097_152;

/// The request-id header `Limits::apply` sets and echoes.
const REQUEST_ID: header::HeaderName = header::HeaderName::from_static("x-request-id");

/// A new request id: a random (version 4) UUID, written without the formatting machinery into one shared buffer,
/// so the copies in the request and the response share it (a copied header value's first clone allocates again).
fn new_request_id() -> header::HeaderValue {
    let mut text = [0u8; uuid::fmt::Hyphenated::LENGTH];
    uuid::Uuid::new_v4().hyphenated().encode_lower(&mut text);
    header::HeaderValue::from_maybe_shared(bytes::Bytes::from_owner(text)).expect("a UUID is a valid header value")
}

/// Whether this process is shutting down: set once by [`begin_shutdown`], watched by every event stream.
static SHUTDOWN: std::sync::LazyLock<tokio::sync::watch::Sender<bool>> =
    std::sync::LazyLock::new(|| tokio::sync::watch::channel(false).0);

/// Starts this process's shutdown for the event streams: each open stream (and any opened from now on) gets a
/// final `event: reset` with `"reason": "shutdown"` (and a `retry:` hint) and ends, so a graceful shutdown that
/// waits for open connections is not held up by streams that never finish. [`shutdown_signal`] calls it; call it
/// yourself when you stop the server on some other signal.
///
/// ```no_run
/// # async fn run(app: axum::Router, stop: tokio::sync::oneshot::Receiver<()>) -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8000").await?;
/// axum::serve(listener, app.into_make_service())
///     .with_graceful_shutdown(async move {
///         let _ = stop.await;
///         viewset_core::limits::begin_shutdown();
///     })
///     .await
/// # }
/// ```
pub fn begin_shutdown() {
    SHUTDOWN.send_replace(true);
}

/// Resolves once [`begin_shutdown`] was called (at once if it already was).
pub(crate) async fn shutting_down() {
    let mut receiver = SHUTDOWN.subscribe();
    // The sender is a static: it is never dropped, so `wait_for` only returns once the flag is set.
    let _ = receiver.wait_for(|down| *down).await;
}

/// Resolves on ctrl-c or (on Unix) SIGTERM: pass it to `axum::serve(...).with_graceful_shutdown` so in-flight
/// requests finish before the process exits. It also calls [`begin_shutdown`], which ends every open event
/// stream with a final `reset` event (`"reason": "shutdown"`).
///
/// ```no_run
/// # async fn run(app: axum::Router) -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8000").await?;
/// axum::serve(listener, app.into_make_service())
///     .with_graceful_shutdown(viewset_core::limits::shutdown_signal())
///     .await
/// # }
/// ```
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
    tracing::info!("shutting down: finishing in-flight requests, closing event streams");
    begin_shutdown();
}

#[cfg(test)]
mod tests;
