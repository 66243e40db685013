//! The viewset blog example: authors, posts and tags served by generated CRUD routes.
//!
//! `cargo run -p blog` serves it at 127.0.0.1:8000 on a fresh SQLite file. `SERVICE_BIND` changes the address,
//! `DATABASE_URL` the database (e.g. `postgres://postgres@127.0.0.1:5432/blog`), `DATABASE_REPLICA_URL` a read
//! replica of it for GET requests ([`with_replica_url`]), `BLOG_SEED=0` turns seeding off. `SERVICE_METRICS_ADDR`
//! serves Prometheus metrics on a listener of their own, `SERVICE_LOG_FORMAT=json` writes JSON log lines
//! ([`observe`]).
//! Studio (experimental) is off unless `SERVICE_ENABLE_STUDIO=true`; see [`studio`] for its settings.

pub mod auth;
pub mod bus;
pub mod entities;
pub mod migrations;
pub mod observe;
pub mod seed;
pub mod viewsets;
pub mod webhooks;

use axum::Router;
use sea_orm::{DatabaseConnection, DbErr};
use sea_orm_migration::MigratorTrait;
use viewset_core::__private::utoipa::openapi as utoipa_openapi;
use viewset_core::limits::Limits;
use viewset_core::throttle::Throttle;
use viewset_core::{Api, ServiceState};
use viewset_studio::{MigrationGraph, SettingsError, Studio, StudioSettings};

pub use viewsets::{AuthorViewSet, PostViewSet, TagViewSet};

/// The blog's ViewSets, registered.
pub fn api() -> Api {
    let mut api = Api::new();
    api.include::<PostViewSet>().expect("PostViewSet registers once");
    api.include::<AuthorViewSet>().expect("AuthorViewSet registers once");
    api.include::<TagViewSet>().expect("TagViewSet registers once");
    api
}

/// The blog's OpenAPI document.
pub fn openapi() -> utoipa_openapi::OpenApi {
    api().openapi("viewset blog example", env!("CARGO_PKG_VERSION"))
}

/// The application with the event bus `SERVICE_EVENT_BUS` chooses ([`bus`]; by default the durable outbox on
/// PostgreSQL, so several instances share one stream, and in process otherwise). Studio is mounted when the `SERVICE_*` environment says so
/// (see [`studio`]); unsafe Studio settings are an error.
pub async fn app_for(db: DatabaseConnection) -> Result<Router, DbErr> {
    let settings = StudioSettings::from_env().map_err(|e| DbErr::Custom(format!("Studio settings: {e}")))?;
    let state = state_for(db.clone()).await?;
    // Studio's Runtime Panel plots the metrics of the state the routes serve (`Studio::metrics`) and shows the
    // webhooks it started (`Studio::webhooks`).
    let studio = studio(settings).metrics(&state);
    let studio = match webhooks::running() {
        Some(running) => studio.webhooks(running),
        None => studio,
    };
    studio.mount(app_with_state(state), db).map_err(|e| DbErr::Custom(format!("Studio settings: {e}")))
}

/// [`app_for`] without Studio.
pub async fn app_for_without_studio(db: DatabaseConnection) -> Result<Router, DbErr> {
    Ok(app_with_state(state_for(db).await?))
}

/// The state of [`app_for`]: its event bus, throttles and read replica from the environment, with its metrics
/// served at `SERVICE_METRICS_ADDR` and its webhooks started.
async fn state_for(db: DatabaseConnection) -> Result<ServiceState, DbErr> {
    let state = ServiceState::with_events(db.clone(), bus::from_env(&db).await?);
    // `SERVICE_THROTTLE_ANON`, `SERVICE_THROTTLE_USER`, `SERVICE_THROTTLE_REDIS`, …: see `Throttle::from_vars`.
    let state = match Throttle::from_env().map_err(|e| DbErr::Custom(format!("throttle settings: {e}")))? {
        Some(throttle) => state.with_throttle(throttle),
        None => state,
    };
    let state = match std::env::var("DATABASE_REPLICA_URL") {
        Ok(url) if !url.is_empty() => with_replica_url(state, &url).await?,
        _ => state,
    };
    observe::serve_metrics_from_env(&state).await?;
    webhooks::start_from_env(&state).await?;
    Ok(state)
}

/// `state` reading GET requests from the read replica at `url` (`DATABASE_REPLICA_URL` in [`app_for`]), connected
/// lazily with a short acquire timeout ([`viewset_core::store::connect_replica`]): the blog starts while the
/// replica is down, and reads the primary until it is back. README, "Read replicas".
pub async fn with_replica_url(state: ServiceState, url: &str) -> Result<ServiceState, DbErr> {
    let replica = viewset_core::store::connect_replica(url).await?;
    if replica.get_database_backend() != state.db.get_database_backend() {
        return Err(DbErr::Custom("DATABASE_REPLICA_URL names another kind of database than DATABASE_URL".into()));
    }
    Ok(state.with_replica(replica))
}

/// The application router: the ViewSets behind the demo authentication, `/openapi.json` and `/docs`, JSON 404 for
/// unknown paths, the default transport [`Limits`].
pub fn app(db: DatabaseConnection) -> Router {
    app_with_state(ServiceState::new(db))
}

/// The application router over a prepared state.
pub fn app_with_state(state: ServiceState) -> Router {
    app_from(api(), state)
}

/// The application router of `api` (the blog's [`api`], or it with more ViewSets) over a prepared state: the
/// demo authentication, `/openapi.json` and `/docs`, the default [`Limits`] and request tracing. The three layers are
/// one `ServiceBuilder` stack given to one `Router::layer` (request tracing outermost, then the limits, then the
/// authentication), so each route is wrapped once rather than three times.
pub fn app_from(api: Api, state: ServiceState) -> Router {
    app_with_auth(api, state, auth::layer())
}

/// [`app_from`] with the authentication layer `auth` (e.g. [`auth::layer_from_vars`] over settings of its own).
pub fn app_with_auth(api: Api, state: ServiceState, auth: viewset_core::auth::Authenticate) -> Router {
    let layers = tower::ServiceBuilder::new()
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .layer(Limits::default().layer())
        .layer(auth);
    routes_from(api, state).layer(layers)
}

/// [`app_from`] before its layers (request tracing, [`Limits`], the demo authentication): `api`'s routes,
/// `/openapi.json` and `/docs` over `state`.
pub fn routes_from(api: Api, state: ServiceState) -> Router {
    api.into_router_with_docs("viewset blog example", env!("CARGO_PKG_VERSION")).with_state(state)
}

/// The blog's migration graph: one app, `blog`, whose migrations form a chain.
pub fn migration_graph() -> MigrationGraph {
    let mut graph = MigrationGraph::new();
    graph.add_migrator::<migrations::Migrator>("blog").expect("the blog's migrations have unique names");
    // The files themselves, so that editing a migration changes the migrations checksum.
    for (name, text) in migrations::SOURCES {
        graph.source(name, text).expect("every source names a registered migration");
    }
    graph
}

/// What Studio knows about the blog: its ViewSets, routes, models and migrations, and a demo staff session (the
/// cookie `blog_session=<token>` of a staff demo user; demo only, as the tokens are), and MCP authorization when
/// `SERVICE_JWT_ISSUER` and `SERVICE_STUDIO_PUBLIC_URL` are set ([`auth::mcp_from_vars`]).
pub fn studio(settings: StudioSettings) -> Studio {
    let tokens = auth::DemoTokens::from_env();
    let studio = Studio::new(settings)
        .project("blog", env!("CARGO_PKG_VERSION"))
        .apps(["blog"])
        .api(&api())
        .viewset::<PostViewSet>()
        .viewset::<AuthorViewSet>()
        .viewset::<TagViewSet>()
        .migrations(migration_graph())
        .staff_session(move |headers| {
            viewset_studio::cookie(headers, "blog_session")
                .and_then(|session| tokens.principal(&session))
                .is_some_and(|principal| principal.is_staff)
        });
    // MCP authorization against the identity provider of `SERVICE_JWT_*` (`SERVICE_STUDIO_PUBLIC_URL`).
    auth::mcp_from_vars(studio, |name| std::env::var(name).ok()).unwrap_or_else(|error| panic!("{error}"))
}

/// `app` with Studio mounted when `settings` say so (unchanged otherwise); unsafe settings are an error.
///
/// Studio settings come from `SERVICE_ENABLE_STUDIO`, `SERVICE_STUDIO_REQUIRE_AUTH`, `SERVICE_STUDIO_AUTH_TOKEN`,
/// `SERVICE_STUDIO_ALLOWED_ORIGINS`, `SERVICE_STUDIO_EXPOSE_IN_PRODUCTION`, `SERVICE_ENVIRONMENT` and
/// `SERVICE_DEBUG` in [`app_for`].
pub fn mount_studio(app: Router, db: DatabaseConnection, settings: StudioSettings) -> Result<Router, SettingsError> {
    studio(settings).mount(app, db)
}

/// The blog over `state` with Studio mounted when `settings` say so, its Runtime Panel plotting `state`'s metrics
/// ([`Studio::metrics`]); unsafe settings are an error.
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// let db = viewset_core::connect("sqlite::memory:").await?;
/// let state = viewset_core::ServiceState::new(db.clone());
/// let app = blog::app_with_studio(state, viewset_studio::StudioSettings::default()).expect("valid settings");
/// # let _ = app; Ok(()) }
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(run()).unwrap();
/// ```
pub fn app_with_studio(state: ServiceState, settings: StudioSettings) -> Result<Router, SettingsError> {
    let db = state.db.clone();
    studio(settings).metrics(&state).mount(app_with_state(state), db)
}

/// Connects to `url` (SQLite files are created if missing) and applies the migrations.
pub async fn connect_and_migrate(url: &str) -> Result<DatabaseConnection, DbErr> {
    let db = viewset_core::connect(url).await?;
    migrations::Migrator::up(&db, None).await?;
    Ok(db)
}

/// The default database: a SQLite file in the working directory.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://blog.db?mode=rwc";
