//! `viewset-bench traffic`: what rate limiting and load shedding cost and give, measured in one run.
//!
//! 1. **A throttle check per retrieve**: three viewset servers on one seeded PostgreSQL database (no throttle, a
//!    throttle in process, a throttle in Redis), each with an anonymous rate no request reaches, so every request
//!    is counted and none refused; `wrk` retrieves random posts with 16 connections, the servers interleaved in
//!    rounds. Prints requests/s and p99 per server and the ratio to the unthrottled one. (Instructions per request:
//!    `bash bench/profile.sh viewset,viewset-throttle,viewset-throttle-redis retrieve`.)
//! 2. **Load shedding under 4× overload**: the same server with `Limits::max_in_flight = capacity` and with no
//!    bound; `4 × capacity` clients list posts in a loop, each honouring `Retry-After` when shed (as a client
//!    library does). Prints the admitted requests/s, the shed ones, and p50/p99 of the admitted requests.
//!
//! Nothing is asserted: the output is numbers and ratios of one run on this machine.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::Router;
use viewset_core::limits::Limits;
use viewset_core::throttle::{Rate, Throttle};

use crate::harness::db;
use crate::harness::load::{self, Requests, WrkSummary};
use crate::viewset_server;

/// Options of `traffic`.
pub struct Options {
    pg: String,
    redis: String,
    duration: Duration,
    rounds: usize,
    capacity: usize,
}

impl Options {
    /// `--pg URL --redis URL --duration SECS --rounds N --capacity N`.
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options {
            pg: "postgres://postgres@127.0.0.1:5432".into(),
            redis: redis_url(),
            duration: Duration::from_secs(5),
            rounds: 3,
            capacity: 8,
        };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let value = it.next().ok_or(format!("`{arg}` needs a value"))?;
            let number = || value.parse::<u64>().map_err(|_| format!("{arg} takes a number"));
            match arg.as_str() {
                "--pg" => options.pg = value.trim_end_matches('/').to_string(),
                "--redis" => options.redis = value.clone(),
                "--duration" => options.duration = Duration::from_secs(number()?),
                "--rounds" => options.rounds = number()? as usize,
                "--capacity" => options.capacity = number()? as usize,
                other => return Err(format!("unknown option `{other}`")),
            }
        }
        Ok(options)
    }
}

/// `BENCH_REDIS_URL`, else the local Redis.
pub fn redis_url() -> String {
    std::env::var("BENCH_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// A throttle whose anonymous and user rates no benchmark reaches: every request is counted, none refused.
pub fn never_refusing(redis: Option<&str>) -> Result<Throttle, String> {
    let rate = Rate::new(Rate::MAX_COUNT, viewset_core::throttle::Period::Second);
    let throttle = Throttle::new().anon(rate).user(rate).namespace(&format!("bench-{}", std::process::id()));
    match redis {
        Some(url) => throttle.redis(url),
        None => Ok(throttle),
    }
}

/// Runs both measurements.
pub fn run(options: Options) -> Result<(), String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?
        .block_on(measure(options))
}

async fn measure(options: Options) -> Result<(), String> {
    let admin = db::connect(&format!("{}/postgres", options.pg)).await?;
    let url = db::recreate(&admin, &options.pg, "vsbench_traffic").await?;
    // The first server migrates; then the rows of bench/seed.sql (5,000 posts).
    let plain = serve(viewset_server::app(&url, true).await?).await?;
    seed(&url)?;
    let memory = serve(viewset_server::throttled(&url, never_refusing(None)?).await?).await?;
    let redis = serve(viewset_server::throttled(&url, never_refusing(Some(&options.redis))?).await?).await?;
    println!(
        "## A throttle check per retrieve (wrk, 16 connections, {} s x {} rounds)\n",
        options.duration.as_secs(),
        options.rounds
    );
    let script = std::env::temp_dir().join(format!("vsbench-traffic-{}.lua", std::process::id()));
    let requests = Requests::GetRandomId { prefix: "/api/posts/".into(), n: 5000, uuid: false };
    std::fs::write(&script, load::script(&requests)).map_err(|e| e.to_string())?;
    let servers = [("no throttle", &plain), ("throttle, in process", &memory), ("throttle, Redis", &redis)];
    let mut runs: Vec<Vec<WrkSummary>> = vec![Vec::new(); servers.len()];
    for _ in 0..options.rounds {
        for (i, (_, base)) in servers.iter().enumerate() {
            runs[i].push(load::run(base, &script, 16, options.duration).await?);
        }
    }
    let median = |values: &mut Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    let baseline = median(&mut runs[0].iter().map(WrkSummary::rps).collect());
    println!("| server | requests/s (median) | ratio to no throttle | p99 (median) | errors |");
    println!("|---|---:|---:|---:|---:|");
    for (i, (name, _)) in servers.iter().enumerate() {
        let rps = median(&mut runs[i].iter().map(WrkSummary::rps).collect());
        let p99 = median(&mut runs[i].iter().map(|r| r.p99_us as f64).collect());
        let errors: u64 = runs[i].iter().map(WrkSummary::errors).sum();
        println!("| {name} | {rps:.0} | {:.3} | {:.2} ms | {errors} |", rps / baseline, p99 / 1000.0);
    }
    let _ = std::fs::remove_file(&script);

    let clients = options.capacity * 4;
    println!(
        "\n## Load shedding under 4x overload ({clients} clients, `max_in_flight = {}`, GET /api/posts/?limit=50, {} s)\n",
        options.capacity,
        options.duration.as_secs() * 2
    );
    let shedding = Limits::default().with_max_in_flight(Some(options.capacity));
    let unbounded = Limits::default().with_max_in_flight(None);
    println!("| server | admitted requests/s | shed (503) | p50 admitted | p99 admitted | other errors |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, limits) in [("no bound", unbounded), ("max_in_flight", shedding)] {
        let base = serve(viewset_server::limited(&url, limits).await?).await?;
        let result = overload(&base, clients, options.duration * 2).await;
        println!(
            "| {name} | {:.0} | {} | {:.2} ms | {:.2} ms | {} |",
            result.admitted.len() as f64 / (options.duration * 2).as_secs_f64(),
            result.shed,
            percentile(&result.admitted, 50) * 1000.0,
            percentile(&result.admitted, 99) * 1000.0,
            result.errors
        );
    }
    db::drop_db(&admin, "vsbench_traffic").await
}

/// Serves `app` on a free loopback port with the peer address (as the blog's `main`); returns its base URL.
async fn serve(app: Router) -> Result<String, String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(|e| e.to_string())?;
    let base = format!("http://{}", listener.local_addr().map_err(|e| e.to_string())?);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>()).await;
    });
    Ok(base)
}

fn seed(url: &str) -> Result<(), String> {
    let file = crate::repo::repo_root().join("bench/seed.sql");
    let status = std::process::Command::new("psql").args(["-q", url, "-f"]).arg(&file).status();
    match status {
        Ok(status) if status.success() => Ok(()),
        other => Err(format!("psql -f {}: {other:?}", file.display())),
    }
}

struct Overload {
    /// Latencies of the admitted (2xx) requests, in seconds.
    admitted: Vec<f64>,
    shed: u64,
    errors: u64,
}

/// `clients` loops of `GET /api/posts/?limit=50` for `duration`; a shed client waits its `Retry-After`.
async fn overload(base: &str, clients: usize, duration: Duration) -> Overload {
    let deadline = Instant::now() + duration;
    let url = format!("{base}/api/posts/?limit=50");
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let url = url.clone();
            tokio::spawn(async move {
                let client = reqwest::Client::new();
                let mut out = Overload { admitted: Vec::new(), shed: 0, errors: 0 };
                while Instant::now() < deadline {
                    let started = Instant::now();
                    match client.get(&url).send().await {
                        Ok(response) if response.status().is_success() => {
                            let _ = response.bytes().await;
                            out.admitted.push(started.elapsed().as_secs_f64());
                        }
                        Ok(response) if response.status() == 503 => {
                            out.shed += 1;
                            let wait =
                                response.headers().get("retry-after").and_then(|v| v.to_str().ok()?.parse().ok());
                            tokio::time::sleep(Duration::from_secs(wait.unwrap_or(1))).await;
                        }
                        _ => out.errors += 1,
                    }
                }
                out
            })
        })
        .collect();
    let mut total = Overload { admitted: Vec::new(), shed: 0, errors: 0 };
    for task in tasks {
        if let Ok(part) = task.await {
            total.admitted.extend(part.admitted);
            total.shed += part.shed;
            total.errors += part.errors;
        }
    }
    total
}

fn percentile(values: &[f64], p: usize) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() - 1) * p) / 100]
}
