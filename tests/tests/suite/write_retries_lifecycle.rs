//! Idempotency records over their life, over HTTP on SQLite and PostgreSQL: what the document says of `Prefer` and
//! `Idempotency-Key`, the state's retention, a 5xx or a panic releasing a claimed key, and a database without the
//! idempotency table (a 503 saying so, nothing written). The request-level behaviour is `write_retries.rs`.

use reqwest::{Method, StatusCode};
use sea_orm::{ConnectionTrait, Statement};
use serde_json::Value;
use viewset_core::prelude::*;
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::on_every_database;

use crate::support::writes;
use writes::{count, posts_titled, records, write};

const BOB: Option<&str> = Some("bob-token");

on_every_database!(TestApp::blog => the_document_describes_prefer_and_idempotency_keys);

async fn the_document_describes_prefer_and_idempotency_keys(app: TestApp) {
    let (status, document) = app.get("/openapi.json").await;
    assert_eq!(status, StatusCode::OK);
    let headers_of = |operation: &Value| -> Vec<String> {
        let parameters = operation["parameters"].as_array().expect("parameters");
        parameters.iter().filter(|p| p["in"] == "header").map(|p| p["name"].as_str().unwrap().to_string()).collect()
    };
    let create = &document["paths"]["/api/posts/"]["post"];
    let update = &document["paths"]["/api/posts/{pk}"]["patch"];
    for operation in [create, update] {
        let headers = headers_of(operation);
        assert!(headers.contains(&"Prefer".into()) && headers.contains(&"Idempotency-Key".into()), "{headers:?}");
        for code in ["409", "422", "400"] {
            let description = operation["responses"][code]["description"].as_str().expect("documented");
            assert!(description.contains("Idempotency-Key"), "{code}: {description}");
        }
    }
    let created = &create["responses"]["201"];
    assert!(created["headers"]["Location"].is_object() && created["headers"]["Idempotent-Replayed"].is_object());
    let minimal = &update["responses"]["204"];
    assert!(minimal["content"].is_null(), "a 204 has no body: {minimal}");
    assert!(minimal["headers"]["Location"].is_object() && minimal["headers"]["ETag"].is_object());
    assert!(update["responses"]["200"]["content"]["application/json"].is_object());
    // Other operations take neither header.
    let list = &document["paths"]["/api/posts/"]["get"];
    assert!(!headers_of(list).iter().any(|h| h == "Prefer" || h == "Idempotency-Key"));
}

async fn blog_keeping_answers_a_second(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let state = ServiceState::new(db.clone()).with_idempotency_retention(std::time::Duration::from_secs(1));
    TestApp::serve(blog::app_from(blog::api(), state), db, database).await
}

on_every_database!(blog_keeping_answers_a_second => the_retention_is_the_states);

async fn the_retention_is_the_states(app: TestApp) {
    let new = r#"{"title": "Brief", "body": "b", "author_id": 1}"#;
    let first = write(&app, Method::POST, "/api/posts/", BOB, Some(b"brief"), None, new).await;
    let again = write(&app, Method::POST, "/api/posts/", BOB, Some(b"brief"), None, new).await;
    assert_eq!((first.status, again.replayed()), (StatusCode::CREATED, true));
    let expires_at = count(&app, "SELECT expires_at FROM viewset_idempotency").await;
    let now = chrono::Utc::now().timestamp_millis();
    assert!((0..=1_000).contains(&(expires_at - now)), "expires in {} ms", expires_at - now);
    tokio::time::sleep(std::time::Duration::from_millis(1_100)).await;
    let later = write(&app, Method::POST, "/api/posts/", BOB, Some(b"brief"), None, new).await;
    assert_eq!((later.status, later.replayed()), (StatusCode::CREATED, false));
    assert_eq!(posts_titled(&app, "Brief").await, 2);
}

/// The blog's posts with a create that fails when asked to (`x-fail: 503` answers 503 before writing, `x-fail:
/// panic` panics after writing nothing), and otherwise creates as by default.
#[derive(ModelViewSet)]
#[viewset(model = blog::entities::post::Entity, prefix = "/api/flaky", basename = "flaky", custom_hooks)]
pub struct FlakyPosts;

impl Hooks for FlakyPosts {
    async fn create(data: Self::Create, request: RequestContext) -> Result<axum::response::Response, ApiError> {
        match request.headers.get("x-fail").map(|v| v.as_bytes()) {
            Some(b"503") => Err(ApiError::DatabaseUnavailable),
            Some(b"panic") => panic!("a create that panics (on purpose)"),
            _ => viewset_core::viewset::handlers::create::<Self>(data, request).await,
        }
    }
}

async fn blog_with_flaky_posts(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let mut api = blog::api();
    api.include::<FlakyPosts>().expect("FlakyPosts registers");
    TestApp::serve(blog::app_from(api, ServiceState::new(db.clone())), db, database).await
}

on_every_database!(blog_with_flaky_posts => a_5xx_or_a_panic_releases_the_key);

async fn a_5xx_or_a_panic_releases_the_key(app: TestApp) {
    let new = r#"{"title": "Flaky", "body": "b", "author_id": 1}"#;
    let send = |fail: &'static str, key: &'static str| {
        app.client()
            .post(format!("{}/api/flaky/", app.base))
            .bearer_auth("bob-token")
            .header("content-type", "application/json")
            .header("idempotency-key", key)
            .header("x-fail", fail)
            .body(new)
            .send()
    };
    let unavailable = send("503", "flaky-1").await.expect("an answer");
    assert_eq!(unavailable.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(records(&app).await, 0, "a 5xx keeps no record");
    let retried = write(&app, Method::POST, "/api/flaky/", BOB, Some(b"flaky-1"), None, new).await;
    assert_eq!((retried.status, retried.replayed()), (StatusCode::CREATED, false));

    // A panic ends the connection without an answer; the key is released all the same.
    assert!(send("panic", "flaky-2").await.is_err(), "a panicking handler gives no answer");
    let mut released = false;
    for _ in 0..50 {
        if count(&app, "SELECT COUNT(*) FROM viewset_idempotency WHERE idempotency_key = 'flaky-2'").await == 0 {
            released = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(released, "the panicked request's claim is released");
    let retried = write(&app, Method::POST, "/api/flaky/", BOB, Some(b"flaky-2"), None, new).await;
    assert_eq!((retried.status, retried.replayed()), (StatusCode::CREATED, false));
    assert_eq!(posts_titled(&app, "Flaky").await, 2);
}

on_every_database!(TestApp::blog => without_the_table_a_key_is_refused_and_nothing_written);

async fn without_the_table_a_key_is_refused_and_nothing_written(app: TestApp) {
    let drop = Statement::from_string(app.db.get_database_backend(), "DROP TABLE viewset_idempotency");
    app.db.execute_raw(drop).await.expect("the table is dropped");
    let new = r#"{"title": "Tableless", "body": "b", "author_id": 1}"#;
    let refused = write(&app, Method::POST, "/api/posts/", BOB, Some(b"no-table"), None, new).await;
    assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(refused.code().as_deref(), Some("idempotency_unavailable"));
    assert!(refused.json()["detail"].as_str().unwrap().contains("idempotency::Migration"), "{:?}", refused.json());
    assert_eq!(posts_titled(&app, "Tableless").await, 0, "nothing was written");
    let without_key = write(&app, Method::POST, "/api/posts/", BOB, None, None, new).await;
    assert_eq!(without_key.status, StatusCode::CREATED, "the same write without the key is served");
}
