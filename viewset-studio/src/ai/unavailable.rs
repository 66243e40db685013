//! The code generator's five paths when it cannot run in this process: each answers `POST` with a JSON
//! `codegen_unavailable` that says why and names the fix, so the handshake can announce every path at all times.
//! The status tells which fix: **501** when viewset-studio was built without its `codegen` feature (rebuild with it;
//! `without_codegen`), **409** when it was built with it but the application registered no project directory
//! (`Studio::project_dir`). Any other method is the usual JSON 405.

use axum::Router;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::post;

use crate::paths::AI_CODEGEN_PATHS;
use crate::reply::{error, method_not_allowed};

/// Why the generator is unavailable when the feature is compiled in but no project directory is registered.
#[cfg(feature = "codegen")]
pub(crate) const NO_PROJECT_DIR: &str = "Studio's code generator needs the application's source directory: register \
                                         it with `Studio::project_dir` (e.g. \
                                         `.project_dir(env!(\"CARGO_MANIFEST_DIR\"))`). The handshake's \
                                         `capabilities` list `ai_codegen` when it works.";

/// The five code generator paths, each answering `POST` with `status` and `{"detail": detail, "code":
/// "codegen_unavailable"}`. No gate: the caller layers Studio's.
pub(crate) fn routes(status: StatusCode, detail: &'static str) -> Router {
    AI_CODEGEN_PATHS.into_iter().fold(Router::new(), |router, path| {
        let answer = move || async move { unavailable(status, detail) };
        router.route(path, post(answer).fallback(method_not_allowed))
    })
}

fn unavailable(status: StatusCode, detail: &str) -> Response {
    error(status, detail, "codegen_unavailable")
}
