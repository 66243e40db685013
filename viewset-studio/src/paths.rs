//! The Studio and `/ai` endpoint paths, written once: the routers mount these constants, the handshake announces them
//! ([`ENDPOINTS`]), the placeholder UI links them and the CLI requests them.
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
/// `GET /studio/schema/handshake`: the JSON Schema of the handshake.
pub const SCHEMA_HANDSHAKE: &str = "/studio/schema/handshake";
/// `GET /studio/ui`: the Studio web UI.
pub const UI: &str = "/studio/ui";

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

/// The `/ai` endpoints this crate serves (mounted with Studio, behind its gate). The spec's codegen, patch and plan
/// endpoints are not built, so neither served nor announced.
pub const AI_PATHS: [&str; 5] = [AI_CONTEXT_FULL, AI_TOOLS, AI_TOOLS_MCP, AI_QUERY_EXECUTE, AI_SCHEMA_HEALTH];

/// The Studio JSON endpoints this crate serves (every one mounted by the Studio router).
pub const STUDIO_PATHS: [&str; 6] = [HANDSHAKE, CONTEXT_SUMMARY, HEALTH, MIGRATIONS_SUMMARY, SCHEMA_HANDSHAKE, UI];

/// The handshake `endpoints` keys (the spec's names) and their paths: only the endpoints this process serves.
pub const ENDPOINTS: [(&str, &str); 7] = [
    ("context_full", AI_CONTEXT_FULL),
    ("context_summary", CONTEXT_SUMMARY),
    ("health", HEALTH),
    ("tools", AI_TOOLS),
    ("tools_mcp", AI_TOOLS_MCP),
    ("query_execute", AI_QUERY_EXECUTE),
    ("schema_health", AI_SCHEMA_HEALTH),
];
