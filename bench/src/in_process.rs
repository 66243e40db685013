//! What the in-process measurements (`reads`, `writes`) share: a fresh PostgreSQL database for the run, the router
//! served on a loopback port in this process, and a keep-alive client that sends one identity.

use std::future::Future;
use std::time::Duration;

use tokio::task::JoinHandle;

use crate::harness::db;

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
