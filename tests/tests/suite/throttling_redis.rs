//! Rate limits in Redis: two instances enforce one limit together, and a Redis that stops and starts again is
//! met as configured (fail open: admitted and counted; fail closed: 503 `throttle_unavailable`), never with a
//! hang. The shared limit uses the Redis at `VIEWSET_TEST_REDIS_URL` (default `redis://127.0.0.1:6379`); the
//! outage starts a private `redis-server` on another port. `VIEWSET_REQUIRE_REDIS=1` makes a missing Redis fail.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::Value;
use viewset_core::ServiceState;
use viewset_core::throttle::{OnStoreError, Throttle};
use viewset_tests::every_database::skip_unless_required;
use viewset_tests::harness::{Backend, TestApp, TestDb};

fn redis_url() -> Option<String> {
    let url = std::env::var("VIEWSET_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let reachable = redis::Client::open(url.as_str()).and_then(|c| c.get_connection()).is_ok();
    if !reachable {
        skip_unless_required("VIEWSET_REQUIRE_REDIS", &format!("Redis is not reachable at {url}"));
        return None;
    }
    Some(url)
}

async fn instance(throttle: Throttle) -> TestApp {
    let (database, db) = TestDb::seeded_blog(Backend::Sqlite).await;
    TestApp::serve(blog::app_with_state(ServiceState::new(db.clone()).with_throttle(throttle)), db, database).await
}

async fn status(app: &TestApp) -> (StatusCode, Value) {
    app.get("/api/posts/").await
}

/// A namespace no other run shares (keys of an earlier run live until their window ends).
fn namespace(test: &str) -> String {
    format!("test-{test}-{}-{}", std::process::id(), chrono::Utc::now().timestamp_micros())
}

#[tokio::test]
async fn two_instances_sharing_redis_enforce_one_limit() {
    let Some(url) = redis_url() else { return };
    let ns = namespace("shared");
    let throttle = || Throttle::new().anon("3/minute".parse().unwrap()).redis(&url).unwrap().namespace(&ns);
    let (a, b) = (instance(throttle()).await, instance(throttle()).await);
    for app in [&a, &b, &a] {
        assert_eq!(status(app).await.0, StatusCode::OK);
    }
    let (code, body) = status(&b).await;
    assert_eq!(
        (code, body["code"].as_str(), body["scope"].as_str()),
        (StatusCode::TOO_MANY_REQUESTS, Some("throttled"), Some("anon"))
    );
    assert_eq!(status(&a).await.0, StatusCode::TOO_MANY_REQUESTS, "the other instance agrees");
    let other = instance(Throttle::new().anon("3/minute".parse().unwrap()).redis(&url).unwrap().namespace("x")).await;
    assert_eq!(status(&other).await.0, StatusCode::OK, "another namespace counts apart");
}

/// A private Redis on `port`, killed when dropped.
struct PrivateRedis(Child);

impl PrivateRedis {
    fn start(port: u16) -> PrivateRedis {
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--save", "", "--appendonly", "no", "--bind", "127.0.0.1"])
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server (Debian's redis-server package) runs");
        let url = format!("redis://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(10);
        while redis::Client::open(url.as_str()).and_then(|c| c.get_connection()).is_err() {
            assert!(Instant::now() < deadline, "the private redis-server did not start on {port}");
            std::thread::sleep(Duration::from_millis(50));
        }
        PrivateRedis(child)
    }
}

impl Drop for PrivateRedis {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

#[tokio::test]
async fn a_stopped_redis_fails_open_or_closed_as_configured_and_counts_again_once_back() {
    if redis_url().is_none() {
        return;
    }
    let port = free_port();
    let url = format!("redis://127.0.0.1:{port}");
    let redis = PrivateRedis::start(port);
    let ns = namespace("outage");
    let throttle = |on_error| {
        Throttle::new().anon("2/minute".parse().unwrap()).redis(&url).unwrap().namespace(&ns).on_store_error(on_error)
    };
    let open_throttle = throttle(OnStoreError::FailOpen);
    let open = instance(open_throttle.clone()).await;
    let closed = instance(throttle(OnStoreError::FailClosed)).await;
    assert_eq!(status(&open).await.0, StatusCode::OK);
    assert_eq!(status(&closed).await.0, StatusCode::OK);
    assert_eq!(status(&open).await.0, StatusCode::TOO_MANY_REQUESTS, "one budget of 2 across both");

    drop(redis);
    for _ in 0..3 {
        let started = Instant::now();
        assert_eq!(status(&open).await.0, StatusCode::OK, "fail open: admitted");
        let (code, body) = status(&closed).await;
        assert_eq!((code, body["code"].as_str()), (StatusCode::SERVICE_UNAVAILABLE, Some("throttle_unavailable")));
        assert!(started.elapsed() < Duration::from_secs(2), "answered at once: {:?}", started.elapsed());
    }
    assert!(open_throttle.store_errors() >= 3, "counted: {}", open_throttle.store_errors());

    let _redis = PrivateRedis::start(port);
    // The restarted Redis is empty: a fresh budget of 2, then refusals again; the connection is remade.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if status(&closed).await.0 == StatusCode::OK {
            break;
        }
        assert!(Instant::now() < deadline, "the throttle did not reconnect to the restarted Redis");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(status(&open).await.0, StatusCode::OK);
    assert_eq!(status(&open).await.0, StatusCode::TOO_MANY_REQUESTS, "counting again");
}
