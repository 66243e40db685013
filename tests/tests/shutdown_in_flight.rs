//! Graceful shutdown finishes what is in flight (issue 14), on SQLite and PostgreSQL: a create whose body is still
//! arriving when the shutdown begins completes with 201 and is stored; the server then stops, and refuses new
//! connections. Its own test binary: the shutdown flag (`limits::begin_shutdown`) is process-wide.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use viewset_tests::harness::{Backend, TestDb};
use viewset_tests::on_every_database;

/// How long the test waits before calling the server stuck (a hang guard, not a measurement).
const HANG: Duration = Duration::from_secs(20);

on_every_database!(closing_blog => a_request_in_flight_completes_after_the_shutdown_began);

struct Closing {
    addr: std::net::SocketAddr,
    stop: oneshot::Sender<()>,
    server: tokio::task::JoinHandle<()>,
    db: sea_orm::DatabaseConnection,
    _database: TestDb,
}

async fn closing_blog(backend: Backend) -> Closing {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (stop, stopped) = oneshot::channel::<()>();
    let app = blog::app(db.clone());
    let server = tokio::spawn(async move {
        let signal = async move {
            let _ = stopped.await;
            viewset_core::limits::begin_shutdown();
        };
        axum::serve(listener, app.into_make_service()).with_graceful_shutdown(signal).await.expect("serve");
    });
    Closing { addr, stop, server, db, _database: database }
}

async fn a_request_in_flight_completes_after_the_shutdown_began(app: Closing) {
    let body = r#"{"title": "written during shutdown", "body": "b", "author_id": 1}"#;
    let (first, rest) = body.split_at(20);
    let mut socket = TcpStream::connect(app.addr).await.expect("connect");
    let head = format!(
        "POST /api/posts/ HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer alice-token\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        app.addr,
        body.len()
    );
    socket.write_all(head.as_bytes()).await.expect("send the head");
    socket.write_all(first.as_bytes()).await.expect("send half the body");
    // The server has the request and waits for the rest of its body when the shutdown begins.
    tokio::time::sleep(Duration::from_millis(300)).await;
    app.stop.send(()).expect("server still running");
    tokio::time::sleep(Duration::from_millis(300)).await;
    socket.write_all(rest.as_bytes()).await.expect("send the rest of the body");

    let mut answer = String::new();
    let read = tokio::time::timeout(HANG, socket.read_to_string(&mut answer)).await;
    read.expect("the in-flight request was answered").expect("read the answer");
    assert!(answer.starts_with("HTTP/1.1 201"), "the create completed: {answer}");
    assert!(answer.contains("written during shutdown"), "{answer}");

    tokio::time::timeout(HANG, app.server).await.expect("the server stopped").expect("server task");
    assert!(TcpStream::connect(app.addr).await.is_err(), "a stopped server accepts no connection");
    let stored = sea_orm::ConnectionTrait::query_one_raw(
        &app.db,
        sea_orm::Statement::from_string(
            app.db.get_database_backend(),
            "SELECT COUNT(*) AS n FROM posts WHERE title = 'written during shutdown'",
        ),
    )
    .await
    .expect("count")
    .expect("a row");
    assert_eq!(stored.try_get::<i64>("", "n").expect("n"), 1, "the write was kept");
}
