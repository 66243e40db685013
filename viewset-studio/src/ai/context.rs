//! `GET /ai/context/full`: everything Studio knows about the application in one document: models with their
//! fields and relations, ViewSets with their routes, actions, permissions (as the OpenAPI security of each
//! operation says: whether anonymous callers may try it) and allowlists, hand-written routes, the migration
//! history per app, the non-secret settings, the tool registry and the admin configuration (what the web UI's
//! Model Browser, Query Explorer and Migration Manager offer for this application). No record is read.

use std::sync::Arc;

use axum::extract::State;
use serde_json::{Value, json};

use super::{AiState, catalog_json};
use crate::reply::now;

/// The handler.
pub(super) async fn full(State(state): State<Arc<AiState>>) -> axum::Json<Value> {
    let inner = &state.inner;
    let studio = &inner.studio;
    let applied = inner.applied_or_last_known().await;
    let summary = studio.migrations.summary(&applied);
    let migrations: Vec<Value> = summary
        .apps
        .iter()
        .map(|app| {
            let history: Vec<Value> = studio
                .migrations
                .nodes()
                .iter()
                .filter(|n| n.app_label == app.app_label)
                .map(|n| {
                    json!({"name": n.name, "dependencies": n.dependencies, "applied": applied.contains_key(&n.name),
                           "applied_at": applied.get(&n.name)})
                })
                .collect();
            json!({"app_label": app.app_label, "total": app.total, "applied": app.applied, "pending": app.pending,
                   "heads": app.head_migrations, "has_conflicts": app.has_conflicts, "migrations": history})
        })
        .collect();
    let viewsets: Vec<Value> = studio.viewset_details.iter().map(|v| with_routes(v.clone(), &state)).collect();
    let manual: Vec<Value> = studio
        .routes
        .iter()
        .filter(|r| !studio.viewsets.contains(&r.owner))
        .map(|r| json!({"method": r.method, "path": r.path, "owner": r.owner, "handler": r.handler}))
        .collect();
    let models: Vec<Value> = studio.models.iter().map(|m| m.to_full_json()).collect();
    axum::Json(json!({
        "generated_at": now(),
        "project": {"name": studio.name, "version": studio.version, "apps": studio.apps},
        "summary": {
            "model_count": models.len(),
            "viewset_count": studio.viewsets.len(),
            "route_count": studio.routes.len(),
            "ai_tool_count": state.tools.len(),
            "migration_count": summary.total_migrations,
            "pending_migrations": summary.pending_migrations,
        },
        "models": models,
        "viewsets": viewsets,
        "manual_routes": manual,
        "migrations": {"apps": migrations, "conflicts": summary.conflicts, "last_applied": summary.last_applied,
                       "checksum": summary.migrations_checksum},
        "settings": studio.public_settings(),
        "tools": catalog_json(&state),
        "admin": admin(&state),
    }))
}

/// The admin configuration: the Model Browser's models (one per ViewSet, with the allowlists its filter builder,
/// search and sortable columns offer, its paging bounds, the operations it may call, its `bulk` routes: import and
/// delete a selection, and its `aggregates`: what its chart may group and compute) and whether it writes; the
/// Query Explorer's EXPLAIN (a debug panel); the Migration Manager's apply. The Model Browser reads and writes only
/// through the application's routes, as the identity the UI sends, so its `writes` is what the routes offer, not a
/// grant.
fn admin(state: &AiState) -> Value {
    let studio = &state.inner.studio;
    let writes = |name: &str| -> Vec<&'static str> {
        let owned = studio.routes.iter().filter(|r| r.owner == name);
        let methods: Vec<&str> = owned.map(|r| r.method).collect();
        [("POST", "create"), ("PATCH", "update"), ("DELETE", "delete")]
            .into_iter()
            .filter(|(method, _)| methods.contains(method))
            .map(|(_, operation)| operation)
            .collect()
    };
    let models: Vec<Value> = studio
        .viewset_details
        .iter()
        .map(|v| {
            let name = v["name"].as_str().unwrap_or_default();
            json!({"viewset": name, "model": v["model"], "list_path": format!("{}/", v["prefix"].as_str().unwrap_or_default()),
                   "lookup_field": v["lookup_field"], "filterable_fields": v["filterable_fields"],
                   "search_fields": v["search_fields"], "ordering_fields": v["ordering_fields"], "ordering": v["ordering"],
                   "default_limit": v["default_limit"], "max_limit": v["max_limit"],
                   "hidden_from_non_staff": v["staff_only_fields"], "writes": writes(name), "bulk": v["bulk"],
                   "aggregates": v["aggregates"]})
        })
        .collect();
    let any_write = models.iter().any(|m| m["writes"].as_array().is_some_and(|w| !w.is_empty()));
    json!({
        "ui": crate::paths::UI,
        "model_browser": {
            "identity": "the one the UI sends with each request (Act as): permissions, row policies and hidden fields apply",
            "writes": any_write,
            "export": ["csv", "json"],
            "models": models,
        },
        "query_explorer": {"explain": studio.settings().debug},
        "migration_manager": {"apply": state.inner.offers_apply_migrations()},
    })
}

/// A ViewSet's description with its routes: each with whether anonymous callers may try it (the operation's
/// OpenAPI security lists an empty requirement) and the tool that calls it.
fn with_routes(mut viewset: Value, state: &AiState) -> Value {
    let name = viewset["name"].as_str().unwrap_or_default().to_string();
    let document = &state.inner.studio.openapi;
    let routes: Vec<Value> = state
        .inner
        .studio
        .routes
        .iter()
        .filter(|r| r.owner == name)
        .map(|r| {
            let operation = &document["paths"][&r.path][r.method.to_ascii_lowercase()];
            let security = operation["security"].as_array();
            let anonymous = security.is_none_or(|s| s.iter().any(|req| req.as_object().is_some_and(|o| o.is_empty())));
            let tool = state.tools.iter().find(|t| t.info.method == r.method && t.info.path == r.path);
            json!({"method": r.method, "path": r.path, "handler": r.handler,
                   "authentication": if anonymous { "optional" } else { "required" },
                   "tool": tool.map(|t| t.info.name.clone())})
        })
        .collect();
    viewset["routes"] = Value::Array(routes);
    viewset
}
