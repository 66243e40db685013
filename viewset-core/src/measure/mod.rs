//! What the framework counts and times, named in one place: each function here is called where the measured thing
//! happens (a request's answer in the limits layer, a statement in the store's hook, an event on the bus, a claim
//! of an `Idempotency-Key`), with labels that are operation ids, status classes, limits, scopes and statement
//! kinds, never paths, ids or principals.
//!
//! With the `metrics` feature each call records into the process-wide registry (`registry.rs`) that
//! [`crate::metrics`] serves; without it every function is empty and every type zero-sized, so the calls compile
//! to nothing. The per-request line of the access log ([`Started`], target `viewset::access`) is written with or
//! without the feature, when a subscriber wants it.

use std::time::Instant;

use axum::http::{HeaderValue, Method, StatusCode};

#[cfg(feature = "metrics")]
pub(crate) mod registry;

/// Whether this build records metrics (the `metrics` feature).
pub(crate) const ON: bool = cfg!(feature = "metrics");

/// The target of the access log: one `INFO` event per request with its operation, status and latency.
pub(crate) const ACCESS_TARGET: &str = "viewset::access";

/// The operation a request was routed to, for its metrics and its access-log line: a generated route's
/// `operationId` (`posts_list`), or [`Route::OTHER`] for every request no generated route answered.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Route(&'static RouteName);

/// A route's name and, with the feature, the handles of its series (made on its first request).
#[derive(Debug)]
pub(crate) struct RouteName {
    operation: &'static str,
    #[cfg(feature = "metrics")]
    handles: std::sync::OnceLock<registry::RouteHandles>,
}

impl Route {
    /// Requests no generated route answered: refused by a limit, a 404, `/openapi.json`, an action, the
    /// application's own routes.
    pub(crate) const OTHER: Route = Route(&OTHER);

    /// The route whose operation id is `operation` (made when the routes are registered; one per operation id
    /// for the process, however many routers an application builds).
    pub(crate) fn named(operation: String) -> Route {
        static NAMED: std::sync::Mutex<Vec<&'static RouteName>> = std::sync::Mutex::new(Vec::new());
        let mut named = NAMED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(route) = named.iter().find(|route| route.operation == operation) {
            return Route(route);
        }
        let route: &'static RouteName = Box::leak(Box::new(RouteName {
            operation: Box::leak(operation.into_boxed_str()),
            #[cfg(feature = "metrics")]
            handles: std::sync::OnceLock::new(),
        }));
        named.push(route);
        // Its series exist from now on, at 0 until its first request.
        #[cfg(feature = "metrics")]
        registry::get().route(route);
        Route(route)
    }

    /// The operation id.
    pub(crate) fn operation(self) -> &'static str {
        self.0.operation
    }
}

/// The name of [`Route::OTHER`].
static OTHER: RouteName = RouteName {
    operation: "other",
    #[cfg(feature = "metrics")]
    handles: std::sync::OnceLock::new(),
};

/// Where a generated route names itself for the request it serves (a field of the limits' task-local): the
/// limits layer reads it when the answer is ready.
#[derive(Debug, Default)]
pub(crate) struct RouteCell(std::cell::Cell<Option<Route>>);

impl RouteCell {
    /// Names the route.
    pub(crate) fn set(&self, route: Route) {
        self.0.set(Some(route));
    }

    /// The named route, or [`Route::OTHER`].
    pub(crate) fn get(&self) -> Route {
        self.0.get().unwrap_or(Route::OTHER)
    }
}

/// When a request entered the limits layer, when its metrics or its access-log line need it, and what the
/// access-log line says of it. With the feature it also counts the request in flight until it is dropped.
#[derive(Debug)]
pub(crate) struct Started {
    at: Option<Instant>,
    /// The method and path (without the query) for the access log, when a subscriber wants that line.
    access: Option<Box<(Method, String)>>,
    /// The trace the request belongs to, for the access log (feature `otel`, when an export layer records it).
    trace_id: std::cell::OnceCell<String>,
}

impl Started {
    /// A request entering now, with `method` and `path`.
    pub(crate) fn now(method: &Method, path: &str) -> Started {
        let access = tracing::enabled!(target: ACCESS_TARGET, tracing::Level::INFO)
            .then(|| Box::new((method.clone(), path.to_string())));
        let at = (ON || access.is_some()).then(Instant::now);
        #[cfg(feature = "metrics")]
        registry::get().http.in_flight.inc();
        Started { at, access, trace_id: std::cell::OnceCell::new() }
    }

    /// Whether this request's access-log line is written (so its trace id is worth reading).
    #[cfg(feature = "otel")]
    pub(crate) fn logs_access(&self) -> bool {
        self.access.is_some()
    }

    /// The trace the request runs in, for its access-log line.
    #[cfg(feature = "otel")]
    pub(crate) fn traced(&self, trace_id: Option<String>) {
        if let Some(trace_id) = trace_id {
            let _ = self.trace_id.set(trace_id);
        }
    }

    /// The request was answered `status` by `route`: counted and timed, and its access-log line written.
    pub(crate) fn finish(&mut self, route: Route, status: StatusCode, id: Option<&HeaderValue>) {
        let Some(at) = self.at.take() else { return };
        let elapsed = at.elapsed();
        #[cfg(feature = "metrics")]
        registry::get().request(route.0, status, elapsed);
        if let Some(access) = self.access.take() {
            let (method, path) = &*access;
            tracing::info!(
                target: ACCESS_TARGET,
                operation = route.operation(),
                method = %method,
                path = %path,
                status = status.as_u16(),
                latency_ms = elapsed.as_secs_f64() * 1000.0,
                request_id = id.and_then(|id| id.to_str().ok()).unwrap_or(""),
                // Absent (not empty) when the request is not traced.
                trace_id = self.trace_id.get().map(String::as_str),
                "request"
            );
        }
    }
}

#[cfg(feature = "metrics")]
impl Drop for Started {
    fn drop(&mut self) {
        registry::get().http.in_flight.dec();
    }
}

/// A request refused by the transport limit `limit` (`max_uri_bytes`, `max_body_bytes`, `max_header_bytes`,
/// `request_timeout`).
#[inline]
pub(crate) fn rejected(limit: &'static str) {
    #[cfg(feature = "metrics")]
    registry::get().http.rejected.get_or_create(&[("limit", limit)]).inc();
    let _ = limit;
}

/// A request shed by `limit` (`max_in_flight`, `max_streams`): 503 `overloaded`.
#[inline]
pub(crate) fn shed(limit: &'static str) {
    #[cfg(feature = "metrics")]
    registry::get().http.shed.get_or_create(&[("limit", limit)]).inc();
    let _ = limit;
}

/// A request throttled (429) by the rule of `scope` (`anon`, `user`, or a ViewSet's declared scope).
#[inline]
pub(crate) fn throttled(scope: &'static str) {
    #[cfg(feature = "metrics")]
    registry::get().http.throttled.get_or_create(&[("scope", scope)]).inc();
    let _ = scope;
}

/// A statement of kind `kind` (its role in the store: `page`, `count`, `lookup`, `insert`, …) before it is sent;
/// [`Statement::finish`] times it.
#[derive(Debug)]
pub(crate) struct Statement {
    #[cfg(feature = "metrics")]
    kind: &'static str,
    #[cfg(feature = "metrics")]
    at: Instant,
}

/// A statement of kind `kind`, starting now.
#[inline]
pub(crate) fn statement(kind: &'static str) -> Statement {
    let _ = kind;
    Statement {
        #[cfg(feature = "metrics")]
        kind,
        #[cfg(feature = "metrics")]
        at: Instant::now(),
    }
}

impl Statement {
    /// The statement returned (or failed).
    #[inline]
    pub(crate) fn finish(self) {
        #[cfg(feature = "metrics")]
        registry::get().statement(self.kind, self.at.elapsed());
    }
}

/// An answer 503 `database_busy` (a lock the database gave up on).
#[inline]
pub(crate) fn database_busy() {
    #[cfg(feature = "metrics")]
    registry::get().db.busy.inc();
}

/// A read served by the read replica.
#[inline]
pub(crate) fn replica_read() {
    #[cfg(feature = "metrics")]
    registry::get().db.replica_reads.inc();
}

/// What became of an `Idempotency-Key`: `claimed` (the write runs), `replayed` (a stored answer), `conflict` (a
/// 409 while the first request runs, or a 422 for a key reused with another request).
#[inline]
pub(crate) fn idempotency(outcome: &'static str) {
    #[cfg(feature = "metrics")]
    registry::get().db.idempotency.get_or_create(&[("outcome", outcome)]).inc();
    let _ = outcome;
}

/// An event handed to this process's stream subscribers (each instance counts every event it receives).
#[inline]
pub(crate) fn event_delivered() {
    #[cfg(feature = "metrics")]
    registry::get().events.delivered.inc();
}

/// An event published by this process (written with its change on a durable bus, or sent in process).
#[inline]
pub(crate) fn event_published() {
    #[cfg(feature = "metrics")]
    registry::get().events.published.inc();
}

/// A relay of outbox rows to JetStream, starting now; [`Statement::finish`] times it (publish until every
/// acknowledgement came back) as `viewset_events_relay_duration_seconds`.
#[cfg(feature = "nats")]
#[inline]
pub(crate) fn relay() -> Statement {
    statement(RELAY)
}

/// The kind under which [`relay`] is timed (its own series, not a statement's).
#[cfg(any(feature = "nats", feature = "metrics"))]
pub(crate) const RELAY: &str = "jetstream_publish";

/// An attempt to deliver a webhook and its outcome: `delivered` (a 2xx), `failed` (to be retried), `dead_lettered`
/// (given up on).
#[cfg(feature = "webhooks")]
#[inline]
pub(crate) fn webhook(outcome: &'static str) {
    #[cfg(feature = "metrics")]
    registry::get().events.webhooks.get_or_create(&[("outcome", outcome)]).inc();
    let _ = outcome;
}

/// Makes the registry now, so the process's start time is close to the process's start (called when a
/// [`crate::ServiceState`] is made).
#[inline]
pub(crate) fn touch() {
    #[cfg(feature = "metrics")]
    let _ = registry::get();
}
