//! A list parameter both allowlists name (the router's `get_filter_fields()` and `filterable_fields` under
//! `ServiceFilterBackend`) is one condition in the SQL, not the same condition twice, and still filters and still
//! refuses a bad value; a ViewSet without `ServiceFilterBackend` still filters through the router. On SQLite and
//! PostgreSQL.

use reqwest::{Method, StatusCode};
use serde_json::Value;
use viewset_tests::harness::{Backend, Statements, TestApp, TestDb, recording};
use viewset_tests::identities::blog::BOB;
use viewset_tests::on_every_database;

async fn recorded_blog(backend: Backend) -> (TestApp, Statements) {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let (recorded, statements) = recording(&db);
    (TestApp::serve(blog::app(recorded), db, database).await, statements)
}

on_every_database!(recorded_blog => each_filter_is_one_condition);

/// The answer at `path` and every statement it ran.
async fn get(app: &TestApp, statements: &Statements, path: &str) -> (StatusCode, Value, Vec<String>) {
    statements.lock().unwrap().clear();
    let (status, body) = app.send(Method::GET, path, BOB, None).await;
    // MariaDB quotes names with backticks: one spelling for the assertions.
    let sql = statements.lock().unwrap().iter().map(|s| s.replace('`', "\"")).collect();
    (status, body, sql)
}

async fn each_filter_is_one_condition((app, statements): (TestApp, Statements)) {
    let (status, body, sql) = get(&app, &statements, "/api/posts/?published=true&author_id=1&views__gte=0").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let results = body["results"].as_array().expect("results");
    assert!(!results.is_empty(), "{body}");
    for post in results {
        assert_eq!((&post["published"], &post["author_id"]), (&Value::Bool(true), &Value::from(1)), "{post}");
    }
    assert_eq!(body["count"].as_u64(), Some(results.len() as u64), "{body}");
    assert_eq!(sql.len(), 2, "the count and the page: {sql:?}");
    for statement in &sql {
        for column in ["published", "author_id", "views"] {
            let conditions = statement.matches(&format!(r#""posts"."{column}""#)).count();
            // The page also selects each column once; the count's inner select does too.
            assert_eq!(conditions, 2, "{column} once in the WHERE clause of {statement}");
        }
    }
    // A value neither reading accepts is still refused, at the parameter.
    let (status, body, _) = get(&app, &statements, "/api/posts/?published=maybe").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["detail"][0]["loc"], serde_json::json!(["query", "published"]), "{body}");
    // Authors have no filter backend: the router's exact match filters alone.
    let (status, body, sql) = get(&app, &statements, "/authors/?name=Alan%20Turing").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let names: Vec<&Value> = body["results"].as_array().expect("results").iter().map(|a| &a["name"]).collect();
    assert_eq!(names, ["Alan Turing"], "{body}");
    assert!(sql.iter().any(|s| s.contains(r#""authors"."name" ="#)), "{sql:?}");
}
