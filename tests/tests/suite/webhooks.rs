//! Webhooks (#72, goal 2) against a real receiver: `tests/webhooks/receiver.py` verifies every delivery with the
//! official Standard Webhooks library (`standardwebhooks` from PyPI) and answers as each test scripts it. The
//! endpoint runs as acme's Bob over the tenants example: globex's projects never reach it. Retries (500 then 200,
//! 429 with `Retry-After`), a refusal dead-lettered then replayed, reserved addresses refused after resolution, a
//! stopped instance's feed carried on by another, on SQLite, PostgreSQL and MariaDB.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use sea_orm_migration::{MigrationTrait, SchemaManager};
use serde_json::{Value, json};
use viewset_core::ServiceState;
use viewset_core::access::Principal;
use viewset_core::webhooks::{self as hooks, Endpoint, Retry, Secret, StoredEndpoint, WebhookError, Webhooks};
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::identities::tenants::{BOB, CAROL};
use viewset_tests::on_every_database;
use viewset_tests::webhook_receiver::Receiver;

on_every_database!(Hooked::new =>
    delivered_signed_in_order_as_the_principal,
    failures_are_retried_then_dead_lettered_and_replayed,
    reserved_addresses_are_refused,
    a_stopped_instance_is_carried_on_by_another,
    stored_endpoints_start_beside_those_in_code,
    a_slow_receiver_times_out_and_is_tried_again,
);

/// The tenants example served with a bearer layer, and the same routes (the same state, so the same bus) without
/// it, for the webhooks.
struct Hooked {
    app: TestApp,
    routes: axum::Router,
}

impl Hooked {
    async fn new(backend: Backend) -> Hooked {
        let database = TestDb::create(backend).await;
        let db = tenants::connect_and_migrate(&database.url).await.expect("migrate the tenants example");
        viewset_core::webhooks::Migration.up(&SchemaManager::new(&db)).await.expect("the webhook tables");
        let state = ServiceState::new(db.clone());
        let served = tenants::api().into_router().with_state(state.clone()).layer(tenants::auth::layer());
        let routes = tenants::api().into_router().with_state(state);
        Hooked { app: TestApp::serve(served, db, database).await, routes }
    }

    fn webhooks(&self) -> Webhooks {
        Webhooks::new(&tenants::api(), self.app.db.clone()).lease(Duration::from_millis(600))
    }

    async fn project(&self, token: Option<&str>, name: &str) -> Value {
        let body = json!({"name": name, "code": name}).to_string();
        let (status, created) = self.app.send(Method::POST, "/api/projects/", token, Some(&body)).await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        created
    }
}

fn endpoint(name: &str, url: &str, secret: &Secret) -> Endpoint {
    Endpoint::new(name, url, secret.as_str())
        .expect("endpoint")
        .viewset("projects")
        .run_as(Principal::user("bob").with_tenant("acme"))
        .allow_private_addresses()
}

const WAIT: Duration = Duration::from_secs(10);

async fn delivered_signed_in_order_as_the_principal(hooked: Hooked) {
    let secret = Secret::generate();
    let Some(receiver) = Receiver::start(&[secret.as_str()]).await else { return };
    // A principal the stream refuses (anonymous: projects need an identity) fails at start, not later.
    let anonymous = endpoint("anon", &receiver.url, &secret).run_as(Principal::anonymous());
    let refused = hooked.webhooks().endpoint(anonymous).expect("configured").start(hooked.routes.clone()).await;
    assert!(matches!(&refused, Err(WebhookError::Config(why)) if why.contains("401") || why.contains("403")));
    let bad_filter = endpoint("filtered", &receiver.url, &secret).filter("nosuch=1");
    let refused = hooked.webhooks().endpoint(bad_filter).expect("configured").start(hooked.routes.clone()).await;
    assert!(matches!(&refused, Err(WebhookError::Config(why)) if why.contains("422")), "{:?}", refused.err());
    assert!(hooked.webhooks().endpoint(endpoint("x", &receiver.url, &secret).viewset("nosuch")).is_err());

    let running = hooked.webhooks().endpoint(endpoint("bob", &receiver.url, &secret)).expect("ok");
    let running = running.start(hooked.routes.clone()).await.expect("started");
    let first = hooked.project(BOB, "rocket").await;
    hooked.project(CAROL, "anvil").await;
    let second = hooked.project(BOB, "sled").await;
    let (status, _) = hooked.app.send(Method::DELETE, &format!("/api/projects/{}", first["id"]), BOB, None).await;
    assert!(status.is_success(), "{status}");
    let received = receiver.wait_for(3, WAIT).await;
    assert!(received.iter().all(|r| r["verified"] == true), "{received:?}");
    let kinds: Vec<(&str, &Value)> =
        received.iter().map(|r| (r["payload"]["type"].as_str().unwrap_or(""), &r["payload"]["data"]["pk"])).collect();
    assert_eq!(
        kinds,
        [("projects.created", &first["id"]), ("projects.created", &second["id"]), ("projects.deleted", &first["id"])],
        "globex's project is not Bob's to see: {received:?}"
    );
    assert_eq!(received[1]["payload"]["data"]["record"]["name"], "sled");
    let ids: std::collections::HashSet<&str> = received.iter().filter_map(|r| r["id"].as_str()).collect();
    assert_eq!(ids.len(), 3, "one webhook-id per event");
    // The log's row of an attempt is written once its answer is in: the receiver may count it first.
    let deadline = Instant::now() + WAIT;
    let attempts = loop {
        let attempts = running.attempts("bob", 10).await.expect("log");
        if attempts.len() >= 3 || Instant::now() > deadline {
            break attempts;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(attempts.len(), 3, "{attempts:?}");
    assert!(attempts.iter().all(|a| a.status == Some(200) && a.attempt == 1), "{attempts:?}");
    running.stop().await;
}

/// The process-wide `viewset_webhook_attempts_total{outcome}` counts (other tests deliver meanwhile: compared by
/// difference, at least what this test caused).
fn attempts(db: &sea_orm::DatabaseConnection) -> [f64; 3] {
    let text = viewset_core::metrics::render(&ServiceState::new(db.clone()));
    ["delivered", "failed", "dead_lettered"].map(|outcome| {
        let series = format!("viewset_webhook_attempts_total{{outcome=\"{outcome}\"}} ");
        text.lines().find_map(|line| line.strip_prefix(&series)?.parse().ok()).expect("the series")
    })
}

async fn failures_are_retried_then_dead_lettered_and_replayed(hooked: Hooked) {
    let before = attempts(&hooked.app.db);
    let secret = Secret::generate();
    let Some(receiver) = Receiver::start(&[secret.as_str()]).await else { return };
    receiver.script(json!([[500, {}, 0], [429, {"Retry-After": "1"}, 0], [200, {}, 0], [400, {}, 0]])).await;
    let quick = Retry::new(vec![Duration::from_millis(100), Duration::from_millis(100)]);
    let running = hooked.webhooks().endpoint(endpoint("bob", &receiver.url, &secret).retry(quick)).expect("ok");
    let running = running.start(hooked.routes.clone()).await.expect("started");
    let retried = hooked.project(BOB, "retried").await;
    let received = receiver.wait_for(3, WAIT).await;
    let statuses: Vec<&Value> = received.iter().map(|r| &r["status"]).collect();
    assert_eq!(statuses, [&json!(500), &json!(429), &json!(200)]);
    assert!(received.iter().all(|r| r["id"] == received[0]["id"]), "the same webhook-id each time");
    let waited = received[2]["at"].as_f64().unwrap_or(0.0) - received[1]["at"].as_f64().unwrap_or(0.0);
    assert!(waited >= 0.9, "Retry-After: 1 honoured, waited {waited}s");
    assert_eq!(received[2]["payload"]["data"]["pk"], retried["id"]);
    // A 400 is not retried: dead-lettered, the next event still delivered; a replay delivers it once more.
    let refused = hooked.project(BOB, "refused").await;
    hooked.project(BOB, "after").await;
    let received = receiver.wait_for(5, WAIT).await;
    assert_eq!(received.len(), 5, "{received:?}");
    assert_eq!((&received[3]["status"], &received[4]["status"]), (&json!(400), &json!(200)));
    let dead = running.dead_letters("bob").await.expect("dead letters");
    assert_eq!(dead.len(), 1, "{dead:?}");
    assert_eq!((dead[0].status, dead[0].payload.contains("refused")), (Some(400), true));
    let replayed = running.replay("bob", &dead[0].event_id).await.expect("replayed");
    assert_eq!(replayed.status, Some(200));
    let received = receiver.wait_for(6, WAIT).await;
    assert_eq!(
        (received[5]["id"].as_str(), received[5]["verified"].as_bool()),
        (Some(dead[0].event_id.as_str()), Some(true))
    );
    assert_eq!(received[5]["payload"]["data"]["pk"], refused["id"]);
    assert!(running.dead_letters("bob").await.expect("dead letters").is_empty());
    assert!(matches!(running.replay("bob", "nosuch").await, Err(WebhookError::NotFound(_))));
    running.stop().await;
    // Delivered: the 200 after two retries, and the event after the refusal; failed and retried: the 500 and the
    // 429; dead-lettered: the 400.
    let after = attempts(&hooked.app.db);
    let caused: Vec<f64> = after.iter().zip(before).map(|(after, before)| after - before).collect();
    assert!(caused[0] >= 2.0 && caused[1] >= 2.0 && caused[2] >= 1.0, "delivered, failed, dead-lettered: {caused:?}");
}

async fn reserved_addresses_are_refused(hooked: Hooked) {
    let secret = Secret::generate();
    let Some(receiver) = Receiver::start(&[secret.as_str()]).await else { return };
    let port = receiver.url.trim_start_matches("http://127.0.0.1:");
    let no_retry = Retry::new(Vec::new());
    let metadata = Endpoint::new("metadata", "http://169.254.169.254/latest/meta-data", secret.as_str()).expect("ok");
    // `localhost` resolves to 127.0.0.1: refused after resolution, though the URL names no address.
    let by_name = Endpoint::new("by-name", &format!("http://localhost:{port}"), secret.as_str()).expect("ok");
    let principal = Principal::user("bob").with_tenant("acme");
    let webhooks = hooked.webhooks();
    let webhooks = webhooks.endpoint(metadata.viewset("projects").run_as(principal.clone()).retry(no_retry.clone()));
    let webhooks = webhooks.expect("ok").endpoint(by_name.viewset("projects").run_as(principal).retry(no_retry));
    let running = webhooks.expect("ok").start(hooked.routes.clone()).await.expect("started");
    hooked.project(BOB, "secret").await;
    let deadline = Instant::now() + WAIT;
    let (metadata, by_name) = loop {
        let metadata = running.dead_letters("metadata").await.expect("dead letters");
        let by_name = running.dead_letters("by-name").await.expect("dead letters");
        if (!metadata.is_empty() && !by_name.is_empty()) || Instant::now() > deadline {
            break (metadata, by_name);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let why =
        |dead: &[viewset_core::webhooks::DeadLetter]| dead.first().and_then(|d| d.error.clone()).unwrap_or_default();
    assert!(why(&metadata).contains("169.254.169.254") && why(&metadata).contains("refused"), "{metadata:?}");
    assert!(why(&by_name).contains("refused"), "{by_name:?}");
    assert!(receiver.received().await.is_empty(), "nothing reached the receiver");
    running.stop().await;
}

async fn a_stopped_instance_is_carried_on_by_another(hooked: Hooked) {
    let secret = Secret::generate();
    let Some(receiver) = Receiver::start(&[secret.as_str()]).await else { return };
    let start = || async {
        let webhooks = hooked.webhooks().endpoint(endpoint("bob", &receiver.url, &secret)).expect("ok");
        webhooks.start(hooked.routes.clone()).await.expect("started")
    };
    let first = start().await;
    let second = start().await;
    hooked.project(BOB, "one").await;
    assert_eq!(receiver.wait_for(1, WAIT).await.len(), 1);
    tokio::time::sleep(Duration::from_millis(500)).await;
    // Killed (not stopped): its lease is not given back, the other takes the feed when it expires.
    drop(first);
    hooked.project(BOB, "two").await;
    hooked.project(BOB, "three").await;
    let received = receiver.wait_for(3, WAIT).await;
    let names: Vec<&Value> = received.iter().map(|r| &r["payload"]["data"]["record"]["name"]).collect();
    assert_eq!(names, [&json!("one"), &json!("two"), &json!("three")], "each once, in order");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(receiver.received().await.len(), 3, "no event twice");
    second.stop().await;
}

async fn stored_endpoints_start_beside_those_in_code(hooked: Hooked) {
    let (secret, rotated) = (Secret::generate(), Secret::generate());
    // The receiver knows only the new secret: the stored endpoint signs with both while it rotates.
    let Some(receiver) = Receiver::start(&[rotated.as_str()]).await else { return };
    let db = &hooked.app.db;
    let mut stored = StoredEndpoint::new("stored", &receiver.url, secret.as_str());
    stored.secrets.push(rotated.as_str().to_owned());
    stored.viewsets.push("projects".into());
    stored.events = vec!["created".into()];
    stored.run_as = Principal::user("bob").with_tenant("acme");
    stored.allow_private_addresses = true;
    hooks::save_endpoint(db, &stored).await.expect("saved");
    let mut disabled = StoredEndpoint::new("disabled", &receiver.url, secret.as_str());
    disabled.viewsets.push("projects".into());
    disabled.enabled = false;
    hooks::save_endpoint(db, &disabled).await.expect("saved");
    // What does not define an endpoint is refused before it is stored.
    let mut broken = StoredEndpoint::new("broken", "ftp://nowhere", secret.as_str());
    broken.viewsets.push("projects".into());
    assert!(matches!(hooks::save_endpoint(db, &broken).await, Err(WebhookError::Config(_))));
    let names: Vec<String> = hooks::stored_endpoints(db).await.expect("read").into_iter().map(|e| e.name).collect();
    assert_eq!(names, ["disabled", "stored"]);
    assert_eq!(hooks::stored_endpoints(db).await.expect("read")[1], stored, "read back as saved");

    let running = hooked.webhooks().with_stored().await.expect("stored endpoints").start(hooked.routes.clone());
    let running = running.await.expect("started");
    assert_eq!(running.feeds().keys().copied().collect::<Vec<_>>(), ["stored"], "the disabled one is not started");
    let project = hooked.project(BOB, "kept").await;
    hooked.app.send(Method::DELETE, &format!("/api/projects/{}", project["id"]), BOB, None).await;
    hooked.project(BOB, "second").await;
    let received = receiver.wait_for(2, WAIT).await;
    let names: Vec<&Value> = received.iter().map(|r| &r["payload"]["data"]["record"]["name"]).collect();
    assert_eq!(names, [&json!("kept"), &json!("second")], "created events only: {received:?}");
    assert!(received.iter().all(|r| r["verified"] == true), "verified with the rotated secret alone");
    assert!(hooks::remove_endpoint(db, "stored").await.expect("removed"));
    assert!(!hooks::remove_endpoint(db, "stored").await.expect("removed once"));
    running.stop().await;
}

async fn a_slow_receiver_times_out_and_is_tried_again(hooked: Hooked) {
    let secret = Secret::generate();
    let Some(receiver) = Receiver::start(&[secret.as_str()]).await else { return };
    // The first answer comes after 3 s, past the endpoint's 1 s timeout: tried again, under the same webhook-id.
    receiver.script(json!([[200, {}, 3]])).await;
    let quick = Retry::new(vec![Duration::from_millis(100)]);
    let slow = endpoint("bob", &receiver.url, &secret).timeout(Duration::from_secs(1)).retry(quick);
    let running = hooked.webhooks().endpoint(slow).expect("ok").start(hooked.routes.clone()).await.expect("started");
    hooked.project(BOB, "patient").await;
    let received = receiver.wait_for(2, WAIT).await;
    assert_eq!(received.len(), 2, "{received:?}");
    assert_eq!(received[0]["id"], received[1]["id"]);
    let deadline = Instant::now() + WAIT;
    let attempts = loop {
        let attempts = running.attempts("bob", 10).await.expect("log");
        if attempts.len() >= 2 || Instant::now() > deadline {
            break attempts;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    // Newest first: the retry's 200, then the first attempt's timeout (about 1 s, no status).
    assert_eq!((attempts[0].attempt, attempts[0].status), (2, Some(200)), "{attempts:?}");
    assert_eq!((attempts[1].attempt, attempts[1].status), (1, None), "{attempts:?}");
    assert!(attempts[1].error.as_deref().is_some_and(|e| e.contains("no answer within")), "{attempts:?}");
    assert!((900..2500).contains(&attempts[1].latency_ms), "{attempts:?}");
    assert!(running.dead_letters("bob").await.expect("dead letters").is_empty());
    running.stop().await;
}
