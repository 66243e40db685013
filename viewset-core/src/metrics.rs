//! Prometheus metrics (feature `metrics`): what the framework counts and times, served in the OpenMetrics text
//! format by [`router`] (or [`render`] for a route of your own).
//!
//! Mount the exporter where your operators scrape it, usually a listener of its own that the public cannot reach:
//!
//! ```no_run
//! # async fn run(state: viewset_core::ServiceState, app: axum::Router) -> std::io::Result<()> {
//! let metrics = tokio::net::TcpListener::bind("127.0.0.1:9100").await?;
//! tokio::spawn(axum::serve(metrics, viewset_core::metrics::router(&state)).into_future());
//! // … then serve `app` on its own listener as usual.
//! # Ok(()) }
//! ```
//!
//! or on the application's own listener, merged after its layers (so scrapes are neither limited nor counted):
//! `app.merge(viewset_core::metrics::router(&state))`.
//!
//! The HTTP series are recorded by the [`crate::limits::Limits`] layer (an application without it records none),
//! so they cover every request it sees: those a generated route answered under its `operationId`, and the others
//! (an action, `/openapi.json`, a 404, a refusal by a limit) as `operation="other"`. Labels are bounded: operation
//! ids, status classes, limits, throttle scopes, statement kinds, pool roles.
//!
//! | series | type | labels |
//! |---|---|---|
//! | `viewset_http_requests_total` | counter | `operation`, `status` (`2xx`, `4xx`, …) |
//! | `viewset_http_request_duration_seconds` | histogram (0.5 ms … 10 s) | `operation` |
//! | `viewset_http_requests_in_flight` | gauge | |
//! | `viewset_http_shed_total` | counter (503 `overloaded`) | `limit` (`max_in_flight`, `max_streams`) |
//! | `viewset_http_throttled_total` | counter (429) | `scope` |
//! | `viewset_http_rejected_total` | counter | `limit` (`max_uri_bytes`, `max_body_bytes`, `max_header_bytes`, `request_timeout`) |
//! | `viewset_db_statement_duration_seconds` | histogram | `kind` (`page`, `count`, `lookup`, `insert`, `update`, `delete`, `embed`, `visibility`, …) |
//! | `viewset_db_pool_connections` | gauge, read at the scrape | `role` (`primary`, `replica`), `state` (`idle`, `in_use`) |
//! | `viewset_db_busy_total` | counter (503 `database_busy`) | |
//! | `viewset_db_replica_reads_total`, `viewset_db_replica_fallbacks_total` | counters | |
//! | `viewset_idempotency_keys_total` | counter | `outcome` (`claimed`, `replayed`, `conflict`) |
//! | `viewset_events_published_total`, `viewset_events_delivered_total` | counters | |
//! | `viewset_events_subscribers`, `viewset_events_shared_views` | gauges, read at the scrape | |
//! | `viewset_events_outbox_backlog` | gauge, read at the scrape (outbox rows waiting at the relay's last look) | |
//! | `viewset_events_relay_failures_total` | counter | |
//! | `viewset_events_relay_duration_seconds` | histogram (JetStream publish until acknowledged) | |
//! | `viewset_events_resets_total` | counter | `reason` (`lagged`, `reconnected`, `resume_unavailable`, `malformed_last_event_id`, `shutdown`) |
//! | `viewset_events_skipped_total` | counter (events a subscriber's view hides) | `reason` (`hidden`, `check_failed`) |
//! | `viewset_webhook_attempts_total` | counter | `outcome` (`delivered`, `failed`, `dead_lettered`) |
//! | `viewset_build_info` | info | `version`, `features` |
//! | `viewset_start_time_seconds` | gauge | |

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use prometheus_client::encoding::text::{encode_eof, encode_registry};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::bus::stats::{BusCounts, RESET_REASONS};
use crate::measure::registry::{self, Label};
use crate::request::ServiceState;

/// The `Content-Type` of [`render`]'s text: OpenMetrics 1.0, which Prometheus reads.
///
/// ```
/// assert!(viewset_core::metrics::CONTENT_TYPE.starts_with("application/openmetrics-text"));
/// ```
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// A router answering `GET /metrics` with [`render`] of `state` (its pools and its event bus are read at each
/// scrape). Serve it on a listener of its own, or merge it into the application's router.
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// let state = viewset_core::ServiceState::new(viewset_core::connect("sqlite::memory:").await?);
/// let metrics: axum::Router = viewset_core::metrics::router(&state);
/// # let _ = metrics; Ok(()) }
/// ```
pub fn router(state: &ServiceState) -> Router {
    let state = state.clone();
    Router::new().route(
        "/metrics",
        get(move || {
            let text = render(&state);
            async move { ([(header::CONTENT_TYPE, CONTENT_TYPE)], text).into_response() }
        }),
    )
}

/// Every series of this process in the OpenMetrics text format, with the gauges read from `state` now: its
/// pools' connections, its replica's fallbacks, its stream subscribers.
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// let state = viewset_core::ServiceState::new(viewset_core::connect("sqlite::memory:").await?);
/// let text = viewset_core::metrics::render(&state);
/// assert!(text.contains("viewset_build_info{"));
/// assert!(text.contains("viewset_db_pool_connections{role=\"primary\",state=\"idle\"}"));
/// assert!(text.ends_with("# EOF\n"));
/// # Ok(()) }
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(run()).unwrap();
/// ```
pub fn render(state: &ServiceState) -> String {
    let mut text = String::with_capacity(16 * 1024);
    // Writing into a `String` cannot fail.
    let _ = encode_registry(&mut text, &registry::get().registry);
    let _ = encode_registry(&mut text, &now(state));
    let _ = encode_eof(&mut text);
    text
}

/// The series read from `state` at this scrape.
fn now(state: &ServiceState) -> Registry {
    let mut registry = Registry::default();
    let pools: Family<[(&'static str, &'static str); 2], Gauge> = Family::default();
    let pool = |role: &'static str, db: &sea_orm::DatabaseConnection| {
        let (size, idle) = crate::store::pool_counts(db);
        pools.get_or_create(&[("role", role), ("state", "idle")]).set(i64::from(idle));
        pools.get_or_create(&[("role", role), ("state", "in_use")]).set(i64::from(size.saturating_sub(idle)));
    };
    pool("primary", &state.db);
    if let Some(replica) = &state.replica {
        pool("replica", replica.connection());
    }
    registry.register("viewset_db_pool_connections", "Connections of the pools, by role and state", pools);
    let fallbacks: Counter = Counter::default();
    fallbacks.inc_by(state.replica_fallbacks());
    registry.register(
        "viewset_db_replica_fallbacks",
        "Reads the primary served because the replica could not be reached",
        fallbacks,
    );
    let (subscribers, views) = state.events.views().counts();
    let gauge = |value: usize| {
        let gauge: Gauge = Gauge::default();
        gauge.set(i64::try_from(value).unwrap_or(i64::MAX));
        gauge
    };
    registry.register("viewset_events_subscribers", "Open event streams of this process", gauge(subscribers));
    registry.register(
        "viewset_events_shared_views",
        "Groups of stream subscribers that share their visibility checks",
        gauge(views),
    );
    bus(&mut registry, state.events.stats().read());
    registry
}

/// The series of the bus's own counts.
fn bus(registry: &mut Registry, counts: BusCounts) {
    let counter = |value: u64| {
        let counter: Counter = Counter::default();
        counter.inc_by(value);
        counter
    };
    let backlog: Gauge = Gauge::default();
    backlog.set(i64::try_from(counts.backlog).unwrap_or(i64::MAX));
    registry.register(
        "viewset_events_outbox_backlog",
        "Outbox rows not yet relayed (NATS) or numbered (PostgreSQL) when this process's relay last looked",
        backlog,
    );
    registry.register(
        "viewset_events_relay_failures",
        "Relay rounds that failed: JetStream unreachable or refusing, the outbox table unreadable",
        counter(counts.relay_failures),
    );
    let resets: Family<Label, Counter> = Family::default();
    for (reason, value) in RESET_REASONS.iter().zip(counts.resets) {
        resets.get_or_create(&[("reason", *reason)]).inc_by(value);
    }
    registry.register("viewset_events_resets", "`reset` frames sent to stream subscribers, by reason", resets);
    let skipped: Family<Label, Counter> = Family::default();
    skipped.get_or_create(&[("reason", "hidden")]).inc_by(counts.hidden);
    skipped.get_or_create(&[("reason", "check_failed")]).inc_by(counts.failed);
    registry.register(
        "viewset_events_skipped",
        "Events a stream subscriber was not sent: its view cannot see the record, or the check failed",
        skipped,
    );
}
