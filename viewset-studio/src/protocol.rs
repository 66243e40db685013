//! The JSON bodies of the Studio endpoints, with the spec's field names. The handshake's JSON Schema
//! (`GET /studio/schema/handshake`) is generated from these types.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The Studio protocol version the handshake announces.
pub const PROTOCOL_VERSION: &str = "1.0";

/// Response of `GET /studio/handshake`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(title = "StudioHandshake")]
pub struct Handshake {
    /// Studio protocol version (`1.0`).
    #[serde(default)]
    pub protocol_version: String,
    /// ISO 8601 UTC time of the answer.
    #[serde(default)]
    pub timestamp: String,
    /// The application.
    #[schema(inline)]
    pub project: Project,
    /// The database status, measured now.
    #[schema(inline)]
    pub database: DatabaseStatus,
    /// Capabilities inferred from the running process.
    pub capabilities: Vec<String>,
    /// Checksums for cache invalidation.
    #[schema(inline)]
    pub checksums: Checksums,
    /// Name → path of the Studio and AI endpoints.
    #[serde(default)]
    pub endpoints: BTreeMap<String, String>,
    /// Free-form details.
    #[serde(default)]
    #[schema(value_type = Object)]
    pub metadata: serde_json::Value,
}

/// The `project` object of the handshake.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Project {
    /// The application's name.
    pub name: String,
    /// The application's own version.
    pub version: String,
    /// The version of viewset (the framework).
    pub service_version: String,
    /// Kept under the key clients expect: the version of the Rust toolchain the application was built with.
    pub python_version: String,
    /// The same value under its honest name.
    pub rust_version: String,
    /// Debug mode.
    pub debug_mode: bool,
    /// `development`, `staging` or `production`.
    pub environment: String,
}

/// Database status (handshake, context summary and health).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DatabaseStatus {
    /// Whether the check query succeeded.
    pub connected: bool,
    /// `postgresql`, `sqlite` or `mysql`.
    pub dialect: String,
    /// Connections the pool holds now.
    pub pool_size: u32,
    /// Idle connections in the pool now.
    pub pool_available: u32,
    /// Latency of the check query (`SELECT 1`), in milliseconds.
    pub latency_ms: Option<f64>,
    /// The check's error, when it failed.
    pub last_error: Option<String>,
}

/// SHA-256 (hex) checksums of canonical JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Checksums {
    /// Of the model schemas.
    pub schema_checksum: String,
    /// Of the migration graph (apps, names, dependencies).
    pub migrations_checksum: String,
    /// Of the non-secret settings.
    pub settings_checksum: String,
    /// Of the registered routes.
    pub routes_checksum: String,
}

/// One model in the context summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ModelSummary {
    /// The model's name.
    pub name: String,
    /// Its table.
    pub table_name: String,
    /// Number of columns.
    pub field_count: u64,
    /// Whether the entity declares relations.
    pub has_relations: bool,
}

/// `migration_status` of the context summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MigrationStatus {
    /// Migrations known to the graph.
    pub total: u64,
    /// Of those, recorded in the migrations table.
    pub applied: u64,
    /// Not yet applied.
    pub pending: u64,
    /// Whether an app has several heads.
    pub has_conflicts: bool,
    /// The last applied migration (empty when none).
    pub last_applied: String,
}

/// Response of `GET /studio/context/summary`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ContextSummary {
    /// Installed apps.
    pub app_count: u64,
    /// Models.
    pub model_count: u64,
    /// Registered ViewSets.
    pub viewset_count: u64,
    /// Registered routes of the application.
    pub route_count: u64,
    /// AI tools (one per operation of each AI-exposed ViewSet and action).
    pub ai_tool_count: u64,
    /// Migrations in the graph.
    pub migration_count: u64,
    /// Of those, not applied.
    pub pending_migrations: u64,
    /// The database status.
    pub database_status: DatabaseStatus,
    /// Migration totals.
    pub migration_status: MigrationStatus,
    /// The models.
    pub models: Vec<ModelSummary>,
    /// The checksums.
    pub checksums: Checksums,
}

/// Response of `GET /studio/health`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Health {
    /// `healthy` or `degraded`.
    pub status: String,
    /// The version of viewset.
    pub service_version: String,
    /// The database status.
    pub database: DatabaseStatus,
    /// ISO 8601 UTC time.
    pub timestamp: String,
}

/// One app in the migrations summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AppMigrations {
    /// The app label.
    pub app_label: String,
    /// Its migrations.
    pub total: u64,
    /// Applied ones.
    pub applied: u64,
    /// Pending ones.
    pub pending: u64,
    /// More than one head.
    pub has_conflicts: bool,
    /// Migrations no other migration of the app depends on.
    pub head_migrations: Vec<String>,
}

/// A branched app.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MigrationConflict {
    /// The app label.
    pub app_label: String,
    /// Its heads.
    pub heads: Vec<String>,
    /// What to do.
    pub message: String,
}

/// Response of `GET /studio/migrations/summary`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MigrationsSummary {
    /// Migrations in the graph.
    pub total_migrations: u64,
    /// Applied.
    pub applied_migrations: u64,
    /// Pending.
    pub pending_migrations: u64,
    /// Per app, in registration order.
    pub apps: Vec<AppMigrations>,
    /// Apps with several heads.
    pub conflicts: Vec<MigrationConflict>,
    /// Checksum of the graph.
    pub migrations_checksum: String,
    /// The last applied migration (empty when none).
    pub last_applied: String,
}

/// The JSON Schema (2020-12, as OpenAPI 3.1 writes it) of [`Handshake`], generated from the type.
///
/// ```
/// let schema = viewset_studio::handshake_json_schema();
/// assert_eq!(schema["title"], "StudioHandshake");
/// assert_eq!(schema["type"], "object");
/// ```
pub fn handshake_json_schema() -> serde_json::Value {
    let schema = <Handshake as utoipa::PartialSchema>::schema();
    let mut value = serde_json::to_value(schema).unwrap_or_default();
    if let Some(object) = value.as_object_mut() {
        object.insert("$schema".into(), "https://json-schema.org/draft/2020-12/schema".into());
        object.entry("title").or_insert_with(|| "StudioHandshake".into());
    }
    value
}
