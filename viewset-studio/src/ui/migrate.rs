//! `POST /studio/migrations/apply`: the Migration Manager's button. It exists only when the application registered
//! its migrator ([`crate::Studio::migrator`]), and applies only in the development environment (the
//! `apply_migrations` capability says exactly when): it runs the migrator's `up` (every pending migration the
//! migrator knows, in its order) and answers which migrations are newly applied and the summary after.

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::json;

use crate::paths::MIGRATIONS_APPLY;
use crate::reply::{error, method_not_allowed};
use crate::studio::ApplyMigrations;
use crate::studio::state::Inner;

struct MigrateState {
    inner: Arc<Inner>,
    apply: ApplyMigrations,
    /// One apply at a time.
    running: tokio::sync::Mutex<()>,
}

/// The route, when the application registered a migrator.
pub(crate) fn routes(inner: Arc<Inner>) -> Router {
    let Some(apply) = inner.studio.apply_migrations.clone() else { return Router::new() };
    let state = Arc::new(MigrateState { inner, apply, running: tokio::sync::Mutex::new(()) });
    Router::new().route(MIGRATIONS_APPLY, post(apply_pending).fallback(method_not_allowed)).with_state(state)
}

async fn apply_pending(State(state): State<Arc<MigrateState>>) -> Response {
    let inner = &state.inner;
    if !inner.offers_apply_migrations() {
        return error(
            StatusCode::FORBIDDEN,
            "Studio applies migrations in the development environment only; run your migrator.",
            "development_only",
        );
    }
    let _running = state.running.lock().await;
    let unavailable =
        || error(StatusCode::SERVICE_UNAVAILABLE, "The migrations table cannot be read.", "database_unavailable");
    let Ok(before) = inner.applied().await else { return unavailable() };
    let outcome = (state.apply)(inner.db.clone()).await;
    let Ok(after) = inner.applied().await else { return unavailable() };
    let applied: Vec<&str> = inner
        .studio
        .migrations
        .nodes()
        .iter()
        .filter(|n| after.contains_key(&n.name) && !before.contains_key(&n.name))
        .map(|n| n.name.as_str())
        .collect();
    let summary = inner.studio.migrations.summary(&after);
    match outcome {
        Ok(()) => axum::Json(json!({"applied": applied, "summary": summary})).into_response(),
        Err(e) => {
            tracing::error!("Studio's migration apply failed: {e}");
            let body = json!({"detail": format!("The migrator failed: {e}"), "code": "migration_failed",
                              "applied": applied, "summary": summary});
            (StatusCode::INTERNAL_SERVER_ERROR, axum::Json(body)).into_response()
        }
    }
}
