//! `viewset-bench aggregate`: `GET /api/posts/aggregate` (issue 71) on a table of 1,000,000 posts against its
//! alternatives, in one run, on a fresh PostgreSQL database and the blog's router served in-process on a loopback
//! port (bob's token):
//!
//! - the blog's aggregate, grouped by author (`count`, `sum=views`, `avg=rating`) and by month of `created_at`;
//! - the same statements written by hand with sqlx, served by extra axum routes of the same server
//!   ([`crate::aggregate_sqlx`]), answering the same JSON; the run checks that the text of each is the statement
//!   the store ran for the aggregate (from its statement hook);
//! - a client that pages through the whole list (`GET /cursor/posts/?limit=100`, following `next`: keyset pages,
//!   since 10,000 offset pages would re-read half the table each) and adds the numbers up itself.
//!
//! Before timing, every case runs once with its HTTP requests and SQL statements counted and its answer checked
//! against the aggregate's (the paging client's sums for both groupings). Around those runs the process's peak
//! resident set (`VmHWM`, reset through `/proc/self/clear_refs`; server and client share the process) shows what
//! each way holds in memory. Then the cases take turns in rounds; the paging client runs once per round in the
//! first `--paging-runs` rounds. The output is medians, p95 and ratios measured in the same run, never a threshold.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sqlx::{AssertSqlSafe, Executor};
use viewset_core::ServiceState;

use crate::aggregate_sqlx::{self, Grouping};
use crate::harness::loadavg;
use crate::in_process::{self, peak_kib, reset_peak, rss_kib};
use crate::reads::{ratio, stats};
use crate::sql_count::Statements;

/// Options of `aggregate`.
pub struct Options {
    pg: String,
    rows: u64,
    authors: u64,
    iterations: usize,
    paging_runs: usize,
}

impl Options {
    /// `--pg URL --rows N --authors N --iterations N --paging-runs N`.
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let pg = "postgres://postgres:postgres@127.0.0.1:5432".into();
        let mut o = Options { pg, rows: 1_000_000, authors: 100, iterations: 50, paging_runs: 3 };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let value = it.next().ok_or(format!("`{arg}` needs a value"))?;
            let number = || value.parse::<u64>().map_err(|_| format!("{arg} takes a number"));
            match arg.as_str() {
                "--pg" => o.pg = value.trim_end_matches('/').to_string(),
                "--rows" => o.rows = number()?,
                "--authors" => o.authors = number()?,
                "--iterations" => o.iterations = number()? as usize,
                "--paging-runs" => o.paging_runs = number()? as usize,
                other => return Err(format!("unknown option `{other}`")),
            }
        }
        // The blog declares `max_groups = 200`: more authors would be a truncated answer.
        if !(1..=200).contains(&o.authors) || o.rows < 1000 || o.iterations < ROUNDS || o.paging_runs > ROUNDS {
            return Err(format!(
                "need 1 ≤ --authors ≤ 200, --rows ≥ 1000, --iterations ≥ {ROUNDS}, --paging-runs ≤ {ROUNDS}"
            ));
        }
        Ok(o)
    }
}

/// Rounds: the aggregate cases run `iterations / ROUNDS` times each per round, in turn.
const ROUNDS: usize = 5;

/// One measured case.
#[derive(Clone, Copy, PartialEq)]
enum Case {
    /// `GET /api/posts/aggregate?…`.
    Viewset(Grouping),
    /// The hand-written route answering the same.
    Sqlx(Grouping),
    /// Every page of `/cursor/posts/?limit=100`, summed by the client (both groupings at once).
    Paging,
}

impl Case {
    const TIMED: [Case; 4] = [
        Case::Viewset(Grouping::Author),
        Case::Sqlx(Grouping::Author),
        Case::Viewset(Grouping::Month),
        Case::Sqlx(Grouping::Month),
    ];

    fn label(self) -> String {
        match self {
            Case::Viewset(g) => format!("viewset `GET /api/posts/aggregate?{}`", g.query()),
            Case::Sqlx(g) => format!("axum + sqlx, the same statement ({})", g.name()),
            Case::Paging => "client paging `/cursor/posts/?limit=100`, summing".into(),
        }
    }
}

struct Ctx {
    client: reqwest::Client,
    base: String,
    statements: Arc<Statements>,
}

/// What one run of a case answered: the aggregate's JSON (for paging: by author, then by month) and its requests.
struct Outcome {
    answers: Vec<Value>,
    requests: usize,
    /// The bytes of JSON the client received.
    bytes: usize,
}

/// Runs the measurement.
pub fn run(options: Options) -> Result<(), String> {
    let o = &options;
    in_process::block_on_fresh_database(
        &o.pg,
        "viewset_bench_aggregate",
        |url| async move { measure_on(&url, o).await },
    )
}

async fn measure_on(url: &str, o: &Options) -> Result<(), String> {
    let conn = blog::connect_and_migrate(url).await.map_err(|e| format!("connect {url}: {e}"))?;
    let statements = Statements::install();
    let handwritten = sqlx::postgres::PgPoolOptions::new().max_connections(10).connect(url).await;
    let handwritten = handwritten.map_err(|e| format!("connect {url}: {e}"))?;
    let mut api = blog::api();
    api.include::<crate::viewset_server::BenchCursorPosts>().map_err(|e| e.to_string())?;
    let app = blog::app_from(api, ServiceState::new(conn.clone())).merge(aggregate_sqlx::routes(handwritten.clone()));
    let (base, server) = in_process::serve(app).await?;
    let ctx = Ctx { client: in_process::client("Bearer bob-token")?, base, statements };
    let result = async {
        seed(&handwritten, o).await?;
        println!("load average before: {}", loadavg());
        compare(&ctx, o).await?;
        println!("\nload average after: {}", loadavg());
        Ok(())
    }
    .await;
    server.abort();
    handwritten.close().await;
    conn.close().await.ok();
    result
}

/// `o.authors` authors and `o.rows` posts in one `INSERT … SELECT generate_series` each, then `VACUUM ANALYZE`.
/// A post's rating is 0.0–4.5 in halves (exact sums), NULL for every seventh; one post a minute from 2025-01-01.
async fn seed(pool: &sqlx::PgPool, o: &Options) -> Result<(), String> {
    let started = Instant::now();
    let authors = format!(
        "INSERT INTO authors (name, email) SELECT 'Author ' || i, 'author' || i || '@example.com' \
         FROM generate_series(1, {}) AS i",
        o.authors
    );
    let posts = format!(
        "INSERT INTO posts (title, body, published, views, rating, author_id, created_at) \
         SELECT 'Post ' || i, 'Body of post ' || i, i % 2 = 0, i % 10000, \
         CASE WHEN i % 7 = 0 THEN NULL ELSE (i % 10) * 0.5 END, 1 + i % {}, \
         TIMESTAMPTZ '2025-01-01 00:00:00+00' + i * INTERVAL '1 minute' FROM generate_series(1, {}) AS i",
        o.authors, o.rows
    );
    for sql in [authors, posts, "VACUUM ANALYZE".into()] {
        pool.execute(AssertSqlSafe(sql)).await.map_err(|e| format!("seed: {e}"))?;
    }
    println!(
        "\n## aggregates: {} posts by {} authors (one INSERT … SELECT generate_series + VACUUM ANALYZE: {:.1} s), {} \
         timed requests per aggregate case and {} paging runs, {ROUNDS} rounds interleaved, bob's token",
        o.rows,
        o.authors,
        started.elapsed().as_secs_f64(),
        o.iterations,
        o.paging_runs
    );
    Ok(())
}

async fn compare(ctx: &Ctx, o: &Options) -> Result<(), String> {
    let before = rss_kib();
    reset_peak();
    // Every case once, counted and checked; the aggregate's own statements kept to compare the hand-written ones.
    let mut counted = Vec::new();
    ctx.statements.texts.lock().map_err(|e| e.to_string())?.clear();
    ctx.statements.keep_text.store(true, Ordering::SeqCst);
    for case in Case::TIMED {
        counted.push(counted_run(ctx, case).await?);
    }
    ctx.statements.keep_text.store(false, Ordering::SeqCst);
    for _ in 0..10 {
        for grouping in [Grouping::Author, Grouping::Month] {
            once(ctx, Case::Viewset(grouping)).await?;
        }
    }
    let aggregate_peak = peak_kib();
    let texts = std::mem::take(&mut *ctx.statements.texts.lock().map_err(|e| e.to_string())?);
    if texts.len() != 2 {
        return Err(format!("expected one statement per aggregate, the store ran {texts:?}"));
    }
    for (grouping, text) in [Grouping::Author, Grouping::Month].into_iter().zip(&texts) {
        let handwritten = grouping.statement_text();
        if *text != handwritten {
            let name = grouping.name();
            return Err(format!("{name}: the store ran\n  {text}\nthe hand-written route runs\n  {handwritten}"));
        }
    }
    for pair in [[0, 1], [2, 3]] {
        let (viewset, handwritten) = (&counted[pair[0]].0.answers[0], &counted[pair[1]].0.answers[0]);
        if viewset != handwritten || viewset["truncated"] != json!(false) {
            return Err(format!("{}: answers differ:\n{viewset}\n{handwritten}", Case::TIMED[pair[1]].label()));
        }
    }
    reset_peak();
    let before_paging = rss_kib();
    let (paged, paging_statements) = counted_run(ctx, Case::Paging).await?;
    let paging_peak = peak_kib();
    for (i, grouping) in [Grouping::Author, Grouping::Month].into_iter().enumerate() {
        let aggregate = &counted[2 * i].0.answers[0];
        if !same_groups(&paged.answers[i], aggregate) {
            return Err(format!("paging by {}: {} differs from {aggregate}", grouping.name(), paged.answers[i]));
        }
    }
    println!("\nThe statement of each aggregate, as the store ran it (the hand-written routes run the same text):\n");
    for text in &texts {
        println!("    {text}");
    }
    let mib = |kib: u64| kib as f64 / 1024.0;
    println!(
        "\nMemory (this process: server and client): VmRSS {:.1} MiB before 24 aggregate requests, peak (VmHWM) \
         {:.1} MiB during them (+{:.1}); VmRSS {:.1} MiB before one paging run, peak {:.1} MiB during it (+{:.1})",
        mib(before),
        mib(aggregate_peak),
        mib(aggregate_peak.saturating_sub(before)),
        mib(before_paging),
        mib(paging_peak),
        mib(paging_peak.saturating_sub(before_paging)),
    );
    let times = timed(ctx, o).await?;
    println!(
        "\n| case | HTTP requests | JSON received | SQL statements (store) | median ms | p95 ms | runs | ÷ aggregate |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut rows: Vec<(Case, &Outcome, String)> =
        Case::TIMED.iter().zip(&counted).map(|(c, (out, n))| (*c, out, n.to_string())).collect();
    rows.insert(2, (Case::Paging, &paged, paging_statements.to_string()));
    for (case, outcome, statements) in rows {
        let (requests, kib) = (outcome.requests, outcome.bytes as f64 / 1024.0);
        let statements = if matches!(case, Case::Sqlx(_)) { "1 (hand-written)".into() } else { statements };
        let samples = &times[index(case)];
        let base = match case {
            Case::Sqlx(g) | Case::Viewset(g) => Case::Viewset(g),
            Case::Paging => Case::Viewset(Grouping::Author),
        };
        let ((median, p95), (base_median, _)) = (stats(samples), stats(&times[index(base)]));
        let r = ratio(median / base_median);
        let runs = samples.len();
        println!(
            "| {} | {requests} | {kib:.1} KiB | {statements} | {median:.1} | {p95:.1} | {runs} | {r} |",
            case.label()
        );
    }
    let median = |i: usize| stats(&times[i]).0;
    println!(
        "\nsqlx ÷ viewset (medians; ≥ 1 when viewset is as fast): by author {}, by month {}; paging ÷ aggregate by \
         author: {:.0}×",
        ratio(median(1) / median(0)),
        ratio(median(3) / median(2)),
        median(index(Case::Paging)) / median(0)
    );
    Ok(())
}

/// The position of `case`'s samples: the timed cases, then paging.
fn index(case: Case) -> usize {
    Case::TIMED.iter().position(|c| *c == case).unwrap_or(Case::TIMED.len())
}

/// One run of `case` with the store's statements counted.
async fn counted_run(ctx: &Ctx, case: Case) -> Result<(Outcome, usize), String> {
    ctx.statements.seen.store(0, Ordering::SeqCst);
    ctx.statements.counting.store(true, Ordering::SeqCst);
    let outcome = once(ctx, case).await;
    ctx.statements.counting.store(false, Ordering::SeqCst);
    Ok((outcome?, ctx.statements.seen.load(Ordering::SeqCst)))
}

/// The timed rounds: milliseconds per case, in [`index`] order.
async fn timed(ctx: &Ctx, o: &Options) -> Result<Vec<Vec<f64>>, String> {
    let mut times = vec![Vec::new(); Case::TIMED.len() + 1];
    for round in 0..ROUNDS {
        let mut order: Vec<Case> = Case::TIMED.to_vec();
        if round < o.paging_runs {
            order.push(Case::Paging);
        }
        let turn = round % order.len();
        order.rotate_left(turn);
        for case in order {
            let repeat = if case == Case::Paging { 1 } else { o.iterations / ROUNDS };
            for _ in 0..repeat {
                let start = Instant::now();
                let outcome = once(ctx, case).await?;
                times[index(case)].push(start.elapsed().as_secs_f64() * 1000.0);
                if outcome.answers.iter().any(|a| a["groups"].as_array().is_none_or(Vec::is_empty)) {
                    return Err(format!("{}: no groups", case.label()));
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(times)
}

/// One run of a case, as a client does it: every response read and parsed.
async fn once(ctx: &Ctx, case: Case) -> Result<Outcome, String> {
    let url = match case {
        Case::Viewset(g) => format!("{}/api/posts/aggregate?{}", ctx.base, g.query()),
        Case::Sqlx(g) => format!("{}{}", ctx.base, g.sqlx_path()),
        Case::Paging => return paging(ctx).await,
    };
    let response = ctx.client.get(&url).send().await.map_err(|e| format!("{url}: {e}"))?;
    let status = response.status();
    let body = response.bytes().await.map_err(|e| format!("{url}: {e}"))?;
    let answer: Value = serde_json::from_slice(&body).map_err(|e| format!("{url}: {e}"))?;
    if !status.is_success() {
        return Err(format!("{url}: {status} {answer}"));
    }
    Ok(Outcome { answers: vec![answer], requests: 1, bytes: body.len() })
}

/// A page of the cursor list, as the paging client reads it.
#[derive(serde::Deserialize)]
struct Page {
    next: Option<String>,
    results: Vec<Row>,
}

/// The fields of a post the paging client adds up.
#[derive(serde::Deserialize)]
struct Row {
    author_id: i64,
    views: i64,
    rating: Option<f64>,
    created_at: String,
}

/// Every page of the cursor list, the numbers added up per author and per month (UTC: the text's `YYYY-MM`).
async fn paging(ctx: &Ctx) -> Result<Outcome, String> {
    // Per author: rows, sum of views, sum and number of ratings. Per month: rows.
    let mut authors = std::collections::BTreeMap::<i64, (i64, i64, f64, i64)>::new();
    let mut months = std::collections::BTreeMap::<String, i64>::new();
    let mut next = Some("/cursor/posts/?limit=100".to_string());
    let (mut requests, mut bytes) = (0, 0);
    while let Some(path) = next {
        let url = format!("{}{path}", ctx.base);
        let response = ctx.client.get(&url).send().await.map_err(|e| format!("{url}: {e}"))?;
        if !response.status().is_success() {
            return Err(format!("{url}: {}", response.status()));
        }
        let body = response.bytes().await.map_err(|e| format!("{url}: {e}"))?;
        let page: Page = serde_json::from_slice(&body).map_err(|e| format!("{url}: {e}"))?;
        (requests, bytes) = (requests + 1, bytes + body.len());
        for row in page.results {
            let group = authors.entry(row.author_id).or_default();
            group.0 += 1;
            group.1 += row.views;
            if let Some(rating) = row.rating {
                group.2 += rating;
                group.3 += 1;
            }
            *months.entry(row.created_at.get(..7).unwrap_or_default().to_string()).or_default() += 1;
        }
        next = page.next;
    }
    let by_author = authors.into_iter().map(|(id, (count, views, ratings, rated))| {
        let avg = if rated == 0 { Value::Null } else { json!(ratings / rated as f64) };
        json!({"author_id": id, "count": count, "sum_views": views, "avg_rating": avg})
    });
    let by_month = months.into_iter().map(|(month, count)| json!({"created_at__month": month, "count": count}));
    let answers = vec![
        json!({"groups": by_author.collect::<Vec<_>>(), "truncated": false}),
        json!({"groups": by_month.collect::<Vec<_>>(), "truncated": false}),
    ];
    Ok(Outcome { answers, requests, bytes })
}

/// The same groups in the same order, numbers equal (averages to 1e-9 relative: the client adds in another order).
fn same_groups(a: &Value, b: &Value) -> bool {
    let (Some(a), Some(b)) = (a["groups"].as_array(), b["groups"].as_array()) else { return false };
    let close = |x: &Value, y: &Value| match (x.as_f64(), y.as_f64()) {
        (Some(x), Some(y)) if x.fract() != 0.0 || y.fract() != 0.0 => (x - y).abs() <= 1e-9 * x.abs().max(1.0),
        _ => x == y,
    };
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            let (Some(x), Some(y)) = (x.as_object(), y.as_object()) else { return false };
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| close(v, w)))
        })
}
