//! # viewset-studio (experimental)
//!
//! Studio shows a running viewset application to its developer: JSON endpoints under `/studio/` (handshake,
//! context summary, health, migrations summary, the handshake's JSON Schema, and — with the crate's `metrics`
//! feature and [`Studio::metrics`] — a snapshot of the application's Prometheus registry, which the Runtime Panel
//! plots; 501 / 409 `metrics_unavailable` without them; with the `webhooks` feature and [`Studio::webhooks`], the
//! running webhooks, their dead letters and a replay), the web UI at `/studio/ui` (six
//! panels as plain ES modules embedded in the binary, with a token sign-in that sets a signed session cookie), and
//! the `/ai/` surface: the tool catalog, an MCP server whose tool calls are the application's own REST routes as the
//! caller (and whose resources are the OpenAPI document and each exposed ViewSet's schema), structured read-only
//! queries and the full context,
//! and — when the application registers its project directory ([`Studio::project_dir`]) — a code generator whose
//! previews are unified diffs and whose apply writes only in development (the `codegen` module). The generator, with
//! its optional OpenAI-compatible provider (an HTTP client) and its diffs, is compiled only with the crate's
//! `codegen` feature, off by default: without it its endpoints answer 501 `codegen_unavailable` (and 409
//! `codegen_unavailable` with the feature but without a project directory).
//! It is outside the stable contract and disabled by default in every environment, debug included: when off, no
//! Studio or `/ai` route exists at all.
//!
//! Every Studio request passes the Origin check (`SERVICE_STUDIO_ALLOWED_ORIGINS`; no Origin passes, nor does the
//! request's own origin, the UI calling its server; any other is 403) and then, when `SERVICE_STUDIO_REQUIRE_AUTH`
//! is true, needs the token `SERVICE_STUDIO_AUTH_TOKEN` as `X-Studio-Token` or `Authorization: Bearer` (compared
//! in constant time), a staff session (by default the cookie [`STAFF_COOKIE`] signed with
//! `SERVICE_STUDIO_SECRET_TOKEN` through `viewset_core::session::SessionSigner` with the payload [`staff_payload`];
//! or whatever the application's [`Studio::staff_session`] hook accepts), or the UI's session cookie (signed with
//! the same secret; its writes also need the `X-Studio-CSRF` header); otherwise 401, which at `/ai/tools/mcp` names
//! the endpoint's OAuth protected resource metadata (RFC 9728, as the MCP specification asks). A Studio credential is
//! never an identity: `/ai` calls run as the principal the application's own authentication finds.
//!
//! ```
//! use viewset_studio::{Environment, StudioSettings};
//! let settings = StudioSettings::default();
//! assert!(!settings.enable_studio);
//! assert!(!settings.should_mount());
//! ```

#![deny(missing_docs)]
// docs.rs (`--cfg docsrs`, Cargo.toml): each item labelled with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod ai;
mod checksum;
pub mod database;
mod gate;
mod message_error;
mod migrations;
mod mount;
pub mod paths;
mod protocol;
mod reply;
mod settings;
mod studio;
mod ui;

#[cfg(feature = "codegen")]
pub use ai::codegen;
pub use checksum::{canonical, checksum, constant_time_eq};
#[cfg(feature = "jwt")]
pub use gate::mcp_token::McpTokens;
pub use gate::staff::{STAFF_COOKIE, staff_payload};
pub use gate::{STUDIO_TOKEN, StaffSessionHook, cookie};
pub use migrations::{AppliedState, GraphError, MigrationGraph, MigrationNode};
pub use paths::{AI_CODEGEN_PATHS, AI_PATHS, CODEGEN_ENDPOINTS, ENDPOINTS, STUDIO_PATHS};
pub use protocol::{
    AppMigrations, Checksums, ContextSummary, DatabaseStatus, Handshake, Health, MigrationConflict, MigrationStatus,
    MigrationsSummary, ModelSummary, PROTOCOL_VERSION, Project, handshake_json_schema,
};
pub use settings::{Environment, SettingsError, StudioSettings};
pub use studio::{ModelEntry, RUST_VERSION, SERVICE_VERSION, Studio};
