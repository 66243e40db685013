//! `viewset-bench reads`: two read paths of the generated ViewSets against their alternatives, in one run, on a fresh
//! PostgreSQL database and the blog's router served in-process on a loopback port:
//!
//! - a page of posts with `?expand=author` (one request) against the same data fetched by a client in N+1 requests
//!   (the page, then `GET /authors/{id}` per post, one after another or all at once), pages of 20 and 100;
//! - `?count=none` and `?count=estimated` against `?count=exact` on a table of 1,000,000 posts, page 1 and a deep
//!   page.
//!
//! Before timing, every variant is run once with its HTTP requests and SQL statements counted (the store's
//! `viewset::sql` spans, seen only while counting) and its answer checked against the baseline's (same posts, same authors, same page).
//! Then the cases run in interleaved rounds of sequential requests; the output is the median and p95 latency per
//! case and their ratios to the baseline measured in the same run, never a threshold.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::sql_count::Statements;
use sqlx::{AssertSqlSafe, Executor};

use crate::harness::{db, loadavg};
use crate::in_process;

/// Options of `reads`.
pub struct Options {
    pg: String,
    rows: u64,
    deep_offset: Option<u64>,
    posts: u64,
    authors: u64,
    iterations: usize,
}

impl Options {
    /// `--pg URL --rows N --deep-offset N --posts N --authors N --iterations N`.
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut o = Options {
            pg: "postgres://postgres:postgres@127.0.0.1:5432".into(),
            rows: 1_000_000,
            deep_offset: None,
            posts: 10_000,
            authors: 1_000,
            iterations: 200,
        };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let value = it.next().ok_or(format!("`{arg}` needs a value"))?;
            let number = || value.parse::<u64>().map_err(|_| format!("{arg} takes a number"));
            match arg.as_str() {
                "--pg" => o.pg = value.trim_end_matches('/').to_string(),
                "--rows" => o.rows = number()?,
                "--deep-offset" => o.deep_offset = Some(number()?),
                "--posts" => o.posts = number()?,
                "--authors" => o.authors = number()?,
                "--iterations" => o.iterations = number()? as usize,
                other => return Err(format!("unknown option `{other}`")),
            }
        }
        // Below 10,000 rows `count=estimated` counts exactly (README): the estimate needs a larger table.
        if o.authors == 0 || o.posts < 100 || o.rows < 10_000 || o.iterations < ROUNDS {
            return Err(format!("need --authors ≥ 1, --posts ≥ 100, --rows ≥ 10000, --iterations ≥ {ROUNDS}"));
        }
        if o.deep_offset() + 20 > o.rows {
            return Err("--deep-offset must leave a page of 20 rows".into());
        }
        Ok(o)
    }

    /// The offset of the deep page: given, or the middle of the table.
    fn deep_offset(&self) -> u64 {
        self.deep_offset.unwrap_or(self.rows / 2)
    }
}

/// Rounds per measurement: each case runs `iterations / ROUNDS` times per round, the cases in turn.
const ROUNDS: usize = 5;
/// Every request is bob's (authors need an identity; bob is not staff, so no `email`, embedded or fetched).
const TOKEN: &str = "Bearer bob-token";

/// One measured case: how the client fetches, and what.
#[derive(Clone, Copy)]
enum Case {
    /// A page of `limit` posts and their authors, fetched `how`.
    Authors { how: Fetch, limit: usize },
    /// A page of 20 posts at `offset` with `?count={mode}`.
    Count { offset: u64, mode: &'static str },
}

/// How a client gets a page of posts with their authors.
#[derive(Clone, Copy, PartialEq)]
enum Fetch {
    /// The page alone (no authors): what `expand` adds to.
    Plain,
    /// One request, `?expand=author`.
    Expand,
    /// The page, then `GET /authors/{id}` per post, one after another.
    Sequential,
    /// The page, then `GET /authors/{id}` per post, all in flight at once.
    Concurrent,
}

impl Case {
    fn label(self) -> String {
        match self {
            Case::Authors { how: Fetch::Plain, .. } => "list, no authors".into(),
            Case::Authors { how: Fetch::Expand, .. } => "list `?expand=author`".into(),
            Case::Authors { how: Fetch::Sequential, .. } => "N+1, sequential".into(),
            Case::Authors { how: Fetch::Concurrent, .. } => "N+1, concurrent".into(),
            Case::Count { mode, .. } => format!("`?count={mode}`"),
        }
    }
}

/// The server under test and a client for it.
struct Ctx {
    client: reqwest::Client,
    base: String,
    statements: Arc<Statements>,
}

/// What one run of a case saw: posts with their authors (or the page), and the HTTP requests it took.
struct Outcome {
    pairs: Vec<(Value, Value)>,
    page: Value,
    requests: usize,
}

/// Runs the measurement.
pub fn run(options: Options) -> Result<(), String> {
    let o = &options;
    in_process::block_on_fresh_database(&o.pg, "viewset_bench_reads", |url| async move { measure_on(&url, o).await })
}

async fn measure_on(url: &str, o: &Options) -> Result<(), String> {
    let conn = blog::connect_and_migrate(url).await.map_err(|e| format!("connect {url}: {e}"))?;
    let statements = Statements::install();
    let (base, server) = in_process::serve(blog::app(conn.clone())).await?;
    let client = in_process::client(TOKEN)?;
    let ctx = Ctx { client, base, statements };
    let pool = db::connect(url).await?;
    let result = async {
        println!("load average before: {}", loadavg());
        expand_vs_n_plus_one(&ctx, &pool, o).await?;
        count_modes(&ctx, &pool, o).await?;
        println!("\nload average after: {}", loadavg());
        Ok(())
    }
    .await;
    server.abort();
    pool.close().await;
    conn.close().await.ok();
    result
}

/// Part (a): `o.authors` authors and `o.posts` posts, each page's posts by distinct authors.
async fn expand_vs_n_plus_one(ctx: &Ctx, pool: &sqlx::PgPool, o: &Options) -> Result<(), String> {
    let started = Instant::now();
    let authors = format!(
        "INSERT INTO authors (name, email) SELECT 'Author ' || i, 'author' || i || '@example.com' \
         FROM generate_series(1, {}) AS i",
        o.authors
    );
    // 7919 is prime: consecutive posts have distinct authors (as many as there are authors), so a page of 100
    // embeds 100 different authors and the N+1 client gains nothing from repeated ids.
    let posts = format!(
        "INSERT INTO posts (title, body, published, views, rating, author_id, created_at) \
         SELECT 'Post ' || i, 'Body of post ' || i, i % 2 = 0, (i * 7919) % 10000, NULL, 1 + (i * 7919) % {}, \
         TIMESTAMPTZ '2025-01-01 00:00:00+00' + i * INTERVAL '1 minute' FROM generate_series(1, {}) AS i",
        o.authors, o.posts
    );
    for sql in [authors, posts, "VACUUM ANALYZE".into()] {
        pool.execute(AssertSqlSafe(sql)).await.map_err(|e| format!("seed: {e}"))?;
    }
    println!(
        "\n## expand vs N+1: {} posts, {} authors (seeded in {:.1} s), {} timed fetches per case, {ROUNDS} rounds \
         interleaved, bob's token",
        o.posts,
        o.authors,
        started.elapsed().as_secs_f64(),
        o.iterations
    );
    println!(
        "\n| page size | client | HTTP requests | SQL statements | median ms | p95 ms | median ÷ expand | p95 ÷ expand |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for limit in [20, 100] {
        let cases: Vec<Case> = [Fetch::Plain, Fetch::Expand, Fetch::Sequential, Fetch::Concurrent]
            .into_iter()
            .map(|how| Case::Authors { how, limit })
            .collect();
        let (outcomes, statements) = counted(ctx, &cases).await?;
        let expanded = &outcomes[1].pairs;
        let ids = |pairs: &[(Value, Value)]| pairs.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>();
        for (case, outcome) in cases.iter().zip(&outcomes) {
            if outcome.pairs.len() != limit || ids(&outcome.pairs) != ids(expanded) {
                return Err(format!("{}: not the same page of {limit} posts", case.label()));
            }
            if !matches!(case, Case::Authors { how: Fetch::Plain, .. }) && outcome.pairs != *expanded {
                return Err(format!("{}: the authors differ from the expanded ones", case.label()));
            }
        }
        if expanded.iter().any(|(_, author)| author.get("name").is_none() || author.get("email").is_some()) {
            return Err(format!("the expanded authors are not bob's view of them: {:?}", expanded.first()));
        }
        let times = timed(ctx, &cases, o.iterations).await?;
        let cells: Vec<String> =
            cases.iter().zip(&outcomes).map(|(c, o)| format!("{limit} | {} | {}", c.label(), o.requests)).collect();
        print_rows(&cells, &statements, &times, 1);
    }
    Ok(())
}

/// Part (b): `o.rows` posts in one `INSERT … SELECT generate_series`, then `VACUUM ANALYZE`.
async fn count_modes(ctx: &Ctx, pool: &sqlx::PgPool, o: &Options) -> Result<(), String> {
    let started = Instant::now();
    // Not `db::seed`: its `(i * 7919) % 10000` overflows `integer` beyond 271,000 rows.
    let posts = format!(
        "INSERT INTO posts (title, body, published, views, rating, author_id, created_at) \
         SELECT 'Post ' || i, 'Body of post ' || i, i % 2 = 0, i % 10000, NULL, 1 + i % {}, \
         TIMESTAMPTZ '2025-01-01 00:00:00+00' + i * INTERVAL '1 second' FROM generate_series(1, {}) AS i",
        o.authors, o.rows
    );
    for sql in ["TRUNCATE posts RESTART IDENTITY".into(), posts, "VACUUM ANALYZE posts".into()] {
        pool.execute(AssertSqlSafe(sql)).await.map_err(|e| format!("seed: {e}"))?;
    }
    let seeded = started.elapsed().as_secs_f64();
    let deep = o.deep_offset();
    println!(
        "\n## count modes: {} posts (one INSERT … SELECT generate_series + VACUUM ANALYZE: {seeded:.1} s), pages of \
         20 at offset 0 and {deep}, {} timed requests per case, {ROUNDS} rounds interleaved",
        o.rows, o.iterations
    );
    println!(
        "\n| page | count | `count` answered | SQL statements | median ms | p95 ms | median ÷ exact | p95 ÷ exact |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (page, offset) in [("page 1".to_string(), 0), (format!("offset {deep}"), deep)] {
        let cases: Vec<Case> =
            ["exact", "estimated", "none"].into_iter().map(|mode| Case::Count { offset, mode }).collect();
        let (outcomes, statements) = counted(ctx, &cases).await?;
        for (case, outcome) in cases.iter().zip(&outcomes) {
            let Case::Count { mode, .. } = case else { continue };
            let (count, answered) = (&outcome.page["count"], outcome.page["count_mode"].as_str());
            let fits = match *mode {
                "exact" => count.as_u64() == Some(o.rows),
                "none" => count.is_null(),
                _ => count.as_u64().is_some(),
            };
            if !fits || answered != Some(*mode) || outcome.page["results"] != outcomes[0].page["results"] {
                return Err(format!("{page}, count={mode}: count {count}, count_mode {answered:?} or other rows"));
            }
        }
        let times = timed(ctx, &cases, o.iterations).await?;
        let cells: Vec<String> =
            cases.iter().zip(&outcomes).map(|(c, o)| format!("{page} | {} | {}", c.label(), o.page["count"])).collect();
        print_rows(&cells, &statements, &times, 0);
    }
    Ok(())
}

/// Each case once, untimed: its outcome and the SQL statements the server ran for it (counted from the store's
/// statement hook, which sees the statements on the path the timed runs take).
async fn counted(ctx: &Ctx, cases: &[Case]) -> Result<(Vec<Outcome>, Vec<usize>), String> {
    let (mut outcomes, mut statements) = (Vec::new(), Vec::new());
    ctx.statements.counting.store(true, Ordering::SeqCst);
    for case in cases {
        ctx.statements.seen.store(0, Ordering::SeqCst);
        let outcome = once(ctx, *case).await;
        statements.push(ctx.statements.seen.load(Ordering::SeqCst));
        outcomes.push(outcome.inspect_err(|_| ctx.statements.counting.store(false, Ordering::SeqCst))?);
    }
    ctx.statements.counting.store(false, Ordering::SeqCst);
    Ok((outcomes, statements))
}

/// `iterations` timed runs of every case (milliseconds), after a warm-up, in interleaved rounds.
async fn timed(ctx: &Ctx, cases: &[Case], iterations: usize) -> Result<Vec<Vec<f64>>, String> {
    for case in cases {
        for _ in 0..10 {
            once(ctx, *case).await?;
        }
    }
    let mut times = vec![Vec::with_capacity(iterations); cases.len()];
    for round in 0..ROUNDS {
        for k in 0..cases.len() {
            let i = (k + round) % cases.len();
            for _ in 0..iterations / ROUNDS {
                let start = Instant::now();
                once(ctx, cases[i]).await?;
                times[i].push(start.elapsed().as_secs_f64() * 1000.0);
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(times)
}

/// One run of a case, as a client does it: every response read and parsed.
async fn once(ctx: &Ctx, case: Case) -> Result<Outcome, String> {
    match case {
        Case::Count { offset, mode } => {
            let page =
                get(&ctx.client, format!("{}/api/posts/?limit=20&offset={offset}&count={mode}", ctx.base)).await?;
            Ok(Outcome { pairs: Vec::new(), page, requests: 1 })
        }
        Case::Authors { how, limit } => {
            let expand = if how == Fetch::Expand { "&expand=author" } else { "" };
            let page = get(&ctx.client, format!("{}/api/posts/?limit={limit}{expand}", ctx.base)).await?;
            let posts = page["results"].as_array().ok_or("the list has no results")?;
            let urls = posts.iter().map(|p| format!("{}/authors/{}", ctx.base, p["author_id"]));
            let authors: Vec<Value> = match how {
                Fetch::Plain => vec![Value::Null; posts.len()],
                Fetch::Expand => posts.iter().map(|p| p["author"].clone()).collect(),
                Fetch::Sequential => {
                    let mut authors = Vec::with_capacity(posts.len());
                    for url in urls {
                        authors.push(get(&ctx.client, url).await?);
                    }
                    authors
                }
                Fetch::Concurrent => {
                    let tasks: Vec<_> = urls.map(|url| tokio::spawn(get(ctx.client.clone(), url))).collect();
                    let mut authors = Vec::with_capacity(tasks.len());
                    for task in tasks {
                        authors.push(task.await.map_err(|e| e.to_string())??);
                    }
                    authors
                }
            };
            let requests = if matches!(how, Fetch::Plain | Fetch::Expand) { 1 } else { 1 + posts.len() };
            let pairs = posts.iter().map(|p| p["id"].clone()).zip(authors).collect();
            Ok(Outcome { pairs, page: Value::Null, requests })
        }
    }
}

async fn get(client: impl std::borrow::Borrow<reqwest::Client>, url: String) -> Result<Value, String> {
    let response = client.borrow().get(&url).send().await.map_err(|e| format!("{url}: {e}"))?;
    if !response.status().is_success() {
        return Err(format!("{url}: {}", response.status()));
    }
    response.json().await.map_err(|e| format!("{url}: {e}"))
}

/// Markdown rows: `cells[i]` (the first columns), the SQL statements, median, p95 and their ratios to case
/// `baseline`.
fn print_rows(cells: &[String], statements: &[usize], times: &[Vec<f64>], baseline: usize) {
    let (base_median, base_p95) = stats(&times[baseline]);
    for ((cell, statements), times) in cells.iter().zip(statements).zip(times) {
        let (median, p95) = stats(times);
        let (m, p) = (ratio(median / base_median), ratio(p95 / base_p95));
        println!("| {cell} | {statements} | {median:.2} | {p95:.2} | {m} | {p} |");
    }
}

/// A ratio with two decimals, three below 0.1 (so that 0.011× and 0.014× stay apart).
pub(crate) fn ratio(r: f64) -> String {
    if r < 0.1 { format!("{r:.3}×") } else { format!("{r:.2}×") }
}

/// Median and p95 (nearest rank) of `samples`.
pub(crate) fn stats(samples: &[f64]) -> (f64, f64) {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let median = if n.is_multiple_of(2) { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 } else { sorted[n / 2] };
    let p95 = sorted[((n as f64 * 0.95).ceil() as usize).clamp(1, n) - 1];
    (median, p95)
}
