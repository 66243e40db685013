//! Load shedding (`Limits::max_in_flight`, `Limits::max_streams`): beyond the bound a request is answered at once
//! with a JSON 503 `overloaded` naming the limit and `Retry-After`, instead of waiting for its timeout; places are
//! given back when a response starts or a stream's client goes away. Streams on SQLite and PostgreSQL.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::get;
use reqwest::StatusCode;
use serde_json::Value;
use tokio::sync::Semaphore;
use viewset_core::ServiceState;
use viewset_core::limits::Limits;
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::on_every_database;

async fn serve(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    tokio::spawn(async move { axum::serve(listener, router).await.expect("serve") });
    base
}

/// Asserts `response` is the shed answer for `limit`, with `Retry-After`.
async fn assert_shed(response: reqwest::Response, limit: &str) {
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(response.headers()["retry-after"], "1");
    let body: Value = response.json().await.expect("a JSON body");
    assert_eq!((body["code"].as_str(), body["limit"].as_str()), (Some("overloaded"), Some(limit)), "{body}");
}

#[tokio::test]
async fn requests_beyond_max_in_flight_are_shed_at_once() {
    let gate = Arc::new(Semaphore::new(0));
    let inside = Arc::new(AtomicUsize::new(0));
    let (hold_gate, hold_inside) = (gate.clone(), inside.clone());
    let hold = move || {
        let (gate, inside) = (hold_gate.clone(), hold_inside.clone());
        async move {
            inside.fetch_add(1, Ordering::SeqCst);
            let _released = gate.acquire().await.expect("open gate");
            "held"
        }
    };
    let router = Router::new().route("/hold", get(hold)).route("/fast", get(|| async { "fast" }));
    let base = serve(Limits::default().with_max_in_flight(Some(2)).apply(router)).await;
    let client = reqwest::Client::new();
    let held: Vec<_> = (0..2).map(|_| tokio::spawn(client.get(format!("{base}/hold")).send())).collect();
    while inside.load(Ordering::SeqCst) < 2 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let started = Instant::now();
    assert_shed(client.get(format!("{base}/fast")).send().await.expect("request"), "max_in_flight").await;
    assert!(started.elapsed() < Duration::from_secs(1), "shed at once, not queued: {:?}", started.elapsed());
    gate.add_permits(2);
    for request in held {
        let response = request.await.expect("task").expect("request");
        assert_eq!((response.status(), response.text().await.unwrap()), (StatusCode::OK, "held".to_string()));
    }
    // The places are back: requests one after another are never shed.
    for _ in 0..5 {
        assert_eq!(client.get(format!("{base}/fast")).send().await.expect("request").status(), StatusCode::OK);
    }
}

async fn blog_with_one_stream(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let limits = Limits::default().with_max_streams(Some(1));
    let router = blog::routes_from(blog::api(), ServiceState::new(db.clone()));
    TestApp::serve(router.layer(limits.layer()), db, database).await
}

on_every_database!(blog_with_one_stream => a_stream_beyond_max_streams_is_shed_until_one_closes);

async fn a_stream_beyond_max_streams_is_shed_until_one_closes(app: TestApp) {
    let url = format!("{}/api/posts/stream", app.base);
    let mut first = app.client().get(&url).send().await.expect("first stream");
    assert_eq!(first.status(), StatusCode::OK);
    let ready = first.chunk().await.expect("a frame").expect("the ready event");
    assert!(String::from_utf8_lossy(&ready).contains("ready"), "{ready:?}");
    assert_shed(app.client().get(&url).send().await.expect("second stream"), "max_streams").await;
    // Lists are not streams: they are not shed while the stream is open.
    assert_eq!(app.client().get(format!("{}/api/posts/", app.base)).send().await.unwrap().status(), StatusCode::OK);
    drop(first);
    // The subscriber ends when its client goes away, and its place is free again.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let again = app.client().get(&url).send().await.expect("another stream");
        if again.status() == StatusCode::OK {
            break;
        }
        assert!(Instant::now() < deadline, "the closed stream's place was not given back");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
