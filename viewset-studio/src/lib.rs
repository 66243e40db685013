//! # viewset-studio (experimental)
//!
//! Studio shows a running viewset application to its developer: JSON endpoints under `/studio/` (handshake,
//! context summary, health, migrations summary, the handshake's JSON Schema), a placeholder page at
//! `/studio/ui` (the web UI is separate work), and the `/ai/` surface: the tool catalog, an MCP server whose tool
//! calls are the application's own REST routes as the caller, structured read-only queries and the full context.
//! It is outside the stable contract and disabled by default in every environment, debug included: when off, no
//! Studio or `/ai` route exists at all.
//!
//! Every Studio request passes the Origin check (`SERVICE_STUDIO_ALLOWED_ORIGINS`; no Origin passes, a
//! disallowed one is 403) and then, when `SERVICE_STUDIO_REQUIRE_AUTH` is true, needs
//! the token `SERVICE_STUDIO_AUTH_TOKEN` as `X-Studio-Token` or `Authorization: Bearer` (compared in constant time)
//! or a staff session accepted by the application's [`Studio::staff_session`] hook; otherwise 401. A Studio
//! credential is never an identity: `/ai` calls run as the principal the application's own authentication finds.
//!
//! ```
//! use viewset_studio::{Environment, StudioSettings};
//! let settings = StudioSettings::default();
//! assert!(!settings.enable_studio);
//! assert!(!settings.should_mount());
//! ```

#![deny(missing_docs)]

mod ai;
mod checksum;
pub mod database;
mod gate;
mod message_error;
mod migrations;
pub mod paths;
mod protocol;
mod settings;
mod studio;

pub use checksum::{canonical, checksum, constant_time_eq};
pub use gate::{STUDIO_TOKEN, StaffSessionHook, cookie};
pub use migrations::{AppliedState, GraphError, MigrationGraph, MigrationNode};
pub use paths::{AI_PATHS, ENDPOINTS, STUDIO_PATHS};
pub use protocol::{
    AppMigrations, Checksums, ContextSummary, DatabaseStatus, Handshake, Health, MigrationConflict, MigrationStatus,
    MigrationsSummary, ModelSummary, PROTOCOL_VERSION, Project, handshake_json_schema,
};
pub use settings::{Environment, SettingsError, StudioSettings};
pub use studio::{ModelEntry, RUST_VERSION, SERVICE_VERSION, Studio};
