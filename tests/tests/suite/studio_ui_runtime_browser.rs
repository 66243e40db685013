//! The Runtime Panel's metrics in headless Chromium, on SQLite, PostgreSQL and MariaDB: the blog runs as a child
//! process (`blog_instance`, so its Prometheus registry counts only this test's requests) with Studio mounted and
//! its metrics listener; with the panel shown, the test scrapes `/metrics`, makes a known set of requests, scrapes
//! again, and checks what the page plots from `/studio/metrics` against those two scrapes: the requests per
//! operation exactly, p50 / p99 as Prometheus's `histogram_quantile` gives them over the two scrapes' difference,
//! the rate line integrating to the requests, the pools and subscribers as scraped. Screenshot:
//! `target/studio-ui-screenshots/8-runtime-panel-metrics.png`.

use std::process::Stdio;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use fantoccini::Client;
use reqwest::StatusCode;
use serde_json::Value;
use viewset_tests::harness::Backend;
use viewset_tests::on_every_database;
use viewset_tests::studio_fixtures::{TOKEN, UI_SECRET};

use crate::support::browser::{self, find, js, screenshot};
use crate::support::observed::{Blog, blog_on};

on_every_database!(studio_blog => runtime_panel_plots_the_registrys_metrics);

/// The blog with Studio as `studio_fixtures::ui_settings` configures it, from its environment.
async fn studio_blog(backend: Backend) -> Blog {
    let env = [
        ("SERVICE_ENABLE_STUDIO", "true"),
        ("SERVICE_STUDIO_REQUIRE_AUTH", "true"),
        ("SERVICE_STUDIO_AUTH_TOKEN", TOKEN),
        ("SERVICE_STUDIO_SECRET_TOKEN", UI_SECRET),
    ];
    blog_on(backend, &env, Stdio::null()).await
}

/// The value of each sample of `name` in the exporter's `text` whose labels include every one of `labels`, with
/// its `le` label when it has one.
fn samples(text: &str, name: &str, labels: &[&str]) -> Vec<(String, f64)> {
    text.lines()
        .filter(|line| line.starts_with(&format!("{name}{{")) || line.starts_with(&format!("{name} ")))
        .filter(|line| labels.iter().all(|label| line.contains(label)))
        .map(|line| {
            let le = line.split("le=\"").nth(1).and_then(|rest| rest.split('"').next()).unwrap_or("").to_string();
            let value = line.rsplit(' ').next().expect("a value").parse().expect("a number");
            (le, value)
        })
        .collect()
}

/// `operation`'s latency buckets in `text`: the finite bounds and the cumulative counts, `+Inf` last.
fn buckets(text: &str, operation: &str) -> (Vec<f64>, Vec<f64>) {
    let label = format!("operation=\"{operation}\"");
    let mut found = samples(text, "viewset_http_request_duration_seconds_bucket", &[&label]);
    let bound = |le: &str| if le == "+Inf" { f64::INFINITY } else { le.parse().expect("a bound") };
    found.sort_by(|a, b| bound(&a.0).total_cmp(&bound(&b.0)));
    let bounds = found.iter().map(|(le, _)| bound(le)).filter(|b| b.is_finite()).collect();
    (bounds, found.into_iter().map(|(_, count)| count).collect())
}

/// Prometheus's `histogram_quantile(q, …)` (promql/quantile.go `bucketQuantile`) over cumulative `counts` with
/// the finite upper `bounds`, written here again rather than taken from the page.
fn histogram_quantile(q: f64, bounds: &[f64], counts: &[f64]) -> f64 {
    let total = *counts.last().expect("a +Inf bucket");
    let rank = q * total;
    let b = counts[..bounds.len()].iter().position(|&c| c >= rank).unwrap_or(bounds.len());
    if b == bounds.len() {
        return bounds[bounds.len() - 1];
    }
    let (start, below) = if b == 0 { (0.0, 0.0) } else { (bounds[b - 1], counts[b - 1]) };
    start + (bounds[b] - start) * ((rank - below) / (counts[b] - below))
}

async fn scrape(blog: &Blog) -> String {
    reqwest::get(&blog.metrics).await.expect("scrape").text().await.expect("text")
}

/// Runs `script` until it returns something other than `null`, for at most 20 s.
async fn until(client: &Client, script: &str, what: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let value = js(client, script).await;
        if !value.is_null() {
            return value;
        }
        if Instant::now() > deadline {
            browser::fail(client, what).await;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A line of the chart `chart` named `series`: its points' times and values (`None`: a gap).
async fn line(client: &Client, chart: &str, series: &str) -> Vec<(f64, Option<f64>)> {
    let script = format!(
        "const p = document.querySelector(`section[aria-label=Metrics] figure[data-chart='{chart}'] \
         path[data-series='{series}']`); return p && [p.dataset.times, p.dataset.values];"
    );
    let found = until(client, &script, &format!("the line {series} of {chart}")).await;
    let split = |v: &Value| v.as_str().unwrap_or("").split(',').map(str::to_string).collect::<Vec<_>>();
    let (times, values) = (split(&found[0]), split(&found[1]));
    times.iter().zip(&values).map(|(t, v)| (t.parse().expect("a time"), v.parse().ok())).collect()
}

async fn runtime_panel_plots_the_registrys_metrics(blog: Blog) {
    let Some((driver_path, chromium)) = browser::require() else { return };
    let driver = browser::Driver::start(&driver_path).await;
    let client = driver.session(&chromium).await;
    browser::sign_in(&client, &format!("{}/studio/ui", blog.base)).await;
    browser::open(&client, "Runtime Panel", "runtime-panel").await;
    // The first snapshot is drawn: the window starts there, before any of the known requests.
    find(&client, "section[aria-label=Metrics] figure.plot").await;
    let before = scrape(&blog).await;

    let client_http = reqwest::Client::new();
    let get = |path: &str| client_http.get(format!("{}{path}", blog.base)).send();
    for _ in 0..5 {
        assert_eq!(get("/api/posts/").await.expect("list").status(), StatusCode::OK);
    }
    for _ in 0..2 {
        assert_eq!(get("/api/posts/1").await.expect("retrieve").status(), StatusCode::OK);
    }
    assert_eq!(get("/api/posts/999999").await.expect("retrieve").status(), StatusCode::NOT_FOUND);
    let after = scrape(&blog).await;
    let done = SystemTime::now().duration_since(UNIX_EPOCH).expect("after 1970").as_secs_f64();

    // A snapshot taken after the requests (the page polls every 2 s).
    let figures = "const t = document.querySelector('section[aria-label=Metrics] table.figures'); \
                   return t && Number(t.dataset.to) > DONE ? [...t.querySelectorAll('tr[data-operation]')] \
                   .map((r) => ({...r.dataset})) : null;";
    let rows = until(&client, &figures.replace("DONE", &done.to_string()), "figures after the requests").await;
    let row = |operation: &str| {
        let found = rows.as_array().unwrap().iter().find(|r| r["operation"] == operation);
        found.unwrap_or_else(|| panic!("{operation} in {rows}")).clone()
    };
    let number = |row: &Value, key: &str| row[key].as_str().unwrap_or("").parse::<f64>().expect(key);
    for (operation, requests) in [("posts_list", 5.0), ("posts_retrieve", 3.0)] {
        let shown = row(operation);
        assert_eq!(number(&shown, "requests"), requests, "{operation}: {shown}");
        let (bounds, at_start) = buckets(&before, operation);
        let (_, at_end) = buckets(&after, operation);
        let delta: Vec<f64> = at_end.iter().zip(&at_start).map(|(end, start)| end - start).collect();
        assert_eq!(delta.last(), Some(&requests), "{operation}: the scrapes count the requests too");
        for (q, key) in [(0.5, "p50"), (0.99, "p99")] {
            let expected = histogram_quantile(q, &bounds, &delta);
            let plotted = number(&shown, key);
            assert!(
                (plotted - expected).abs() <= 1e-12 * expected.max(1.0),
                "{operation} {key}: {plotted} vs {expected}"
            );
        }
        // The rate line integrates to the requests: each point is a rate over the interval that ends at it.
        let points = line(&client, "Requests per second", operation).await;
        let table = js(&client, "return Number(document.querySelector('table.figures').dataset.from);").await;
        let mut start = table.as_f64().expect("data-from");
        let mut integral = 0.0;
        for (t, rate) in &points {
            integral += rate.expect("a rate per interval") * (t - start);
            start = *t;
        }
        assert!((integral - requests).abs() < 1e-6, "{operation}: the rate line holds {integral} requests: {points:?}");
        let p50 = line(&client, "Latency p50 / p99 (ms)", &format!("{operation} p50")).await;
        let p99 = line(&client, "Latency p50 / p99 (ms)", &format!("{operation} p99")).await;
        for ((_, p50), (_, p99)) in p50.iter().zip(&p99) {
            assert!(p50.zip(*p99).is_none_or(|(p50, p99)| p50 <= p99), "{operation}: {p50:?} > {p99:?}");
        }
        assert!(p50.iter().any(|(_, v)| v.is_some()), "{operation}: a p50 point");
    }
    // The gauges are the scrape's (nothing ran after it but Studio's own polls): the primary pool's connections
    // (in use and idle together, as a health check may hold one), the stream subscribers.
    let last = |points: &[(f64, Option<f64>)]| points.last().and_then(|(_, v)| *v).expect("a last point");
    let pool: f64 = samples(&after, "viewset_db_pool_connections", &["role=\"primary\""]).iter().map(|s| s.1).sum();
    let in_use = line(&client, "Pool connections", "primary in use").await;
    let idle = line(&client, "Pool connections", "primary idle").await;
    assert_eq!(last(&in_use) + last(&idle), pool, "{in_use:?} {idle:?}\n{after}");
    assert!(pool >= 1.0, "{after}");
    let subscribers = samples(&after, "viewset_events_subscribers", &[])[0].1;
    assert_eq!(last(&line(&client, "Event subscribers", "subscribers").await), subscribers);
    let backlog = samples(&after, "viewset_events_outbox_backlog", &[])[0].1;
    assert_eq!(last(&line(&client, "Outbox backlog", "outbox backlog").await), backlog);
    find(&client, &format!("section[aria-label=Metrics] [data-outbox=\"{backlog}\"]")).await;
    // Two more polls, so the screenshot's lines have a few points.
    let later = format!("return Number(document.querySelector('table.figures')?.dataset.to) > {} || null;", done + 3.5);
    until(&client, &later, "two more snapshots").await;
    js(&client, "document.querySelector('section[aria-label=Metrics]').scrollIntoView({block: 'start'});").await;
    screenshot(&client, "8-runtime-panel-metrics").await;
    // The anonymous live feed is refused the authors' stream (staff only) by design.
    browser::assert_no_console_errors(&client, &["401", "403"]).await;
    client.close().await.unwrap();
}
