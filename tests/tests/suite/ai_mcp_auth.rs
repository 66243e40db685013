//! MCP authorization as the MCP specification (2025-06-18 and later) describes it, over real HTTP on SQLite and
//! PostgreSQL: with Studio authentication on, `/ai/tools/mcp` answers a missing or wrong credential with `401` and a
//! `WWW-Authenticate: Bearer` challenge naming its OAuth protected resource metadata (RFC 9728), which is served
//! without a credential at `/.well-known/oauth-protected-resource/ai/tools/mcp`; with it off, nothing is protected
//! and the document says so. Then the MCP resources (the OpenAPI document, each ViewSet's schema), which follow the
//! tools' exposure. The official Python SDK reads the same resources in `.ci/mcp.sh`.

use reqwest::header::WWW_AUTHENTICATE;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_core::prelude::*;
use viewset_core::{Api, ServiceState};
use viewset_studio::Studio;
use viewset_tests::ai_client::ai_request;
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::on_every_database;
use viewset_tests::studio_fixtures::{TOKEN, blog_with_authed_studio, blog_with_studio, settings, with_auth};

on_every_database!(blog_with_authed_studio => a_401_names_the_metadata_which_is_served_without_a_credential);
on_every_database!(configured => registered_servers_and_public_url_are_announced, resources_follow_the_tools_policy);
on_every_database!(open => without_studio_auth_nothing_is_protected);

const METADATA: &str = "/.well-known/oauth-protected-resource/ai/tools/mcp";
const SERVERS: [&str; 2] = ["https://auth.example.com", "https://login.example.org/realms/blog"];

/// Posts again, kept from AI access: no tools, so no resource and no operation in the OpenAPI resource.
#[derive(ModelViewSet)]
#[viewset(model = blog::entities::post::Entity, prefix = "/hidden/posts", ai_exposed = false, basename = "hidden_posts")]
pub struct HiddenPosts;

fn api() -> Api {
    let mut api = blog::api();
    api.include::<HiddenPosts>().expect("HiddenPosts registers");
    api
}

/// The blog plus [`HiddenPosts`], with Studio (token required) announcing two authorization servers and a public
/// origin.
async fn configured(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let studio = Studio::new(with_auth())
        .project("blog", "1.0.0")
        .api(&api())
        .viewset::<blog::PostViewSet>()
        .viewset::<blog::AuthorViewSet>()
        .viewset::<HiddenPosts>()
        .authorization_servers(SERVERS)
        .public_url("https://studio.example.com/");
    let router = studio.mount(blog::app_from(api(), ServiceState::new(db.clone())), db.clone()).expect("valid");
    TestApp::serve(router, db, database).await
}

async fn open(backend: Backend) -> TestApp {
    blog_with_studio(backend, settings(&[("SERVICE_ENABLE_STUDIO", "true")])).await
}

/// A JSON-RPC request to the MCP endpoint with `headers`: status, the `WWW-Authenticate` header, the JSON body.
async fn mcp(app: &TestApp, method: &str, params: Value, headers: &[(&str, &str)]) -> (StatusCode, String, Value) {
    let mut request = app
        .client()
        .post(format!("{}/ai/tools/mcp", app.base))
        .header("accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("request");
    let status = response.status();
    let challenge = response.headers().get(WWW_AUTHENTICATE).map(|v| v.to_str().unwrap().to_string());
    let body = response.json().await.expect("a JSON body");
    (status, challenge.unwrap_or_default(), body)
}

fn initialize() -> Value {
    json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}})
}

/// `GET url` (absolute) with `headers`: status and JSON body.
async fn get(app: &TestApp, url: &str, headers: &[(&str, &str)]) -> (StatusCode, Value) {
    let mut request = app.client().get(url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("request");
    (response.status(), response.json().await.expect("a JSON body"))
}

async fn a_401_names_the_metadata_which_is_served_without_a_credential(app: TestApp) {
    let url = format!("{}{METADATA}", app.base);
    let (status, challenge, body) = mcp(&app, "initialize", initialize(), &[]).await;
    assert_eq!((status, &body["code"]), (StatusCode::UNAUTHORIZED, &json!("not_authenticated")), "{body}");
    assert_eq!(challenge, format!("Bearer realm=\"studio\", resource_metadata=\"{url}\""));
    for wrong in [("x-studio-token", "not-the-token"), ("authorization", "Bearer alice-token")] {
        let (status, challenge, _) = mcp(&app, "tools/list", json!({}), &[wrong]).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{wrong:?}");
        assert_eq!(challenge, format!("Bearer realm=\"studio\", error=\"invalid_token\", resource_metadata=\"{url}\""));
    }
    // Only the MCP endpoint is the protected resource the metadata describes.
    let response = app.client().get(format!("{}/ai/tools", app.base)).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(response.headers()[WWW_AUTHENTICATE], "Bearer realm=\"studio\"");

    // The client follows the challenge's URL, with no credential.
    let (status, metadata) = get(&app, &url, &[]).await;
    assert_eq!(status, StatusCode::OK, "{metadata}");
    assert_eq!(metadata["resource"], format!("{}/ai/tools/mcp", app.base));
    assert_eq!(metadata["bearer_methods_supported"], json!(["header"]));
    assert!(metadata.get("authorization_servers").is_none(), "none registered: {metadata}");
    assert!(metadata["resource_name"].as_str().unwrap().contains("blog"), "{metadata}");
    // Behind a TLS proxy the URLs are https.
    let (_, proxied) = get(&app, &url, &[("x-forwarded-proto", "https")]).await;
    assert_eq!(proxied["resource"], format!("{}/ai/tools/mcp", app.base.replace("http://", "https://")));
    // The Origin check still comes first, and the document is read-only.
    let (status, body) = get(&app, &url, &[("origin", "http://evil.example")]).await;
    assert_eq!((status, &body["code"]), (StatusCode::FORBIDDEN, &json!("origin_not_allowed")));
    let response = app.client().post(&url).header("x-studio-token", TOKEN).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(response.json::<Value>().await.unwrap()["code"], "method_not_allowed");

    // With the token the same request is answered.
    let (status, _, body) = mcp(&app, "initialize", initialize(), &[("x-studio-token", TOKEN)]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["capabilities"]["resources"], json!({}), "{body}");
}

async fn registered_servers_and_public_url_are_announced(app: TestApp) {
    let (status, challenge, _) = mcp(&app, "tools/list", json!({}), &[]).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let url = format!("https://studio.example.com{METADATA}");
    assert_eq!(challenge, format!("Bearer realm=\"studio\", resource_metadata=\"{url}\""));
    let (status, metadata) = get(&app, &format!("{}{METADATA}", app.base), &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(metadata["resource"], "https://studio.example.com/ai/tools/mcp");
    assert_eq!(metadata["authorization_servers"], json!(SERVERS));
    assert_eq!(metadata["bearer_methods_supported"], json!(["header"]));
}

async fn without_studio_auth_nothing_is_protected(app: TestApp) {
    let (status, challenge, body) = mcp(&app, "initialize", initialize(), &[]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(challenge.is_empty());
    let (status, body) = get(&app, &format!("{}{METADATA}", app.base), &[]).await;
    assert_eq!((status, &body["code"]), (StatusCode::NOT_FOUND, &json!("not_protected")), "{body}");
    assert!(body["detail"].as_str().unwrap().contains("SERVICE_STUDIO_REQUIRE_AUTH"), "{body}");
}

#[tokio::test]
async fn unusable_urls_are_start_up_errors() {
    let (_database, db) = TestDb::migrated_blog(Backend::Sqlite).await;
    let mount = |studio: Studio| studio.mount(blog::app(db.clone()), db.clone()).unwrap_err().to_string();
    let error = mount(Studio::new(with_auth()).authorization_servers(["auth.example.com"]));
    assert!(error.contains("Studio::authorization_servers") && error.contains("auth.example.com"), "{error}");
    let error = mount(Studio::new(with_auth()).public_url("https://studio.example.com/app"));
    assert!(error.contains("Studio::public_url") && error.contains("without a path"), "{error}");
}

/// `resources/read` of `uri` with the Studio token: the JSON-RPC body.
async fn read(app: &TestApp, uri: &str) -> Value {
    let params = json!({"uri": uri});
    let (status, _, body) = mcp(app, "resources/read", params, &[("x-studio-token", TOKEN)]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

fn text(body: &Value) -> Value {
    let contents = &body["result"]["contents"][0];
    assert_eq!(contents["mimeType"], "application/json", "{body}");
    serde_json::from_str(contents["text"].as_str().expect("text contents")).expect("JSON text")
}

async fn resources_follow_the_tools_policy(app: TestApp) {
    let (status, _, listed) = mcp(&app, "resources/list", json!({}), &[("x-studio-token", TOKEN)]).await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    let resources = listed["result"]["resources"].as_array().unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r["uri"].as_str().unwrap()).collect();
    let viewsets =
        ["viewset://viewsets/PostViewSet", "viewset://viewsets/AuthorViewSet", "viewset://viewsets/TagViewSet"];
    assert_eq!(uris, [&["viewset://openapi.json"][..], &viewsets].concat());
    assert!(resources.iter().all(|r| r["mimeType"] == "application/json" && r["size"].as_u64() > Some(0)));

    let document = text(&read(&app, "viewset://openapi.json").await);
    assert_eq!(document["openapi"], "3.1.0");
    let paths: Vec<&String> = document["paths"].as_object().unwrap().keys().collect();
    for path in ["/api/posts/", "/api/posts/{pk}", "/api/posts/{pk}/publish", "/authors/{pk}"] {
        assert!(paths.iter().any(|p| *p == path), "{path} in {paths:?}");
    }
    assert!(paths.iter().all(|p| !p.starts_with("/hidden")), "no operation of a ViewSet kept from AI: {paths:?}");
    assert!(!paths.iter().any(|p| p.ends_with("/stream")), "the stream is not a tool: {paths:?}");
    // Every reference still resolves in the document.
    let text = document.to_string();
    for reference in text.split("\"#/components/").skip(1) {
        let (section, rest) = reference.split_once('/').unwrap();
        let name = &rest[..rest.find('"').unwrap()];
        assert!(document["components"][section][name].is_object(), "{section}/{name} is kept");
    }

    let posts = text_of(&app, "viewset://viewsets/PostViewSet").await;
    assert_eq!((&posts["viewset"], &posts["table"]), (&json!("PostViewSet"), &json!("posts")));
    assert!(posts["model"]["fields"].as_array().unwrap().iter().any(|f| f["name"] == "title"), "{posts}");
    assert!(posts["schemas"]["create"]["properties"]["title"].is_object(), "{posts}");
    assert!(posts["schemas"]["update"]["properties"]["title"].is_object(), "{posts}");
    assert!(posts["schemas"]["read"]["properties"]["id"].is_object(), "{posts}");
    assert!(!posts.to_string().contains("\"$ref\""), "self-contained");
    assert_eq!(posts["configuration"]["prefix"], "/api/posts");
    let tools: Vec<&str> = posts["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(tools.contains(&"posts_publish") && !tools.contains(&"authors_list"), "{tools:?}");

    // A ViewSet kept from AI has no resource; an unknown URI is MCP's "resource not found".
    for uri in ["viewset://viewsets/HiddenPosts", "viewset://nothing"] {
        let body = read(&app, uri).await;
        assert_eq!(body["error"]["code"], -32002, "{uri}: {body}");
    }
    // The same gate as the tools.
    let (status, _, body) = mcp(&app, "resources/read", json!({"uri": "viewset://openapi.json"}), &[]).await;
    assert_eq!((status, &body["code"]), (StatusCode::UNAUTHORIZED, &json!("not_authenticated")));
    let (status, catalog) = ai_request(&app, Method::GET, "/ai/tools", true, None, None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(catalog["tools"].as_array().unwrap().iter().all(|t| t["_meta"]["viewset"] != "HiddenPosts"));
}

async fn text_of(app: &TestApp, uri: &str) -> Value {
    text(&read(app, uri).await)
}
