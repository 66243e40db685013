//! The soak's clients: load workers that keep a ledger of every write that succeeded, and stream subscribers that
//! record every change event by primary key, so that what each subscriber received can be checked row by row.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use tokio::sync::Barrier;

/// The writes that succeeded on one row.
#[derive(Debug, Default, Clone, Copy)]
pub struct Row {
    pub patches: u32,
    pub deleted: bool,
}

/// What the load workers saw.
#[derive(Default)]
pub struct Totals {
    /// Requests by operation.
    pub requests: Mutex<BTreeMap<&'static str, u64>>,
    /// Every row created, with the writes that succeeded on it.
    pub ledger: Mutex<HashMap<i64, Row>>,
    /// Answers other than the operation's success status, and requests without an answer.
    pub unexpected: AtomicU64,
    pub no_answer: AtomicU64,
    /// The first problems, for the report.
    pub samples: Mutex<Vec<String>>,
}

impl Totals {
    fn note_problem(&self, counter: &AtomicU64, what: String) {
        counter.fetch_add(1, Ordering::Relaxed);
        let mut samples = self.samples.lock().unwrap();
        if samples.len() < 20 {
            samples.push(what);
        }
    }
}

/// A small deterministic generator (xorshift64*), one per worker.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

/// One load worker until `deadline`: 20 % creates (while it holds under 50 rows), 30 % filtered lists, 20 %
/// retrieves, 15 % patches, 15 % deletes, each on rows this worker created; as `bob-token`. With `interval`, one
/// request per interval at most; otherwise as fast as the answers come.
pub async fn work(
    (client, base): (reqwest::Client, String),
    worker: usize,
    (deadline, interval): (Instant, Option<Duration>),
    totals: Arc<Totals>,
) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (worker as u64 + 1));
    let mut mine: Vec<i64> = Vec::new();
    let mut i = 0u64;
    let mut next = tokio::time::Instant::now();
    while Instant::now() < deadline {
        if let Some(interval) = interval {
            tokio::time::sleep_until(next).await;
            next += interval;
        }
        i += 1;
        let roll = rng.below(100);
        let id = if mine.is_empty() { 0 } else { mine[rng.below(mine.len() as u64) as usize] };
        let (op, method, path, body, expected) = if mine.is_empty() || (roll < 20 && mine.len() < 50) {
            let body = format!(
                r#"{{"title": "soak-{worker}-{i}", "body": "soak body {i}", "author_id": {}, "views": {}, "published": {}}}"#,
                1 + i % 2,
                rng.below(1000),
                i.is_multiple_of(2)
            );
            ("create", Method::POST, "/api/posts/".to_string(), Some(body), StatusCode::CREATED)
        } else if roll < 50 {
            let path = match i % 3 {
                0 => "/api/posts/?published=true&views__gte=100&ordering=-views&limit=10".to_string(),
                1 => format!("/api/posts/?search=soak-{worker}-&limit=5"),
                _ => "/api/posts/?author_id__in=1,2&ordering=-created_at&limit=20&offset=10".to_string(),
            };
            ("list", Method::GET, path, None, StatusCode::OK)
        } else if roll < 70 {
            ("retrieve", Method::GET, format!("/api/posts/{id}"), None, StatusCode::OK)
        } else if roll < 85 {
            let body = format!(r#"{{"views": {}, "title": "soak-{worker}-{i}-patched"}}"#, rng.below(1000));
            ("patch", Method::PATCH, format!("/api/posts/{id}"), Some(body), StatusCode::OK)
        } else {
            ("delete", Method::DELETE, format!("/api/posts/{id}"), None, StatusCode::OK)
        };
        *totals.requests.lock().unwrap().entry(op).or_default() += 1;
        let mut request = client.request(method, format!("{base}{path}")).bearer_auth("bob-token");
        if let Some(body) = body {
            request = request.header("content-type", "application/json").body(body);
        }
        let answer = match request.send().await {
            Ok(response) => {
                let status = response.status();
                response.bytes().await.map(|b| (status, b))
            }
            Err(e) => Err(e),
        };
        match answer {
            Err(e) => totals.note_problem(&totals.no_answer, format!("{op} {path}: no answer: {e}")),
            Ok((status, body)) if status != expected => {
                let text = String::from_utf8_lossy(&body).chars().take(200).collect::<String>();
                totals.note_problem(&totals.unexpected, format!("{op} {path}: {status} {text}"));
            }
            Ok((_, body)) => match op {
                "create" => {
                    let created: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
                    if let Some(id) = created["id"].as_i64() {
                        mine.push(id);
                        totals.ledger.lock().unwrap().insert(id, Row::default());
                    }
                }
                "patch" => totals.ledger.lock().unwrap().entry(id).or_default().patches += 1,
                "delete" => {
                    mine.retain(|m| *m != id);
                    totals.ledger.lock().unwrap().entry(id).or_default().deleted = true;
                }
                _ => {}
            },
        }
    }
}

/// What one subscriber received.
#[derive(Default)]
pub struct Seen {
    /// Frames by event name (`ready`, `created`, `reset (lagged)`, …).
    pub counts: BTreeMap<String, u64>,
    /// Per primary key: created, updated and deleted events.
    pub by_row: HashMap<i64, [u32; 3]>,
    /// The stream ended (or never opened) while the soak was still running.
    pub ended_early: bool,
}

impl Seen {
    /// Checks the events against the ledger: a row that still exists got its `created` and one `updated` per
    /// patch, no more; a deleted row got its `deleted`, and at most one `created` and one `updated` per patch
    /// (the stream shows a created or updated record through the subscriber's view when it checks the event,
    /// and a row deleted by then is no longer shown). Returns the events of deleted rows not shown, or what is
    /// wrong.
    pub fn check(&self, ledger: &HashMap<i64, Row>) -> Result<u64, String> {
        let mut not_shown = 0;
        for (id, row) in ledger {
            let [created, updated, deleted] = self.by_row.get(id).copied().unwrap_or_default();
            if !row.deleted && [created, updated, deleted] != [1, row.patches, 0] {
                return Err(format!(
                    "row {id} ({row:?}): received {created} created, {updated} updated, {deleted} deleted"
                ));
            }
            if row.deleted && (deleted == 0 || created > 1 || updated > row.patches) {
                return Err(format!("deleted row {id} ({row:?}): received {created}/{updated}/{deleted}"));
            }
            not_shown += u64::from(1 - created.min(1)) + u64::from(row.patches - updated.min(row.patches));
        }
        if let Some(id) = self.by_row.keys().find(|id| !ledger.contains_key(id)) {
            return Err(format!("events for row {id}, which no worker wrote"));
        }
        Ok(not_shown)
    }

    fn record(&mut self, frame: &str) {
        let Some(event) = frame.lines().find_map(|l| l.strip_prefix("event:")).map(str::trim) else { return };
        let data = frame.lines().find_map(|l| l.strip_prefix("data:")).unwrap_or("{}");
        let data = serde_json::from_str::<serde_json::Value>(data.trim()).unwrap_or_default();
        let name = match data["reason"].as_str() {
            Some(reason) if event == "reset" => format!("reset ({reason})"),
            _ => event.to_string(),
        };
        *self.counts.entry(name).or_default() += 1;
        let slot = match event {
            "created" => 0,
            "updated" => 1,
            "deleted" => 2,
            _ => return,
        };
        self.by_row.entry(data["pk"].as_i64().unwrap_or(-1)).or_default()[slot] += 1;
    }
}

/// One stream client on `/api/posts/stream` (anonymous: posts are public): records every frame in `seen` until
/// `open` turns false; passes `ready` once the stream said `ready` (or failed).
pub async fn subscribe(
    client: reqwest::Client,
    base: String,
    ready: Arc<Barrier>,
    open: Arc<AtomicBool>,
    seen: Arc<Mutex<Seen>>,
) {
    let mut waited = false;
    let mut response = match client.get(format!("{base}/api/posts/stream")).send().await {
        Ok(r) if r.status() == StatusCode::OK => Some(r),
        _ => None,
    };
    let mut buffer = String::new();
    while let Some(r) = response.as_mut() {
        if !open.load(Ordering::SeqCst) {
            break;
        }
        let chunk = match tokio::time::timeout(Duration::from_millis(500), r.chunk()).await {
            Err(_) => continue,
            Ok(Ok(Some(chunk))) => chunk,
            Ok(_) => break,
        };
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let frame: String = buffer.drain(..end + 2).collect();
            seen.lock().unwrap().record(&frame);
        }
        if !waited && seen.lock().unwrap().counts.contains_key("ready") {
            waited = true;
            ready.wait().await;
        }
    }
    seen.lock().unwrap().ended_early = open.load(Ordering::SeqCst);
    if !waited {
        ready.wait().await; // never hold the load back for a subscriber that failed
    }
}
