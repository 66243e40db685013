//! Bulk delete (`#[viewset(bulk)]`: `DELETE <prefix>/bulk?<lookup>__in=1,2,3`) over HTTP, on SQLite and PostgreSQL:
//! explicit keys only, all or none, each record through the row policies (a key the caller may not see: 404 naming
//! it) and the object permissions, referenced records answered as the single delete answers them, one event per
//! record. Bulk create: `bulk_writes.rs`; the tenants example's bulk writes and upserts: `tenants_bulk.rs`.

use reqwest::{Method, StatusCode};
use sea_orm::{ConnectionTrait, Statement};
use serde_json::{Value, json};
use viewset_core::prelude::*;
use viewset_tests::fixtures::paged::{PublishedOnly, PublishedToAnonymous};
use viewset_tests::harness::{Backend, SseClient, TestApp, TestDb, WAIT};
use viewset_tests::identities::blog::{ALICE, BOB, FORGED};
use viewset_tests::on_every_database;

use blog::entities::{author, post};

/// Posts anyone may delete, within [`PublishedToAnonymous`] (an anonymous caller sees published posts only), three
/// at a time.
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/scoped/posts", basename = "scoped", permission_classes = [AllowAny], policy = [PublishedToAnonymous], bulk, max_bulk = 3)]
pub struct ScopedPosts;

#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/checked/posts", basename = "checked", permission_classes = [AllowAny, PublishedOnly], bulk(delete))]
pub struct CheckedPosts;

/// Authors anyone may delete, many at once.
#[derive(ModelViewSet)]
#[viewset(model = author::Entity, prefix = "/bulk/authors", basename = "bulk_authors", permission_classes = [AllowAny], bulk)]
pub struct BulkAuthors;

async fn bulk_blog(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let mut api = blog::api();
    api.include::<ScopedPosts>().expect("registers").include::<CheckedPosts>().expect("registers");
    api.include::<BulkAuthors>().expect("registers");
    TestApp::serve(blog::app_from(api, ServiceState::new(db.clone())), db, database).await
}

async fn count(app: &TestApp, sql: &str) -> i64 {
    let statement = Statement::from_string(app.db.get_database_backend(), sql.to_string());
    let row = app.db.query_one_raw(statement).await.expect("count").expect("a row");
    row.try_get_by_index::<i64>(0).expect("an integer")
}

async fn posts(app: &TestApp) -> i64 {
    count(app, "SELECT COUNT(*) FROM posts").await
}

/// Creates `n` posts as Bob; their ids.
async fn new_posts(app: &TestApp, n: usize) -> Vec<i64> {
    let rows: Vec<Value> = (0..n).map(|i| json!({"title": format!("p{i}"), "body": "b", "author_id": 1})).collect();
    let (status, created) = app.send(Method::POST, "/api/posts/bulk", BOB, Some(&json!(rows).to_string())).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created.as_array().unwrap().iter().map(|p| p["id"].as_i64().unwrap()).collect()
}

on_every_database!(bulk_blog => deletes_named_records, refuses_bad_keys_and_deletes_nothing, scope_and_permissions);

async fn deletes_named_records(app: TestApp) {
    let ids = new_posts(&app, 3).await;
    let before = posts(&app).await;
    let mut stream = SseClient::connect(&app, "/api/posts/stream", BOB, None).await;
    assert_eq!(stream.next(WAIT).await.expect("ready").event, "ready");
    // A key named twice is deleted once.
    let path = format!("/api/posts/bulk?id__in={},{},{}", ids[0], ids[2], ids[0]);
    let (status, body) = app.send(Method::DELETE, &path, BOB, None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body, json!({"deleted": 2, "ids": [ids[0], ids[2]]}));
    assert_eq!(posts(&app).await, before - 2);
    assert_eq!(app.get(&format!("/api/posts/{}", ids[0])).await.0, StatusCode::NOT_FOUND);
    assert_eq!(app.get(&format!("/api/posts/{}", ids[1])).await.0, StatusCode::OK);
    for id in [ids[0], ids[2]] {
        let frame = stream.next(WAIT).await.expect("an event per record");
        assert_eq!((frame.event.as_str(), frame.data["pk"].as_i64()), ("deleted", Some(id)), "{frame:?}");
    }
    // Anonymous callers (a forged token too) may not delete the blog's posts.
    for token in [None, FORGED] {
        let (status, _) = app.send(Method::DELETE, &format!("/api/posts/bulk?id__in={}", ids[1]), token, None).await;
        assert!(status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN, "{status}");
    }
    assert_eq!(posts(&app).await, before - 2);
}

async fn refuses_bad_keys_and_deletes_nothing(app: TestApp) {
    let ids = new_posts(&app, 2).await;
    let before = posts(&app).await;
    let cases: [(String, StatusCode, &str); 10] = [
        // No keys: never a filter-wide delete; the collection itself is never deleted from.
        ("/api/posts/bulk".into(), StatusCode::UNPROCESSABLE_ENTITY, "missing"),
        ("/api/posts/bulk?id__in=".into(), StatusCode::UNPROCESSABLE_ENTITY, "missing"),
        ("/api/posts/bulk?published=true".into(), StatusCode::UNPROCESSABLE_ENTITY, "extra_forbidden"),
        ("/api/posts/".into(), StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed"),
        (format!("/api/posts/?id__in={}", ids[0]), StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed"),
        (format!("/api/posts/bulk?id__in={}&title=x", ids[0]), StatusCode::UNPROCESSABLE_ENTITY, "extra_forbidden"),
        (
            format!("/api/posts/bulk?id__in={}&id__in={}", ids[0], ids[1]),
            StatusCode::UNPROCESSABLE_ENTITY,
            "duplicate_parameter",
        ),
        // Malformed keys, and more than `max_bulk`.
        (format!("/api/posts/bulk?id__in={},x", ids[0]), StatusCode::BAD_REQUEST, "invalid_id"),
        (format!("/api/posts/bulk?id__in={},,{}", ids[0], ids[1]), StatusCode::BAD_REQUEST, "invalid_id"),
        ("/scoped/posts/bulk?id__in=1,2,3,4".into(), StatusCode::UNPROCESSABLE_ENTITY, "too_long"),
    ];
    for (path, status, kind) in cases {
        let (got, body) = app.send(Method::DELETE, &path, BOB, None).await;
        assert_eq!(got, status, "{path}: {body}");
        let found = body["code"].as_str().or(body["detail"][0]["type"].as_str());
        assert_eq!(found, Some(kind), "{path}: {body}");
        assert_eq!(posts(&app).await, before, "{path}: nothing deleted");
    }
    // A key that names no record: 404 naming it, and the others are kept.
    let (status, body) = app.send(Method::DELETE, &format!("/api/posts/bulk?id__in={},99999", ids[0]), BOB, None).await;
    assert_eq!((status, body["key"].as_str()), (StatusCode::NOT_FOUND, Some("99999")), "{body}");
    assert_eq!(posts(&app).await, before);
    // `If-Match` names one record's version, which a bulk delete cannot check: refused, nothing deleted.
    let path = format!("{}/api/posts/bulk?id__in={},{}", app.base, ids[0], ids[1]);
    let response = app.client().delete(path).bearer_auth(BOB.unwrap()).header("if-match", "*").send().await;
    let response = response.expect("a bulk delete");
    let status = response.status();
    let body: Value = response.json().await.expect("a JSON answer");
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        (&body["detail"][0]["loc"], &body["detail"][0]["type"]),
        (&json!(["header", "if-match"]), &json!("if_match_unsupported"))
    );
    assert_eq!(posts(&app).await, before);
    // A record still referenced: the single delete's answer, and nothing deleted (the unreferenced author stays).
    let (status, new) = app.send(Method::POST, "/bulk/authors/bulk", None, Some(r#"[{"name": "Nobody's"}]"#)).await;
    assert_eq!(status, StatusCode::CREATED, "{new}");
    let unreferenced = new[0]["id"].as_i64().unwrap();
    let (single, _) = app.send(Method::DELETE, "/authors/1", ALICE, None).await;
    let (status, body) =
        app.send(Method::DELETE, &format!("/bulk/authors/bulk?id__in={unreferenced},1"), None, None).await;
    assert_eq!((status, body["code"].as_str()), (single, Some("foreign_key_violation")), "{body}");
    assert_eq!(count(&app, &format!("SELECT COUNT(*) FROM authors WHERE id = {unreferenced}")).await, 1);
}

async fn scope_and_permissions(app: TestApp) {
    let before = posts(&app).await;
    // Post 3 is a draft: outside an anonymous caller's scope, so a 404 naming it, and post 1 is kept.
    let (status, body) = app.send(Method::DELETE, "/scoped/posts/bulk?id__in=1,3", None, None).await;
    assert_eq!((status, body["key"].as_str()), (StatusCode::NOT_FOUND, Some("3")), "{body}");
    // An object permission refuses the draft: 403, and nothing is deleted.
    let (status, body) = app.send(Method::DELETE, "/checked/posts/bulk?id__in=1,3", BOB, None).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(posts(&app).await, before);
    // Signed in, the draft is in scope.
    let (status, body) = app.send(Method::DELETE, "/scoped/posts/bulk?id__in=3", BOB, None).await;
    assert_eq!((status, body["deleted"].as_i64()), (StatusCode::OK, Some(1)), "{body}");
    assert_eq!(posts(&app).await, before - 1);
}
