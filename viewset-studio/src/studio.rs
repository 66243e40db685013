//! `Studio`: what the application tells Studio about itself (`model` describes one model, `facts` what schema
//! health checks of one ViewSet), the state the Studio handlers share once it is mounted (`state`), and the
//! `/studio/` endpoints (`handlers`). Mounting it with the UI, the `/ai` surface and the gate is `crate::mount`.

mod aggregates;
mod facts;
pub(crate) mod handlers;
mod metrics;
mod webhooks;

pub(crate) use webhooks::routes as webhook_routes;
mod model;
pub(crate) mod state;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use sea_orm::{DatabaseConnection, DbErr, EntityTrait};
use serde_json::{Map, Value, json};
use viewset_core::registration::{RouteInfo, ToolInfo};
use viewset_core::viewset::OrderingFields;
use viewset_core::{Api, Hooks};

pub(crate) use self::facts::ViewSetFacts;
pub use self::model::ModelEntry;
use crate::gate::StaffSessionHook;
use crate::migrations::MigrationGraph;
use crate::protocol::Checksums;
use crate::settings::StudioSettings;

/// The version of viewset that serves Studio (`service_version`).
pub const SERVICE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The Rust toolchain that built this crate (and the application linking it).
pub const RUST_VERSION: &str = env!("VIEWSET_STUDIO_RUSTC_VERSION");

/// The application's migrator, type-erased: applies every pending migration it knows.
pub(crate) type ApplyMigrations =
    Arc<dyn Fn(DatabaseConnection) -> Pin<Box<dyn Future<Output = Result<(), DbErr>> + Send>> + Send + Sync>;

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
    pub(crate) settings: StudioSettings,
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) apps: Vec<String>,
    pub(crate) viewsets: Vec<String>,
    pub(crate) routes: Vec<RouteInfo>,
    pub(crate) models: Vec<ModelEntry>,
    pub(crate) migrations: MigrationGraph,
    pub(crate) staff_session: Option<StaffSessionHook>,
    /// The AI tools of the registered `Api`s.
    pub(crate) tools: Vec<ToolInfo>,
    /// Their OpenAPI documents merged (paths and component schemas), as JSON: the tools' input schemas.
    pub(crate) openapi: Value,
    /// Each ViewSet registered with [`Studio::viewset`]: configuration and actions.
    pub(crate) viewset_details: Vec<Value>,
    /// What `/ai/schema/health` checks of each ViewSet registered with [`Studio::viewset`].
    pub(crate) health: Vec<ViewSetFacts>,
    /// The project's source directory (the code generator's endpoints work only with it).
    pub(crate) project_dir: Option<std::path::PathBuf>,
    /// The application's migrator, when registered with [`Studio::migrator`] (the Migration Manager's apply).
    pub(crate) apply_migrations: Option<ApplyMigrations>,
    /// [`Studio::authorization_servers`]: listed in the MCP endpoint's protected resource metadata.
    pub(crate) authorization_servers: Vec<String>,
    /// [`Studio::public_url`]: the origin of Studio's absolute URLs.
    pub(crate) public_url: Option<String>,
    /// [`Studio::mcp_tokens`]: access tokens issued for the MCP endpoint.
    #[cfg(feature = "jwt")]
    pub(crate) mcp_tokens: Option<crate::McpTokens>,
    /// [`Studio::metrics`]: the state whose metrics `/studio/metrics` reads.
    pub(crate) metrics: Option<viewset_core::ServiceState>,
    /// [`Studio::webhooks`]: the running webhooks `/studio/webhooks` reads and acts on.
    #[cfg(feature = "webhooks")]
    pub(crate) webhooks: Option<std::sync::Arc<viewset_core::webhooks::WebhookHandle>>,
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
            tools: Vec::new(),
            openapi: json!({"paths": {}, "components": {"schemas": {}}}),
            viewset_details: Vec::new(),
            health: Vec::new(),
            project_dir: None,
            apply_migrations: None,
            authorization_servers: Vec::new(),
            public_url: None,
            #[cfg(feature = "jwt")]
            mcp_tokens: None,
            metrics: None,
            #[cfg(feature = "webhooks")]
            webhooks: None,
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

    /// The registered ViewSets, routes and AI tools of `api` (with its OpenAPI document, which describes the
    /// tools' inputs).
    pub fn api(mut self, api: &Api) -> Self {
        self.viewsets.extend(api.viewsets().into_iter().map(str::to_string));
        self.routes.extend(api.routes().iter().cloned());
        self.tools.extend(api.tools().iter().cloned());
        let document = serde_json::to_value(api.openapi(&self.name, &self.version)).unwrap_or_default();
        merge_document(&mut self.openapi, document);
        self
    }

    /// A route registered outside an [`Api`].
    pub fn route(mut self, method: &'static str, path: &str, owner: &str, handler: &str) -> Self {
        let (path, owner, handler) = (path.into(), owner.into(), handler.into());
        self.routes.push(RouteInfo { method, path, owner, handler, operation_id: None });
        self
    }

    /// The model `V` serves (once per table), `V`'s configuration and actions for `/ai/context/full`, and what
    /// `/ai/schema/health` checks of it.
    pub fn viewset<V: Hooks>(mut self) -> Self {
        let c = V::CONFIG;
        let ordering_fields = match c.ordering_fields {
            OrderingFields::All => json!("__all__"),
            OrderingFields::Only(fields) => json!(fields),
        };
        let ordering: Vec<String> = c
            .ordering
            .iter()
            .map(|(field, direction)| match direction {
                viewset_core::viewset::Direction::Asc => field.to_string(),
                viewset_core::viewset::Direction::Desc => format!("-{field}"),
            })
            .collect();
        let actions: Vec<Value> = V::actions()
            .iter()
            .map(|a| {
                json!({"name": a.name, "detail": a.detail, "methods": a.methods, "path": a.path, "doc": a.doc,
                           "ai_exposed": c.ai_exposed && a.ai_exposed})
            })
            .collect();
        self.health.retain(|f| f.viewset() != c.name);
        self.health.push(ViewSetFacts::of::<V>());
        self.viewset_details.retain(|v| v["name"] != c.name);
        self.viewset_details.push(json!({
            "name": c.name, "model": c.model_name, "prefix": V::prefix(), "lookup_field": c.lookup_field,
            "ai_exposed": c.ai_exposed, "stream_enabled": c.stream_enabled,
            "filter_backends": c.filter_backends, "filterable_fields": c.filterable_fields,
            "search_fields": c.search_fields, "ordering_fields": ordering_fields, "ordering": ordering,
            "default_limit": c.default_limit, "max_limit": c.max_limit, "tenant_field": c.tenant_field,
            "staff_only_fields": c.staff_only_fields, "actions": actions,
            "bulk": {"create": c.bulk.create, "update": c.bulk.update, "delete": c.bulk.delete, "max": c.bulk.max,
                     "upsert_keys": c.bulk.upsert_keys},
            "aggregates": aggregates::describe::<V>(),
        }));
        self.model_entry(ModelEntry::of::<V::Entity>(c.model_name))
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

    /// The application's source directory (where its `Cargo.toml` is), laid out as `viewset new` writes it: with it,
    /// Studio serves the code generator (`/ai/codegen/preview`, `/ai/patch/preview|apply`,
    /// `/ai/plan/preview|apply`), whose apply writes there in the development environment only. Without it those
    /// endpoints answer 409 `codegen_unavailable` naming this setting. Mounting fails when the directory does not
    /// exist. The generator is compiled with the crate's `codegen` feature only; without it the endpoints answer 501
    /// `codegen_unavailable`.
    ///
    /// ```no_run
    /// # fn run(app: axum::Router, db: sea_orm::DatabaseConnection) -> Result<axum::Router, viewset_studio::SettingsError> {
    /// use viewset_studio::{Studio, StudioSettings};
    /// let router = Studio::new(StudioSettings::from_env()?)
    ///     .project("books", env!("CARGO_PKG_VERSION"))
    ///     .project_dir(env!("CARGO_MANIFEST_DIR"))
    ///     .mount(app, db)?;
    /// # Ok(router) }
    /// ```
    pub fn project_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.project_dir = Some(dir.into());
        self
    }

    /// The application's migrator: with it the web UI's Migration Manager can apply the pending migrations
    /// (`POST /studio/migrations/apply`, which runs `M::up`), in the development environment only; the handshake then
    /// lists the `apply_migrations` capability. Registering it applies nothing.
    ///
    /// ```no_run
    /// # fn run<M: sea_orm_migration::MigratorTrait>(app: axum::Router, db: sea_orm::DatabaseConnection)
    /// #     -> Result<axum::Router, viewset_studio::SettingsError> {
    /// use viewset_studio::{Studio, StudioSettings};
    /// let router = Studio::new(StudioSettings::from_env()?).migrator::<M>().mount(app, db)?;
    /// # Ok(router) }
    /// ```
    pub fn migrator<M: sea_orm_migration::MigratorTrait>(mut self) -> Self {
        self.apply_migrations =
            Some(Arc::new(|db: DatabaseConnection| Box::pin(async move { M::up(&db, None).await })));
        self
    }

    /// The OAuth 2.0 authorization servers (issuer URLs) that issue the application's tokens: listed as
    /// `authorization_servers` in the MCP endpoint's protected resource metadata
    /// (`/.well-known/oauth-protected-resource/ai/tools/mcp`, RFC 9728), where an MCP client looks for where to get a
    /// token. Studio verifies no such token itself: accept it in [`Studio::staff_session`]. Each must be an absolute
    /// `http://` or `https://` URL; mounting fails otherwise.
    ///
    /// ```
    /// use viewset_studio::Studio;
    /// let studio = Studio::new(Default::default()).authorization_servers(["https://auth.example.com"]);
    /// # let _ = studio;
    /// ```
    pub fn authorization_servers<I: IntoIterator<Item = S>, S: Into<String>>(mut self, servers: I) -> Self {
        self.authorization_servers = servers.into_iter().map(Into::into).collect();
        self
    }

    /// The origin clients reach Studio at (`https://studio.example.com`, no path), for the absolute URLs of the MCP
    /// endpoint's authorization discovery; without it they are built from each request's `Host` (and
    /// `X-Forwarded-Proto`). Mounting fails when it is not an `http://` or `https://` origin.
    pub fn public_url(mut self, origin: &str) -> Self {
        self.public_url = Some(origin.to_string());
        self
    }

    /// The hook that accepts a staff session of the application's own kind (a cookie of its own sessions, a token
    /// of its authorization server). Without it Studio still accepts the signed `studio_staff` cookie
    /// ([`crate::STAFF_COOKIE`]) when `studio_secret_token` is set; with it, either admits.
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
            "ai_provider_set": s.ai_provider_url.is_some(),
            "ai_model": s.ai_model,
            "ai_api_key_set": s.ai_api_key.is_some(),
            "project_dir_set": self.project_dir.is_some(),
            "authorization_servers": self.authorization_servers,
            "public_url": self.public_url,
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
            schema_checksum: crate::checksum::checksum(&Value::Array(models)),
            migrations_checksum: self.migrations.checksum(),
            settings_checksum: crate::checksum::checksum(&self.public_settings()),
            routes_checksum: crate::checksum::checksum(&self.routes_json()),
        }
    }
}

/// Merges an `Api`'s OpenAPI `document` into `into`: paths, every components section and tags are added to those of
/// the documents before; `openapi`, `info` and any other key are the first document's.
fn merge_document(into: &mut Value, document: Value) {
    let (Some(into), Value::Object(document)) = (into.as_object_mut(), document) else { return };
    for (key, value) in document {
        match (key.as_str(), value) {
            ("paths", Value::Object(paths)) => object(into, "paths").extend(paths),
            ("components", Value::Object(sections)) => {
                let components = object(into, "components");
                for (section, entries) in sections {
                    if let Value::Object(entries) = entries {
                        object(components, &section).extend(entries);
                    }
                }
            }
            ("tags", Value::Array(tags)) => {
                if let Value::Array(known) = into.entry("tags").or_insert_with(|| json!([])) {
                    for tag in tags {
                        if !known.contains(&tag) {
                            known.push(tag);
                        }
                    }
                }
            }
            (_, value) => {
                into.entry(key).or_insert(value);
            }
        }
    }
}

/// `map[key]` as an object (made one when absent or not an object).
fn object<'a>(map: &'a mut Map<String, Value>, key: &str) -> &'a mut Map<String, Value> {
    let slot = map.entry(key).or_insert_with(|| json!({}));
    if !slot.is_object() {
        *slot = json!({});
    }
    slot.as_object_mut().expect("made an object above")
}
