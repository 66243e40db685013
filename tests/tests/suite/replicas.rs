//! Read replicas (issue 41) over HTTP against the blog, on a private PostgreSQL cluster and a streaming replica of
//! it that this test creates (`pg_createcluster`, `pg_basebackup -R`) and drops; the shared server is never
//! touched. With the standby's replay paused (`pg_wal_replay_pause()`), a record created through the API (on the
//! primary) is missing from every GET that reads the replica (retrieve, list and its count, CSV, `?expand=`), while
//! the writes of it (PATCH, PATCH with `If-Match`, whose reads are the primary's) and the event stream (whose
//! visibility reads are the primary's) see it; replay resumed, the GETs see it too. The standby stopped, GETs still
//! answer 200 from the primary, and the state counts the fallbacks.
//!
//! Needs `pg_createcluster`, `pg_basebackup` and root: without them the test is skipped with a note, or fails when
//! `VIEWSET_REQUIRE_PG=1`.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use sea_orm::{ConnectionTrait, DatabaseConnection};
use viewset_core::ServiceState;
use viewset_tests::cluster::PrivateCluster;
use viewset_tests::every_database::skip_unless_required;
use viewset_tests::harness::{SseClient, TestApp, TestDb, WAIT, ids};
use viewset_tests::identities::blog::{ALICE, BOB};

/// How long the standby may take to replay what the primary wrote.
const CATCH_UP: Duration = Duration::from_secs(15);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_reads_the_replica_writes_and_the_stream_the_primary_and_a_dead_replica_falls_back() {
    let clusters = PrivateCluster::create("replica_primary")
        .and_then(|primary| PrivateCluster::standby_of(&primary, "replica_standby").map(|standby| (primary, standby)));
    let (primary, standby) = match clusters {
        Ok(clusters) => clusters,
        Err(e) => return skip_unless_required("VIEWSET_REQUIRE_PG", &format!("no private streaming replica: {e}")),
    };
    let database = TestDb::postgres_on(&primary.url()).await;
    let db = blog::connect_and_migrate(&database.url).await.expect("migrate the blog");
    blog::seed::seed_if_empty(&db).await.expect("seed");
    let name = database.url.rsplit('/').next().expect("a database name").to_string();
    let replica_url = format!("{}/{name}", standby.url());
    let state = blog::with_replica_url(ServiceState::new(db.clone()), &replica_url).await.expect("the replica");
    let app = TestApp::serve(blog::app_with_state(state.clone()), db.clone(), database).await;
    // Replay is the standby's as a whole: its `postgres` database (the test's may not be replayed yet).
    let standby_admin = sea_orm::Database::connect(format!("{}/postgres", standby.url())).await.expect("the standby");

    // The standby replays the test's database, its migrations and the seed (asked of the standby directly: a GET
    // before the database exists there would fall back to the primary).
    let seeded = eventually(|| async { posts_on(&replica_url).await == Some(3) }).await;
    assert!(seeded, "the replica did not replay the seed within {CATCH_UP:?}");
    let (status, list) = app.get("/api/posts/?limit=100").await;
    assert_eq!((status, list["count"].as_i64(), state.replica_fallbacks()), (StatusCode::OK, Some(3), 0), "{list}");
    standby_admin.execute_unprepared("SELECT pg_wal_replay_pause()").await.expect("pause replay");
    let paused = eventually(|| async { replay_state(&standby_admin).await == "paused" }).await;
    assert!(paused, "replay did not pause");
    let mut stream = SseClient::connect(&app, "/api/posts/stream", None, None).await;
    assert_eq!(stream.next(WAIT).await.expect("ready").event, "ready");

    // Created on the primary (the replica is read-only: a write there would fail).
    let new = r#"{"title": "On the primary", "body": "b", "author_id": 1}"#;
    let (status, created) = app.send(Method::POST, "/api/posts/", BOB, Some(new)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_i64().expect("id");
    let record = format!("/api/posts/{id}");

    // The stream's visibility read is the primary's: the created record is delivered whole.
    let frame = stream.next(WAIT).await.expect("the created frame, although the replica has not replayed it");
    assert_eq!((frame.event.as_str(), frame.data["record"]["id"].as_i64()), ("created", Some(id)), "{frame:?}");

    // Every GET reads the paused replica: retrieve, list and count, CSV, an embedding.
    let (status, body) = app.get(&record).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "retrieve read the replica: {body}");
    let (status, list) = app.get("/api/posts/?limit=100").await;
    assert_eq!((status, list["count"].as_i64()), (StatusCode::OK, Some(3)), "{list}");
    assert!(!ids(&list).contains(&id), "{list}");
    let (status, list) = app.get("/api/posts/?ordering=id&author__name__icontains=ada&count=estimated").await;
    assert_eq!(status, StatusCode::OK, "a related filter's subquery and an estimate: {list}");
    assert!(!ids(&list).contains(&id), "{list}");
    let csv = text(&app, "/api/posts/?format=csv&limit=100").await;
    assert!(csv.starts_with("id,") && !csv.contains("On the primary"), "{csv}");
    let (status, author) = app.send(Method::GET, "/authors/1?expand=posts", ALICE, None).await;
    assert_eq!(status, StatusCode::OK, "{author}");
    let embedded: Vec<i64> =
        author["posts"].as_array().expect("posts").iter().filter_map(|p| p["id"].as_i64()).collect();
    assert!(!embedded.is_empty() && !embedded.contains(&id), "the embedding read the replica: {author}");

    // The writes read the primary: PATCH (its object-permission read or one `UPDATE … RETURNING`), and PATCH with
    // `If-Match` (the locked read in its transaction).
    let (status, patched) = app.send(Method::PATCH, &record, BOB, Some(r#"{"title": "Patched"}"#)).await;
    assert_eq!((status, patched["title"].as_str()), (StatusCode::OK, Some("Patched")), "{patched}");
    let conditional = app
        .client()
        .patch(format!("{}{record}", app.base))
        .bearer_auth("bob-token")
        .header("if-match", "*")
        .header("content-type", "application/json")
        .body(r#"{"views": 7}"#)
        .send()
        .await
        .expect("conditional PATCH");
    assert_eq!(conditional.status(), StatusCode::OK, "If-Match read the primary");
    assert_eq!(state.replica_fallbacks(), 0, "the replica was reachable throughout");

    // Replay resumed, the GETs show the record as the writes left it.
    standby_admin.execute_unprepared("SELECT pg_wal_replay_resume()").await.expect("resume replay");
    let replayed = eventually(|| async {
        let (status, body) = app.get(&record).await;
        status == StatusCode::OK && body["title"] == "Patched" && body["views"] == 7
    })
    .await;
    assert!(replayed, "the replica did not replay the writes within {CATCH_UP:?}");
    let (_, list) = app.get("/api/posts/?limit=100").await;
    assert_eq!(list["count"], 4, "{list}");
    assert!(ids(&list).contains(&id), "{list}");
    drop(standby_admin);

    // The standby stopped: GETs are answered by the primary (no 503), counted; the next ones skip the replica.
    standby.stop("fast").await;
    for path in [record.as_str(), "/api/posts/?limit=100", "/api/posts/?format=csv"] {
        let started = Instant::now();
        let response = app.client().get(format!("{}{path}", app.base)).send().await.expect("GET");
        assert_eq!(response.status(), StatusCode::OK, "{path} with the replica down");
        assert!(started.elapsed() < Duration::from_secs(3), "{path} took {:?}", started.elapsed());
    }
    let fallbacks = state.replica_fallbacks();
    assert!(fallbacks >= 4, "a retrieve, a list's page and count, a CSV page fell back: {fallbacks}");
    let (status, body) = app.get(&record).await;
    assert_eq!((status, body["title"].as_str()), (StatusCode::OK, Some("Patched")));
    assert!(state.replica_fallbacks() > fallbacks, "a read while the replica is remembered down is counted");
}

/// Whether `check` holds within [`CATCH_UP`], asked every 100 ms.
async fn eventually<F, Fut>(check: F) -> bool
where
    F: Fn() -> Fut,
    Fut: Future<Output = bool>,
{
    let started = Instant::now();
    while started.elapsed() < CATCH_UP {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// How many posts the database at `url` holds, if it can be read.
async fn posts_on(url: &str) -> Option<i64> {
    let db = sea_orm::Database::connect(url).await.ok()?;
    let statement = sea_orm::Statement::from_string(db.get_database_backend(), "SELECT COUNT(*) AS n FROM posts");
    let row = db.query_one_raw(statement).await.ok()??;
    let n = row.try_get::<i64>("", "n").ok();
    db.close().await.ok();
    n
}

/// `pg_get_wal_replay_pause_state()` on the standby: `not paused`, `pause requested` or `paused`.
async fn replay_state(standby: &DatabaseConnection) -> String {
    let statement =
        sea_orm::Statement::from_string(standby.get_database_backend(), "SELECT pg_get_wal_replay_pause_state() AS s");
    let row = standby.query_one_raw(statement).await.expect("replay state").expect("a row");
    row.try_get::<String>("", "s").expect("text")
}

/// The body of `GET path` as text (200 expected).
async fn text(app: &TestApp, path: &str) -> String {
    let response = app.client().get(format!("{}{path}", app.base)).send().await.expect("GET");
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    response.text().await.expect("body")
}
