//! Tenant-scoped projects with an object permission and actions, and owner-private notes.

use std::any::Any;

use axum::Json;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, EntityTrait, IntoActiveModel, QueryFilter, QueryOrder, Select, Set,
};
use viewset_core::Permission;
use viewset_core::access::required_condition;
use viewset_core::prelude::*;
use viewset_core::query::Filters;

use crate::entities::{note, project};

/// Anyone in the tenant reads; only the project's owner (or staff) changes it.
#[derive(Debug, Clone, Copy)]
pub struct OwnerCanWrite;

impl Permission for OwnerCanWrite {
    fn has_permission(&self, _: &RequestContext) -> bool {
        true
    }
    fn has_object_permission(&self, request: &RequestContext, object: &dyn Any) -> bool {
        let Some(project) = object.downcast_ref::<project::Model>() else { return false };
        request.operation().is_safe()
            || request.principal.is_staff
            || request.principal.user_id.as_deref() == Some(project.owner.as_str())
    }
    fn message(&self) -> &str {
        "Only the project's owner may change it."
    }
}

/// Projects at `/api/projects`, scoped to the caller's tenant; bulk create/delete and upsert by `code` stay inside it
/// (every row is stamped with the caller's tenant; a code held in another tenant is a 404).
#[derive(ModelViewSet)]
#[viewset(
    model = project::Entity,
    prefix = "/api/projects",
    tenant_field = "tenant_id",
    permission_classes = [IsAuthenticated, OwnerCanWrite],
    filter_backends = [ServiceFilterBackend, SearchFilter, OrderingFilter],
    filterable_fields = ["name", "archived", "owner"],
    search_fields = ["name"],
    ordering_fields = ["id", "name"],
    ordering = "id",
    bulk,
    upsert_keys = ["code"],
    custom_hooks,
    aggregates(group_by = ["owner", "archived"], count_distinct = ["owner"]),
)]
pub struct ProjectViewSet;

impl Hooks for ProjectViewSet {
    /// The creator owns the project.
    fn before_create(request: &RequestContext, model: &mut project::ActiveModel) -> Result<(), ApiError> {
        model.owner = Set(request.principal.user_id.clone().unwrap_or_default());
        Ok(())
    }
}

#[viewset_core::actions]
impl ProjectViewSet {
    /// `POST /api/projects/{pk}/archive`: fetched through the tenant policy; `OwnerCanWrite` checks the object.
    #[action(detail, methods = ["POST"])]
    async fn archive(request: RequestContext, project: project::Model) -> Result<Json<project::Model>, ApiError> {
        let mut active = project.into_active_model();
        active.archived = Set(true);
        Ok(Json(active.update(&request.db).await?))
    }

    /// `GET /api/projects/mine`: the caller's own projects. A collection action owns its query scope, so it applies
    /// the ViewSet's required condition (the tenant) itself.
    #[action]
    async fn mine(request: RequestContext) -> Result<Json<Vec<project::Model>>, ApiError> {
        let user = request.principal.user_id.clone().unwrap_or_default();
        let mut select = project::Entity::find().filter(project::Column::Owner.eq(user));
        if let Some(required) = required_condition::<Self>(&request)? {
            select = select.filter(required);
        }
        Ok(Json(select.order_by_asc(project::Column::Id).all(&request.db).await?))
    }
}

/// Notes at `/api/notes`, private to their owner: `get_queryset` narrows to the caller's rows, which scopes detail
/// routes too (a guessed id is a 404).
#[derive(ModelViewSet)]
#[viewset(
    model = note::Entity,
    prefix = "/api/notes",
    permission_classes = [IsAuthenticated],
    custom_hooks,
    aggregates(group_by = ["owner"])
)]
pub struct NoteViewSet;

impl Hooks for NoteViewSet {
    fn get_queryset(request: &RequestContext, filters: &Filters) -> Result<Select<note::Entity>, ApiError> {
        let owner = request.principal.user_id.clone().unwrap_or_default();
        let mine = Condition::all().add(note::Column::Owner.eq(owner));
        Ok(viewset_core::viewset::base_queryset::<Self>(request, filters)?.filter(mine))
    }

    fn before_create(request: &RequestContext, model: &mut note::ActiveModel) -> Result<(), ApiError> {
        model.owner = Set(request.principal.user_id.clone().unwrap_or_default());
        Ok(())
    }
}
