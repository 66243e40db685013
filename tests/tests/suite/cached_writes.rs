//! PATCH and create send statements built once per set of columns (`store::statements`): whatever order the sets of
//! columns come in, each write is one statement and stores exactly what was sent (and a `null` as well as a value),
//! and the other columns keep their values. The three backends' tests share one process, so one backend's statement
//! is never sent to another. On SQLite, PostgreSQL and MariaDB (a create one `INSERT … RETURNING`; a PATCH one
//! `UPDATE` between reads, as MariaDB has no `UPDATE … RETURNING`).

use reqwest::{Method, StatusCode};
use sea_orm::DbBackend;
use serde_json::{Value, json};
use viewset_core::prelude::*;
use viewset_tests::harness::{Backend, Statements, TestApp, TestDb, recording};
use viewset_tests::on_every_database;

use blog::entities::post;

#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/written/posts")]
struct WrittenPosts;

async fn recorded(backend: Backend) -> (TestApp, Statements) {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let (recorded, statements) = recording(&db);
    let router = include_viewset::<WrittenPosts, _>(axum::Router::new());
    let app = router.with_state(ServiceState::new(recorded));
    (TestApp::serve(app, db, database).await, statements)
}

on_every_database!(recorded => patches_of_any_columns_write_what_was_sent, creates_of_any_columns_store_what_was_sent);

/// Sends a request; its status, body and the statements it ran.
async fn send(
    app: &TestApp,
    statements: &Statements,
    method: Method,
    path: &str,
    body: &Value,
) -> (StatusCode, Value, Vec<String>) {
    statements.lock().unwrap().clear();
    let (status, json) = app.send(method, path, None, Some(&body.to_string())).await;
    (status, json, statements.lock().unwrap().clone())
}

async fn patches_of_any_columns_write_what_was_sent((app, statements): (TestApp, Statements)) {
    let (_, mut expected) = app.send(Method::GET, "/written/posts/1", None, None).await;
    let bodies = [
        json!({"views": 11}),
        json!({"title": "A"}),
        json!({"views": 12, "title": "B"}),
        json!({"rating": null}),
        json!({"rating": 2.5, "views": 13}),
        json!({"views": 14}),
        json!({"rating": null, "views": 15}),
        json!({"title": "C"}),
        json!({"rating": 4.0, "published": false}),
        json!({"views": 16, "title": "D"}),
    ];
    for body in bodies {
        for (field, value) in body.as_object().unwrap() {
            expected[field] = value.clone();
        }
        let (status, answer, sql) = send(&app, &statements, Method::PATCH, "/written/posts/1", &body).await;
        assert_eq!(status, StatusCode::OK, "{body}: {answer}");
        if app.db.get_database_backend() == DbBackend::MySql {
            // No `UPDATE … RETURNING`: the record is read, written by one `UPDATE`, and read again.
            assert_eq!(sql.iter().filter(|s| s.starts_with("UPDATE")).count(), 1, "{body}: {sql:?}");
            assert!(sql.iter().all(|s| s.starts_with("UPDATE") || s.starts_with("SELECT")), "{body}: {sql:?}");
        } else {
            assert_eq!(sql.len(), 1, "{body}: {sql:?}");
            assert!(sql[0].starts_with("UPDATE"), "{body}: {sql:?}");
        }
        assert_eq!(answer, expected, "the answer to {body}");
        let (_, stored) = app.send(Method::GET, "/written/posts/1", None, None).await;
        assert_eq!(stored, expected, "the record after {body}");
    }
    // The other records were not written.
    let (_, other) = app.send(Method::GET, "/written/posts/2", None, None).await;
    assert_ne!(other["title"], "D", "{other}");
}

async fn creates_of_any_columns_store_what_was_sent((app, statements): (TestApp, Statements)) {
    let bodies = [
        json!({"title": "one", "body": "b", "author_id": 1}),
        json!({"title": "two", "body": "b", "author_id": 2, "rating": null, "views": 3}),
        json!({"title": "three", "body": "b", "author_id": 1, "rating": 4.5}),
        json!({"title": "four", "body": "c", "author_id": 2}),
        json!({"title": "five", "body": "b", "author_id": 1, "rating": 1.5, "published": true, "views": 9}),
        json!({"title": "six", "body": "d", "author_id": 1, "rating": null}),
    ];
    for body in bodies {
        let (status, answer, sql) = send(&app, &statements, Method::POST, "/written/posts/", &body).await;
        assert_eq!(status, StatusCode::CREATED, "{body}: {answer}");
        assert_eq!(sql.len(), 1, "{body}: {sql:?}");
        assert!(sql[0].starts_with("INSERT"), "{body}: {sql:?}");
        for (field, value) in body.as_object().unwrap() {
            assert_eq!(&answer[field], value, "{field} of {body}: {answer}");
        }
        let defaults = [("views", json!(0)), ("published", json!(false)), ("rating", Value::Null)];
        for (field, default) in defaults {
            if body.get(field).is_none() {
                assert_eq!(answer[field], default, "{field} of {body}: {answer}");
            }
        }
        let id = answer["id"].as_i64().expect("an id");
        let (_, stored) = app.send(Method::GET, &format!("/written/posts/{id}"), None, None).await;
        assert_eq!(stored, answer, "the stored record of {body}");
    }
}
