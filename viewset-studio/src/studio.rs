//! `Studio`: what the application tells Studio about itself, and the router of the `/studio/` endpoints.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, IdenStatic, Iterable, PrimaryKeyToColumn};
use serde_json::{Value, json};
use viewset_core::{Api, RouteInfo, ViewSet};

use crate::gate::{Gate, StaffSessionHook, error};
use crate::migrations::{AppliedState, MigrationGraph};
use crate::protocol::{
    Checksums, ContextSummary, DatabaseStatus, ENDPOINTS, Handshake, Health, MigrationStatus, MigrationsSummary,
    ModelSummary, PROTOCOL_VERSION, Project, STUDIO_PATHS, handshake_json_schema,
};
use crate::{Environment, SettingsError, StudioSettings, database};

/// The version of viewset that serves Studio (`service_version`).
pub const SERVICE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The Rust toolchain that built this crate (and the application linking it).
pub const RUST_VERSION: &str = env!("VIEWSET_STUDIO_RUSTC_VERSION");

/// One model as Studio describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelEntry {
    /// The model's name (`Post`).
    pub name: String,
    /// Its table.
    pub table_name: String,
    /// Column name, type, nullability, uniqueness and primary-key flag of each column.
    pub fields: Vec<Value>,
    /// Relation names (`Author`, ...).
    pub relations: Vec<String>,
}

impl ModelEntry {
    /// Describes entity `E` under `name`.
    pub fn of<E: EntityTrait>(name: &str) -> Self {
        let primary: Vec<&'static str> = E::PrimaryKey::iter().map(|k| k.into_column().as_str()).collect();
        let fields = E::Column::iter()
            .map(|column| {
                let def = column.def();
                json!({
                    "name": column.as_str(),
                    "type": format!("{:?}", def.get_column_type()),
                    "nullable": def.is_null(),
                    "unique": def.is_unique(),
                    "primary_key": primary.contains(&column.as_str()),
                })
            })
            .collect();
        ModelEntry {
            name: name.to_string(),
            table_name: E::default().table_name().to_string(),
            fields,
            relations: E::Relation::iter().map(|r| format!("{r:?}")).collect(),
        }
    }

    fn to_json(&self) -> Value {
        json!({"name": self.name, "table_name": self.table_name, "fields": self.fields, "relations": self.relations})
    }
}

/// Studio for one application: its settings, what it serves, and an optional staff-session hook.
///
/// ```no_run
/// # async fn run(app: axum::Router, api: &viewset_core::Api, db: sea_orm::DatabaseConnection)
/// #     -> Result<axum::Router, viewset_studio::SettingsError> {
/// use viewset_studio::{Studio, StudioSettings};
/// let router = Studio::new(StudioSettings::from_env()?)
///     .project("blog", "1.0.0")
///     .api(api)
///     .mount(app, db)?; // unchanged when Studio is off; an error when its settings are unsafe
/// # Ok(router) }
/// ```
#[derive(Clone)]
pub struct Studio {
    settings: StudioSettings,
    name: String,
    version: String,
    apps: Vec<String>,
    viewsets: Vec<String>,
    routes: Vec<RouteInfo>,
    models: Vec<ModelEntry>,
    migrations: MigrationGraph,
    staff_session: Option<StaffSessionHook>,
}

impl std::fmt::Debug for Studio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Studio")
            .field("settings", &self.settings)
            .field("name", &self.name)
            .field("models", &self.models.len())
            .field("routes", &self.routes.len())
            .finish_non_exhaustive()
    }
}

impl Studio {
    /// Studio with these settings and nothing registered.
    pub fn new(settings: StudioSettings) -> Self {
        Studio {
            settings,
            name: "app".into(),
            version: "0.0.0".into(),
            apps: Vec::new(),
            viewsets: Vec::new(),
            routes: Vec::new(),
            models: Vec::new(),
            migrations: MigrationGraph::new(),
            staff_session: None,
        }
    }

    /// The application's name and own version (`project.name`, `project.version`).
    pub fn project(mut self, name: &str, version: &str) -> Self {
        self.name = name.to_string();
        self.version = version.to_string();
        self
    }

    /// The installed apps (`app_count`).
    pub fn apps<I: IntoIterator<Item = S>, S: Into<String>>(mut self, apps: I) -> Self {
        self.apps = apps.into_iter().map(Into::into).collect();
        self
    }

    /// The registered ViewSets and routes of `api`.
    pub fn api(mut self, api: &Api) -> Self {
        self.viewsets.extend(api.viewsets().into_iter().map(str::to_string));
        self.routes.extend(api.routes().iter().cloned());
        self
    }

    /// A route registered outside an [`Api`].
    pub fn route(mut self, method: &'static str, path: &str, owner: &str, handler: &str) -> Self {
        self.routes.push(RouteInfo { method, path: path.into(), owner: owner.into(), handler: handler.into() });
        self
    }

    /// The model `V` serves (once per table).
    pub fn viewset<V: ViewSet>(self) -> Self {
        let name = V::CONFIG.model_name;
        self.model_entry(ModelEntry::of::<V::Entity>(name))
    }

    /// A model under `name`.
    pub fn model<E: EntityTrait>(self, name: &str) -> Self {
        self.model_entry(ModelEntry::of::<E>(name))
    }

    /// A described model (once per table).
    pub fn model_entry(mut self, entry: ModelEntry) -> Self {
        if !self.models.iter().any(|m| m.table_name == entry.table_name) {
            self.models.push(entry);
        }
        self
    }

    /// The migration graph.
    pub fn migrations(mut self, graph: MigrationGraph) -> Self {
        self.migrations = graph;
        self
    }

    /// The hook that accepts a staff session cookie (the application's own sessions).
    pub fn staff_session(mut self, hook: impl Fn(&axum::http::HeaderMap) -> bool + Send + Sync + 'static) -> Self {
        self.staff_session = Some(Arc::new(hook));
        self
    }

    /// The settings.
    pub fn settings(&self) -> &StudioSettings {
        &self.settings
    }

    /// The non-secret settings, as hashed by `settings_checksum`.
    pub fn public_settings(&self) -> Value {
        let s = &self.settings;
        json!({
            "enable_studio": s.enable_studio,
            "studio_require_auth": s.studio_require_auth,
            "studio_auth_token_set": s.studio_auth_token.is_some(),
            "studio_secret_token_set": s.studio_secret_token.is_some(),
            "studio_allowed_origins": s.studio_allowed_origins,
            "studio_expose_in_production": s.studio_expose_in_production,
            "environment": s.environment.as_str(),
            "debug": s.debug,
            "apps": self.apps,
        })
    }

    fn routes_json(&self) -> Value {
        let mut routes: Vec<&RouteInfo> = self.routes.iter().collect();
        routes.sort_by(|a, b| (&a.path, a.method, &a.owner).cmp(&(&b.path, b.method, &b.owner)));
        Value::Array(
            routes
                .into_iter()
                .map(|r| json!({"method": r.method, "path": r.path, "owner": r.owner, "handler": r.handler}))
                .collect(),
        )
    }

    /// The four checksums (identical for the same application in every process).
    pub fn checksums(&self) -> Checksums {
        let mut models: Vec<Value> = self.models.iter().map(ModelEntry::to_json).collect();
        models.sort_by_key(|m| m["table_name"].as_str().unwrap_or_default().to_string());
        Checksums {
            schema_checksum: crate::checksum(&Value::Array(models)),
            migrations_checksum: self.migrations.checksum(),
            settings_checksum: crate::checksum(&self.public_settings()),
            routes_checksum: crate::checksum(&self.routes_json()),
        }
    }

    /// The Studio routes, or `None` when the settings keep Studio off. Unsafe settings are an error.
    pub fn router(self, db: DatabaseConnection) -> Result<Option<Router>, SettingsError> {
        self.settings.validate()?;
        if !self.settings.should_mount() {
            return Ok(None);
        }
        if self.settings.environment != Environment::Development
            && self.settings.studio_allowed_origins.iter().any(|o| o == "*")
        {
            tracing::warn!(
                "SERVICE_STUDIO_ALLOWED_ORIGINS=* lets every origin use Studio; it is meant for development"
            );
        }
        if !self.settings.studio_require_auth {
            tracing::warn!("Studio is mounted without authentication (SERVICE_STUDIO_REQUIRE_AUTH is false)");
        }
        let gate = Arc::new(Gate::new(&self.settings, self.staff_session.clone()));
        let checksums = self.checksums();
        let state = Arc::new(Inner { studio: self, checksums, db, applied: Mutex::new(None) });
        let router = Router::new()
            .route("/studio/handshake", get(handshake))
            .route("/studio/context/summary", get(context_summary))
            .route("/studio/health", get(health))
            .route("/studio/migrations/summary", get(migrations_summary))
            .route("/studio/schema/handshake", get(schema_handshake))
            .route("/studio/ui", get(ui))
            .with_state(state)
            .layer(axum::middleware::from_fn_with_state(gate, crate::gate::check));
        Ok(Some(router))
    }

    /// `app` with the Studio routes merged in when the settings mount Studio; `app` unchanged otherwise.
    pub fn mount(self, app: Router, db: DatabaseConnection) -> Result<Router, SettingsError> {
        Ok(match self.router(db)? {
            Some(studio) => app.merge(studio),
            None => app,
        })
    }
}

struct Inner {
    studio: Studio,
    checksums: Checksums,
    db: DatabaseConnection,
    /// The last applied state read successfully (reported while the database is unreachable).
    applied: Mutex<Option<AppliedState>>,
}

type Shared = State<Arc<Inner>>;

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl Inner {
    fn capabilities(&self, database: &DatabaseStatus) -> Vec<String> {
        let studio = &self.studio;
        let mut caps = Vec::new();
        if !studio.models.is_empty() {
            caps.push("read_schema");
        }
        if database.connected && studio.routes.iter().any(|r| r.method == "GET") {
            caps.push("read_data");
        }
        if database.connected && studio.routes.iter().any(|r| matches!(r.method, "POST" | "PATCH" | "PUT" | "DELETE")) {
            caps.push("write_data");
        }
        if database.connected && !studio.migrations.nodes().is_empty() {
            caps.push("read_migrations");
        }
        if studio.settings.debug {
            caps.push("debug_panels");
        }
        caps.into_iter().map(str::to_string).collect()
    }

    /// The applied migrations now (remembered for [`Inner::applied_or_last_known`]).
    async fn applied(&self) -> Result<AppliedState, sea_orm::DbErr> {
        let applied = self.studio.migrations.applied(&self.db).await?;
        *self.applied.lock().unwrap_or_else(|e| e.into_inner()) = Some(applied.clone());
        Ok(applied)
    }

    /// The applied migrations now, or the last ones read when the table cannot be read (the database status
    /// beside them says so); nothing applied when it was never read.
    async fn applied_or_last_known(&self) -> AppliedState {
        match self.applied().await {
            Ok(applied) => applied,
            Err(e) => {
                tracing::warn!("Studio could not read the migrations table: {e}");
                self.applied.lock().unwrap_or_else(|e| e.into_inner()).clone().unwrap_or_default()
            }
        }
    }
}

async fn handshake(State(inner): Shared) -> axum::Json<Handshake> {
    let database = database::check(&inner.db).await;
    let studio = &inner.studio;
    let settings = &studio.settings;
    axum::Json(Handshake {
        protocol_version: PROTOCOL_VERSION.into(),
        timestamp: now(),
        project: Project {
            name: studio.name.clone(),
            version: studio.version.clone(),
            service_version: SERVICE_VERSION.into(),
            python_version: RUST_VERSION.into(),
            rust_version: RUST_VERSION.into(),
            debug_mode: settings.debug,
            environment: settings.environment.as_str().into(),
        },
        capabilities: inner.capabilities(&database),
        database,
        checksums: inner.checksums.clone(),
        endpoints: ENDPOINTS.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        metadata: json!({
            "framework": "viewset",
            "stability": "experimental",
            "apps": studio.apps,
            "viewsets": studio.viewsets,
            "studio_endpoints": STUDIO_PATHS,
            "ai_endpoints_mounted": false,
            "python_version_note": "holds the Rust toolchain version (rust_version); the key is kept for clients",
        }),
    })
}

async fn context_summary(State(inner): Shared) -> axum::Json<ContextSummary> {
    let database_status = database::check(&inner.db).await;
    let applied = inner.applied_or_last_known().await;
    let migrations = inner.studio.migrations.summary(&applied);
    let studio = &inner.studio;
    axum::Json(ContextSummary {
        app_count: studio.apps.len() as u64,
        model_count: studio.models.len() as u64,
        viewset_count: studio.viewsets.len() as u64,
        route_count: studio.routes.len() as u64,
        ai_tool_count: 0,
        migration_count: migrations.total_migrations,
        pending_migrations: migrations.pending_migrations,
        database_status,
        migration_status: MigrationStatus {
            total: migrations.total_migrations,
            applied: migrations.applied_migrations,
            pending: migrations.pending_migrations,
            has_conflicts: !migrations.conflicts.is_empty(),
            last_applied: migrations.last_applied,
        },
        models: studio
            .models
            .iter()
            .map(|m| ModelSummary {
                name: m.name.clone(),
                table_name: m.table_name.clone(),
                field_count: m.fields.len() as u64,
                has_relations: !m.relations.is_empty(),
            })
            .collect(),
        checksums: inner.checksums.clone(),
    })
}

async fn health(State(inner): Shared) -> axum::Json<Health> {
    let database = database::check(&inner.db).await;
    axum::Json(Health {
        status: if database.connected { "healthy" } else { "degraded" }.into(),
        service_version: SERVICE_VERSION.into(),
        database,
        timestamp: now(),
    })
}

async fn migrations_summary(State(inner): Shared) -> Response {
    match inner.applied().await {
        Ok(applied) => axum::Json::<MigrationsSummary>(inner.studio.migrations.summary(&applied)).into_response(),
        Err(e) => {
            tracing::warn!("Studio could not read the migrations table: {e}");
            error(
                StatusCode::SERVICE_UNAVAILABLE,
                "The migrations table cannot be read: the database is unreachable.",
                "database_unavailable",
            )
        }
    }
}

async fn schema_handshake() -> axum::Json<Value> {
    axum::Json(handshake_json_schema())
}

async fn ui(State(inner): Shared) -> Response {
    let links: String =
        STUDIO_PATHS.iter().map(|p| format!("<li><a href=\"{p}\"><code>{p}</code></a></li>")).collect::<String>();
    let name = inner.studio.name.replace(['<', '>', '&', '"'], "");
    let page = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Studio — {name}</title></head>\
         <body><h1>Studio (experimental)</h1><p>The Studio web UI is not built yet (it is a separate issue). \
         The JSON endpoints below work; they need the same credentials as this page.</p><ul>{links}</ul></body></html>"
    );
    ([(CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response()
}
