//! The MCP server at `/ai/tools/mcp` (Streamable HTTP, the official Rust SDK `rmcp`): `initialize`, `tools/list`
//! (the catalog) and `tools/call`, which is [`dispatch::call`]: the tool's own REST route, as the caller of this
//! HTTP request. A 2xx answer is the tool's result; any other is a tool error (`isError: true`) whose text is
//! REST's JSON error body, unchanged. `resources/list` and `resources/read` serve the read-only documents of
//! [`super::resources`](mod@super::resources) (an unknown URI is the MCP error `-32002`, resource not found; rmcp
//! sends `-32602` to clients of protocol 2026-07-28 and later, as that revision asks).

use std::sync::Arc;

use axum::http::request::Parts;
use rmcp::ErrorData;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Resource, ResourceContents, ServerCapabilities, ServerConfig, Tool as McpTool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::AiState;
use super::dispatch::{self, Caller};
use crate::studio::SERVICE_VERSION;

/// One MCP request's handler over the shared state.
#[derive(Clone)]
pub(crate) struct McpServer {
    state: Arc<AiState>,
}

/// The rmcp service mounted at `/ai/tools/mcp`: stateless (every POST stands alone, JSON answers), Host checked
/// against loopback names unless Studio requires its token (the token then stands against DNS rebinding).
pub(crate) fn service(
    state: Arc<AiState>,
    require_auth: bool,
) -> StreamableHttpService<McpServer, NeverSessionManager> {
    let mut config = StreamableHttpServerConfig::default().with_legacy_session_mode(false).with_json_response(true);
    if require_auth {
        config = config.disable_allowed_hosts();
    }
    StreamableHttpService::new(move || Ok(McpServer { state: state.clone() }), Arc::default(), config)
}

impl McpServer {
    fn tools(&self) -> Vec<McpTool> {
        self.state
            .tools
            .iter()
            .filter_map(|tool| match serde_json::from_value::<McpTool>(tool.to_json()) {
                Ok(tool) => Some(tool),
                Err(e) => {
                    tracing::error!(tool = %tool.info.name, error = %e, "an AI tool is not a valid MCP tool");
                    None
                }
            })
            .collect()
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
            .with_server_info(Implementation::new(format!("{} (viewset)", self.state.project), SERVICE_VERSION))
            .with_instructions(
                "Each tool is one REST route of this application, called as your own identity (the application's \
                 authentication, e.g. `Authorization: Bearer`, decides who you are). A non-2xx answer is a tool \
                 error whose text is the REST JSON error body. The resources are the OpenAPI document of these routes \
                 and each ViewSet's schema (read-only JSON).",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = self.state.tools.iter().find(|t| t.info.name == request.name) else {
            return Err(ErrorData::invalid_params(format!("unknown tool `{}`", request.name), None));
        };
        let Some(parts) = context.extensions.get::<Parts>() else {
            return Err(ErrorData::internal_error("the HTTP request of this call is unknown", None));
        };
        let caller = Caller {
            headers: &parts.headers,
            extensions: &parts.extensions,
            studio_token: self.state.studio_token.as_deref(),
        };
        let arguments = request.arguments.unwrap_or_default();
        let answer = dispatch::call(&self.state.app, tool, &arguments, &caller).await;
        let content = vec![ContentBlock::text(answer.text.clone())];
        let mut result =
            if answer.status.is_success() { CallToolResult::success(content) } else { CallToolResult::error(content) };
        result.structured_content = Some(answer.to_json());
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let listed = self.state.resources.iter().map(|r| {
            Resource::new(&r.uri, &r.name)
                .with_title(&r.title)
                .with_description(&r.description)
                .with_mime_type(JSON)
                .with_size(r.text.len() as u64)
        });
        Ok(ListResourcesResult::with_all_items(listed.collect()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let Some(resource) = self.state.resources.iter().find(|r| r.uri == request.uri) else {
            let message = format!("no resource `{}`: resources/list names every resource", request.uri);
            return Err(ErrorData::resource_not_found(message, Some(serde_json::json!({"uri": request.uri}))));
        };
        let contents = ResourceContents::text(&resource.text, &resource.uri).with_mime_type(JSON);
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

/// The MIME type of every resource.
const JSON: &str = "application/json";
