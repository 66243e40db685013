//! A client of the `/ai` surface for the tests: the Studio token in `X-Studio-Token`, the caller's own token in
//! `Authorization: Bearer` (the examples' authentication), MCP `tools/call` as one JSON-RPC POST, and the same
//! call over REST for comparison.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::harness::{Backend, TestApp, TestDb};
use crate::studio_fixtures::{TOKEN, with_auth};

/// The tenants example (migrated, empty) with Studio mounted per `settings`.
pub async fn tenants_with_studio(backend: Backend, settings: viewset_studio::StudioSettings) -> TestApp {
    let database = TestDb::create(backend).await;
    let db = tenants::connect_and_migrate(&database.url).await.expect("migrate the tenants example");
    let router = tenants::mount_studio(tenants::app(db.clone()), db.clone(), settings).expect("valid settings");
    TestApp::serve(router, db, database).await
}

/// The tenants example with Studio per [`with_auth`]: a setup for [`crate::on_every_database!`].
pub async fn tenants_with_authed_studio(backend: Backend) -> TestApp {
    tenants_with_studio(backend, with_auth()).await
}

/// A request to `path` with the Studio token (when `studio`) and the caller's `user` token: status and JSON body.
pub async fn ai_request(
    app: &TestApp,
    method: Method,
    path: &str,
    studio: bool,
    user: Option<&str>,
    body: Option<&Value>,
) -> (StatusCode, Value) {
    let mut request = app
        .client()
        .request(method, format!("{}{path}", app.base))
        .header("accept", "application/json, text/event-stream");
    if studio {
        request = request.header(viewset_studio::STUDIO_TOKEN, TOKEN);
    }
    if let Some(user) = user {
        request = request.bearer_auth(user);
    }
    if let Some(body) = body {
        request = request.header("content-type", "application/json").body(body.to_string());
    }
    let response = request.send().await.expect("request");
    let status = response.status();
    let text = response.text().await.expect("body");
    (status, serde_json::from_str(&text).unwrap_or_else(|_| panic!("{status} from {path} is not JSON: {text}")))
}

/// `POST /ai/query/execute` as `user`.
pub async fn query(app: &TestApp, user: Option<&str>, body: Value) -> (StatusCode, Value) {
    ai_request(app, Method::POST, "/ai/query/execute", true, user, Some(&body)).await
}

/// The MCP `result` of `tools/call` (`{content, structuredContent, isError}`) for `tool` as `user`.
pub async fn mcp_call(app: &TestApp, user: Option<&str>, tool: &str, arguments: Value) -> Value {
    let call =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}});
    let (status, body) = ai_request(app, Method::POST, "/ai/tools/mcp", true, user, Some(&call)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["result"].clone()
}

/// A tool call's REST status and body as MCP reports them, with `isError` checked against the status.
pub async fn mcp_answer(app: &TestApp, user: Option<&str>, tool: &str, arguments: Value) -> (u16, Value) {
    let result = mcp_call(app, user, tool, arguments).await;
    let status = result["structuredContent"]["status"].as_u64().expect("a status") as u16;
    assert_eq!(result["isError"], (!(200..300).contains(&status)), "{result}");
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().expect("text")).expect("JSON text");
    assert_eq!(text, result["structuredContent"]["body"], "the text is the body");
    (status, text)
}

/// The same request over REST: status and body.
pub async fn rest_answer(
    app: &TestApp,
    user: Option<&str>,
    method: Method,
    path: &str,
    body: Option<&Value>,
) -> (u16, Value) {
    let (status, body) = app.send(method, path, user, body.map(Value::to_string).as_deref()).await;
    (status.as_u16(), body)
}
