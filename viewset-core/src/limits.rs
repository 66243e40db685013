//! Transport limits, each refused with a JSON error naming the limit, and JSON for every other error a layer or
//! axum answers on its own (405, 413, 415, …). [`Limits::apply`] puts them on a router:
//!
//! | limit | default | refused with |
//! |---|---|---|
//! | `max_body_bytes` | 1 MiB | 413 `payload_too_large` |
//! | `max_uri_bytes` | 8 KiB | 414 `uri_too_long` |
//! | `max_header_bytes` (names and values together) | 16 KiB | 431 `request_header_fields_too_large` |
//! | `request_timeout` (until the response starts; a stream's later events are not cut) | 30 s | 503 `request_timeout` |
//!
//! hyper itself answers larger URIs (over 64 KiB) and headers (over about 400 KiB, or more than 100 headers)
//! before any application code runs; below those, these limits answer first, in JSON.
//!
//! ```
//! # async fn run(db: sea_orm::DatabaseConnection) {
//! use viewset_core::limits::Limits;
//! let limits = Limits { max_body_bytes: 64 * 1024, ..Limits::default() };
//! let app: axum::Router = limits.apply(viewset_core::Api::new().into_router().with_state(viewset_core::ServiceState::new(db)));
//! # }
//! ```

use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::error::ApiError;

/// The transport limits of an application (see the [module](self) for defaults and answers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest request body, in bytes (413).
    pub max_body_bytes: usize,
    /// Longest request target (path and query), in bytes (414).
    pub max_uri_bytes: usize,
    /// Largest sum of header name and value lengths, in bytes (431).
    pub max_header_bytes: usize,
    /// Longest time until the response starts (503 `request_timeout`).
    pub request_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body_bytes: 1024 * 1024,
            max_uri_bytes: 8 * 1024,
            max_header_bytes: 16 * 1024,
            request_timeout: Duration::from_secs(30),
        }
    }
}

impl Limits {
    /// `router` with these limits, and every non-JSON error response of the router and its layers rewritten as
    /// JSON (`{"detail", "code"}`). Every request gets an `x-request-id` (the client's, or a new UUID; echoed in the
    /// response, recorded on the `request` tracing span around the handler); a 5xx is logged with it and carries
    /// it in its body (`"request_id"`), so a user's report leads to the log line. Apply it last (outermost), after
    /// routes, fallback and other layers.
    pub fn apply<S: Clone + Send + Sync + 'static>(self, router: Router<S>) -> Router<S> {
        use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
        // One `Router::layer` with the whole stack, outermost first: each `Router::layer` boxes every route once
        // more, and a request clones the boxed chain below each level (quadratic in the number of levels).
        router.layer(
            tower::ServiceBuilder::new()
                .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
                .layer(PropagateRequestIdLayer::x_request_id())
                .layer(middleware::map_response_with_state(self, json_errors))
                .layer(middleware::from_fn_with_state(self, enforce))
                .layer(tower_http::limit::RequestBodyLimitLayer::new(self.max_body_bytes))
                .layer(DefaultBodyLimit::max(self.max_body_bytes)),
        )
    }

    fn refuse(&self, status: StatusCode, limit: &'static str, detail: String) -> Response {
        ApiError::Limit { status, limit, detail }.into_response()
    }
}

/// URI and header sizes before the request runs, then the timeout around it.
/// The `max_uri_bytes` in force, as a request extension (read into [`crate::RequestContext::max_uri_bytes`]).
///
/// ```
/// let limit = viewset_core::limits::UriLimit(8192);
/// assert_eq!(limit.0, viewset_core::limits::Limits::default().max_uri_bytes);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct UriLimit(pub usize);

async fn enforce(State(limits): State<Limits>, mut request: Request, next: Next) -> Response {
    request.extensions_mut().insert(UriLimit(limits.max_uri_bytes));
    let uri_len = request.uri().path_and_query().map_or(0, |pq| pq.as_str().len());
    if uri_len > limits.max_uri_bytes {
        let detail = format!("The request URI is {uri_len} bytes; at most {} are accepted.", limits.max_uri_bytes);
        return limits.refuse(StatusCode::URI_TOO_LONG, "max_uri_bytes", detail);
    }
    let header_len: usize = request.headers().iter().map(|(name, value)| name.as_str().len() + value.len()).sum();
    if header_len > limits.max_header_bytes {
        let detail =
            format!("The request headers are {header_len} bytes; at most {} are accepted.", limits.max_header_bytes);
        return limits.refuse(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, "max_header_bytes", detail);
    }
    let id = request.headers().get(REQUEST_ID).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let span = tracing::info_span!("request", request_id = %id);
    let run = tracing::Instrument::instrument(next.run(request), span);
    let response = match tokio::time::timeout(limits.request_timeout, run).await {
        Ok(response) => response,
        Err(_) => {
            let detail = format!("The request did not complete within {:?}.", limits.request_timeout);
            limits.refuse(StatusCode::SERVICE_UNAVAILABLE, "request_timeout", detail)
        }
    };
    if response.status().is_server_error() { with_request_id(response, &id).await } else { response }
}

/// The request-id header `Limits::apply` sets and echoes.
const REQUEST_ID: &str = "x-request-id";

/// A 5xx answer, logged with the request id, its JSON body carrying `"request_id"`.
async fn with_request_id(response: Response, id: &str) -> Response {
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, 64 * 1024).await.unwrap_or_default();
    let mut value: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_else(|_| json!({}));
    let code = value.get("code").and_then(|c| c.as_str()).unwrap_or("").to_string();
    tracing::error!(request_id = %id, status = parts.status.as_u16(), code = %code, "request failed");
    if let Some(object) = value.as_object_mut() {
        object.insert("request_id".into(), json!(id));
    }
    let mut response = Response::from_parts(parts, Body::from(value.to_string()));
    response.headers_mut().remove(header::CONTENT_LENGTH);
    response
}

/// Error responses that are not JSON (axum's rejections and 405s, tower-http's 413) become JSON.
async fn json_errors(State(limits): State<Limits>, response: Response) -> Response {
    let status = response.status();
    let content_type = response.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    if !(status.is_client_error() || status.is_server_error()) || content_type.contains("json") {
        return response;
    }
    if status == StatusCode::PAYLOAD_TOO_LARGE {
        let detail = format!("The request body is larger than {} bytes.", limits.max_body_bytes);
        return limits.refuse(status, "max_body_bytes", detail);
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 16 * 1024).await.unwrap_or_default();
    let reason = status.canonical_reason().unwrap_or("Error");
    let detail = match std::str::from_utf8(&text).map(str::trim) {
        Ok(text) if !text.is_empty() => text.to_string(),
        _ => format!("{reason}."),
    };
    let code = reason.to_lowercase().replace([' ', '-'], "_");
    let mut response = Response::from_parts(parts, Body::from(json!({"detail": detail, "code": code}).to_string()));
    response.headers_mut().remove(header::CONTENT_LENGTH);
    response.headers_mut().insert(header::CONTENT_TYPE, header::HeaderValue::from_static("application/json"));
    response
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
/// axum::serve(listener, app)
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
/// axum::serve(listener, app).with_graceful_shutdown(viewset_core::limits::shutdown_signal()).await
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
