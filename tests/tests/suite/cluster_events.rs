//! Durable, cluster-wide events (issue 41): three instances of the blog (own pools, own readers) on one database,
//! each with `EventBus::outbox` (PostgreSQL) or `EventBus::nats` (a JetStream stream of the test's own on the
//! shared NATS server; on PostgreSQL, and a rolled-back write on MariaDB and SQLite too). A subscriber moved between
//! instances with its `Last-Event-ID` receives every event once, in one order, without `reset`; a rolled-back write
//! has no event; a committed event nobody published is still delivered; pruned or foreign ids get `reset`. The
//! engines' outages: PostgreSQL under the outbox, NATS (a private server) under JetStream.

use std::collections::HashSet;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use sea_orm::{ConnectionTrait, DatabaseConnection, Statement};
use viewset_core::ServiceState;
use viewset_core::events::{Action, ChangeEvent, EventBus, Retention};
use viewset_tests::cluster::PrivateCluster;
use viewset_tests::every_database::{require_mysql, require_postgres, skip_unless_required};
use viewset_tests::harness::{Backend, Frame, SseClient, TestApp, TestDb, WAIT};
use viewset_tests::identities::blog::BOB;
use viewset_tests::nats::{PrivateNats, require_nats, stream_name};

/// How the instances share events.
#[derive(Clone)]
enum Via {
    /// The PostgreSQL outbox.
    Outbox,
    /// The JetStream stream `stream` of the NATS server at `url`.
    Nats { url: String, stream: String },
}

impl Via {
    /// A new stream on the shared NATS server; `None` without one.
    fn nats(purpose: &str) -> Option<Via> {
        Some(Via::Nats { url: require_nats()?, stream: stream_name(purpose) })
    }

    /// The rows left in the outbox table after `commits` committed writes: all of them (the outbox keeps them),
    /// or none (NATS acknowledged them, and the writes deleted them).
    fn rows_after(&self, commits: i64) -> i64 {
        if let Via::Outbox = self { commits } else { 0 }
    }
}

/// A bus on `db` as `via` says.
async fn bus(db: &DatabaseConnection, retention: Retention, via: &Via) -> EventBus {
    let bus = match via {
        Via::Outbox => EventBus::outbox_with(db.get_postgres_connection_pool().clone(), retention).await,
        Via::Nats { url, stream } => {
            let client = viewset_core::events::async_nats::connect(url.as_str()).await.expect("NATS");
            Ok(EventBus::nats_with(db.clone(), client, stream, retention).await.expect("the NATS bus"))
        }
    };
    let bus = bus.expect("the outbox");
    assert!(bus.is_durable());
    bus
}

/// An instance of the blog on `db`'s database with its own pool and reader; the first owns the database.
async fn instance(url: &str, owner: Option<TestDb>, retention: Retention, via: &Via) -> TestApp {
    let db = blog::connect_and_migrate(url).await.expect("connect");
    let bus = bus(&db, retention, via).await;
    let database = match owner {
        Some(database) => database,
        None => TestDb::create(Backend::Sqlite).await,
    };
    let state = ServiceState::with_events(db.clone(), bus);
    // Its bus's own counts (backlog, relay failures, resets) at `/metrics`: this instance's alone.
    let router = blog::app_with_state(state.clone()).merge(viewset_core::metrics::router(&state));
    TestApp::serve(router, db, database).await
}

/// The value of the sample `series` (name and labels as the exporter writes them) in `app`'s `/metrics`.
async fn sample(app: &TestApp, series: &str) -> Option<f64> {
    let text = app.client().get(format!("{}/metrics", app.base)).send().await.ok()?.text().await.ok()?;
    text.lines().find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

/// Waits until `app`'s `series` is `expected` (the relay looks once a second).
async fn until_sample(app: &TestApp, series: &str, expected: f64) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    loop {
        let value = sample(app, series).await;
        if value == Some(expected) {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "{series} stayed {value:?}, expected {expected}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Three instances on one fresh, seeded database of `backend`, and its URL; `None` without the servers.
async fn cluster(retention: Retention, via: &Via, backend: Backend) -> Option<([TestApp; 3], String)> {
    match backend {
        Backend::Mysql => require_mysql()?,
        Backend::Postgres => require_postgres()?,
        Backend::Sqlite => String::new(),
    };
    let (database, _) = TestDb::seeded_blog(backend).await;
    let url = database.url.clone();
    let first = instance(&url, Some(database), retention, via).await;
    let (second, third) = (instance(&url, None, retention, via).await, instance(&url, None, retention, via).await);
    Some(([first, second, third], url))
}

/// The cluster-wide number of an event frame.
fn number(frame: &Frame) -> u64 {
    let id = frame.id.as_deref().unwrap_or_else(|| panic!("an event frame without id: {frame:?}"));
    id.parse().unwrap_or_else(|_| panic!("an outbox id is a plain number, not {id:?}"))
}

async fn outbox_rows(db: &DatabaseConnection) -> i64 {
    let sql = "SELECT count(*) AS n FROM viewset_events";
    let row = db.query_one_raw(Statement::from_string(db.get_database_backend(), sql)).await.unwrap().unwrap();
    row.try_get::<i64>("", "n").unwrap()
}

const WRITES: usize = 1000;

/// 1,000 creates spread over three instances while the subscriber is moved to the next instance five times, each
/// time resuming from the last id it received: every event arrives exactly once, ids increase one by one, and no
/// `reset` is ever sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_subscriber_moved_between_instances_receives_every_event_once() {
    moved_between_instances(Via::Outbox).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_subscriber_moved_between_instances_receives_every_event_once_over_nats() {
    let Some(via) = Via::nats("moved") else { return };
    moved_between_instances(via).await;
}

async fn moved_between_instances(via: Via) {
    let Some((apps, _)) = cluster(Retention::default(), &via, Backend::Postgres).await else { return };
    let apps = std::sync::Arc::new(apps);
    let mut stream = SseClient::connect(&apps[0], "/api/posts/stream", None, None).await;
    assert_eq!(stream.next(WAIT).await.expect("ready").event, "ready");
    let writer = {
        let apps = apps.clone();
        tokio::spawn(async move {
            let mut created = HashSet::new();
            for i in 0..WRITES {
                let body = format!(r#"{{"title": "Post {i}", "body": "b", "author_id": 1}}"#);
                let (status, post) = apps[i % 3].send(Method::POST, "/api/posts/", BOB, Some(&body)).await;
                assert_eq!(status, StatusCode::CREATED, "{post}");
                created.insert(post["id"].as_i64().expect("id"));
            }
            created
        })
    };
    let (mut seen, mut last, mut moves) = (HashSet::new(), None::<u64>, 0);
    while seen.len() < WRITES {
        let frame = stream.next(WAIT).await.unwrap_or_else(|| panic!("stalled after {} events", seen.len()));
        assert_ne!(frame.event, "reset", "no reset on a move: {frame:?}");
        if frame.event == "ready" {
            continue;
        }
        assert_eq!(frame.event, "created", "{frame:?}");
        let n = number(&frame);
        if let Some(last) = last {
            assert_eq!(n, last + 1, "ids increase one by one (after {last})");
        }
        last = Some(n);
        assert!(seen.insert(frame.data["pk"].as_i64().expect("pk")), "an event delivered twice: {frame:?}");
        if seen.len() % 170 == 0 && moves < 5 {
            moves += 1;
            let id = n.to_string();
            drop(stream);
            stream = SseClient::connect(&apps[moves % 3], "/api/posts/stream", None, Some(&id)).await;
        }
    }
    assert_eq!(moves, 5);
    let created = writer.await.expect("the writer");
    assert_eq!(seen, created, "exactly the created records");
    assert_eq!(outbox_rows(&apps[0].db).await, via.rows_after(WRITES as i64));
}

/// A write that fails inside its transaction (a PATCH naming an author that does not exist) records no event: the
/// next committed write's event follows the previous one directly, and the outbox holds one row per commit.
#[tokio::test]
async fn a_rolled_back_write_has_no_event() {
    rolled_back(Via::Outbox, Backend::Postgres).await;
}

#[tokio::test]
async fn a_rolled_back_write_has_no_event_over_nats() {
    let Some(via) = Via::nats("rolled_back") else { return };
    rolled_back(via, Backend::Postgres).await;
}

#[tokio::test]
async fn a_rolled_back_write_has_no_event_over_nats_on_mariadb() {
    let Some(via) = Via::nats("rolled_back_mariadb") else { return };
    rolled_back(via, Backend::Mysql).await;
}

#[tokio::test]
async fn a_rolled_back_write_has_no_event_over_nats_on_sqlite() {
    let Some(via) = Via::nats("rolled_back_sqlite") else { return };
    rolled_back(via, Backend::Sqlite).await;
}

async fn rolled_back(via: Via, backend: Backend) {
    let Some((apps, _)) = cluster(Retention::default(), &via, backend).await else { return };
    let mut stream = SseClient::connect(&apps[1], "/api/posts/stream", None, None).await;
    stream.next(WAIT).await.expect("ready");
    let (status, _) = apps[0].send(Method::PATCH, "/api/posts/1", BOB, Some(r#"{"views": 5}"#)).await;
    assert_eq!(status, StatusCode::OK);
    let first = number(&stream.next(WAIT).await.expect("the first event"));
    let (status, body) = apps[0].send(Method::PATCH, "/api/posts/1", BOB, Some(r#"{"author_id": 999}"#)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, body) = apps[2]
        .send(
            Method::POST,
            "/api/posts/bulk",
            BOB,
            Some(r#"[{"title": "a", "body": "b", "author_id": 1}, {"title": "b", "body": "b", "author_id": 999}]"#),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "a bulk create with a bad row writes nothing: {body}");
    let (status, _) = apps[2].send(Method::PATCH, "/api/posts/2", BOB, Some(r#"{"views": 6}"#)).await;
    assert_eq!(status, StatusCode::OK);
    let next = stream.next(WAIT).await.expect("the next event");
    assert_eq!((number(&next), next.data["pk"].as_i64()), (first + 1, Some(2)), "nothing between: {next:?}");
    assert_eq!(outbox_rows(&apps[0].db).await, via.rows_after(2));
}

/// An event row committed by a process that died before it woke anyone or published it (written here directly, as
/// its transaction left it) reaches the subscribers of every other instance: they poll the table, or relay it.
#[tokio::test]
async fn an_event_committed_by_a_process_that_died_is_delivered() {
    died(Via::Outbox).await;
}

#[tokio::test]
async fn an_event_committed_by_a_process_that_died_is_delivered_over_nats() {
    let Some(via) = Via::nats("died") else { return };
    died(via).await;
}

async fn died(via: Via) {
    let Some((apps, _)) = cluster(Retention::default(), &via, Backend::Postgres).await else { return };
    let mut stream = SseClient::connect(&apps[2], "/api/posts/stream", None, None).await;
    stream.next(WAIT).await.expect("ready");
    let orphan = r#"INSERT INTO viewset_events (payload) VALUES ('{"table":"posts","action":"updated","pk":3}')"#;
    apps[0].db.execute_unprepared(orphan).await.expect("a committed event row");
    let frame = stream.next(WAIT).await.expect("delivered by polling or the relay");
    assert_eq!((frame.event.as_str(), frame.data["pk"].as_i64()), ("updated", Some(3)));
    assert_eq!(frame.data["record"]["id"], 3, "loaded through the subscriber's view");
    // An event application code publishes on its own bus (outside a generated write) reaches them too.
    let own = bus(&apps[0].db, Retention::default(), &via).await;
    own.publish(ChangeEvent { table: "posts".into(), action: Action::Updated, pk: 2.into(), snapshot: None });
    let next = stream.next(WAIT).await.expect("an event published by application code");
    assert_eq!((next.event.as_str(), number(&next)), ("updated", number(&frame) + 1));
    assert_eq!(next.data["record"]["id"], 2);
}

/// `Last-Event-ID`s an outbox does not know get `reset`, and the stream goes on: malformed ones, an id of an
/// in-process bus, one from the future, one older than the retention kept (on an instance whose buffer does not
/// hold it either: one that does resumes from it).
#[tokio::test]
async fn unknown_last_event_ids_get_a_reset() {
    unknown_ids(Via::Outbox).await;
}

#[tokio::test]
async fn unknown_last_event_ids_get_a_reset_over_nats() {
    let Some(via) = Via::nats("unknown_ids") else { return };
    unknown_ids(via).await;
}

async fn unknown_ids(via: Via) {
    let quick = Retention::default().with_events(3).with_prune_every(Duration::from_millis(100));
    let Some((apps, url)) = cluster(quick, &via, Backend::Postgres).await else { return };
    for views in 1..=8 {
        let (status, _) =
            apps[0].send(Method::PATCH, "/api/posts/1", BOB, Some(&format!(r#"{{"views": {views}}}"#))).await;
        assert_eq!(status, StatusCode::OK);
    }
    // Pruned down to the newest three (6, 7, 8).
    let deadline = tokio::time::Instant::now() + WAIT;
    while outbox_rows(&apps[0].db).await > 3 {
        assert!(tokio::time::Instant::now() < deadline, "the outbox was not pruned");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // An instance started now holds no event in its buffer: it resumes from the table only.
    let late = instance(&url, None, quick, &via).await;
    for (last_event_id, reason) in [
        ("garbage", "malformed_last_event_id"),
        ("-3", "malformed_last_event_id"),
        ("99999999999999999999999", "malformed_last_event_id"),
        ("0123456789ab-5", "resume_unavailable"),
        ("999999", "resume_unavailable"),
        ("2", "resume_unavailable"),
    ] {
        let mut resumed = SseClient::connect(&late, "/api/posts/stream", None, Some(last_event_id)).await;
        assert_eq!(resumed.next(WAIT).await.expect("ready").event, "ready");
        let reset = resumed.next(WAIT).await.unwrap_or_else(|| panic!("no reset for {last_event_id:?}"));
        assert_eq!((reset.event.as_str(), reset.data["reason"].as_str()), ("reset", Some(reason)), "{last_event_id}");
    }
    // Counted by reason, each once.
    for (reason, sent) in [("malformed_last_event_id", 3.0), ("resume_unavailable", 3.0), ("lagged", 0.0)] {
        let series = format!("viewset_events_resets_total{{reason=\"{reason}\"}}");
        assert_eq!(sample(&late, &series).await, Some(sent), "{series}");
    }
    // The oldest kept id resumes with the events after it, from the table.
    let mut resumed = SseClient::connect(&late, "/api/posts/stream", None, Some("6")).await;
    resumed.next(WAIT).await.expect("ready");
    let replayed: Vec<u64> =
        [resumed.next(WAIT).await, resumed.next(WAIT).await].iter().flatten().map(number).collect();
    assert_eq!(replayed, [7, 8]);
}

/// PostgreSQL stopped (`-m immediate`) and started again under two outbox instances: the open stream stays open, no
/// `reset` is needed, and the first write after the restart reaches the subscriber of the other instance with the
/// next id: the readers reconnect and read on from where they stopped.
#[tokio::test]
async fn the_outbox_readers_go_on_after_a_database_outage() {
    let cluster = match PrivateCluster::create("outbox_outage") {
        Ok(cluster) => cluster,
        Err(e) => return skip_unless_required("VIEWSET_REQUIRE_PG", &format!("no private PostgreSQL cluster: {e}")),
    };
    let database = TestDb::postgres_on(&cluster.url()).await;
    let url = database.url.clone();
    {
        let db = blog::connect_and_migrate(&url).await.expect("migrate the blog");
        blog::seed::seed_if_empty(&db).await.expect("seed");
    }
    let writer = instance(&url, Some(database), Retention::default(), &Via::Outbox).await;
    let reader = instance(&url, None, Retention::default(), &Via::Outbox).await;
    let mut stream = SseClient::connect(&reader, "/api/posts/stream", None, None).await;
    stream.next(WAIT).await.expect("ready");
    let (status, _) = writer.send(Method::PATCH, "/api/posts/1", BOB, Some(r#"{"views": 1}"#)).await;
    assert_eq!(status, StatusCode::OK);
    let before = number(&stream.next(WAIT).await.expect("an event before the outage"));

    cluster.stop("immediate").await;
    let (status, body) = writer.send(Method::PATCH, "/api/posts/1", BOB, Some(r#"{"views": 2}"#)).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "a write without the database: {body}");
    tokio::time::sleep(Duration::from_secs(1)).await;
    cluster.start().await;

    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let (status, _) = writer.send(Method::PATCH, "/api/posts/1", BOB, Some(r#"{"views": 3}"#)).await;
        if status == StatusCode::OK {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "the writer never recovered ({status})");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let after = stream.next(Duration::from_secs(10)).await.expect("the event after the restart");
    assert_eq!((after.event.as_str(), number(&after)), ("updated", before + 1), "no reset, no gap: {after:?}");
    assert_eq!(after.data["record"]["views"], 3);
}

/// NATS killed (`SIGKILL`) and started again under two instances: a write meanwhile commits and answers at once
/// (its event stays in the outbox table), reads go on, the open stream stays open without `reset`, and once NATS is
/// back the relay publishes the event: it arrives with the next id, and the next write's after it.
#[tokio::test]
async fn the_nats_bus_keeps_every_committed_event_through_a_nats_outage() {
    if require_postgres().is_none() {
        return;
    }
    let mut nats = match PrivateNats::start("outage").await {
        Ok(nats) => nats,
        Err(e) => return skip_unless_required("VIEWSET_REQUIRE_NATS", &format!("no private NATS server: {e}")),
    };
    let via = Via::Nats { url: nats.url(), stream: stream_name("outage") };
    let Some(([writer, reader, _], _)) = cluster(Retention::default(), &via, Backend::Postgres).await else { return };
    let mut stream = SseClient::connect(&reader, "/api/posts/stream", None, None).await;
    stream.next(WAIT).await.expect("ready");
    let (status, _) = writer.send(Method::PATCH, "/api/posts/1", BOB, Some(r#"{"views": 1}"#)).await;
    assert_eq!(status, StatusCode::OK);
    let before = number(&stream.next(WAIT).await.expect("an event before the outage"));

    nats.kill();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = tokio::time::Instant::now();
    let (status, body) = writer.send(Method::PATCH, "/api/posts/1", BOB, Some(r#"{"views": 2}"#)).await;
    assert_eq!(status, StatusCode::OK, "the write commits without NATS: {body}");
    assert!(started.elapsed() < Duration::from_secs(5), "and answers without waiting long: {:?}", started.elapsed());
    assert_eq!(outbox_rows(&writer.db).await, 1, "its event waits in the outbox table");
    // The operator sees it: the writer's relay found it waiting, and publishing failed.
    until_sample(&writer, "viewset_events_outbox_backlog", 1.0).await;
    assert!(sample(&writer, "viewset_events_relay_failures_total").await >= Some(1.0), "a failed relay is counted");
    let (status, _) = reader.send(Method::GET, "/api/posts/1", BOB, None).await;
    assert_eq!(status, StatusCode::OK, "reads go on");
    nats.resume().await.expect("NATS again");

    let relayed = stream.next(Duration::from_secs(30)).await.expect("the event written during the outage");
    assert_eq!((relayed.event.as_str(), number(&relayed)), ("updated", before + 1), "no reset, no gap: {relayed:?}");
    assert_eq!(relayed.data["record"]["views"], 2);
    let (status, _) = writer.send(Method::PATCH, "/api/posts/1", BOB, Some(r#"{"views": 3}"#)).await;
    assert_eq!(status, StatusCode::OK);
    let next = stream.next(Duration::from_secs(10)).await.expect("the next event");
    assert_eq!((number(&next), next.data["record"]["views"].as_i64()), (before + 2, Some(3)));
    assert_eq!(outbox_rows(&writer.db).await, 0, "relayed, then deleted");
    until_sample(&writer, "viewset_events_outbox_backlog", 0.0).await;
}
