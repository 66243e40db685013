//! The `/ai/` surface, mounted only with Studio and behind the same gate: the tool catalog (`GET /ai/tools`), the
//! MCP server (`/ai/tools/mcp`: the tools, and as `resources` the OpenAPI document and each ViewSet's schema),
//! structured read-only queries (`POST /ai/query/execute`), the full context (`GET /ai/context/full`) and the
//! schema's health (`GET /ai/schema/health`); with a registered project directory, the code generator (`codegen`:
//! `/ai/codegen/preview`, `/ai/patch/preview|apply`, `/ai/plan/preview|apply`), compiled with the crate's `codegen`
//! feature only. Those five paths exist in every mounted Studio: where the
//! generator cannot run they answer `codegen_unavailable` (`unavailable`: 501 without the feature, 409 without the
//! project directory).
//!
//! No data is read here: every tool call and query is a request to the application's own router
//! ([`dispatch`]), answered by the generated handler as the caller's own principal, through
//! `viewset_core::access` like any REST request. A Studio credential admits to `/ai`; it is never an identity.

mod aggregate;
mod catalog;
#[cfg(feature = "codegen")]
pub mod codegen;
mod context;
mod dispatch;
mod health;
mod indexes;
mod mcp;
mod query;
mod resources;
mod unavailable;
#[cfg(not(feature = "codegen"))]
mod without_codegen;

use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};
use serde_json::{Value, json};

pub(crate) use self::catalog::Tool;
#[cfg(feature = "codegen")]
pub(crate) use self::codegen::handlers::generator;
#[cfg(not(feature = "codegen"))]
pub(crate) use self::without_codegen::generator;
use crate::paths::{AI_CONTEXT_FULL, AI_QUERY_EXECUTE, AI_SCHEMA_HEALTH, AI_TOOLS, AI_TOOLS_MCP};
use crate::reply::method_not_allowed;
use crate::studio::state::Inner;

/// What the `/ai` handlers share.
pub(crate) struct AiState {
    /// Studio's state (models, routes, migrations, settings, database).
    pub(crate) inner: Arc<Inner>,
    /// The application's router without Studio: where tool calls and queries go.
    pub(crate) app: Router,
    /// The tool catalog.
    pub(crate) tools: Vec<Tool>,
    /// The MCP resources (the OpenAPI document, each exposed ViewSet's schema).
    pub(crate) resources: Vec<resources::Resource>,
    /// Studio's token, stripped from the requests tools make.
    pub(crate) studio_token: Option<String>,
    /// The application's name.
    pub(crate) project: String,
}

/// The tool catalog of `studio`'s registered tools, described from its OpenAPI document.
pub(crate) fn tools(studio: &crate::studio::Studio) -> Vec<Tool> {
    catalog::build(&studio.tools, &studio.openapi)
}

/// The MCP resources of `studio` with its tool catalog `tools` (the same exposure).
pub(crate) fn resources(studio: &crate::studio::Studio, tools: &[Tool]) -> Vec<resources::Resource> {
    resources::build(studio, tools)
}

/// Whether `tools` include a list tool (then `POST /ai/query/execute` can run a query: the `ai_query` capability).
pub(crate) fn offers_query(tools: &[Tool]) -> bool {
    tools.iter().any(|t| t.info.operation == viewset_core::registration::ToolOperation::List)
}

/// The `/ai` routes over `state` but the code generator's ([`generator`]); no gate yet.
pub(crate) fn routes(state: Arc<AiState>) -> Router {
    let mcp = mcp::service(state.clone(), state.inner.studio.settings().studio_require_auth);
    Router::new()
        .route(AI_TOOLS, get(tool_catalog).fallback(method_not_allowed))
        .route(AI_CONTEXT_FULL, get(context::full).fallback(method_not_allowed))
        .route(AI_QUERY_EXECUTE, post(query::execute).fallback(method_not_allowed))
        .route(AI_SCHEMA_HEALTH, get(health::handler).fallback(method_not_allowed))
        .route_service(AI_TOOLS_MCP, mcp)
        .with_state(state)
}

/// The catalog as `GET /ai/tools` answers it (and `/ai/context/full` embeds it).
pub(crate) fn catalog_json(state: &AiState) -> Value {
    json!({"count": state.tools.len(), "tools": state.tools.iter().map(Tool::to_json).collect::<Vec<_>>()})
}

async fn tool_catalog(axum::extract::State(state): axum::extract::State<Arc<AiState>>) -> axum::Json<Value> {
    axum::Json(catalog_json(&state))
}
