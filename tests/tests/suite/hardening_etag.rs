//! Conditional requests (issue 14, "Optimistic concurrency"), on SQLite and PostgreSQL: a strong `ETag` per
//! representation on retrieve, create and update; `If-None-Match` → 304; `If-Match` on PATCH and DELETE → 412;
//! `require_if_match` (the `Hooks` method or the `#[viewset(require_if_match)]` attribute) → 428.

use reqwest::header::{ETAG, IF_MATCH, IF_NONE_MATCH};
use reqwest::{Method, StatusCode};
use serde_json::Value;
use viewset_core::viewset::etag::entity_tag;
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::identities::blog::{ALICE, BOB};
use viewset_tests::on_every_database;

on_every_database!(TestApp::blog =>
    retrieve_has_a_strong_etag_and_if_none_match_answers_304,
    write_responses_carry_the_etag_of_their_body,
    if_match_guards_patch_and_delete,
    etags_are_per_representation,
);

on_every_database!(strict_app =>
    require_if_match_answers_428_without_it,
    the_require_if_match_attribute_answers_428_without_it,
    a_require_if_match_override_wins_over_the_attribute,
);

/// One answer: status, `ETag` (if any) and the raw body.
struct Answer {
    status: StatusCode,
    etag: Option<String>,
    body: Vec<u8>,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|_| panic!("not JSON: {:?}", String::from_utf8_lossy(&self.body)))
    }
    fn etag(&self) -> String {
        self.etag.clone().unwrap_or_else(|| panic!("no ETag on a {} answer", self.status))
    }
}

async fn send(
    app: &TestApp,
    method: Method,
    path: &str,
    token: Option<&str>,
    headers: &[(reqwest::header::HeaderName, &str)],
    body: Option<&str>,
) -> Answer {
    let mut request = app.client().request(method, format!("{}{path}", app.base));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    for (name, value) in headers {
        request = request.header(name, *value);
    }
    if let Some(body) = body {
        request = request.header("content-type", "application/json").body(body.to_string());
    }
    let response = request.send().await.expect("request");
    let status = response.status();
    let etag = response.headers().get(ETAG).map(|v| v.to_str().expect("ascii ETag").to_string());
    let body = response.bytes().await.expect("body").to_vec();
    Answer { status, etag, body }
}

async fn retrieve_has_a_strong_etag_and_if_none_match_answers_304(app: TestApp) {
    let first = send(&app, Method::GET, "/api/posts/1", None, &[], None).await;
    assert_eq!(first.status, StatusCode::OK);
    let tag = first.etag();
    assert!(tag.starts_with('"') && !tag.starts_with("W/"), "a strong validator: {tag}");
    assert_eq!(tag, entity_tag(&first.body), "the tag is the hash of the body received");
    let again = send(&app, Method::GET, "/api/posts/1", None, &[], None).await;
    assert_eq!(again.etag(), tag, "stable while the record is unchanged");

    let weak = format!("W/{tag}");
    for condition in [tag.as_str(), weak.as_str(), "*", &format!("\"nope\", {tag}")] {
        let cached = send(&app, Method::GET, "/api/posts/1", None, &[(IF_NONE_MATCH, condition)], None).await;
        assert_eq!(cached.status, StatusCode::NOT_MODIFIED, "If-None-Match: {condition}");
        assert!(cached.body.is_empty(), "a 304 has no body");
        assert_eq!(cached.etag(), tag);
    }
    let other = send(&app, Method::GET, "/api/posts/1", None, &[(IF_NONE_MATCH, "\"nope\"")], None).await;
    assert_eq!((other.status, other.etag()), (StatusCode::OK, tag.clone()));

    let (status, _) = app.send(Method::PATCH, "/api/posts/1", BOB, Some(r#"{"views": 4242}"#)).await;
    assert_eq!(status, StatusCode::OK);
    let changed = send(&app, Method::GET, "/api/posts/1", None, &[(IF_NONE_MATCH, &tag)], None).await;
    assert_eq!(changed.status, StatusCode::OK, "a stale tag gets the new representation");
    assert_ne!(changed.etag(), tag);
    assert_eq!(changed.json()["views"], 4242);

    let missing = send(&app, Method::GET, "/api/posts/999", None, &[(IF_NONE_MATCH, "*")], None).await;
    assert_eq!((missing.status, missing.json()["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")));
}

async fn write_responses_carry_the_etag_of_their_body(app: TestApp) {
    let body = r#"{"title": "Tagged", "body": "b", "author_id": 1}"#;
    let created = send(&app, Method::POST, "/api/posts/", BOB, &[], Some(body)).await;
    assert_eq!(created.status, StatusCode::CREATED);
    assert_eq!(created.etag(), entity_tag(&created.body));
    let id = created.json()["id"].as_i64().expect("id");
    let path = format!("/api/posts/{id}");
    let fetched = send(&app, Method::GET, &path, None, &[], None).await;
    assert_eq!(fetched.etag(), created.etag(), "the 201's tag is the record's");

    let updated = send(&app, Method::PATCH, &path, BOB, &[], Some(r#"{"title": "Retagged"}"#)).await;
    assert_eq!(updated.status, StatusCode::OK);
    assert_eq!(updated.etag(), entity_tag(&updated.body));
    assert_ne!(updated.etag(), created.etag());
    let fetched = send(&app, Method::GET, &path, None, &[], None).await;
    assert_eq!(fetched.etag(), updated.etag(), "the PATCH's tag is the record's");
}

async fn if_match_guards_patch_and_delete(app: TestApp) {
    let tag = send(&app, Method::GET, "/api/posts/2", None, &[], None).await.etag();
    // Someone else writes in between: the tag the client holds is stale.
    let (status, _) = app.send(Method::PATCH, "/api/posts/2", BOB, Some(r#"{"views": 7}"#)).await;
    assert_eq!(status, StatusCode::OK);
    let weak = format!("W/{tag}");
    for stale in [tag.as_str(), "\"nope\"", weak.as_str()] {
        let refused =
            send(&app, Method::PATCH, "/api/posts/2", BOB, &[(IF_MATCH, stale)], Some(r#"{"views": 1}"#)).await;
        assert_eq!(refused.status, StatusCode::PRECONDITION_FAILED, "If-Match: {stale}");
        assert_eq!(refused.json()["code"], "precondition_failed");
        let refused = send(&app, Method::DELETE, "/api/posts/2", BOB, &[(IF_MATCH, stale)], None).await;
        assert_eq!(refused.status, StatusCode::PRECONDITION_FAILED, "DELETE If-Match: {stale}");
        assert_eq!(refused.json()["code"], "precondition_failed");
    }
    let (status, body) = app.get("/api/posts/2").await;
    assert_eq!((status, body["views"].as_i64()), (StatusCode::OK, Some(7)), "nothing was written or deleted");

    let current = send(&app, Method::GET, "/api/posts/2", None, &[], None).await.etag();
    let listed = format!("\"nope\", {current}");
    let written = send(&app, Method::PATCH, "/api/posts/2", BOB, &[(IF_MATCH, &listed)], Some(r#"{"views": 8}"#)).await;
    assert_eq!((written.status, written.json()["views"].as_i64()), (StatusCode::OK, Some(8)));
    let star = send(&app, Method::PATCH, "/api/posts/2", BOB, &[(IF_MATCH, "*")], Some(r#"{"views": 9}"#)).await;
    assert_eq!(star.status, StatusCode::OK, "* matches any existing record");
    let missing = send(&app, Method::PATCH, "/api/posts/999", BOB, &[(IF_MATCH, "*")], Some("{}")).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);

    let deleted = send(&app, Method::DELETE, "/api/posts/2", BOB, &[(IF_MATCH, &star.etag())], None).await;
    assert_eq!(deleted.status, StatusCode::OK);
    assert_eq!(app.get("/api/posts/2").await.0, StatusCode::NOT_FOUND);
}

async fn etags_are_per_representation(app: TestApp) {
    // `email` is staff-only: Alice (staff) and Bob see different bodies, hence different tags.
    let alice = send(&app, Method::GET, "/authors/1", ALICE, &[], None).await;
    let bob = send(&app, Method::GET, "/authors/1", BOB, &[], None).await;
    assert_eq!((alice.status, bob.status), (StatusCode::OK, StatusCode::OK));
    assert!(alice.json().get("email").is_some() && bob.json().get("email").is_none());
    assert_ne!(alice.etag(), bob.etag());
    assert_eq!(bob.etag(), entity_tag(&bob.body));
    let crossed = send(&app, Method::GET, "/authors/1", BOB, &[(IF_NONE_MATCH, &alice.etag())], None).await;
    assert_eq!(crossed.status, StatusCode::OK, "Alice's tag is not Bob's representation");
    let refused =
        send(&app, Method::PATCH, "/authors/1", BOB, &[(IF_MATCH, &alice.etag())], Some(r#"{"name": "B"}"#)).await;
    assert_eq!(refused.status, StatusCode::PRECONDITION_FAILED);
    let written =
        send(&app, Method::PATCH, "/authors/1", BOB, &[(IF_MATCH, &bob.etag())], Some(r#"{"name": "B"}"#)).await;
    assert_eq!(written.status, StatusCode::OK);
    assert!(written.json().get("email").is_none());
}

/// Posts whose writes require `If-Match`: by a `Hooks` override, by the attribute, and the attribute overridden.
mod strict {
    use blog::entities::post;
    use viewset_core::prelude::*;

    /// Posts at `/strict/posts`: the `Hooks` method.
    #[derive(ModelViewSet)]
    #[viewset(model = post::Entity, prefix = "/strict/posts", custom_hooks)]
    pub struct StrictPosts;

    impl Hooks for StrictPosts {
        fn require_if_match() -> bool {
            true
        }
    }

    /// Posts at `/declared/posts`: the attribute, with the default hooks.
    #[derive(ModelViewSet)]
    #[viewset(model = post::Entity, prefix = "/declared/posts", require_if_match)]
    pub struct DeclaredStrictPosts;

    /// Posts at `/lenient/posts`: the attribute, turned off again by an override (the override wins).
    #[derive(ModelViewSet)]
    #[viewset(model = post::Entity, prefix = "/lenient/posts", require_if_match = true, custom_hooks)]
    pub struct LenientPosts;

    impl Hooks for LenientPosts {
        fn require_if_match() -> bool {
            false
        }
    }
}

async fn strict_app(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let router = viewset_core::include_viewset::<strict::StrictPosts, _>(axum::Router::new());
    let router = viewset_core::include_viewset::<strict::DeclaredStrictPosts, _>(router);
    let router = viewset_core::include_viewset::<strict::LenientPosts, _>(router)
        .with_state(viewset_core::ServiceState::new(db.clone()));
    TestApp::serve(router, db, database).await
}

/// PATCH and DELETE of `<prefix>/1` answer 428 without `If-Match` and write nothing; with the record's tag they
/// succeed.
async fn assert_requires_if_match(app: &TestApp, prefix: &str) {
    let path = format!("{prefix}/1");
    let read = send(app, Method::GET, &path, None, &[], None).await;
    assert_eq!(read.status, StatusCode::OK, "reads need no precondition");
    let refused = send(app, Method::PATCH, &path, None, &[], Some(r#"{"views": 3}"#)).await;
    assert_eq!(refused.status, StatusCode::PRECONDITION_REQUIRED, "PATCH {path}");
    assert_eq!(refused.json()["code"], "precondition_required");
    let refused = send(app, Method::DELETE, &path, None, &[], None).await;
    assert_eq!(
        (refused.status, refused.json()["code"].as_str()),
        (StatusCode::PRECONDITION_REQUIRED, Some("precondition_required")),
        "DELETE {path}"
    );
    assert_eq!(app.get(&path).await.1["views"], read.json()["views"], "nothing was written");

    let tag = read.etag();
    let written = send(app, Method::PATCH, &path, None, &[(IF_MATCH, &tag)], Some(r#"{"views": 3}"#)).await;
    assert_eq!((written.status, written.json()["views"].as_i64()), (StatusCode::OK, Some(3)));
    let deleted = send(app, Method::DELETE, &path, None, &[(IF_MATCH, &written.etag())], None).await;
    assert_eq!(deleted.status, StatusCode::OK);
    assert_eq!(app.get(&path).await.0, StatusCode::NOT_FOUND);
}

async fn require_if_match_answers_428_without_it(app: TestApp) {
    assert_requires_if_match(&app, "/strict/posts").await;
}

async fn the_require_if_match_attribute_answers_428_without_it(app: TestApp) {
    assert_requires_if_match(&app, "/declared/posts").await;
}

async fn a_require_if_match_override_wins_over_the_attribute(app: TestApp) {
    let written = send(&app, Method::PATCH, "/lenient/posts/1", None, &[], Some(r#"{"views": 5}"#)).await;
    assert_eq!((written.status, written.json()["views"].as_i64()), (StatusCode::OK, Some(5)));
    let deleted = send(&app, Method::DELETE, "/lenient/posts/1", None, &[], None).await;
    assert_eq!(deleted.status, StatusCode::OK, "no If-Match needed once the override says so");
}
