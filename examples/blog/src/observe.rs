//! What an operator sees of the blog: its logs, by `SERVICE_LOG_FORMAT` (`text`, the default, or `json`: one JSON
//! object a line, among them one line per request on the target `viewset::access` with its operation, status,
//! latency and request id), filtered by `RUST_LOG`; and its Prometheus metrics, served on a listener of their own
//! at `SERVICE_METRICS_ADDR` (e.g. `127.0.0.1:9100`, `GET /metrics`; unset: not served).

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

/// Installs the process's log subscriber: `RUST_LOG`'s filter (else `default_filter`), in the format
/// `SERVICE_LOG_FORMAT` names. An unknown format is an error that names the choices.
///
/// ```no_run
/// // What the blog's `main` does first (a process has one log subscriber).
/// blog::observe::init_logs("info").expect("SERVICE_LOG_FORMAT is text or json");
/// ```
pub fn init_logs(default_filter: &str) -> Result<(), String> {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_filter));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    match std::env::var(LOG_FORMAT_VAR).as_deref() {
        Err(_) | Ok("" | "text") => builder.init(),
        Ok("json") => builder.json().flatten_event(true).with_span_list(false).init(),
        Ok(other) => return Err(format!("{LOG_FORMAT_VAR}={other}: expected `text` or `json`")),
    }
    Ok(())
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
