//! The nested form of the single create and of PATCH (`writable_relations`, [`crate::viewset::nested`]): an object
//! body naming a writable relation is written by `handlers/nested.rs` (a PATCH's relation changes by
//! `handlers/nested_update.rs`), each row through the [`Writer`] of its ViewSet, built
//! here from the ViewSet's types: its create body read as `POST <prefix>/` reads it (`routes::parse_body`), then
//! the single create's `creatable`; a referenced row read through its scope. What is generic per ViewSet is these
//! small functions; the walk over the body is compiled once.

use std::collections::BTreeMap;

use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::Response;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{Map, Value as Json};

use super::ops::Answer;
use super::routes::{create_shape, parse_body, update_shape};
use crate::access;
use crate::boxed::{SendFuture, send};
use crate::bus::event::{Action, ChangeEvent};
use crate::contract::committed::Committed;
use crate::contract::hooks::Hooks;
use crate::contract::lookup::Lookup;
use crate::contract::viewset::ModelOf;
use crate::error::{ApiError, db_err};
use crate::handlers::after::{after_commit, hooked};
use crate::handlers::crud::{creatable, write_update};
use crate::handlers::nested::Nest;
use crate::request::RequestContext;
use crate::request::embedders::Expand;
use crate::request::nested::{After, Created, Row, Writer};
use crate::schema::{CreateSchema, ReadSchema};
use crate::store::run::On;
use crate::store::writing::Writing;
use crate::types::columns::{column_named, field_name};
use crate::types::operation::Operation;
use crate::types::options::Nested;
use crate::types::params::{Filters, QueryParams};
use crate::types::value::from_json;

/// The nested create after admission: the request and the object body.
pub(crate) type NestedRoute = fn(RequestContext, Bytes) -> Answer;

/// The nested create of `V`, when it declares `writable_relations`. A branch on a constant: a ViewSet without
/// writable relations does not carry the route's code (build time: BENCHMARKS.md, "Compile cost").
pub(crate) const fn route<V: Hooks>() -> Option<NestedRoute> {
    if V::CONFIG.nested.writable.is_empty() {
        return None;
    }
    Some(|request, bytes| send(create::<V>(request, bytes)))
}

/// The nested update after admission: the `{pk}`, the request and the object body.
pub(crate) type NestedUpdateRoute = fn(Lookup, RequestContext, Bytes) -> Answer;

/// The nested update of `V`, when it declares `writable_relations`; as [`route`].
pub(crate) const fn update_route<V: Hooks>() -> Option<NestedUpdateRoute> {
    if V::CONFIG.nested.writable.is_empty() {
        return None;
    }
    Some(|pk, request, bytes| send(update::<V>(pk, request, bytes)))
}

/// Whether a create body is an object naming one of `nested`'s writable relations (its values skipped, not read).
pub(crate) fn wanted(nested: &Nested, bytes: &[u8]) -> bool {
    match serde_json::from_slice::<BTreeMap<String, serde::de::IgnoredAny>>(bytes) {
        Ok(keys) => nested.writable.iter().any(|name| keys.contains_key(*name)),
        Err(_) => false,
    }
}

/// `POST <prefix>/` with writable relations: the rows written in one transaction, then 201 with the record as its
/// detail shows it and each written relation embedded as `?expand=` embeds it.
async fn create<V: Hooks>(request: RequestContext, bytes: Bytes) -> Result<Response, ApiError> {
    crate::schema::require_json(&request.headers, &bytes)?;
    let body: Map<String, Json> = serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::input(["body"], format!("Invalid JSON: {e}"), "json_invalid"))?;
    let (model, paths) = crate::handlers::nested::run(&request, writer::<V>(), body).await?;
    let model = *model
        .downcast::<ModelOf<V>>()
        .map_err(|_| ApiError::Database(sea_orm::DbErr::Custom("nested create: not the route's model".into())))?;
    answer::<V>(request, model, &paths, StatusCode::CREATED).await
}

/// `PATCH <prefix>/{pk}` with writable relations: in one transaction, the record read locked through the caller's
/// scope (404, 403; `If-Match`: 412), its sent fields written as PATCH writes them, then the relations' changes
/// (`handlers/nested_update.rs`); 200 with the record and the changed relations embedded.
async fn update<V: Hooks>(pk: Lookup, request: RequestContext, bytes: Bytes) -> Result<Response, ApiError> {
    crate::schema::require_json(&request.headers, &bytes)?;
    let mut body: Map<String, Json> = serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::input(["body"], format!("Invalid JSON: {e}"), "json_invalid"))?;
    let mut relations = Map::new();
    for name in V::CONFIG.nested.writable {
        if let Some(value) = body.remove(*name) {
            relations.insert(name.to_string(), value);
        }
    }
    let embedders = request.embedders.clone();
    let paths = crate::handlers::nested_links::measure_update(writer::<V>(), &relations, embedders.as_deref())?;
    let bytes = serde_json::to_vec(&Json::Object(body)).unwrap_or_default();
    let data = parse_body::<V::Update>(&bytes, &request, update_shape::<V>)?;
    let mut writing = Writing::within(access::begin_locking::<V>(&request).await?);
    let model = access::fetch_visible_locked::<V>(&request, &pk, writing.txn()).await?;
    crate::handlers::etag::check_if_match::<V>(&request, &model)?;
    let previous = hooked::<V>().then(|| model.clone());
    let (model, written) = write_update::<V>(On::Txn(writing.txn()), model, data).await?;
    let parent = serde_json::to_value(&model).unwrap_or_default();
    let embedders = embedders.as_deref();
    // The route counted an update of `V`: a row created through any ViewSet (`V` included) counts as its create.
    let mut nest = Nest { request: &request, embedders, writing: &mut writing, after: Vec::new(), counted: Vec::new() };
    let linked = crate::handlers::nested_update::relink(&mut nest, writer::<V>(), &parent, relations).await?;
    let after = std::mem::take(&mut nest.after);
    if written || linked {
        writing.publish(ChangeEvent::of::<V>(Action::Updated, &model));
    }
    writing.commit::<V>(&request.events).await?;
    for hook in after {
        hook(&request);
    }
    if let (true, Some(previous)) = (written, previous) {
        after_commit::<V>(&request, vec![Committed::Updated { previous, record: model.clone() }]);
    }
    answer::<V>(request, model, &paths, StatusCode::OK).await
}

/// The answer of a nested write: the record as its detail shows it, with the relations `paths` name embedded as
/// `?expand=` embeds them.
async fn answer<V: Hooks>(
    request: RequestContext,
    model: ModelOf<V>,
    paths: &[Vec<&'static str>],
    status: StatusCode,
) -> Result<Response, ApiError> {
    let mut expand = Expand::default();
    for names in paths {
        let names = &names[..names.len().min(crate::embed::MAX_EXPAND_DEPTH)];
        expand.insert(names, V::CONFIG.expandable, request.embedders.as_deref())?;
    }
    let mut embedded = crate::embed::embed_rows::<V>(std::slice::from_ref(&model), &expand, &request).await?;
    let mut value = access::visible(&<V::Detail as ReadSchema<_>>::from_model(model), &request.left_out());
    access::fields::attach(&mut value, embedded.pop().unwrap_or_default());
    Ok(crate::handlers::etag::tagged_json(status, &value))
}

/// `R` as the writer of nested rows: a constant, built at compile time.
pub(crate) fn writer<R: Hooks>() -> &'static Writer {
    const {
        &Writer {
            config: &R::CONFIG,
            table: crate::store::write::table::<R>,
            field: field::<R::Entity>,
            create: create_row::<R>,
            reference: reference::<R>,
            throttles: crate::access::throttled::throttles_of::<R>,
        }
    }
}

/// The field of `E` holding the database column `column`.
fn field<E: EntityTrait>(column: &str) -> Option<&'static str> {
    column_named::<E>(column).map(field_name::<E>)
}

/// [`crate::request::nested::CreateFn`] for `R`.
fn create_row<'a, R: Hooks>(request: &'a RequestContext, row: Row<'a>) -> SendFuture<'a, Result<Created, ApiError>> {
    let txn = row.txn;
    let prepared = prepare::<R>(request, row);
    send(async move {
        let active = prepared?;
        let inserted = crate::store::insert(On::Txn(txn), active, R::decode_rows).await;
        let model = inserted.map_err(db_err::<R::Entity>)?;
        let after: Option<After> = match hooked::<R>() {
            true => {
                let committed = model.clone();
                Some(Box::new(move |request: &RequestContext| {
                    after_commit::<R>(request, vec![Committed::Created(committed)])
                }))
            }
            false => None,
        };
        Ok(Created {
            json: serde_json::to_value(&model).unwrap_or_default(),
            event: ChangeEvent::of::<R>(Action::Created, &model),
            model: Box::new(model),
            after,
        })
    })
}

/// The row as `R` would insert it for this caller: admitted to `R`'s create, the body (with the decided columns
/// `R`'s create body has) read as `R`'s create body, checked as its single create checks it, the decided columns set.
fn prepare<R: Hooks>(
    request: &RequestContext,
    row: Row<'_>,
) -> Result<<R::Entity as EntityTrait>::ActiveModel, ApiError> {
    let mut own = request.clone();
    own.query = QueryParams::default();
    access::admit::<R>(&mut own, Operation::Create)?;
    let Row { mut body, set, .. } = row;
    let properties = create_properties::<R>();
    for (column, value) in &set {
        let Some(field) = field::<R::Entity>(column) else { continue };
        if properties.as_ref().is_none_or(|p| p.iter().any(|name| name == field)) {
            body.insert(field.to_string(), value.clone());
        }
    }
    let bytes = serde_json::to_vec(&Json::Object(body)).unwrap_or_default();
    let data = parse_body::<R::Create>(&bytes, &own, create_shape::<R>)?;
    let mut active = creatable::<R>(&own, data)?;
    for (column, value) in set {
        let Some(col) = column_named::<R::Entity>(&column) else { continue };
        let field = field_name::<R::Entity>(col);
        let invalid = |msg: String| ApiError::input(["body", field], msg, "invalid_key");
        let value = from_json(col.def().get_column_type(), &value).map_err(invalid)?;
        sea_orm::ActiveModelTrait::try_set(&mut active, col, value).map_err(|e| invalid(e.to_string()))?;
    }
    Ok(active)
}

/// The property names of `R`'s create body, when its schema lists them.
fn create_properties<R: Hooks>() -> Option<Vec<String>> {
    use utoipa::openapi::{RefOr, Schema};
    match R::Create::openapi_schema() {
        RefOr::T(Schema::Object(object)) => Some(object.properties.keys().cloned().collect()),
        _ => None,
    }
}

/// [`crate::request::nested::ReferenceFn`] for `R`.
fn reference<'a, R: Hooks>(
    request: &'a RequestContext,
    column: &'a str,
    key: &'a Json,
    txn: &'a sea_orm::DatabaseTransaction,
) -> SendFuture<'a, Result<Option<Json>, ApiError>> {
    let asked = referenced::<R>(request, column, key);
    send(async move {
        let Some((own, select)) = asked? else { return Ok(None) };
        let Some(model) = crate::store::find::<R>(txn, crate::store::Find::First(select)).await? else {
            return Ok(None);
        };
        let visible = R::permission_classes(&mut |p| crate::contract::permission::check_object(p, &own, &model));
        Ok(visible.is_ok().then(|| serde_json::to_value(&model).unwrap_or_default()))
    })
}

/// The caller as `R` admits it to `retrieve` and the scoped select of the row whose `column` holds `key` (`None`:
/// a column `R` does not have).
#[allow(clippy::type_complexity)]
fn referenced<R: Hooks>(
    request: &RequestContext,
    column: &str,
    key: &Json,
) -> Result<Option<(RequestContext, sea_orm::Select<R::Entity>)>, ApiError> {
    let mut own = request.clone();
    own.query = QueryParams::default();
    access::admit::<R>(&mut own, Operation::Retrieve)?;
    let Some(col) = column_named::<R::Entity>(column) else { return Ok(None) };
    if key.is_null() {
        return Err(ApiError::input(["body"], "Not a key: null", "invalid_key"));
    }
    let value = from_json(col.def().get_column_type(), key)
        .map_err(|msg| ApiError::input(["body"], format!("Not a key: {msg}"), "invalid_key"))?;
    let select = access::scoped_query::<R>(&own, &Filters::new())?.filter(col.eq(value));
    Ok(Some((own, select)))
}
