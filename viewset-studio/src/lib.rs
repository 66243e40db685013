//! # viewset-studio (experimental)
//!
//! Studio shows a running viewset application to its developer: JSON endpoints under `/studio/`, a web UI at
//! `/studio/ui` and an AI/MCP surface under `/ai/`. It is outside the stable contract and disabled by default in
//! every environment, debug included.
//!
//! This crate currently holds Studio's settings and their start-up validation; the endpoints are built on them.
//!
//! ```
//! use viewset_studio::{Environment, StudioSettings};
//! let settings = StudioSettings::default();
//! assert!(!settings.enable_studio);
//! assert!(!settings.should_mount());
//! ```

mod settings;

pub use settings::{Environment, SettingsError, StudioSettings};
