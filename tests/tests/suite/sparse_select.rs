//! `?fields=` and hidden fields narrow the list's `SELECT`: a column the response leaves out is not read (a typed
//! constant stands in for it), while the primary key, the ordering's columns and the columns embedded relations start
//! from still are; every answer equals the whole record cut to the named fields. On SQLite and PostgreSQL.

use reqwest::{Method, StatusCode};
use serde_json::Value;
use viewset_tests::harness::{Backend, Statements, TestApp, TestDb, recording};
use viewset_tests::identities::blog::{ALICE, BOB};
use viewset_tests::on_every_database;

async fn recorded_blog(backend: Backend) -> (TestApp, Statements) {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let (recorded, statements) = recording(&db);
    (TestApp::serve(blog::app(recorded), db, database).await, statements)
}

on_every_database!(recorded_blog => reads_only_the_columns_the_answer_needs);

/// The list at `path` and the SQL of its page (the statement reading the table's rows, not the count).
async fn list(app: &TestApp, statements: &Statements, path: &str, token: Option<&str>) -> (Vec<Value>, String) {
    statements.lock().unwrap().clear();
    let (status, body) = app.send(Method::GET, path, token, None).await;
    assert_eq!(status, StatusCode::OK, "{path}: {body}");
    let sql = statements.lock().unwrap().iter().find(|s| !s.contains("COUNT")).cloned().unwrap_or_default();
    // MariaDB quotes names with backticks: one spelling for the assertions.
    let sql = sql.replace('`', "\"");
    (body["results"].as_array().expect("results").clone(), sql)
}

/// `record` with only `fields`.
fn cut(record: &Value, fields: &[&str]) -> Value {
    let map = record.as_object().unwrap().iter().filter(|(k, _)| fields.contains(&k.as_str()));
    Value::Object(map.map(|(k, v)| (k.clone(), v.clone())).collect())
}

async fn reads_only_the_columns_the_answer_needs((app, statements): (TestApp, Statements)) {
    let (whole, sql) = list(&app, &statements, "/api/posts/?ordering=id", BOB).await;
    assert!(sql.contains(r#""posts"."body""#), "{sql}");
    for (fields, read, unread) in [
        ("id,title", &["id", "title"][..], &["body", "views", "rating", "created_at"][..]),
        // Every column type of the post stands in: text, integer, boolean, a nullable float, a timestamp.
        ("id", &["id"], &["title", "body", "published", "views", "rating", "author_id", "created_at"]),
        ("rating,created_at", &["rating", "created_at", "id"], &["title", "body"]),
    ] {
        let names: Vec<&str> = fields.split(',').collect();
        let (records, sql) = list(&app, &statements, &format!("/api/posts/?ordering=id&fields={fields}"), BOB).await;
        let expected: Vec<Value> = whole.iter().map(|r| cut(r, &names)).collect();
        assert_eq!(records, expected, "fields={fields}");
        for column in read {
            assert!(sql.contains(&format!(r#""posts"."{column}""#)), "fields={fields} reads {column}: {sql}");
        }
        for column in unread {
            assert!(!sql.contains(&format!(r#""posts"."{column}""#)), "fields={fields} reads {column}: {sql}");
        }
    }
    // The ordering's column and the embedded relation's key are read even when the answer leaves them out.
    let (records, sql) = list(&app, &statements, "/api/posts/?ordering=-views&fields=id&expand=author", BOB).await;
    let ids: Vec<&Value> = records.iter().map(|r| &r["id"]).collect();
    assert_eq!(ids, [2, 1, 3], "by views, descending");
    assert_eq!(records[0]["author"]["name"], "Alan Turing");
    assert!(sql.contains(r#""posts"."views""#) && sql.contains(r#""posts"."author_id""#), "{sql}");
    assert!(!sql.contains(r#""posts"."body""#), "{sql}");
    // A hidden field is never read: authors' email for bob, not for alice (staff).
    let (records, sql) = list(&app, &statements, "/authors/?ordering=id", BOB).await;
    assert!(!sql.contains(r#""authors"."email""#) && records[0].get("email").is_none(), "{sql}");
    let (records, sql) = list(&app, &statements, "/authors/?ordering=id", ALICE).await;
    assert!(sql.contains(r#""authors"."email""#) && records[0]["email"] == "ada@example.com", "{sql}");
}
