//! Three blog processes (`blog_instance`, `SERVICE_EVENT_BUS=postgres`, or `nats://…` with a stream of the test's
//! own) on one PostgreSQL database behind HAProxy (Debian's package), as a deployment runs them (issue 41). 1,000 creates through the balancer while the
//! subscriber, also connected through it, is moved five times, resuming with its `Last-Event-ID`; once by
//! `SIGKILL`ing its instance right after a write committed there. It receives every event exactly once, ids one
//! after another, and never a `reset`.

use std::collections::HashSet;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use reqwest::StatusCode;
use tokio::sync::RwLock;
use viewset_tests::every_database::{require_postgres, skip_unless_required};
use viewset_tests::harness::{Backend, SseClient, TestDb, WAIT};
use viewset_tests::identities::blog::BOB;
use viewset_tests::nats::{require_nats, stream_name};
use viewset_tests::processes::{Process, answering, blog_instance, free_port};

const WRITES: usize = 1000;

/// The blog instance binary.
const BLOG: &str = env!("CARGO_BIN_EXE_blog_instance");

/// HAProxy on `port`, round robin over `backends`, each checked every 200 ms; the answer names its instance
/// (`x-instance: i<n>`); a connection refused by a dead instance is sent to another.
fn balancer(port: u16, backends: &[u16], dir: &std::path::Path) -> Process {
    let servers: String =
        backends.iter().enumerate().map(|(i, backend)| format!("  server i{i} 127.0.0.1:{backend} check\n")).collect();
    let config = format!(
        "global\n  maxconn 512\ndefaults\n  mode http\n  timeout connect 1s\n  timeout client 60s\n  timeout server 60s\n\
         \x20 timeout tunnel 60s\n  retries 3\n  option redispatch\nfrontend web\n  bind 127.0.0.1:{port}\n\
         \x20 default_backend blog\nbackend blog\n  balance roundrobin\n  option httpchk GET /api/posts/?limit=1\n\
         \x20 http-response set-header x-instance %s\n  default-server inter 200ms fall 1 rise 2\n{servers}"
    );
    let path = dir.join("haproxy.cfg");
    std::fs::write(&path, config).expect("write the HAProxy configuration");
    let child = Command::new("haproxy").arg("-db").arg("-f").arg(&path).stdout(Stdio::null()).spawn();
    Process(child.expect("start haproxy"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_subscriber_behind_a_balancer_survives_moves_and_a_killed_instance() {
    behind_a_balancer(("postgres", "")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_subscriber_behind_a_balancer_survives_moves_and_a_killed_instance_over_nats() {
    let Some(url) = require_nats() else { return };
    behind_a_balancer((&url, &stream_name("balancer"))).await;
}

async fn behind_a_balancer(bus: (&str, &str)) {
    if require_postgres().is_none() {
        return;
    }
    if Command::new("haproxy").arg("-v").output().is_err() {
        return skip_unless_required("VIEWSET_REQUIRE_PG", "haproxy is not installed (apt-get install haproxy)");
    }
    let database = TestDb::create(Backend::Postgres).await;
    let db = blog::connect_and_migrate(&database.url).await.expect("migrate");
    blog::seed::seed_if_empty(&db).await.expect("seed");
    let ports = [free_port(), free_port(), free_port()];
    let mut instances: Vec<Option<Process>> =
        ports.iter().map(|&port| Some(blog_instance(BLOG, &database.url, port, bus, &[]))).collect();
    let client = reqwest::Client::new();
    for port in ports {
        answering(&client, &format!("http://127.0.0.1:{port}/api/posts/?limit=1")).await;
    }
    let dir = std::env::temp_dir().join(stream_name("balancer"));
    std::fs::create_dir_all(&dir).expect("a directory for the configuration");
    let lb = format!("http://127.0.0.1:{}", free_port());
    let _balancer = balancer(lb.rsplit(':').next().unwrap().parse().unwrap(), &ports, &dir);
    answering(&client, &format!("{lb}/api/posts/?limit=1")).await;

    // The writer pauses (takes the lock for reading per request) while an instance is killed.
    let pause = Arc::new(RwLock::new(()));
    let writer = {
        let (client, lb, pause) = (client.clone(), lb.clone(), pause.clone());
        tokio::spawn(async move {
            let mut created = HashSet::new();
            for i in 0..WRITES {
                let _running = pause.read().await;
                let body = format!(r#"{{"title": "Post {i}", "body": "b", "author_id": 1}}"#);
                created.insert(create(&client, &format!("{lb}/api/posts/"), &body).await);
            }
            created
        })
    };
    let stream_url = format!("{lb}/api/posts/stream");
    let mut stream = SseClient::connect_to(&client, &stream_url, None, None).await;
    let (mut seen, mut last, mut moves, mut killed) = (HashSet::new(), None::<u64>, 0, None);
    let mut expected = WRITES;
    while seen.len() < expected {
        let frame = stream.next(WAIT).await.unwrap_or_else(|| panic!("stalled after {} events", seen.len()));
        assert_ne!(frame.event, "reset", "no reset: {frame:?}");
        if frame.event == "ready" {
            continue;
        }
        let n: u64 = frame.id.as_deref().and_then(|id| id.parse().ok()).expect("a cluster-wide id");
        if let Some(last) = last {
            assert_eq!(n, last + 1, "ids one after another (after {last})");
        }
        last = Some(n);
        assert!(seen.insert(frame.data["pk"].as_i64().expect("pk")), "an event delivered twice: {frame:?}");
        if seen.len() % 150 != 0 || moves == 5 {
            continue;
        }
        moves += 1;
        if moves == 2 {
            // SIGKILL the subscriber's instance right after a write committed there.
            let name = stream.header("x-instance").expect("the balancer names the instance").to_string();
            let victim: usize = name.trim_start_matches('i').parse().expect("i<n>");
            let _paused = pause.write().await;
            let url = format!("http://127.0.0.1:{}/api/posts/", ports[victim]);
            let id = create(&client, &url, r#"{"title": "Last words", "body": "b", "author_id": 1}"#).await;
            instances[victim].take().expect("alive");
            killed = Some(id);
            expected += 1;
            // The balancer's check notices within 200 ms; a refused connection meanwhile is redispatched.
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        let id = n.to_string();
        stream = SseClient::connect_to(&client, &stream_url, None, Some(&id)).await;
    }
    assert_eq!(moves, 5);
    let mut created = writer.await.expect("the writer");
    let killed = killed.expect("an instance was killed");
    assert!(seen.contains(&killed), "the write committed just before SIGKILL has its event");
    created.insert(killed);
    assert_eq!(seen, created, "exactly the created records");
    drop(instances);
    let _ = std::fs::remove_dir_all(dir);
}

/// `POST url body` as Bob: the new record's id (a 201 is required).
async fn create(client: &reqwest::Client, url: &str, body: &str) -> i64 {
    let sent = client.post(url).bearer_auth(BOB.expect("a token")).header("content-type", "application/json");
    let response = sent.body(body.to_string()).send().await.expect("a create");
    let status = response.status();
    let answer: serde_json::Value = response.json().await.expect("JSON");
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    answer["id"].as_i64().expect("id")
}
