//! The code generator's endpoints when viewset-studio is built without its `codegen` feature (the generator, its
//! provider's HTTP client and its diffs are not compiled in). An application that registered its project directory
//! still has the five paths, announced in the handshake as before, but each answers 501 `codegen_unavailable`
//! naming the feature, and the handshake lists none of the `ai_codegen`, `ai_patch`, `ai_planner` capabilities.

use axum::Router;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::post;

use crate::paths::AI_CODEGEN_PATHS;
use crate::reply::{error, method_not_allowed};
use crate::settings::SettingsError;
use crate::studio::Studio;

/// What every code generator endpoint answers without the feature.
const UNAVAILABLE: &str = "Studio's code generator is not compiled in: enable viewset-studio's `codegen` feature \
                           (`features = [\"codegen\"]` on its line in Cargo.toml).";

/// The code generator's paths answering 501 when `studio` registered a project directory (none without one), or
/// why that directory cannot be used. No gate: the caller layers Studio's.
pub(crate) fn generator(studio: &Studio) -> Result<Router, SettingsError> {
    if studio.settings().ai_provider_url.is_some() {
        tracing::warn!(
            "SERVICE_AI_PROVIDER_URL is set, but viewset-studio was built without its `codegen` feature: no provider \
             is called"
        );
    }
    let Some(dir) = &studio.project_dir else { return Ok(Router::new()) };
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
    Ok(AI_CODEGEN_PATHS
        .into_iter()
        .fold(Router::new(), |router, path| router.route(path, post(unavailable).fallback(method_not_allowed))))
}

async fn unavailable() -> Response {
    error(StatusCode::NOT_IMPLEMENTED, UNAVAILABLE, "codegen_unavailable")
}
