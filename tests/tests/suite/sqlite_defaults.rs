//! The defaults of a SQLite file (`viewset_core::store::sqlite_defaults`, issue 74): the pragmas every connection
//! starts with (an in-memory database keeps its own), no 5xx under 64 clients mixing reads and writes on one file,
//! and no acknowledged write lost when the server is killed (`SIGKILL`) in the middle of a stream of writes.
//! SQLite only: these are the embedded database's own settings.

use std::collections::HashSet;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use reqwest::{Method, StatusCode};
use sea_orm::{ConnectionTrait, DatabaseConnection, Statement};
use serde_json::Value;
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::identities::blog::BOB;

/// Clients at once, and requests each, in the mixed load.
const CLIENTS: usize = 64;
const REQUESTS: usize = 30;

/// The value of `PRAGMA name` on `db`, as text.
async fn pragma(db: &DatabaseConnection, name: &str) -> String {
    let statement = Statement::from_string(db.get_database_backend(), format!("PRAGMA {name}"));
    let row = db.query_one_raw(statement).await.expect("PRAGMA").expect("a row");
    row.try_get_by_index::<String>(0)
        .or_else(|_| row.try_get_by_index::<i64>(0).map(|n| n.to_string()))
        .expect("a text or integer value")
}

#[tokio::test]
async fn a_file_opens_in_wal_with_the_documented_pragmas() {
    let (_database, db) = TestDb::migrated_blog(Backend::Sqlite).await;
    assert_eq!(pragma(&db, "journal_mode").await, "wal");
    assert_eq!(pragma(&db, "synchronous").await, "1", "NORMAL");
    assert_eq!(pragma(&db, "busy_timeout").await, viewset_core::store::SQLITE_BUSY_TIMEOUT.as_millis().to_string());
    assert_eq!(pragma(&db, "foreign_keys").await, "1");
    assert_eq!(pragma(&db, "temp_store").await, "2", "MEMORY");
    let limit = viewset_core::store::SQLITE_JOURNAL_SIZE_LIMIT;
    assert_eq!(pragma(&db, "journal_size_limit").await, limit.to_string());
    assert_eq!(pragma(&db, "cache_size").await, format!("-{}", viewset_core::store::SQLITE_CACHE_KIB));
    let pool = db.get_sqlite_connection_pool().options().get_max_connections();
    assert_eq!(pool, viewset_core::store::SQLITE_MAX_CONNECTIONS, "the pool the store gives a SQLite file");
}

#[tokio::test]
async fn an_in_memory_database_keeps_its_journal_and_works() {
    let db = blog::connect_and_migrate("sqlite::memory:").await.expect("the blog in memory");
    assert_eq!(pragma(&db, "journal_mode").await, "memory");
    assert_eq!(db.get_sqlite_connection_pool().options().get_max_connections(), 1, "sea-orm's one connection");
    blog::seed::seed_if_empty(&db).await.expect("seed");
    let app = TestApp::serve(blog::app(db.clone()), db, TestDb::create(Backend::Sqlite).await).await;
    let (status, body) = app.get("/api/posts/?search=a").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body["count"].as_u64().is_some_and(|n| n > 0), "{body}");
}

/// One client of the mixed load: creates a post, reads lists and it, patches and deletes it, again and again.
/// Every answer's status, with what was asked.
async fn client(app: &TestApp, n: usize) -> Vec<(String, StatusCode)> {
    let mut answers = Vec::with_capacity(REQUESTS);
    let mut own: Option<i64> = None;
    for i in 0..REQUESTS {
        let (method, path, body) = match (i % 6, own) {
            (0, _) | (_, None) => {
                let body =
                    format!(r#"{{"title": "mixedload {n}-{i}", "body": "mixed", "author_id": 1, "views": {i}}}"#);
                (Method::POST, "/api/posts/".to_string(), Some(body))
            }
            (1, _) => (Method::GET, "/api/posts/?search=mixedload&ordering=-views&limit=20".to_string(), None),
            (2, Some(id)) => (Method::PATCH, format!("/api/posts/{id}"), Some(format!(r#"{{"views": {}}}"#, i * 7))),
            (3, Some(id)) => (Method::GET, format!("/api/posts/{id}"), None),
            (4, _) => (Method::GET, "/api/posts/?published=false&limit=20&count=none".to_string(), None),
            (_, Some(id)) => (Method::DELETE, format!("/api/posts/{id}"), None),
        };
        let token = if method == Method::GET { None } else { BOB };
        let (status, answer) = app.send(method.clone(), &path, token, body.as_deref()).await;
        if method == Method::POST && status == StatusCode::CREATED {
            own = answer["id"].as_i64();
        }
        if method == Method::DELETE {
            own = None;
        }
        answers.push((format!("{method} {path}"), status));
    }
    answers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixty_four_clients_mixing_reads_and_writes_get_no_5xx() {
    let app = std::sync::Arc::new(TestApp::blog(Backend::Sqlite).await);
    let tasks: Vec<_> = (0..CLIENTS)
        .map(|n| {
            let app = app.clone();
            tokio::spawn(async move { client(&app, n).await })
        })
        .collect();
    let mut answers = Vec::new();
    for task in tasks {
        answers.extend(task.await.expect("a client task"));
    }
    assert_eq!(answers.len(), CLIENTS * REQUESTS);
    let failed: Vec<_> = answers.iter().filter(|(_, status)| !status.is_success()).collect();
    let server_errors = failed.iter().filter(|(_, status)| status.is_server_error()).count();
    assert_eq!(server_errors, 0, "5xx answers (SQLITE_BUSY is a 503 database_busy): {failed:?}");
    assert!(failed.is_empty(), "every request of the mixed load succeeds: {failed:?}");
    // Every client deleted each post it created (its requests end with a delete).
    let (status, body) = app.get("/api/posts/?search=mixedload&limit=1").await;
    assert_eq!((status, body["count"].as_u64()), (StatusCode::OK, Some(0)), "{body}");
}

/// The blog as a child process over `url` on `port`, killed (`SIGKILL`) when dropped.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn blog_process(url: &str, port: u16) -> Process {
    let child = Command::new(env!("CARGO_BIN_EXE_blog_instance"))
        .env("DATABASE_URL", url)
        .env("SERVICE_BIND", format!("127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .spawn()
        .expect("start the blog");
    Process(child)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("addr").port()
}

/// Waits until the blog at `base` answers (a hang guard: at most 10 s).
async fn answering(client: &reqwest::Client, base: &str) {
    for _ in 0..100 {
        if client.get(format!("{base}/api/posts/?limit=1")).send().await.is_ok_and(|r| r.status() == StatusCode::OK) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{base} never answered");
}

/// Writers that create posts titled `durable <writer>-<n>` until the server stops answering; the titles of the
/// creates answered 201, each sent on `acknowledged` as soon as its answer arrived.
async fn writer(base: String, w: usize, acknowledged: tokio::sync::mpsc::UnboundedSender<String>) {
    let client = reqwest::Client::new();
    for n in 0.. {
        let title = format!("durable {w}-{n}");
        let body = serde_json::json!({"title": title, "body": "written before SIGKILL", "author_id": 1});
        let sent = client.post(format!("{base}/api/posts/")).bearer_auth(BOB.expect("Bob's token")).json(&body);
        match sent.send().await {
            Ok(answer) if answer.status() == StatusCode::CREATED => {
                let _ = acknowledged.send(title);
            }
            Ok(answer) => panic!("a create answered {}: {:?}", answer.status(), answer.text().await),
            Err(_) => return, // the server is gone
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_write_acknowledged_before_sigkill_is_there_after_restart() {
    let (database, db) = TestDb::seeded_blog(Backend::Sqlite).await;
    db.close().await.expect("close the test's connection");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::new();
    let mut server = blog_process(&database.url, port);
    answering(&client, &base).await;

    let (acknowledged, mut acks) = tokio::sync::mpsc::unbounded_channel();
    let writers: Vec<_> = (0..8).map(|w| tokio::spawn(writer(base.clone(), w, acknowledged.clone()))).collect();
    drop(acknowledged);
    let mut seen = HashSet::new();
    // Killed in the middle of the stream: the writers are still sending when the 300th acknowledgement arrives.
    while seen.len() < 300 {
        seen.insert(acks.recv().await.expect("the writers run until the server is killed"));
    }
    server.0.kill().expect("SIGKILL");
    server.0.wait().expect("reaped");
    for writer in writers {
        writer.await.expect("a writer stops when the server is gone");
    }
    while let Some(title) = acks.recv().await {
        seen.insert(title);
    }

    // Restarted, on a port of its own (the killed server's connections may still hold the first).
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let _restarted = blog_process(&database.url, port);
    answering(&client, &base).await;
    let db = viewset_core::connect(&database.url).await.expect("reopen the file");
    let statement = Statement::from_string(db.get_database_backend(), "SELECT title FROM posts");
    let stored: HashSet<String> = db
        .query_all_raw(statement)
        .await
        .expect("the posts")
        .iter()
        .map(|row| row.try_get_by_index::<String>(0).expect("a title"))
        .collect();
    let lost: Vec<_> = seen.iter().filter(|title| !stored.contains(*title)).collect();
    assert!(lost.is_empty(), "{} of {} acknowledged writes lost: {lost:?}", lost.len(), seen.len());
    let (status, body) = {
        let answer = client.get(format!("{base}/api/posts/?search=durable&limit=1")).send().await.expect("GET");
        (answer.status(), answer.json::<Value>().await.expect("JSON"))
    };
    assert_eq!(status, StatusCode::OK);
    assert!(body["count"].as_u64().is_some_and(|n| n >= seen.len() as u64), "{body}");
}
