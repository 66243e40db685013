//! `GET /studio/metrics`: what the Runtime Panel plots, read from the one registry the Prometheus exporter serves.
//! The snapshot is parsed from `viewset_core::metrics::render` of the registered state, the very text a scrape
//! receives, so Studio keeps no counter of its own: the request counter and the latency histogram's cumulative
//! buckets per operation, requests in flight, the pools' connections by role, and the events' counters and gauges.
//! The page computes rates and quantiles from the differences between successive snapshots.
//!
//! Unavailable, it answers `metrics_unavailable` saying why: **501** when viewset-studio was built without its
//! `metrics` feature, **409** when the application registered no state with [`Studio::metrics`].

use axum::extract::State;
use axum::http::StatusCode;
#[cfg(feature = "metrics")]
use axum::response::IntoResponse;
use axum::response::Response;
use viewset_core::ServiceState;

use super::Studio;
use super::state::Shared;
use crate::reply::error;

impl Studio {
    /// The application's state, whose Prometheus metrics (`viewset_core::metrics`, viewset-core's `metrics`
    /// feature) `GET /studio/metrics` reads for the Runtime Panel's plots: requests per second and p50 / p99 latency
    /// per operation, the pools' connections, the events' subscribers. It needs this crate's `metrics` feature (which
    /// turns on viewset-core's); without the feature, or without this call, the endpoint answers
    /// `metrics_unavailable` and the panel says so.
    ///
    /// ```no_run
    /// # async fn run(db: sea_orm::DatabaseConnection, api: viewset_core::Api)
    /// #     -> Result<axum::Router, viewset_studio::SettingsError> {
    /// use viewset_studio::{Studio, StudioSettings};
    /// let state = viewset_core::ServiceState::new(db.clone());
    /// let app = api.into_router().with_state(state.clone());
    /// let router = Studio::new(StudioSettings::from_env()?).metrics(&state).mount(app, db)?;
    /// # Ok(router) }
    /// ```
    pub fn metrics(mut self, state: &ServiceState) -> Self {
        self.metrics = Some(state.clone());
        self
    }
}

/// The `code` of every answer that has no snapshot.
const UNAVAILABLE: &str = "metrics_unavailable";

/// `GET /studio/metrics` in a build without the `metrics` feature.
#[cfg(not(feature = "metrics"))]
pub(super) async fn snapshot(State(_): Shared) -> Response {
    let why = "This build of viewset-studio has no metrics: build it with its `metrics` feature (which turns on \
               viewset-core's), then register the application's state with `Studio::metrics`.";
    error(StatusCode::NOT_IMPLEMENTED, why, UNAVAILABLE)
}

/// `GET /studio/metrics`: the snapshot of the registered state's registry, now.
#[cfg(feature = "metrics")]
pub(super) async fn snapshot(State(inner): Shared) -> Response {
    let Some(state) = &inner.studio.metrics else {
        let why = "No metrics registered: pass the application's state to `Studio::metrics(&state)` (the state its \
                   routes serve), so Studio reads the registry its Prometheus exporter serves.";
        return error(StatusCode::CONFLICT, why, UNAVAILABLE);
    };
    let at = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    axum::Json(parse::snapshot(&viewset_core::metrics::render(state), at.as_secs_f64())).into_response()
}

#[cfg(feature = "metrics")]
mod parse;
