//! The endpoints: `POST /ai/codegen/preview` (one `new_resource`), `POST /ai/patch/preview` (allowlist and column
//! edits), `POST /ai/plan/preview` (any operations, or a prompt a provider turns into operations), and the two apply
//! endpoints of `apply_routes` (`/ai/plan/apply`, any preview; `/ai/patch/apply`, patch operations only). Served when
//! the application registered its project directory ([`crate::Studio::project_dir`]); without it the paths answer
//! 409 `codegen_unavailable`: [`generator`].

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::provider::Provider;
use super::{CodegenError, Operation, Preview};
use crate::paths::{AI_CODEGEN_PREVIEW, AI_PATCH_APPLY, AI_PATCH_PREVIEW, AI_PLAN_APPLY, AI_PLAN_PREVIEW};
use crate::settings::Environment;

/// The most operations one request may carry.
const MAX_OPERATIONS: usize = 20;
/// The longest prompt, in characters.
const MAX_PROMPT_CHARS: usize = 4000;
/// How many previews are kept (in memory) for `apply` by id alone.
pub(super) const KEPT_PREVIEWS: usize = 64;

/// What the code generator's endpoints share.
pub(super) struct Service {
    pub(super) root: PathBuf,
    pub(super) environment: Environment,
    provider: Option<Provider>,
    previews: Mutex<VecDeque<Arc<Preview>>>,
    /// One apply at a time.
    pub(super) writing: tokio::sync::Mutex<()>,
}

impl Service {
    /// The service for the project at `root`, with the provider the settings configure.
    fn new(root: PathBuf, settings: &crate::settings::StudioSettings) -> Self {
        Service {
            root,
            environment: settings.environment,
            provider: Provider::from_settings(settings),
            previews: Mutex::new(VecDeque::new()),
            writing: tokio::sync::Mutex::new(()),
        }
    }

    fn keep(&self, preview: Preview) -> Arc<Preview> {
        let preview = Arc::new(preview);
        let mut kept = self.previews.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|p| p.id != preview.id);
        kept.push_back(preview.clone());
        while kept.len() > KEPT_PREVIEWS {
            kept.pop_front();
        }
        preview
    }

    pub(super) fn kept(&self, id: &str) -> Option<Arc<Preview>> {
        self.previews.lock().unwrap_or_else(|e| e.into_inner()).iter().find(|p| p.id == id).cloned()
    }
}

/// The code generator's routes for the project directory `studio` registered (without one, the same paths answering
/// 409 `codegen_unavailable` naming `Studio::project_dir`), or why that directory cannot be used. No gate: the caller
/// layers Studio's.
pub(crate) fn generator(studio: &crate::studio::Studio) -> Result<Router, crate::settings::SettingsError> {
    let Some(dir) = &studio.project_dir else {
        return Ok(crate::ai::unavailable::routes(StatusCode::CONFLICT, crate::ai::unavailable::NO_PROJECT_DIR));
    };
    let root =
        super::project_root(dir).map_err(|e| crate::settings::SettingsError(format!("Studio::project_dir: {e}")))?;
    let settings = studio.settings();
    if !settings.studio_require_auth {
        tracing::warn!(
            "Studio's code generator is mounted without authentication: anyone who reaches Studio can preview (and in \
             development apply) edits of {}",
            root.display()
        );
    }
    Ok(routes(Arc::new(Service::new(root, settings))))
}

/// The routes over `service`.
fn routes(service: Arc<Service>) -> Router {
    let fallback = || crate::reply::method_not_allowed;
    Router::new()
        .route(AI_CODEGEN_PREVIEW, post(codegen_preview).fallback(fallback()))
        .route(AI_PATCH_PREVIEW, post(patch_preview).fallback(fallback()))
        .route(AI_PATCH_APPLY, post(super::apply_routes::patch_apply).fallback(fallback()))
        .route(AI_PLAN_PREVIEW, post(plan_preview).fallback(fallback()))
        .route(AI_PLAN_APPLY, post(super::apply_routes::plan_apply).fallback(fallback()))
        .with_state(service)
}

pub(super) type Shared = State<Arc<Service>>;

fn json_response(status: u16, body: Value) -> Response {
    (StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR), axum::Json(body)).into_response()
}

/// A refusal: its status and JSON body (small, unlike a `Response`, to travel in `Err`).
pub(super) struct Refusal(pub(super) u16, pub(super) Value);

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        json_response(self.0, self.1)
    }
}

pub(super) fn unprocessable(loc: Vec<Value>, msg: impl Into<String>, kind: &str) -> Refusal {
    Refusal(422, json!({"detail": [{"loc": loc, "msg": msg.into(), "type": kind}]}))
}

/// `value` as `T`, or the `loc` (under `root`) and message of the first error.
fn parse_value<T: DeserializeOwned>(value: Value, root: &[&str]) -> Result<T, (Vec<Value>, String)> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let mut loc: Vec<Value> = root.iter().map(|s| Value::from(*s)).collect();
        for segment in e.path().iter() {
            match segment {
                serde_path_to_error::Segment::Seq { index } => loc.push(Value::from(*index)),
                serde_path_to_error::Segment::Map { key } => loc.push(Value::from(key.as_str())),
                _ => {}
            }
        }
        (loc, e.inner().to_string())
    })
}

/// `value` as `T`, or a 422 whose `loc` is the path of the first error under `root`.
pub(super) fn parse<T: DeserializeOwned>(value: Value, root: &[&str]) -> Result<T, Refusal> {
    parse_value(value, root).map_err(|(loc, msg)| unprocessable(loc, msg, "invalid_body"))
}

pub(super) fn body_json(body: &Bytes) -> Result<Value, Refusal> {
    serde_json::from_slice(body)
        .map_err(|e| unprocessable(vec!["body".into()], format!("not JSON: {e}"), "invalid_json"))
}

pub(super) fn refused(error: &CodegenError, prefix: &[Value]) -> Refusal {
    let (status, body) = error.to_response(prefix);
    Refusal(status, body)
}

pub(super) async fn run_preview(service: &Service, operations: Vec<Operation>) -> Result<Arc<Preview>, CodegenError> {
    let root = service.root.clone();
    let preview = tokio::task::spawn_blocking(move || super::preview(&root, &operations))
        .await
        .map_err(|e| CodegenError::Io(format!("the preview did not finish: {e}")))??;
    Ok(service.keep(preview))
}

pub(super) fn check_count(operations: &[Operation]) -> Result<(), Refusal> {
    if operations.is_empty() || operations.len() > MAX_OPERATIONS {
        let msg = format!("send between 1 and {MAX_OPERATIONS} operations");
        return Err(unprocessable(vec!["body".into(), "operations".into()], msg, "operation_count"));
    }
    Ok(())
}

/// A preview as answered, with how to apply it.
fn answer(service: &Service, preview: &Preview, apply_path: &str, extra: Value) -> Response {
    let mut body = preview.to_json();
    body["apply"] = json!({
        "path": apply_path,
        "allowed": service.environment == Environment::Development,
        "body": {"preview_id": preview.id, "confirm": true},
    });
    if let (Value::Object(body), Value::Object(extra)) = (&mut body, extra) {
        body.extend(extra);
    }
    axum::Json(body).into_response()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CodegenBody {
    operation: Operation,
}

async fn codegen_preview(State(service): Shared, body: Bytes) -> Result<Response, Refusal> {
    let request: CodegenBody = parse(body_json(&body)?, &["body"])?;
    if !matches!(request.operation, Operation::NewResource(_)) {
        let msg = "/ai/codegen/preview generates a new_resource; send edits to /ai/patch/preview or /ai/plan/preview";
        return Err(unprocessable(vec!["body".into(), "operation".into(), "op".into()], msg, "wrong_endpoint"));
    }
    match run_preview(&service, vec![request.operation]).await {
        Ok(preview) => Ok(answer(&service, &preview, AI_PLAN_APPLY, json!({}))),
        Err(CodegenError::Invalid(mut errors)) => {
            errors.iter_mut().for_each(|e| drop(e.loc.remove(0)));
            Err(refused(&CodegenError::Invalid(errors), &["body".into(), "operation".into()]))
        }
        Err(other) => Err(refused(&other, &[])),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PatchBody {
    operations: Vec<Operation>,
}

async fn patch_preview(State(service): Shared, body: Bytes) -> Result<Response, Refusal> {
    let request: PatchBody = parse(body_json(&body)?, &["body"])?;
    check_count(&request.operations)?;
    if let Some(i) = request.operations.iter().position(|op| matches!(op, Operation::NewResource(_))) {
        let msg = "new_resource is generated by /ai/codegen/preview (or planned with /ai/plan/preview)";
        return Err(unprocessable(
            vec!["body".into(), "operations".into(), i.into(), "op".into()],
            msg,
            "wrong_endpoint",
        ));
    }
    let preview = run_preview(&service, request.operations)
        .await
        .map_err(|e| refused(&e, &["body".into(), "operations".into()]))?;
    Ok(answer(&service, &preview, AI_PATCH_APPLY, json!({})))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanBody {
    #[serde(default)]
    operations: Option<Vec<Operation>>,
    #[serde(default)]
    prompt: Option<String>,
}

async fn plan_preview(State(service): Shared, body: Bytes) -> Result<Response, Refusal> {
    let request: PlanBody = parse(body_json(&body)?, &["body"])?;
    let (operations, prefix, extra) = match (request.operations, request.prompt) {
        (Some(operations), None) => {
            (operations, vec!["body".into(), "operations".into()], json!({"source": "operations"}))
        }
        (None, Some(prompt)) => from_prompt(&service, &prompt).await?,
        _ => return Err(unprocessable(vec!["body".into()], "send either `operations` or `prompt`", "invalid_body")),
    };
    check_count(&operations)?;
    match run_preview(&service, operations).await {
        Ok(preview) => Ok(answer(&service, &preview, AI_PLAN_APPLY, extra)),
        Err(e) => {
            let (status, mut body) = e.to_response(&prefix);
            if let (CodegenError::Invalid(_), Some(raw)) = (&e, extra.get("provider_operations")) {
                body["provider_operations"] = raw.clone();
            }
            Err(Refusal(status, body))
        }
    }
}

/// The operations a provider proposes for `prompt`, the `loc` prefix of their errors and the answer's extra keys.
async fn from_prompt(service: &Service, prompt: &str) -> Result<(Vec<Operation>, Vec<Value>, Value), Refusal> {
    let at = || vec![Value::from("body"), Value::from("prompt")];
    let Some(provider) = &service.provider else {
        let msg = "no language-model provider is configured (SERVICE_AI_PROVIDER_URL, SERVICE_AI_MODEL): send \
                   `operations` instead of a prompt";
        return Err(unprocessable(at(), msg, "no_provider"));
    };
    if prompt.trim().is_empty() || prompt.chars().count() > MAX_PROMPT_CHARS {
        return Err(unprocessable(at(), format!("a prompt has 1 to {MAX_PROMPT_CHARS} characters"), "invalid_prompt"));
    }
    let root = service.root.clone();
    let project = tokio::task::spawn_blocking(move || super::describe(&root))
        .await
        .map_err(|e| refused(&CodegenError::Io(e.to_string()), &[]))?
        .map_err(|e| refused(&e, &[]))?;
    let raw = provider
        .operations(prompt, &project)
        .await
        .map_err(|message| Refusal(502, json!({"detail": message, "code": "provider_error"})))?;
    let operations: Vec<Operation> = parse_value(raw.clone(), &["provider", "operations"]).map_err(|(loc, msg)| {
        let detail = json!([{"loc": loc, "msg": msg, "type": "invalid_provider_answer"}]);
        Refusal(422, json!({"detail": detail, "provider_operations": raw}))
    })?;
    let extra = json!({"source": "provider", "model": provider.model(), "prompt": prompt, "provider_operations": raw});
    Ok((operations, vec!["provider".into(), "operations".into()], extra))
}
