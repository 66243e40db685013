//! The process-wide registry of the `metrics` feature (`prometheus-client`): the series, their names, help texts
//! and buckets. Made on first use; [`crate::metrics`] encodes it on every scrape.

use std::sync::LazyLock;
use std::time::Duration;

use axum::http::StatusCode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::Registry;

use super::RouteName;

/// One label.
pub(crate) type Label = [(&'static str, &'static str); 1];

/// A histogram of seconds per label value.
type Timings = Family<Label, Histogram, fn() -> Histogram>;

/// Upper bounds of the latency buckets, in seconds: 0.5 ms to 10 s.
pub(crate) const LATENCY_BUCKETS: [f64; 14] =
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

fn latency() -> Histogram {
    Histogram::new(LATENCY_BUCKETS)
}

/// The status classes, in the order of their index (`status / 100 - 1`).
const CLASSES: [&str; 5] = ["1xx", "2xx", "3xx", "4xx", "5xx"];

/// The HTTP series.
pub(crate) struct Http {
    requests: Family<[(&'static str, &'static str); 2], Counter>,
    duration: Timings,
    pub(crate) in_flight: Gauge,
    pub(crate) shed: Family<Label, Counter>,
    pub(crate) throttled: Family<Label, Counter>,
    pub(crate) rejected: Family<Label, Counter>,
}

/// The statement kinds the store names (`store/run.rs` callers), whose histograms are kept at hand: a statement
/// of one of them costs a few string comparisons rather than a lookup by label under the family's lock.
const KINDS: [&str; 13] = [
    "lookup",
    "page",
    "count",
    "embed",
    "insert",
    "update",
    "delete",
    "visibility",
    "estimate",
    "query",
    "outbox",
    "missing",
    "duplicate_key",
];

/// The database series.
pub(crate) struct Db {
    statements: Timings,
    kinds: [Histogram; KINDS.len()],
    pub(crate) busy: Counter,
    pub(crate) replica_reads: Counter,
    pub(crate) idempotency: Family<Label, Counter>,
}

/// The event series.
pub(crate) struct Events {
    pub(crate) published: Counter,
    pub(crate) delivered: Counter,
    relay: Histogram,
    pub(crate) webhooks: Family<Label, Counter>,
}

/// Every series this crate records, and the registry that encodes them.
pub(crate) struct Metrics {
    pub(crate) registry: Registry,
    pub(crate) http: Http,
    pub(crate) db: Db,
    pub(crate) events: Events,
}

/// The handles of one route's series: a counter per status class and its latency histogram, taken from their
/// families once, so a request costs two atomic adds and a histogram's lock rather than two lookups by label.
#[derive(Debug)]
pub(crate) struct RouteHandles {
    requests: [Counter; 5],
    duration: Histogram,
}

static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);

/// The registry, made on first use.
pub(crate) fn get() -> &'static Metrics {
    &METRICS
}

impl Metrics {
    fn new() -> Metrics {
        let mut registry = Registry::default();
        let http = Http {
            requests: Family::default(),
            duration: Family::new_with_constructor(latency),
            in_flight: Gauge::default(),
            shed: Family::default(),
            throttled: Family::default(),
            rejected: Family::default(),
        };
        let statements: Timings = Family::new_with_constructor(latency);
        let db = Db {
            kinds: KINDS.map(|kind| statements.get_or_create_owned(&[("kind", kind)])),
            statements,
            busy: Counter::default(),
            replica_reads: Counter::default(),
            idempotency: Family::default(),
        };
        let events = Events {
            published: Counter::default(),
            delivered: Counter::default(),
            relay: latency(),
            webhooks: Family::default(),
        };
        for outcome in ["delivered", "failed", "dead_lettered"] {
            let _ = events.webhooks.get_or_create(&[("outcome", outcome)]);
        }
        // The bounded label values known in advance, at 0 until they happen: a dashboard's query finds its series.
        for limit in ["max_in_flight", "max_streams"] {
            let _ = http.shed.get_or_create(&[("limit", limit)]);
        }
        for limit in ["max_uri_bytes", "max_body_bytes", "max_header_bytes", "request_timeout"] {
            let _ = http.rejected.get_or_create(&[("limit", limit)]);
        }
        for scope in ["anon", "user", "staff"] {
            let _ = http.throttled.get_or_create(&[("scope", scope)]);
        }
        for outcome in ["claimed", "replayed", "conflict"] {
            let _ = db.idempotency.get_or_create(&[("outcome", outcome)]);
        }
        let r = &mut registry;
        r.register(
            "viewset_http_requests",
            "Requests answered, by operation id (`other`: no generated route) and status class",
            http.requests.clone(),
        );
        r.register(
            "viewset_http_request_duration_seconds",
            "Time from a request's arrival until its response started, by operation id",
            http.duration.clone(),
        );
        r.register(
            "viewset_http_requests_in_flight",
            "Requests whose response has not started",
            http.in_flight.clone(),
        );
        r.register("viewset_http_shed", "Requests answered 503 overloaded, by limit", http.shed.clone());
        r.register("viewset_http_throttled", "Requests answered 429 throttled, by scope", http.throttled.clone());
        r.register("viewset_http_rejected", "Requests refused by a transport limit, by limit", http.rejected.clone());
        r.register(
            "viewset_db_statement_duration_seconds",
            "Time of a SQL statement, by kind (page, count, lookup, insert, update, delete, …)",
            db.statements.clone(),
        );
        r.register("viewset_db_busy", "Answers 503 database_busy", db.busy.clone());
        r.register("viewset_db_replica_reads", "Reads served by the read replica", db.replica_reads.clone());
        r.register(
            "viewset_idempotency_keys",
            "Idempotency-Key outcomes: claimed, replayed, conflict",
            db.idempotency.clone(),
        );
        r.register("viewset_events_published", "Events published by this process", events.published.clone());
        r.register(
            "viewset_events_delivered",
            "Events handed to this process's stream subscribers",
            events.delivered.clone(),
        );
        r.register(
            "viewset_events_relay_duration_seconds",
            "Time to publish outbox rows to JetStream until every acknowledgement came back",
            events.relay.clone(),
        );
        r.register(
            "viewset_webhook_attempts",
            "Webhook delivery attempts, by outcome: delivered, failed (retried), dead_lettered",
            events.webhooks.clone(),
        );
        r.register("viewset_build", "The viewset-core version and its features", Info::new(build_labels()));
        let start: Gauge<f64, std::sync::atomic::AtomicU64> = Gauge::default();
        let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        start.set(since_epoch.as_secs_f64());
        r.register("viewset_start_time_seconds", "When the metrics registry was made, in Unix seconds", start);
        Metrics { registry, http, db, events }
    }

    /// The handles of `route`'s series, made on first use (when the route is registered).
    pub(crate) fn route<'a>(&self, route: &'a RouteName) -> &'a RouteHandles {
        route.handles.get_or_init(|| RouteHandles {
            requests: CLASSES.map(|class| {
                self.http.requests.get_or_create_owned(&[("operation", route.operation), ("status", class)])
            }),
            duration: self.http.duration.get_or_create_owned(&[("operation", route.operation)]),
        })
    }

    /// A request answered `status` by `route` after `elapsed`.
    pub(crate) fn request(&self, route: &RouteName, status: StatusCode, elapsed: Duration) {
        let handles = self.route(route);
        let class = usize::from(status.as_u16() / 100).clamp(1, 5) - 1;
        handles.requests[class].inc();
        handles.duration.observe(elapsed.as_secs_f64());
    }

    /// A statement of `kind` that took `elapsed`.
    pub(crate) fn statement(&self, kind: &'static str, elapsed: Duration) {
        if kind == super::RELAY {
            return self.events.relay.observe(elapsed.as_secs_f64());
        }
        match KINDS.iter().position(|known| *known == kind) {
            Some(at) => self.db.kinds[at].observe(elapsed.as_secs_f64()),
            None => self.db.statements.get_or_create(&[("kind", kind)]).observe(elapsed.as_secs_f64()),
        }
    }
}

/// `version` and `features` (comma-separated, in a fixed order) of this build of viewset-core.
fn build_labels() -> Vec<(&'static str, String)> {
    let features: Vec<&str> = [
        ("sqlite", cfg!(feature = "sqlite")),
        ("postgres", cfg!(feature = "postgres")),
        ("mysql", cfg!(feature = "mysql")),
        ("redis", cfg!(feature = "redis")),
        ("nats", cfg!(feature = "nats")),
        ("jwt", cfg!(feature = "jwt")),
        ("webhooks", cfg!(feature = "webhooks")),
        ("docs", cfg!(feature = "docs")),
        ("metrics", true),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect();
    vec![("version", env!("CARGO_PKG_VERSION").to_string()), ("features", features.join(","))]
}
