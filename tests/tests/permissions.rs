//! Built-in permissions not covered by the blog's own ViewSets, over HTTP with missing, invalid and valid
//! identities: `OperationPermission(read)` (writes denied, routes still registered), `IsAdminUser`, and a
//! composition `IsAdminUser.or(OperationPermission(read))`. On SQLite and PostgreSQL.

use reqwest::{Method, StatusCode};
use viewset_tests::fixtures::paged::{AdminPosts, ComposedPosts, ReadOnlyPosts};
use viewset_tests::harness::{Backend, TestApp};

const ALICE: Option<&str> = Some("alice-token"); // staff
const BOB: Option<&str> = Some("bob-token");
const FORGED: Option<&str> = Some("forged");
const NEW: &str = r#"{"title": "t", "body": "b", "author_id": 1}"#;

async fn app(backend: Backend) -> Option<TestApp> {
    let app = TestApp::query_app(backend).await?;
    blog::seed::seed_if_empty(&app.db).await.expect("seed");
    Some(app)
}

async fn status(app: &TestApp, method: Method, path: &str, token: Option<&str>, body: Option<&str>) -> StatusCode {
    app.send(method, path, token, body).await.0
}

async fn scenario(backend: Backend) {
    let Some(app) = app(backend).await else { return };

    // OperationPermission(read): every identity reads, nobody writes — staff included; the routes exist (403, not 405).
    for token in [None, FORGED, BOB, ALICE] {
        assert_eq!(status(&app, Method::GET, "/readonly/posts/", token, None).await, StatusCode::OK);
        assert_eq!(status(&app, Method::GET, "/readonly/posts/1", token, None).await, StatusCode::OK);
        assert_eq!(status(&app, Method::POST, "/readonly/posts/", token, Some(NEW)).await, StatusCode::FORBIDDEN);
        assert_eq!(status(&app, Method::PATCH, "/readonly/posts/1", token, Some("{}")).await, StatusCode::FORBIDDEN);
        assert_eq!(status(&app, Method::DELETE, "/readonly/posts/1", token, None).await, StatusCode::FORBIDDEN);
    }
    let routes = viewset_core::routes_of::<ReadOnlyPosts>();
    assert!(routes.iter().any(|r| r.method == "POST" && r.path == "/readonly/posts/"), "routes stay registered");

    // IsAdminUser: staff only, on every route.
    for token in [None, FORGED, BOB] {
        assert_eq!(status(&app, Method::GET, "/admin/posts/", token, None).await, StatusCode::FORBIDDEN, "{token:?}");
        assert_eq!(status(&app, Method::GET, "/admin/posts/1", token, None).await, StatusCode::FORBIDDEN);
    }
    assert_eq!(status(&app, Method::GET, "/admin/posts/", ALICE, None).await, StatusCode::OK);
    assert_eq!(status(&app, Method::POST, "/admin/posts/", ALICE, Some(NEW)).await, StatusCode::CREATED);

    // IsAdminUser.or(read): everyone reads, only staff writes.
    assert_eq!(status(&app, Method::GET, "/composed/posts/", None, None).await, StatusCode::OK);
    assert_eq!(status(&app, Method::POST, "/composed/posts/", BOB, Some(NEW)).await, StatusCode::FORBIDDEN);
    assert_eq!(status(&app, Method::DELETE, "/composed/posts/1", FORGED, None).await, StatusCode::FORBIDDEN);
    assert_eq!(status(&app, Method::POST, "/composed/posts/", ALICE, Some(NEW)).await, StatusCode::CREATED);
    let _ = (AdminPosts, ComposedPosts);
}

#[tokio::test]
async fn builtin_permissions_sqlite() {
    scenario(Backend::Sqlite).await;
}

#[tokio::test]
async fn builtin_permissions_postgres() {
    scenario(Backend::Postgres).await;
}
