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

//!
//! ## The crate's map
//!
//! | module | concept |
//! |---|---|
//! | [`viewset`] | the [`ViewSet`] trait, its [`Config`], the overridable [`Hooks`] and their default handlers |
//! | [`access`] | the one access path: admission, scoped queries, visible records; principals, permissions, row policies, field visibility |
//! | [`query`] | query parameters, filters and their lookups, search, ordering, typed values |
//! | [`pagination`] | paginators and the page they produce |
//! | [`aggregate`] | `GET <prefix>/aggregate`: counts, sums, averages and time buckets per group, over the list's rows |
//! | [`schema`] | create, update and read representations; JSON bodies |
//! | [`actions`](mod@actions) | custom routes of `#[viewset_core::actions]` |
//! | [`events`] | record lifecycle events and their stream |
//! | [`idempotency`] | safe retries of creates and updates (`Idempotency-Key`), and the migration of its table |
//! | [`registration`] | routers, the [`Api`] registry, discovery, route paths |
//! | [`openapi`] | the OpenAPI document |
//! | [`request`], [`error`] | the request context and state, the error type |
//! | [`store`] | connecting with the measured pool policy, recording statements, a statement's plan |
//! | [`throttle`] | rate limits per caller: rates, declared throttles, buckets in process or in Redis |
//! | [`embed`] | `?expand=`: embedding related records through their own ViewSets' access path |
//! | [`limits`] | body, URI and header sizes, request timeout; JSON for every transport error |
//! | `webhooks` (feature `webhooks`) | signed webhooks (Standard Webhooks) delivered at least once from the event bus, as a principal, with retries, dead letters and a log |
//! | `metrics` (feature `metrics`) | Prometheus metrics of requests, statements, pools and events, and the route that serves them |
//! | `trace` (feature `otel`) | OpenTelemetry traces over OTLP: the request, admission, SQL and event spans, the incoming `traceparent` |
//! | [`auth`], [`password`], [`session`] | helpers the application calls (no route or middleware is installed by them): a bearer or cookie [`auth::Authenticate`] layer, Argon2id password hashes, signed expiring session tokens |
//!
//! The root re-exports the central types; [`prelude`] has everything a typical application names. Enums and
//! structs that will grow (`ApiError`, `Operation`, `RequestContext`, …) are `#[non_exhaustive]`; what only the
//! derive's generated code names is in the hidden `__private` module and is not a stable API.

#![deny(missing_docs)]
// docs.rs (`--cfg docsrs`, Cargo.toml): each item labelled with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod access;
pub mod actions;
pub mod aggregate;
pub mod auth;
pub mod embed;
pub mod error;
pub mod events;
pub mod guide;
pub mod idempotency;
pub mod limits;
#[cfg(feature = "metrics")]
pub mod metrics;
pub mod openapi;
pub mod pagination;
pub mod password;
pub mod query;
pub mod registration;
pub mod request;
pub mod schema;
pub mod session;
pub mod store;
pub mod throttle;
#[cfg(feature = "otel")]
pub mod trace;
pub mod viewset;
#[cfg(feature = "webhooks")]
pub mod webhooks;

pub use access::{Operation, Permission, Principal, RowPolicy};
pub use error::ApiError;
pub use registration::{Api, include_viewset};
pub use request::{RequestContext, ServiceState};
pub use schema::ModelSchema;
pub use store::connect;
pub use viewset::{Config, Hooks, ModelOf, ViewSet};
pub use viewset_derive::{ModelSchema, ModelViewSet, actions};

#[cfg(test)]
mod test_entity;

mod boxed;
pub(crate) mod measure;
pub(crate) mod memo;

// The floors below the public modules, crate-private: the public modules hand their names on (ARCHITECTURE.md).
mod bus;
mod contract;
mod handlers;
mod types;

/// The README's Rust snippets, compiled as doc tests (the guide's compile as the docs of [`guide`]).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// Everything an application needs to declare and mount ViewSets.
pub mod prelude {
    pub use crate::access::{
        AllowAny, HasScope, IsAdminUser, IsAuthenticated, IsAuthenticatedOrReadOnly, Operation, OperationPermission,
        Permission, PermissionExt, Principal, RowPolicy,
    };
    pub use crate::actions::JsonBody;
    pub use crate::auth::Authenticate;
    pub use crate::error::ApiError;
    pub use crate::limits::Limits;
    pub use crate::pagination::{CursorPagination, LimitOffsetPagination, PageNumberPagination};
    pub use crate::password::{hash_password, verify_password};
    pub use crate::query::{
        DjangoFilterBackend, Filters, FullTextSearchFilter, OrderingFilter, SearchFilter, ServiceFilterBackend,
    };
    pub use crate::registration::{Api, include_viewset};
    pub use crate::request::{RequestContext, ServiceState};
    pub use crate::session::SessionSigner;
    pub use crate::store::connect;
    pub use crate::viewset::{Hooks, ViewSet};
    pub use crate::{ModelSchema, ModelViewSet};
}

/// Items the derives' generated code names: the derive's stable facade over this crate. Not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::access::{Lookup, Permission, Principal, RowPolicy, parse_lookup};
    pub use crate::actions::{
        ActionInfo, ActionRoutes, JsonBody, NoActions, Probe, SchemaProbe, ViaModelSchema, ViaNothing, ViaToSchema,
        action_object, admit_action, enter_action, inherited,
    };
    pub use crate::aggregate::Aggregates;
    pub use crate::contract::paths::{action as action_route, base as route_base};
    pub use crate::embed::Expandable;
    pub use crate::error::{ApiError, FieldErrors, InputError};
    pub use crate::openapi::FieldSchema;
    pub use crate::pagination::{CountMode, LimitOffsetPagination};
    pub use crate::query::{FilterBackend, FullText, ListQuery, RelatedField, column_type_of, is_reserved_query_name};
    pub use crate::registration::discovery::resolve_module;
    pub use crate::registration::routes::{method_not_allowed, respond};
    pub use crate::registration::{Api, ViewSetEntry};
    pub use crate::request::{RequestContext, ServiceState};
    pub use crate::schema::checks::{assert_numeric_type, assert_ordered_type, assert_text_type, schema_of};
    pub use crate::schema::names::{FieldAt, Gate, Resolved, known_field, name_hash, unique_field};
    pub use crate::schema::rows::{decode_in_order, nullable};
    pub use crate::schema::{CreateSchema, FieldInfo, ModelSchema, Patch, ReadSchema, UpdateSchema, free_form_schema};
    pub use crate::viewset::{Bulk, Config, Direction, Hooks, Nested, OrderingFields, ViewSet};
    /// `throttle(...)` and `#[action(throttle = "...")]`.
    pub mod throttle {
        pub use crate::throttle::{Period, Rate, Throttles};
    }
    pub use axum;
    pub use inventory;
    pub use sea_orm::{ActiveModelTrait, EntityTrait, ModelTrait, Related, RelationTrait, Set, Value};
    pub use sea_orm::{DbErr, QueryResult};
    pub use serde;
    pub use utoipa;
}
