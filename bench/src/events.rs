//! `viewset-bench events`: events/s sustained and delivery latency on each event bus between instances (issue 41).
//! For each bus (`NOTIFY` after the commit, the PostgreSQL outbox, NATS JetStream relayed from the outbox table)
//! and 1 and 3 blog instances on one fresh PostgreSQL database: N stream subscribers spread over the instances,
//! W writers creating posts as fast as the instances answer, round robin over them, for a fixed time. Reported:
//! creates/s committed, the events each subscriber received (all of them, or how many are missing), and the
//! delivery latency: from sending a create until a subscriber read its `created` frame (its title carries the
//! send time), p50 and p99 over every (event, subscriber) pair. Everything runs in this process (servers,
//! subscribers as raw TCP readers, writers) on the machine's shared cores, as do PostgreSQL and NATS.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;
use viewset_core::ServiceState;
use viewset_core::events::EventBus;

use crate::harness::loadavg;
use crate::in_process;

/// Options of `events`.
pub struct Options {
    pub(crate) pg: String,
    pub(crate) nats: String,
    pub(crate) seconds: u64,
    pub(crate) subscribers: usize,
    pub(crate) writers: usize,
}

impl Options {
    /// `--pg URL --nats URL --seconds S --subscribers N --writers W`.
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut o = Options {
            pg: "postgres://postgres:postgres@127.0.0.1:5432".into(),
            nats: "nats://127.0.0.1:4222".into(),
            seconds: 5,
            subscribers: 1000,
            writers: 4,
        };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let value = it.next().ok_or(format!("`{arg}` needs a value"))?;
            let number = || value.parse::<u64>().map_err(|_| format!("`{arg}` takes a number"));
            match arg.as_str() {
                "--pg" => o.pg = value.trim_end_matches('/').to_string(),
                "--nats" => o.nats = value.clone(),
                "--seconds" => o.seconds = number()?,
                "--subscribers" => o.subscribers = number()? as usize,
                "--writers" => o.writers = number()? as usize,
                other => return Err(format!("unknown option `{other}`")),
            }
        }
        Ok(o)
    }
}

/// The event buses compared.
#[derive(Clone, Copy)]
enum Bus {
    Notify,
    Outbox,
    Nats,
}

impl Bus {
    fn name(self) -> &'static str {
        match self {
            Bus::Notify => "`NOTIFY` (`EventBus::postgres`)",
            Bus::Outbox => "outbox (`EventBus::outbox`)",
            Bus::Nats => "JetStream (`EventBus::nats`)",
        }
    }

    async fn connect(self, db: &sea_orm::DatabaseConnection, o: &Options, stream: &str) -> Result<EventBus, String> {
        let pool = db.get_postgres_connection_pool().clone();
        match self {
            Bus::Notify => EventBus::postgres(pool).await.map_err(|e| e.to_string()),
            Bus::Outbox => EventBus::outbox(pool).await.map_err(|e| e.to_string()),
            Bus::Nats => EventBus::nats(db.clone(), &o.nats, stream).await.map_err(|e| e.to_string()),
        }
    }
}

/// When the run began: the titles of the posts carry their send time as microseconds after it.
static EPOCH: OnceLock<Instant> = OnceLock::new();

fn micros() -> u64 {
    EPOCH.get_or_init(Instant::now).elapsed().as_micros() as u64
}

/// Runs the measurement.
pub fn run(o: Options) -> Result<(), String> {
    crate::fanout::raise_descriptor_limit();
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    runtime.block_on(async {
        println!(
            "{} subscribers, {} writers, {} s of creates per line; load average before: {}",
            o.subscribers,
            o.writers,
            o.seconds,
            loadavg()
        );
        println!("\n| bus | instances | creates/s | events received | delivery p50 (ms) | p99 (ms) | max (ms) |");
        println!("|---|---|---|---|---|---|---|");
        for bus in [Bus::Notify, Bus::Outbox, Bus::Nats] {
            for instances in [1, 3] {
                let o = &o;
                let prefix = format!("viewset_bench_events_{instances}");
                in_process::on_fresh_database(&o.pg, &prefix, |url| async move {
                    let line = once(&url, bus, instances, o).await?;
                    println!("| {} | {instances} | {line} |", bus.name());
                    Ok(())
                })
                .await?;
            }
        }
        println!("\nload average after: {}", loadavg());
        Ok(())
    })
}

/// One line: `instances` servers on `bus`, the subscribers and writers, the figures.
async fn once(url: &str, bus: Bus, instances: usize, o: &Options) -> Result<String, String> {
    let stream = format!("viewset_bench_events_{}_{}", std::process::id(), micros());
    let mut servers = Vec::new();
    let mut addresses = Vec::new();
    for _ in 0..instances {
        let db = blog::connect_and_migrate(url).await.map_err(|e| format!("connect {url}: {e}"))?;
        let events = bus.connect(&db, o, &stream).await?;
        let (base, server) = in_process::serve(blog::app_with_state(ServiceState::with_events(db, events))).await?;
        addresses.push(base.trim_start_matches("http://").to_string());
        servers.push(server);
    }
    let seed = blog::connect_and_migrate(url).await.map_err(|e| e.to_string())?;
    blog::seed::seed_if_empty(&seed).await.map_err(|e| e.to_string())?;
    let mut subscribers = Vec::with_capacity(o.subscribers);
    let opened = Arc::new(tokio::sync::Barrier::new(o.subscribers + 1));
    let expected = Arc::new(tokio::sync::watch::channel(usize::MAX).0);
    for i in 0..o.subscribers {
        let (address, opened, expected) = (addresses[i % instances].clone(), opened.clone(), expected.subscribe());
        subscribers.push(tokio::spawn(subscriber(address, opened, expected)));
    }
    opened.wait().await;
    let client = in_process::client("Bearer bob-token")?;
    let until = Instant::now() + Duration::from_secs(o.seconds);
    let started = Instant::now();
    let bases: Vec<String> = addresses.iter().map(|address| format!("http://{address}")).collect();
    let created = in_process::create_posts(&client, &bases, o.writers, until, micros).await?;
    let rate = created as f64 / started.elapsed().as_secs_f64();
    expected.send_replace(created);
    let mut latencies = Vec::with_capacity(created * o.subscribers);
    let mut complete = 0;
    for subscriber in subscribers {
        let received = subscriber.await.map_err(|e| e.to_string())?;
        complete += usize::from(received.len() == created);
        latencies.extend(received);
    }
    for server in servers {
        server.abort();
    }
    latencies.sort_unstable();
    let at = |q: f64| latencies.get(((latencies.len() as f64 * q).ceil() as usize).saturating_sub(1)).copied();
    let ms = |v: Option<u64>| v.map_or("–".to_string(), |v| format!("{:.1}", v as f64 / 1000.0));
    let received = if complete == o.subscribers {
        format!("all {created} by every subscriber")
    } else {
        format!("{} of {} ({complete} subscribers complete)", latencies.len(), created * o.subscribers)
    };
    Ok(format!("{rate:.0} | {received} | {} | {} | {}", ms(at(0.5)), ms(at(0.99)), ms(latencies.last().copied())))
}

/// One subscriber: opens the stream, waits at `opened`, then reads `created` frames until it has `expected` of
/// them (known once the writers are done) or none came for 10 s; the delivery latency of each, in microseconds.
async fn subscriber(
    address: String,
    opened: Arc<tokio::sync::Barrier>,
    mut expected: tokio::sync::watch::Receiver<usize>,
) -> Vec<u64> {
    let request = "GET /api/posts/stream HTTP/1.1\r\nhost: bench\r\naccept: text/event-stream\r\n\r\n";
    let stream = crate::fanout::subscribe(&address, request).await;
    opened.wait().await;
    let Ok(mut stream) = stream else { return Vec::new() };
    let mut latencies = Vec::new();
    let (mut buffer, mut pending) = ([0u8; 16384], Vec::<u8>::new());
    const NEEDLE: &[u8] = br#""title":"t"#;
    while latencies.len() < *expected.borrow() {
        let read = tokio::select! {
            read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buffer)) => read,
            _ = expected.changed() => continue,
        };
        let n = match read {
            Ok(Ok(n)) if n > 0 => n,
            _ => break,
        };
        let now = micros();
        pending.extend_from_slice(&buffer[..n]);
        // Whole frames only: a title split across two reads is read with the next.
        let Some(end) = pending.windows(2).rposition(|w| w == b"\n\n") else { continue };
        let frames: Vec<u8> = pending.drain(..end + 2).collect();
        let mut rest = &frames[..];
        while let Some(at) = rest.windows(NEEDLE.len()).position(|w| w == NEEDLE) {
            rest = &rest[at + NEEDLE.len()..];
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            if let Some(sent) = std::str::from_utf8(&rest[..digits]).ok().and_then(|d| d.parse::<u64>().ok()) {
                latencies.push(now.saturating_sub(sent));
            }
        }
    }
    drop::<TcpStream>(stream);
    latencies
}
