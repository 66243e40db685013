//! One instance of the blog for the cluster tests (`tests/cluster_processes.rs`): serves `blog::app_for` (its event
//! bus from `SERVICE_EVENT_BUS`; Studio when the `SERVICE_*` settings mount it, as for the Runtime Panel's browser
//! test) on `SERVICE_BIND`, over `DATABASE_URL`, which the test has migrated and seeded (three instances starting
//! together must not all migrate). Killed by the test, often with `SIGKILL`.
//! `SERVICE_METRICS_ADDR` and `SERVICE_LOG_FORMAT` as in the blog (`blog::observe`; tests/suite/metrics.rs).

use std::net::SocketAddr;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `RUST_LOG` (default `warn`) and `SERVICE_LOG_FORMAT`, as the blog's own binary reads them.
    // `OTEL_EXPORTER_OTLP_ENDPOINT`: traces over OTLP (tests/suite/traces.rs).
    let telemetry = blog::observe::init_telemetry("warn")?;
    let url = std::env::var("DATABASE_URL")?;
    let bind: SocketAddr = std::env::var("SERVICE_BIND")?.parse()?;
    let db = viewset_core::connect(&url).await?;
    // Studio only when `SERVICE_ENABLE_STUDIO` and its settings say so (the Runtime Panel's browser test).
    let app = blog::app_for(db).await?;
    let listener = tokio::net::TcpListener::bind(bind).await?;
    axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(viewset_core::limits::shutdown_signal())
        .await?;
    tokio::task::spawn_blocking(|| telemetry.shutdown()).await?;
    Ok(())
}
