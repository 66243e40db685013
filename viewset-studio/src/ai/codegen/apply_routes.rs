//! The apply endpoints: `POST /ai/plan/apply` writes any preview (by id, or of operations previewed now) and `POST
//! /ai/patch/apply` the same of patch operations only (`add_to_allowlist`, `add_column`; anything else is 422
//! `wrong_endpoint`, pointing at `/ai/plan/apply`). Both need `"confirm": true`, the development environment and
//! files unchanged since the preview.

use std::path::Path;

use axum::body::Bytes;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use super::handlers::{
    KEPT_PREVIEWS, Refusal, Shared, body_json, check_count, parse, refused, run_preview, unprocessable,
};
use super::{CodegenError, Operation, Preview};
use crate::settings::Environment;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ApplyBody {
    #[serde(default)]
    preview_id: Option<String>,
    #[serde(default)]
    operations: Option<Vec<Operation>>,
    #[serde(default)]
    confirm: bool,
}

/// The first operation of `operations` that `/ai/patch/apply` does not apply: its index and name.
fn not_a_patch(operations: &[Operation]) -> Option<(usize, &'static str)> {
    operations
        .iter()
        .position(|op| matches!(op, Operation::NewResource(_) | Operation::NewMigration(_)))
        .map(|i| (i, operations[i].name()))
}

/// The 422 of `/ai/patch/apply` for a non-patch operation at `loc`.
fn patch_only(loc: Vec<Value>, what: String) -> Refusal {
    let msg = format!(
        "{what}: /ai/patch/apply applies patch operations only (add_to_allowlist, add_column); apply it with \
         /ai/plan/apply"
    );
    unprocessable(loc, msg, "wrong_endpoint")
}

/// `POST /ai/patch/apply`: [`apply`] of patch operations only.
pub(super) async fn patch_apply(state: Shared, body: Bytes) -> Result<Response, Refusal> {
    apply(state, body, true).await
}

/// `POST /ai/plan/apply`: [`apply`] of any operations.
pub(super) async fn plan_apply(state: Shared, body: Bytes) -> Result<Response, Refusal> {
    apply(state, body, false).await
}

/// Writes a preview (by id, or of operations previewed now) after the checks: a body of the right shape (and, with
/// `patch_only`, of patch operations only), `"confirm": true`, development, unchanged files.
async fn apply(State(service): Shared, body: Bytes, patch_only_ops: bool) -> Result<Response, Refusal> {
    let request: ApplyBody = parse(body_json(&body)?, &["body"])?;
    if let Some((i, name)) = request.operations.as_deref().filter(|_| patch_only_ops).and_then(not_a_patch) {
        return Err(patch_only(vec!["body".into(), "operations".into(), i.into(), "op".into()], format!("`{name}`")));
    }
    if !request.confirm {
        let detail = "apply writes files into the project: send \"confirm\": true (after reviewing the preview)";
        return Err(Refusal(400, json!({"detail": detail, "code": "confirmation_required", "field": "confirm"})));
    }
    if service.environment != Environment::Development {
        let detail = format!(
            "apply writes source files: only in the development environment (SERVICE_ENVIRONMENT is {})",
            service.environment.as_str()
        );
        return Err(Refusal(403, json!({"detail": detail, "code": "not_development"})));
    }
    let _writing = service.writing.lock().await;
    let preview = match (request.preview_id, request.operations) {
        (Some(id), None) => service.kept(&id).ok_or_else(|| {
            let detail = format!(
                "no preview `{id}` in this process (the last {KEPT_PREVIEWS} are kept): send its operations with it"
            );
            Refusal(404, json!({"detail": detail, "code": "unknown_preview"}))
        })?,
        (id, Some(operations)) => {
            check_count(&operations)?;
            let fresh = run_preview(&service, operations)
                .await
                .map_err(|e| refused(&e, &["body".into(), "operations".into()]))?;
            if let Some(id) = id.filter(|id| *id != fresh.id) {
                let files = service.kept(&id).map(|old| changed(&service.root, &old)).unwrap_or_default();
                return Err(refused(&CodegenError::Changed(files), &[]));
            }
            fresh
        }
        (None, None) => {
            let msg = "send `preview_id` (of a preview) or `operations`";
            return Err(unprocessable(vec!["body".into()], msg, "invalid_body"));
        }
    };
    if let Some((i, name)) = Some(&preview.operations).filter(|_| patch_only_ops).and_then(|ops| not_a_patch(ops)) {
        let what = format!("preview `{}` holds `{name}` (operation {i})", preview.id);
        return Err(patch_only(vec!["body".into(), "preview_id".into()], what));
    }
    let root = service.root.clone();
    let written = {
        let preview = preview.clone();
        tokio::task::spawn_blocking(move || super::apply(&root, &preview))
            .await
            .map_err(|e| refused(&CodegenError::Io(format!("the apply did not finish: {e}")), &[]))?
            .map_err(|e| refused(&e, &[]))?
    };
    let files: Vec<Value> =
        written.iter().map(|f| json!({"path": f.path, "action": f.action, "sha256": f.sha256_after})).collect();
    Ok(axum::Json(json!({
        "applied": true,
        "preview_id": preview.id,
        "files": files,
        "steps": preview.steps,
        "next": "build the project (cargo build); new migrations run at its next start (Migrator::up)",
    }))
    .into_response())
}

/// The files of `preview` that changed since (for a 409's message), best effort.
fn changed(root: &Path, preview: &Preview) -> Vec<String> {
    super::changed_files(root, preview)
}
