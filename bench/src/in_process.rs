//! What the in-process measurements (`reads`, `writes`, `aggregate`, `nested`) share: a fresh PostgreSQL database
//! for the run, the router served on a loopback port in this process, a keep-alive client that sends one identity,
//! and this process's resident set (server and client alike).

use std::future::Future;
use std::time::Duration;

use tokio::task::JoinHandle;

use crate::harness::db;
use crate::harness::procs::status_field;

/// [`on_fresh_database`] in a runtime of its own: the whole of a subcommand's `run`.
pub fn block_on_fresh_database<F, Fut>(pg: &str, prefix: &str, measure: F) -> Result<(), String>
where
    F: FnOnce(String) -> Fut,
    Fut: Future<Output = Result<(), String>>,
{
    tokio::runtime::Runtime::new().map_err(|e| e.to_string())?.block_on(on_fresh_database(pg, prefix, measure))
}

/// Runs `measure` on a fresh database `<prefix>_<pid>` of the server at `pg` (its URL as the argument), dropped
/// afterwards whatever `measure` returned.
pub async fn on_fresh_database<F, Fut>(pg: &str, prefix: &str, measure: F) -> Result<(), String>
where
    F: FnOnce(String) -> Fut,
    Fut: Future<Output = Result<(), String>>,
{
    let name = format!("{prefix}_{}", std::process::id());
    let admin = db::connect(&format!("{pg}/postgres")).await?;
    let url = db::recreate(&admin, pg, &name).await?;
    let result = measure(url).await;
    let dropped = db::drop_db(&admin, &name).await;
    admin.close().await;
    result.and(dropped)
}

/// `app` served on a loopback port: its base URL and the server's task (abort it to stop the server).
pub async fn serve(app: axum::Router) -> Result<(String, JoinHandle<()>), String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(|e| e.to_string())?;
    let base = format!("http://{}", listener.local_addr().map_err(|e| e.to_string())?);
    let server = tokio::spawn(async move {
        axum::serve(listener, app.into_make_service()).await.ok();
    });
    Ok((base, server))
}

/// A keep-alive client sending `Authorization: <authorization>` with every request (120 s timeout).
pub fn client(authorization: &'static str) -> Result<reqwest::Client, String> {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(reqwest::header::AUTHORIZATION, reqwest::header::HeaderValue::from_static(authorization));
    let client = reqwest::Client::builder().default_headers(headers).timeout(Duration::from_secs(120)).build();
    client.map_err(|e| e.to_string())
}

/// `writers` concurrent writers creating posts as Bob's `client`, round robin over `bases` (`http://host:port`),
/// until `until`; each title is `t<stamp()>` (the send time, for a delivery latency). The posts created.
pub async fn create_posts(
    client: &reqwest::Client,
    bases: &[String],
    writers: usize,
    until: std::time::Instant,
    stamp: fn() -> u64,
) -> Result<usize, String> {
    let writers: Vec<_> = (0..writers)
        .map(|w| {
            let (client, bases) = (client.clone(), bases.to_vec());
            tokio::spawn(async move {
                let mut created = 0usize;
                while std::time::Instant::now() < until {
                    let base = &bases[(w + created) % bases.len()];
                    let body = format!(r#"{{"title": "t{}", "body": "b", "author_id": 1}}"#, stamp());
                    let sent = client.post(format!("{base}/api/posts/")).header("content-type", "application/json");
                    match sent.body(body).send().await {
                        Ok(response) if response.status().as_u16() == 201 => created += 1,
                        Ok(response) => eprintln!("create answered {}", response.status()),
                        Err(err) => eprintln!("create failed: {err}"),
                    }
                }
                created
            })
        })
        .collect();
    let mut created = 0;
    for writer in writers {
        created += writer.await.map_err(|e| e.to_string())?;
    }
    Ok(created)
}

/// This process's resident set now (server and client: the server is in process), KiB.
pub fn rss_kib() -> u64 {
    status_field(std::process::id(), "VmRSS:").unwrap_or(0)
}

/// This process's peak resident set since the last [`reset_peak`], KiB.
pub fn peak_kib() -> u64 {
    status_field(std::process::id(), "VmHWM:").unwrap_or(0)
}

/// Resets this process's `VmHWM` to its current resident set.
pub fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}
