//! Writes over HTTP for the write tests (`write_retries*.rs`), included with `#[path]`: one answer's status, headers
//! and body; a write with optional credentials, `Idempotency-Key` and `Prefer`; counts read with SQL.

use reqwest::header::HeaderMap;
use reqwest::{Method, StatusCode};
use sea_orm::{ConnectionTrait, Statement};
use serde_json::Value;
use viewset_tests::harness::TestApp;

/// One answer: status, headers, body bytes.
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().expect("ASCII header"))
    }
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|_| panic!("{} is not JSON: {:?}", self.status, self.body))
    }
    pub fn code(&self) -> Option<String> {
        self.json()["code"].as_str().map(str::to_string)
    }
    pub fn replayed(&self) -> bool {
        self.header("idempotent-replayed") == Some("true")
    }
}

/// Sends a write with optional credentials, `Idempotency-Key` (raw bytes) and `Prefer`.
pub async fn write(
    app: &TestApp,
    method: Method,
    path: &str,
    token: Option<&str>,
    key: Option<&[u8]>,
    prefer: Option<&str>,
    body: &str,
) -> Answer {
    let mut request = app
        .client()
        .request(method, format!("{}{path}", app.base))
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(key) = key {
        request = request.header("idempotency-key", reqwest::header::HeaderValue::from_bytes(key).expect("a header"));
    }
    if let Some(prefer) = prefer {
        request = request.header("prefer", prefer);
    }
    let response = request.send().await.expect("request");
    let (status, headers) = (response.status(), response.headers().clone());
    Answer { status, headers, body: response.bytes().await.expect("body").to_vec() }
}

pub async fn count(app: &TestApp, sql: &str) -> i64 {
    let statement = Statement::from_string(app.db.get_database_backend(), sql.to_string());
    let row = app.db.query_one_raw(statement).await.expect("count").expect("a row");
    row.try_get_by_index::<i64>(0).expect("an integer")
}

pub async fn posts_titled(app: &TestApp, title: &str) -> i64 {
    count(app, &format!("SELECT COUNT(*) FROM posts WHERE title = '{title}'")).await
}

pub async fn records(app: &TestApp) -> i64 {
    count(app, "SELECT COUNT(*) FROM viewset_idempotency").await
}
