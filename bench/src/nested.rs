//! `viewset-bench nested`: a nested create (issue 70) against its alternatives, in one run, on a fresh PostgreSQL
//! database and the blog's router served in-process on a loopback port (bob's token). The "order" is an author and
//! its "lines" `--lines` posts (default 20), written:
//!
//! - in one nested create, `POST /authors/` with `"posts": [...]` (the blog's `writable_relations = ["posts"]`):
//!   one transaction, every post through `PostViewSet`'s create policy, the answer embedding them;
//! - by a client in single requests: `POST /authors/`, then `POST /api/posts/` per line, one after another (and,
//!   as a second variant, all lines in flight at once) — no transaction across them;
//! - by hand-written axum + sqlx routes in the same server, in one transaction: the same inserts as the nested
//!   create (`INSERT … RETURNING` for the author, then one per line), or the author and then every line in one
//!   `INSERT … SELECT … FROM unnest(…) RETURNING …` (serde-typed, no validation, no policy, no events), answering
//!   the same JSON.
//!
//! Before timing, each case runs once with the store's SQL statements counted (neither `BEGIN`/`COMMIT` nor the
//! hand-written route's are seen by the hook) and its rows checked: the answer and the table hold the author and its
//! lines. Then the cases take turns in rounds of sequential orders; the output is medians, p95 and ratios to the
//! nested create measured in the same run, never a threshold.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::State;
use axum::routing::post;
use serde_json::{Value, json};
use sqlx::{AssertSqlSafe, PgPool};

use crate::handwritten::sqlx::to_post;
use crate::harness::loadavg;
use crate::in_process;
use crate::reads::{ratio, stats};
use crate::sql_count::Statements;

/// Options of `nested`.
pub struct Options {
    pg: String,
    lines: usize,
    iterations: usize,
}

impl Options {
    /// `--pg URL --lines N --iterations N`.
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut o = Options { pg: "postgres://postgres:postgres@127.0.0.1:5432".into(), lines: 20, iterations: 200 };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let value = it.next().ok_or(format!("`{arg}` needs a value"))?;
            let number = || value.parse::<usize>().map_err(|_| format!("{arg} takes a number"));
            match arg.as_str() {
                "--pg" => o.pg = value.trim_end_matches('/').to_string(),
                "--lines" => o.lines = number()?,
                "--iterations" => o.iterations = number()?,
                other => return Err(format!("unknown option `{other}`")),
            }
        }
        if !(1..=100).contains(&o.lines) || o.iterations < ROUNDS {
            return Err(format!("need 1 ≤ --lines ≤ 100 (the default max_nested_rows) and --iterations ≥ {ROUNDS}"));
        }
        Ok(o)
    }
}

/// Rounds: every case writes `iterations / ROUNDS` orders per round, in turn.
const ROUNDS: usize = 5;

/// How an order is written.
#[derive(Clone, Copy, PartialEq)]
enum Case {
    Nested,
    Sequential,
    Concurrent,
    SqlxRows,
    SqlxUnnest,
}

impl Case {
    const ALL: [Case; 5] = [Case::Nested, Case::Sequential, Case::Concurrent, Case::SqlxRows, Case::SqlxUnnest];

    fn label(self) -> &'static str {
        match self {
            Case::Nested => "viewset: one nested `POST /authors/` with `\"posts\": [...]`",
            Case::Sequential => "viewset: `POST /authors/`, then a `POST /api/posts/` per line, one after another",
            Case::Concurrent => "viewset: `POST /authors/`, then a `POST /api/posts/` per line, all in flight",
            Case::SqlxRows => "axum + sqlx: one POST, one transaction, an `INSERT` per row",
            Case::SqlxUnnest => "axum + sqlx: one POST, one transaction, `INSERT` author + `INSERT … unnest` lines",
        }
    }
}

struct Ctx {
    client: reqwest::Client,
    base: String,
    statements: Arc<Statements>,
    pool: PgPool,
}

/// Runs the measurement.
pub fn run(options: Options) -> Result<(), String> {
    let o = &options;
    in_process::block_on_fresh_database(&o.pg, "viewset_bench_nested", |url| async move { measure_on(&url, o).await })
}

async fn measure_on(url: &str, o: &Options) -> Result<(), String> {
    let conn = blog::connect_and_migrate(url).await.map_err(|e| format!("connect {url}: {e}"))?;
    let statements = Statements::install();
    let pool = sqlx::postgres::PgPoolOptions::new().max_connections(10).connect(url).await;
    let pool = pool.map_err(|e| format!("connect {url}: {e}"))?;
    let sqlx_route = axum::Router::new()
        .route("/sqlx/authors/rows", post(per_row))
        .route("/sqlx/authors/unnest", post(unnest))
        .with_state(pool.clone());
    let (base, server) = in_process::serve(blog::app(conn.clone()).merge(sqlx_route)).await?;
    let ctx = Ctx { client: in_process::client("Bearer bob-token")?, base, statements, pool };
    let result = async {
        println!("load average before: {}", loadavg());
        compare(&ctx, o).await?;
        println!("\nload average after: {}", loadavg());
        Ok(())
    }
    .await;
    server.abort();
    ctx.pool.close().await;
    conn.close().await.ok();
    result
}

async fn compare(ctx: &Ctx, o: &Options) -> Result<(), String> {
    let mut statements = Vec::new();
    let mut orders = 0;
    for case in Case::ALL {
        ctx.statements.seen.store(0, Ordering::SeqCst);
        ctx.statements.counting.store(true, Ordering::SeqCst);
        ctx.statements.keep_text.store(case == Case::Nested, Ordering::SeqCst);
        orders += 1;
        let written = write(ctx, case, orders, o.lines).await;
        ctx.statements.counting.store(false, Ordering::SeqCst);
        ctx.statements.keep_text.store(false, Ordering::SeqCst);
        statements.push(ctx.statements.seen.load(Ordering::SeqCst));
        check(ctx, case, &written?, orders, o.lines).await?;
    }
    let texts = std::mem::take(&mut *ctx.statements.texts.lock().map_err(|e| e.to_string())?);
    println!(
        "
The nested create's statements, in order (BEGIN/COMMIT not seen): {}",
        shapes(&texts)
    );
    for case in Case::ALL {
        for _ in 0..5 {
            orders += 1;
            write(ctx, case, orders, o.lines).await?;
        }
    }
    let mut times = vec![Vec::new(); Case::ALL.len()];
    for round in 0..ROUNDS {
        for k in 0..Case::ALL.len() {
            let i = (k + round) % Case::ALL.len();
            for _ in 0..o.iterations / ROUNDS {
                orders += 1;
                let start = Instant::now();
                write(ctx, Case::ALL[i], orders, o.lines).await?;
                times[i].push(start.elapsed().as_secs_f64() * 1000.0);
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    println!(
        "\n## An order of {} lines (an author and its posts): {} timed orders per case, {ROUNDS} rounds interleaved",
        o.lines, o.iterations
    );
    println!(
        "\n| how | HTTP requests | SQL statements (store; no BEGIN/COMMIT) | median ms | p95 ms | median ÷ nested | p95 ÷ nested |"
    );
    println!("|---|---|---|---|---|---|---|");
    let (base_median, base_p95) = stats(&times[0]);
    for ((case, statements), times) in Case::ALL.iter().zip(&statements).zip(&times) {
        let (median, p95) = stats(times);
        let requests = if matches!(case, Case::Sequential | Case::Concurrent) { 1 + o.lines } else { 1 };
        let statements = match case {
            Case::SqlxRows => format!("{} (hand-written)", 1 + o.lines),
            Case::SqlxUnnest => "2 (hand-written)".into(),
            _ => statements.to_string(),
        };
        let (m, p) = (ratio(median / base_median), ratio(p95 / base_p95));
        println!("| {} | {requests} | {statements} | {median:.2} | {p95:.2} | {m} | {p} |", case.label());
    }
    Ok(())
}

/// `statements` by kind and table (`INSERT INTO "posts"`, `SELECT … FROM "posts"`), runs of one kind counted.
fn shapes(statements: &[String]) -> String {
    let mut runs: Vec<(String, usize)> = Vec::new();
    for sql in statements {
        let words: Vec<&str> = sql.split_whitespace().collect();
        let shape = match words.first().copied() {
            Some("SELECT") => {
                let from = words.iter().position(|w| *w == "FROM").and_then(|i| words.get(i + 1));
                format!("SELECT … FROM {}", from.unwrap_or(&"?"))
            }
            _ => words.iter().take(3).copied().collect::<Vec<_>>().join(" "),
        };
        match runs.last_mut() {
            Some((last, n)) if *last == shape => *n += 1,
            _ => runs.push((shape, 1)),
        }
    }
    runs.iter().map(|(shape, n)| format!("`{shape}` ×{n}")).collect::<Vec<_>>().join(", ")
}

/// Line `j` of an order.
fn line(j: usize) -> Value {
    json!({"title": format!("Line {j}"), "body": format!("Body of line {j}"), "published": j.is_multiple_of(2), "views": j})
}

/// Writes order `n` the `case`'s way; the author with its lines embedded, as the nested create answers.
async fn write(ctx: &Ctx, case: Case, n: usize, lines: usize) -> Result<Value, String> {
    let name = format!("Order {n}");
    let lines: Vec<Value> = (0..lines).map(line).collect();
    let (authors, posts) = (format!("{}/authors/", ctx.base), format!("{}/api/posts/", ctx.base));
    match case {
        Case::Nested => send(&ctx.client, &authors, &json!({"name": name, "posts": lines})).await,
        Case::SqlxRows | Case::SqlxUnnest => {
            let how = if case == Case::SqlxRows { "rows" } else { "unnest" };
            send(&ctx.client, &format!("{}/sqlx/authors/{how}", ctx.base), &json!({"name": name, "posts": lines})).await
        }
        Case::Sequential | Case::Concurrent => {
            let mut author = send(&ctx.client, &authors, &json!({"name": name})).await?;
            let with_key = |mut line: Value| {
                line["author_id"] = author["id"].clone();
                line
            };
            let bodies: Vec<Value> = lines.into_iter().map(with_key).collect();
            let mut created = Vec::with_capacity(bodies.len());
            if case == Case::Sequential {
                for body in &bodies {
                    created.push(send(&ctx.client, &posts, body).await?);
                }
            } else {
                let tasks: Vec<_> = bodies
                    .into_iter()
                    .map(|body| {
                        let (client, posts) = (ctx.client.clone(), posts.clone());
                        tokio::spawn(async move { send(&client, &posts, &body).await })
                    })
                    .collect();
                for task in tasks {
                    created.push(task.await.map_err(|e| e.to_string())??);
                }
            }
            author["posts"] = Value::Array(created);
            Ok(author)
        }
    }
}

async fn send(client: &reqwest::Client, url: &str, body: &Value) -> Result<Value, String> {
    let response = client.post(url).json(body).send().await.map_err(|e| format!("{url}: {e}"))?;
    let status = response.status();
    let body: Value = response.json().await.map_err(|e| format!("{url}: {e}"))?;
    if status.as_u16() != 201 {
        return Err(format!("{url}: {status} {body}"));
    }
    Ok(body)
}

/// The answer names order `n` and its `lines` lines with its key, and so does the table.
async fn check(ctx: &Ctx, case: Case, written: &Value, n: usize, lines: usize) -> Result<(), String> {
    let fail = |what: &str| Err(format!("{}: {what}: {written}", case.label()));
    let id = written["id"].as_i64().unwrap_or_default();
    if written["name"] != json!(format!("Order {n}")) || written.get("email").is_some() {
        return fail("not the author as bob sees it");
    }
    let mut answered: Vec<Value> = written["posts"].as_array().cloned().unwrap_or_default();
    answered.sort_by_key(|p| p["views"].as_i64());
    let expected = (0..lines).map(line);
    let fields = ["title", "body", "published", "views"];
    let same = answered.len() == lines
        && answered
            .iter()
            .zip(expected)
            .all(|(post, line)| post["author_id"].as_i64() == Some(id) && fields.iter().all(|f| post[*f] == line[*f]));
    if !same {
        return fail("not its lines");
    }
    let stored: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM posts p JOIN authors a ON a.id = p.author_id WHERE a.id = $1 AND a.name = $2",
    )
    .bind(id as i32)
    .bind(format!("Order {n}"))
    .fetch_one(&ctx.pool)
    .await
    .map_err(|e| e.to_string())?;
    if stored != lines as i64 {
        return fail(&format!("{stored} lines stored"));
    }
    Ok(())
}

/// The hand-written route's body.
#[derive(serde::Deserialize)]
struct NewOrder {
    name: String,
    posts: Vec<NewLine>,
}

/// A line of the hand-written route's body.
#[derive(serde::Deserialize)]
struct NewLine {
    title: String,
    body: String,
    published: bool,
    views: i32,
}

/// The hand-written route's answer: the author as bob sees it, its lines newest first (as `?expand=posts`).
#[derive(serde::Serialize)]
struct Order {
    id: i32,
    name: String,
    posts: Vec<blog::entities::post::Model>,
}

type Created = Result<(axum::http::StatusCode, Json<Order>), (axum::http::StatusCode, String)>;

fn failed(e: sqlx::Error) -> (axum::http::StatusCode, String) {
    (axum::http::StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
}

/// The columns the hand-written routes return for a line.
const RETURNING: &str = "RETURNING id, title, body, published, views, rating, author_id, created_at, slug";

/// The order's author, in the baselines' transaction: its id.
async fn insert_author(tx: &mut sqlx::PgConnection, name: &str) -> Result<i32, (axum::http::StatusCode, String)> {
    let query = sqlx::query_scalar("INSERT INTO authors (name) VALUES ($1) RETURNING id").bind(name);
    query.fetch_one(tx).await.map_err(failed)
}

/// A hand-written baseline: the author, then an `INSERT … RETURNING` per line, in one transaction.
async fn per_row(State(pool): State<PgPool>, Json(order): Json<NewOrder>) -> Created {
    let mut tx = pool.begin().await.map_err(failed)?;
    let id = insert_author(&mut tx, &order.name).await?;
    let sql = format!(
        "INSERT INTO posts (title, body, published, views, author_id, created_at) \
         VALUES ($1, $2, $3, $4, $5, now()) {RETURNING}"
    );
    let mut posts = Vec::with_capacity(order.posts.len());
    for line in order.posts {
        let query = sqlx::query(AssertSqlSafe(sql.as_str())).bind(line.title).bind(line.body);
        let row = query.bind(line.published).bind(line.views).bind(id).fetch_one(&mut *tx).await.map_err(failed)?;
        posts.push(to_post(&row).map_err(failed)?);
    }
    tx.commit().await.map_err(failed)?;
    posts.reverse();
    Ok((axum::http::StatusCode::CREATED, Json(Order { id, name: order.name, posts })))
}

/// A hand-written baseline: the author, then its lines as columns in one `INSERT … SELECT … FROM unnest(…)`, in
/// one transaction.
async fn unnest(State(pool): State<PgPool>, Json(order): Json<NewOrder>) -> Created {
    let (mut title, mut body, mut published, mut views) = (vec![], vec![], vec![], vec![]);
    for line in order.posts {
        title.push(line.title);
        body.push(line.body);
        published.push(line.published);
        views.push(line.views);
    }
    let mut tx = pool.begin().await.map_err(failed)?;
    let id = insert_author(&mut tx, &order.name).await?;
    let sql = format!(
        "INSERT INTO posts (title, body, published, views, author_id, created_at) \
         SELECT t, b, p, v, $5, now() FROM unnest($1::text[], $2::text[], $3::bool[], $4::int[]) \
         WITH ORDINALITY AS u(t, b, p, v, n) ORDER BY n {RETURNING}"
    );
    let query = sqlx::query(AssertSqlSafe(sql)).bind(title).bind(body).bind(published).bind(views).bind(id);
    let rows = query.fetch_all(&mut *tx).await.map_err(failed)?;
    let mut posts = rows.iter().map(to_post).collect::<Result<Vec<_>, _>>().map_err(failed)?;
    tx.commit().await.map_err(failed)?;
    posts.reverse();
    Ok((axum::http::StatusCode::CREATED, Json(Order { id, name: order.name, posts })))
}
