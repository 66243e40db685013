//! The default bodies of the bulk writes (`#[viewset(bulk)]`): many records created, updated or deleted in one
//! request, in one transaction, all or none. Each created row passes what a single create checks
//! ([`crate::handlers::crud::create`]: validation, storable values, the tenant stamped, [`Hooks::before_create`]); each
//! updated or deleted record passes what a single PATCH or delete checks (the caller's scope, then the object
//! permissions; for an update, validation and storable values, and the model's save hooks as the write runs them).
//! One event per record (per changed record, for an update) is published once the transaction is committed. The
//! statements are the store's: one multi-row `INSERT … RETURNING` or `DELETE … IN (…)` per chunk
//! ([`crate::store::rows_per_statement`]); an update reads its records in one locked `SELECT … IN (…)` per chunk,
//! then writes each row with its own `UPDATE … RETURNING` (the rows set different values), inside the same
//! transaction.

// `async move` blocks on purpose (see `handlers.rs`).
#![allow(clippy::manual_async_fn)]

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::access;
use crate::bus::event::{Action, ChangeEvent};
use crate::contract::committed::Committed;
use crate::contract::hooks::Hooks;
use crate::contract::lookup::Lookup;
use crate::error::{ApiError, InputError};
use crate::handlers::after::{after_commit, hooked};
use crate::handlers::crud::{creatable, write_update};
use crate::request::RequestContext;
use crate::schema::{ReadSchema, UpdateSchema};
use crate::store::run::On;
use crate::store::writing::Writing;

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
        let mut writing = Writing::within(crate::store::begin_immediate::<V>(&request.db).await?);
        let models = crate::store::insert_many::<V>(writing.txn(), rows).await?;
        for model in &models {
            writing.publish(ChangeEvent::of::<V>(Action::Created, model));
        }
        writing.commit::<V>(&request.events).await?;
        if hooked::<V>() {
            after_commit::<V>(&request, models.iter().cloned().map(Committed::Created).collect());
        }
        let left_out = request.left_out();
        let mut body = Vec::with_capacity(models.len());
        for model in models {
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
        let mut writing = Writing::within(access::begin_locking::<V>(&request).await?);
        let models = access::fetch_visible_many_locked::<V>(&request, &keys, writing.txn()).await?;
        let events: Vec<ChangeEvent> =
            models.iter().map(|model| ChangeEvent::of::<V>(Action::Deleted, model)).collect();
        let ids: Vec<serde_json::Value> = events.iter().map(|event| json!(event.pk)).collect();
        let values = keys.into_iter().map(|key| key.value).collect();
        let last: Vec<_> =
            if hooked::<V>() { models.iter().cloned().map(Committed::Deleted).collect() } else { Vec::new() };
        crate::store::delete_many::<V>(writing.txn(), models, values).await?;
        for event in events {
            writing.publish(event);
        }
        writing.commit::<V>(&request.events).await?;
        after_commit::<V>(&request, last);
        Ok(Json(json!({"deleted": ids.len(), "ids": ids})).into_response())
    }
}

/// Default `update_many`: in one transaction, the records the rows name (`(key, partial record)`, each key once)
/// read with their rows locked through the caller's scope (a key this caller may not see: 404 naming the row's
/// index and key, nothing written) and the object permissions (403), then each row validated and written as a single
/// PATCH writes it (only the sent columns; the input errors of every row in one 422, each at
/// `["body", "<index>", ...]`). One `UPDATE … RETURNING` per row that sends a field, in the one transaction; 200
/// with the records (their detail representation, without the fields hidden from this caller) in request order, and
/// one `updated` event per record a row changed.
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
/// #[viewset(model = post::Entity, bulk(update), custom_hooks)]
/// pub struct Posts;
///
/// impl Hooks for Posts {
///     /// Log which records, then the default.
///     fn update_many(
///         rows: Vec<(Lookup, <Self as ViewSet>::Update)>,
///         request: RequestContext,
///     ) -> impl Future<Output = Result<Response, ApiError>> + Send {
///         let keys: Vec<String> = rows.iter().map(|(key, _)| key.raw.clone()).collect();
///         tracing::info!(?keys, "bulk update");
///         viewset_core::viewset::bulk::update_many::<Self>(rows, request)
///     }
/// }
/// assert!(<Posts as ViewSet>::CONFIG.bulk.update);
/// ```
pub fn update_many<V: Hooks>(
    rows: Vec<(Lookup, V::Update)>,
    request: RequestContext,
) -> impl Future<Output = Result<Response, ApiError>> + Send {
    async move {
        let (keys, data): (Vec<Lookup>, Vec<V::Update>) = rows.into_iter().unzip();
        let mut writing = Writing::within(access::begin_locking::<V>(&request).await?);
        let models =
            access::fetch_visible_many_locked::<V>(&request, &keys, writing.txn()).await.map_err(|e| match e {
                ApiError::NotFoundKey(key) => match keys.iter().position(|k| k.raw == key) {
                    Some(index) => ApiError::NotFoundRow { index, key },
                    None => ApiError::NotFoundKey(key),
                },
                other => other,
            })?;
        // Every row's validation errors first, so that one answer names them all; then the writes.
        let mut errors = Vec::new();
        for (index, data) in data.iter().enumerate() {
            if let Err(found) = data.validate() {
                errors.extend(found.0.into_iter().map(|e| at_row(index, e)));
            }
        }
        if !errors.is_empty() {
            return Err(ApiError::Input(errors));
        }
        let mut written = Vec::with_capacity(models.len());
        let mut previous = Vec::new();
        for (index, (model, data)) in models.into_iter().zip(data).enumerate() {
            if hooked::<V>() {
                previous.push(model.clone());
            }
            match write_update::<V>(On::Txn(writing.txn()), model, data).await {
                Ok(done) => written.push(done),
                Err(ApiError::Input(found)) => errors.extend(found.into_iter().map(|e| at_row(index, e))),
                Err(other) => return Err(other),
            }
        }
        if !errors.is_empty() {
            return Err(ApiError::Input(errors));
        }
        for (model, _) in written.iter().filter(|(_, changed)| *changed) {
            writing.publish(ChangeEvent::of::<V>(Action::Updated, model));
        }
        writing.commit::<V>(&request.events).await?;
        let mut changes = Vec::with_capacity(previous.len());
        for (previous, (record, changed)) in previous.into_iter().zip(&written) {
            if *changed {
                changes.push(Committed::Updated { previous, record: record.clone() });
            }
        }
        after_commit::<V>(&request, changes);
        let left_out = request.left_out();
        let mut body = Vec::with_capacity(written.len());
        for (model, _) in written {
            body.push(access::visible(&<V::Detail as ReadSchema<_>>::from_model(model), &left_out));
        }
        Ok(Json(body).into_response())
    }
}
