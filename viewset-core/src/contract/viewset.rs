//! The contract between a ViewSet and the framework: the [`ViewSet`] trait `#[derive(ModelViewSet)]` implements, and
//! the description of its custom actions. Everything that runs a ViewSet (access, queries, pages, handlers) is
//! generic over this trait and sits above it.

use sea_orm::{ActiveModelBehavior, ActiveModelTrait, EntityTrait, IntoActiveModel, Value};
use serde::Serialize;

use crate::contract::config::Config;
use crate::contract::paginator::Paginator;
use crate::contract::permission::Permission;
use crate::contract::policy::RowPolicy;
use crate::error::ApiError;
use crate::request::{RequestContext, ServiceState};
use crate::schema::{CreateSchema, ReadSchema, UpdateSchema};
use crate::types::list_query::ListQuery;

/// The model type of a ViewSet.
pub type ModelOf<V> = <<V as ViewSet>::Entity as EntityTrait>::Model;

/// A ViewSet: a model plus its configuration. Implemented by `#[derive(ModelViewSet)]`, whose attributes are:
///
#[doc = include_str!("../../docs/attributes.md")]
pub trait ViewSet: Send + Sync + Sized + 'static {
    /// The sea-orm entity.
    type Entity: EntityTrait<
            Model: Serialize + Send + Sync + IntoActiveModel<<Self::Entity as EntityTrait>::ActiveModel>,
            ActiveModel: ActiveModelBehavior + ActiveModelTrait<Entity = Self::Entity> + Send,
        >;
    /// The create body.
    type Create: CreateSchema<Self::Entity>;
    /// The PATCH body.
    type Update: UpdateSchema<Self::Entity>;
    /// The representation in lists.
    type ListItem: ReadSchema<ModelOf<Self>>;
    /// The representation of one record.
    type Detail: ReadSchema<ModelOf<Self>>;
    /// The pagination class.
    type Pagination: Paginator;
    /// The configuration.
    const CONFIG: Config;

    /// Parses a detail identifier into the lookup field's type (400 when it cannot be).
    fn lookup_value(raw: &str) -> Result<Value, ApiError>;
    /// Visits `permission_classes` in order; stops at the first error `visit` returns.
    fn permission_classes(visit: &mut dyn FnMut(&dyn Permission) -> Result<(), ApiError>) -> Result<(), ApiError>;

    /// Visits the `policy = [...]` row policies in order.
    fn row_policies(visit: &mut dyn FnMut(&dyn RowPolicy) -> Result<(), ApiError>) -> Result<(), ApiError>;

    /// Runs `filter_backends` in order.
    fn filter_queryset(
        query: ListQuery<Self::Entity>,
        request: &RequestContext,
    ) -> Result<ListQuery<Self::Entity>, ApiError>;

    /// Registers the custom actions of `#[viewset_core::actions]`, if any (generated).
    fn register_actions<S>(router: axum::Router<S>) -> axum::Router<S>
    where
        S: Clone + Send + Sync + 'static,
        ServiceState: axum::extract::FromRef<S>;

    /// OpenAPI schema of the lookup field (the `{pk}` parameter).
    fn lookup_schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>;
    /// OpenAPI schema of a list item.
    fn list_item_schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>;
    /// OpenAPI schema of a retrieved record.
    fn detail_schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>;
    /// The custom actions of `#[viewset_core::actions]` (generated).
    fn actions() -> Vec<ActionInfo>;

    /// A page's rows as models: by column name (sea-orm's `FromQueryResult`); the derive decodes by position when
    /// the rows hold the entity's columns in order ([`crate::schema::rows::decode_in_order`]).
    fn decode_rows(rows: &[sea_orm::QueryResult]) -> Result<Vec<ModelOf<Self>>, sea_orm::DbErr> {
        crate::schema::rows::decode_by_name(rows)
    }

    /// The public prefix: `prefix`, or `/` + the table name when it is empty.
    fn prefix() -> String {
        if Self::CONFIG.prefix.is_empty() {
            format!("/{}", sea_orm::EntityName::table_name(&Self::Entity::default()))
        } else {
            Self::CONFIG.prefix.to_string()
        }
    }

    /// What the names of the operations start with: `basename`, or the table name when it is empty
    /// ([`crate::registration::operation_id`]).
    fn basename() -> String {
        if Self::CONFIG.basename.is_empty() {
            sea_orm::EntityName::table_name(&Self::Entity::default()).to_string()
        } else {
            Self::CONFIG.basename.to_string()
        }
    }
}

/// What an action is, for documentation and route-collision checks.
#[derive(Debug, Clone, Copy)]
pub struct ActionInfo {
    /// The method's name.
    pub name: &'static str,
    /// A detail action (`<prefix>/{pk}/<path>`).
    pub detail: bool,
    /// HTTP methods, upper case.
    pub methods: &'static [&'static str],
    /// Path after the prefix (and `{pk}`).
    pub path: &'static str,
    /// The method's doc comment.
    pub doc: &'static str,
    /// Schema of its JSON body (`JsonBody<T>` or `Json<T>` parameter), if any.
    pub request_schema: Option<fn() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>>,
    /// Schema of its JSON response (`Json<R>` or `Result<Json<R>, _>`), if it can be told.
    pub response_schema: Option<fn() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>>,
    /// Whether the action is an AI tool (`#[action(ai_exposed = false)]` removes it; the ViewSet's own
    /// `ai_exposed = false` removes all of its tools).
    pub ai_exposed: bool,
}
