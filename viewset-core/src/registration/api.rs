//! `Api`: the registry of an application's ViewSets. It registers routes, refuses duplicates and route
//! collisions with an error naming both sides, lists every route, and serves the OpenAPI document and `/docs`.

use std::any::TypeId;

use axum::Router;
use axum::routing::MethodRouter;
use utoipa::openapi::path::HttpMethod;
use utoipa::openapi::{OpenApi, Paths};

use super::fallback;
use super::tools::{ToolInfo, tools_of};
use crate::contract::hooks::Hooks;
use crate::contract::paths;
use crate::registration::routes::include_parts;
use crate::request::ServiceState;
use crate::request::embedders::SharedEmbedders;
use crate::request::embedders::{Embedder, Embedders};

/// One registered route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteInfo {
    /// HTTP method, upper case.
    pub method: &'static str,
    /// axum path, e.g. `/api/posts/{pk}`.
    pub path: String,
    /// The ViewSet (or `manual` for hand-written routes).
    pub owner: String,
    /// The handler: `list`, `create`, `retrieve`, `update`, `delete` or the action's name.
    pub handler: String,
    /// The operation's name ([`crate::registration::operation_id`]): its OpenAPI `operationId` and AI tool name
    /// (`None` for a hand-written route).
    pub operation_id: Option<String>,
}

/// Why a registration was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistrationError {
    /// The same ViewSet was registered twice.
    Duplicate {
        /// The ViewSet.
        viewset: String,
        /// How it was registered first.
        first: String,
        /// How it was registered again.
        second: String,
    },
    /// Two operations would have the same name, which is their OpenAPI `operationId` and AI tool name (e.g. two
    /// ViewSets of one table, or an action named `list`).
    OperationCollision {
        /// The operation's name.
        operation: String,
        /// The route that has it first (`PostViewSet GET /api/posts/`).
        first: String,
        /// The route that wants it too.
        second: String,
    },
    /// Two registrations serve the same method and path.
    Collision {
        /// `GET /api/posts/`.
        route: String,
        /// Who registered it first.
        first: String,
        /// Who tried to register it again.
        second: String,
    },
}

impl std::fmt::Display for RegistrationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RegistrationError::Duplicate { viewset, first, second } => write!(
                f,
                "{viewset} is registered twice: {first}, then {second}; register each ViewSet once (explicitly or through discovery, not both)"
            ),
            RegistrationError::OperationCollision { operation, first, second } => write!(
                f,
                "operation `{operation}` of {second} has the same name as the operation of {first} (names are OpenAPI operation ids and AI tool names); set `basename = \"...\"` on one of the ViewSets, or rename the action"
            ),
            RegistrationError::Collision { route, first, second } => {
                write!(
                    f,
                    "route `{route}` of {second} collides with the same route of {first}; give one of them another prefix"
                )
            }
        }
    }
}

impl std::error::Error for RegistrationError {}

struct Registration {
    type_id: TypeId,
    name: &'static str,
    origin: String,
    described: crate::openapi::embedded::Described,
}

/// The application's ViewSets and hand-written routes, with their documentation.
///
/// ```
/// # mod post { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
/// #   #[sea_orm(table_name = "posts")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32 }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// use viewset_core::prelude::*;
/// use viewset_core::Api;
///
/// #[derive(ModelViewSet)]
/// #[viewset(model = post::Entity, prefix = "/api/posts")]
/// pub struct PostViewSet;
///
/// let mut api = Api::new();
/// api.include::<PostViewSet>().unwrap();
/// let again = api.include::<PostViewSet>().unwrap_err();
/// assert!(again.to_string().contains("PostViewSet is registered twice"));
/// assert_eq!(api.routes().len(), 6); // list, create, retrieve, update, delete, stream
/// let doc = api.openapi("Blog", "1.0");
/// assert!(doc.paths.paths.contains_key("/api/posts/{pk}"));
/// ```
pub struct Api {
    origin: String,
    router: Router<ServiceState>,
    /// The ViewSets' actions, which get the embedders as a request extension ([`include_parts`]).
    actions: Router<ServiceState>,
    registrations: Vec<Registration>,
    routes: Vec<RouteInfo>,
    tools: Vec<ToolInfo>,
    manual_paths: Paths,
    embedders: Embedders,
    shared_embedders: SharedEmbedders,
}

impl Default for Api {
    fn default() -> Self {
        Api::new()
    }
}

impl std::fmt::Debug for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Api").field("routes", &self.routes).finish_non_exhaustive()
    }
}

/// `/api/posts/{pk}` and `/api/posts/{id}` are the same route to axum.
fn route_key(method: &str, path: &str) -> String {
    let normalized: Vec<&str> =
        path.split('/').map(|segment| if segment.starts_with('{') { "{}" } else { segment }).collect();
    format!("{method} {}", normalized.join("/"))
}

impl Api {
    /// An empty registry.
    pub fn new() -> Self {
        Api {
            origin: "explicitly".into(),
            router: Router::new(),
            actions: Router::new(),
            registrations: Vec::new(),
            routes: Vec::new(),
            tools: Vec::new(),
            manual_paths: Paths::new(),
            embedders: Embedders::default(),
            shared_embedders: SharedEmbedders::default(),
        }
    }

    /// Registers `V` (explicitly, unless a discovery helper is registering it).
    pub fn include<V: Hooks>(&mut self) -> Result<&mut Self, RegistrationError> {
        self.include_as::<V>(self.origin.clone())
    }

    /// How the next registrations happen (for error messages).
    pub(crate) fn set_origin(&mut self, origin: &str) {
        self.origin = origin.to_string();
    }

    /// Registers `V`, recording how (for error messages).
    pub(crate) fn include_as<V: Hooks>(&mut self, origin: String) -> Result<&mut Self, RegistrationError> {
        let name = V::CONFIG.name;
        if let Some(first) = self.registrations.iter().find(|r| r.type_id == TypeId::of::<V>()) {
            return Err(RegistrationError::Duplicate {
                viewset: name.to_string(),
                first: first.origin.clone(),
                second: origin,
            });
        }
        let routes = routes_of::<V>();
        self.check_collisions(&routes, &format!("{name} ({origin})"))?;
        self.check_operation_ids(&routes)?;
        self.routes.extend(routes);
        self.tools.extend(tools_of::<V>());
        self.embedders.register(Embedder { writer: Some(super::nested::writer::<V>()), ..Embedder::of::<V>() });
        let described = crate::openapi::embedded::Described::of::<V>();
        self.registrations.push(Registration { type_id: TypeId::of::<V>(), name, origin, described });
        let (router, actions) = (std::mem::take(&mut self.router), std::mem::take(&mut self.actions));
        let (router, actions) = include_parts::<V, ServiceState>(router, Some(actions), &self.shared_embedders);
        (self.router, self.actions) = (router, actions.unwrap_or_default());
        Ok(self)
    }

    /// `routes` against the registered ones, and against each other (an action at a generated route's path, such
    /// as a collection action at `aggregate` of a ViewSet with `aggregates(...)`).
    fn check_collisions(&self, routes: &[RouteInfo], who: &str) -> Result<(), RegistrationError> {
        for (at, route) in routes.iter().enumerate() {
            let key = route_key(route.method, &route.path);
            if let Some(own) = routes[..at].iter().find(|r| route_key(r.method, &r.path) == key) {
                return Err(RegistrationError::Collision {
                    route: format!("{} {}", route.method, route.path),
                    first: format!("{who}, its `{}` route", own.handler),
                    second: format!("{who}, its `{}` route", route.handler),
                });
            }
            if let Some(existing) = self.routes.iter().find(|r| route_key(r.method, &r.path) == key) {
                let first = self
                    .registrations
                    .iter()
                    .find(|r| r.name == existing.owner)
                    .map_or(existing.owner.clone(), |r| format!("{} ({})", r.name, r.origin));
                return Err(RegistrationError::Collision {
                    route: format!("{} {}", route.method, route.path),
                    first,
                    second: who.to_string(),
                });
            }
        }
        Ok(())
    }

    fn check_operation_ids(&self, routes: &[RouteInfo]) -> Result<(), RegistrationError> {
        let who = |r: &RouteInfo| format!("{} {} {}", r.owner, r.method, r.path);
        for (i, route) in routes.iter().enumerate() {
            let Some(id) = &route.operation_id else { continue };
            if let Some(first) = self.routes.iter().chain(&routes[..i]).find(|r| r.operation_id.as_ref() == Some(id)) {
                return Err(RegistrationError::OperationCollision {
                    operation: id.clone(),
                    first: who(first),
                    second: who(route),
                });
            }
        }
        Ok(())
    }

    /// Adds a hand-written route with its documentation; it owns its authentication, authorization, validation
    /// and transactions.
    pub fn route(
        &mut self,
        method: HttpMethod,
        path: &str,
        handler: MethodRouter<ServiceState>,
        summary: &str,
    ) -> Result<&mut Self, RegistrationError> {
        let name = method_name(&method);
        let (owner, path) = ("manual".to_string(), path.to_string());
        let info = RouteInfo { method: name, path: path.clone(), owner, handler: summary.into(), operation_id: None };
        self.check_collisions(std::slice::from_ref(&info), &format!("manual route {name} {path}"))?;
        self.routes.push(info);
        self.manual_paths.paths.insert(path.clone(), crate::openapi::manual_path_item(method, summary));
        self.router = std::mem::take(&mut self.router).route(&path, handler);
        Ok(self)
    }

    /// The names of the registered ViewSets, in registration order.
    pub fn viewsets(&self) -> Vec<&'static str> {
        self.registrations.iter().map(|r| r.name).collect()
    }

    /// Every registered route.
    pub fn routes(&self) -> &[RouteInfo] {
        &self.routes
    }

    /// The AI tools of the registered ViewSets ([`tools_of`]), in registration order; names are unique.
    pub fn tools(&self) -> &[ToolInfo] {
        &self.tools
    }

    /// The OpenAPI 3.1 document of every registered route.
    pub fn openapi(&self, title: &str, version: &str) -> OpenApi {
        crate::openapi::document(
            self.registrations.iter().map(|r| r.described),
            self.manual_paths.clone(),
            title,
            version,
        )
    }

    /// The routes, without documentation endpoints; any other path is a JSON 404 that names the registered path
    /// differing only by the trailing slash, if there is one (see [`crate::registration::slash_twin`]).
    pub fn into_router(self) -> Router<ServiceState> {
        let fallback = fallback::among(self.routes.iter().map(|r| r.path.clone()).collect());
        self.routes_and_actions().fallback(fallback)
    }

    /// The generated routes (their embedders filled in) merged with the actions (under the embedders extension).
    fn routes_and_actions(self) -> Router<ServiceState> {
        let embedders = std::sync::Arc::new(self.embedders);
        self.shared_embedders.fill(embedders.clone());
        self.router.merge(self.actions.layer(axum::Extension(embedders)))
    }

    /// The routes plus `GET /openapi.json` and an interactive documentation page at `/docs` whose assets are all
    /// served by the application (no internet access needed). Needs the `docs` feature (on by default).
    #[cfg(feature = "docs")]
    pub fn into_router_with_docs(self, title: &str, version: &str) -> Router<ServiceState> {
        let registered = self.registrations.iter().map(|r| r.described).collect();
        let docs = crate::openapi::docs_router(registered, self.manual_paths.clone(), title, version);
        let fallback = fallback::among(self.routes.iter().map(|r| r.path.clone()).collect());
        self.routes_and_actions().merge(docs).fallback(fallback)
    }
}

fn method_name(method: &HttpMethod) -> &'static str {
    match method {
        HttpMethod::Get => "GET",
        HttpMethod::Post => "POST",
        HttpMethod::Put => "PUT",
        HttpMethod::Delete => "DELETE",
        HttpMethod::Options => "OPTIONS",
        HttpMethod::Head => "HEAD",
        HttpMethod::Patch => "PATCH",
        HttpMethod::Trace => "TRACE",
    }
}

/// The routes `include_viewset::<V>` registers.
pub fn routes_of<V: Hooks>() -> Vec<RouteInfo> {
    routes(&paths::Named::of::<V>())
}

/// [`routes_of`] past its generic part.
fn routes(named: &paths::Named) -> Vec<RouteInfo> {
    let base = crate::contract::paths::base(&named.prefix);
    let (owner, basename) = (named.config.name.to_string(), &named.basename);
    let route = |method: &'static str, path: String, handler: &str, methods: usize| RouteInfo {
        method,
        path,
        owner: owner.clone(),
        handler: handler.to_string(),
        operation_id: Some(paths::operation_id(basename, handler, method, methods)),
    };
    let mut routes = vec![
        route("GET", paths::collection(base), "list", 1),
        route("POST", paths::collection(base), "create", 1),
        route("GET", paths::detail(base), "retrieve", 1),
        route("PATCH", paths::detail(base), "update", 1),
        route("DELETE", paths::detail(base), "delete", 1),
    ];
    let bulk = named.config.bulk;
    for (declared, method, handler) in [
        (bulk.create, "POST", "create_many"),
        (bulk.update, "PATCH", "update_many"),
        (bulk.delete, "DELETE", "delete_many"),
    ] {
        if declared {
            routes.push(route(method, paths::bulk(base), handler, 1));
        }
    }
    if !bulk.upsert_keys.is_empty() {
        routes.push(route("POST", paths::upsert(base), "upsert", 1));
    }
    if named.config.stream_enabled {
        routes.push(route("GET", paths::stream(base), "stream", 1));
    }
    if named.config.aggregates.is_some() {
        routes.push(route("GET", paths::aggregate(base), "aggregate", 1));
    }
    for action in &named.actions {
        let path = paths::action(base, action.detail, action.path);
        for method in action.methods {
            routes.push(route(method, path.clone(), action.name, action.methods.len()));
        }
    }
    routes
}
