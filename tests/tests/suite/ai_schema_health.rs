//! `GET /ai/schema/health` over HTTP, on SQLite, PostgreSQL and MariaDB: findings come from the database catalog (a
//! fix applied to the database clears its finding), open writes, missing tables and pending migrations are reported,
//! an aggregate's group key without an index is noted, a warning once the database's statistics say the table is
//! large, and the endpoint passes the Studio gate (`tests/ai.rs` checks every `/ai` path for that).

use reqwest::StatusCode;
use sea_orm::ConnectionTrait;
use serde_json::Value;
use viewset_core::{Api, ServiceState};
use viewset_tests::fixtures::paged::PublishedPosts;
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::on_every_database;
use viewset_tests::studio_fixtures::{TOKEN, blog_with_authed_studio, connect_quickly, with_auth};

on_every_database!(blog_with_authed_studio => catalog_findings_clear_when_fixed, group_keys_by_table_size);
on_every_database!(open_posts_on_an_empty_database => open_writes_missing_tables_and_pending_migrations);

async fn health(app: &TestApp) -> Value {
    let url = format!("{}/ai/schema/health", app.base);
    let response = app.client().get(url).header("x-studio-token", TOKEN).send().await.expect("request");
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.expect("JSON")
}

/// The finding about `subject` with `code`, if any.
fn finding<'a>(report: &'a Value, code: &str, subject: &str) -> Option<&'a Value> {
    report["findings"].as_array().unwrap().iter().find(|f| f["code"] == code && f["subject"] == subject)
}

fn subjects(report: &Value) -> Vec<String> {
    report["findings"].as_array().unwrap().iter().map(|f| f["subject"].as_str().unwrap().to_string()).collect()
}

async fn catalog_findings_clear_when_fixed(app: TestApp) {
    let report = health(&app).await;
    let backend = app.db.get_database_backend();
    let dialect = match backend {
        sea_orm::DbBackend::Postgres => "postgresql",
        sea_orm::DbBackend::MySql => "mysql",
        _ => "sqlite",
    };
    assert_eq!(report["dialect"], dialect);
    assert_eq!(report["status"], "warning", "{report:#}");
    assert_eq!(report["checked"]["viewsets"], 3);
    let views = finding(&report, "unindexed_query_field", "posts.views").expect("posts.views has no index");
    assert_eq!(views["severity"], "warning");
    assert!(views["message"].as_str().unwrap().contains("PostViewSet's filterable_fields"), "{views}");
    if dialect == "mysql" {
        assert_eq!(views["fix"], "CREATE INDEX `posts_views_idx` ON `posts` (`views`);");
    } else {
        assert_eq!(views["fix"], r#"CREATE INDEX "posts_views_idx" ON "posts" ("views");"#);
    }
    // InnoDB indexes every foreign key itself: no finding there.
    let author = finding(&report, "unindexed_foreign_key", "posts.author_id");
    if dialect == "mysql" {
        assert!(author.is_none(), "{report:#}");
    } else {
        assert!(author.unwrap()["message"].as_str().unwrap().contains("→ `authors`"), "{author:?}");
    }
    let body = finding(&report, "unindexed_search", "posts.body").expect("a search field");
    assert_eq!(body["severity"], "info");
    if dialect == "postgresql" {
        assert!(body["fix"].as_str().unwrap().contains("gin_trgm_ops"), "{body}");
    }
    // The primary key leads an index; the blog's permissions refuse anonymous writes; its migrations are applied.
    assert!(!subjects(&report).iter().any(|s| s.ends_with(".id")), "{report:#}");
    for code in ["anonymous_writes", "pending_migrations", "missing_table", "catalog_unreadable"] {
        assert!(!report["findings"].as_array().unwrap().iter().any(|f| f["code"] == code), "{code}: {report:#}");
    }
    let warnings = report["counts"]["warning"].as_u64().unwrap();

    for fix in [Some(&views["fix"]), author.map(|a| &a["fix"])].into_iter().flatten() {
        app.db.execute_unprepared(fix.as_str().unwrap()).await.expect("the fix is valid SQL");
    }
    let fixed = health(&app).await;
    assert!(finding(&fixed, "unindexed_query_field", "posts.views").is_none(), "{fixed:#}");
    assert!(finding(&fixed, "unindexed_foreign_key", "posts.author_id").is_none(), "{fixed:#}");
    // `author_id` is filterable too: the one index clears both findings.
    assert!(!subjects(&fixed).contains(&"posts.author_id".to_string()), "{fixed:#}");
    assert!(fixed["counts"]["warning"].as_u64().unwrap() < warnings);
    assert!(finding(&fixed, "unindexed_query_field", "posts.title").is_some(), "other findings stay");
}

/// A ViewSet without `permission_classes` over a database nothing was applied to, with the blog's migrations.
async fn open_posts_on_an_empty_database(backend: Backend) -> TestApp {
    let database = TestDb::create(backend).await;
    let db = connect_quickly(&database.url).await;
    let mut api = Api::new();
    api.include::<PublishedPosts>().expect("registers");
    let studio = viewset_studio::Studio::new(with_auth())
        .project("open", "0.1.0")
        .api(&api)
        .viewset::<PublishedPosts>()
        .migrations(blog::migration_graph());
    let app = api.into_router().with_state(ServiceState::new(db.clone()));
    TestApp::serve(studio.mount(app, db.clone()).expect("valid settings"), db, database).await
}

async fn open_writes_missing_tables_and_pending_migrations(app: TestApp) {
    let report = health(&app).await;
    assert_eq!(report["status"], "error", "{report:#}");
    let open = finding(&report, "anonymous_writes", "PublishedPosts").expect("anonymous callers may write");
    assert!(open["message"].as_str().unwrap().ends_with("create, update, delete"), "{open}");
    assert!(open["fix"].as_str().unwrap().contains("permission_classes"), "{open}");
    let missing = finding(&report, "missing_table", "posts").expect("no posts table");
    assert_eq!(missing["severity"], "error");
    let pending = finding(&report, "pending_migrations", "blog").expect("nothing applied");
    assert_eq!(pending["severity"], "warning");
    // A missing table has no columns to index: no index finding is made up for it.
    assert!(!report["findings"].as_array().unwrap().iter().any(|f| f["code"] == "unindexed_query_field"));
    // The findings come first by severity.
    assert_eq!(report["findings"][0]["severity"], "error");
}

/// `count` more posts in one statement, then the database's statistics gathered.
async fn grow_posts_and_analyze(app: &TestApp, count: u32) {
    let author = "(SELECT MIN(id) FROM authors)";
    let statements = match app.db.get_database_backend() {
        sea_orm::DbBackend::Postgres => vec![
            format!(
                "INSERT INTO posts (title, body, published, views, author_id, created_at) SELECT 'bulk ' || i, 'b', \
                 i % 2 = 0, i, {author}, now() FROM generate_series(1, {count}) AS i"
            ),
            "ANALYZE posts".to_string(),
        ],
        sea_orm::DbBackend::MySql => vec![
            format!(
                "INSERT INTO posts (title, body, published, views, author_id, created_at) SELECT CONCAT('bulk ', seq), \
                 'b', seq % 2 = 0, seq, {author}, NOW() FROM seq_1_to_{count}"
            ),
            "ANALYZE TABLE posts".to_string(),
        ],
        _ => vec![
            format!(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {count}) \
                 INSERT INTO posts (title, body, published, views, author_id, created_at) \
                 SELECT 'bulk ' || i, 'b', i % 2 = 0, i, {author}, '2026-01-01 00:00:00+00:00' FROM n"
            ),
            "ANALYZE".to_string(),
        ],
    };
    for sql in statements {
        app.db.execute_unprepared(&sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

async fn group_keys_by_table_size(app: TestApp) {
    let mysql = app.db.get_database_backend() == sea_orm::DbBackend::MySql;
    let report = health(&app).await;
    // Small (or not yet measured): noted, not warned about; the fix is the index.
    let published = finding(&report, "unindexed_group_by", "posts.published").expect("a group key without index");
    assert_eq!(published["severity"], "info", "{published}");
    let message = published["message"].as_str().unwrap();
    assert!(message.contains("group key of PostViewSet's aggregates"), "{message}");
    assert!(message.contains("statistics"), "the size, or that there is none: {message}");
    assert!(published["fix"].as_str().unwrap().starts_with("CREATE INDEX"), "{published}");
    let created = finding(&report, "unindexed_group_by", "posts.created_at").expect("a time bucket key");
    assert!(created["message"].as_str().unwrap().contains("created_at__month"), "{created}");
    // InnoDB indexes the foreign key; a unique email has its index; the name has none.
    assert_eq!(finding(&report, "unindexed_group_by", "posts.author_id").is_some(), !mysql, "{report:#}");
    assert!(finding(&report, "unindexed_group_by", "authors.email").is_none(), "{report:#}");
    assert!(finding(&report, "unindexed_group_by", "authors.name").is_some(), "{report:#}");
    assert!(
        !report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "unindexed_group_by" && f["severity"] != "info")
    );

    // Large by the database's own statistics: a warning, with the estimate.
    grow_posts_and_analyze(&app, 20_000).await;
    let large = health(&app).await;
    let published = finding(&large, "unindexed_group_by", "posts.published").expect("still no index");
    assert_eq!(published["severity"], "warning", "{published}");
    assert!(published["message"].as_str().unwrap().contains("rows by the database's statistics"), "{published}");
    assert_eq!(
        finding(&large, "unindexed_group_by", "authors.name").unwrap()["severity"],
        "info",
        "authors stay small"
    );
    app.db.execute_unprepared(published["fix"].as_str().unwrap()).await.expect("the fix is valid SQL");
    let fixed = health(&app).await;
    assert!(finding(&fixed, "unindexed_group_by", "posts.published").is_none(), "{fixed:#}");
    assert!(finding(&fixed, "unindexed_group_by", "posts.created_at").is_some(), "{fixed:#}");
}
