//! `GET /studio/metrics` over HTTP: the snapshot's shape read from the process's registry (shared by every test of
//! this binary, so counts are compared as "at least"; `studio_ui_runtime_browser.rs` checks exact figures against a
//! process of its own), and the 409 `metrics_unavailable` of a Studio without `Studio::metrics`.

use reqwest::StatusCode;
use serde_json::Value;
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::studio_fixtures::{TOKEN, code, json, request, sqlite_app, with_auth};

/// `operation`'s entry in a snapshot.
fn operation<'a>(snapshot: &'a Value, operation: &str) -> &'a Value {
    let operations = snapshot["operations"].as_array().expect("operations");
    operations.iter().find(|o| o["operation"] == operation).unwrap_or_else(|| panic!("{operation} in {snapshot}"))
}

#[tokio::test]
async fn the_snapshot_holds_the_registrys_series() {
    let app = sqlite_app(with_auth()).await;
    let before = json(&app, "/studio/metrics").await;
    assert_eq!(app.get("/api/posts/").await.0, StatusCode::OK);
    let after = json(&app, "/studio/metrics").await;
    assert!(after["at"].as_f64() >= before["at"].as_f64(), "{before}\n{after}");
    let bounds = after["bounds"].as_array().expect("bounds");
    assert_eq!((bounds.first(), bounds.last()), (Some(&Value::from(0.0005)), Some(&Value::from(10.0))));
    let list = operation(&after, "posts_list");
    let buckets = list["buckets"].as_array().expect("buckets");
    assert_eq!(buckets.len(), bounds.len() + 1, "a count per bound and +Inf: {list}");
    assert_eq!(buckets.last(), Some(&list["count"]), "+Inf holds every observation: {list}");
    let count = |snapshot: &Value| operation(snapshot, "posts_list")["count"].as_f64().expect("a count");
    assert!(count(&after) >= count(&before) + 1.0, "the list is counted: {before}\n{after}");
    assert!(list["statuses"]["2xx"].as_f64() >= Some(1.0), "{list}");
    let pools = after["pools"].as_array().expect("pools");
    assert_eq!(pools.len(), 1, "the primary only: {pools:?}");
    assert_eq!(pools[0]["role"], "primary");
    assert!(pools[0]["idle"].as_f64().unwrap() + pools[0]["in_use"].as_f64().unwrap() >= 1.0, "{pools:?}");
    for key in ["subscribers", "shared_views", "published", "delivered"] {
        assert!(after["events"][key].is_number(), "{key}: {after}");
    }
    // The blog's bus is in process: no outbox, nothing waiting (the series is there, at 0).
    assert_eq!(after["outbox_backlog"], Value::from(0.0), "{after}");
}

#[tokio::test]
async fn without_studio_metrics_it_says_what_to_register() {
    let (database, db) = TestDb::seeded_blog(Backend::Sqlite).await;
    let router = blog::mount_studio(blog::app(db.clone()), db.clone(), with_auth()).expect("valid settings");
    let app = TestApp::serve(router, db, database).await;
    let (status, body) = request(&app, "/studio/metrics", Some(TOKEN), None, None).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(code(&body), "metrics_unavailable");
    assert!(body.contains("Studio::metrics"), "{body}");
    let handshake = json(&app, "/studio/handshake").await;
    assert_eq!(handshake["metadata"]["metrics_feature"], true);
    assert_eq!(handshake["metadata"]["metrics_registered"], false);
    // Staff only, like every /studio/ path.
    assert_eq!(request(&app, "/studio/metrics", None, None, None).await.0, StatusCode::UNAUTHORIZED);
}
