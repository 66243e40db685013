//! Observability of the blog (issue 73): a real Prometheus server (Debian's `prometheus`) scrapes the blog's
//! `SERVICE_METRICS_ADDR` listener and its query API returns exact counts after a known set of requests (a double
//! count fails); the Grafana dashboard names only series the exporter produces, and its queries parse as PromQL
//! (Prometheus's `promtool`); `SERVICE_LOG_FORMAT=json` writes one JSON line per request and no secret the requests
//! carried. Without the `prometheus` and `promtool` binaries those tests are skipped, and fail when
//! `VIEWSET_REQUIRE_PROMETHEUS=1` (as in CI).

use std::collections::BTreeSet;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::StatusCode;
use serde_json::Value;
use viewset_tests::every_database::skip_unless_required;
use viewset_tests::identities::blog::BOB;

use crate::support::observed::{Process, TempDir, blog, free_port};

/// The known set of requests: what each answers, and what the exporter must count for them.
async fn known_requests(client: &reqwest::Client, base: &str) {
    let get = |path: &str| client.get(format!("{base}{path}")).send();
    for _ in 0..3 {
        assert_eq!(get("/api/posts/").await.expect("list").status(), StatusCode::OK);
    }
    for _ in 0..2 {
        assert_eq!(get("/api/posts/1").await.expect("retrieve").status(), StatusCode::OK);
    }
    assert_eq!(get("/api/posts/999999").await.expect("retrieve").status(), StatusCode::NOT_FOUND);
    // The seventh anonymous request of the minute (SERVICE_THROTTLE_ANON=6/minute).
    assert_eq!(get("/api/posts/").await.expect("list").status(), StatusCode::TOO_MANY_REQUESTS);
    let long = format!("/api/posts/?search={}", "x".repeat(9000));
    assert_eq!(get(&long).await.expect("long URI").status(), StatusCode::URI_TOO_LONG);
    assert_eq!(get("/no-such-path").await.expect("unknown path").status(), StatusCode::NOT_FOUND);
    let create = || {
        client
            .post(format!("{base}/api/posts/"))
            .bearer_auth(BOB.expect("Bob's token"))
            .header("idempotency-key", "metrics-test-key")
            .json(&serde_json::json!({"title": "counted", "body": "once", "author_id": 1}))
            .send()
    };
    let first = create().await.expect("create");
    assert_eq!(first.status(), StatusCode::CREATED);
    let again = create().await.expect("create again");
    assert_eq!(again.status(), StatusCode::CREATED);
    assert_eq!(again.headers().get("idempotent-replayed").map(|v| v.as_bytes()), Some(&b"true"[..]));
}

/// Each series and the exact value the known requests leave in it.
const EXPECTED: [(&str, f64); 18] = [
    (r#"viewset_http_requests_total{operation="posts_list",status="2xx"}"#, 3.0),
    (r#"viewset_http_requests_total{operation="posts_list",status="4xx"}"#, 1.0),
    (r#"viewset_http_requests_total{operation="posts_retrieve",status="2xx"}"#, 2.0),
    (r#"viewset_http_requests_total{operation="posts_retrieve",status="4xx"}"#, 1.0),
    (r#"viewset_http_requests_total{operation="posts_create",status="2xx"}"#, 2.0),
    (r#"viewset_http_requests_total{operation="other",status="4xx"}"#, 2.0),
    // Every request once: a request counted twice anywhere fails here.
    ("sum(viewset_http_requests_total)", 11.0),
    (r#"viewset_http_request_duration_seconds_count{operation="posts_list"}"#, 4.0),
    ("sum(viewset_http_request_duration_seconds_count)", 11.0),
    ("viewset_http_requests_in_flight", 0.0),
    (r#"viewset_http_throttled_total{scope="anon"}"#, 1.0),
    (r#"viewset_http_rejected_total{limit="max_uri_bytes"}"#, 1.0),
    (r#"viewset_idempotency_keys_total{outcome="claimed"}"#, 1.0),
    (r#"viewset_idempotency_keys_total{outcome="replayed"}"#, 1.0),
    // The create's INSERT; its replay writes nothing.
    (r#"viewset_db_statement_duration_seconds_count{kind="insert"}"#, 1.0),
    ("viewset_events_published_total", 1.0),
    ("viewset_events_delivered_total", 1.0),
    (r#"count(viewset_build_info{features=~".*metrics.*"})"#, 1.0),
];

/// The value of the instant query `query` (`None` when it has no result).
async fn query(client: &reqwest::Client, prometheus: &str, query: &str) -> Option<f64> {
    let encoded: String = form_urlencoded::byte_serialize(query.as_bytes()).collect();
    let answer = client.get(format!("{prometheus}/api/v1/query?query={encoded}")).send().await;
    let body: Value = answer.expect("Prometheus answers").json().await.expect("JSON");
    assert_eq!(body["status"], "success", "{query}: {body}");
    let result = body["data"]["result"].as_array().expect("a vector");
    assert!(result.len() <= 1, "{query} names one series: {body}");
    result.first().map(|series| series["value"][1].as_str().expect("a value").parse().expect("a number"))
}

/// Whether the `prometheus` binary runs; when not, the test is skipped (a failure with
/// `VIEWSET_REQUIRE_PROMETHEUS=1`).
fn prometheus_installed() -> bool {
    if Command::new("prometheus").arg("--version").output().is_ok_and(|out| out.status.success()) {
        return true;
    }
    skip_unless_required("VIEWSET_REQUIRE_PROMETHEUS", "prometheus is not installed (apt-get install prometheus)");
    false
}

/// A private Prometheus scraping `target` (`host:port`) every second, with its configuration and data in `dir`.
fn prometheus(dir: &TempDir, target: &str, port: u16) -> Process {
    let config = dir.0.join("prometheus.yml");
    let text = format!(
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: blog\n    \
         static_configs:\n      - targets: ['{target}']\n"
    );
    std::fs::write(&config, text).expect("write prometheus.yml");
    let child = Command::new("prometheus")
        .arg(format!("--config.file={}", config.display()))
        .arg(format!("--storage.tsdb.path={}", dir.0.join("data").display()))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start prometheus");
    Process(child)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prometheus_scrapes_exact_counts_of_a_known_set_of_requests() {
    if !prometheus_installed() {
        return;
    }
    let blog = blog(&[("SERVICE_THROTTLE_ANON", "6/minute")], Stdio::null()).await;
    let client = reqwest::Client::new();
    let dir = TempDir::new("prometheus");
    let port = free_port();
    let target = blog.metrics.trim_start_matches("http://").trim_end_matches("/metrics").to_string();
    let _prometheus = prometheus(&dir, &target, port);
    let api = format!("http://127.0.0.1:{port}");
    let mut ready = false;
    for _ in 0..600 {
        if client.get(format!("{api}/-/ready")).send().await.is_ok_and(|r| r.status() == StatusCode::OK) {
            ready = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(ready, "Prometheus never became ready at {api}");

    known_requests(&client, &blog.base).await;
    let done = SystemTime::now().duration_since(UNIX_EPOCH).expect("after 1970").as_secs_f64();
    // Until Prometheus has scraped the blog after the last answer (a hang guard: at most 60 s).
    let mut scraped = false;
    for _ in 0..600 {
        let at = query(&client, &api, r#"timestamp(up{job="blog"} == 1)"#).await;
        if at.is_some_and(|at| at > done + 0.001) {
            scraped = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(scraped, "Prometheus did not scrape the blog at {target} after the requests");
    let mut wrong = Vec::new();
    for (series, expected) in EXPECTED {
        let value = query(&client, &api, series).await;
        if value != Some(expected) {
            wrong.push(format!("{series} = {value:?}, expected {expected}"));
        }
    }
    let text = client.get(&blog.metrics).send().await.expect("scrape").text().await.expect("text");
    assert!(wrong.is_empty(), "{}\n\nthe blog's metrics:\n{text}", wrong.join("\n"));
}

/// The names of the samples the exporter's text can hold: each `# TYPE` family with its suffixes (a family that
/// has recorded nothing yet is still declared).
fn produced(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in text.lines() {
        let Some(declared) = line.strip_prefix("# TYPE ") else { continue };
        let mut words = declared.split_whitespace();
        let (Some(name), Some(kind)) = (words.next(), words.next()) else { continue };
        let suffixes: &[&str] = match kind {
            "counter" => &["_total", "_created"],
            "histogram" => &["_bucket", "_sum", "_count", "_created"],
            "info" => &["_info"],
            _ => &[""],
        };
        names.extend(suffixes.iter().map(|suffix| format!("{name}{suffix}")));
    }
    names
}

/// The metric names (`viewset_…`) in the dashboard's queries.
fn referenced(dashboard: &Value, names: &mut BTreeSet<String>) {
    match dashboard {
        Value::Object(object) => {
            for (key, value) in object {
                match (key.as_str(), value) {
                    ("expr" | "query", Value::String(expr)) => names.extend(metric_names(expr)),
                    _ => referenced(value, names),
                }
            }
        }
        Value::Array(values) => values.iter().for_each(|value| referenced(value, names)),
        _ => {}
    }
}

/// The identifiers starting with `viewset_` in a PromQL expression.
fn metric_names(expr: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = expr;
    while let Some(at) = rest.find("viewset_") {
        let preceded = rest[..at].chars().next_back().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        let tail = &rest[at..];
        let end = tail.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(tail.len());
        if !preceded {
            names.push(tail[..end].to_string());
        }
        rest = &tail[end..];
    }
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_grafana_dashboard_names_only_series_the_blog_exports() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/blog/grafana/viewset.json");
    let text = std::fs::read_to_string(path).expect("the dashboard");
    let dashboard: Value = serde_json::from_str(&text).expect("the dashboard is JSON");
    let mut names = BTreeSet::new();
    referenced(&dashboard, &mut names);
    assert!(names.len() >= 8, "the dashboard's panels query the exporter's series: {names:?}");
    let blog = blog(&[], Stdio::null()).await;
    // A list runs the statements whose kinds the dashboard plots (the other series exist before their first use).
    let list = reqwest::get(format!("{}/api/posts/", blog.base)).await.expect("list");
    assert_eq!(list.status(), StatusCode::OK);
    let scraped = reqwest::get(&blog.metrics).await.expect("scrape").text().await.expect("text");
    let produced = produced(&scraped);
    let unknown: Vec<_> = names.difference(&produced).collect();
    assert!(unknown.is_empty(), "the dashboard names series the exporter does not produce: {unknown:?}\n{scraped}");
}

#[test]
fn metric_names_are_read_from_promql() {
    let expr = r#"sum by (operation) (rate(viewset_http_requests_total{status="5xx"}[5m])) / my_viewset_x"#;
    assert_eq!(metric_names(expr), ["viewset_http_requests_total"]);
    let text = "# TYPE viewset_a counter\n# TYPE viewset_b histogram\n# TYPE viewset_c gauge\n";
    assert!(produced(text).contains("viewset_a_total") && produced(text).contains("viewset_b_bucket"));
    assert!(produced(text).contains("viewset_c") && !produced(text).contains("viewset_a"));
}

/// The PromQL of the dashboard's panels (every `expr`), with Grafana's variables replaced as Grafana would send
/// them: `$__rate_interval` by a duration, `$job` and `$instance` (all values) by `.*`.
fn promql(dashboard: &Value, found: &mut Vec<String>) {
    match dashboard {
        Value::Object(object) => object.iter().for_each(|(key, value)| match (key.as_str(), value) {
            ("expr", Value::String(expr)) => {
                found.push(expr.replace("$__rate_interval", "1m").replace("$job", ".*").replace("$instance", ".*"))
            }
            _ => promql(value, found),
        }),
        Value::Array(values) => values.iter().for_each(|value| promql(value, found)),
        _ => {}
    }
}

/// Whether Prometheus's own parser (`promtool check rules`) accepts every expression of `exprs`, as the recording
/// rules of one file in `dir`; its output otherwise.
fn promtool_accepts(dir: &TempDir, exprs: &[String]) -> Result<(), String> {
    let mut rules = String::from("groups:\n  - name: dashboard\n    rules:\n");
    for (i, expr) in exprs.iter().enumerate() {
        let quoted = serde_json::to_string(expr).expect("a JSON string is a YAML double-quoted scalar");
        rules += &format!("      - record: dashboard:query_{i}\n        expr: {quoted}\n");
    }
    let path = dir.0.join("dashboard-rules.yml");
    std::fs::write(&path, rules).expect("write the rules");
    let out = Command::new("promtool").arg("check").arg("rules").arg(&path).output().expect("run promtool");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if out.status.success() { Ok(()) } else { Err(text) }
}

#[test]
fn the_grafana_dashboards_queries_parse_as_promql() {
    if !Command::new("promtool").arg("--version").output().is_ok_and(|out| out.status.success()) {
        skip_unless_required("VIEWSET_REQUIRE_PROMETHEUS", "promtool is not installed (apt-get install prometheus)");
        return;
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/blog/grafana/viewset.json");
    let dashboard: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("the dashboard")).expect("JSON");
    let mut exprs = Vec::new();
    promql(&dashboard, &mut exprs);
    assert!(exprs.len() >= 10, "the panels' queries: {exprs:?}");
    let dir = TempDir::new("promql");
    if let Err(output) = promtool_accepts(&dir, &exprs) {
        panic!("a dashboard query is not PromQL:\n{output}");
    }
    // The check can fail: one broken expression among them is refused.
    let broken: Vec<String> =
        exprs.iter().cloned().chain(["sum(rate(viewset_http_requests_total[1m])".into()]).collect();
    assert!(promtool_accepts(&dir, &broken).is_err(), "promtool refuses an unclosed parenthesis");
}
