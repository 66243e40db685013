//! Bulk update (`#[viewset(bulk)]`: `PATCH <prefix>/` with a JSON array of partial records, each naming its key)
//! over HTTP, on SQLite and PostgreSQL: all rows or none, the records read in one locked `SELECT … IN (…)` and each
//! written as a single PATCH writes it, the records in request order, the errors of every row in one 422 located at
//! `["body", "<index>", <field>]`, a record the caller may not see a 404 naming its row, the object permissions per
//! row, `max_bulk`, `Prefer: return=minimal`, `Idempotency-Key`, one `updated` event per changed row; and the
//! tenants example, where a bulk update never reaches (nor moves a record into) another tenant.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_core::access::OperationPermission;
use viewset_core::prelude::*;
use viewset_tests::fixtures::paged::{PublishedOnly, PublishedToAnonymous};
use viewset_tests::harness::{Backend, SseClient, Statements, TestApp, TestDb, WAIT, recording};
use viewset_tests::identities::blog::{ALICE, BOB, FORGED};
use viewset_tests::identities::tenants as people;
use viewset_tests::on_every_database;

use blog::entities::post;

use crate::support::writes;

/// Posts anyone may update within [`PublishedToAnonymous`] (an anonymous caller sees published posts only), three
/// at a time.
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/scoped/posts", basename = "scoped", permission_classes = [AllowAny], policy = [PublishedToAnonymous], bulk(update), max_bulk = 3)]
pub struct ScopedPosts;

#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/checked/posts", basename = "checked", permission_classes = [AllowAny, PublishedOnly], bulk(update))]
pub struct CheckedPosts;

/// Posts a caller may read and never write.
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/reader/posts", basename = "reader", permission_classes = [OperationPermission::allow(&["read"])], bulk)]
pub struct ReaderPosts;

/// Posts with a bulk create only: no bulk update.
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/create_only/posts", basename = "create_only", permission_classes = [AllowAny], bulk(create))]
pub struct CreateOnly;

/// Posts whose hooks require `If-Match` (the attribute could not be combined with `bulk(update)`).
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/guarded/posts", basename = "guarded", permission_classes = [AllowAny], bulk(update), custom_hooks)]
pub struct GuardedPosts;

impl Hooks for GuardedPosts {
    fn require_if_match() -> bool {
        true
    }
}

/// The blog (its posts are `bulk`) with the ViewSets above, every statement recorded.
async fn bulk_blog(backend: Backend) -> (TestApp, Statements) {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let (recorded, statements) = recording(&db);
    let mut api = blog::api();
    api.include::<ScopedPosts>().expect("registers").include::<CheckedPosts>().expect("registers");
    api.include::<ReaderPosts>().expect("registers").include::<CreateOnly>().expect("registers");
    api.include::<GuardedPosts>().expect("registers");
    let router = blog::app_from(api, ServiceState::new(recorded));
    (TestApp::serve(router, db, database).await, statements)
}

/// Creates `n` posts as Bob; their ids.
async fn new_posts(app: &TestApp, n: usize) -> Vec<i64> {
    let rows: Vec<Value> = (0..n).map(|i| json!({"title": format!("p{i}"), "body": "b", "author_id": 1})).collect();
    let (status, created) = app.send(Method::POST, "/api/posts/bulk", BOB, Some(&json!(rows).to_string())).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created.as_array().unwrap().iter().map(|p| p["id"].as_i64().unwrap()).collect()
}

/// The stored title of each post.
async fn titles(app: &TestApp, ids: &[i64]) -> Vec<String> {
    let mut out = Vec::new();
    for id in ids {
        let (status, post) = app.get(&format!("/api/posts/{id}")).await;
        assert_eq!(status, StatusCode::OK, "{post}");
        out.push(post["title"].as_str().unwrap().to_string());
    }
    out
}

/// The statements recorded since the last call that start with `verb`.
fn taken(statements: &Statements, verb: &str) -> Vec<String> {
    let mut recorded = statements.lock().unwrap();
    let found = recorded.iter().filter(|sql| sql.starts_with(verb)).cloned().collect();
    recorded.clear();
    found
}

on_every_database!(bulk_blog => updates_rows_in_request_order, refuses_bad_input_and_writes_nothing, who_may_write, minimal_and_idempotent);

async fn updates_rows_in_request_order((app, statements): (TestApp, Statements)) {
    let ids = new_posts(&app, 3).await;
    let mut stream = SseClient::connect(&app, "/api/posts/stream", BOB, None).await;
    assert_eq!(stream.next(WAIT).await.expect("ready").event, "ready");
    taken(&statements, "");
    // Each row its own values; the last row sends nothing but its key, so it changes nothing.
    let body =
        json!([{"id": ids[1], "title": "Second"}, {"id": ids[0], "views": 5, "published": true}, {"id": ids[2]}]);
    let (status, updated) = app.send(Method::PATCH, "/api/posts/bulk", BOB, Some(&body.to_string())).await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    let shown: Vec<(i64, &str, i64, bool)> = updated
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_i64().unwrap(),
                p["title"].as_str().unwrap(),
                p["views"].as_i64().unwrap(),
                p["published"] == true,
            )
        })
        .collect();
    assert_eq!(shown, [(ids[1], "Second", 0, false), (ids[0], "p0", 5, true), (ids[2], "p2", 0, false)]);
    let recorded = statements.lock().unwrap().clone();
    let keys = format!("IN ({}, {}, {})", ids[1], ids[0], ids[2]);
    let locked: Vec<&String> = recorded.iter().filter(|sql| sql.starts_with("SELECT") && sql.contains(&keys)).collect();
    assert_eq!(locked.len(), 1, "the records read in one statement: {recorded:?}");
    let updates = taken(&statements, "UPDATE");
    assert_eq!(updates.len(), 2, "one UPDATE per row that sends a field: {updates:?}");
    // MariaDB has no `UPDATE … RETURNING`: its PATCH reads the row back in the same transaction.
    let returning = app.db.get_database_backend() != sea_orm::DbBackend::MySql;
    assert!(updates.iter().all(|sql| sql.contains("RETURNING") == returning), "{updates:?}");
    assert_eq!(titles(&app, &ids).await, ["p0", "Second", "p2"]);
    let (_, first) = app.get(&format!("/api/posts/{}", ids[0])).await;
    assert_eq!((first["views"].as_i64(), first["published"].as_bool()), (Some(5), Some(true)));
    // One `updated` event per changed row, in request order; none for the row that changed nothing (the next event
    // is a later single PATCH's).
    for id in [ids[1], ids[0]] {
        let frame = stream.next(WAIT).await.expect("an event per changed row");
        assert_eq!((frame.event.as_str(), frame.data["pk"].as_i64()), ("updated", Some(id)), "{frame:?}");
    }
    let (status, _) = app.send(Method::PATCH, &format!("/api/posts/{}", ids[2]), BOB, Some(r#"{"views": 1}"#)).await;
    assert_eq!(status, StatusCode::OK);
    let frame = stream.next(WAIT).await.expect("the single PATCH's event");
    assert_eq!(frame.data["pk"].as_i64(), Some(ids[2]), "{frame:?}");
    // A string key of the lookup field's type names the record too.
    let (status, updated) = app
        .send(
            Method::PATCH,
            "/api/posts/bulk",
            ALICE,
            Some(&json!([{"id": ids[2].to_string(), "title": "S"}]).to_string()),
        )
        .await;
    assert_eq!((status, updated[0]["title"].as_str()), (StatusCode::OK, Some("S")), "{updated}");
}

/// The errors a refused body must answer: each location with its type (any type when empty).
type Expected = Vec<(Value, &'static str)>;

async fn refuses_bad_input_and_writes_nothing((app, _): (TestApp, Statements)) {
    let ids = new_posts(&app, 3).await;
    let (a, b, c) = (ids[0], ids[1], ids[2]);
    let long = "x".repeat(201);
    let cases: Vec<(String, StatusCode, Expected)> = vec![
        ("[ ]".into(), StatusCode::UNPROCESSABLE_ENTITY, vec![(json!(["body"]), "too_short")]),
        (json!({"id": a, "title": "t"}).to_string(), StatusCode::UNPROCESSABLE_ENTITY, vec![(json!(["body"]), "list_type")]),
        (r#"[{"id": "#.into(), StatusCode::UNPROCESSABLE_ENTITY, vec![(json!(["body"]), "json_invalid")]),
        (
            json!([1, "a", null, [], {"id": a, "title": "t"}]).to_string(),
            StatusCode::UNPROCESSABLE_ENTITY,
            (0..4).map(|i| (json!(["body", i.to_string()]), "model_type")).collect(),
        ),
        // A row without its key (or with `null`), a key of the wrong type, the same key twice.
        (
            json!([{"id": a, "title": "t"}, {"title": "t"}, {"id": null, "title": "t"}, {"id": "x"}, {"id": [a]}, {"id": 1.5}]).to_string(),
            StatusCode::UNPROCESSABLE_ENTITY,
            vec![
                (json!(["body", "1", "id"]), "missing"),
                (json!(["body", "2", "id"]), "missing"),
                (json!(["body", "3", "id"]), "invalid_id"),
                (json!(["body", "4", "id"]), "invalid_id"),
                (json!(["body", "5", "id"]), "invalid_id"),
            ],
        ),
        (
            // `7`, `"7"` and `7.0` name one record.
            json!([{"id": a, "title": "t"}, {"id": b}, {"id": a.to_string(), "views": 1}, {"id": b as f64}]).to_string(),
            StatusCode::UNPROCESSABLE_ENTITY,
            vec![(json!(["body", "2", "id"]), "duplicate_key"), (json!(["body", "3", "id"]), "duplicate_key")],
        ),
        // Every row's validation errors, in one answer.
        (
            json!([{"id": a, "title": long}, {"id": b, "title": "ok"}, {"id": c, "title": long}]).to_string(),
            StatusCode::UNPROCESSABLE_ENTITY,
            vec![(json!(["body", "0", "title"]), "string_too_long"), (json!(["body", "2", "title"]), "string_too_long")],
        ),
        // Every row's shape errors: a wrongly typed value, an unknown field, a read-only one, NUL.
        (
            json!([{"id": a, "title": 5}, {"id": b, "nope": 1}, {"id": c, "created_at": "2020-01-01T00:00:00Z"}, {"id": 1, "title": "a\u{0}b"}]).to_string(),
            StatusCode::UNPROCESSABLE_ENTITY,
            vec![
                (json!(["body", "0", "title"]), "type_error"),
                (json!(["body", "1", "nope"]), "extra_forbidden"),
                (json!(["body", "2", "created_at"]), ""),
                (json!(["body", "3", "title"]), "string_nul"),
            ],
        ),
        (json!([{"id": "1\u{0}", "title": "t"}]).to_string(), StatusCode::UNPROCESSABLE_ENTITY, vec![(json!(["body", "0", "id"]), "string_nul")]),
        // More rows than `max_bulk` (3 on /scoped/posts, below).
    ];
    for (body, status, expected) in cases {
        let (got, answer) = app.send(Method::PATCH, "/api/posts/bulk", BOB, Some(&body)).await;
        assert_eq!(got, status, "{body}: {answer}");
        let detail = answer["detail"].as_array().unwrap_or_else(|| panic!("{body}: {answer}"));
        for (loc, kind) in &expected {
            let found = detail.iter().find(|e| &e["loc"] == loc).unwrap_or_else(|| panic!("{loc} in {answer}"));
            assert!(kind.is_empty() || found["type"] == *kind, "{body}: {kind} at {loc} in {answer}");
        }
        assert_eq!(titles(&app, &ids).await, ["p0", "p1", "p2"], "{body}: nothing written");
    }
    let four = json!([{"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}]).to_string();
    let (status, answer) = app.send(Method::PATCH, "/scoped/posts/bulk", BOB, Some(&four)).await;
    assert_eq!((status, answer["detail"][0]["type"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("too_long")));
    assert!(answer["detail"][0]["msg"].as_str().unwrap().contains("At most 3"), "{answer}");
    // A key naming no record: 404 naming it and its row, and the first row is not written.
    let body = json!([{"id": a, "title": "changed"}, {"id": 99999, "title": "y"}]).to_string();
    let (status, answer) = app.send(Method::PATCH, "/api/posts/bulk", BOB, Some(&body)).await;
    assert_eq!(
        (status, answer["key"].as_str(), answer["index"].as_i64()),
        (StatusCode::NOT_FOUND, Some("99999"), Some(1))
    );
    // A row the database refuses (an author that does not exist) after a row it accepted: the single PATCH's answer,
    // and the first row's write rolled back.
    let orphan = json!([{"id": a, "title": "changed"}, {"id": b, "author_id": 999}]).to_string();
    let (status, answer) = app.send(Method::PATCH, "/api/posts/bulk", BOB, Some(&orphan)).await;
    let (single, _) = app.send(Method::PATCH, &format!("/api/posts/{b}"), BOB, Some(r#"{"author_id": 999}"#)).await;
    assert_eq!(status, single, "{answer}");
    assert!(status.is_client_error(), "{answer}");
    assert_eq!(titles(&app, &ids).await, ["p0", "p1", "p2"], "nothing written");
    // `If-Match` names one record's version: a bulk update cannot check it, so it refuses rather than write unchecked.
    let tag = app.client().get(format!("{}/api/posts/{a}", app.base)).bearer_auth(BOB.unwrap()).send().await;
    let tag = tag.expect("a retrieve").headers()["etag"].to_str().expect("a tag").to_string();
    let renamed = json!([{"id": a, "title": "unchecked"}]).to_string();
    for if_match in [tag.as_str(), "*"] {
        let response = app.client().patch(format!("{}/api/posts/bulk", app.base)).bearer_auth(BOB.unwrap());
        let response = response.header("content-type", "application/json").header("if-match", if_match);
        let response = response.body(renamed.clone()).send().await.expect("a bulk update");
        let status = response.status();
        let answer: Value = response.json().await.expect("a JSON answer");
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{if_match}: {answer}");
        assert_eq!(answer["detail"][0]["loc"], json!(["header", "if-match"]), "{answer}");
        assert_eq!(answer["detail"][0]["type"], "if_match_unsupported", "{answer}");
    }
    assert_eq!(titles(&app, &ids).await, ["p0", "p1", "p2"], "nothing written");
}

async fn who_may_write((app, _): (TestApp, Statements)) {
    let body = json!([{"id": 1, "title": "Mine"}, {"id": 2, "title": "Yours"}]).to_string();
    let before = titles(&app, &[1, 2]).await;
    // Anonymous callers (a forged token is anonymous) are refused as a single PATCH refuses them.
    for token in [None, FORGED] {
        let (single, _) = app.send(Method::PATCH, "/api/posts/1", token, Some(r#"{"title": "x"}"#)).await;
        let (status, answer) = app.send(Method::PATCH, "/api/posts/bulk", token, Some(&body)).await;
        assert!(status.is_client_error() && status == single, "{status} {answer}");
    }
    // A caller who may only read.
    let (status, answer) = app.send(Method::PATCH, "/reader/posts/bulk", BOB, Some(&body)).await;
    assert_eq!((status, answer["code"].as_str()), (StatusCode::FORBIDDEN, Some("permission_denied")));
    // Post 3 is a draft: outside an anonymous caller's scope, so a 404 naming its row, and post 1 is kept.
    let scoped = json!([{"id": 1, "title": "Mine"}, {"id": 3, "title": "Draft"}]).to_string();
    let (status, answer) = app.send(Method::PATCH, "/scoped/posts/bulk", None, Some(&scoped)).await;
    assert_eq!((status, answer["key"].as_str(), answer["index"].as_i64()), (StatusCode::NOT_FOUND, Some("3"), Some(1)));
    // An object permission refuses the draft: 403, and nothing is written.
    let (status, answer) = app.send(Method::PATCH, "/checked/posts/bulk", BOB, Some(&scoped)).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
    assert_eq!(titles(&app, &[1, 2]).await, before, "nothing written");
    // A ViewSet whose hooks require `If-Match`: 428, as its bulk delete would answer.
    let (status, answer) = app.send(Method::PATCH, "/guarded/posts/bulk", BOB, Some(&body)).await;
    assert_eq!((status, answer["code"].as_str()), (StatusCode::PRECONDITION_REQUIRED, Some("precondition_required")));
    // Without `bulk(update)` there is no `PATCH P/bulk`; `PATCH P/` is never one.
    for path in ["/authors/", "/create_only/posts/", "/create_only/posts/bulk", "/api/posts/"] {
        let (status, answer) = app.send(Method::PATCH, path, ALICE, Some(&body)).await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{path}: {answer}");
    }
    // Writers; signed in, the draft is in the scoped ViewSet's scope.
    let (status, answer) = app.send(Method::PATCH, "/scoped/posts/bulk", BOB, Some(&scoped)).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let (status, answer) = app.send(Method::PATCH, "/api/posts/bulk", ALICE, Some(&body)).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(titles(&app, &[1, 2, 3]).await, ["Mine", "Yours", "Draft"]);
}

/// Sends a bulk update as Bob with `Prefer` and `Idempotency-Key`: status, headers, body bytes.
async fn patch_raw(
    app: &TestApp,
    body: &str,
    prefer: Option<&str>,
    key: Option<&str>,
) -> (StatusCode, reqwest::header::HeaderMap, Vec<u8>) {
    let answer = writes::write(app, Method::PATCH, "/api/posts/bulk", BOB, key.map(str::as_bytes), prefer, body).await;
    (answer.status, answer.headers, answer.body)
}

async fn minimal_and_idempotent((app, _): (TestApp, Statements)) {
    let ids = new_posts(&app, 2).await;
    let body = json!([{"id": ids[0], "title": "m0"}, {"id": ids[1], "title": "m1"}]).to_string();
    let (status, headers, bytes) = patch_raw(&app, &body, Some("return=minimal"), None).await;
    assert_eq!((status, bytes.len()), (StatusCode::NO_CONTENT, 0));
    assert_eq!(headers["preference-applied"], "return=minimal");
    assert!(headers.get("content-type").is_none() && headers.get("location").is_none());
    assert_eq!(titles(&app, &ids).await, ["m0", "m1"]);

    // The same key twice: one write (a change made in between stays), the stored answer replayed; the key with
    // another body is refused.
    let body = json!([{"id": ids[0], "title": "k0"}, {"id": ids[1], "title": "k1"}]).to_string();
    let (first, _, stored) = patch_raw(&app, &body, None, Some("bulk-update-1")).await;
    assert_eq!(first, StatusCode::OK);
    let (status, _) =
        app.send(Method::PATCH, &format!("/api/posts/{}", ids[0]), BOB, Some(r#"{"title": "between"}"#)).await;
    assert_eq!(status, StatusCode::OK);
    let (again, headers, replayed) = patch_raw(&app, &body, None, Some("bulk-update-1")).await;
    assert_eq!(again, StatusCode::OK);
    assert_eq!(headers["idempotent-replayed"], "true");
    assert_eq!(stored, replayed);
    assert_eq!(titles(&app, &ids).await, ["between", "k1"], "the replay wrote nothing");
    let other = json!([{"id": ids[0], "title": "other"}]).to_string();
    let (status, _, _) = patch_raw(&app, &other, None, Some("bulk-update-1")).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(titles(&app, &ids).await, ["between", "k1"]);
}

// The tenants example's projects have `bulk` and `OwnerCanWrite` (an object permission: only the owner or staff).
on_every_database!(TestApp::tenants => a_bulk_update_stays_in_its_tenant);

/// The names of acme's projects, as Bob sees them by id.
async fn names(app: &TestApp, ids: &[i64]) -> Vec<String> {
    let mut out = Vec::new();
    for id in ids {
        let (status, project) = app.send(Method::GET, &format!("/api/projects/{id}"), people::BOB, None).await;
        assert_eq!(status, StatusCode::OK, "{project}");
        out.push(project["name"].as_str().unwrap().to_string());
    }
    out
}

async fn a_bulk_update_stays_in_its_tenant(app: TestApp) {
    let create = |token, body: Value| {
        let app = &app;
        async move {
            let (status, created) = app.send(Method::POST, "/api/projects/bulk", token, Some(&body.to_string())).await;
            assert_eq!(status, StatusCode::CREATED, "{created}");
            created.as_array().unwrap().iter().map(|p| p["id"].as_i64().unwrap()).collect::<Vec<i64>>()
        }
    };
    let bobs = create(people::BOB, json!([{"name": "One"}, {"name": "Two"}])).await;
    let alices = create(people::ALICE, json!([{"name": "Hers"}])).await;
    let all = [bobs[0], bobs[1], alices[0]];
    // A row naming another tenant is refused (the tenant is never written by clients), and nothing is written.
    let moved = json!([{"id": bobs[0], "name": "Moved?"}, {"id": bobs[1], "tenant_id": "globex"}]).to_string();
    let (status, answer) = app.send(Method::PATCH, "/api/projects/bulk", people::BOB, Some(&moved)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(answer["detail"][0]["loc"], json!(["body", "1", "tenant_id"]), "{answer}");
    // Bob may not change Alice's project (object permission, per row): 403, and his own row is not written.
    let theirs = json!([{"id": bobs[0], "name": "Mine"}, {"id": alices[0], "name": "Taken"}]).to_string();
    let (status, answer) = app.send(Method::PATCH, "/api/projects/bulk", people::BOB, Some(&theirs)).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
    // Carol (globex) sees none of acme's projects: a 404 naming the first row; Dave (no tenant) is refused.
    let (status, answer) = app.send(Method::PATCH, "/api/projects/bulk", people::CAROL, Some(&theirs)).await;
    assert_eq!((status, answer["index"].as_i64()), (StatusCode::NOT_FOUND, Some(0)), "{answer}");
    let (status, _) = app.send(Method::PATCH, "/api/projects/bulk", people::DAVE, Some(&theirs)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(names(&app, &all).await, ["One", "Two", "Hers"], "nothing written");
    // Bob changes his own; Alice (staff) changes any in her tenant. The tenant stays acme.
    let own = json!([{"id": bobs[1], "name": "Deux", "archived": true}, {"id": bobs[0], "name": "Un"}]).to_string();
    let (status, updated) = app.send(Method::PATCH, "/api/projects/bulk", people::BOB, Some(&own)).await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    for project in updated.as_array().unwrap() {
        assert_eq!((project["tenant_id"].as_str(), project["owner"].as_str()), (Some("acme"), Some("bob")));
    }
    let (status, updated) = app.send(Method::PATCH, "/api/projects/bulk", people::ALICE, Some(&theirs)).await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(names(&app, &all).await, ["Mine", "Deux", "Taken"]);
}
