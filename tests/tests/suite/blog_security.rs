//! Permissions, object permissions, field visibility and custom actions on the blog, with valid, invalid and
//! missing identities, on SQLite and PostgreSQL.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_tests::harness::TestApp;
use viewset_tests::identities::blog::{ALICE, BOB, FORGED};
use viewset_tests::on_every_database;

on_every_database!(TestApp::blog =>
    posts_read_open_write_needs_identity,
    authors_need_identity_on_every_route,
    email_is_visible_to_staff_only,
    hidden_fields_cannot_be_written_filtered_searched_or_ordered,
    publish_action_needs_identity_and_a_visible_record,
    stats_action_is_open,
    actions_reject_other_methods,
);

async fn posts_read_open_write_needs_identity(app: TestApp) {
    for token in [None, FORGED, BOB] {
        let (status, _) = app.send(Method::GET, "/api/posts/", token, None).await;
        assert_eq!(status, StatusCode::OK, "{token:?}");
        let (status, _) = app.send(Method::GET, "/api/posts/1", token, None).await;
        assert_eq!(status, StatusCode::OK, "{token:?}");
    }
    let body = r#"{"title": "t", "body": "b", "author_id": 1}"#;
    for token in [None, FORGED] {
        for (method, path, body) in [
            (Method::POST, "/api/posts/", Some(body)),
            (Method::PATCH, "/api/posts/1", Some(r#"{"views": 1}"#)),
            (Method::DELETE, "/api/posts/1", None),
        ] {
            let (status, json) = app.send(method.clone(), path, token, body).await;
            // Behind the blog's bearer layer an anonymous caller is challenged (401), not refused (403).
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{method} {path} with {token:?}");
            assert_eq!(json["code"], "not_authenticated");
        }
    }
    let (_, post) = app.get("/api/posts/1").await;
    assert_eq!(post["views"], 120, "denied writes changed nothing");
    let (status, _) = app.send(Method::POST, "/api/posts/", BOB, Some(body)).await;
    assert_eq!(status, StatusCode::CREATED);
}

async fn authors_need_identity_on_every_route(app: TestApp) {
    for token in [None, FORGED] {
        for (method, path) in [
            (Method::GET, "/authors/"),
            (Method::GET, "/authors/1"),
            (Method::POST, "/authors/"),
            (Method::PATCH, "/authors/1"),
            (Method::DELETE, "/authors/1"),
        ] {
            let (status, _) = app.send(method.clone(), path, token, Some("{}")).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{method} {path} with {token:?}");
        }
    }
    let (status, _) = app.send(Method::GET, "/authors/1", BOB, None).await;
    assert_eq!(status, StatusCode::OK);
}

async fn email_is_visible_to_staff_only(app: TestApp) {
    let (_, bob_view) = app.send(Method::GET, "/authors/1", BOB, None).await;
    assert_eq!(bob_view, json!({"id": 1, "name": "Ada Lovelace"}));
    let (_, alice_view) = app.send(Method::GET, "/authors/1", ALICE, None).await;
    assert_eq!(alice_view["email"], "ada@example.com");
    let (_, list) = app.send(Method::GET, "/authors/", BOB, None).await;
    assert!(list["results"].as_array().unwrap().iter().all(|a| a.get("email").is_none()), "{list}");
    let (_, list) = app.send(Method::GET, "/authors/", ALICE, None).await;
    assert!(list["results"].as_array().unwrap().iter().all(|a| a.get("email").is_some()), "{list}");
    let (status, created) =
        app.send(Method::POST, "/authors/", ALICE, Some(r#"{"name": "Grace", "email": "grace@example.com"}"#)).await;
    assert_eq!((status, created["email"].as_str()), (StatusCode::CREATED, Some("grace@example.com")));
    let (status, renamed) = app.send(Method::PATCH, "/authors/1", BOB, Some(r#"{"name": "Ada"}"#)).await;
    assert_eq!(
        (status, renamed),
        (StatusCode::OK, json!({"id": 1, "name": "Ada"})),
        "writes answer without hidden fields"
    );
}

async fn hidden_fields_cannot_be_written_filtered_searched_or_ordered(app: TestApp) {
    let (status, body) = app.send(Method::PATCH, "/authors/1", BOB, Some(r#"{"email": "evil@example.com"}"#)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["detail"][0]["loc"], json!(["body", "email"]));
    assert_eq!(body["detail"][0]["type"], "read_only");
    let (status, _) =
        app.send(Method::POST, "/authors/", BOB, Some(r#"{"name": "Eve", "email": "eve@example.com"}"#)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "bob cannot write a hidden field on create");
    let (_, alice_view) = app.send(Method::GET, "/authors/1", ALICE, None).await;
    assert_eq!(alice_view["email"], "ada@example.com", "nothing was written");
    // Filtering by a hidden field is ignored (no oracle on its values).
    let (_, filtered) = app.send(Method::GET, "/authors/?email=ada@example.com", BOB, None).await;
    assert_eq!(filtered["count"], 2);
    let (_, filtered) = app.send(Method::GET, "/authors/?email=ada@example.com", ALICE, None).await;
    assert_eq!(filtered["count"], 1, "staff may filter by it");
}

async fn publish_action_needs_identity_and_a_visible_record(app: TestApp) {
    for token in [None, FORGED] {
        let (status, body) = app.send(Method::POST, "/api/posts/3/publish", token, None).await;
        assert_eq!((status, body["code"].as_str()), (StatusCode::UNAUTHORIZED, Some("not_authenticated")), "{token:?}");
    }
    let (_, post) = app.get("/api/posts/3").await;
    assert_eq!(post["published"], false, "a denied action changed nothing");
    let (status, body) = app.send(Method::POST, "/api/posts/3/publish", BOB, None).await;
    assert_eq!((status, body["published"].as_bool()), (StatusCode::OK, Some(true)), "{body}");
    let (_, post) = app.get("/api/posts/3").await;
    assert_eq!(post["published"], true);
    let (status, _) = app.send(Method::POST, "/api/posts/999/publish", BOB, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, body) = app.send(Method::POST, "/api/posts/x/publish", BOB, None).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_id")));
}

async fn stats_action_is_open(app: TestApp) {
    let (status, body) = app.get("/api/posts/stats").await;
    assert_eq!((status, body), (StatusCode::OK, json!({"count": 3, "published": 2})));
    let (status, body) = app.send(Method::GET, "/api/posts/stats", FORGED, None).await;
    assert_eq!((status, body["count"].as_i64()), (StatusCode::OK, Some(3)));
}

async fn actions_reject_other_methods(app: TestApp) {
    let (status, body): (StatusCode, Value) = app.send(Method::GET, "/api/posts/1/publish", BOB, None).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::METHOD_NOT_ALLOWED, Some("method_not_allowed")));
    let (status, _) = app.send(Method::POST, "/api/posts/stats", BOB, Some("{}")).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
}
