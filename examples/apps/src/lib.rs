//! The viewset apps example: the settings' apps list (`SERVICE_APPS`, default `library,members`) decides which
//! apps' `api` modules are registered; each app's ViewSets are discovered, not listed.
//!
//! `cargo run -p apps` serves it at 127.0.0.1:8002 with `/docs`.

pub mod library;
pub mod members;

use std::collections::BTreeMap;

use axum::Router;
use sea_orm::{ConnectionTrait, DatabaseConnection, DbErr, Schema};
use viewset_core::registration::{RegistrationError, Settings, include_all_app_viewsets};
use viewset_core::{Api, ServiceState};

/// The settings: `SERVICE_APPS` when set, else both apps.
pub fn settings() -> Settings {
    let mut settings = Settings::from_env();
    if settings.apps.is_empty() {
        settings.apps = vec!["library".into(), "members".into()];
    }
    settings
}

/// Registers every app's `api` module; returns the API and what each app registered.
pub fn api(settings: &Settings) -> Result<(Api, BTreeMap<String, Vec<&'static str>>), RegistrationError> {
    let mut api = Api::new();
    let registered = include_all_app_viewsets(&mut api, settings, "api")?;
    Ok((api, registered))
}

/// The router with `/docs`.
pub fn app(db: DatabaseConnection, settings: &Settings) -> Result<Router, RegistrationError> {
    let (api, _) = api(settings)?;
    let router = api.into_router_with_docs("viewset apps example", env!("CARGO_PKG_VERSION"));
    Ok(viewset_core::limits::Limits::default().apply(router.with_state(ServiceState::new(db))))
}

/// Connects and creates the tables from the entities (this small example has no migration history).
pub async fn connect(url: &str) -> Result<DatabaseConnection, DbErr> {
    let db = viewset_core::connect(url).await?;
    let schema = Schema::new(db.get_database_backend());
    for mut table in [
        schema.create_table_from_entity(library::book::Entity),
        schema.create_table_from_entity(members::member::Entity),
    ] {
        db.execute(&*table.if_not_exists()).await?;
    }
    Ok(db)
}
