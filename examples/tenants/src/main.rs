//! Runs the tenants example: `cargo run -p tenants`.

use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "--print-openapi") {
        println!("{}", serde_json::to_string_pretty(&tenants::openapi())?);
        return Ok(());
    }
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")))
        .init();
    let url = std::env::var("DATABASE_URL").unwrap_or_else(|_| "sqlite://tenants.db?mode=rwc".to_string());
    let bind = std::env::var("SERVICE_BIND").unwrap_or_else(|_| "127.0.0.1:8001".to_string());
    let db = tenants::connect_and_migrate(&url).await?;
    let listener = tokio::net::TcpListener::bind(&bind).await?;
    tracing::info!(
        "tenants example listening on http://{bind} (try GET /api/projects/ with `Authorization: Bearer acme-bob`)"
    );
    let app = tenants::mount_studio(tenants::app(db.clone()), db, viewset_studio::StudioSettings::from_env()?)?;
    axum::serve(listener, app.into_make_service())
        .with_graceful_shutdown(viewset_core::limits::shutdown_signal())
        .await?;
    Ok(())
}
