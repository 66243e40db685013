//! The last step of MCP authorization, the gate's admission of access tokens issued for the MCP endpoint
//! (`Studio::mcp_tokens`, wired by the blog from `SERVICE_JWT_ISSUER` + `SERVICE_STUDIO_PUBLIC_URL` +
//! `SERVICE_MCP_SCOPES`), against the real OpenID provider of `jwt.rs` started with `MCP_RESOURCE`: a token whose
//! audience is the MCP endpoint and that carries `mcp:tools` is admitted and its tool calls run as its principal (the
//! staff client may create a tag, the reader may not); a token for another resource is a 401 `invalid_token` still
//! naming `resource_metadata`; one without the scope a 403 `insufficient_scope` naming it; the MCP token is not the
//! REST API's. The whole flow (registration, authorization code with PKCE, the official SDK) is
//! `tests/mcp/check_oauth.py`, run by `.ci/mcp.sh`.

use std::collections::HashMap;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_core::ServiceState;
use viewset_tests::ai_client::ai_request;
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::on_every_database;
use viewset_tests::studio_fixtures::{TOKEN, with_auth};

use crate::jwt::{Oidc, node_ready};

on_every_database!(not_mysql("the gate does not touch the database: SQLite and PostgreSQL are enough"), setup =>
    a_token_for_the_mcp_endpoint_runs_tools_as_its_principal,
    a_token_for_another_resource_is_a_401_naming_the_metadata,
    a_token_without_the_scope_is_a_403_insufficient_scope,
);

/// Studio's public origin: the MCP endpoint, the tokens' audience, is `<PUBLIC>/ai/tools/mcp`.
const PUBLIC: &str = "https://blog.example";
const RESOURCE: &str = "https://blog.example/ai/tools/mcp";
const METADATA: &str = "https://blog.example/.well-known/oauth-protected-resource/ai/tools/mcp";

/// The provider issuing tokens for [`RESOURCE`], and the blog verifying them.
struct Setup {
    oidc: Oidc,
    app: TestApp,
}

async fn setup(backend: Backend) -> Option<Setup> {
    if !node_ready() {
        return None;
    }
    let oidc = Oidc::start_with(0, &[("MCP_RESOURCE", RESOURCE)]).await;
    let vars: HashMap<&str, String> = [
        ("SERVICE_JWT_ISSUER", oidc.issuer.as_str()),
        ("SERVICE_JWT_AUDIENCE", "https://blog.example"),
        ("SERVICE_JWT_STAFF_CLAIM", "https://blog.example/staff"),
        ("SERVICE_STUDIO_PUBLIC_URL", PUBLIC),
        ("SERVICE_MCP_SCOPES", "mcp:tools"),
    ]
    .into_iter()
    .map(|(name, value)| (name, value.to_string()))
    .collect();
    let var = |name: &str| vars.get(name).cloned();
    let auth = blog::auth::layer_from_vars(var).expect("valid SERVICE_JWT_* settings");
    let studio = blog::auth::mcp_from_vars(blog::studio(with_auth()), var).expect("valid MCP settings");
    let (database, db) = TestDb::seeded_blog(backend).await;
    let app = blog::app_with_auth(blog::api(), ServiceState::new(db.clone()), auth);
    let router = studio.mount(app, db.clone()).expect("valid Studio settings");
    Some(Setup { oidc, app: TestApp::serve(router, db, database).await })
}

/// A JSON-RPC request to the MCP endpoint with `token` alone: status, `WWW-Authenticate`, JSON body.
async fn mcp(app: &TestApp, token: &str, method: &str, params: Value) -> (StatusCode, String, Value) {
    let response = app
        .client()
        .post(format!("{}/ai/tools/mcp", app.base))
        .header("accept", "application/json, text/event-stream")
        .bearer_auth(token)
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .send()
        .await
        .expect("request");
    let status = response.status();
    let challenge = response.headers().get("www-authenticate").map(|v| v.to_str().unwrap().to_string());
    (status, challenge.unwrap_or_default(), response.json().await.expect("a JSON body"))
}

/// The REST status a `tools/call` of `tool` answered as `token`.
async fn tool_status(app: &TestApp, token: &str, tool: &str, arguments: Value) -> (u64, Value) {
    let (status, _, body) = mcp(app, token, "tools/call", json!({"name": tool, "arguments": arguments})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let result = &body["result"]["structuredContent"];
    (result["status"].as_u64().expect("a status"), result["body"].clone())
}

fn initialize() -> Value {
    json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}})
}

async fn a_token_for_the_mcp_endpoint_runs_tools_as_its_principal(setup: Option<Setup>) {
    let Some(Setup { oidc, app }) = setup else { return };
    let staff = oidc.token_with_scope("staff", RESOURCE, "mcp:tools posts:write").await;
    let (status, _, body) = mcp(&app, &staff, "initialize", initialize()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["serverInfo"]["name"], "blog (viewset)");
    let (status, _, tools) = mcp(&app, &staff, "tools/list", json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert!(tools["result"]["tools"].as_array().unwrap().iter().any(|t| t["name"] == "tags_create"), "{tools}");
    // Tags are written by staff alone: the token's claims decide, through the route's own policy.
    let (status, tag) = tool_status(&app, &staff, "tags_create", json!({"body": {"name": "oauth-staff"}})).await;
    assert_eq!(status, 201, "{tag}");
    let reader = oidc.token_with_scope("reader", RESOURCE, "mcp:tools").await;
    let (status, refused) = tool_status(&app, &reader, "tags_create", json!({"body": {"name": "oauth-reader"}})).await;
    assert_eq!(status, 403, "a signed-in non-staff caller: {refused}");
    let (status, authors) = tool_status(&app, &reader, "authors_list", json!({})).await;
    assert_eq!(status, 200, "signed in (anonymous callers are refused authors): {authors}");
    // The MCP token is not the REST API's (its audience is the MCP endpoint alone), nor is it passed through.
    let (status, body) = app.send(Method::GET, "/authors/", Some(&reader), None).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::UNAUTHORIZED, Some("invalid_token")), "{body}");
    // Other Studio paths still need a Studio credential.
    let (status, _) = ai_request(&app, Method::GET, "/ai/tools", false, Some(&staff), None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = ai_request(&app, Method::GET, "/ai/tools", true, None, None).await;
    assert_eq!(status, StatusCode::OK, "the Studio token ({TOKEN}) still works");
}

async fn a_token_for_another_resource_is_a_401_naming_the_metadata(setup: Option<Setup>) {
    let Some(Setup { oidc, app }) = setup else { return };
    for resource in ["https://blog.example", "https://other.example"] {
        let token = oidc.token_with_scope("staff", resource, "posts:read").await;
        let (status, challenge, body) = mcp(&app, &token, "initialize", initialize()).await;
        assert_eq!((status, body["code"].as_str()), (StatusCode::UNAUTHORIZED, Some("invalid_token")), "{body}");
        assert!(challenge.starts_with(r#"Bearer error="invalid_token", error_description=""#), "{challenge}");
        assert!(challenge.contains("audience"), "says which check failed: {challenge}");
        assert!(challenge.ends_with(&format!(r#", realm="studio", resource_metadata="{METADATA}""#)), "{challenge}");
    }
    // No token at all: the challenge names the scope to ask for, and the metadata lists it.
    let response = app.client().post(format!("{}/ai/tools/mcp", app.base)).json(&json!({})).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let challenge = response.headers()["www-authenticate"].to_str().unwrap().to_string();
    assert_eq!(challenge, format!(r#"Bearer realm="studio", scope="mcp:tools", resource_metadata="{METADATA}""#));
    let metadata_path = "/.well-known/oauth-protected-resource/ai/tools/mcp";
    let metadata: Value =
        app.client().get(format!("{}{metadata_path}", app.base)).send().await.unwrap().json().await.unwrap();
    assert_eq!(metadata["resource"], RESOURCE);
    assert_eq!(metadata["authorization_servers"], json!([oidc.issuer]));
    assert_eq!(metadata["scopes_supported"], json!(["mcp:tools"]));
}

async fn a_token_without_the_scope_is_a_403_insufficient_scope(setup: Option<Setup>) {
    let Some(Setup { oidc, app }) = setup else { return };
    let token = oidc.token_with_scope("staff", RESOURCE, "posts:read").await;
    let (status, challenge, body) = mcp(&app, &token, "initialize", initialize()).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::FORBIDDEN, Some("insufficient_scope")), "{body}");
    assert_eq!(
        challenge,
        format!(
            r#"Bearer error="insufficient_scope", scope="mcp:tools", realm="studio", resource_metadata="{METADATA}""#
        )
    );
}
