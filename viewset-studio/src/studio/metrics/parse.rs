//! The OpenMetrics text of `viewset_core::metrics::render` read back into the snapshot the Runtime Panel plots.
//! Only the series it plots are kept; a series the text does not hold is left out of the snapshot (0 or empty), and
//! the outbox backlog, which viewset-core does not export, is `null`.

use std::collections::BTreeMap;

use serde_json::{Value, json};

/// One sample line: the series name, its labels and its value.
#[derive(Debug, PartialEq)]
struct Sample<'a> {
    name: &'a str,
    labels: Vec<(&'a str, String)>,
    value: f64,
}

impl Sample<'_> {
    fn label(&self, key: &str) -> &str {
        self.labels.iter().find(|(k, _)| *k == key).map_or("", |(_, v)| v.as_str())
    }
}

/// A sample line (`name{a="x",b="y"} 1.5`), or `None` for a comment, a blank line or a line it cannot read.
fn sample(line: &str) -> Option<Sample<'_>> {
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let end = line.find(['{', ' '])?;
    let (name, mut rest) = line.split_at(end);
    let mut labels = Vec::new();
    if let Some(inner) = rest.strip_prefix('{') {
        rest = inner;
        loop {
            rest = rest.trim_start_matches(',');
            if let Some(after) = rest.strip_prefix('}') {
                rest = after;
                break;
            }
            let (key, after) = rest.split_once("=\"")?;
            let mut value = String::new();
            let mut chars = after.char_indices();
            let close = loop {
                match chars.next()? {
                    (_, '\\') => value.push(match chars.next()?.1 {
                        'n' => '\n',
                        other => other,
                    }),
                    (at, '"') => break at,
                    (_, c) => value.push(c),
                }
            };
            labels.push((key, value));
            rest = &after[close + 1..];
        }
    }
    let value = rest.split_whitespace().next()?.parse().ok()?;
    Some(Sample { name, labels, value })
}

/// One operation's request counter by status class and its latency histogram.
#[derive(Default)]
struct Operation {
    statuses: BTreeMap<String, f64>,
    /// `(le, cumulative count)`, `+Inf` last once sorted.
    buckets: Vec<(f64, f64)>,
    count: f64,
    sum: f64,
}

/// The operation `sample` is labelled with.
fn of<'a>(operations: &'a mut BTreeMap<String, Operation>, sample: &Sample<'_>) -> &'a mut Operation {
    operations.entry(sample.label("operation").to_string()).or_default()
}

/// The snapshot of `text` (the exporter's whole text) taken at `at` (Unix seconds).
pub(super) fn snapshot(text: &str, at: f64) -> Value {
    let mut operations: BTreeMap<String, Operation> = BTreeMap::new();
    let mut pools: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    let mut single: BTreeMap<&str, f64> = BTreeMap::new();
    for sample in text.lines().filter_map(sample) {
        match sample.name {
            "viewset_http_requests_total" => {
                let status = sample.label("status").to_string();
                of(&mut operations, &sample).statuses.insert(status, sample.value);
            }
            "viewset_http_request_duration_seconds_bucket" => {
                let le = match sample.label("le") {
                    "+Inf" => f64::INFINITY,
                    bound => bound.parse().unwrap_or(f64::NAN),
                };
                of(&mut operations, &sample).buckets.push((le, sample.value));
            }
            "viewset_http_request_duration_seconds_count" => {
                of(&mut operations, &sample).count = sample.value;
            }
            "viewset_http_request_duration_seconds_sum" => {
                of(&mut operations, &sample).sum = sample.value;
            }
            "viewset_db_pool_connections" => {
                let pool = pools.entry(sample.label("role").to_string()).or_default();
                match sample.label("state") {
                    "idle" => pool.0 = sample.value,
                    "in_use" => pool.1 = sample.value,
                    _ => {}
                }
            }
            name @ ("viewset_http_requests_in_flight"
            | "viewset_events_subscribers"
            | "viewset_events_shared_views"
            | "viewset_events_published_total"
            | "viewset_events_delivered_total"
            | "viewset_events_outbox_backlog") => {
                single.insert(name, sample.value);
            }
            _ => {}
        }
    }
    let mut bounds: Vec<f64> = Vec::new();
    let operations: Vec<Value> = operations
        .into_iter()
        .map(|(name, mut op)| {
            op.buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
            let finite: Vec<f64> = op.buckets.iter().map(|b| b.0).filter(|le| le.is_finite()).collect();
            if finite.len() > bounds.len() {
                bounds = finite;
            }
            let buckets: Vec<f64> = op.buckets.iter().map(|b| b.1).collect();
            json!({"operation": name, "statuses": op.statuses, "count": op.count, "sum": op.sum,
                   "buckets": buckets})
        })
        .collect();
    let pools: Vec<Value> =
        pools.into_iter().map(|(role, (idle, in_use))| json!({"role": role, "idle": idle, "in_use": in_use})).collect();
    let get = |name: &str| single.get(name).copied().unwrap_or(0.0);
    json!({
        "at": at,
        "bounds": bounds,
        "operations": operations,
        "in_flight": get("viewset_http_requests_in_flight"),
        "pools": pools,
        "events": {
            "subscribers": get("viewset_events_subscribers"),
            "shared_views": get("viewset_events_shared_views"),
            "published": get("viewset_events_published_total"),
            "delivered": get("viewset_events_delivered_total"),
        },
        // Null when the exporter has no such series (a viewset-core before 0.2): the panel says so.
        "outbox_backlog": single.get("viewset_events_outbox_backlog"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_labels_with_escapes_and_values() {
        let line = r#"x_total{a="q\"uote",b="back\\slash",c="new\nline"} 2.5"#;
        let s = sample(line).expect("a sample");
        assert_eq!(s.name, "x_total");
        assert_eq!(s.labels, [("a", "q\"uote".into()), ("b", "back\\slash".into()), ("c", "new\nline".into())]);
        assert_eq!(s.value, 2.5);
        assert_eq!(sample("up 1").map(|s| (s.name, s.value)), Some(("up", 1.0)));
        assert!(sample("# TYPE up gauge").is_none() && sample("").is_none() && sample("broken{a=\"1\"").is_none());
    }

    #[test]
    fn keeps_the_plotted_series() {
        let text = "\
# TYPE viewset_http_requests counter
viewset_http_requests_total{operation=\"posts_list\",status=\"2xx\"} 3
viewset_http_requests_total{operation=\"posts_list\",status=\"4xx\"} 1
viewset_http_request_duration_seconds_sum{operation=\"posts_list\"} 0.5
viewset_http_request_duration_seconds_count{operation=\"posts_list\"} 4
viewset_http_request_duration_seconds_bucket{le=\"+Inf\",operation=\"posts_list\"} 4
viewset_http_request_duration_seconds_bucket{le=\"0.001\",operation=\"posts_list\"} 1
viewset_http_request_duration_seconds_bucket{le=\"0.01\",operation=\"posts_list\"} 3
viewset_db_pool_connections{role=\"primary\",state=\"idle\"} 2
viewset_db_pool_connections{role=\"primary\",state=\"in_use\"} 1
viewset_events_subscribers 5
viewset_events_outbox_backlog 3
viewset_other_total 9
# EOF
";
        let snapshot = snapshot(text, 12.5);
        assert_eq!(snapshot["at"], 12.5);
        assert_eq!(snapshot["bounds"], json!([0.001, 0.01]));
        let op = &snapshot["operations"][0];
        assert_eq!(
            (op["operation"].as_str(), op["count"].as_f64(), op["sum"].as_f64()),
            (Some("posts_list"), Some(4.0), Some(0.5))
        );
        assert_eq!(op["statuses"], json!({"2xx": 3.0, "4xx": 1.0}));
        assert_eq!(op["buckets"], json!([1.0, 3.0, 4.0]));
        assert_eq!(snapshot["pools"], json!([{"role": "primary", "idle": 2.0, "in_use": 1.0}]));
        assert_eq!(snapshot["events"]["subscribers"], 5.0);
        assert_eq!(snapshot["outbox_backlog"], 3.0);
        assert_eq!(super::snapshot("# EOF\n", 1.0)["outbox_backlog"], Value::Null, "not exported, not made up");
    }
}
