//! `viewset-bench writes`: the write paths of issue 42 against their alternatives, in one run, on a fresh
//! PostgreSQL database and the blog's router served in-process on a loopback port (bob's token):
//!
//! - `--rows` posts (default 1,000) created by one bulk request (`POST /api/posts/` with an array), by as many single
//!   POSTs one after another and 16 at a time, and by a hand-written axum + sqlx route in the same server that
//!   inserts the array with one `INSERT … SELECT … FROM unnest($1::text[], …) RETURNING …` (serde-typed, no
//!   validation, no hooks, no events);
//! - a single create without and with an `Idempotency-Key` (a fresh key each time: the reservation, the stored
//!   answer), the replay of a stored key, and a create on a second server over the same database whose event bus is
//!   the durable outbox (`EventBus::outbox`: the write in a transaction with its event row; issue 41), and one on a
//!   third server whose bus is NATS JetStream (`EventBus::nats` at `--nats`, default `nats://127.0.0.1:4222`: the
//!   same transaction, then the publish, its acknowledgement and the row's `DELETE` before the answer).
//!
//! Before timing, each case runs once with the SQL statements the server ran counted (the store's `viewset::sql`
//! spans; the hand-written route's one statement is not seen by them) and its rows checked. The cases take turns
//! in rounds; posts are truncated between runs, outside the timing. The output is medians and ratios to the bulk
//! request (or the plain create) measured in the same run, never a threshold.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use axum::Json;
use axum::extract::State;
use axum::routing::post;
use serde_json::{Value, json};
use sqlx::{AssertSqlSafe, Executor, PgPool};

use viewset_core::ServiceState;
use viewset_core::events::EventBus;

use crate::handwritten::sqlx::to_post;
use crate::harness::{db, loadavg};
use crate::in_process;
use crate::reads::{ratio, stats};
use crate::sql_count::Statements;

/// Options of `writes`.
pub struct Options {
    pg: String,
    nats: String,
    rows: usize,
    creates: usize,
}

impl Options {
    /// `--pg URL --nats URL --rows N --creates N`.
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let pg = "postgres://postgres:postgres@127.0.0.1:5432".into();
        let mut o = Options { pg, nats: "nats://127.0.0.1:4222".into(), rows: 1000, creates: 500 };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let value = it.next().ok_or(format!("`{arg}` needs a value"))?;
            let number = || value.parse::<usize>().map_err(|_| format!("{arg} takes a number"));
            match arg.as_str() {
                "--pg" => o.pg = value.trim_end_matches('/').to_string(),
                "--nats" => o.nats = value.clone(),
                "--rows" => o.rows = number()?,
                "--creates" => o.creates = number()?,
                other => return Err(format!("unknown option `{other}`")),
            }
        }
        if !(1..=1000).contains(&o.rows) || o.creates < ROUNDS {
            return Err(format!("need 1 ≤ --rows ≤ 1000 (the blog's max_bulk) and --creates ≥ {ROUNDS}"));
        }
        Ok(o)
    }
}

/// Rounds: every case runs once per round (the bulk part) or `creates / ROUNDS` times (the key part), in turn.
const ROUNDS: usize = 5;

/// How `rows` posts are created.
#[derive(Clone, Copy, PartialEq)]
enum Bulk {
    OneRequest,
    Sequential,
    InFlight16,
    SqlxUnnest,
}

impl Bulk {
    const ALL: [Bulk; 4] = [Bulk::OneRequest, Bulk::Sequential, Bulk::InFlight16, Bulk::SqlxUnnest];

    fn label(self) -> &'static str {
        match self {
            Bulk::OneRequest => "viewset: one bulk `POST /api/posts/` (array)",
            Bulk::Sequential => "viewset: single POSTs, one after another",
            Bulk::InFlight16 => "viewset: single POSTs, 16 in flight",
            Bulk::SqlxUnnest => "axum + sqlx: one POST, `INSERT … SELECT unnest(…)`",
        }
    }
}

struct Ctx {
    client: reqwest::Client,
    base: String,
    /// The same blog over the same database, its events in the outbox.
    outbox: String,
    /// The same blog over the same database, its events through NATS JetStream.
    nats: String,
    statements: Arc<Statements>,
    pool: PgPool,
}

/// Runs the measurement.
pub fn run(options: Options) -> Result<(), String> {
    let o = &options;
    in_process::block_on_fresh_database(&o.pg, "viewset_bench_writes", |url| async move { measure_on(&url, o).await })
}

async fn measure_on(url: &str, o: &Options) -> Result<(), String> {
    let conn = blog::connect_and_migrate(url).await.map_err(|e| format!("connect {url}: {e}"))?;
    let statements = Statements::install();
    let handwritten = sqlx::postgres::PgPoolOptions::new().max_connections(10).connect(url).await;
    let handwritten = handwritten.map_err(|e| format!("connect {url}: {e}"))?;
    let sqlx_route = axum::Router::new().route("/sqlx/posts", post(unnest)).with_state(handwritten);
    let (base, server) = in_process::serve(blog::app(conn.clone()).merge(sqlx_route)).await?;
    let bus =
        EventBus::outbox(conn.get_postgres_connection_pool().clone()).await.map_err(|e| format!("outbox: {e}"))?;
    let (outbox, outbox_server) =
        in_process::serve(blog::app_with_state(ServiceState::with_events(conn.clone(), bus))).await?;
    let stream = format!("viewset_bench_writes_{}", std::process::id());
    let bus = EventBus::nats(conn.clone(), &o.nats, &stream).await.map_err(|e| format!("NATS at {}: {e}", o.nats))?;
    let (nats, nats_server) =
        in_process::serve(blog::app_with_state(ServiceState::with_events(conn.clone(), bus))).await?;
    let client = in_process::client("Bearer bob-token")?;
    let ctx = Ctx { client, base, outbox, nats, statements, pool: db::connect(url).await? };
    let result = async {
        let seed = "INSERT INTO authors (name, email) VALUES ('Ada', 'ada@example.com'), ('Alan', 'alan@example.com')";
        ctx.pool.execute(seed).await.map_err(|e| format!("seed: {e}"))?;
        println!("load average before: {}", loadavg());
        bulk(&ctx, o).await?;
        keys(&ctx, o).await?;
        println!("\nload average after: {}", loadavg());
        Ok(())
    }
    .await;
    server.abort();
    outbox_server.abort();
    nats_server.abort();
    ctx.pool.close().await;
    conn.close().await.ok();
    result
}

/// Post `i` of a run.
fn row(i: usize) -> Value {
    json!({"title": format!("Bulk post {i}"), "body": format!("Body of post {i}"), "published": i.is_multiple_of(2),
           "views": i, "author_id": 1 + i % 2})
}

/// Part (a): `o.rows` posts, each way, `ROUNDS` times.
async fn bulk(ctx: &Ctx, o: &Options) -> Result<(), String> {
    let rows: Vec<Value> = (0..o.rows).map(row).collect();
    let mut statements = Vec::new();
    for case in Bulk::ALL {
        ctx.statements.seen.store(0, Ordering::SeqCst);
        ctx.statements.counting.store(true, Ordering::SeqCst);
        let created = create(ctx, case, &rows).await;
        ctx.statements.counting.store(false, Ordering::SeqCst);
        statements.push(ctx.statements.seen.load(Ordering::SeqCst));
        check(ctx, case, created?, o.rows).await?;
    }
    let mut times = vec![Vec::new(); Bulk::ALL.len()];
    for round in 0..ROUNDS {
        for k in 0..Bulk::ALL.len() {
            let i = (k + round) % Bulk::ALL.len();
            truncate(ctx).await?;
            let start = Instant::now();
            create(ctx, Bulk::ALL[i], &rows).await?;
            times[i].push(start.elapsed().as_secs_f64() * 1000.0);
        }
    }
    truncate(ctx).await?;
    println!("\n## {} posts created: one bulk request, single POSTs, hand-written sqlx; {ROUNDS} rounds", o.rows);
    println!(
        "\n| how | HTTP requests | SQL statements (store) | median ms | min ms | rows/s (median) | median ÷ bulk |"
    );
    println!("|---|---|---|---|---|---|---|");
    let (bulk_median, _) = stats(&times[0]);
    for ((case, statements), times) in Bulk::ALL.iter().zip(&statements).zip(&times) {
        let (median, _) = stats(times);
        let min = times.iter().copied().fold(f64::INFINITY, f64::min);
        let requests = if matches!(case, Bulk::OneRequest | Bulk::SqlxUnnest) { 1 } else { o.rows };
        let statements =
            if *case == Bulk::SqlxUnnest { "1 (hand-written)".to_string() } else { statements.to_string() };
        let per_second = o.rows as f64 / (median / 1000.0);
        let r = ratio(median / bulk_median);
        println!("| {} | {requests} | {statements} | {median:.1} | {min:.1} | {per_second:.0} | {r} |", case.label());
    }
    Ok(())
}

/// Creates `rows` the `case`'s way; the created records in request order.
async fn create(ctx: &Ctx, case: Bulk, rows: &[Value]) -> Result<Vec<Value>, String> {
    let posts = format!("{}/api/posts/", ctx.base);
    match case {
        Bulk::OneRequest => array(send(&ctx.client, &format!("{posts}bulk"), &Value::from(rows.to_vec()), None).await?),
        Bulk::SqlxUnnest => {
            array(send(&ctx.client, &format!("{}/sqlx/posts", ctx.base), &Value::from(rows.to_vec()), None).await?)
        }
        Bulk::Sequential => {
            let mut created = Vec::with_capacity(rows.len());
            for row in rows {
                created.push(send(&ctx.client, &posts, row, None).await?);
            }
            Ok(created)
        }
        Bulk::InFlight16 => {
            let mut created = Vec::with_capacity(rows.len());
            for chunk in rows.chunks(16) {
                let tasks: Vec<_> = chunk
                    .iter()
                    .map(|row| {
                        let (client, posts, row) = (ctx.client.clone(), posts.clone(), row.clone());
                        tokio::spawn(async move { send(&client, &posts, &row, None).await })
                    })
                    .collect();
                for task in tasks {
                    created.push(task.await.map_err(|e| e.to_string())??);
                }
            }
            Ok(created)
        }
    }
}

fn array(value: Value) -> Result<Vec<Value>, String> {
    match value {
        Value::Array(items) => Ok(items),
        other => Err(format!("not an array: {other}")),
    }
}

/// The posts table holds exactly the `rows` created, in request order, as the answers said.
async fn check(ctx: &Ctx, case: Bulk, created: Vec<Value>, rows: usize) -> Result<(), String> {
    let stored: i64 =
        sqlx::query_scalar("SELECT count(*) FROM posts").fetch_one(&ctx.pool).await.map_err(|e| e.to_string())?;
    let titles = created.iter().map(|p| p["title"].as_str().unwrap_or_default().to_string());
    let expected = (0..rows).map(|i| format!("Bulk post {i}"));
    if stored != rows as i64 || !titles.eq(expected) {
        return Err(format!("{}: {stored} rows stored, answers not in request order", case.label()));
    }
    truncate(ctx).await
}

async fn truncate(ctx: &Ctx) -> Result<(), String> {
    ctx.pool.execute("TRUNCATE posts RESTART IDENTITY").await.map(drop).map_err(|e| format!("truncate: {e}"))
}

async fn send(client: &reqwest::Client, url: &str, body: &Value, key: Option<String>) -> Result<Value, String> {
    let request = client.post(url).json(body);
    let request = if let Some(key) = key { request.header("idempotency-key", key) } else { request };
    let response = request.send().await.map_err(|e| format!("{url}: {e}"))?;
    let status = response.status();
    let body: Value = response.json().await.map_err(|e| format!("{url}: {e}"))?;
    if !status.is_success() {
        return Err(format!("{url}: {status} {body}"));
    }
    Ok(body)
}

/// Part (b): a single create without a key, with a fresh key, and the replay of one stored key.
async fn keys(ctx: &Ctx, o: &Options) -> Result<(), String> {
    let posts = format!("{}/api/posts/", ctx.base);
    let urls = [
        posts.clone(),
        posts.clone(),
        posts.clone(),
        format!("{}/api/posts/", ctx.outbox),
        format!("{}/api/posts/", ctx.nats),
    ];
    let labels = [
        "create, no key",
        "create, fresh `Idempotency-Key`",
        "replay of a stored key",
        "create, outbox event bus",
        "create, JetStream event bus",
    ];
    send(&ctx.client, &posts, &row(0), Some("replayed".into())).await?;
    let mut statements = Vec::new();
    for case in 0..labels.len() {
        ctx.statements.seen.store(0, Ordering::SeqCst);
        ctx.statements.counting.store(true, Ordering::SeqCst);
        let key = [None, Some("counted".to_string()), Some("replayed".to_string()), None, None][case].clone();
        let answer = send(&ctx.client, &urls[case], &row(0), key).await;
        ctx.statements.counting.store(false, Ordering::SeqCst);
        statements.push(ctx.statements.seen.load(Ordering::SeqCst));
        answer?;
    }
    let mut times = vec![Vec::new(); labels.len()];
    let mut fresh = 0;
    for round in 0..ROUNDS {
        for k in 0..labels.len() {
            let i = (k + round) % labels.len();
            for _ in 0..o.creates / ROUNDS {
                fresh += 1;
                let key = [None, Some(format!("key-{fresh}")), Some("replayed".to_string()), None, None][i].clone();
                // A replay repeats the stored request exactly (another body with its key would be a 422).
                let body = if i == 2 { row(0) } else { row(fresh) };
                let start = Instant::now();
                send(&ctx.client, &urls[i], &body, key).await?;
                times[i].push(start.elapsed().as_secs_f64() * 1000.0);
            }
        }
    }
    println!(
        "\n## One create with and without `Idempotency-Key`: {} timed requests per case, {ROUNDS} rounds",
        o.creates
    );
    println!("\n| request | SQL statements (store) | median ms | p95 ms | median ÷ no key | p95 ÷ no key |");
    println!("|---|---|---|---|---|---|");
    let (base_median, base_p95) = stats(&times[0]);
    for ((label, statements), times) in labels.iter().zip(&statements).zip(&times) {
        let (median, p95) = stats(times);
        let (m, p) = (ratio(median / base_median), ratio(p95 / base_p95));
        println!("| {label} | {statements} | {median:.2} | {p95:.2} | {m} | {p} |");
    }
    Ok(())
}

/// The hand-written baseline: the array as columns, one `INSERT … SELECT … FROM unnest(…) RETURNING …`.
async fn unnest(
    State(pool): State<PgPool>,
    Json(rows): Json<Vec<NewPost>>,
) -> Result<Json<Vec<blog::entities::post::Model>>, (axum::http::StatusCode, String)> {
    let (mut title, mut body, mut published, mut views, mut author) = (vec![], vec![], vec![], vec![], vec![]);
    for row in rows {
        title.push(row.title);
        body.push(row.body);
        published.push(row.published);
        views.push(row.views);
        author.push(row.author_id);
    }
    let sql = "INSERT INTO posts (title, body, published, views, author_id, created_at) \
               SELECT t, b, p, v, a, now() FROM unnest($1::text[], $2::text[], $3::bool[], $4::int[], $5::int[]) \
               WITH ORDINALITY AS u(t, b, p, v, a, n) ORDER BY n \
               RETURNING id, title, body, published, views, rating, author_id, created_at, slug";
    let query = sqlx::query(AssertSqlSafe(sql)).bind(title).bind(body).bind(published).bind(views).bind(author);
    let created = query.fetch_all(&pool).await.and_then(|rows| rows.iter().map(to_post).collect());
    created.map(Json).map_err(|e| (axum::http::StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}

/// A row of the hand-written route's body.
#[derive(serde::Deserialize)]
struct NewPost {
    title: String,
    body: String,
    published: bool,
    views: i32,
    author_id: i32,
}
