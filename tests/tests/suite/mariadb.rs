//! What only MariaDB can get wrong (issue 43): the session every connection starts with (strict `sql_mode`, UTC,
//! `utf8mb4`) whatever the server's own settings, emoji stored as sent (a NUL refused as everywhere), values the column cannot
//! hold answered 422 (never truncated, never a 500), MariaDB's error numbers as the other databases' answers, and
//! full-text search through the application's `FULLTEXT` index (a 422 `fulltext_unavailable` without it). Runs
//! when `VIEWSET_TEST_MYSQL_URL` is set (a failure without it when `VIEWSET_REQUIRE_MYSQL=1`).

use reqwest::{Method, StatusCode};
use sea_orm::Statement;
use serde_json::{Value, json};
use viewset_tests::every_database::run_on;
use viewset_tests::harness::{Backend, TestApp};
use viewset_tests::identities::blog::{ALICE, BOB};

/// The session variables of a pooled connection, read through the app's own pool.
async fn session(app: &TestApp) -> Value {
    let sql = "SELECT @@SESSION.sql_mode AS sql_mode, @@SESSION.time_zone AS time_zone, \
               @@SESSION.character_set_connection AS charset";
    let statement = Statement::from_string(app.db.get_database_backend(), sql);
    viewset_core::store::query_one::<Value>(&app.db, statement).await.expect("session").expect("a row")
}

async fn every_connection_starts_strict_in_utc_and_utf8mb4(app: TestApp) {
    // Several at once, so more than one pooled connection answers.
    let (a, b, c, d) = tokio::join!(session(&app), session(&app), session(&app), session(&app));
    for session in [a, b, c, d] {
        // The server lists the modes in its own order.
        let mut modes: Vec<&str> = session["sql_mode"].as_str().unwrap_or_default().split(',').collect();
        let mut ours: Vec<&str> = viewset_core::store::MYSQL_SQL_MODE.split(',').collect();
        modes.sort_unstable();
        ours.sort_unstable();
        assert_eq!(modes, ours, "{session}");
        assert_eq!((session["time_zone"].as_str(), session["charset"].as_str()), (Some("+00:00"), Some("utf8mb4")));
    }
}

async fn emoji_round_trips_and_nul_is_refused(app: TestApp) {
    let title = "Crabs 🦀 and sparkles ✨ — ünïcödé 日本";
    let body = json!({"title": title, "body": "🎉", "author_id": 1}).to_string();
    let (status, created) = app.send(Method::POST, "/api/posts/", BOB, Some(&body)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!((created["title"].as_str(), created["body"].as_str()), (Some(title), Some("🎉")));
    let (_, read) = app.get(&format!("/api/posts/{}", created["id"])).await;
    assert_eq!((read["title"].as_str(), read["body"].as_str()), (Some(title), Some("🎉")), "{read}");
    let (_, found) = app.get("/api/posts/?search=%F0%9F%A6%80").await;
    assert_eq!(found["count"], 1, "an emoji is searched as a character: {found}");
    // A NUL is refused before any database sees it, as on PostgreSQL (which cannot store it) and SQLite.
    let body = json!({"title": "t", "body": "a\u{0}b", "author_id": 1}).to_string();
    let (status, refused) = app.send(Method::POST, "/api/posts/", BOB, Some(&body)).await;
    assert_eq!((status, &refused["detail"][0]["type"]), (StatusCode::UNPROCESSABLE_ENTITY, &json!("string_nul")));
}

async fn values_the_column_cannot_hold_are_422(app: TestApp) {
    // `authors.name` is a `varchar(255)` the model declares no length for: only the database can refuse it.
    let long = "n".repeat(256);
    let body = json!({"name": long}).to_string();
    let (status, refused) = app.send(Method::POST, "/authors/", ALICE, Some(&body)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "never truncated: {refused}");
    assert_eq!(refused["code"], "validation_error");
    assert!(refused["errors"]["name"].is_array(), "the column is named: {refused}");
    let (status, refused) = app.send(Method::PATCH, "/authors/1", ALICE, Some(&body)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    let (_, ada) = app.send(Method::GET, "/authors/1", ALICE, None).await;
    assert_eq!(ada["name"], "Ada Lovelace", "nothing written");
    // 255 characters of four bytes each fit (characters, not bytes).
    let body = json!({"name": "🦀".repeat(255)}).to_string();
    let (status, created) = app.send(Method::POST, "/authors/", ALICE, Some(&body)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
}

async fn mariadb_errors_answer_as_the_other_databases(app: TestApp) {
    let body = json!({"name": "Other Ada", "email": "ada@example.com"}).to_string();
    let (status, duplicate) = app.send(Method::POST, "/authors/", ALICE, Some(&body)).await;
    assert_eq!((status, &duplicate["field"]), (StatusCode::CONFLICT, &json!("email")), "{duplicate}");
    let body = json!({"title": "t", "body": "b", "author_id": 999}).to_string();
    let (status, missing) = app.send(Method::POST, "/api/posts/", BOB, Some(&body)).await;
    assert_eq!((status, &missing["code"]), (StatusCode::BAD_REQUEST, &json!("foreign_key_violation")), "{missing}");
    let (status, referenced) = app.send(Method::DELETE, "/authors/1", ALICE, None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "Ada still has posts: {referenced}");
    assert_eq!(referenced["code"], "foreign_key_violation");
    let (status, created_at) = app.get("/api/posts/?created_at__gt=2100-01-01T00:00:00Z").await;
    assert_eq!((status, &created_at["count"]), (StatusCode::OK, &json!(0)), "past 2038 is a date: {created_at}");
    let (_, all) = app.get("/api/posts/?created_at__lt=9999-01-01T00:00:00Z").await;
    assert_eq!(all["count"], 3, "{all}");
}

async fn fulltext_needs_the_applications_index(app: TestApp) {
    use sea_orm::ConnectionTrait;
    let (status, found) = app.get("/api/posts/?q=engine").await;
    assert_eq!((status, &found["count"]), (StatusCode::OK, &json!(1)), "{found}");
    // Boolean-mode operators from the client are only text.
    let (status, found) = app.get("/api/posts/?q=%2Bengine%20%3Eweaves%20%28%29%20%40%27%5C").await;
    assert_eq!(status, StatusCode::OK, "{found}");
    app.db.execute_unprepared("DROP INDEX posts_fulltext ON posts").await.expect("drop the index");
    let (status, refused) = app.get("/api/posts/?q=engine").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(
        (&refused["detail"][0]["loc"], &refused["detail"][0]["type"]),
        (&json!(["query", "q"]), &json!("fulltext_unavailable")),
        "{refused}"
    );
}

macro_rules! on_mariadb {
    ($($scenario:ident),+) => {$(
        #[tokio::test]
        async fn $scenario() {
            run_on(Backend::Mysql, TestApp::blog, super::$scenario).await;
        }
    )+};
}

mod server {
    use super::*;

    on_mariadb!(
        every_connection_starts_strict_in_utc_and_utf8mb4,
        emoji_round_trips_and_nul_is_refused,
        values_the_column_cannot_hold_are_422,
        mariadb_errors_answer_as_the_other_databases,
        fulltext_needs_the_applications_index
    );
}
