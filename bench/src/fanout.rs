//! `viewset-bench fanout`: N stream subscribers (`GET /api/posts/stream`) on one in-process blog over SQLite, one
//! write, and the time until the first and the last subscriber receive its `created` frame (issue 6). Clients and
//! server share the process and the loopback, so the figures include both sides. Run twice per count: with
//! identical requests (one view: the subscribers share each event's visibility check) and with a distinct header
//! per subscriber (as many views as subscribers: one check each, the worst case).

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Barrier;

/// Options of `fanout`.
pub struct Options {
    counts: Vec<usize>,
}

impl Options {
    /// `--subscribers 100,1000,5000`.
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options { counts: vec![10, 100, 1000, 5000] };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let value = it.next().ok_or(format!("`{arg}` needs a value"))?;
            match arg.as_str() {
                "--subscribers" => {
                    options.counts = value
                        .split(',')
                        .map(|n| n.trim().parse().map_err(|_| "--subscribers takes numbers"))
                        .collect::<Result<_, _>>()?
                }
                other => return Err(format!("unknown option `{other}`")),
            }
        }
        Ok(options)
    }
}

/// Runs the measurement.
pub fn run(options: Options) -> Result<(), String> {
    tokio::runtime::Runtime::new().map_err(|e| e.to_string())?.block_on(async {
        println!("| subscribers | views | first received (ms) | last received (ms) | all received |");
        println!("|---|---|---|---|---|");
        for n in options.counts {
            for distinct in [false, true] {
                let (first, last, got) = once(n, distinct).await?;
                let views = if distinct { n } else { 1 };
                println!("| {n} | {views} | {first:.1} | {last:.1} | {got}/{n} |");
            }
        }
        Ok(())
    })
}

async fn once(n: usize, distinct: bool) -> Result<(f64, f64, usize), String> {
    let file = std::env::temp_dir().join(format!("viewset-fanout-{}-{n}-{distinct}.db", std::process::id()));
    let url = format!("sqlite://{}?mode=rwc", file.display());
    let db = blog::connect_and_migrate(&url).await.map_err(|e| e.to_string())?;
    blog::seed::seed_if_empty(&db).await.map_err(|e| e.to_string())?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(|e| e.to_string())?;
    let base = format!("http://{}", listener.local_addr().map_err(|e| e.to_string())?);
    let server = tokio::spawn(async move { axum::serve(listener, blog::app(db)).await.ok() });
    let client = reqwest::Client::builder().pool_max_idle_per_host(0).build().map_err(|e| e.to_string())?;
    let ready = Arc::new(Barrier::new(n + 1));
    let mut subscribers = Vec::with_capacity(n);
    for i in 0..n {
        let (client, base, ready) = (client.clone(), base.clone(), ready.clone());
        subscribers.push(tokio::spawn(async move {
            let mut request = client.get(format!("{base}/api/posts/stream"));
            if distinct {
                request = request.header("x-fanout-client", i.to_string());
            }
            let mut response = request.send().await.ok()?;
            let mut seen = String::new();
            let mut waited = false;
            loop {
                let chunk = tokio::time::timeout(Duration::from_secs(60), response.chunk()).await.ok()?.ok()??;
                seen.push_str(&String::from_utf8_lossy(&chunk));
                if !waited && seen.contains("event: ready") {
                    waited = true;
                    ready.wait().await;
                }
                if seen.contains("event: created") {
                    return Some(Instant::now());
                }
            }
        }));
    }
    ready.wait().await;
    let start = Instant::now();
    let created = client
        .post(format!("{base}/api/posts/"))
        .bearer_auth("bob-token")
        .header("content-type", "application/json")
        .body(r#"{"title": "fan-out", "body": "b", "author_id": 1}"#)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if created.status() != reqwest::StatusCode::CREATED {
        return Err(format!("create answered {}", created.status()));
    }
    let mut times = Vec::with_capacity(n);
    for subscriber in subscribers {
        if let Ok(Some(at)) = subscriber.await {
            times.push(at.duration_since(start).as_secs_f64() * 1000.0);
        }
    }
    server.abort();
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
    }
    let first = times.iter().copied().fold(f64::INFINITY, f64::min);
    let last = times.iter().copied().fold(0.0, f64::max);
    Ok((first, last, times.len()))
}
