//! `?count=exact|estimated|none` over HTTP on SQLite, PostgreSQL and MariaDB: the default envelope is unchanged,
//! `none` skips the count (a page number past the end is then an empty page, not 404), `estimated` is the planner's
//! estimate on a large PostgreSQL or MariaDB table (filtered too) and exact elsewhere, and bad values are 422s; a
//! ViewSet's `count_mode = "none"` is its default, said in the envelope, and `?count=` still overrides it.

use reqwest::StatusCode;
use sea_orm::{ConnectionTrait, DbBackend};
use serde_json::{Value, json};
use viewset_tests::harness::{TestApp, ids};
use viewset_tests::on_every_database;

on_every_database!(TestApp::blog => limit_offset_modes, a_large_table_is_estimated);
on_every_database!(TestApp::seeded_query_app => page_numbers_without_a_count, a_viewset_default_count_mode);

fn keys(body: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = body.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    keys
}

async fn limit_offset_modes(app: TestApp) {
    let (status, default) = app.get("/api/posts/").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(keys(&default), ["count", "limit", "offset", "results"], "the spec's envelope: {default}");
    assert_eq!(default["count"], 3);
    for (mode, count) in [("exact", json!(3)), ("none", Value::Null), ("estimated", json!(3))] {
        let (status, page) = app.get(&format!("/api/posts/?count={mode}")).await;
        assert_eq!(status, StatusCode::OK, "{page}");
        // A small table is counted exactly even when an estimate is asked for.
        let reported = if mode == "estimated" { "exact" } else { mode };
        assert_eq!((&page["count"], page["count_mode"].as_str()), (&count, Some(reported)), "count={mode}");
        assert_eq!(ids(&page), ids(&default));
    }
    for bad in ["fast", "", "EXACT"] {
        let (status, body) = app.get(&format!("/api/posts/?count={bad}")).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "count={bad}: {body}");
        assert_eq!(body["detail"][0]["loc"], json!(["query", "count"]));
        assert_eq!(body["detail"][0]["type"], "invalid_choice");
    }
    let (status, body) = app.get("/api/posts/?count=none&count=exact").await;
    assert_eq!(
        (status, body["detail"][0]["type"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("duplicate_parameter"))
    );
    let (_, document) = app.get("/openapi.json").await;
    let params = document["paths"]["/api/posts/"]["get"]["parameters"].as_array().unwrap();
    let count = params.iter().find(|p| p["name"] == "count").expect("documented");
    assert_eq!(count["schema"]["enum"], json!(["exact", "estimated", "none"]));
}

async fn a_large_table_is_estimated(app: TestApp) {
    let rows = "WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 20000) \
        SELECT 'bulk ' || n, 'b', false, n % 100, 1, (SELECT created_at FROM posts LIMIT 1) FROM g";
    let into = "INSERT INTO posts (title, body, published, views, author_id, created_at)";
    // MariaDB counts with its sequence engine (a recursive `WITH` stops at `max_recursive_iterations`, 1000 on
    // Debian); PostgreSQL and SQLite write the `WITH` before `INSERT INTO`.
    let (insert, analyze) = match app.db.get_database_backend() {
        DbBackend::MySql => {
            let select = rows.split_at(rows.find(" SELECT 'bulk").expect("the select")).1;
            let select = select.replace(" FROM g", " FROM (SELECT seq AS n FROM seq_1_to_20000) AS g");
            (format!("{into}{select}"), "ANALYZE TABLE posts")
        }
        _ => {
            let (with, select) = rows.split_at(rows.find(" SELECT 'bulk").expect("the select"));
            (format!("{with} {into}{select}"), "ANALYZE posts")
        }
    };
    app.db.execute_unprepared(&insert).await.expect("20,000 rows");
    app.db.execute_unprepared(analyze).await.expect("fresh statistics");
    let (status, page) = app.get("/api/posts/?count=estimated&limit=5").await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let count = page["count"].as_u64().unwrap();
    match app.db.get_database_backend() {
        DbBackend::Postgres => {
            assert_eq!(page["count_mode"], "estimated");
            assert!((18_000..=22_000).contains(&count), "the planner's estimate of 20,003 rows: {count}");
        }
        // InnoDB's statistics sample pages: a rougher estimate than PostgreSQL's.
        DbBackend::MySql => {
            assert_eq!(page["count_mode"], "estimated");
            assert!((14_000..=26_000).contains(&count), "InnoDB's estimate of 20,003 rows: {count}");
        }
        _ => assert_eq!((page["count_mode"].as_str(), count), (Some("exact"), 20_003), "no estimate on SQLite"),
    }
    assert_eq!(page["results"].as_array().unwrap().len(), 5);
    let (_, exact) = app.get("/api/posts/?count=exact&limit=5").await;
    assert_eq!(exact["count"], 20_003);
    // A filter, with a bound value: every added row is unpublished.
    let (status, page) = app.get("/api/posts/?count=estimated&limit=5&published=false").await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let count = page["count"].as_u64().unwrap();
    if app.db.get_database_backend() == DbBackend::Sqlite {
        assert_eq!((page["count_mode"].as_str(), count), (Some("exact"), 20_001));
    } else {
        assert_eq!(page["count_mode"], "estimated", "{page}");
        assert!((14_000..=26_000).contains(&count), "about 20,001 unpublished rows: {count}");
    }
    // A small filtered set is counted exactly where the planner sees it is small. InnoDB estimates an indexed
    // equality by the index's average rows per value (20,003 rows / 2 authors), whatever the value.
    let (_, page) = app.get("/api/posts/?count=estimated&limit=5&author_id=2").await;
    let counted = (page["count_mode"].as_str(), page["count"].as_u64().unwrap());
    match app.db.get_database_backend() {
        DbBackend::MySql if counted.0 == Some("estimated") => {
            assert!((8_000..=12_000).contains(&counted.1), "{page}")
        }
        _ => assert_eq!(counted, (Some("exact"), 2), "{page}"),
    }
}

async fn page_numbers_without_a_count(app: TestApp) {
    let (status, body) = app.get("/paged/posts/?page=99").await;
    assert_eq!(status, StatusCode::NOT_FOUND, "past the last page with a count: {body}");
    let (status, page) = app.get("/paged/posts/?page=99&count=none").await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(
        (&page["count"], &page["total_pages"], &page["count_mode"]),
        (&Value::Null, &Value::Null, &json!("none"))
    );
    assert_eq!(page["results"], json!([]));
    let (_, first) = app.get("/paged/posts/?count=none&page_size=10").await;
    assert_eq!(first["results"].as_array().unwrap().len(), 3);
    let (_, counted) = app.get("/paged/posts/?page_size=10").await;
    assert!(counted.get("count_mode").is_none(), "{counted}");
    assert_eq!((&counted["count"], &counted["total_pages"]), (&json!(3), &json!(1)));
}

async fn a_viewset_default_count_mode(app: TestApp) {
    let (status, page) = app.get("/uncounted/posts/").await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(keys(&page), ["count", "count_mode", "limit", "offset", "results"], "{page}");
    assert_eq!((&page["count"], &page["count_mode"]), (&Value::Null, &json!("none")), "the ViewSet's default");
    assert_eq!(page["results"].as_array().unwrap().len(), 3);
    for (mode, count) in [("exact", json!(3)), ("estimated", json!(3)), ("none", Value::Null)] {
        let (status, page) = app.get(&format!("/uncounted/posts/?count={mode}")).await;
        assert_eq!(status, StatusCode::OK, "{page}");
        let reported = if mode == "estimated" { "exact" } else { mode };
        assert_eq!((&page["count"], page["count_mode"].as_str()), (&count, Some(reported)), "count={mode}");
    }
    let (status, body) = app.get("/uncounted/posts/?count=fast").await;
    assert_eq!((status, &body["detail"][0]["loc"]), (StatusCode::UNPROCESSABLE_ENTITY, &json!(["query", "count"])));
    let (_, document) = app.get("/openapi.json").await;
    let params = document["paths"]["/api/posts/"]["get"]["parameters"].as_array().unwrap();
    let count = params.iter().find(|p| p["name"] == "count").expect("documented");
    assert_eq!(count["schema"]["default"], "exact", "the blog keeps the spec's default");
}
