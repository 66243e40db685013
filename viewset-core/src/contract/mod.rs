//! The contract a ViewSet fulfils: the [`ViewSet`](viewset::ViewSet) trait and its [`Config`](config::Config),
//! the overridable [`Hooks`](hooks::Hooks), the [`Paginator`](paginator::Paginator), the [`Permission`] and
//! [`RowPolicy`] traits with their combinators, a detail route's [`Lookup`](lookup::Lookup) and the route paths.
//! It stands on the request and the plain types; everything that runs a ViewSet stands on it. The public modules
//! (`viewset`, `access`, `pagination`, `registration`) hand its names on.
//!
//! [`Permission`]: permission::Permission
//! [`RowPolicy`]: policy::RowPolicy

pub mod committed;
pub mod composition;
pub mod config;
pub mod hooks;
pub mod lookup;
pub mod paginator;
pub mod paths;
pub mod permission;
pub mod policy;
pub mod viewset;
