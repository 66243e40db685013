//! `viewset-bench webhooks`: events per second delivered as webhooks and the delay from a create to its delivery
//! (issue 72, goal 5). For the outbox and JetStream, 1 and 3 blog instances on one fresh PostgreSQL database, each
//! running the webhooks of one endpoint (its feed's lease decides which instance delivers), and a fast receiver in
//! this process (it answers 204 and reads the post's title, which carries the create's send time). W writers create
//! posts for S seconds, round robin over the instances; then the run waits until every post was delivered (60 s at
//! most). A first line runs one instance with no endpoint: what a subscription costs the write path. Everything
//! (servers, receiver, writers, PostgreSQL, NATS) shares the machine's cores.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use sea_orm_migration::{MigrationTrait, SchemaManager};
use viewset_core::ServiceState;
use viewset_core::events::EventBus;
use viewset_core::webhooks::{Endpoint, WebhookHandle, Webhooks};

use crate::harness::loadavg;
use crate::in_process;

/// Options of `webhooks`: those of `events` (`--pg URL --nats URL --seconds S --writers W`), without subscribers.
pub struct Options(crate::events::Options);

impl Options {
    /// `--pg URL --nats URL --seconds S --writers W`.
    pub fn parse(args: &[String]) -> Result<Options, String> {
        if args.iter().any(|arg| arg == "--subscribers") {
            return Err("`webhooks` has no stream subscribers (`--subscribers` is `events`')".into());
        }
        crate::events::Options::parse(args).map(Options)
    }
}

/// When the run began: titles carry their send time as microseconds after it.
static EPOCH: OnceLock<Instant> = OnceLock::new();

fn micros() -> u64 {
    EPOCH.get_or_init(Instant::now).elapsed().as_micros() as u64
}

/// What the receiver saw: per `webhook-id`, how many times; the delays in microseconds; when the last arrived.
#[derive(Default)]
struct Seen {
    ids: HashMap<String, usize>,
    delays: Vec<u64>,
    last: u64,
}

/// The receiver: records each delivery and answers 204.
async fn receiver(seen: Arc<Mutex<Seen>>) -> Result<String, String> {
    let app = axum::Router::new().route(
        "/hooks",
        axum::routing::post(move |headers: axum::http::HeaderMap, body: axum::body::Bytes| {
            let seen = seen.clone();
            async move {
                let now = micros();
                let id = headers.get("webhook-id").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
                let body: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
                let title = body["data"]["record"]["title"].as_str().unwrap_or("");
                let sent = title.trim_start_matches('t').parse::<u64>().ok();
                let mut seen = seen.lock().expect("seen");
                let count = seen.ids.entry(id).or_default();
                *count += 1;
                if let (1, Some(sent)) = (*count, sent) {
                    seen.delays.push(now.saturating_sub(sent));
                }
                seen.last = now;
                axum::http::StatusCode::NO_CONTENT
            }
        }),
    );
    let (base, _server) = in_process::serve(app).await?;
    Ok(format!("{base}/hooks"))
}

/// Runs the measurement.
pub fn run(Options(o): Options) -> Result<(), String> {
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    runtime.block_on(async {
        println!("{} writers, {} s of creates per line; load average before: {}", o.writers, o.seconds, loadavg());
        println!("\n| bus | instances | endpoint | creates/s | delivered | deliveries/s | delay p50 (ms) | p99 (ms) | max (ms) | sent twice |");
        println!("|---|---|---|---|---|---|---|---|---|---|");
        for (nats, instances, hooked) in [(false, 1, false), (false, 1, true), (false, 3, true), (true, 1, true), (true, 3, true)] {
            let o = &o;
            in_process::on_fresh_database(&o.pg, "viewset_bench_webhooks", |url| async move {
                let line = once(&url, nats, instances, hooked, o).await?;
                let bus = if nats { "JetStream" } else { "outbox" };
                let endpoint = if hooked { "1" } else { "none" };
                println!("| {bus} | {instances} | {endpoint} | {line} |");
                Ok(())
            })
            .await?;
        }
        println!("\nload average after: {}", loadavg());
        Ok(())
    })
}

/// One line of the table.
async fn once(
    url: &str,
    nats: bool,
    instances: usize,
    hooked: bool,
    o: &crate::events::Options,
) -> Result<String, String> {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let target = receiver(seen.clone()).await?;
    let stream = format!("viewset_bench_webhooks_{}_{}", std::process::id(), micros());
    let (mut servers, mut addresses, mut running): (Vec<_>, Vec<_>, Vec<WebhookHandle>) = Default::default();
    for _ in 0..instances {
        let db = blog::connect_and_migrate(url).await.map_err(|e| format!("connect {url}: {e}"))?;
        viewset_core::webhooks::Migration.up(&SchemaManager::new(&db)).await.map_err(|e| e.to_string())?;
        let pool = db.get_postgres_connection_pool().clone();
        let bus = match nats {
            false => EventBus::outbox(pool).await.map_err(|e| e.to_string())?,
            true => EventBus::nats(db.clone(), &o.nats, &stream).await.map_err(|e| e.to_string())?,
        };
        let state = ServiceState::with_events(db.clone(), bus);
        if hooked {
            let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
            let endpoint = Endpoint::new("bench", &target, secret).map_err(|e| e.to_string())?;
            let endpoint = endpoint.viewset("posts").allow_private_addresses();
            let webhooks = Webhooks::new(&blog::api(), db).endpoint(endpoint).map_err(|e| e.to_string())?;
            let routes = blog::routes_from(blog::api(), state.clone());
            running.push(webhooks.start(routes).await.map_err(|e| e.to_string())?);
        }
        let (base, server) = in_process::serve(blog::app_with_state(state)).await?;
        addresses.push(base);
        servers.push(server);
    }
    let seed = blog::connect_and_migrate(url).await.map_err(|e| e.to_string())?;
    blog::seed::seed_if_empty(&seed).await.map_err(|e| e.to_string())?;
    let client = in_process::client("Bearer bob-token")?;
    let started = Instant::now();
    let until = started + Duration::from_secs(o.seconds);
    let created = in_process::create_posts(&client, &addresses, o.writers, until, micros).await?;
    let rate = created as f64 / started.elapsed().as_secs_f64();
    let first = started.duration_since(*EPOCH.get_or_init(Instant::now)).as_micros() as u64;
    let deadline = Instant::now() + Duration::from_secs(60);
    while hooked && seen.lock().expect("seen").ids.len() < created && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for handle in running {
        handle.stop().await;
    }
    for server in servers {
        server.abort();
    }
    let mut seen = std::mem::take(&mut *seen.lock().expect("seen"));
    if !hooked {
        return Ok(format!("{rate:.0} | – | – | – | – | – | –"));
    }
    seen.delays.sort_unstable();
    let delays = &seen.delays;
    let at = |q: f64| delays.get(((delays.len() as f64 * q).ceil() as usize).saturating_sub(1)).copied();
    let ms = |v: Option<u64>| v.map_or("–".to_string(), |v| format!("{:.1}", v as f64 / 1000.0));
    let per_second = seen.ids.len() as f64 / (seen.last.saturating_sub(first) as f64 / 1e6).max(1e-3);
    let twice = seen.ids.values().filter(|n| **n > 1).count();
    Ok(format!(
        "{rate:.0} | {} of {created} | {per_second:.0} | {} | {} | {} | {twice}",
        seen.ids.len(),
        ms(at(0.5)),
        ms(at(0.99)),
        ms(delays.last().copied())
    ))
}
