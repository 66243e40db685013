//! `viewset_core::auth::Authenticate` mounted on the blog's ViewSets (bearer and cookie, refused credentials as 401
//! or anonymous), and the JSON 404 that names the path differing only by the trailing slash, through
//! `into_router` and `into_router_with_docs`, on SQLite and PostgreSQL.

use reqwest::header::{AUTHORIZATION, COOKIE, WWW_AUTHENTICATE};
use reqwest::{Method, StatusCode};
use serde_json::Value;
use viewset_core::Principal;
use viewset_core::auth::Authenticate;
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::on_every_database;

const NEW_POST: &str = r#"{"title": "t", "body": "b", "author_id": 1}"#;

fn verify(token: String) -> std::future::Ready<Option<Principal>> {
    std::future::ready((token == "good").then(|| Principal::user("bob")))
}

/// The blog's ViewSets behind `auth`, with or without the documentation routes.
async fn serve(backend: Backend, auth: Authenticate, docs: bool) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let api = blog::api();
    let router = if docs { api.into_router_with_docs("t", "1") } else { api.into_router() };
    let router = router.with_state(viewset_core::ServiceState::new(db.clone())).layer(auth);
    TestApp::serve(router, db, database).await
}

async fn bearer_app(backend: Backend) -> TestApp {
    serve(backend, Authenticate::bearer(verify), false).await
}

async fn anonymous_app(backend: Backend) -> TestApp {
    serve(backend, Authenticate::bearer(verify).refused_as_anonymous(), true).await
}

async fn cookie_app(backend: Backend) -> TestApp {
    serve(backend, Authenticate::cookie("session", verify), true).await
}

/// Status, `WWW-Authenticate` and JSON body of a POST with `header` set to `value`.
async fn post_with(app: &TestApp, header: Option<(reqwest::header::HeaderName, &str)>) -> (StatusCode, String, Value) {
    let mut request = app.client().post(format!("{}/api/posts/", app.base)).header("content-type", "application/json");
    if let Some((name, value)) = header {
        request = request.header(name, value);
    }
    let response = request.body(NEW_POST).send().await.unwrap();
    let status = response.status();
    let challenge = response.headers().get(WWW_AUTHENTICATE).map_or("", |v| v.to_str().unwrap()).to_string();
    (status, challenge, response.json().await.unwrap())
}

on_every_database!(bearer_app =>
    bearer_verified_refused_and_absent,
    slash_twins_are_named,
);
on_every_database!(anonymous_app => refused_as_anonymous, slash_twins_with_docs);
on_every_database!(cookie_app => session_cookie);

async fn bearer_verified_refused_and_absent(app: TestApp) {
    // No credential behind a bearer layer: challenged (401 with `WWW-Authenticate: Bearer`), not refused.
    let (status, challenge, body) = post_with(&app, None).await;
    assert_eq!(
        (status, body["code"].as_str(), challenge.as_str()),
        (StatusCode::UNAUTHORIZED, Some("not_authenticated"), "Bearer")
    );
    for good in ["Bearer good", "bearer good", "BEARER   good  "] {
        let (status, _, body) = post_with(&app, Some((AUTHORIZATION, good))).await;
        assert_eq!(status, StatusCode::CREATED, "{good}: {body}");
    }
    for refused in ["Bearer bad", "Bearer", "Bearer  "] {
        let (status, challenge, body) = post_with(&app, Some((AUTHORIZATION, refused))).await;
        assert_eq!((status, body["code"].as_str()), (StatusCode::UNAUTHORIZED, Some("invalid_token")), "{refused}");
        assert_eq!(
            challenge,
            r#"Bearer error="invalid_token", error_description="The credential is invalid or expired.""#
        );
    }
    // A refused token is refused on reads too: a stale token is not silently anonymous.
    let (status, _) = app.send(Method::GET, "/api/posts/", Some("bad"), None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // Another scheme is not a bearer credential: anonymous.
    let (status, _, body) = post_with(&app, Some((AUTHORIZATION, "Basic Ym9iOmdvb2Q="))).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::UNAUTHORIZED, Some("not_authenticated")));
}

async fn refused_as_anonymous(app: TestApp) {
    let (status, challenge, body) = post_with(&app, Some((AUTHORIZATION, "Bearer bad"))).await;
    assert_eq!(
        (status, body["code"].as_str(), challenge.as_str()),
        (StatusCode::UNAUTHORIZED, Some("not_authenticated"), "Bearer")
    );
    let (status, _, _) = post_with(&app, Some((AUTHORIZATION, "Bearer good"))).await;
    assert_eq!(status, StatusCode::CREATED);
}

async fn session_cookie(app: TestApp) {
    let (status, _, body) = post_with(&app, Some((COOKIE, "theme=dark; session=good"))).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, _, body) = post_with(&app, Some((COOKIE, "session=bad"))).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::UNAUTHORIZED, Some("invalid_token")));
    // The bearer header means nothing to a cookie layer.
    let (status, _, _) = post_with(&app, Some((AUTHORIZATION, "Bearer good"))).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

/// Through `into_router_with_docs`.
async fn slash_twins_with_docs(app: TestApp) {
    slash_twins_are_named(app).await;
}

/// Through `into_router` (and, by [`slash_twins_with_docs`], `into_router_with_docs`).
async fn slash_twins_are_named(app: TestApp) {
    for (method, path, canonical) in [
        (Method::GET, "/api/posts", Some("/api/posts/")),
        (Method::POST, "/api/posts", Some("/api/posts/")),
        (Method::GET, "/api/posts/1/", Some("/api/posts/1")),
        (Method::DELETE, "/api/posts/1/", Some("/api/posts/1")),
        (Method::GET, "/authors", Some("/authors/")),
        (Method::GET, "/api/authors", None),
        (Method::GET, "/api/nothing", None),
        (Method::GET, "/api/posts//", Some("/api/posts/")),
        (Method::GET, "/", None),
    ] {
        let (status, body) = app.send(method.clone(), path, None, None).await;
        assert_eq!((status, body["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "{method} {path}");
        assert_eq!(body["canonical_path"].as_str(), canonical, "{method} {path}: {body}");
        let detail = body["detail"].as_str().unwrap();
        assert!(detail.contains("Collection paths end with a slash"), "{detail}");
        if let Some(canonical) = canonical {
            assert!(detail.contains(&format!("did you mean `{canonical}`")), "{detail}");
        }
    }
}
