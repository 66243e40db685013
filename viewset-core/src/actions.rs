//! Custom actions: `#[viewset_core::actions]` on an `impl` block turns methods marked `#[action(...)]` into routes.
//!
//! ```
//! # mod post { use sea_orm::entity::prelude::*;
//! #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
//! #   #[sea_orm(table_name = "posts")]
//! #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub published: bool }
//! #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
//! #   impl ActiveModelBehavior for ActiveModel {} }
//! use axum::Json;
//! use viewset_core::prelude::*;
//!
//! #[derive(ModelViewSet)]
//! #[viewset(model = post::Entity, prefix = "/api/posts")]
//! pub struct PostViewSet;
//!
//! #[viewset_core::actions]
//! impl PostViewSet {
//!     /// `POST /api/posts/{pk}/publish`: fetched through the policy, object permissions checked first.
//!     #[action(detail, methods = ["POST"], permission_classes = [IsAuthenticated])]
//!     async fn publish(request: RequestContext, post: post::Model) -> Result<Json<post::Model>, ApiError> {
//!         let _ = request;
//!         Ok(Json(post))
//!     }
//!
//!     /// `GET /api/posts/stats`: inherits the ViewSet's permissions.
//!     #[action]
//!     async fn stats(request: RequestContext) -> Json<serde_json::Value> {
//!         let _ = request;
//!         Json(serde_json::json!({"ok": true}))
//!     }
//! }
//! ```
//!
//! Options of `#[action(...)]`: `detail` (route `<prefix>/{pk}/<path>`, the record is fetched and passed in;
//! otherwise `<prefix>/<path>`), `methods` (default `["GET"]`), `path` (default: the method's name),
//! `permission_classes` (replaces the ViewSet's list; absent inherits it). Parameters after `request` (and the
//! record) are axum extractors; use [`JsonBody`] for a body with this crate's 422 errors. The action owns its query
//! scope beyond the fetched record, its field policy, payload checks and transactions.

use std::marker::PhantomData;

use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequest, Path, Request};
use axum::http::Method;
use serde::de::DeserializeOwned;

use crate::access::{self, PermissionList};
use crate::contract::hooks::Hooks;
use crate::contract::lookup::Lookup;
pub use crate::contract::viewset::ActionInfo;
use crate::contract::viewset::{ModelOf, ViewSet};
use crate::error::ApiError;
use crate::request::{RequestContext, ServiceState};
use crate::schema::ModelSchema;
use crate::throttle::{Pass, Rate};
use crate::types::operation::Operation;

/// Admits an action's request through [`access::admit_with`] under its effective permission list.
pub fn admit_action<V: Hooks>(
    request: &mut RequestContext,
    name: &'static str,
    permissions: PermissionList,
) -> Result<(), ApiError> {
    let safe = matches!(request.method, Method::GET | Method::HEAD | Method::OPTIONS);
    access::admit_with::<V>(request, Operation::Action { name, safe }, permissions)
}

/// [`admit_action`], then the caller's rate limits for the action (the ViewSet's scope rate and the action's own
/// `#[action(throttle = "...")]`): what a generated action route runs first ([`access::enter`] for actions).
pub async fn enter_action<V: Hooks>(
    request: &mut RequestContext,
    name: &'static str,
    permissions: PermissionList,
    throttle: Option<Rate>,
) -> Result<Pass, ApiError> {
    admit_action::<V>(request, name, permissions)?;
    access::check_throttles::<V>(request, throttle).await
}

/// The record of a detail action: the `{pk}` segment, fetched through [`access::fetch_visible_with`] under the
/// action's effective permission list.
pub async fn action_object<V: Hooks>(
    path: Result<Path<String>, PathRejection>,
    request: &RequestContext,
    permissions: PermissionList,
) -> Result<ModelOf<V>, ApiError> {
    access::fetch_visible_with::<V>(request, &Lookup::from_path::<V>(path)?, permissions).await
}

/// A JSON body extractor whose rejections are this crate's 422 bodies (`{"detail": [{"loc": ["body", ...]}]}`),
/// and a 415 when the `Content-Type` is not JSON ([`crate::schema::require_json`]).
#[derive(Debug, Clone)]
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let headers = request.headers().clone();
        let bytes = axum::body::Bytes::from_request(request, state)
            .await
            .map_err(|e| ApiError::BodyRejected(e.status(), e.body_text()))?;
        crate::schema::require_json(&headers, &bytes)?;
        crate::schema::parse_json_body(&bytes).map(JsonBody)
    }
}

/// Selects a ViewSet's action routes at compile time: `#[viewset_core::actions]` implements [`ActionRoutes`] for
/// `Probe<YourViewSet>`; ViewSets without actions fall back to [`NoActions`] (autoref specialization).
pub struct Probe<V>(PhantomData<V>);

impl<V> Probe<V> {
    /// A probe.
    pub const fn new() -> Self {
        Probe(PhantomData)
    }
}

impl<V> Default for Probe<V> {
    fn default() -> Self {
        Probe::new()
    }
}

/// Finds the best schema of an action's body or response type at compile time: `utoipa::ToSchema` if the type
/// implements it, else the derived read schema of a `ModelSchema` model, else a free-form object (autoderef
/// specialization: call `(&&&SchemaProbe::<T>::new()).action_schema()`).
pub struct SchemaProbe<T>(PhantomData<T>);

impl<T> SchemaProbe<T> {
    /// A probe.
    pub const fn new() -> Self {
        SchemaProbe(PhantomData)
    }
}

impl<T> Default for SchemaProbe<T> {
    fn default() -> Self {
        SchemaProbe::new()
    }
}

type SchemaRef = utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>;

/// Types with their own OpenAPI schema.
pub trait ViaToSchema {
    /// The schema.
    fn action_schema(&self) -> SchemaRef;
}
impl<T: utoipa::ToSchema> ViaToSchema for &&SchemaProbe<T> {
    fn action_schema(&self) -> SchemaRef {
        T::schema()
    }
}

/// Models with a derived read schema.
pub trait ViaModelSchema {
    /// The schema.
    fn action_schema(&self) -> SchemaRef;
}
impl<T: ModelSchema> ViaModelSchema for &SchemaProbe<T> {
    fn action_schema(&self) -> SchemaRef {
        T::read_schema()
    }
}

/// Anything else: any JSON value (the type is not known, so the document claims nothing about it).
pub trait ViaNothing {
    /// The schema.
    fn action_schema(&self) -> SchemaRef;
}
impl<T> ViaNothing for SchemaProbe<T> {
    fn action_schema(&self) -> SchemaRef {
        utoipa::openapi::schema::ObjectBuilder::new().schema_type(utoipa::openapi::schema::SchemaType::AnyValue).into()
    }
}

/// Registers custom action routes. Generic over the ViewSet so that the application's crate may implement it for
/// `Probe<TheirViewSet>` (the orphan rule needs a local type among the trait's parameters).
pub trait ActionRoutes<V> {
    /// Adds the routes under `prefix`.
    fn register<S>(&self, router: axum::Router<S>, prefix: &str) -> axum::Router<S>
    where
        S: Clone + Send + Sync + 'static,
        ServiceState: axum::extract::FromRef<S>;
    /// The actions.
    fn describe(&self) -> Vec<ActionInfo>;
}

/// The fallback for ViewSets without actions.
pub trait NoActions {
    /// Adds nothing.
    fn register<S>(&self, router: axum::Router<S>, prefix: &str) -> axum::Router<S>
    where
        S: Clone + Send + Sync + 'static,
        ServiceState: axum::extract::FromRef<S>,
    {
        let _ = prefix;
        router
    }
    /// No actions.
    fn describe(&self) -> Vec<ActionInfo> {
        Vec::new()
    }
}

impl<V> NoActions for &Probe<V> {}

/// The ViewSet's own permission list, for actions that inherit it.
pub fn inherited<V: ViewSet>() -> PermissionList {
    V::permission_classes
}
