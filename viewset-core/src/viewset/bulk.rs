//! The default bodies of the bulk writes (`#[viewset(bulk)]`): many records created or deleted in one request, in
//! one transaction, all or none. Each created row passes what a single create checks ([`super::handlers::create`]:
//! validation, storable values, the tenant stamped, [`Hooks::before_create`]); each deleted record passes what a
//! single delete checks (the caller's scope, then the object permissions). One event per record is published once
//! the transaction is committed. The statements are the store's: one multi-row `INSERT … RETURNING` or
//! `DELETE … IN (…)` per chunk ([`crate::store::rows_per_statement`]).

// `async move` blocks on purpose (see `handlers.rs`).
#![allow(clippy::manual_async_fn)]

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::handlers::creatable;
use super::hooks::Hooks;
use crate::access;
use crate::access::lookup::Lookup;
use crate::error::{ApiError, InputError};
use crate::events::event::{Action, ChangeEvent};
use crate::events::publish;
use crate::request::RequestContext;
use crate::schema::ReadSchema;

/// Default `create_many`: every row checked as a single create checks it (the input errors of every row in one
/// 422, each located at `["body", "<index>", ...]`), then inserted in one transaction; 201 with the records (their
/// detail representation, without the fields hidden from this caller) in request order.
///
/// ```
/// # mod post { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
/// #   #[sea_orm(table_name = "posts")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub title: String }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// use axum::response::Response;
/// use viewset_core::prelude::*;
///
/// #[derive(ModelViewSet)]
/// #[viewset(model = post::Entity, bulk(create), max_bulk = 50, custom_hooks)]
/// pub struct Posts;
///
/// impl Hooks for Posts {
///     /// Log how many, then the default.
///     fn create_many(
///         data: Vec<<Self as ViewSet>::Create>,
///         request: RequestContext,
///     ) -> impl Future<Output = Result<Response, ApiError>> + Send {
///         tracing::info!(rows = data.len(), "bulk create");
///         viewset_core::viewset::bulk::create_many::<Self>(data, request)
///     }
/// }
/// assert_eq!(<Posts as ViewSet>::CONFIG.bulk.max, 50);
/// ```
pub fn create_many<V: Hooks>(
    data: Vec<V::Create>,
    request: RequestContext,
) -> impl Future<Output = Result<Response, ApiError>> + Send {
    async move {
        let mut rows = Vec::with_capacity(data.len());
        let mut errors = Vec::new();
        for (index, data) in data.into_iter().enumerate() {
            match creatable::<V>(&request, data) {
                Ok(active) => rows.push(active),
                Err(ApiError::Input(found)) => errors.extend(found.into_iter().map(|e| at_row(index, e))),
                Err(other) => return Err(other),
            }
        }
        if !errors.is_empty() {
            return Err(ApiError::Input(errors));
        }
        let txn = crate::store::begin_immediate::<V>(&request.db).await?;
        let models = crate::store::insert_many::<V>(&txn, rows).await?;
        crate::store::commit::<V>(txn).await?;
        let left_out = request.left_out();
        let mut body = Vec::with_capacity(models.len());
        for model in models {
            publish::<V>(&request, Action::Created, &model);
            body.push(access::visible(&<V::Detail as ReadSchema<_>>::from_model(model), &left_out));
        }
        Ok((StatusCode::CREATED, Json(body)).into_response())
    }
}

/// An input error of the row at `index` of a bulk body: `["body", "title"]` becomes `["body", "<index>", "title"]`.
///
/// ```
/// use viewset_core::error::InputError;
/// use viewset_core::viewset::bulk::at_row;
/// let located = at_row(3, InputError::new(["body", "title"], "Field required", "missing"));
/// assert_eq!(located.loc, ["body", "3", "title"]);
/// ```
pub fn at_row(index: usize, mut error: InputError) -> InputError {
    let at = usize::from(error.loc.first().is_some_and(|first| first == "body"));
    error.loc.insert(at, index.to_string());
    if at == 0 {
        error.loc.insert(0, "body".to_string());
    }
    error
}

/// Default `delete_many`: in one transaction, the records named by `keys` (each value once) read with their rows
/// locked through the caller's scope (a key this caller may not see: 404 naming it, nothing deleted) and the object
/// permissions (403), then deleted; 200 `{"deleted": <count>, "ids": [<primary keys>]}`. A record still referenced
/// by others is a 400 `foreign_key_violation`, as for a single delete, and nothing is deleted.
///
/// ```
/// # mod post { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
/// #   #[sea_orm(table_name = "posts")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub title: String }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// use axum::response::Response;
/// use viewset_core::access::Lookup;
/// use viewset_core::prelude::*;
///
/// #[derive(ModelViewSet)]
/// #[viewset(model = post::Entity, bulk(delete), custom_hooks)]
/// pub struct Posts;
///
/// impl Hooks for Posts {
///     /// Never more than ten at once, whatever `max_bulk` says.
///     fn delete_many(keys: Vec<Lookup>, request: RequestContext) -> impl Future<Output = Result<Response, ApiError>> + Send {
///         async move {
///             if keys.len() > 10 {
///                 return Err(ApiError::PermissionDenied("At most ten posts at once.".into()));
///             }
///             viewset_core::viewset::bulk::delete_many::<Self>(keys, request).await
///         }
///     }
/// }
/// ```
pub fn delete_many<V: Hooks>(
    keys: Vec<Lookup>,
    request: RequestContext,
) -> impl Future<Output = Result<Response, ApiError>> + Send {
    async move {
        let txn = access::begin_locking::<V>(&request).await?;
        let models = access::fetch_visible_many_locked::<V>(&request, &keys, &txn).await?;
        let events: Vec<ChangeEvent> =
            models.iter().map(|model| ChangeEvent::of::<V>(Action::Deleted, model)).collect();
        let values = keys.into_iter().map(|key| key.value).collect();
        crate::store::delete_many::<V>(&txn, models, values).await?;
        crate::store::commit::<V>(txn).await?;
        let ids: Vec<serde_json::Value> = events.iter().map(|event| json!(event.pk)).collect();
        for event in events {
            request.events.publish(event);
        }
        Ok(Json(json!({"deleted": ids.len(), "ids": ids})).into_response())
    }
}
