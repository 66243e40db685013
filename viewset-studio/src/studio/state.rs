//! The state the Studio handlers share: the application's description, its checksums (computed once at mount)
//! and the database, with the last applied migrations read.

use std::sync::{Arc, Mutex};

use axum::extract::State;
use sea_orm::DatabaseConnection;

use super::Studio;
use crate::migrations::AppliedState;
use crate::protocol::{Checksums, DatabaseStatus};
use crate::settings::Environment;

/// What every Studio handler reads.
pub(crate) struct Inner {
    pub(crate) studio: Studio,
    pub(super) checksums: Checksums,
    pub(crate) db: DatabaseConnection,
    /// The number of AI tools (`ai_tool_count`).
    pub(super) ai_tool_count: u64,
    /// Whether `/ai/query/execute` has a list to run (`ai_query`).
    pub(super) ai_query: bool,
    /// The last applied state read successfully (reported while the database is unreachable).
    applied: Mutex<Option<AppliedState>>,
}

/// The extractor of the shared state.
pub(super) type Shared = State<Arc<Inner>>;

impl Inner {
    /// The state of a mounted `studio` (its checksums computed now), with the size of its AI tool catalog and
    /// whether `/ai/query/execute` has a list tool to run.
    pub(crate) fn new(studio: Studio, db: DatabaseConnection, ai_tool_count: u64, ai_query: bool) -> Self {
        let checksums = studio.checksums();
        Inner { studio, checksums, db, ai_tool_count, ai_query, applied: Mutex::new(None) }
    }

    /// Whether the `apply_migrations` capability holds: a registered migrator, in development.
    pub(crate) fn offers_apply_migrations(&self) -> bool {
        self.studio.apply_migrations.is_some() && self.studio.settings().environment == Environment::Development
    }

    /// The capabilities inferred from what the application registered and the database status.
    pub(super) fn capabilities(&self, database: &DatabaseStatus) -> Vec<String> {
        let studio = &self.studio;
        let mut caps = Vec::new();
        if !studio.models.is_empty() {
            caps.push("read_schema");
        }
        if database.connected && studio.routes.iter().any(|r| r.method == "GET") {
            caps.push("read_data");
        }
        if database.connected && studio.routes.iter().any(|r| matches!(r.method, "POST" | "PATCH" | "PUT" | "DELETE")) {
            caps.push("write_data");
        }
        if database.connected && !studio.migrations.nodes().is_empty() {
            caps.push("read_migrations");
        }
        if self.ai_tool_count > 0 {
            caps.push("ai_tools");
        }
        if self.ai_query && database.connected {
            caps.push("ai_query");
        }
        // The code generator's endpoints exist with a project directory, and work when the `codegen` feature compiled
        // the generator in; apply writes only in development.
        if cfg!(feature = "codegen") && studio.project_dir.is_some() {
            caps.push("ai_codegen");
            if studio.settings.environment == Environment::Development {
                caps.push("ai_patch");
            }
            caps.push("ai_planner");
        }
        // The web UI (`/studio/ui`) is mounted with Studio: its debug panels (the Query Explorer's SQL) in debug
        // mode, and a Model Browser that writes (through the application's routes, as the chosen identity).
        if studio.settings.debug {
            caps.push("debug_panels");
        }
        if caps.contains(&"write_data") {
            caps.push("admin_access");
        }
        if database.connected && self.offers_apply_migrations() {
            caps.push("apply_migrations");
        }
        caps.into_iter().map(str::to_string).collect()
    }

    /// The applied migrations now (remembered for [`Inner::applied_or_last_known`]); a failure is logged.
    pub(crate) async fn applied(&self) -> Result<AppliedState, sea_orm::DbErr> {
        let applied = self.studio.migrations.applied(&self.db).await.inspect_err(|e| {
            tracing::warn!("Studio could not read the migrations table: {e}");
        })?;
        *self.applied.lock().unwrap_or_else(|e| e.into_inner()) = Some(applied.clone());
        Ok(applied)
    }

    /// The applied migrations now, or the last ones read when the table cannot be read (the database status
    /// beside them says so); nothing applied when it was never read.
    pub(crate) async fn applied_or_last_known(&self) -> AppliedState {
        match self.applied().await {
            Ok(applied) => applied,
            Err(_) => self.applied.lock().unwrap_or_else(|e| e.into_inner()).clone().unwrap_or_default(),
        }
    }
}
