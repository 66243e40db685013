//! Built-in permissions not covered by the blog's own ViewSets, over HTTP with missing, invalid and valid
//! identities: `OperationPermission(read)` (writes denied, routes still registered), `IsAdminUser`, and a
//! composition `IsAdminUser.or(OperationPermission(read))`. On SQLite and PostgreSQL.

use reqwest::{Method, StatusCode};
use viewset_tests::fixtures::paged::{AdminPosts, ComposedPosts, ReadOnlyPosts};
use viewset_tests::harness::TestApp;
use viewset_tests::identities::blog::{ALICE, BOB, FORGED};
use viewset_tests::on_every_database;

const NEW: &str = r#"{"title": "t", "body": "b", "author_id": 1}"#;

on_every_database!(TestApp::seeded_query_app => builtin_permissions);

async fn status(app: &TestApp, method: Method, path: &str, token: Option<&str>, body: Option<&str>) -> StatusCode {
    app.send(method, path, token, body).await.0
}

async fn builtin_permissions(app: TestApp) {
    // OperationPermission(read): every identity reads, nobody writes — staff included; the routes exist (403, not 405).
    // Behind the bearer layer an anonymous caller is challenged (401), as Django REST framework does, whatever the
    // permission: a signed-in caller refused gets 403.
    for token in [None, FORGED, BOB, ALICE] {
        let refused = if token == BOB || token == ALICE { StatusCode::FORBIDDEN } else { StatusCode::UNAUTHORIZED };
        assert_eq!(status(&app, Method::GET, "/readonly/posts/", token, None).await, StatusCode::OK);
        assert_eq!(status(&app, Method::GET, "/readonly/posts/1", token, None).await, StatusCode::OK);
        assert_eq!(status(&app, Method::POST, "/readonly/posts/", token, Some(NEW)).await, refused);
        assert_eq!(status(&app, Method::PATCH, "/readonly/posts/1", token, Some("{}")).await, refused);
        assert_eq!(status(&app, Method::DELETE, "/readonly/posts/1", token, None).await, refused);
    }
    let routes = viewset_core::registration::routes_of::<ReadOnlyPosts>();
    assert!(routes.iter().any(|r| r.method == "POST" && r.path == "/readonly/posts/"), "routes stay registered");

    // IsAdminUser: staff only, on every route.
    for token in [None, FORGED, BOB] {
        let refused = if token == BOB { StatusCode::FORBIDDEN } else { StatusCode::UNAUTHORIZED };
        assert_eq!(status(&app, Method::GET, "/admin/posts/", token, None).await, refused, "{token:?}");
        assert_eq!(status(&app, Method::GET, "/admin/posts/1", token, None).await, refused);
    }
    assert_eq!(status(&app, Method::GET, "/admin/posts/", ALICE, None).await, StatusCode::OK);
    assert_eq!(status(&app, Method::POST, "/admin/posts/", ALICE, Some(NEW)).await, StatusCode::CREATED);

    // IsAdminUser.or(read): everyone reads, only staff writes.
    assert_eq!(status(&app, Method::GET, "/composed/posts/", None, None).await, StatusCode::OK);
    assert_eq!(status(&app, Method::POST, "/composed/posts/", BOB, Some(NEW)).await, StatusCode::FORBIDDEN);
    assert_eq!(status(&app, Method::DELETE, "/composed/posts/1", FORGED, None).await, StatusCode::UNAUTHORIZED);
    assert_eq!(status(&app, Method::POST, "/composed/posts/", ALICE, Some(NEW)).await, StatusCode::CREATED);
    let _ = (AdminPosts, ComposedPosts);
}
