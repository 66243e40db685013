//! # viewset-core
//!
//! The runtime of viewset: everything a `#[derive(ModelViewSet)]` expands into calls of. The derive emits a
//! [`ViewSet`] impl (configuration constants and a few thin functions); the handlers, query building,
//! pagination, permissions and errors are ordinary generic Rust in this crate.
//!
//! ```
//! use viewset_core::prelude::*;
//!
//! mod post {
//!     use sea_orm::entity::prelude::*;
//!     use serde::{Deserialize, Serialize};
//!     use viewset_core::ModelSchema;
//!
//!     #[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
//!     #[sea_orm(table_name = "posts")]
//!     pub struct Model {
//!         #[sea_orm(primary_key)]
//!         pub id: i32,
//!         pub title: String,
//!         #[sea_orm(default_value = 0)]
//!         pub views: i32,
//!     }
//!     #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
//!     pub enum Relation {}
//!     impl ActiveModelBehavior for ActiveModel {}
//! }
//!
//! #[derive(ModelViewSet)]
//! #[viewset(model = post::Entity, prefix = "/api/posts",
//!           filter_backends = [ServiceFilterBackend, SearchFilter, OrderingFilter],
//!           filterable_fields = ["views"], search_fields = ["title"],
//!           ordering_fields = ["id", "views"], ordering = "-id")]
//! pub struct PostViewSet;
//!
//! # async fn run(db: sea_orm::DatabaseConnection) {
//! let app: axum::Router = include_viewset::<PostViewSet, _>(axum::Router::new())
//!     .with_state(ServiceState::new(db));
//! # }
//! ```

mod actions;
mod api;
mod body;
mod checks;
mod columns;
mod composition;
mod config;
mod connect;
mod discovery;
mod error;
pub mod events;
mod filter;
mod handlers;
mod hooks;
mod list_query;
mod lookup;
mod openapi;
mod operation;
mod ordering;
mod pagination;
pub mod paths;
mod permission;
mod policy;
mod principal;
mod query_params;
mod request;
mod routes;
mod schema;
mod search;
mod settings;
mod text_match;
pub mod value;
mod viewset;
mod visibility;

pub use actions::{ActionInfo, JsonBody, PermissionList};
pub use api::{Api, RegistrationError, RouteInfo, routes_of};
pub use body::parse_json_body;
pub use composition::{And, Not, Or, PermissionExt};
pub use config::{Config, Direction, OrderingFields};
pub use connect::connect;
pub use discovery::{ViewSetEntry, include_all_app_viewsets, include_app_viewsets, viewsets_in};
pub use error::{ApiError, FieldErrors, InputError};
pub use events::{Action, ChangeEvent, EventBus, publish};
pub use filter::{DjangoFilterBackend, FilterBackend, Filters, ServiceFilterBackend};
pub use handlers::{base_queryset, detail, fetch, fetch_scoped};
pub use hooks::Hooks;
pub use list_query::{ListQuery, OrderTerm, OrderingState};
pub use lookup::Lookup;
pub use openapi::field_schema::FieldSchema;
pub use operation::Operation;
pub use ordering::OrderingFilter;
pub use pagination::{
    CursorPagination, LimitOffsetPagination, Page, PageBody, PageNumberPagination, PageQuery, Paginator, Window,
    count_rows, fetch_counted, fetch_rows, list_items,
};
pub use permission::{
    AllowAny, IsAdminUser, IsAuthenticated, IsAuthenticatedOrReadOnly, OperationPermission, Permission,
};
pub use policy::{RowPolicy, required_condition, stamp_tenant};
pub use principal::Principal;
pub use query_params::QueryParams;
pub use request::{RequestContext, ServiceState};
pub use routes::{admit, include_viewset};
pub use schema::{CreateSchema, FieldInfo, ModelSchema, Patch, ReadSchema, UpdateSchema, free_form_schema};
pub use search::SearchFilter;
pub use settings::Settings;
pub use viewset::{ModelOf, ViewSet};
pub use viewset_derive::{ModelSchema, ModelViewSet, actions};
pub use visibility::Items;

/// The README's Rust snippets, compiled as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// Everything an application needs to declare and mount ViewSets.
pub mod prelude {
    pub use crate::{
        AllowAny, ApiError, CursorPagination, DjangoFilterBackend, Hooks, IsAdminUser, IsAuthenticated,
        IsAuthenticatedOrReadOnly, LimitOffsetPagination, ModelSchema, ModelViewSet, OperationPermission,
        OrderingFilter, PageNumberPagination, Permission, PermissionExt, Principal, RequestContext, RowPolicy,
        SearchFilter, ServiceFilterBackend, ServiceState, ViewSet, include_viewset,
    };
}

/// Items the derives' generated code names. Not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::actions::{
        ActionRoutes, NoActions, Probe, SchemaProbe, ViaModelSchema, ViaNothing, ViaToSchema, action_object,
        admit_action, inherited,
    };
    pub use crate::checks::{assert_text_field, schema_of};
    pub use crate::discovery::resolve_module;
    pub use crate::lookup::parse_lookup;
    pub use crate::paths::{action as action_route, base as route_base};
    pub use crate::routes::{method_not_allowed, respond};
    pub use crate::{
        ActionInfo, ApiError, Config, CreateSchema, Direction, FieldErrors, FieldInfo, FieldSchema, FilterBackend,
        Hooks, LimitOffsetPagination, ListQuery, ModelSchema, OrderingFields, Patch, Permission, RequestContext,
        RowPolicy, ServiceState, UpdateSchema, ViewSet, ViewSetEntry, free_form_schema,
    };
    pub use axum;
    pub use inventory;
    pub use sea_orm::{ActiveModelTrait, EntityTrait, ModelTrait, Set, Value};
    pub use serde;
    pub use utoipa;
}
