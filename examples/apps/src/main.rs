//! Runs the apps example: `cargo run -p apps`.

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt().init();
    let settings = apps::settings();
    let url = std::env::var("DATABASE_URL").unwrap_or_else(|_| "sqlite://apps.db?mode=rwc".to_string());
    let bind = std::env::var("SERVICE_BIND").unwrap_or_else(|_| "127.0.0.1:8002".to_string());
    let db = apps::connect(&url).await?;
    let (_, registered) = apps::api(&settings)?;
    tracing::info!(?registered, "registered the apps' ViewSets");
    let listener = tokio::net::TcpListener::bind(&bind).await?;
    tracing::info!("apps example listening on http://{bind} (docs at /docs)");
    axum::serve(listener, apps::app(db, &settings)?.into_make_service())
        .with_graceful_shutdown(viewset_core::limits::shutdown_signal())
        .await?;
    Ok(())
}
