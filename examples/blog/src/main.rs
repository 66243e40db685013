//! Runs the blog example: `cargo run -p blog`.

use std::net::SocketAddr;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "--print-openapi") {
        println!("{}", serde_json::to_string_pretty(&blog::openapi())?);
        return Ok(());
    }
    // `SERVICE_LOG_FORMAT=json`: JSON lines; `OTEL_EXPORTER_OTLP_ENDPOINT`: traces over OTLP (`blog::observe`).
    let telemetry = blog::observe::init_telemetry("info")?;
    // Unsafe Studio settings stop the start-up here, before anything listens.
    let studio = viewset_studio::StudioSettings::from_env().map_err(|e| format!("Studio settings: {e}"))?;
    studio.validate().map_err(|e| format!("Studio settings: {e}"))?;
    // Invalid `SERVICE_JWT_*` settings stop the start-up here too.
    blog::auth::layer_from_vars(|name| std::env::var(name).ok())?;
    let url = std::env::var("DATABASE_URL").unwrap_or_else(|_| blog::DEFAULT_DATABASE_URL.to_string());
    let bind: SocketAddr = std::env::var("SERVICE_BIND")
        .unwrap_or_else(|_| "127.0.0.1:8000".to_string())
        .parse()
        .map_err(|e| format!("SERVICE_BIND is not an address such as 127.0.0.1:8000: {e}"))?;
    let db = blog::connect_and_migrate(&url).await?;
    if std::env::var("BLOG_SEED").as_deref() != Ok("0") && blog::seed::seed_if_empty(&db).await? {
        tracing::info!("seeded the empty database with demo rows");
    }
    let listener = tokio::net::TcpListener::bind(bind).await?;
    tracing::info!("blog example listening on http://{bind} (try GET /api/posts/)");
    if studio.should_mount() {
        tracing::info!("Studio (experimental) is mounted: http://{bind}/studio/handshake");
    }
    // The peer address is what anonymous callers are throttled by (`SERVICE_THROTTLE_ANON`).
    axum::serve(listener, blog::app_for(db).await?.into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(viewset_core::limits::shutdown_signal())
        .await?;
    // The spans still queued sent before the process ends (a blocking wait of at most 5 s).
    tokio::task::spawn_blocking(|| telemetry.shutdown()).await?;
    Ok(())
}
