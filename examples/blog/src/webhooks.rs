//! `SERVICE_WEBHOOK_URL`: every post event an anonymous reader may see is posted there as a Standard Webhooks
//! message, signed with `SERVICE_WEBHOOK_SECRET` (`whsec_…`; one is generated and logged when it is unset), filtered
//! by `SERVICE_WEBHOOK_FILTER` (the list's query, e.g. `published=true`). A receiver on a private address needs
//! `SERVICE_WEBHOOK_ALLOW_PRIVATE=1`; `SERVICE_WEBHOOK_LEASE_MS` sets how soon another instance carries on a killed
//! one's deliveries (30 s by default). The tables are created at start when they are missing.

use std::sync::{Arc, OnceLock};

use sea_orm::DbErr;
use sea_orm_migration::{MigrationTrait, SchemaManager};
use viewset_core::ServiceState;
use viewset_core::webhooks::{Endpoint, Secret, WebhookHandle, Webhooks};

/// The running webhooks, kept for the life of the process (dropped, they would stop).
static RUNNING: OnceLock<Arc<WebhookHandle>> = OnceLock::new();

/// The webhooks [`start_from_env`] started, if it did: Studio's Runtime Panel shows them (`Studio::webhooks`).
///
/// ```
/// // Nothing started in this process: `SERVICE_WEBHOOK_URL` is unset.
/// assert!(blog::webhooks::running().is_none());
/// ```
pub fn running() -> Option<Arc<WebhookHandle>> {
    RUNNING.get().cloned()
}

/// Starts the blog's webhook when `SERVICE_WEBHOOK_URL` is set; a bad setting is an error at start.
pub async fn start_from_env(state: &ServiceState) -> Result<(), DbErr> {
    let url = match std::env::var("SERVICE_WEBHOOK_URL") {
        Ok(url) if !url.is_empty() => url,
        _ => return Ok(()),
    };
    let refused = |e: viewset_core::webhooks::WebhookError| DbErr::Custom(e.to_string());
    let secret = match std::env::var("SERVICE_WEBHOOK_SECRET") {
        Ok(secret) if !secret.is_empty() => secret,
        _ => {
            let secret = Secret::generate().as_str().to_owned();
            tracing::warn!(target: "viewset::webhooks", "SERVICE_WEBHOOK_SECRET is unset: signing with {secret}");
            secret
        }
    };
    let mut endpoint = Endpoint::new("blog", &url, &secret).map_err(refused)?.viewset("posts");
    if let Ok(filter) = std::env::var("SERVICE_WEBHOOK_FILTER") {
        endpoint = endpoint.filter(&filter);
    }
    if std::env::var("SERVICE_WEBHOOK_ALLOW_PRIVATE").is_ok_and(|v| v == "1") {
        endpoint = endpoint.allow_private_addresses();
    }
    viewset_core::webhooks::Migration.up(&SchemaManager::new(&state.db)).await?;
    let routes = crate::routes_from(crate::api(), state.clone());
    let mut webhooks = Webhooks::new(&crate::api(), state.db.clone()).endpoint(endpoint).map_err(refused)?;
    if let Ok(lease) = std::env::var("SERVICE_WEBHOOK_LEASE_MS") {
        let ms: u64 = lease.parse().map_err(|e| DbErr::Custom(format!("SERVICE_WEBHOOK_LEASE_MS: {e}")))?;
        webhooks = webhooks.lease(std::time::Duration::from_millis(ms));
    }
    let running = webhooks.start(routes).await.map_err(refused)?;
    let _ = RUNNING.set(Arc::new(running));
    Ok(())
}
