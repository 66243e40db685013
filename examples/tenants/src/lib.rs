//! The viewset tenants example: projects scoped to the caller's tenant, owner-private notes, and a hand-written
//! nested route that validates its parent explicitly.
//!
//! `cargo run -p tenants` serves it at 127.0.0.1:8001 on a fresh SQLite file (`SERVICE_BIND`, `DATABASE_URL`).
//! Demo tokens: `acme-alice` (staff), `acme-bob`, `globex-carol`, `nobody-dave` (no tenant).

pub mod auth;
pub mod entities;
pub mod migrations;
pub mod nested;
pub mod viewsets;

use axum::Router;
use axum::routing::get;
use sea_orm::{DatabaseConnection, DbErr};
use sea_orm_migration::MigratorTrait;
use viewset_core::__private::utoipa::openapi::OpenApi;
use viewset_core::limits::Limits;
use viewset_core::{Api, ServiceState, include_viewset};

/// The application router, with a JSON 404 for unknown paths and the default transport [`Limits`].
pub fn app(db: DatabaseConnection) -> Router {
    let router =
        Router::new().route("/api/projects/{project_id}/tasks", get(nested::list_tasks).post(nested::create_task));
    let router = include_viewset::<viewsets::ProjectViewSet, _>(router);
    let router = include_viewset::<viewsets::NoteViewSet, _>(router);
    let router = router
        .fallback(viewset_core::registration::unknown_path)
        .with_state(ServiceState::new(db))
        .layer(axum::middleware::from_fn(auth::authenticate));
    Limits::default().apply(router)
}

/// The OpenAPI document of the ViewSets (`cargo run -p tenants -- --print-openapi`); the hand-written nested route
/// is not in it.
pub fn openapi() -> OpenApi {
    let mut api = Api::new();
    api.include::<viewsets::ProjectViewSet>().expect("ProjectViewSet registers once");
    api.include::<viewsets::NoteViewSet>().expect("NoteViewSet registers once");
    api.openapi("viewset tenants example", env!("CARGO_PKG_VERSION"))
}

/// Connects to `url` and applies the migrations.
pub async fn connect_and_migrate(url: &str) -> Result<DatabaseConnection, DbErr> {
    let db = viewset_core::connect(url).await?;
    migrations::Migrator::up(&db, None).await?;
    Ok(db)
}
