//! 401 or 403, as clients expect (issue #68, goal 6): behind a bearer authenticator an anonymous caller refused for
//! lack of an identity gets 401 `not_authenticated` with `WWW-Authenticate: Bearer` (the authenticator can
//! challenge, as in Django REST framework), so a client library refreshes its token; a signed-in caller refused
//! keeps 403; without a bearer authenticator (a cookie layer, or none) the anonymous refusal stays the spec's 403.

use reqwest::{Method, StatusCode};
use viewset_core::Principal;
use viewset_core::ServiceState;
use viewset_core::auth::Authenticate;
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::identities::blog::{BOB, FORGED};
use viewset_tests::on_every_database;

on_every_database!(TestApp::blog => anonymous_behind_a_bearer_layer_is_challenged);
on_every_database!(blog_without_authenticator => anonymous_without_a_bearer_layer_keeps_403);
on_every_database!(blog_behind_cookies => anonymous_behind_a_cookie_layer_keeps_403);

async fn blog_without_authenticator(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    TestApp::serve(blog::routes_from(blog::api(), ServiceState::new(db.clone())), db, database).await
}

async fn blog_behind_cookies(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let auth = Authenticate::cookie("session", |s: String| async move { (s == "bob").then(|| Principal::user("bob")) });
    TestApp::serve(blog::app_with_auth(blog::api(), ServiceState::new(db.clone()), auth), db, database).await
}

/// The raw response of `method path` with an optional bearer token and JSON body.
async fn raw(app: &TestApp, method: Method, path: &str, token: Option<&str>, body: Option<&str>) -> reqwest::Response {
    let mut request = app.client().request(method, format!("{}{path}", app.base));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(body) = body {
        request = request.header("content-type", "application/json").body(body.to_string());
    }
    request.send().await.expect("request")
}

const CREATE: &str = r#"{"title": "t", "body": "b", "author_id": 1}"#;

async fn anonymous_behind_a_bearer_layer_is_challenged(app: TestApp) {
    // A write (IsAuthenticatedOrReadOnly), an action (IsAuthenticated) and a list of authors (IsAuthenticated).
    for (method, path, body) in [
        (Method::POST, "/api/posts/", Some(CREATE)),
        (Method::POST, "/api/posts/1/publish", None),
        (Method::GET, "/authors/", None),
        (Method::GET, "/authors/1", None),
    ] {
        let response = raw(&app, method.clone(), path, None, body).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{method} {path}");
        assert_eq!(response.headers()["www-authenticate"], "Bearer", "{method} {path}");
        let body: serde_json::Value = response.json().await.expect("JSON");
        assert_eq!(body["code"], "not_authenticated", "{method} {path}: {body}");
    }
    // A token the demo layer does not know is anonymous (`refused_as_anonymous`): challenged the same way.
    let response = raw(&app, Method::POST, "/api/posts/", FORGED, Some(CREATE)).await;
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    // Reads open to anonymous callers stay open; a signed-in caller is not challenged.
    assert_eq!(app.get("/api/posts/").await.0, StatusCode::OK);
    let (status, _) = app.send(Method::POST, "/api/posts/", BOB, Some(CREATE)).await;
    assert_eq!(status, StatusCode::CREATED);
}

async fn anonymous_without_a_bearer_layer_keeps_403(app: TestApp) {
    let response = raw(&app, Method::POST, "/api/posts/", None, Some(CREATE)).await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert!(response.headers().get("www-authenticate").is_none());
    assert_eq!(app.get("/authors/").await.0, StatusCode::FORBIDDEN);
}

async fn anonymous_behind_a_cookie_layer_keeps_403(app: TestApp) {
    let response = raw(&app, Method::POST, "/api/posts/", None, Some(CREATE)).await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    let signed_in = app
        .client()
        .post(format!("{}/api/posts/", app.base))
        .header("cookie", "session=bob")
        .header("content-type", "application/json")
        .body(CREATE)
        .send()
        .await
        .expect("create");
    assert_eq!(signed_in.status(), StatusCode::CREATED);
}
