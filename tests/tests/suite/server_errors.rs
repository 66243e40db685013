//! A server error teaches where to look (issue 15), on SQLite and PostgreSQL: a real 500 (the database lost the
//! posts table under the running blog) is JSON without internals, carries the request id echoed in
//! `x-request-id`, and the server logged it through `tracing` with that same id.

use std::io::Write;
use std::sync::{Mutex, Once};

use reqwest::StatusCode;
use sea_orm::ConnectionTrait;
use serde_json::Value;
use viewset_tests::harness::TestApp;
use viewset_tests::on_every_database;

on_every_database!(TestApp::blog => a_server_error_is_logged_with_the_id_it_answers);

/// Everything the process logged through `tracing` (both databases' scenarios share it; each looks for its own id).
static LOG: Mutex<Vec<u8>> = Mutex::new(Vec::new());

struct Captured;

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        LOG.lock().expect("log").extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn capture_logs() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        tracing_subscriber::fmt().with_writer(|| Captured).with_ansi(false).init();
    });
}

fn logged() -> String {
    String::from_utf8_lossy(&LOG.lock().expect("log")).into_owned()
}

async fn a_server_error_is_logged_with_the_id_it_answers(app: TestApp) {
    capture_logs();
    app.db.execute_unprepared("ALTER TABLE posts RENAME TO posts_elsewhere").await.expect("rename the table");

    // The server makes the id when the client sends none …
    let response = app.client().get(format!("{}/api/posts/", app.base)).send().await.expect("request");
    assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
    let id = response.headers()["x-request-id"].to_str().expect("an ASCII request id").to_string();
    let body: Value = response.json().await.expect("a JSON body");
    assert_eq!(body["code"], "database_error", "{body}");
    assert_eq!(body["request_id"], id.as_str(), "the body names the id of the response: {body}");
    assert!(!body.to_string().contains("posts_elsewhere") && !body.to_string().contains("SELECT"), "{body}");
    let line = logged().lines().find(|l| l.contains("request failed") && l.contains(&id)).map(str::to_string);
    let line = line.unwrap_or_else(|| panic!("no `request failed` line with {id} in the log:\n{}", logged()));
    assert!(line.contains("status=500") && line.contains("code=database_error"), "{line}");
    // The cause itself is logged inside the request's span, so it carries the id too.
    let cause = logged().lines().any(|l| l.contains("database error in a generated endpoint") && l.contains(&id));
    assert!(cause, "the database error is logged with {id}:\n{}", logged());

    // … and keeps the client's own.
    let mine = format!("report-{}", app.base.rsplit(':').next().expect("a port"));
    let response = app.client().get(format!("{}/api/posts/1", app.base)).header("x-request-id", &mine).send().await;
    let response = response.expect("request");
    assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(response.headers()["x-request-id"], mine.as_str());
    assert_eq!(response.json::<Value>().await.expect("a JSON body")["request_id"], mine.as_str());
    assert!(logged().lines().any(|l| l.contains("request failed") && l.contains(&mine)), "{}", logged());
}
