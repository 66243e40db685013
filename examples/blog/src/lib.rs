//! The viewset blog example: authors and posts served by generated CRUD routes.
//!
//! `cargo run -p blog` serves it at 127.0.0.1:8000 on a fresh SQLite file. `SERVICE_BIND` changes the address,
//! `DATABASE_URL` the database (e.g. `postgres://postgres@127.0.0.1:5432/blog`), `BLOG_SEED=0` turns seeding off.

pub mod auth;
pub mod entities;
pub mod migrations;
pub mod seed;
pub mod viewsets;

use axum::Router;
use axum::response::IntoResponse;
use sea_orm::{ConnectOptions, Database, DatabaseConnection, DbErr};
use sea_orm_migration::MigratorTrait;
use viewset_core::__private::utoipa::openapi as utoipa_openapi;
use viewset_core::{Api, ApiError, EventBus, ServiceState};

pub use viewsets::{AuthorViewSet, PostViewSet};

/// The blog's ViewSets, registered.
pub fn api() -> Api {
    let mut api = Api::new();
    api.include::<PostViewSet>().expect("PostViewSet registers once");
    api.include::<AuthorViewSet>().expect("AuthorViewSet registers once");
    api
}

/// The blog's OpenAPI document.
pub fn openapi() -> utoipa_openapi::OpenApi {
    api().openapi("viewset blog example", env!("CARGO_PKG_VERSION"))
}

/// The application with the event bus that fits the database: `LISTEN/NOTIFY` on PostgreSQL (so several
/// instances share the stream), in-process on SQLite.
pub async fn app_for(db: DatabaseConnection) -> Result<Router, DbErr> {
    let state = match db.get_database_backend() {
        sea_orm::DbBackend::Postgres => {
            let bus = EventBus::postgres(db.get_postgres_connection_pool().clone())
                .await
                .map_err(|e| DbErr::Custom(format!("event listener: {e}")))?;
            ServiceState::with_events(db, bus)
        }
        _ => ServiceState::new(db),
    };
    Ok(app_with_state(state))
}

/// The application router: both ViewSets behind the demo authentication, `/openapi.json` and `/docs`, JSON 404 for
/// unknown paths.
pub fn app(db: DatabaseConnection) -> Router {
    app_with_state(ServiceState::new(db))
}

/// The application router over a prepared state.
pub fn app_with_state(state: ServiceState) -> Router {
    api()
        .into_router_with_docs("viewset blog example", env!("CARGO_PKG_VERSION"))
        .fallback(|| async { ApiError::NotFound.into_response() })
        .with_state(state)
        .layer(axum::middleware::from_fn_with_state(auth::DemoTokens::from_env(), auth::authenticate))
        .layer(tower_http::trace::TraceLayer::new_for_http())
}

/// Connects to `url` (SQLite files are created if missing) and applies the migrations.
pub async fn connect_and_migrate(url: &str) -> Result<DatabaseConnection, DbErr> {
    let mut options = ConnectOptions::new(url.to_string());
    options.sqlx_logging(false);
    let db = Database::connect(options).await?;
    migrations::Migrator::up(&db, None).await?;
    Ok(db)
}

/// The default database: a SQLite file in the working directory.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://blog.db?mode=rwc";
