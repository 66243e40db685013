//! What an operator sees of the blog: its logs, by `SERVICE_LOG_FORMAT` (`text`, the default, or `json`: one JSON
//! object a line, among them one line per request on the target `viewset::access` with its operation, status,
//! latency and request id), filtered by `RUST_LOG`; and its Prometheus metrics, served on a listener of their own
//! at `SERVICE_METRICS_ADDR` (e.g. `127.0.0.1:9100`, `GET /metrics`; unset: not served); and, with the `otel`
//! feature, its OpenTelemetry traces sent over OTLP/HTTP (gRPC with `otel-grpc` and
//! `OTEL_EXPORTER_OTLP_PROTOCOL=grpc`) to `OTEL_EXPORTER_OTLP_ENDPOINT` (unset: not exported).

use sea_orm::DbErr;
use tracing_subscriber::EnvFilter;
use viewset_core::ServiceState;

/// The environment variable that chooses the log format.
///
/// ```
/// assert_eq!(blog::observe::LOG_FORMAT_VAR, "SERVICE_LOG_FORMAT");
/// ```
pub const LOG_FORMAT_VAR: &str = "SERVICE_LOG_FORMAT";
/// The environment variable with the metrics listener's address.
///
/// ```
/// assert_eq!(blog::observe::METRICS_ADDR_VAR, "SERVICE_METRICS_ADDR");
/// ```
pub const METRICS_ADDR_VAR: &str = "SERVICE_METRICS_ADDR";
/// The environment variable with the OTLP receiver's base URL (e.g. `http://127.0.0.1:4318`): traces are exported
/// there (feature `otel`), with `OTEL_SERVICE_NAME` as the service's name.
///
/// ```
/// assert_eq!(blog::observe::OTLP_ENDPOINT_VAR, "OTEL_EXPORTER_OTLP_ENDPOINT");
/// ```
pub const OTLP_ENDPOINT_VAR: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";

/// Installs the process's log subscriber: `RUST_LOG`'s filter (else `default_filter`), in the format
/// `SERVICE_LOG_FORMAT` names. An unknown format is an error that names the choices. What [`init_telemetry`]
/// does, without keeping the trace exporter's handle.
///
/// ```no_run
/// // What the blog's `main` does first (a process has one log subscriber).
/// blog::observe::init_logs("info").expect("SERVICE_LOG_FORMAT is text or json");
/// ```
pub fn init_logs(default_filter: &str) -> Result<(), String> {
    init_telemetry(default_filter).map(drop)
}

/// What [`init_telemetry`] installed that must be ended with the process: the OTLP trace exporter, when
/// `OTEL_EXPORTER_OTLP_ENDPOINT` is set in a build with the `otel` feature.
///
/// ```no_run
/// let telemetry = blog::observe::init_telemetry("info").expect("valid log and trace settings");
/// // … serve until the shutdown signal, then send the spans still queued:
/// telemetry.shutdown();
/// ```
#[must_use = "shut it down when the process ends, or the last spans are lost"]
pub struct Telemetry {
    #[cfg(feature = "otel")]
    traces: Option<viewset_core::trace::Traces>,
}

impl Telemetry {
    /// Sends the spans still queued to the OTLP receiver (at most 5 seconds) and stops the exporter; logs it when
    /// that failed. Nothing without an exporter.
    ///
    /// ```no_run
    /// blog::observe::init_telemetry("info").unwrap().shutdown();
    /// ```
    pub fn shutdown(self) {
        #[cfg(feature = "otel")]
        if let Some(Err(err)) = self.traces.map(|traces| traces.shutdown()) {
            tracing::warn!("{err}");
        }
    }
}

/// [`init_logs`], and with the `otel` feature the OTLP trace exporter of [`viewset_core::trace`] when
/// `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set: the request, admission, SQL and
/// event spans sent whatever `RUST_LOG` keeps in the logs. The variable in a build without the feature is an
/// error, and so is a protocol the build cannot speak.
///
/// ```no_run
/// let telemetry = blog::observe::init_telemetry("info").expect("valid log and trace settings");
/// # telemetry.shutdown();
/// ```
pub fn init_telemetry(default_filter: &str) -> Result<Telemetry, String> {
    use tracing_subscriber::Layer;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_filter));
    let logs = match std::env::var(LOG_FORMAT_VAR).as_deref() {
        Err(_) | Ok("" | "text") => tracing_subscriber::fmt::layer().boxed(),
        Ok("json") => tracing_subscriber::fmt::layer().json().flatten_event(true).with_span_list(false).boxed(),
        Ok(other) => return Err(format!("{LOG_FORMAT_VAR}={other}: expected `text` or `json`")),
    };
    #[cfg(feature = "otel")]
    let traces = viewset_core::trace::Traces::from_env().map_err(|err| err.to_string())?;
    #[cfg(feature = "otel")]
    let exported = traces.as_ref().map(|traces| traces.layer());
    #[cfg(not(feature = "otel"))]
    let exported = match std::env::var(OTLP_ENDPOINT_VAR) {
        Ok(set) if !set.is_empty() => return Err(format!("{OTLP_ENDPOINT_VAR}: this build has no `otel` feature")),
        _ => None::<tracing_subscriber::layer::Identity>,
    };
    // Each layer its own filter: the logs keep `RUST_LOG`'s, the export its own (`Traces::layer`).
    tracing_subscriber::registry()
        .with(logs.with_filter(filter))
        .with(exported)
        .try_init()
        .map_err(|e| e.to_string())?;
    Ok(Telemetry {
        #[cfg(feature = "otel")]
        traces,
    })
}

/// Serves `GET /metrics` of `state` ([`viewset_core::metrics::router`]) at `SERVICE_METRICS_ADDR`, when it is
/// set, in a task of its own; an address that does not parse or bind is an error, and so is the variable in a
/// build without the `metrics` feature.
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// let state = viewset_core::ServiceState::new(viewset_core::connect("sqlite::memory:").await?);
/// blog::observe::serve_metrics_from_env(&state).await?; // nothing to serve unless SERVICE_METRICS_ADDR is set
/// # Ok(()) }
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(run()).unwrap();
/// ```
pub async fn serve_metrics_from_env(state: &ServiceState) -> Result<(), DbErr> {
    let Ok(addr) = std::env::var(METRICS_ADDR_VAR) else { return Ok(()) };
    if addr.is_empty() {
        return Ok(());
    }
    let bad = |e: &dyn std::fmt::Display| DbErr::Custom(format!("{METRICS_ADDR_VAR}={addr}: {e}"));
    let addr: std::net::SocketAddr = addr.parse().map_err(|e| bad(&e))?;
    #[cfg(feature = "metrics")]
    {
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| bad(&e))?;
        tracing::info!("Prometheus metrics at http://{addr}/metrics");
        tokio::spawn(axum::serve(listener, viewset_core::metrics::router(state)).into_future());
        Ok(())
    }
    #[cfg(not(feature = "metrics"))]
    {
        let _ = (state, addr);
        Err(bad(&"this build of the blog has no `metrics` feature"))
    }
}
