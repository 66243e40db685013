//! `/studio/webhooks`: the Runtime Panel's Webhooks card reads the application's running webhooks (registered with
//! [`Studio::webhooks`]) and acts on them through the same `viewset_core::webhooks::WebhookHandle` the application
//! holds, so Studio keeps nothing of its own: `GET /studio/webhooks` answers each endpoint's feeds (target, last
//! event delivered, lease, failing or disabled), its newest attempts and its dead letters; `POST
//! /studio/webhooks/replay` (`{"endpoint", "event_id"}`) sends a dead letter again and answers the attempt; `POST
//! /studio/webhooks/enable` (`{"endpoint"}`) resumes an endpoint disabled for failing.
//!
//! Unavailable, every path answers `webhooks_unavailable` saying why: **501** when viewset-studio was built without
//! its `webhooks` feature, **409** when the application registered no webhooks with [`Studio::webhooks`].

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};

use super::Studio;
use super::state::Inner;
use crate::paths::{WEBHOOKS, WEBHOOKS_ENABLE, WEBHOOKS_REPLAY};
use crate::reply::{error, method_not_allowed};

impl Studio {
    /// The application's running webhooks (what `viewset_core::webhooks::Webhooks::start` answered), which the
    /// Runtime Panel's Webhooks card shows and acts on: endpoints and their feeds, the newest attempts, dead letters
    /// with a replay button, and enabling an endpoint disabled for failing. It needs this crate's `webhooks`
    /// feature; without it, or without this call, `/studio/webhooks` answers `webhooks_unavailable`.
    ///
    /// ```no_run
    /// # async fn run(db: sea_orm::DatabaseConnection, api: viewset_core::Api, webhooks: viewset_core::webhooks::Webhooks)
    /// #     -> Result<axum::Router, Box<dyn std::error::Error>> {
    /// use std::sync::Arc;
    /// use viewset_studio::{Studio, StudioSettings};
    /// let state = viewset_core::ServiceState::new(db.clone());
    /// let routes = api.into_router().with_state(state);
    /// let running = Arc::new(webhooks.start(routes.clone()).await?);
    /// let router = Studio::new(StudioSettings::from_env()?).webhooks(running).mount(routes, db)?;
    /// # Ok(router) }
    /// ```
    #[cfg(feature = "webhooks")]
    pub fn webhooks(mut self, running: Arc<viewset_core::webhooks::WebhookHandle>) -> Self {
        self.webhooks = Some(running);
        self
    }
}

/// The `code` of every answer that could not reach the webhooks.
const UNAVAILABLE: &str = "webhooks_unavailable";

/// The three routes, over `inner`.
pub(crate) fn routes(inner: Arc<Inner>) -> Router {
    Router::new()
        .route(WEBHOOKS, get(run::status).fallback(method_not_allowed))
        .route(WEBHOOKS_REPLAY, post(run::replay).fallback(method_not_allowed))
        .route(WEBHOOKS_ENABLE, post(run::enable).fallback(method_not_allowed))
        .with_state(inner)
}

/// Every path in a build without the `webhooks` feature.
#[cfg(not(feature = "webhooks"))]
mod run {
    use super::*;

    fn unavailable() -> Response {
        let why = "This build of viewset-studio has no webhooks: build it with its `webhooks` feature (which turns on \
                   viewset-core's), then register the running webhooks with `Studio::webhooks`.";
        error(StatusCode::NOT_IMPLEMENTED, why, UNAVAILABLE)
    }

    pub(super) async fn status(State(_): State<Arc<Inner>>) -> Response {
        unavailable()
    }

    pub(super) async fn replay(State(_): State<Arc<Inner>>) -> Response {
        unavailable()
    }

    pub(super) async fn enable(State(_): State<Arc<Inner>>) -> Response {
        unavailable()
    }
}

#[cfg(feature = "webhooks")]
mod run {
    use axum::body::Bytes;
    use axum::response::IntoResponse;
    use serde_json::{Value, json};
    use viewset_core::webhooks::{WebhookError, WebhookHandle};

    use super::*;

    /// The newest attempts listed per endpoint.
    const ATTEMPTS: u64 = 20;

    fn registered(inner: &Inner) -> Result<&WebhookHandle, Response> {
        inner.studio.webhooks.as_deref().ok_or_else(|| {
            let why = "No webhooks registered: pass the running webhooks to `Studio::webhooks` (the handle \
                       `Webhooks::start` answered, in an `Arc`).";
            error(StatusCode::CONFLICT, why, UNAVAILABLE)
        })
    }

    fn failed(err: WebhookError) -> Response {
        match err {
            WebhookError::NotFound(what) => error(StatusCode::NOT_FOUND, &format!("No {what}."), "not_found"),
            other => error(StatusCode::SERVICE_UNAVAILABLE, &other.to_string(), "database_unavailable"),
        }
    }

    /// A body's field, or the 422 naming it.
    fn field(body: &Value, name: &str) -> Result<String, Response> {
        match body.get(name) {
            Some(Value::String(text)) if !text.is_empty() => Ok(text.clone()),
            _ => {
                let detail = json!({"detail": [{"loc": ["body", name], "msg": format!("`{name}` (a non-empty string) is required"), "type": "missing"}]});
                Err((StatusCode::UNPROCESSABLE_ENTITY, axum::Json(detail)).into_response())
            }
        }
    }

    fn parse(body: &Bytes) -> Result<Value, Response> {
        serde_json::from_slice::<Value>(body).map_err(|e| {
            let detail =
                json!({"detail": [{"loc": ["body"], "msg": format!("not JSON: {e}"), "type": "json_invalid"}]});
            (StatusCode::UNPROCESSABLE_ENTITY, axum::Json(detail)).into_response()
        })
    }

    pub(super) async fn status(State(inner): State<Arc<Inner>>) -> Response {
        let handle = match registered(&inner) {
            Ok(handle) => handle,
            Err(refused) => return refused,
        };
        let feeds = match handle.status().await {
            Ok(feeds) => feeds,
            Err(err) => return failed(err),
        };
        let mut names: Vec<&str> = feeds.iter().map(|feed| feed.endpoint.as_str()).collect();
        names.dedup();
        let mut endpoints = Vec::with_capacity(names.len());
        for name in names {
            let (attempts, dead) = match (handle.attempts(name, ATTEMPTS).await, handle.dead_letters(name).await) {
                (Ok(attempts), Ok(dead)) => (attempts, dead),
                (Err(err), _) | (_, Err(err)) => return failed(err),
            };
            let own: Vec<_> = feeds.iter().filter(|feed| feed.endpoint == name).collect();
            endpoints.push(json!({"name": name, "feeds": own, "attempts": attempts, "dead_letters": dead}));
        }
        axum::Json(json!({"endpoints": endpoints})).into_response()
    }

    /// One dead letter sent again: `{"endpoint", "event_id"}` → the attempt (its `status` says whether it was taken).
    pub(super) async fn replay(State(inner): State<Arc<Inner>>, body: Bytes) -> Response {
        struct Ask {
            endpoint: String,
            event_id: String,
        }
        let asked = parse(&body)
            .and_then(|body| Ok(Ask { endpoint: field(&body, "endpoint")?, event_id: field(&body, "event_id")? }));
        let (handle, ask) = match (registered(&inner), asked) {
            (Ok(handle), Ok(ask)) => (handle, ask),
            (Err(refused), _) | (_, Err(refused)) => return refused,
        };
        match handle.replay(&ask.endpoint, &ask.event_id).await {
            Ok(attempt) => axum::Json(json!({"attempt": attempt})).into_response(),
            Err(err) => failed(err),
        }
    }

    /// An endpoint disabled for failing, resumed after its last delivered event: `{"endpoint"}`.
    pub(super) async fn enable(State(inner): State<Arc<Inner>>, body: Bytes) -> Response {
        let asked = parse(&body).and_then(|body| field(&body, "endpoint"));
        let (handle, endpoint) = match (registered(&inner), asked) {
            (Ok(handle), Ok(endpoint)) => (handle, endpoint),
            (Err(refused), _) | (_, Err(refused)) => return refused,
        };
        match handle.enable(&endpoint).await {
            Ok(()) => axum::Json(json!({"enabled": endpoint})).into_response(),
            Err(err) => failed(err),
        }
    }
}
