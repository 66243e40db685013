//! The viewset tenants example: projects scoped to the caller's tenant, owner-private notes, and a hand-written
//! nested route that validates its parent explicitly.
//!
//! `cargo run -p tenants` serves it at 127.0.0.1:8001 on a fresh SQLite file (`SERVICE_BIND`, `DATABASE_URL`).
//! Demo tokens: `acme-alice` (staff), `acme-bob`, `globex-carol`, `nobody-dave` (no tenant).
//! Studio and its `/ai` surface (MCP tools as the caller) are mounted when `SERVICE_ENABLE_STUDIO=true`
//! ([`mount_studio`]).

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
use viewset_core::{Api, ServiceState};
use viewset_studio::{MigrationGraph, SettingsError, Studio, StudioSettings};

/// The hand-written nested route (outside the [`Api`]: it validates its parent itself).
pub const TASKS_PATH: &str = "/api/projects/{project_id}/tasks";

/// The ViewSets, registered.
pub fn api() -> Api {
    let mut api = Api::new();
    api.include::<viewsets::ProjectViewSet>().expect("ProjectViewSet registers once");
    api.include::<viewsets::NoteViewSet>().expect("NoteViewSet registers once");
    api
}

/// The application router, with a JSON 404 for unknown paths and the default transport [`Limits`].
pub fn app(db: DatabaseConnection) -> Router {
    let nested = Router::new().route(TASKS_PATH, get(nested::list_tasks).post(nested::create_task));
    let router = api().into_router().merge(nested).with_state(ServiceState::new(db)).layer(auth::layer());
    Limits::default().apply(router)
}

/// The OpenAPI document of the ViewSets (`cargo run -p tenants -- --print-openapi`); the hand-written nested route
/// is not in it.
pub fn openapi() -> OpenApi {
    api().openapi("viewset tenants example", env!("CARGO_PKG_VERSION"))
}

/// What Studio knows about the example: ViewSets (and so the AI tools), the nested route, models, migrations.
pub fn studio(settings: StudioSettings) -> Studio {
    let mut graph = MigrationGraph::new();
    graph.add_migrator::<migrations::Migrator>("tenants").expect("the migrations have unique names");
    Studio::new(settings)
        .project("tenants", env!("CARGO_PKG_VERSION"))
        .apps(["tenants"])
        .api(&api())
        .viewset::<viewsets::ProjectViewSet>()
        .viewset::<viewsets::NoteViewSet>()
        .model::<entities::task::Entity>("Task")
        .route("GET", TASKS_PATH, "manual", "list_tasks")
        .route("POST", TASKS_PATH, "manual", "create_task")
        .migrations(graph)
}

/// `app` with Studio (and `/ai`) mounted when `settings` say so, unchanged otherwise; unsafe settings are an error.
pub fn mount_studio(app: Router, db: DatabaseConnection, settings: StudioSettings) -> Result<Router, SettingsError> {
    studio(settings).mount(app, db)
}

/// Connects to `url` and applies the migrations.
pub async fn connect_and_migrate(url: &str) -> Result<DatabaseConnection, DbErr> {
    let db = viewset_core::connect(url).await?;
    migrations::Migrator::up(&db, None).await?;
    Ok(db)
}
