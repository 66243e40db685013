//! `viewset-bench`: the benchmark suite of issue 8. Run it with `bash bench/run.sh` (see BENCHMARKS.md).
//!
//! One binary, several roles:
//! - `serve <viewset|viewset-nolimits|seaorm|sqlx|sqlx-mysql> --db URL --bind ADDR`: one of the Rust servers under
//!   test (the second only for `bench/profile.sh`: the first without the transport limits; the last on MariaDB);
//! - `run [options]`: the harness — fresh databases, servers one at a time, `wrk` at fixed concurrencies, results
//!   (`--database mariadb`: viewset against the hand-written sqlx MySQL-driver server on MariaDB);
//! - `compile [options]`: compile cost of throwaway apps with 1 and 20 ViewSets;
//! - `report`: the Markdown section rendered again from `bench/results/latest.json`;
//! - `pages`: page 1 against a page 10,000 rows deep, offset and cursor, as ratios;
//! - `reads`: `?expand=author` against a client's N+1 requests, and `?count=none|estimated` against `exact` on
//!   1,000,000 rows, as ratios;
//! - `aggregate`: `GET /api/posts/aggregate` over 1,000,000 posts against the same statement written with sqlx and a
//!   client paging through the list, as ratios, and the process's peak memory around them;
//! - `nested`: an author with 20 posts in one nested create against 21 single requests and a hand-written sqlx
//!   transaction, as ratios;
//! - `writes`: 1,000 posts in one bulk request against 1,000 single POSTs and a hand-written axum + sqlx `INSERT …
//!   SELECT unnest(…)`, and what an `Idempotency-Key` adds to a create, as ratios;
//! - `fanout`: N stream subscribers, one write, time until each receives it (`fanout-client`: the subscribers'
//!   process it starts);
//! - `events`: events/s and delivery latency with 1 and 3 instances on each event bus (`NOTIFY`, outbox,
//!   JetStream), 1,000 subscribers;
//! - `futures`: the size of the futures the viewset server's default handlers return (memory per request in flight);
//! - `traffic`: what a throttle check costs a retrieve (in process, Redis) and requests/s with load shedding under
//!   4× overload against none;
//! - `soak`: the blog's release binary under a mixed load with stream subscribers for minutes (`bench/soak.sh`).
//!
//! Nothing here is a test and nothing asserts a timing: the output is numbers and ratios measured in one run.

mod aggregate;
mod aggregate_sqlx;
mod compile;
mod events;
mod fanout;
mod futures;
mod handwritten;
mod harness;
mod in_process;
mod nested;
mod pages;
mod reads;
mod repo;
mod soak;
mod sql_count;
mod traffic;
mod viewset_server;
mod webhooks;
mod writes;

use std::net::SocketAddr;
use std::process::ExitCode;

const USAGE: &str = "\
usage:
  viewset-bench serve <viewset|viewset-nolimits|viewset-throttle|viewset-throttle-redis|viewset-outbox|viewset-nats|
                       seaorm|sqlx|sqlx-mysql>
                      --db URL --bind ADDR
                      [--router-per-connection]
  viewset-bench traffic [--pg URL] [--redis URL] [--duration SECS] [--rounds N] [--capacity N]
  viewset-bench run [--database postgres|mariadb] [--pg URL] [--mysql URL] [--duration SECS] [--warmup SECS] [--levels 1,16,64] [--rounds N] [--rows N] [--deep-rows N]
                    [--python-venv DIR] [--no-python] [--no-compile] [--servers a,b,...] [--out FILE]
                    [--markdown FILE | --no-markdown]
  viewset-bench compile [--out FILE] [--target-dir DIR] [--profile default|new] [--keep]
  viewset-bench report [--from bench/results/latest.json] [--markdown BENCHMARKS.md]
  viewset-bench pages [--pg URL] [--rows N] [--requests N]
  viewset-bench reads [--pg URL] [--rows N] [--deep-offset N] [--posts N] [--authors N] [--iterations N]
  viewset-bench writes [--pg URL] [--rows N] [--creates N]
  viewset-bench aggregate [--pg URL] [--rows N] [--authors N] [--iterations N] [--paging-runs N]
  viewset-bench nested [--pg URL] [--lines N] [--iterations N]
  viewset-bench fanout [--subscribers 10,100,1000,5000,10000] [--views 1000] [--filters 1000]
  viewset-bench events [--pg URL] [--nats URL] [--seconds S] [--subscribers N] [--writers W]
  viewset-bench webhooks [--pg URL] [--nats URL] [--seconds S] [--writers W]
  viewset-bench futures
  viewset-bench soak --blog PATH [--pg URL] [--duration SECS] [--workers N] [--subscribers N] [--sample SECS]
                     [--max-connections N] [--rate REQUESTS_PER_SECOND]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("serve") => serve(&args[1..]),
        Some("run") => harness::Options::parse(&args[1..]).and_then(harness::run),
        Some("compile") => compile::Options::parse(&args[1..]).and_then(compile::run),
        Some("report") => harness::rerender(&args[1..]),
        Some("events") => events::Options::parse(&args[1..]).and_then(events::run),
        Some("webhooks") => webhooks::Options::parse(&args[1..]).and_then(webhooks::run),
        Some("fanout") => fanout::Options::parse(&args[1..]).and_then(fanout::run),
        Some("fanout-client") => fanout::client(&args[1..]),
        Some("pages") => pages::Options::parse(&args[1..]).and_then(pages::run),
        Some("reads") => reads::Options::parse(&args[1..]).and_then(reads::run),
        Some("writes") => writes::Options::parse(&args[1..]).and_then(writes::run),
        Some("aggregate") => aggregate::Options::parse(&args[1..]).and_then(aggregate::run),
        Some("nested") => nested::Options::parse(&args[1..]).and_then(nested::run),
        Some("futures") => futures::run(),
        Some("soak") => soak::Options::parse(&args[1..]).and_then(soak::run),
        Some("traffic") => traffic::Options::parse(&args[1..]).and_then(traffic::run),
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("viewset-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Which Rust server to start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RustKind {
    /// The blog's generated `PostViewSet` (plus a cursor-paginated ViewSet at `/cursor/posts/`).
    Viewset,
    /// The same app without `Limits::apply` (request id, size limits, timeout, JSON errors): not a server the
    /// harness compares, only for `bench/profile.sh` to measure what the limits cost a request.
    ViewsetNoLimits,
    /// The viewset server with a throttle that never refuses, buckets in process (what a check costs).
    ViewsetThrottle,
    /// The same with the buckets in Redis.
    ViewsetThrottleRedis,
    /// The viewset server with the durable outbox as its event bus (what a durable event costs a write).
    ViewsetOutbox,
    /// The viewset server with NATS JetStream (`nats://127.0.0.1:4222`, or `BENCH_NATS_URL`) as its event bus.
    ViewsetNats,
    /// The same routes written by hand with axum + sea-orm.
    SeaOrm,
    /// The same routes written by hand with axum + sqlx.
    Sqlx,
    /// The same routes written by hand with axum + sqlx's MySQL driver (MariaDB).
    SqlxMysql,
}

impl RustKind {
    fn parse(s: &str) -> Result<Self, String> {
        match s {
            "viewset" => Ok(RustKind::Viewset),
            "viewset-nolimits" => Ok(RustKind::ViewsetNoLimits),
            "viewset-throttle" => Ok(RustKind::ViewsetThrottle),
            "viewset-throttle-redis" => Ok(RustKind::ViewsetThrottleRedis),
            "viewset-outbox" => Ok(RustKind::ViewsetOutbox),
            "viewset-nats" => Ok(RustKind::ViewsetNats),
            "seaorm" => Ok(RustKind::SeaOrm),
            "sqlx" => Ok(RustKind::Sqlx),
            "sqlx-mysql" => Ok(RustKind::SqlxMysql),
            other => Err(format!(
                "unknown server kind `{other}` (viewset, viewset-nolimits, viewset-throttle, viewset-throttle-redis, \
                 viewset-outbox, viewset-nats, seaorm, sqlx, sqlx-mysql)"
            )),
        }
    }
}

fn serve(args: &[String]) -> Result<(), String> {
    let kind = RustKind::parse(args.first().ok_or(USAGE)?)?;
    let mut db = None;
    let mut bind = None;
    // `axum::serve(listener, router)` (axum copies the route table for every connection) instead of sharing one
    // through `into_make_service()`: only for `bench/memory.sh`, to measure what the copies hold.
    let mut per_connection = false;
    let mut it = args[1..].iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--db" => db = it.next().cloned(),
            "--bind" => bind = it.next().cloned(),
            "--router-per-connection" => per_connection = true,
            other => return Err(format!("unknown option `{other}`\n{USAGE}")),
        }
    }
    let db = db.ok_or("--db is required")?;
    let bind: SocketAddr = bind.ok_or("--bind is required")?.parse().map_err(|e| format!("--bind: {e}"))?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| e.to_string())?;
    runtime.block_on(async move {
        let app = match kind {
            RustKind::Viewset => viewset_server::app(&db, true).await?,
            RustKind::ViewsetNoLimits => viewset_server::app(&db, false).await?,
            RustKind::ViewsetThrottle => viewset_server::throttled(&db, traffic::never_refusing(None)?).await?,
            RustKind::ViewsetThrottleRedis => {
                viewset_server::throttled(&db, traffic::never_refusing(Some(&traffic::redis_url()))?).await?
            }
            RustKind::ViewsetOutbox => viewset_server::durable(&db, false).await?,
            RustKind::ViewsetNats => viewset_server::durable(&db, true).await?,
            RustKind::SeaOrm => handwritten::seaorm::app(&db).await?,
            RustKind::Sqlx => handwritten::sqlx::app(&db).await?,
            RustKind::SqlxMysql => handwritten::sqlx_mysql::app(&db).await?,
        };
        let listener = tokio::net::TcpListener::bind(bind).await.map_err(|e| format!("bind {bind}: {e}"))?;
        if per_connection {
            return axum::serve(listener, app).await.map_err(|e| e.to_string());
        }
        if matches!(kind, RustKind::ViewsetThrottle | RustKind::ViewsetThrottleRedis) {
            // Anonymous callers are throttled by their address: the peer's, as the blog's `main` serves it.
            let app = app.into_make_service_with_connect_info::<SocketAddr>();
            return axum::serve(listener, app).await.map_err(|e| e.to_string());
        }
        axum::serve(listener, app.into_make_service()).await.map_err(|e| e.to_string())
    })
}
