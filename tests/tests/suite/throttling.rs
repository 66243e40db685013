//! Rate limits (`viewset_core::throttle`) over HTTP: the application's defaults per scope, a ViewSet's and an
//! action's own rates, the 429 answer and its headers, windows that end, client addresses behind trusted proxies,
//! and Redis shared by two instances (also stopped and started again: fail open, fail closed). SQLite and
//! PostgreSQL for the routes; Redis at 127.0.0.1:6379 (`VIEWSET_REQUIRE_REDIS=1` makes its absence a failure).

use std::time::Duration;

use axum::Json;
use reqwest::StatusCode;
use serde_json::Value;
use viewset_core::prelude::*;
use viewset_core::throttle::Throttle;
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::on_every_database;

/// Posts of the blog with rates of their own: signed-in callers 4 a minute, creates 1 a minute, and an action
/// with 1 a minute.
#[derive(ModelViewSet)]
#[viewset(
    model = blog::entities::post::Entity,
    prefix = "/api/limited",
    basename = "limited",
    permission_classes = [IsAuthenticatedOrReadOnly],
    throttle(user = "4/minute", create = "1/minute")
)]
pub struct LimitedPosts;

#[viewset_core::actions]
impl LimitedPosts {
    /// A collection action with its own rate.
    #[action(path = "ping", throttle = "1/minute")]
    async fn ping(request: RequestContext) -> Json<&'static str> {
        let _ = request;
        Json("pong")
    }
}

async fn app_with(backend: Backend, throttle: Throttle) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let mut api = blog::api();
    api.include::<LimitedPosts>().expect("LimitedPosts registers");
    let router = blog::app_from(api, ServiceState::new(db.clone()).with_throttle(throttle));
    TestApp::serve(router, db, database).await
}

async fn anon_three_a_minute(backend: Backend) -> TestApp {
    app_with(backend, Throttle::new().anon("3/minute".parse().unwrap())).await
}

async fn get(app: &TestApp, path: &str, token: Option<&str>) -> reqwest::Response {
    let mut request = app.client().get(format!("{}{path}", app.base));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.expect("request")
}

/// Asserts `response` is the 429 of `scope` with its headers and body; returns `retry_after`.
async fn assert_throttled(response: reqwest::Response, scope: &str, quota: &str) -> u64 {
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let header = |name: &str| response.headers().get(name).map(|v| v.to_str().unwrap().to_string());
    let retry_after: u64 = header("retry-after").expect("Retry-After").parse().expect("seconds");
    assert!(header("ratelimit-policy").expect("RateLimit-Policy").contains(&format!("\"{scope}\";{quota}")));
    assert_eq!(header("ratelimit").expect("RateLimit"), format!("\"{scope}\";r=0;t={retry_after}"));
    let body: Value = response.json().await.expect("JSON");
    assert_eq!((body["code"].as_str(), body["scope"].as_str()), (Some("throttled"), Some(scope)), "{body}");
    assert_eq!(body["retry_after"].as_u64(), Some(retry_after));
    assert!(retry_after >= 1);
    retry_after
}

on_every_database!(anon_three_a_minute => anonymous_callers_over_their_rate_get_429_signed_in_callers_do_not);

async fn anonymous_callers_over_their_rate_get_429_signed_in_callers_do_not(app: TestApp) {
    // Permissions come first: a refused request (authors need an identity) is not counted.
    for _ in 0..5 {
        assert_eq!(get(&app, "/authors/", None).await.status(), StatusCode::UNAUTHORIZED);
    }
    for path in ["/api/posts/", "/api/posts/1", "/api/limited/"] {
        assert_eq!(get(&app, path, None).await.status(), StatusCode::OK, "{path}: one budget across the API");
    }
    let retry_after = assert_throttled(get(&app, "/api/posts/", None).await, "anon", "q=3;w=60").await;
    assert!((19..=20).contains(&retry_after), "3 a minute: one back every 20 s, not {retry_after}");
    // A wrong token is anonymous in the blog: the same budget, still refused.
    assert_throttled(get(&app, "/api/posts/1", Some("wrong")).await, "anon", "q=3;w=60").await;
    for _ in 0..10 {
        assert_eq!(get(&app, "/api/posts/", Some("bob-token")).await.status(), StatusCode::OK, "users: no default");
    }
    // The stream is throttled too, before it opens.
    assert_throttled(get(&app, "/api/posts/stream", None).await, "anon", "q=3;w=60").await;
}

async fn limited(backend: Backend) -> TestApp {
    app_with(backend, Throttle::new().headers_on_every_answer()).await
}

on_every_database!(limited => a_viewset_and_an_action_declare_their_own_rates);

async fn a_viewset_and_an_action_declare_their_own_rates(app: TestApp) {
    let create = |title: &str| {
        let body = format!(r#"{{"title":"{title}","body":"b","author_id":1,"published":false}}"#);
        app.client()
            .post(format!("{}/api/limited/", app.base))
            .bearer_auth("bob-token")
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let first = create("one").await.expect("create");
    assert_eq!(first.status(), StatusCode::CREATED);
    assert_eq!(first.headers()["ratelimit-policy"], "\"user\";q=4;w=60, \"create\";q=1;w=60", "on every answer");
    assert_eq!(first.headers()["ratelimit"], "\"create\";r=0;t=60", "the tightest policy");
    assert_throttled(create("two").await.expect("create"), "create", "q=1;w=60").await;
    // Bob's `user` budget of this ViewSet: 2 of 4 spent by the creates; two more reads, then 429.
    for _ in 0..2 {
        assert_eq!(get(&app, "/api/limited/", Some("bob-token")).await.status(), StatusCode::OK);
    }
    assert_throttled(get(&app, "/api/limited/", Some("bob-token")).await, "user", "q=4;w=60").await;
    // Other ViewSets do not share it; anonymous callers have no rate on this ViewSet.
    assert_eq!(get(&app, "/api/posts/", Some("bob-token")).await.status(), StatusCode::OK);
    assert_eq!(get(&app, "/api/limited/", None).await.status(), StatusCode::OK);
    // The action's own rate, for every caller (alice is staff: no scope rate, the action's still holds).
    assert_eq!(get(&app, "/api/limited/ping", Some("alice-token")).await.status(), StatusCode::OK);
    assert_throttled(get(&app, "/api/limited/ping", Some("alice-token")).await, "ping", "q=1;w=60").await;
}

#[tokio::test]
async fn a_window_ends_and_the_budget_is_back() {
    let app = app_with(Backend::Sqlite, Throttle::new().anon("2/second".parse().unwrap())).await;
    for _ in 0..2 {
        assert_eq!(get(&app, "/api/posts/", None).await.status(), StatusCode::OK);
    }
    let retry_after = assert_throttled(get(&app, "/api/posts/", None).await, "anon", "q=2;w=1").await;
    tokio::time::sleep(Duration::from_secs(retry_after)).await;
    assert_eq!(get(&app, "/api/posts/", None).await.status(), StatusCode::OK, "after Retry-After");
}

async fn with_forwarded(app: &TestApp, forwarded_for: &str) -> StatusCode {
    let request = app.client().get(format!("{}/api/posts/", app.base)).header("x-forwarded-for", forwarded_for);
    request.send().await.expect("request").status()
}

#[tokio::test]
async fn forwarded_addresses_count_only_from_trusted_proxies() {
    let one = || Throttle::new().anon("1/minute".parse().unwrap());
    // Nobody trusted: a client that sends a new X-Forwarded-For each time is still one caller (its peer).
    let untrusted = app_with(Backend::Sqlite, one()).await;
    assert_eq!(with_forwarded(&untrusted, "198.51.100.1").await, StatusCode::OK);
    assert_eq!(with_forwarded(&untrusted, "198.51.100.2").await, StatusCode::TOO_MANY_REQUESTS, "spoofed");
    // The test client is the trusted proxy: the address it forwards is the caller.
    let behind_proxy = app_with(Backend::Sqlite, one().trusted_proxies(["127.0.0.1"]).unwrap()).await;
    assert_eq!(with_forwarded(&behind_proxy, "198.51.100.1").await, StatusCode::OK);
    assert_eq!(with_forwarded(&behind_proxy, "198.51.100.2").await, StatusCode::OK, "another client");
    assert_eq!(with_forwarded(&behind_proxy, "::ffff:198.51.100.1").await, StatusCode::TOO_MANY_REQUESTS, "mapped");
    assert_eq!(with_forwarded(&behind_proxy, "6.6.6.6, 198.51.100.2").await, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(with_forwarded(&behind_proxy, "2001:db8::1").await, StatusCode::OK);
    assert_eq!(with_forwarded(&behind_proxy, "2001:db8::2").await, StatusCode::TOO_MANY_REQUESTS, "one /64");
}

async fn blog_with_studio_and_user_rate(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let state = ServiceState::new(db.clone()).with_throttle(Throttle::new().user("2/minute".parse().unwrap()));
    let settings = viewset_tests::studio_fixtures::with_auth();
    let router = blog::mount_studio(blog::app_with_state(state), db.clone(), settings).expect("valid settings");
    TestApp::serve(router, db, database).await
}

on_every_database!(blog_with_studio_and_user_rate => mcp_tool_calls_count_against_the_callers_own_rate);

/// MCP tools go through the routes, so through `access::enter`: a caller's tool calls and REST requests share one
/// budget, and another caller's is its own.
async fn mcp_tool_calls_count_against_the_callers_own_rate(app: TestApp) {
    use viewset_tests::ai_client::mcp_answer;
    let (status, _) = mcp_answer(&app, Some("bob-token"), "posts_list", serde_json::json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(get(&app, "/api/posts/", Some("bob-token")).await.status(), StatusCode::OK, "REST, same budget");
    let (status, body) = mcp_answer(&app, Some("bob-token"), "posts_list", serde_json::json!({})).await;
    assert_eq!(
        (status, body["code"].as_str(), body["scope"].as_str()),
        (429, Some("throttled"), Some("user")),
        "{body}"
    );
    let (status, _) = mcp_answer(&app, Some("alice-token"), "posts_list", serde_json::json!({})).await;
    assert_eq!(status, 200, "alice is staff: no staff rate");
}

/// The blog's authors, writing their nested posts through [`LimitedPosts`] (registered first, so the posts table's
/// writer).
async fn authors_through_limited_posts(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let mut api = Api::new();
    api.include::<LimitedPosts>().expect("LimitedPosts registers");
    api.include::<blog::viewsets::AuthorViewSet>().expect("the authors register");
    // Buckets of its own: `ServiceState::new`'s are the process's, which the other tests spend.
    let router = blog::app_from(api, ServiceState::new(db.clone()).with_throttle(Throttle::new()));
    TestApp::serve(router, db, database).await
}

on_every_database!(authors_through_limited_posts => a_nested_write_counts_once_against_each_viewset_it_creates_through);

async fn a_nested_write_counts_once_against_each_viewset_it_creates_through(app: TestApp) {
    let post = |path: &str, body: serde_json::Value| {
        let request = app.client().post(format!("{}{path}", app.base)).bearer_auth("bob-token");
        request.header("content-type", "application/json").body(body.to_string()).send()
    };
    let author = |name: &str, posts: usize| {
        let posts: Vec<Value> = (0..posts)
            .map(|i| serde_json::json!({"title": format!("{name} {i}"), "body": "b", "published": false}))
            .collect();
        serde_json::json!({"name": name, "posts": posts})
    };
    // Two posts in one request: LimitedPosts counts it once against its `create` rate (1 a minute), as one POST.
    let first = post("/authors/", author("Grace", 2)).await.expect("create");
    assert_eq!(first.status(), StatusCode::CREATED, "{}", first.text().await.unwrap());
    // Its budget is spent: the next nested write is refused whole, and a POST of its own too.
    assert_throttled(post("/authors/", author("Edsger", 1)).await.expect("create"), "create", "q=1;w=60").await;
    let own = serde_json::json!({"title": "own", "body": "b", "author_id": 1, "published": false});
    assert_throttled(post("/api/limited/", own).await.expect("create"), "create", "q=1;w=60").await;
    let (_, authors) = app.send(reqwest::Method::GET, "/authors/?limit=100", Some("bob-token"), None).await;
    let names: Vec<&str> = authors["results"].as_array().unwrap().iter().filter_map(|a| a["name"].as_str()).collect();
    assert!(names.contains(&"Grace") && !names.contains(&"Edsger"), "nothing of the refused write was kept: {names:?}");
    // An author without posts creates nothing through LimitedPosts: not counted there.
    let plain = post("/authors/", serde_json::json!({"name": "Barbara"})).await.expect("create");
    assert_eq!(plain.status(), StatusCode::CREATED);
}
