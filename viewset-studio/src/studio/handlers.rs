//! The handlers of the `/studio/` endpoints, and the table that mounts each at its path.

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

use super::state::{Inner, Shared};
use super::{RUST_VERSION, SERVICE_VERSION};
use crate::paths::{
    AI_CODEGEN_PATHS, AI_PATHS, CONTEXT_SUMMARY, ENDPOINTS, HANDSHAKE, HEALTH, METRICS, MIGRATIONS_SUMMARY,
    SCHEMA_HANDSHAKE, STUDIO_PATHS,
};
use crate::protocol::{
    ContextSummary, Handshake, Health, MigrationStatus, MigrationsSummary, ModelSummary, PROTOCOL_VERSION, Project,
    handshake_json_schema,
};
use crate::reply::{error, now};

/// Every Studio JSON endpoint at its path (the paths of [`STUDIO_PATHS`] but the UI's, which `crate::ui` mounts),
/// over `state`; no gate yet.
pub(crate) fn routes(state: Arc<Inner>) -> Router {
    Router::new()
        .route(HANDSHAKE, get(handshake).fallback(method_not_allowed))
        .route(CONTEXT_SUMMARY, get(context_summary).fallback(method_not_allowed))
        .route(HEALTH, get(health).fallback(method_not_allowed))
        .route(MIGRATIONS_SUMMARY, get(migrations_summary).fallback(method_not_allowed))
        .route(METRICS, get(super::metrics::snapshot).fallback(method_not_allowed))
        .route(SCHEMA_HANDSHAKE, get(schema_handshake).fallback(method_not_allowed))
        .with_state(state)
}

/// The JSON 405 of every Studio path (each answers GET only).
async fn method_not_allowed() -> Response {
    let mut response = error(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed.", "method_not_allowed");
    response.headers_mut().insert(axum::http::header::ALLOW, axum::http::HeaderValue::from_static("GET, HEAD"));
    response
}

async fn handshake(State(inner): Shared) -> axum::Json<Handshake> {
    let database = crate::database::check(&inner.db).await;
    let studio = &inner.studio;
    let settings = &studio.settings;
    axum::Json(Handshake {
        protocol_version: PROTOCOL_VERSION.into(),
        timestamp: now(),
        project: Project {
            name: studio.name.clone(),
            version: studio.version.clone(),
            service_version: SERVICE_VERSION.into(),
            python_version: RUST_VERSION.into(),
            rust_version: RUST_VERSION.into(),
            debug_mode: settings.debug,
            environment: settings.environment.as_str().into(),
        },
        capabilities: inner.capabilities(&database),
        database,
        checksums: inner.checksums.clone(),
        // All twelve, always: an endpoint this process cannot serve says so where it is asked.
        endpoints: ENDPOINTS.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        metadata: json!({
            "framework": "viewset",
            "stability": "experimental",
            "apps": studio.apps,
            "viewsets": studio.viewsets,
            "studio_endpoints": STUDIO_PATHS,
            "ai_endpoints": AI_PATHS.iter().chain(AI_CODEGEN_PATHS.iter()).collect::<Vec<_>>(),
            "ai_planner_provider": cfg!(feature = "codegen")
                && settings.ai_provider_url.is_some()
                && studio.project_dir.is_some(),
            "codegen_feature": cfg!(feature = "codegen"),
            "codegen_project_dir": studio.project_dir.is_some(),
            "metrics_feature": cfg!(feature = "metrics"),
            "metrics_registered": studio.metrics.is_some(),
            "webhooks_feature": cfg!(feature = "webhooks"),
            "webhooks_registered": webhooks_registered(studio),
            "python_version_note": "holds the Rust toolchain version (rust_version); the key is kept for clients",
        }),
    })
}

async fn context_summary(State(inner): Shared) -> axum::Json<ContextSummary> {
    let database_status = crate::database::check(&inner.db).await;
    let applied = inner.applied_or_last_known().await;
    let migrations = inner.studio.migrations.summary(&applied);
    let studio = &inner.studio;
    axum::Json(ContextSummary {
        app_count: studio.apps.len() as u64,
        model_count: studio.models.len() as u64,
        viewset_count: studio.viewsets.len() as u64,
        route_count: studio.routes.len() as u64,
        ai_tool_count: inner.ai_tool_count,
        migration_count: migrations.total_migrations,
        pending_migrations: migrations.pending_migrations,
        database_status,
        migration_status: MigrationStatus {
            total: migrations.total_migrations,
            applied: migrations.applied_migrations,
            pending: migrations.pending_migrations,
            has_conflicts: !migrations.conflicts.is_empty(),
            last_applied: migrations.last_applied,
        },
        models: studio
            .models
            .iter()
            .map(|m| ModelSummary {
                name: m.name.clone(),
                table_name: m.table_name.clone(),
                field_count: m.fields.len() as u64,
                has_relations: !m.relations.is_empty(),
            })
            .collect(),
        checksums: inner.checksums.clone(),
    })
}

async fn health(State(inner): Shared) -> axum::Json<Health> {
    let database = crate::database::check(&inner.db).await;
    axum::Json(Health {
        status: if database.connected { "healthy" } else { "degraded" }.into(),
        service_version: SERVICE_VERSION.into(),
        database,
        timestamp: now(),
    })
}

async fn migrations_summary(State(inner): Shared) -> Response {
    match inner.applied().await {
        Ok(applied) => axum::Json::<MigrationsSummary>(inner.studio.migrations.summary(&applied)).into_response(),
        Err(_) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            "The migrations table cannot be read: the database is unreachable.",
            "database_unavailable",
        ),
    }
}

async fn schema_handshake() -> axum::Json<Value> {
    axum::Json(handshake_json_schema())
}

/// Whether the application registered its running webhooks.
fn webhooks_registered(studio: &super::Studio) -> bool {
    #[cfg(feature = "webhooks")]
    return studio.webhooks.is_some();
    #[cfg(not(feature = "webhooks"))]
    {
        let _ = studio;
        false
    }
}
