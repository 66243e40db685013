//! Graceful shutdown (issue 14): `limits::begin_shutdown` (called by `limits::shutdown_signal` on SIGTERM or
//! ctrl-c) ends every open event stream with a final `event: reset` (`"reason": "shutdown"`, with a `retry:` hint),
//! so `axum::serve(..).with_graceful_shutdown(..)` finishes instead of waiting for streams that never end.
//! The blog on SQLite and PostgreSQL. Its own test binary: the shutdown flag is process-wide.

use std::time::Duration;

use reqwest::StatusCode;
use tokio::sync::oneshot;
use viewset_tests::harness::{Backend, TestDb};
use viewset_tests::identities::blog::BOB;
use viewset_tests::on_every_database;

/// How long the test waits before calling a stream or the server stuck (a hang guard, not a measurement).
const HANG: Duration = Duration::from_secs(20);

on_every_database!(closing_blog => open_streams_end_with_a_final_event_and_the_server_stops);

/// The blog served with a graceful shutdown that `stop` triggers.
struct Closing {
    base: String,
    stop: oneshot::Sender<()>,
    server: tokio::task::JoinHandle<()>,
    _database: TestDb,
}

async fn closing_blog(backend: Backend) -> Closing {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let (stop, stopped) = oneshot::channel::<()>();
    let app = blog::app(db);
    let server = tokio::spawn(async move {
        let signal = async move {
            let _ = stopped.await;
            viewset_core::limits::begin_shutdown();
        };
        axum::serve(listener, app).with_graceful_shutdown(signal).await.expect("serve");
    });
    Closing { base, stop, server, _database: database }
}

/// Reads `response` until `until` is in what was read, or (with `until` empty) to its end; `None` on a hang.
async fn read(response: &mut reqwest::Response, text: &mut String, until: &str) -> Option<bool> {
    loop {
        if !until.is_empty() && text.contains(until) {
            return Some(true);
        }
        match tokio::time::timeout(HANG, response.chunk()).await.ok()? {
            Ok(Some(chunk)) => text.push_str(&String::from_utf8_lossy(&chunk)),
            Ok(None) | Err(_) => return Some(false), // the stream ended
        }
    }
}

async fn open_streams_end_with_a_final_event_and_the_server_stops(app: Closing) {
    let client = reqwest::Client::new();
    let mut streams = Vec::new();
    for token in [None, BOB] {
        let mut request = client.get(format!("{}/api/posts/stream", app.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let mut response = request.send().await.expect("connect");
        assert_eq!(response.status(), StatusCode::OK);
        let mut text = String::new();
        assert_eq!(read(&mut response, &mut text, "event: ready").await, Some(true), "no ready frame: {text}");
        streams.push((response, text));
    }
    // A request completes normally right before the shutdown begins.
    let listed = client.get(format!("{}/api/posts/", app.base)).send().await.expect("list");
    assert_eq!(listed.status(), StatusCode::OK);

    app.stop.send(()).expect("server still running");
    for (mut response, mut text) in streams {
        let ended = read(&mut response, &mut text, "").await;
        assert_eq!(ended, Some(false), "the stream did not end after the shutdown began: {text}");
        let last = text.trim_end().rsplit("\n\n").next().unwrap_or_default();
        assert!(last.contains("event: reset"), "the last frame is not a reset: {text}");
        assert!(last.contains(r#""reason":"shutdown""#), "the last frame does not say shutdown: {text}");
        assert!(last.contains("retry:"), "the last frame suggests no retry delay: {text}");
    }
    let finished = tokio::time::timeout(HANG, app.server).await;
    assert!(matches!(finished, Ok(Ok(()))), "the server did not finish its graceful shutdown: {finished:?}");
}
