//! CSV cells that a spreadsheet would run as formulas, over HTTP on SQLite and PostgreSQL: a text value starting
//! with `=`, `+`, `-`, `@`, tab or carriage return gets a `'` in front in the streamed list and in the converted page
//! (`custom_hooks`); `#[viewset(csv_keep_formulas)]` writes them as they are; JSON is never changed.

use reqwest::{Method, StatusCode};
use viewset_core::prelude::*;
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::identities::blog::BOB;
use viewset_tests::on_every_database;

use blog::entities::post;

#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/safe/posts", basename = "safe_posts")]
struct SafePosts;

#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/hooked/posts", basename = "hooked_posts", custom_hooks)]
struct HookedPosts;

impl Hooks for HookedPosts {}

#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/raw/posts", basename = "raw_posts", csv_keep_formulas)]
struct RawPosts;

async fn app(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let router = include_viewset::<SafePosts, _>(axum::Router::new());
    let router = include_viewset::<HookedPosts, _>(router);
    let router = include_viewset::<RawPosts, _>(router);
    let app = router.with_state(ServiceState::new(db.clone())).layer(blog::auth::layer());
    TestApp::serve(app, db, database).await
}

on_every_database!(app => formula_cells_are_neutralised_unless_kept);

async fn csv(app: &TestApp, path: &str) -> String {
    let response = app.client().get(format!("{}{path}", app.base)).send().await.expect("request");
    assert_eq!(response.status(), StatusCode::OK);
    response.text().await.expect("body")
}

async fn formula_cells_are_neutralised_unless_kept(app: TestApp) {
    let body = serde_json::json!({"title": "=HYPERLINK(\"http://x\")", "body": "@SUM(A1)\tthen", "author_id": 1});
    let (status, created) = app.send(Method::POST, "/safe/posts/", BOB, Some(&body.to_string())).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_i64().expect("id");
    let query = format!("?id={id}&fields=id,title,body,views&format=csv");
    let safe = format!("id,title,body,views\r\n{id},\"'=HYPERLINK(\"\"http://x\"\")\",'@SUM(A1)\tthen,0\r\n");
    assert_eq!(csv(&app, &format!("/safe/posts/{query}")).await, safe, "the streamed list");
    assert_eq!(csv(&app, &format!("/hooked/posts/{query}")).await, safe, "the converted page (custom_hooks)");
    let raw = format!("id,title,body,views\r\n{id},\"=HYPERLINK(\"\"http://x\"\")\",@SUM(A1)\tthen,0\r\n");
    assert_eq!(csv(&app, &format!("/raw/posts/{query}")).await, raw, "csv_keep_formulas");
    let (_, json) = app.send(Method::GET, &format!("/safe/posts/{id}"), None, None).await;
    assert_eq!(json["title"], "=HYPERLINK(\"http://x\")", "JSON is the stored value");
}
