//! The overridable handlers and hooks of a ViewSet, with the spec's signatures.
//!
//! The contract does not name its default bodies: a default that needs the rest of the crate (the handlers, the
//! base query) calls [`Defaults`], which [`crate::handlers::crud`] implements for every ViewSet. So this file
//! stands below everything that runs a ViewSet, and an override is an ordinary trait method.

use std::future::Future;

use axum::response::Response;
use sea_orm::Select;

use crate::contract::committed::Committed;
use crate::contract::lookup::Lookup;
use crate::contract::viewset::{ModelOf, ViewSet};
use crate::error::ApiError;
use crate::request::RequestContext;
use crate::types::params::Filters;

/// Handlers and hooks. `#[derive(ModelViewSet)]` implements it with every default; with `custom_hooks` in the
/// attribute you implement it yourself and override what you need. A handler whose body you replace owns the
/// checks and persistence it used to perform (permissions run in the route before the handler is called).
///
/// ```
/// # mod post { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
/// #   #[sea_orm(table_name = "posts")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub published: bool }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// use sea_orm::{ColumnTrait, QueryFilter, Select};
/// use viewset_core::prelude::*;
/// use viewset_core::query::Filters;
///
/// #[derive(ModelViewSet)]
/// #[viewset(model = post::Entity, custom_hooks)]
/// pub struct PublishedPosts;
///
/// impl Hooks for PublishedPosts {
///     fn get_queryset(request: &RequestContext, filters: &Filters) -> Result<Select<post::Entity>, ApiError> {
///         // Start from the base query so required filters are kept, then narrow it.
///         let base = viewset_core::viewset::base_queryset::<Self>(request, filters)?;
///         Ok(base.filter(post::Column::Published.eq(true)))
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not implement `viewset_core::Hooks`",
    note = "if `#[derive(ModelViewSet)]` on `{Self}` reported errors, fix those first; otherwise `custom_hooks` asks you to write `impl viewset_core::Hooks for {Self} {{ ... }}` (or remove `custom_hooks` to use the default handlers)"
)]
pub trait Hooks: ViewSet {
    /// Fields the router accepts as exact-match query filters (default: every model field).
    fn get_filter_fields() -> Vec<&'static str> {
        crate::types::columns::column_names::<Self::Entity>()
    }

    /// Fields this caller may not see (default: `staff_only_fields` unless the principal is staff). Hidden fields
    /// are absent from responses, cannot be written, and are ignored for filtering, search and ordering.
    fn hidden_fields(request: &RequestContext) -> Vec<&'static str> {
        if request.principal.is_staff { Vec::new() } else { Self::CONFIG.staff_only_fields.to_vec() }
    }

    /// Builds (does not run) the base query of lists and detail lookups, with the router's `filters`.
    /// Required row policies (`tenant_field`, `policy`) are applied by the framework after this and after the filter
    /// backends, so an override cannot drop them.
    fn get_queryset(request: &RequestContext, filters: &Filters) -> Result<Select<Self::Entity>, ApiError> {
        <Self as Defaults>::get_queryset(request, filters)
    }

    /// Called by the default `create` on the row about to be inserted, after the tenant is stamped: set
    /// server-owned fields here (an owner, a slug). An error aborts the create.
    fn before_create(
        request: &RequestContext,
        model: &mut <Self::Entity as sea_orm::EntityTrait>::ActiveModel,
    ) -> Result<(), ApiError> {
        let _ = (request, model);
        Ok(())
    }

    /// Called after a write committed, once per row it created, updated (and changed) or deleted — single, bulk and
    /// upsert writes alike — and never for a write that rolled back. It runs in a task of its own once the
    /// transaction has committed: the answer does not wait for it, and neither its time nor a panic (logged under
    /// `viewset::after_commit`, the write stays committed) changes the answer, so a client never retries a write
    /// that happened. The rows of one write are handed over in order, one at a time. It is not durable: a process
    /// that stops between the commit and the hook loses the call (the event bus's outbox or a webhook is the
    /// durable path). Called only with `custom_hooks` (where it can be overridden); an `#[action]` that writes calls
    /// what it needs itself.
    ///
    /// ```
    /// # mod post { use sea_orm::entity::prelude::*;
    /// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
    /// #   #[sea_orm(table_name = "posts")]
    /// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub published: bool }
    /// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
    /// #   impl ActiveModelBehavior for ActiveModel {} }
    /// use viewset_core::prelude::*;
    /// use viewset_core::viewset::Committed;
    ///
    /// #[derive(ModelViewSet)]
    /// #[viewset(model = post::Entity, custom_hooks)]
    /// pub struct Posts;
    ///
    /// impl Hooks for Posts {
    ///     async fn after_commit(_: &RequestContext, change: Committed<post::Model>) {
    ///         if let Committed::Updated { previous, record } = &change
    ///             && !previous.published
    ///             && record.published
    ///         {
    ///             tracing::info!(post = record.id, "published: notify the subscribers");
    ///         }
    ///     }
    /// }
    /// ```
    fn after_commit(request: &RequestContext, change: Committed<ModelOf<Self>>) -> impl Future<Output = ()> + Send {
        let _ = (request, change);
        std::future::ready(())
    }

    /// Whether PATCH and DELETE require `If-Match` (428 `precondition_required` without it), so that lost updates
    /// cannot be sent by accident. Default: the ViewSet's `Config::require_if_match`, which
    /// `#[viewset(require_if_match)]` turns on (off when not written):
    ///
    /// ```
    /// # mod post { use sea_orm::entity::prelude::*;
    /// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
    /// #   #[sea_orm(table_name = "posts")]
    /// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub title: String }
    /// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
    /// #   impl ActiveModelBehavior for ActiveModel {} }
    /// use viewset_core::prelude::*;
    ///
    /// #[derive(ModelViewSet)]
    /// #[viewset(model = post::Entity, require_if_match)]
    /// pub struct Posts;
    ///
    /// assert!(Posts::require_if_match());
    /// ```
    ///
    /// An override (with `custom_hooks`) wins over the attribute:
    ///
    /// ```
    /// # mod post { use sea_orm::entity::prelude::*;
    /// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
    /// #   #[sea_orm(table_name = "posts")]
    /// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub title: String }
    /// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
    /// #   impl ActiveModelBehavior for ActiveModel {} }
    /// use viewset_core::prelude::*;
    ///
    /// #[derive(ModelViewSet)]
    /// #[viewset(model = post::Entity, require_if_match, custom_hooks)]
    /// pub struct Posts;
    ///
    /// impl Hooks for Posts {
    ///     fn require_if_match() -> bool {
    ///         false
    ///     }
    /// }
    /// assert!(<Posts as ViewSet>::CONFIG.require_if_match);
    /// assert!(!Posts::require_if_match());
    /// ```
    fn require_if_match() -> bool {
        Self::CONFIG.require_if_match
    }

    /// `GET <prefix>/`: one page of records.
    fn list(
        request: RequestContext,
        limit: u64,
        offset: u64,
        filters: Filters,
    ) -> impl Future<Output = Result<Response, ApiError>> + Send {
        <Self as Defaults>::list(request, limit, offset, filters)
    }

    /// `GET <prefix>/{pk}`: one record.
    fn retrieve(pk: Lookup, request: RequestContext) -> impl Future<Output = Result<Response, ApiError>> + Send {
        <Self as Defaults>::retrieve(pk, request)
    }

    /// `POST <prefix>/`: creates a record (201).
    fn create(data: Self::Create, request: RequestContext) -> impl Future<Output = Result<Response, ApiError>> + Send {
        <Self as Defaults>::create(data, request)
    }

    /// `PATCH <prefix>/{pk}`: writes only the sent fields.
    fn update(
        pk: Lookup,
        data: Self::Update,
        request: RequestContext,
    ) -> impl Future<Output = Result<Response, ApiError>> + Send {
        <Self as Defaults>::update(pk, data, request)
    }

    /// `DELETE <prefix>/{pk}`: deletes a record; 200 `{"deleted": true, "id": <pk>}`.
    fn delete(pk: Lookup, request: RequestContext) -> impl Future<Output = Result<Response, ApiError>> + Send {
        <Self as Defaults>::delete(pk, request)
    }

    /// `POST <prefix>/bulk` with a JSON array, when `#[viewset(bulk)]` (or `bulk(create)`) allows it: creates every
    /// record or none (201 with the records in request order). Each row passes what [`Hooks::create`]'s default
    /// checks, [`Hooks::before_create`] included; an overridden `create` is not called for them.
    fn create_many(
        data: Vec<Self::Create>,
        request: RequestContext,
    ) -> impl Future<Output = Result<Response, ApiError>> + Send {
        <Self as Defaults>::create_many(data, request)
    }

    /// `PATCH <prefix>/bulk` with a JSON array of partial records, each naming its record by the lookup field, when
    /// `#[viewset(bulk)]` (or `bulk(update)`) allows it: updates every named record or none (200 with the records in
    /// request order). `rows` are the keys (each once) and the PATCH bodies without the lookup field. Each row
    /// passes what [`Hooks::update`]'s default checks; an overridden `update` is not called for them.
    fn update_many(
        rows: Vec<(Lookup, Self::Update)>,
        request: RequestContext,
    ) -> impl Future<Output = Result<Response, ApiError>> + Send {
        <Self as Defaults>::update_many(rows, request)
    }

    /// `DELETE <prefix>/bulk?<lookup>__in=1,2,3`, when `#[viewset(bulk)]` (or `bulk(delete)`) allows it: deletes every
    /// named record or none; 200 `{"deleted": <count>, "ids": [...]}`.
    fn delete_many(
        keys: Vec<Lookup>,
        request: RequestContext,
    ) -> impl Future<Output = Result<Response, ApiError>> + Send {
        <Self as Defaults>::delete_many(keys, request)
    }
}

/// The default bodies of [`Hooks`] that need the rest of the crate, implemented for every ViewSet by
/// [`crate::handlers::crud`] (each method is the handler function of the same name).
#[doc(hidden)]
pub trait Defaults: ViewSet {
    /// [`crate::viewset::base_queryset`].
    fn get_queryset(request: &RequestContext, filters: &Filters) -> Result<Select<Self::Entity>, ApiError>;
    /// [`crate::handlers::crud::list`].
    fn list(
        request: RequestContext,
        limit: u64,
        offset: u64,
        filters: Filters,
    ) -> impl Future<Output = Result<Response, ApiError>> + Send;
    /// [`crate::handlers::crud::retrieve`].
    fn retrieve(pk: Lookup, request: RequestContext) -> impl Future<Output = Result<Response, ApiError>> + Send;
    /// [`crate::handlers::crud::create`].
    fn create(data: Self::Create, request: RequestContext) -> impl Future<Output = Result<Response, ApiError>> + Send;
    /// [`crate::handlers::crud::update`].
    fn update(
        pk: Lookup,
        data: Self::Update,
        request: RequestContext,
    ) -> impl Future<Output = Result<Response, ApiError>> + Send;
    /// [`crate::handlers::crud::delete`].
    fn delete(pk: Lookup, request: RequestContext) -> impl Future<Output = Result<Response, ApiError>> + Send;
    /// [`crate::handlers::bulk::create_many`].
    fn create_many(
        data: Vec<Self::Create>,
        request: RequestContext,
    ) -> impl Future<Output = Result<Response, ApiError>> + Send;
    /// [`crate::handlers::bulk::update_many`].
    fn update_many(
        rows: Vec<(Lookup, Self::Update)>,
        request: RequestContext,
    ) -> impl Future<Output = Result<Response, ApiError>> + Send;
    /// [`crate::handlers::bulk::delete_many`].
    fn delete_many(
        keys: Vec<Lookup>,
        request: RequestContext,
    ) -> impl Future<Output = Result<Response, ApiError>> + Send;
}
