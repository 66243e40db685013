//! A server-sent-events client for the stream tests: frames parsed from a real streaming response.

use reqwest::StatusCode;
use serde_json::Value;

use crate::harness::TestApp;

/// One server-sent event.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Frame {
    /// `event:`
    pub event: String,
    /// `id:`
    pub id: Option<String>,
    /// `data:` parsed as JSON.
    pub data: Value,
}

/// A streaming SSE client over a real connection.
pub struct SseClient {
    response: reqwest::Response,
    buffer: String,
}

impl SseClient {
    /// Connects to `path` with an optional token and `Last-Event-ID`; panics unless the answer is 200.
    pub async fn connect(app: &TestApp, path: &str, token: Option<&str>, last_event_id: Option<&str>) -> SseClient {
        SseClient::connect_to(app.client(), &format!("{}{path}", app.base), token, last_event_id).await
    }

    /// [`SseClient::connect`] to any `url` (a server of another process, a balancer).
    pub async fn connect_to(
        client: &reqwest::Client,
        url: &str,
        token: Option<&str>,
        last_event_id: Option<&str>,
    ) -> SseClient {
        let mut request = client.get(url);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(id) = last_event_id {
            request = request.header("last-event-id", id);
        }
        let response = request.send().await.expect("connect");
        assert_eq!(response.status(), StatusCode::OK, "stream {url}");
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        SseClient { response, buffer: String::new() }
    }

    /// A header of the stream's response.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.response.headers().get(name)?.to_str().ok()
    }

    /// The next event frame (comments skipped), or `None` if none arrives within `wait`.
    pub async fn next(&mut self, wait: std::time::Duration) -> Option<Frame> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let raw: String = self.buffer.drain(..end + 2).collect();
                let mut frame = Frame::default();
                let mut data = String::new();
                for line in raw.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        frame.event = v.trim().to_string();
                    } else if let Some(v) = line.strip_prefix("id:") {
                        frame.id = Some(v.trim().to_string());
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.trim_start());
                    }
                }
                if frame.event.is_empty() && data.is_empty() {
                    continue; // keep-alive comment
                }
                frame.data = serde_json::from_str(&data).unwrap_or(Value::String(data));
                return Some(frame);
            }
            let chunk = tokio::time::timeout_at(deadline, self.response.chunk()).await.ok()?.expect("stream chunk")?;
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }
}
