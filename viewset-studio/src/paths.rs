//! The Studio endpoint paths, written once: the router mounts these constants, the handshake announces them
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

/// The Studio JSON endpoints this crate serves (every one mounted by the Studio router).
pub const STUDIO_PATHS: [&str; 6] = [HANDSHAKE, CONTEXT_SUMMARY, HEALTH, MIGRATIONS_SUMMARY, SCHEMA_HANDSHAKE, UI];

/// The handshake `endpoints` keys and their fixed paths, as the spec lists them.
pub const ENDPOINTS: [(&str, &str); 12] = [
    ("context_full", "/ai/context/full"),
    ("context_summary", CONTEXT_SUMMARY),
    ("health", HEALTH),
    ("tools", "/ai/tools"),
    ("tools_mcp", "/ai/tools/mcp"),
    ("query_execute", "/ai/query/execute"),
    ("codegen_preview", "/ai/codegen/preview"),
    ("patch_preview", "/ai/patch/preview"),
    ("patch_apply", "/ai/patch/apply"),
    ("plan_preview", "/ai/plan/preview"),
    ("plan_apply", "/ai/plan/apply"),
    ("schema_health", "/ai/schema/health"),
];
