//! The default bodies of the handlers, as plain generic functions. Each can be called from an override; each
//! decides access through [`crate::access`] (the route has already called [`access::admit`]). Those that take the
//! request by value return an `async move` block rather than being `async fn`s: an `async fn` keeps its arguments
//! twice in its future (rust-lang/rust#62958), and a `RequestContext` is 608 bytes.

// `async move` blocks on purpose (see above): clippy's `manual_async_fn` would turn them back into `async fn`s.
#![allow(clippy::manual_async_fn)]

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use sea_orm::{EntityTrait, IntoActiveModel, Select};
use serde_json::json;

use crate::access;
use crate::access::required::stamp_tenant;
use crate::bus::event::{Action, ChangeEvent};
use crate::contract::committed::Committed;
use crate::contract::hooks::{Defaults, Hooks};
use crate::contract::lookup::Lookup;
use crate::contract::paginator::{PageQuery, Paginator};
use crate::contract::viewset::{ModelOf, ViewSet};
use crate::error::{ApiError, db_err};
use crate::handlers::after::{after_commit, hooked};
use crate::handlers::etag;
use crate::query::filter::apply_exact_filters;
use crate::query::ordering::effective_order;
use crate::request::RequestContext;
use crate::schema::storable::check_storable_body;
use crate::schema::{CreateSchema, ReadSchema, UpdateSchema};
use crate::store::plan::Plan;
use crate::store::run::On;
use crate::store::writing::Writing;
use crate::types::params::Filters;

/// The base query: every record, narrowed by the router's exact-match `filters`.
pub fn base_queryset<V: Hooks>(request: &RequestContext, filters: &Filters) -> Result<Select<V::Entity>, ApiError> {
    apply_exact_filters(V::Entity::find(), filters, request.db.get_database_backend())
}

/// Default `list`: [`access::scoped_list`] (`get_queryset`, the filter backends, the row policies), the
/// effective ordering, then the paginator. The query is built in a function of its own, so the future holds only
/// the request and the paginator's future (see [`crate::pagination::fetch_rows`]).
pub fn list<V: Hooks>(
    request: RequestContext,
    limit: u64,
    offset: u64,
    filters: Filters,
) -> impl Future<Output = Result<Response, ApiError>> + Send {
    async move {
        let page = page_query::<V>(&request, filters, limit, offset)?;
        Ok(V::Pagination::paginate::<V>(page, &request).await?.into_response())
    }
}

/// The scoped, filtered query of a list, with its effective ordering and window.
fn page_query<V: Hooks>(
    request: &RequestContext,
    filters: Filters,
    limit: u64,
    offset: u64,
) -> Result<PageQuery<V::Entity>, ApiError> {
    let query = access::scoped_list::<V>(request, &filters)?;
    let order = effective_order::<V>(&query, request);
    let select = crate::query::narrow::<V>(query.select, request, &order);
    Ok(PageQuery { select, order, limit, offset })
}

/// Default `retrieve`.
pub fn retrieve<V: Hooks>(
    pk: Lookup,
    request: RequestContext,
) -> impl Future<Output = Result<Response, ApiError>> + Send {
    async move {
        let model = access::fetch_visible::<V>(&request, &pk).await?;
        if request.expand.is_empty() {
            return Ok(detail::<V>(model, &request, StatusCode::OK));
        }
        let mut embedded =
            crate::embed::embed_rows::<V>(std::slice::from_ref(&model), &request.expand, &request).await?;
        let mut value = access::visible(&<V::Detail as ReadSchema<_>>::from_model(model), &request.left_out());
        crate::access::fields::attach(&mut value, embedded.pop().unwrap_or_default());
        Ok(etag::tagged_json(StatusCode::OK, &value))
    }
}

/// A record as the detail representation, without the fields hidden from this caller, with its `ETag` (the hash
/// of this body, see [`etag`]).
pub fn detail<V: ViewSet>(model: ModelOf<V>, request: &RequestContext, status: StatusCode) -> Response {
    etag::tagged_representation::<V>(model, request, status)
}

/// Default `create`: validate, insert, 201 with the record.
pub fn create<V: Hooks>(
    data: V::Create,
    request: RequestContext,
) -> impl Future<Output = Result<Response, ApiError>> + Send {
    async move {
        let active = creatable::<V>(&request, data)?;
        let mut writing = Writing::begin::<V>(&request).await?;
        let inserted = crate::store::insert(writing.on(&request.db), active, V::decode_rows).await;
        let model = inserted.map_err(db_err::<V::Entity>)?;
        writing.publish(ChangeEvent::of::<V>(Action::Created, &model));
        writing.commit::<V>(&request.events).await?;
        if hooked::<V>() {
            after_commit::<V>(&request, vec![Committed::Created(model.clone())]);
        }
        Ok(detail::<V>(model, &request, StatusCode::CREATED))
    }
}

/// A create body as the row to insert: validated, storable, the tenant stamped (403 without one), then
/// [`Hooks::before_create`]. What every created row passes, one at a time or in bulk ([`crate::handlers::bulk`]).
pub(crate) fn creatable<V: Hooks>(
    request: &RequestContext,
    data: V::Create,
) -> Result<<V::Entity as EntityTrait>::ActiveModel, ApiError> {
    data.validate()?;
    let mut active = data.into_active_model();
    check_storable_body(&active)?;
    stamp_tenant::<V>(request, &mut active)?;
    V::before_create(request, &mut active)?;
    Ok(active)
}

/// Default `update`: `If-Match` is checked against the record as this caller sees it (412), then only the sent
/// fields are written; omitted fields keep their values. With `If-Match` the read, the comparison and the write
/// happen in one transaction with the row locked ([`access::fetch_visible_locked`]): of two writers sending the
/// same tag, one succeeds and the other gets 412. When nothing needs the old row
/// ([`Plan::update_in_one_statement`]) the write is one `UPDATE … RETURNING` through the same scope.
pub fn update<V: Hooks>(
    pk: Lookup,
    data: V::Update,
    request: RequestContext,
) -> impl Future<Output = Result<Response, ApiError>> + Send {
    async move {
        let conditional = etag::is_conditional(&request.headers);
        let one_statement = !conditional
            && !data.is_empty()
            && Plan::of::<V>(request.db.get_database_backend()).update_in_one_statement;
        let mut previous = None;
        let (mut writing, (model, changed)) = if one_statement {
            let writing = Writing::begin::<V>(&request).await?;
            let on = writing.on(&request.db);
            let written = access::write::update_in_scope_on::<V>(&request, &pk, data, on).await?;
            (writing, (written, true))
        } else {
            // The write awaited in one place, so its future is one state of this one.
            let (writing, model) = to_write::<V>(&request, &pk).await?;
            previous = hooked::<V>().then(|| model.clone());
            let written = write_update::<V>(writing.on(&request.db), model, data).await?;
            (writing, written)
        };
        if changed {
            writing.publish(ChangeEvent::of::<V>(Action::Updated, &model));
        }
        writing.commit::<V>(&request.events).await?;
        // With `custom_hooks` the record is always read first (never one statement), so `previous` is there.
        if let (true, Some(previous)) = (changed, previous) {
            after_commit::<V>(&request, vec![Committed::Updated { previous, record: model.clone() }]);
        }
        Ok(detail::<V>(model, &request, StatusCode::OK))
    }
}

/// The record `pk` as this caller sees it, and the write it will be written in: with `If-Match`, a transaction with
/// the row locked and the tag checked (412); otherwise the record, then the write begun. One future for the update
/// and the delete of a ViewSet.
async fn to_write<V: Hooks>(request: &RequestContext, pk: &Lookup) -> Result<(Writing, ModelOf<V>), ApiError> {
    if etag::is_conditional(&request.headers) {
        let writing = Writing::within(access::begin_locking::<V>(request).await?);
        let model = access::fetch_visible_locked::<V>(request, pk, writing.txn()).await?;
        etag::check_if_match::<V>(request, &model)?;
        return Ok((writing, model));
    }
    let model = access::fetch_visible::<V>(request, pk).await?;
    Ok((Writing::begin::<V>(request).await?, model))
}

/// Validates `data` and writes the sent columns of `model` on `on` (nothing when `data` is empty); whether
/// anything was written.
pub(crate) async fn write_update<V: Hooks>(
    on: On<'_>,
    model: ModelOf<V>,
    data: V::Update,
) -> Result<(ModelOf<V>, bool), ApiError> {
    data.validate()?;
    if data.is_empty() {
        return Ok((model, false));
    }
    let mut active = model.into_active_model();
    data.apply(&mut active);
    check_storable_body(&active)?;
    Ok((crate::store::update::<V>(on, active).await?, true))
}

/// Default `delete`: `If-Match` checked as for `update` (412, in one transaction with the row locked), then 200
/// `{"deleted": true, "id": <primary key>}`.
pub fn delete<V: Hooks>(
    pk: Lookup,
    request: RequestContext,
) -> impl Future<Output = Result<Response, ApiError>> + Send {
    async move {
        let (mut writing, model) = to_write::<V>(&request, &pk).await?;
        let event = ChangeEvent::of::<V>(Action::Deleted, &model);
        let id = event.pk.clone();
        let last = hooked::<V>().then(|| model.clone());
        crate::store::delete::<V>(writing.on(&request.db), model).await?;
        writing.publish(event);
        writing.commit::<V>(&request.events).await?;
        if let Some(last) = last {
            after_commit::<V>(&request, vec![Committed::Deleted(last)]);
        }
        Ok(Json(json!({"deleted": true, "id": id})).into_response())
    }
}

impl<V: Hooks> Defaults for V {
    fn get_queryset(request: &RequestContext, filters: &Filters) -> Result<Select<V::Entity>, ApiError> {
        base_queryset::<V>(request, filters)
    }

    fn list(
        request: RequestContext,
        limit: u64,
        offset: u64,
        filters: Filters,
    ) -> impl Future<Output = Result<Response, ApiError>> + Send {
        list::<V>(request, limit, offset, filters)
    }

    fn retrieve(pk: Lookup, request: RequestContext) -> impl Future<Output = Result<Response, ApiError>> + Send {
        retrieve::<V>(pk, request)
    }

    fn create(data: V::Create, request: RequestContext) -> impl Future<Output = Result<Response, ApiError>> + Send {
        create::<V>(data, request)
    }

    fn update(
        pk: Lookup,
        data: V::Update,
        request: RequestContext,
    ) -> impl Future<Output = Result<Response, ApiError>> + Send {
        update::<V>(pk, data, request)
    }

    fn delete(pk: Lookup, request: RequestContext) -> impl Future<Output = Result<Response, ApiError>> + Send {
        delete::<V>(pk, request)
    }

    fn create_many(
        data: Vec<V::Create>,
        request: RequestContext,
    ) -> impl Future<Output = Result<Response, ApiError>> + Send {
        crate::handlers::bulk::create_many::<V>(data, request)
    }

    fn update_many(
        rows: Vec<(Lookup, V::Update)>,
        request: RequestContext,
    ) -> impl Future<Output = Result<Response, ApiError>> + Send {
        crate::handlers::bulk::update_many::<V>(rows, request)
    }

    fn delete_many(
        keys: Vec<Lookup>,
        request: RequestContext,
    ) -> impl Future<Output = Result<Response, ApiError>> + Send {
        crate::handlers::bulk::delete_many::<V>(keys, request)
    }
}
