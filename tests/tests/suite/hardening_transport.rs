//! Transport limits and outages (issue 14, item 3 and "Limits"): an unreachable database answers a JSON 503
//! `database_unavailable` with `Retry-After` within the acquire timeout; bodies, URIs and headers over the limits and
//! requests over the timeout answer JSON errors naming the limit. On SQLite and PostgreSQL.

use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::routing::get;
use reqwest::{Method, StatusCode};
use sea_orm::{ConnectionTrait, DatabaseConnection, TransactionTrait};
use sea_orm_migration::MigratorTrait;
use serde_json::{Value, json};
use viewset_core::limits::Limits;
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::identities::blog::ALICE;
use viewset_tests::on_every_database;

/// Sends a request with extra headers and an optional body; returns status, headers and the JSON body (asserting
/// that it is JSON).
async fn raw(
    app: &TestApp,
    method: Method,
    path: &str,
    headers: &[(&str, String)],
    body: Option<Vec<u8>>,
) -> (StatusCode, reqwest::header::HeaderMap, Value) {
    let mut request = app.client().request(method, format!("{}{path}", app.base));
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    if let Some(body) = body {
        request = request.body(body);
    }
    let response = request.send().await.expect("request");
    let (status, headers) = (response.status(), response.headers().clone());
    let text = response.text().await.expect("body");
    let json = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{status} to {path} is not JSON: {text:?}"));
    (status, headers, json)
}

/// A PostgreSQL URL nothing answers: a loopback port just closed.
async fn unreachable_url() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    format!("postgres://postgres@127.0.0.1:{port}/blog")
}

/// The blog over a pool that cannot hand out a connection: on PostgreSQL a lazily connected pool to a closed port;
/// on SQLite (a file is always reachable) a one-connection pool whose connection is held by an open transaction.
/// The returned guard keeps the held connection and the test database.
async fn blog_without_database(backend: Backend) -> (String, tokio::task::JoinHandle<()>, Box<dyn std::any::Any>) {
    if backend == Backend::Postgres {
        let mut options = viewset_core::store::options(&unreachable_url().await);
        options.connect_lazy(true);
        let db = viewset_core::store::connect_with(options).await.expect("a lazy pool connects later");
        let (base, server) = serve(blog::app(db)).await;
        return (base, server, Box::new(()));
    }
    let database = TestDb::create(backend).await;
    let mut options = viewset_core::store::options(&database.url);
    options.max_connections(1).min_connections(1);
    let db = viewset_core::store::connect_with(options).await.expect("connect");
    blog::migrations::Migrator::up(&db, None).await.expect("migrate");
    let held = db.begin().await.expect("hold the only connection");
    let (base, server) = serve(blog::app(db)).await;
    (base, server, Box::new((held, database)))
}

async fn serve(router: Router) -> (String, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    (base, tokio::spawn(async move { axum::serve(listener, router).await.expect("serve") }))
}

async fn outage_fails_fast_with_json_503(backend: Backend) {
    let (base, server, _guard) = blog_without_database(backend).await;
    let client = reqwest::Client::new();
    for (method, path, body) in [
        (Method::GET, "/api/posts/", None),
        (Method::GET, "/api/posts/1", None),
        (Method::POST, "/api/posts/", Some(r#"{"title": "t", "body": "b", "author_id": 1}"#)),
    ] {
        let started = Instant::now();
        let mut request = client.request(method.clone(), format!("{base}{path}")).bearer_auth("alice-token");
        if let Some(body) = body {
            request = request.header("content-type", "application/json").body(body);
        }
        let response = request.send().await.expect("request");
        let elapsed = started.elapsed();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE, "{method} {path}");
        assert_eq!(response.headers()["retry-after"], "5", "{method} {path}");
        let id = response.headers()["x-request-id"].to_str().expect("a request id").to_string();
        let body: Value = response.json().await.expect("JSON body");
        assert_eq!(body["code"], "database_unavailable", "{method} {path}: {body}");
        // A 5xx carries the request id it was logged with (issue 15), the one echoed in `x-request-id`.
        assert_eq!((body["request_id"].as_str(), id.len()), (Some(id.as_str()), 36), "{body}");
        assert!(elapsed < Duration::from_secs(5), "{method} {path} took {elapsed:?}: the acquire timeout is 2 s");
    }
    // A client's own request id is kept and echoed.
    let response = client.get(format!("{base}/api/posts/")).header("x-request-id", "trace-42").send().await;
    let response = response.expect("request");
    assert_eq!(response.headers()["x-request-id"], "trace-42");
    assert_eq!(response.json::<Value>().await.expect("JSON body")["request_id"], "trace-42");
    server.abort();
}

/// Connecting at start-up to a PostgreSQL server that is down fails within the acquire timeout too, not after
/// sea-orm's 30 s (a SQLite file needs no server: it opens or fails at once).
#[tokio::test]
async fn connect_to_a_down_server_fails_fast() {
    if viewset_tests::every_database::require_postgres().is_none() {
        return;
    }
    let started = Instant::now();
    let result = viewset_core::connect(&unreachable_url().await).await;
    assert!(result.is_err());
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
}

/// `run_on` passes the backend itself to the outage scenario.
async fn backend(backend: Backend) -> Backend {
    backend
}

on_every_database!(backend => outage_fails_fast_with_json_503);

async fn body_over_the_limit_is_json_413(app: TestApp) {
    let big = json!({"title": "x".repeat(1024 * 1024 + 1), "body": "b", "author_id": 1}).to_string().into_bytes();
    let content_type =
        [("content-type", "application/json".to_string()), ("authorization", "Bearer alice-token".into())];
    let (status, _, body) = raw(&app, Method::POST, "/api/posts/", &content_type, Some(big)).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!((body["code"].as_str(), body["limit"].as_str()), (Some("payload_too_large"), Some("max_body_bytes")));
    let (_, count) = app.get("/api/posts/").await;
    assert_eq!(count["count"], 3, "nothing was created");
    // Just under the limit, the body is read and validated (a 422 for the over-long title, not a 413).
    let near = json!({"title": "x".repeat(1000 * 1000), "body": "b", "author_id": 1}).to_string().into_bytes();
    let (status, _, _) = raw(&app, Method::POST, "/api/posts/", &content_type, Some(near)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}

async fn long_uri_is_json_414_and_large_headers_json_431(app: TestApp) {
    let path = format!("/api/posts/?title={}", "x".repeat(9 * 1024));
    let (status, _, body) = raw(&app, Method::GET, &path, &[], None).await;
    assert_eq!(status, StatusCode::URI_TOO_LONG);
    assert_eq!((body["code"].as_str(), body["limit"].as_str()), (Some("uri_too_long"), Some("max_uri_bytes")));
    let headers = [("x-padding", "y".repeat(17 * 1024))];
    let (status, _, body) = raw(&app, Method::GET, "/api/posts/", &headers, None).await;
    assert_eq!(status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    assert_eq!(body["limit"], "max_header_bytes");
    // Under the limits nothing changes.
    let (status, _, _) = raw(&app, Method::GET, &format!("/api/posts/?title={}", "x".repeat(7000)), &[], None).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = app.send(Method::GET, "/authors/", ALICE, None).await;
    assert_eq!(status, StatusCode::OK);
}

/// A request slower than `request_timeout` (a handler that queries, then waits) is a JSON 503.
async fn slow_request_is_json_503(app: TestApp) {
    async fn slow(State(db): State<DatabaseConnection>) -> &'static str {
        db.execute_unprepared("SELECT 1").await.expect("query");
        tokio::time::sleep(Duration::from_secs(3)).await;
        "done"
    }
    let limits = Limits::default().with_request_timeout(Duration::from_millis(300));
    let router = limits.apply(Router::new().route("/slow", get(slow)).with_state(app.db.clone()));
    let (base, server) = serve(router).await;
    let started = Instant::now();
    let response = reqwest::get(format!("{base}/slow")).await.expect("request");
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!((body["code"].as_str(), body["limit"].as_str()), (Some("request_timeout"), Some("request_timeout")));
    assert!(started.elapsed() < Duration::from_secs(2), "took {:?}", started.elapsed());
    server.abort();
}

on_every_database!(TestApp::blog =>
    body_over_the_limit_is_json_413,
    long_uri_is_json_414_and_large_headers_json_431,
    slow_request_is_json_503,
);
