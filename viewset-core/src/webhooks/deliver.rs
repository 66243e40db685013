//! One feed's delivery task: an endpoint's events of one ViewSet, in order. Every instance runs it; the one holding
//! the feed's lease reads the ViewSet's stream as the endpoint's principal (from the feed's last delivered event,
//! `Last-Event-ID`, so a durable bus resumes where any instance stopped), signs and posts each event, retries it on
//! the endpoint's schedule, and records it as done (delivered or dead-lettered) before reading the next. A crash
//! between the receiver's 2xx and that record sends the event again, with the same `webhook-id`: at least once.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use bytes::Bytes;
use sea_orm::DatabaseConnection;
use serde_json::{Value, json};
use tower::ServiceExt;

use super::Endpoint;
use super::client::{Reply, Sender};
use super::frames::{Frame, Frames};
use super::schedule::retryable;
use super::sign::signatures;
use super::table::{self, Attempt, DeadLetter, now_ms};

/// What every feed of a process shares.
pub(super) struct Shared {
    pub db: DatabaseConnection,
    /// The application's routes (the streams are read through them, as the endpoint's principal).
    pub app: Router,
    /// This process, in the leases.
    pub instance: String,
    pub lease: Duration,
    pub retention: Duration,
}

/// An endpoint's events of one ViewSet.
#[derive(Clone)]
pub(super) struct Feed {
    /// `<endpoint>/<basename>`: its row in the tables.
    pub name: String,
    pub basename: String,
    /// `GET <prefix>/stream` with the endpoint's filter.
    pub stream: String,
    pub endpoint: Arc<Endpoint>,
    pub sender: Sender,
}

/// Told once the feed is delivering: its stream is open (the `ready` frame came), or another instance holds its
/// lease. [`super::Webhooks::start`] waits for it, so an event committed after `start` returns is not missed by a
/// feed's first start.
pub(super) type Ready = Arc<tokio::sync::watch::Sender<bool>>;

/// Runs `feed` for as long as the process does.
pub(super) async fn run(feed: Feed, shared: Arc<Shared>, ready: Ready) {
    let mut pruned = Instant::now();
    loop {
        let acquired = table::acquire(&shared.db, &feed.name, &shared.instance, shared.lease).await;
        if let Ok(None) = acquired {
            ready.send_replace(true);
        }
        match acquired {
            Ok(Some(cursor)) => {
                tracing::info!(target: "viewset::webhooks", feed = %feed.name, "delivering");
                if pruned.elapsed() > Duration::from_secs(3600) {
                    pruned = Instant::now();
                    let _ = table::prune(&shared.db, shared.retention).await;
                }
                hold(&feed, &shared, cursor, &ready).await;
            }
            Ok(None) => {}
            Err(e) => tracing::warn!(target: "viewset::webhooks", feed = %feed.name, "lease: {e}"),
        }
        tokio::time::sleep(shared.lease / 2).await;
    }
}

/// Opens the feed's stream after `cursor`.
pub(super) async fn connect(feed: &Feed, app: &Router, cursor: Option<&str>) -> Result<Frames, String> {
    let mut request = Request::get(&feed.stream).header(header::ACCEPT, "text/event-stream");
    if let Some(cursor) = cursor {
        request = request.header("last-event-id", cursor);
    }
    let mut request = request.body(Body::empty()).map_err(|e| e.to_string())?;
    request.extensions_mut().insert(feed.endpoint.principal.clone());
    let Ok(response) = app.clone().oneshot(request).await;
    if response.status() != StatusCode::OK {
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), 4096).await.unwrap_or_default();
        return Err(format!("{} answered {status}: {}", feed.stream, String::from_utf8_lossy(&body)));
    }
    Ok(Frames::new(response.into_body()))
}

/// Delivers while this instance holds the lease.
async fn hold(feed: &Feed, shared: &Shared, mut cursor: Option<String>, ready: &Ready) {
    let mut renew_at = Instant::now() + shared.lease / 3;
    loop {
        let mut frames = match connect(feed, &shared.app, cursor.as_deref()).await {
            Ok(frames) => frames,
            Err(refused) => {
                tracing::error!(target: "viewset::webhooks", feed = %feed.name, "the stream refused the feed: {refused}");
                return;
            }
        };
        loop {
            let frame = tokio::select! {
                frame = frames.next() => frame,
                () = tokio::time::sleep_until(renew_at.into()) => {
                    if !renewed(feed, shared).await {
                        return;
                    }
                    renew_at = Instant::now() + shared.lease / 3;
                    continue;
                }
            };
            let Some(frame) = frame else { break };
            match frame.event.as_str() {
                "created" | "updated" | "deleted" => {}
                "ready" => {
                    ready.send_replace(true);
                    continue;
                }
                // Events were lost while this stream lagged or the bus reconnected: read again from the cursor.
                "reset" if !frame.data.contains("resume_unavailable") => break,
                "reset" => {
                    tracing::warn!(target: "viewset::webhooks", feed = %feed.name, "events after {cursor:?} are no longer kept: delivery goes on from the newest");
                    continue;
                }
                _ => continue,
            }
            let Some(id) = frame.id.clone() else { continue };
            let delivered = if feed.endpoint.wants(&frame.event) {
                match deliver(feed, shared, &frame, &id).await {
                    Some(delivered) => delivered,
                    None => return,
                }
            } else {
                false
            };
            match table::advance(&shared.db, &feed.name, &shared.instance, &id, delivered).await {
                Ok(true) => cursor = Some(id),
                Ok(false) => return,
                Err(e) => {
                    tracing::warn!(target: "viewset::webhooks", feed = %feed.name, "cursor: {e}");
                    return;
                }
            }
            renew_at = Instant::now() + shared.lease / 3;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

async fn renewed(feed: &Feed, shared: &Shared) -> bool {
    table::renew(&shared.db, &feed.name, &shared.instance, shared.lease).await.unwrap_or(false)
}

/// The Standard Webhooks body of a stream frame: `type` (`<basename>.<event>`), `timestamp` and the frame's data.
pub(super) fn payload(basename: &str, event: &str, data: &str) -> String {
    let data = serde_json::from_str::<Value>(data).unwrap_or_else(|_| Value::String(data.to_owned()));
    let timestamp = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    json!({"type": format!("{basename}.{event}"), "timestamp": timestamp, "data": data}).to_string()
}

/// One signed POST of `payload`.
pub(super) async fn post(feed: &Feed, id: &str, payload: &str) -> Reply {
    let timestamp = now_ms() / 1000;
    let signature = signatures(&feed.endpoint.secrets, id, timestamp, payload.as_bytes());
    let headers = [
        ("webhook-id", id.to_owned()),
        ("webhook-timestamp", timestamp.to_string()),
        ("webhook-signature", signature),
        ("user-agent", concat!("viewset-webhooks/", env!("CARGO_PKG_VERSION")).to_owned()),
    ];
    feed.sender.post(&feed.endpoint.url, &headers, Bytes::from(payload.to_owned())).await
}

/// The attempt's log row.
pub(super) fn attempt_row(feed: &Feed, id: &str, attempt: usize, reply: &Reply, wait: Option<Duration>) -> Attempt {
    let at = now_ms();
    Attempt {
        feed: feed.name.clone(),
        event_id: id.to_owned(),
        attempt: attempt as i32,
        status: reply.status.map(i32::from),
        error: reply.error.clone(),
        latency_ms: reply.latency.as_millis() as i64,
        at,
        next_at: wait.map(|wait| at + wait.as_millis() as i64),
    }
}

/// Sends one event until the receiver takes it (`Some(true)`) or it is given up on and dead-lettered
/// (`Some(false)`); `None` when the lease was lost or the endpoint disabled meanwhile.
async fn deliver(feed: &Feed, shared: &Shared, frame: &Frame, id: &str) -> Option<bool> {
    let payload = payload(&feed.basename, &frame.event, &frame.data);
    let retry = &feed.endpoint.retry;
    for attempt in 1.. {
        let reply = post(feed, id, &payload).await;
        let taken = reply.status.is_some_and(|status| (200..300).contains(&status));
        let again = !taken && reply.status.is_none_or(retryable);
        let wait = if again { retry.wait(attempt, reply.retry_after) } else { None };
        if let Err(e) = table::log(&shared.db, &attempt_row(feed, id, attempt, &reply, wait)).await {
            tracing::warn!(target: "viewset::webhooks", feed = %feed.name, "attempt log: {e}");
        }
        if taken {
            crate::measure::webhook("delivered");
            return Some(true);
        }
        let disabled = table::failed(&shared.db, &feed.name, retry.disable_after).await.unwrap_or(false);
        let Some(wait) = wait.filter(|_| !disabled) else {
            crate::measure::webhook("dead_lettered");
            let dead = DeadLetter {
                feed: feed.name.clone(),
                event_id: id.to_owned(),
                payload,
                status: reply.status.map(i32::from),
                error: reply.error,
                at: now_ms(),
            };
            if let Err(e) = table::bury(&shared.db, &dead).await {
                tracing::error!(target: "viewset::webhooks", feed = %feed.name, "dead letter of {id} not kept: {e}");
            }
            if disabled {
                tracing::error!(target: "viewset::webhooks", feed = %feed.name, "disabled: it failed every attempt for longer than {:?}", retry.disable_after);
                return None;
            }
            tracing::warn!(target: "viewset::webhooks", feed = %feed.name, "event {id} dead-lettered after {attempt} attempts");
            return Some(false);
        };
        crate::measure::webhook("failed");
        // Wait, renewing the lease as it goes.
        let until = Instant::now() + wait;
        while Instant::now() < until {
            tokio::time::sleep(until.saturating_duration_since(Instant::now()).min(shared.lease / 3)).await;
            if !renewed(feed, shared).await {
                return None;
            }
        }
    }
    None
}
