//! `FullTextSearchFilter` (`?q=`) over HTTP on SQLite (the blog's FTS5 table, kept in sync by triggers),
//! PostgreSQL (`websearch_to_tsquery`) and MariaDB (`MATCH … AGAINST` in boolean mode on the blog's `FULLTEXT`
//! index; without the index, a 422 in `tests/mariadb.rs`): words, phrases, `or`, exclusion, ranking (best match first unless the client
//! orders), writes showing in the next search, and hostile input answered with 200 or a 422, never a 500.

use reqwest::{Method, StatusCode};
use sea_orm::DbBackend;
use serde_json::json;
use viewset_tests::harness::TestApp;
use viewset_tests::on_every_database;

on_every_database!(TestApp::blog => finds_words_phrases_and_alternatives, ranks_unless_ordered, hostile_queries_are_answered);

const BOB: Option<&str> = Some("bob-token");

/// The post ids `?q=...&rest` finds, in order, and the count.
async fn search(app: &TestApp, q: &str, rest: &str) -> (Vec<i64>, i64) {
    let path = format!("/api/posts/?q={}&{rest}", urlencoding(q));
    let (status, body) = app.send(Method::GET, &path, None, None).await;
    assert_eq!(status, StatusCode::OK, "{path}: {body}");
    let ids = body["results"].as_array().expect("results").iter().map(|p| p["id"].as_i64().unwrap()).collect();
    (ids, body["count"].as_i64().expect("count"))
}

fn urlencoding(text: &str) -> String {
    text.bytes()
        .map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

async fn create(app: &TestApp, title: &str, body: &str) -> i64 {
    let new = json!({"title": title, "body": body, "author_id": 1}).to_string();
    let (status, created) = app.send(Method::POST, "/api/posts/", BOB, Some(&new)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created["id"].as_i64().unwrap()
}

async fn finds_words_phrases_and_alternatives(app: TestApp) {
    assert_eq!(search(&app, "engine", "").await, (vec![1], 1));
    if app.db.get_database_backend() == DbBackend::MySql {
        // InnoDB folds case as the columns' collation does: the test databases' `utf8mb4_bin` keeps it.
        assert_eq!(search(&app, "engine WEAVES", "").await, (vec![], 0), "case kept under utf8mb4_bin");
        assert_eq!(search(&app, "Analytical weaves", "").await, (vec![1], 1), "every word, as written");
    } else {
        assert_eq!(search(&app, "Engine WEAVES", "").await, (vec![1], 1), "every word, any case");
    }
    assert_eq!(search(&app, "machines think", "").await, (vec![2], 1));
    assert_eq!(search(&app, "\"decision problems\"", "").await, (vec![3], 1), "a phrase");
    assert_eq!(search(&app, "\"problems decision\"", "").await, (vec![], 0), "a phrase keeps its order");
    assert_eq!(search(&app, "engine or think", "ordering=id").await, (vec![1, 2], 2));
    assert_eq!(search(&app, "machines -think", "").await, (vec![], 0), "an excluded word");
    assert_eq!(search(&app, "unicorn", "").await, (vec![], 0));
    // A stopword is no condition on PostgreSQL and MariaDB (not indexed there); on SQLite post 1 holds "the".
    assert_eq!(search(&app, "the engine", "").await, (vec![1], 1));
    assert_eq!(search(&app, "\"the engine\"", "").await, (vec![1], 1), "a stopword in a phrase");
    // Other filters still apply; an empty `q` is no search.
    assert_eq!(search(&app, "engine or think", "views__gte=200").await, (vec![2], 1));
    assert_eq!(search(&app, "  ", "ordering=id").await.1, 3);
    // A write shows in the next search (SQLite: the FTS5 triggers; PostgreSQL: the document is computed; MariaDB:
    // the index, at commit).
    let id = create(&app, "Quaternions", "A fourth dimension of numbers.").await;
    assert_eq!(search(&app, "Quaternions", "").await, (vec![id], 1));
    let patch = r#"{"title": "Octonions"}"#;
    let (status, body) = app.send(Method::PATCH, &format!("/api/posts/{id}"), BOB, Some(patch)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(search(&app, "Quaternions", "").await, (vec![], 0));
    assert_eq!(search(&app, "Octonions", "").await, (vec![id], 1));
    let (status, _) = app.send(Method::DELETE, &format!("/api/posts/{id}"), BOB, None).await;
    assert!(status.is_success(), "{status}");
    assert_eq!(search(&app, "Octonions", "").await, (vec![], 0));
}

async fn ranks_unless_ordered(app: TestApp) {
    let once = create(&app, "Lattices", "One note on a sieve.").await;
    let often = create(&app, "Sieve", "The sieve of a sieve, and a sieve again.").await;
    assert_eq!(search(&app, "sieve", "").await.0, vec![often, once], "best match first");
    assert_eq!(search(&app, "sieve", "ordering=id").await.0, vec![once, often], "the client's ordering wins");
    assert_eq!(search(&app, "sieve", "limit=1&offset=1").await, (vec![once], 2));
}

async fn hostile_queries_are_answered(app: TestApp) {
    // FTS5 and tsquery syntax from the client is only text: no 500, whatever it is.
    for q in [
        "\"unclosed",
        "title:engine",
        "NEAR(a b)",
        "a AND OR NOT b",
        "*",
        "^x",
        "-",
        "\"\"",
        "(",
        "'",
        "é ü 日本",
        "or or",
    ] {
        let path = format!("/api/posts/?q={}", urlencoding(q));
        let (status, body) = app.send(Method::GET, &path, None, None).await;
        assert_eq!(status, StatusCode::OK, "q={q}: {body}");
    }
    for (q, kind) in [("a\0b", "value_error"), (&"x".repeat(1_001)[..], "string_too_long")] {
        let path = format!("/api/posts/?q={}", urlencoding(q));
        let (status, body) = app.send(Method::GET, &path, None, None).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(
            (&body["detail"][0]["loc"], &body["detail"][0]["type"]),
            (&json!(["query", "q"]), &json!(kind)),
            "{body}"
        );
    }
    let (status, body) = app.send(Method::GET, "/api/posts/?q=a&q=b", None, None).await;
    assert_eq!((status, &body["detail"][0]["type"]), (StatusCode::UNPROCESSABLE_ENTITY, &json!("duplicate_parameter")));
}
