//! The code generator's endpoints when viewset-studio is built without its `codegen` feature (the generator, its
//! provider's HTTP client and its diffs are not compiled in). Every mounted Studio still has the five paths, announced
//! in the handshake as always, but each answers 501 `codegen_unavailable` naming the feature (also when no project
//! directory is registered: the feature is the first thing missing), and the handshake lists none of the
//! `ai_codegen`, `ai_patch`, `ai_planner` capabilities. A registered directory that does not exist is still a
//! start-up error.

use axum::Router;
use axum::http::StatusCode;

use crate::settings::SettingsError;
use crate::studio::Studio;

/// What every code generator endpoint answers without the feature.
const UNAVAILABLE: &str = "Studio's code generator is not compiled in: enable viewset-studio's `codegen` feature \
                           (`features = [\"codegen\"]` on its line in Cargo.toml), and register the application's \
                           source directory with `Studio::project_dir`.";

/// The code generator's paths answering 501, or why a registered project directory cannot be used. No gate: the
/// caller layers Studio's.
pub(crate) fn generator(studio: &Studio) -> Result<Router, SettingsError> {
    if studio.settings().ai_provider_url.is_some() {
        tracing::warn!(
            "SERVICE_AI_PROVIDER_URL is set, but viewset-studio was built without its `codegen` feature: no provider \
             is called"
        );
    }
    if let Some(dir) = &studio.project_dir {
        let root = dir
            .canonicalize()
            .map_err(|e| SettingsError(format!("Studio::project_dir: project directory {}: {e}", dir.display())))?;
        if !root.is_dir() {
            return Err(SettingsError(format!("Studio::project_dir: {} is not a directory", root.display())));
        }
        tracing::warn!(
            "Studio::project_dir is registered, but viewset-studio was built without its `codegen` feature: the code \
             generator's endpoints answer 501 codegen_unavailable"
        );
    }
    Ok(super::unavailable::routes(StatusCode::NOT_IMPLEMENTED, UNAVAILABLE))
}
