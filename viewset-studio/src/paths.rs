//! The Studio and `/ai` endpoint paths, written once: the routers mount these constants, the handshake announces them
//! ([`ENDPOINTS`]) and the CLI requests them.
//!
//! ```
//! use viewset_studio::paths::{ENDPOINTS, HEALTH, STUDIO_PATHS};
//! assert!(STUDIO_PATHS.contains(&HEALTH));
//! assert!(ENDPOINTS.contains(&("health", HEALTH)));
//! ```

/// `GET /studio/handshake`: the handshake.
pub const HANDSHAKE: &str = "/studio/handshake";
/// `GET /studio/context/summary`: the context summary.
pub const CONTEXT_SUMMARY: &str = "/studio/context/summary";
/// `GET /studio/health`: the health object.
pub const HEALTH: &str = "/studio/health";
/// `GET /studio/migrations/summary`: the migrations summary.
pub const MIGRATIONS_SUMMARY: &str = "/studio/migrations/summary";
/// `POST /studio/migrations/apply`: applies the pending migrations with the application's migrator (registered with
/// `Studio::migrator`; development only).
pub const MIGRATIONS_APPLY: &str = "/studio/migrations/apply";
/// `GET /studio/metrics`: a snapshot of the application's Prometheus registry (requests and latency buckets per
/// operation, pools, events), the series `viewset_core::metrics` serves, for the Runtime Panel's plots.
pub const METRICS: &str = "/studio/metrics";
/// `GET /studio/webhooks`: the application's running webhooks (feeds, newest attempts, dead letters), for the
/// Runtime Panel's Webhooks card.
pub const WEBHOOKS: &str = "/studio/webhooks";
/// `POST /studio/webhooks/replay`: sends a dead letter again (`{"endpoint", "event_id"}`).
pub const WEBHOOKS_REPLAY: &str = "/studio/webhooks/replay";
/// `POST /studio/webhooks/enable`: resumes an endpoint disabled for failing (`{"endpoint"}`).
pub const WEBHOOKS_ENABLE: &str = "/studio/webhooks/enable";
/// `GET /studio/schema/handshake`: the JSON Schema of the handshake.
pub const SCHEMA_HANDSHAKE: &str = "/studio/schema/handshake";
/// `GET /studio/ui`: the Studio web UI.
pub const UI: &str = "/studio/ui";
/// `GET /studio/ui/assets/{file}`: the UI's scripts and style sheet, embedded in the binary.
pub const UI_ASSETS: &str = "/studio/ui/assets";
/// `/studio/session`: `POST` signs in with the Studio token (a form or JSON), `GET` describes the caller's Studio
/// credential, `DELETE` signs out.
pub const SESSION: &str = "/studio/session";

/// `GET /ai/context/full`: the full context.
pub const AI_CONTEXT_FULL: &str = "/ai/context/full";
/// `GET /ai/tools`: the tool catalog.
pub const AI_TOOLS: &str = "/ai/tools";
/// `/ai/tools/mcp`: the MCP server (Streamable HTTP).
pub const AI_TOOLS_MCP: &str = "/ai/tools/mcp";
/// `POST /ai/query/execute`: a structured read-only query.
pub const AI_QUERY_EXECUTE: &str = "/ai/query/execute";

/// `GET /ai/schema/health`: findings about indexes, permissions and migrations, each with its fix.
pub const AI_SCHEMA_HEALTH: &str = "/ai/schema/health";

/// `POST /ai/codegen/preview`: the diff of a `new_resource` (entity, migration, ViewSet) and its preview id.
pub const AI_CODEGEN_PREVIEW: &str = "/ai/codegen/preview";
/// `POST /ai/patch/preview`: the diff of allowlist and column edits and their preview id.
pub const AI_PATCH_PREVIEW: &str = "/ai/patch/preview";
/// `POST /ai/patch/apply`: writes a preview of patch operations only (`add_to_allowlist`, `add_column`; anything else
/// is 422 `wrong_endpoint`), in development only, with `"confirm": true`.
pub const AI_PATCH_APPLY: &str = "/ai/patch/apply";
/// `POST /ai/plan/preview`: an ordered plan of operations (sent, or proposed by a provider from a prompt) and its
/// combined diff.
pub const AI_PLAN_PREVIEW: &str = "/ai/plan/preview";
/// `POST /ai/plan/apply`: writes any preview, a plan's or a `new_resource`'s (the rules of [`AI_PATCH_APPLY`]).
pub const AI_PLAN_APPLY: &str = "/ai/plan/apply";

/// The MCP endpoint's OAuth 2.0 protected resource metadata (RFC 9728): the well-known URI string
/// `/.well-known/oauth-protected-resource` inserted before the resource's path, [`AI_TOOLS_MCP`]. Served without a
/// credential when Studio requires authentication; named by the `resource_metadata` of `/ai/tools/mcp`'s 401.
///
/// ```
/// use viewset_studio::paths::{AI_TOOLS_MCP, AI_TOOLS_MCP_METADATA, OAUTH_PROTECTED_RESOURCE};
/// assert_eq!(AI_TOOLS_MCP_METADATA, format!("{OAUTH_PROTECTED_RESOURCE}{AI_TOOLS_MCP}"));
/// ```
pub const AI_TOOLS_MCP_METADATA: &str = "/.well-known/oauth-protected-resource/ai/tools/mcp";
/// RFC 9728's default well-known URI string for protected resource metadata.
pub const OAUTH_PROTECTED_RESOURCE: &str = "/.well-known/oauth-protected-resource";

/// The `/ai` endpoints that work in every mounted Studio (behind its gate).
pub const AI_PATHS: [&str; 5] = [AI_CONTEXT_FULL, AI_TOOLS, AI_TOOLS_MCP, AI_QUERY_EXECUTE, AI_SCHEMA_HEALTH];

/// The code generator's endpoints: mounted in every Studio, they work with the crate's `codegen` feature and
/// `Studio::project_dir`; without the feature they answer 501 `codegen_unavailable`, without the directory 409
/// `codegen_unavailable`.
pub const AI_CODEGEN_PATHS: [&str; 5] =
    [AI_CODEGEN_PREVIEW, AI_PATCH_PREVIEW, AI_PATCH_APPLY, AI_PLAN_PREVIEW, AI_PLAN_APPLY];

/// The Studio JSON endpoints this crate serves (every one mounted by the Studio router).
pub const STUDIO_PATHS: [&str; 8] =
    [HANDSHAKE, CONTEXT_SUMMARY, HEALTH, MIGRATIONS_SUMMARY, METRICS, WEBHOOKS, SCHEMA_HANDSHAKE, UI];

/// The handshake `endpoints`: the spec's twelve keys with their fixed paths, in the spec's order. Every mounted
/// Studio announces all of them; what a path cannot do in this process it says where it is asked (the code
/// generator's [`CODEGEN_ENDPOINTS`]), and the handshake's `capabilities` say what works.
///
/// ```
/// use viewset_studio::paths::{CODEGEN_ENDPOINTS, ENDPOINTS};
/// assert_eq!(ENDPOINTS.len(), 12);
/// assert!(CODEGEN_ENDPOINTS.iter().all(|entry| ENDPOINTS.contains(entry)));
/// ```
pub const ENDPOINTS: [(&str, &str); 12] = [
    ("context_full", AI_CONTEXT_FULL),
    ("context_summary", CONTEXT_SUMMARY),
    ("health", HEALTH),
    ("tools", AI_TOOLS),
    ("tools_mcp", AI_TOOLS_MCP),
    ("query_execute", AI_QUERY_EXECUTE),
    ("codegen_preview", AI_CODEGEN_PREVIEW),
    ("patch_preview", AI_PATCH_PREVIEW),
    ("patch_apply", AI_PATCH_APPLY),
    ("plan_preview", AI_PLAN_PREVIEW),
    ("plan_apply", AI_PLAN_APPLY),
    ("schema_health", AI_SCHEMA_HEALTH),
];

/// The handshake `endpoints` keys and paths of the code generator (a part of [`ENDPOINTS`]).
///
/// ```
/// use viewset_studio::paths::{AI_CODEGEN_PATHS, CODEGEN_ENDPOINTS};
/// assert!(CODEGEN_ENDPOINTS.iter().all(|(_, path)| AI_CODEGEN_PATHS.contains(path)));
/// assert!(CODEGEN_ENDPOINTS.contains(&("plan_apply", "/ai/plan/apply")));
/// ```
pub const CODEGEN_ENDPOINTS: [(&str, &str); 5] = [
    ("codegen_preview", AI_CODEGEN_PREVIEW),
    ("patch_preview", AI_PATCH_PREVIEW),
    ("patch_apply", AI_PATCH_APPLY),
    ("plan_preview", AI_PLAN_PREVIEW),
    ("plan_apply", AI_PLAN_APPLY),
];
