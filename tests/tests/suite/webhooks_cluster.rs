//! Webhooks from three blog processes on one PostgreSQL database (#72, goal 4), on the outbox and on JetStream:
//! each posts to `SERVICE_WEBHOOK_URL`, a receiver verifying with the official `standardwebhooks` library. The
//! first instance holds the feed's lease; it is `SIGKILL`ed while writes go on through the other two, one of which
//! carries the feed on from its last delivered event. Every created post reaches the receiver, verified, in the
//! order of the cluster-wide event ids; an event sent twice (the kill may fall between the receiver's answer and
//! the feed's record of it) carries the same `webhook-id` both times.

use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

use reqwest::StatusCode;
use sea_orm_migration::{MigrationTrait, SchemaManager};
use serde_json::Value;
use viewset_tests::every_database::require_postgres;
use viewset_tests::harness::{Backend, TestDb};
use viewset_tests::identities::blog::BOB;
use viewset_tests::nats::{require_nats, stream_name};
use viewset_tests::processes::{answering, blog_instance, free_port};
use viewset_tests::webhook_receiver::Receiver;

const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const WRITES: usize = 120;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_instances_deliver_every_event_through_a_kill_on_the_outbox() {
    three_instances(("postgres", "")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_instances_deliver_every_event_through_a_kill_over_nats() {
    let Some(url) = require_nats() else { return };
    three_instances((&url, &stream_name("webhooks"))).await;
}

async fn three_instances(bus: (&str, &str)) {
    if require_postgres().is_none() {
        return;
    }
    let Some(receiver) = Receiver::start(&[SECRET]).await else { return };
    let database = TestDb::create(Backend::Postgres).await;
    let db = blog::connect_and_migrate(&database.url).await.expect("migrate");
    blog::seed::seed_if_empty(&db).await.expect("seed");
    viewset_core::webhooks::Migration.up(&SchemaManager::new(&db)).await.expect("the webhook tables");
    let settings = [
        ("SERVICE_WEBHOOK_URL", receiver.url.as_str()),
        ("SERVICE_WEBHOOK_SECRET", SECRET),
        ("SERVICE_WEBHOOK_ALLOW_PRIVATE", "1"),
        ("SERVICE_WEBHOOK_LEASE_MS", "1500"),
    ];
    let binary = env!("CARGO_BIN_EXE_blog_instance");
    let client = reqwest::Client::new();
    let ports = [free_port(), free_port(), free_port()];
    let mut instances = Vec::new();
    // The first takes the lease as it starts; the others find it held.
    for port in ports {
        instances.push(Some(blog_instance(binary, &database.url, port, bus, &settings)));
        answering(&client, &format!("http://127.0.0.1:{port}/api/posts/?limit=1")).await;
    }
    let mut created = HashSet::new();
    let mut holder = None;
    for i in 0..WRITES {
        if i == WRITES / 3 {
            holder = Some(lease_holder(&db).await);
            instances[0].take().expect("alive");
        }
        let port = ports[if i < WRITES / 3 { i % 3 } else { 1 + i % 2 }];
        created.insert(create(&client, port, i).await);
    }
    let delivered = |received: &[Value]| -> HashSet<i64> {
        received.iter().filter_map(|r| r["payload"]["data"]["pk"].as_i64()).collect()
    };
    let received = receiver.wait_until(Duration::from_secs(30), |r| delivered(r).is_superset(&created)).await;
    let got = delivered(&received);
    let missing: Vec<&i64> = created.difference(&got).collect();
    assert!(missing.is_empty(), "posts never delivered: {missing:?} ({} deliveries)", received.len());
    assert!(received.iter().all(|r| r["verified"] == true), "every delivery verified");
    // One webhook-id per record (a duplicate repeats it), the first sightings in the order of the events.
    let mut ids: BTreeMap<i64, &str> = BTreeMap::new();
    let mut first_seen: Vec<u64> = Vec::new();
    for delivery in &received {
        let (pk, id) = (delivery["payload"]["data"]["pk"].as_i64().expect("pk"), delivery["id"].as_str().expect("id"));
        assert_eq!(*ids.entry(pk).or_insert(id), id, "post {pk} sent under two ids");
        let n: u64 = id.parse().expect("a cluster-wide id");
        if !first_seen.contains(&n) {
            first_seen.push(n);
        }
    }
    assert!(first_seen.windows(2).all(|w| w[0] < w[1]), "in the order of the events: {first_seen:?}");
    assert_ne!(Some(lease_holder(&db).await), holder, "another instance carries the feed on after the kill");
    drop(instances);
}

/// The instance holding the blog's feed (the first one to start, until it is killed).
async fn lease_holder(db: &sea_orm::DatabaseConnection) -> String {
    use sea_orm::ConnectionTrait;
    let statement = sea_orm::Statement::from_string(
        sea_orm::DbBackend::Postgres,
        "SELECT leased_by FROM viewset_webhook_feeds WHERE feed = 'blog/posts'",
    );
    let row = db.query_one_raw(statement).await.expect("the feed's row").expect("a feed");
    row.try_get("", "leased_by").expect("leased_by")
}

/// Post `i`, created as Bob through the instance on `port`: its id.
async fn create(client: &reqwest::Client, port: u16, i: usize) -> i64 {
    let body = format!(r#"{{"title": "Hooked {i}", "body": "b", "author_id": 1}}"#);
    let sent = client.post(format!("http://127.0.0.1:{port}/api/posts/")).bearer_auth(BOB.expect("a token"));
    let response = sent.header("content-type", "application/json").body(body).send().await.expect("a create");
    let status = response.status();
    let answer: Value = response.json().await.expect("JSON");
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    answer["id"].as_i64().expect("id")
}
