//! Bulk create (`#[viewset(bulk)]`: `POST <prefix>/bulk` with a JSON array) over HTTP, on SQLite, PostgreSQL and
//! MariaDB: all rows or none, one multi-row `INSERT … RETURNING` per chunk (every statement recorded), the records in request
//! order, the errors of every row in one 422 located at `["body", "<index>", <field>]`, the same admission as a
//! single create, `max_bulk`, `Prefer: return=minimal`, `Idempotency-Key`, one event per row. Bulk delete and the
//! tenants example: `bulk_deletes.rs`.

use reqwest::{Method, StatusCode};
use sea_orm::{ConnectionTrait, Statement};
use serde_json::{Value, json};
use viewset_core::access::OperationPermission;
use viewset_core::prelude::*;
use viewset_tests::harness::{Backend, SseClient, Statements, TestApp, TestDb, WAIT, recording};
use viewset_tests::identities::blog::{ALICE, BOB, FORGED};
use viewset_tests::on_every_database;

use crate::support::writes;

use blog::entities::post;

/// Posts anyone may write, three at a time.
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/small/posts", basename = "small", permission_classes = [AllowAny], bulk, max_bulk = 3)]
pub struct SmallBulk;

/// Posts anyone may write, many at a time: enough rows for more than one statement.
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/many/posts", basename = "many", permission_classes = [AllowAny], bulk(create), max_bulk = 100000)]
pub struct ManyBulk;

/// Posts a caller may read and never write.
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/reader/posts", basename = "reader", permission_classes = [OperationPermission::allow(&["read"])], bulk)]
pub struct ReaderPosts;

/// The blog (its posts are `bulk`) with the ViewSets above, every statement recorded.
async fn bulk_blog(backend: Backend) -> (TestApp, Statements) {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let (recorded, statements) = recording(&db);
    let mut api = blog::api();
    api.include::<SmallBulk>().expect("registers").include::<ManyBulk>().expect("registers");
    api.include::<ReaderPosts>().expect("registers");
    let router = blog::app_from(api, ServiceState::new(recorded));
    (TestApp::serve(router, db, database).await, statements)
}

async fn posts(app: &TestApp) -> i64 {
    let statement = Statement::from_string(app.db.get_database_backend(), "SELECT COUNT(*) FROM posts");
    let row = app.db.query_one_raw(statement).await.expect("count").expect("a row");
    row.try_get_by_index::<i64>(0).expect("an integer")
}

/// A post's create body.
fn row(title: &str) -> Value {
    json!({"title": title, "body": "b", "author_id": 1})
}

/// The locations of a 422's errors.
fn locs(body: &Value) -> Vec<Value> {
    body["detail"].as_array().unwrap_or_else(|| panic!("no detail: {body}")).iter().map(|e| e["loc"].clone()).collect()
}

/// The `INSERT`s among the statements recorded since the last call.
fn inserts(statements: &Statements) -> Vec<String> {
    let mut recorded = statements.lock().unwrap();
    let found = recorded.iter().filter(|sql| sql.starts_with("INSERT")).cloned().collect();
    recorded.clear();
    found
}

on_every_database!(bulk_blog => invalid_rows_write_nothing, who_may_write, minimal_idempotent_and_evented);
on_every_database!(bulk_blog => one_insert_per_chunk);

async fn one_insert_per_chunk((app, statements): (TestApp, Statements)) {
    inserts(&statements);
    let body = json!([row("First"), row("Second"), row("Third")]).to_string();
    let (status, created) = app.send(Method::POST, "/api/posts/bulk", BOB, Some(&body)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let titles: Vec<&str> = created.as_array().unwrap().iter().map(|p| p["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["First", "Second", "Third"], "request order");
    let ids: Vec<i64> = created.as_array().unwrap().iter().map(|p| p["id"].as_i64().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    for (id, title) in ids.iter().zip(titles) {
        let (status, stored) = app.get(&format!("/api/posts/{id}")).await;
        assert_eq!((status, stored["title"].as_str()), (StatusCode::OK, Some(title)));
    }
    let sql = inserts(&statements);
    assert_eq!(sql.len(), 1, "one INSERT for three rows: {sql:?}");
    assert!(sql[0].contains("RETURNING"), "{sql:?}");
    // Rows that leave different columns to their defaults are grouped: still the records in request order.
    let mixed = json!([row("A"), {"title": "B", "body": "b", "author_id": 2, "views": 9}, row("C")]).to_string();
    let (status, created) = app.send(Method::POST, "/api/posts/bulk", BOB, Some(&mixed)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let shown: Vec<(&str, i64)> = created
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["title"].as_str().unwrap(), p["views"].as_i64().unwrap()))
        .collect();
    assert_eq!(shown, [("A", 0), ("B", 9), ("C", 0)]);
    assert!(inserts(&statements).len() <= 2);

    // One more row than a statement binds parameters for: two INSERTs, not one per row.
    let columns = sql[0].split_once('(').and_then(|(_, rest)| rest.split_once(')')).unwrap().0.split(',').count();
    let per_statement = viewset_core::store::rows_per_statement(app.db.get_database_backend(), columns);
    let rows: Vec<Value> = (0..=per_statement).map(|_| json!({"title": "t", "body": "b", "author_id": 1})).collect();
    let before = posts(&app).await;
    let (status, created) = app.send(Method::POST, "/many/posts/bulk", None, Some(&json!(rows).to_string())).await;
    assert_eq!((status, created.as_array().map(Vec::len)), (StatusCode::CREATED, Some(per_statement + 1)));
    assert_eq!(inserts(&statements).len(), 2, "{} rows of {columns} columns", per_statement + 1);
    assert_eq!(posts(&app).await, before + per_statement as i64 + 1);
}

async fn invalid_rows_write_nothing((app, _): (TestApp, Statements)) {
    let before = posts(&app).await;
    let long = "x".repeat(201);
    let refused = |body: Value| (body, StatusCode::UNPROCESSABLE_ENTITY);
    let cases = [
        // Every row's validation errors, in one answer.
        refused(json!([row("ok"), row(&long), row("ok"), row(&long)])),
        // Every row's shape errors: a wrongly typed value, an unknown field, a read-only one.
        refused(
            json!([row("ok"), {"title": 5, "body": "b", "author_id": 1}, {"title": "t", "body": "b", "author_id": 1, "nope": 1}, {"title": "t", "body": "b", "author_id": 1, "id": 77}]),
        ),
        refused(json!([1, "a", null, [], row("ok")])),
        refused(json!([row("ok"), {"title": "a\u{0}b", "body": "b", "author_id": 1}])),
        refused(json!([])),
    ];
    let expected = [
        vec![json!(["body", "1", "title"]), json!(["body", "3", "title"])],
        vec![json!(["body", "1", "title"]), json!(["body", "2", "nope"]), json!(["body", "3", "id"])],
        vec![json!(["body", "0"]), json!(["body", "1"]), json!(["body", "2"]), json!(["body", "3"])],
        vec![json!(["body", "1", "title"])],
        vec![json!(["body"])],
    ];
    for ((body, status), expected) in cases.into_iter().zip(expected) {
        let (got, answer) = app.send(Method::POST, "/api/posts/bulk", BOB, Some(&body.to_string())).await;
        assert_eq!(got, status, "{body}: {answer}");
        let found = locs(&answer);
        for loc in &expected {
            assert!(
                found.iter().any(|f| f.as_array().unwrap().starts_with(loc.as_array().unwrap())),
                "{loc} in {answer}"
            );
        }
        assert_eq!(posts(&app).await, before, "{body}: nothing written");
    }
    // NUL, and an empty array, have their own types.
    let nul = json!([row("ok"), {"title": "a\u{0}b", "body": "b", "author_id": 1}]).to_string();
    let (_, answer) = app.send(Method::POST, "/api/posts/bulk", BOB, Some(&nul)).await;
    assert_eq!(answer["detail"][0]["type"], "string_nul", "{answer}");
    let (_, answer) = app.send(Method::POST, "/api/posts/bulk", BOB, Some("[ ]")).await;
    assert_eq!(answer["detail"][0]["type"], "too_short", "{answer}");
    // Malformed JSON, and more rows than `max_bulk` (the limit named).
    let (status, answer) = app.send(Method::POST, "/api/posts/bulk", BOB, Some(r#"[{"title": "#)).await;
    assert_eq!(
        (status, answer["detail"][0]["type"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("json_invalid"))
    );
    let four = json!([row("1"), row("2"), row("3"), row("4")]).to_string();
    let (status, answer) = app.send(Method::POST, "/small/posts/bulk", None, Some(&four)).await;
    assert_eq!((status, answer["detail"][0]["type"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("too_long")));
    assert!(answer["detail"][0]["msg"].as_str().unwrap().contains("At most 3"), "{answer}");
    // A row the database refuses (an author that does not exist): the single create's answer, nothing written.
    let orphan = json!([row("ok"), {"title": "t", "body": "b", "author_id": 999}]).to_string();
    let (status, answer) = app.send(Method::POST, "/api/posts/bulk", BOB, Some(&orphan)).await;
    let (single, _) = app.send(Method::POST, "/api/posts/", BOB, Some(&orphan_single())).await;
    assert_eq!(status, single, "{answer}");
    assert_ne!(status, StatusCode::INTERNAL_SERVER_ERROR, "{answer}");
    assert_eq!(posts(&app).await, before, "nothing written");
}

fn orphan_single() -> String {
    json!({"title": "t", "body": "b", "author_id": 999}).to_string()
}

async fn who_may_write((app, _): (TestApp, Statements)) {
    let before = posts(&app).await;
    let body = json!([row("a"), row("b")]).to_string();
    // Anonymous callers (a forged token is anonymous) are refused as a single create refuses them.
    for token in [None, FORGED] {
        let (single, _) = app.send(Method::POST, "/api/posts/", token, Some(&row("one").to_string())).await;
        let (status, answer) = app.send(Method::POST, "/api/posts/bulk", token, Some(&body)).await;
        assert!(status.is_client_error() && status == single, "{status} {answer}");
    }
    // A caller who may only read.
    let (status, answer) = app.send(Method::POST, "/reader/posts/bulk", BOB, Some(&body)).await;
    assert_eq!((status, answer["code"].as_str()), (StatusCode::FORBIDDEN, Some("permission_denied")));
    assert_eq!(posts(&app).await, before, "nothing written");
    // Writers.
    for token in [BOB, ALICE] {
        let (status, answer) = app.send(Method::POST, "/api/posts/bulk", token, Some(&body)).await;
        assert_eq!(status, StatusCode::CREATED, "{answer}");
    }
    assert_eq!(posts(&app).await, before + 4);
    // A single create is one object: an array there names the bulk route (nothing written).
    let (status, answer) = app.send(Method::POST, "/api/posts/", BOB, Some(&body)).await;
    assert_eq!((status, answer["detail"][0]["type"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("model_type")));
    assert!(answer["detail"][0]["msg"].as_str().unwrap().contains("POST /api/posts/bulk"), "{answer}");
    // A bulk create is an array: an object there is refused.
    let (status, answer) = app.send(Method::POST, "/api/posts/bulk", BOB, Some(&row("one").to_string())).await;
    assert_eq!((status, answer["detail"][0]["type"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("list_type")));
    assert_eq!(posts(&app).await, before + 4);
    // Without `bulk`, an array is no body of a create, and there is no bulk route.
    let authors = json!([{"name": "N", "email": "n@example.com"}]).to_string();
    let (status, answer) = app.send(Method::POST, "/authors/", ALICE, Some(&authors)).await;
    assert_eq!((status, answer["detail"][0]["type"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("model_type")));
    assert!(answer["detail"][0]["msg"].as_str().unwrap().contains("one record per request"), "{answer}");
    let (status, answer) = app.send(Method::POST, "/authors/bulk", ALICE, Some(&authors)).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{answer}");
    let (status, _) = app.send(Method::DELETE, "/authors/?id__in=1", ALICE, None).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    // Without the route, `bulk` is a record's key like any other (the authors' are integers).
    let (status, answer) = app.send(Method::DELETE, "/authors/bulk?id__in=1", ALICE, None).await;
    assert_eq!((status, answer["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_id")), "{answer}");
}

/// Sends a bulk create as Bob with `Prefer` and `Idempotency-Key`: status, headers, body bytes.
async fn post_raw(
    app: &TestApp,
    body: &str,
    prefer: Option<&str>,
    key: Option<&str>,
) -> (StatusCode, reqwest::header::HeaderMap, Vec<u8>) {
    let answer = writes::write(app, Method::POST, "/api/posts/bulk", BOB, key.map(str::as_bytes), prefer, body).await;
    (answer.status, answer.headers, answer.body)
}

async fn minimal_idempotent_and_evented((app, _): (TestApp, Statements)) {
    let before = posts(&app).await;
    let body = json!([row("m1"), row("m2")]).to_string();
    let (status, headers, bytes) = post_raw(&app, &body, Some("return=minimal"), None).await;
    assert_eq!((status, bytes.len()), (StatusCode::CREATED, 0));
    assert_eq!(headers["preference-applied"], "return=minimal");
    assert!(headers.get("content-type").is_none() && headers.get("location").is_none());
    assert_eq!(posts(&app).await, before + 2);

    // The same key twice: one write, the stored answer replayed; the key with another body is refused.
    let (first, _, stored) = post_raw(&app, &body, None, Some("bulk-key-1")).await;
    let (again, headers, replayed) = post_raw(&app, &body, None, Some("bulk-key-1")).await;
    assert_eq!((first, again), (StatusCode::CREATED, StatusCode::CREATED));
    assert_eq!(headers["idempotent-replayed"], "true");
    assert_eq!(stored, replayed);
    assert_eq!(posts(&app).await, before + 4);
    let other = json!([row("other")]).to_string();
    let (status, _, _) = post_raw(&app, &other, None, Some("bulk-key-1")).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(posts(&app).await, before + 4);

    // One `created` event per row, in request order.
    let mut stream = SseClient::connect(&app, "/api/posts/stream", BOB, None).await;
    assert_eq!(stream.next(WAIT).await.expect("ready").event, "ready");
    let (status, created) =
        app.send(Method::POST, "/api/posts/bulk", BOB, Some(&json!([row("e1"), row("e2")]).to_string())).await;
    assert_eq!(status, StatusCode::CREATED);
    for record in created.as_array().unwrap() {
        let frame = stream.next(WAIT).await.expect("an event per row");
        assert_eq!(frame.event, "created", "{frame:?}");
        assert_eq!(frame.data["pk"], record["id"], "{frame:?}");
    }
}
