//! `viewset-bench soak`: the blog's release binary (a child process) on a fresh PostgreSQL database under a mixed
//! load for a fixed time — filtered lists, retrieves, creates, patches and deletes from `--workers` clients — with
//! `--subscribers` stream clients on `/api/posts/stream` (issue 14, "Faults and soak").
//!
//! Every `--sample` seconds it records the server's RSS and the PostgreSQL connections of its database
//! (`pg_stat_activity`). At the end it prints the samples and the totals, and fails when a request got an answer
//! it should not have (anything but the operation's 200 or 201) or no answer, when a subscriber did not receive
//! the events due (see [`clients::Seen::check`]) or lost its stream, when the connections exceeded the pool's
//! bound, or when the RSS grew by more than `--max-rss-growth` MiB after the warm-up (the sample about a minute in,
//! or halfway through a shorter run).

mod clients;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sqlx::{AssertSqlSafe, Executor};
use tokio::sync::Barrier;

use crate::harness::db;
use crate::harness::procs::Server;
use clients::{Seen, Totals, subscribe, work};

/// Options of `soak`.
pub struct Options {
    blog: PathBuf,
    pg: String,
    duration: Duration,
    workers: usize,
    subscribers: usize,
    sample: Duration,
    max_connections: i64,
    /// Requests per second over all workers (0: as fast as the server answers).
    rate: u64,
    /// How many MiB the RSS may grow from the warm-up sample to the last one.
    max_rss_growth_mib: u64,
}

impl Options {
    /// `--blog PATH [--pg URL] [--duration SECS] [--workers N] [--subscribers N] [--sample SECS]
    /// [--max-connections N] [--rate REQUESTS_PER_SECOND] [--max-rss-growth MIB]`.
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut o = Options {
            blog: PathBuf::new(),
            pg: "postgres://postgres@127.0.0.1:5432".into(),
            duration: Duration::from_secs(600),
            workers: 8,
            subscribers: 20,
            sample: Duration::from_secs(10),
            // sqlx's default pool size, which `viewset_core::connect` keeps, plus the event bus's listener.
            max_connections: 11,
            rate: 0,
            // Measured flat (RELIABILITY.md: +0.4 MiB from 1 to 10 minutes); a leak of a request's worth of memory
            // per request passes this within seconds.
            max_rss_growth_mib: 8,
        };
        let mut it = args.iter();
        let number = |v: &str, what: &str| v.parse::<u64>().map_err(|_| format!("{what} takes a number"));
        while let Some(arg) = it.next() {
            let value = it.next().ok_or(format!("`{arg}` needs a value"))?;
            match arg.as_str() {
                "--blog" => o.blog = PathBuf::from(value),
                "--pg" => o.pg = value.trim_end_matches('/').to_string(),
                "--duration" => o.duration = Duration::from_secs(number(value, arg)?),
                "--workers" => o.workers = number(value, arg)? as usize,
                "--subscribers" => o.subscribers = number(value, arg)? as usize,
                "--sample" => o.sample = Duration::from_secs(number(value, arg)?.max(1)),
                "--max-connections" => o.max_connections = number(value, arg)? as i64,
                "--rate" => o.rate = number(value, arg)?,
                "--max-rss-growth" => o.max_rss_growth_mib = number(value, arg)?,
                other => return Err(format!("unknown option `{other}`")),
            }
        }
        if o.blog.as_os_str().is_empty() {
            return Err("--blog (the blog's release binary) is required".into());
        }
        Ok(o)
    }
}

/// Runs the soak.
pub fn run(options: Options) -> Result<(), String> {
    tokio::runtime::Runtime::new().map_err(|e| e.to_string())?.block_on(soak(options))
}

async fn soak(o: Options) -> Result<(), String> {
    let name = format!("viewset_soak_{}", std::process::id());
    let admin = db::connect(&format!("{}/postgres", o.pg)).await?;
    db::drop_db(&admin, &name).await?;
    admin.execute(AssertSqlSafe(format!("CREATE DATABASE \"{name}\""))).await.map_err(|e| e.to_string())?;
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map_err(|e| e.to_string())?;
    let port = port.port();
    let mut command = Command::new(&o.blog);
    command
        .env("DATABASE_URL", format!("{}/{name}", o.pg))
        .env("SERVICE_BIND", format!("127.0.0.1:{port}"))
        .env("RUST_LOG", "warn");
    let log = std::env::temp_dir().join(format!("viewset-soak-{}.log", std::process::id()));
    let mut server = Server::start(command, port, &log)?;
    let client = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().map_err(|e| e.to_string())?;
    let result = match server.wait_ready(&client, "/api/posts/?limit=1", Duration::from_secs(60)).await {
        Ok(()) => drive(&o, &server, &admin, &name, client).await,
        Err(e) => Err(e),
    };
    let log_tail = server.log_tail();
    server.stop();
    db::drop_db(&admin, &name).await.ok();
    if !log_tail.trim().is_empty() {
        println!("\nserver log (last lines, RUST_LOG=warn):\n{log_tail}");
    }
    let _ = std::fs::remove_file(&log);
    result
}

async fn connections(admin: &sqlx::PgPool, database: &str) -> i64 {
    sqlx::query_scalar::<_, i64>("SELECT count(*) FROM pg_stat_activity WHERE datname = $1")
        .bind(database)
        .fetch_one(admin)
        .await
        .unwrap_or(-1)
}

async fn drive(
    o: &Options,
    server: &Server,
    admin: &sqlx::PgPool,
    database: &str,
    client: reqwest::Client,
) -> Result<(), String> {
    let base = server.base_url();
    let connections_at_start = connections(admin, database).await;
    let stream = Arc::new(AtomicBool::new(true));
    let ready = Arc::new(Barrier::new(o.subscribers + 1));
    let seen: Vec<Arc<Mutex<Seen>>> = (0..o.subscribers).map(|_| Arc::default()).collect();
    // No overall timeout for the streams: they stay open for the whole run.
    let stream_client = reqwest::Client::new();
    let subscribers: Vec<_> = (0..o.subscribers)
        .map(|slot| {
            let (client, base, ready, open) = (stream_client.clone(), base.clone(), ready.clone(), stream.clone());
            tokio::spawn(subscribe(client, base, ready, open, seen[slot].clone()))
        })
        .collect();
    ready.wait().await;

    let totals = Arc::new(Totals::default());
    let started = Instant::now();
    let deadline = started + o.duration;
    let interval = (o.rate > 0).then(|| Duration::from_secs_f64(o.workers as f64 / o.rate as f64));
    let workers: Vec<_> = (0..o.workers)
        .map(|w| tokio::spawn(work((client.clone(), base.clone()), w, (deadline, interval), totals.clone())))
        .collect();
    println!("| seconds | RSS (MiB) | PostgreSQL connections | requests so far |");
    println!("|---|---|---|---|");
    let mut rss_samples = Vec::new();
    let mut max_connections = connections_at_start;
    while Instant::now() < deadline {
        tokio::time::sleep(o.sample.min(deadline.saturating_duration_since(Instant::now()))).await;
        let rss = server.rss_kib();
        let conns = connections(admin, database).await;
        max_connections = max_connections.max(conns);
        let requests: u64 = totals.requests.lock().unwrap().values().sum();
        rss_samples.push(rss);
        println!("| {} | {:.1} | {conns} | {requests} |", started.elapsed().as_secs(), rss as f64 / 1024.0);
    }
    for worker in workers {
        worker.await.map_err(|e| e.to_string())?;
    }
    let elapsed = started.elapsed();
    // Let the stream deliver what is in flight (every subscriber has every event due, or 30 s), then close it.
    let ledger = totals.ledger.lock().unwrap().clone();
    let drain = Instant::now();
    while drain.elapsed() < Duration::from_secs(30) && seen.iter().any(|s| s.lock().unwrap().check(&ledger).is_err()) {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let drained = drain.elapsed();
    stream.store(false, Ordering::SeqCst);
    for subscriber in subscribers {
        subscriber.await.map_err(|e| e.to_string())?;
    }
    let (mut lost_streams, mut resets, mut not_shown, mut wrong) = (0, BTreeMap::new(), Vec::new(), Vec::new());
    for seen in &seen {
        let seen = seen.lock().unwrap();
        for (name, n) in seen.counts.iter().filter(|(name, _)| name.starts_with("reset")) {
            *resets.entry(name.clone()).or_insert(0) += n;
        }
        lost_streams += u64::from(seen.ended_early);
        match seen.check(&ledger) {
            Ok(n) => not_shown.push(n),
            Err(e) => wrong.push(e),
        }
    }
    let connections_at_end = connections(admin, database).await;

    let requests = totals.requests.lock().unwrap().clone();
    let total: u64 = requests.values().sum();
    let (unexpected, no_answer) = (totals.unexpected.load(Ordering::Relaxed), totals.no_answer.load(Ordering::Relaxed));
    let mib = |kib: u64| kib as f64 / 1024.0;
    let rss_at = |i: usize| rss_samples.get(i).copied().unwrap_or(0);
    // The sample about a minute in, or halfway through a shorter run.
    let warm = ((60 / o.sample.as_secs().max(1)) as usize).min(rss_samples.len() / 2);
    let growth = rss_samples.last().copied().unwrap_or(0).saturating_sub(rss_at(warm));
    let peak = rss_samples.iter().copied().max().unwrap_or(0);
    let deleted = ledger.values().filter(|r| r.deleted).count();
    let patches: u64 = ledger.values().map(|r| u64::from(r.patches)).sum();
    println!();
    let rate = if o.rate == 0 { "unlimited".to_string() } else { format!("{}/s", o.rate) };
    println!(
        "duration {:.0} s, {} workers (rate {rate}), {} stream subscribers",
        elapsed.as_secs_f64(),
        o.workers,
        o.subscribers
    );
    println!("requests {total} ({:.0}/s): {requests:?}", total as f64 / elapsed.as_secs_f64());
    println!("unexpected answers {unexpected}, requests without an answer {no_answer}");
    println!(
        "RSS first sample {:.1} MiB, after the warm-up {:.1} MiB, last {:.1} MiB, peak {:.1} MiB",
        mib(rss_at(0)),
        mib(rss_at(warm)),
        mib(rss_samples.last().copied().unwrap_or(0)),
        mib(peak)
    );
    println!(
        "writes: {} rows created, {patches} patches, {deleted} deletes; subscribers with every event due: {} of {} \
         ({drained:.1?} after the load); events of rows deleted before the stream checked them, not shown: {:?}",
        ledger.len(),
        o.subscribers - wrong.len(),
        o.subscribers,
        not_shown.iter().min().zip(not_shown.iter().max()),
    );
    println!("stream resets {resets:?}, streams ended early {lost_streams}");
    println!(
        "PostgreSQL connections: start {connections_at_start}, max {max_connections}, end {connections_at_end} \
         (bound {})",
        o.max_connections
    );
    for sample in totals.samples.lock().unwrap().iter().chain(wrong.iter().take(5)) {
        println!("  {sample}");
    }
    let mut failures = Vec::new();
    if unexpected + no_answer > 0 {
        failures.push(format!("{unexpected} unexpected answers, {no_answer} requests without an answer"));
    }
    if !wrong.is_empty() {
        failures.push(format!("{} subscribers did not receive the events due", wrong.len()));
    }
    if lost_streams > 0 || !resets.is_empty() {
        failures.push(format!("{lost_streams} streams ended early, resets {resets:?}"));
    }
    if growth > o.max_rss_growth_mib * 1024 {
        failures.push(format!(
            "RSS grew {:.1} MiB after the warm-up (sample {warm}), over the bound {} MiB",
            mib(growth),
            o.max_rss_growth_mib
        ));
    }
    if max_connections.max(connections_at_end) > o.max_connections {
        failures.push(format!("{max_connections} connections, over the bound {}", o.max_connections));
    }
    if failures.is_empty() { Ok(()) } else { Err(failures.join("; ")) }
}
