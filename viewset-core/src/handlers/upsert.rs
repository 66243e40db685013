//! Upsert (`#[viewset(upsert_keys = ["slug"])]`): `POST <prefix>/upsert?on_conflict=slug` (a record whose key
//! exists is updated; with `Prefer: resolution=ignore-duplicates` it is left as it is), an array of one row or
//! (with `bulk(create)`) up to `max_bulk`. All rows or none, in one transaction:
//!
//! 1. every row passes what a single create checks (`creatable` in the default handlers) and names its key; two rows with
//!    the same key are a 422;
//! 2. the rows holding the submitted keys are read with their rows locked ([`access::begin_locking`]), first
//!    without the caller's scope (which keys exist at all), then through it ([`access::fetch_visible_many_locked`]):
//!    a key that exists outside the caller's scope is a 404 naming it and nothing is written, so an upsert never
//!    overwrites (nor reports as ignored) a record the caller could not PATCH;
//! 3. with `merge-duplicates`, existing rows need what PATCH needs: the caller is admitted for `Update` (403), each
//!    record passes the object permissions for `Update` (403), each row is read as a PATCH body (422) and written as
//!    PATCH writes it;
//! 4. the other rows are inserted as a bulk create inserts them ([`crate::store`]'s multi-row `INSERT`).
//!
//! Concurrency: on SQLite the transaction is `BEGIN IMMEDIATE`, so upserts run one after another. On PostgreSQL
//! two upserts of a new key both find nothing; the second `INSERT` waits on the unique index and fails when the
//! first commits. That failure rolls the transaction back and the whole upsert runs once more, now finding (and
//! locking) the committed row: two parallel upserts of one key end with one row (`tests/upserts.rs`).

// `async move` blocks on purpose (see `handlers.rs`).
#![allow(clippy::manual_async_fn)]

use axum::Json;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use sea_orm::{ActiveModelTrait, ActiveValue, ColumnTrait, EntityTrait, QueryFilter, QuerySelect, Value};
use serde_json::{json, value::RawValue};

use crate::access::fields::reject_restricted_keys;
use crate::access::{self, visible};
use crate::bus::event::Action;
use crate::bus::event::ChangeEvent;
use crate::contract::committed::Committed;
use crate::contract::hooks::Hooks;
use crate::contract::lookup::Lookup;
use crate::contract::viewset::ModelOf;
use crate::error::{ApiError, InputError};
use crate::handlers::after::{after_commit, hooked};
use crate::handlers::bulk::at_row;
use crate::handlers::crud::{creatable, write_update};
use crate::handlers::prefer::PREFERENCE_APPLIED;
use crate::request::RequestContext;
use crate::schema::ReadSchema;
use crate::schema::body::json_body;
use crate::store::run::On;
use crate::store::writing::Writing;
use crate::types::operation::Operation;

/// What `Prefer: resolution=…` asks of a create whose key exists (RFC 7240 preferences; PostgREST's values).
///
/// ```
/// use axum::http::HeaderMap;
/// use viewset_core::viewset::upsert::Resolution;
/// let mut headers = HeaderMap::new();
/// assert_eq!(Resolution::from_headers(&headers), None);
/// headers.insert("prefer", "return=minimal, resolution=merge-duplicates".parse().unwrap());
/// assert_eq!(Resolution::from_headers(&headers), Some(Resolution::MergeDuplicates));
/// headers.insert("prefer", "resolution=overwrite".parse().unwrap());
/// assert_eq!(Resolution::from_headers(&headers), None, "an unknown value is ignored");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// `merge-duplicates`: the existing record is updated with the sent fields.
    MergeDuplicates,
    /// `ignore-duplicates`: the existing record is left as it is.
    IgnoreDuplicates,
}

impl Resolution {
    /// The first `resolution` preference of the request's `Prefer` headers, when its value is one of the two;
    /// `None` otherwise (an unknown value is ignored, RFC 7240 §2: the request is a plain create).
    pub fn from_headers(headers: &axum::http::HeaderMap) -> Option<Resolution> {
        for value in headers.get_all("prefer") {
            let Ok(value) = value.to_str() else { continue };
            for preference in value.split(',') {
                let token = preference.split(';').next().unwrap_or("");
                let (name, value) = token.split_once('=').unwrap_or((token, ""));
                if name.trim().eq_ignore_ascii_case("resolution") {
                    return match value.trim().trim_matches('"').to_ascii_lowercase().as_str() {
                        "merge-duplicates" => Some(Resolution::MergeDuplicates),
                        "ignore-duplicates" => Some(Resolution::IgnoreDuplicates),
                        _ => None,
                    };
                }
            }
        }
        None
    }

    /// The preference as written (`resolution=merge-duplicates`), for `Preference-Applied`.
    ///
    /// ```
    /// use viewset_core::viewset::upsert::Resolution;
    /// assert_eq!(Resolution::IgnoreDuplicates.as_str(), "resolution=ignore-duplicates");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Resolution::MergeDuplicates => "resolution=merge-duplicates",
            Resolution::IgnoreDuplicates => "resolution=ignore-duplicates",
        }
    }
}

/// One row of an upsert body: the create body as parsed, and its JSON text (read again as a PATCH body when the
/// record exists).
///
/// ```
/// # mod tag { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
/// #   #[sea_orm(table_name = "tags")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, #[sea_orm(unique)] pub slug: String }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// use viewset_core::prelude::*;
/// use viewset_core::viewset::upsert::UpsertRow;
///
/// #[derive(ModelViewSet)]
/// #[viewset(model = tag::Entity, upsert_keys = ["slug"])]
/// pub struct Tags;
///
/// let text = r#"{"slug": "rust"}"#;
/// let row = UpsertRow::<Tags> {
///     create: serde_json::from_str(text).unwrap(),
///     raw: serde_json::value::RawValue::from_string(text.into()).unwrap(),
/// };
/// assert_eq!(row.create.slug, "rust");
/// ```
pub struct UpsertRow<V: Hooks> {
    /// The row as a create body.
    pub create: V::Create,
    /// The row's JSON object.
    pub raw: Box<RawValue>,
}

/// What happened to each row, by index.
#[derive(Default)]
struct Outcome {
    created: Vec<usize>,
    updated: Vec<usize>,
    ignored: Vec<usize>,
}

/// Default upsert: the rows (request order) on the unique field `key` (one of `upsert_keys`) as `resolution` asks,
/// in one transaction (see the module). 201 when a record was created, else 200, with `Preference-Applied` and
/// `{"created": [<row index>…], "updated": […], "ignored": […], "records": [<record or null>…]}`: each row's
/// record (its detail representation, without the fields hidden from this caller) in request order, `null` for an
/// ignored row.
///
/// ```
/// # mod tag { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
/// #   #[sea_orm(table_name = "tags")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, #[sea_orm(unique)] pub slug: String, pub name: String }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// use viewset_core::prelude::*;
///
/// /// `POST /api/tags/upsert?on_conflict=slug` creates or updates by slug.
/// #[derive(ModelViewSet)]
/// #[viewset(model = tag::Entity, prefix = "/api/tags", upsert_keys = ["slug"])]
/// pub struct Tags;
/// assert_eq!(<Tags as ViewSet>::CONFIG.bulk.upsert_keys, ["slug"]);
/// ```
pub async fn upsert<V: Hooks>(
    rows: Vec<UpsertRow<V>>,
    key: &'static str,
    resolution: Resolution,
    request: RequestContext,
) -> Result<Response, ApiError> {
    let column = crate::types::columns::column::<V::Entity>(key).ok_or(ApiError::NotFound)?;
    let mut inserts = Vec::with_capacity(rows.len());
    let mut keys: Vec<Lookup> = Vec::with_capacity(rows.len());
    let mut errors = Vec::new();
    let mut raws = Vec::with_capacity(rows.len());
    for (index, row) in rows.into_iter().enumerate() {
        raws.push(row.raw);
        let active = match creatable::<V>(&request, row.create) {
            Ok(active) => active,
            Err(ApiError::Input(found)) => {
                errors.extend(found.into_iter().map(|e| at_row(index, e)));
                continue;
            }
            Err(other) => return Err(other),
        };
        match key_of(active.get(column), raws[index].get(), key) {
            Err(error) => errors.push(at_row(index, error)),
            Ok(lookup) if keys.iter().any(|seen| seen.value == lookup.value) => {
                let msg = format!("Two rows name the {key} `{}`: each key once per request", lookup.raw);
                errors.push(at_row(index, InputError::new(["body", key], msg, "duplicate_key")));
            }
            Ok(lookup) => keys.push(lookup),
        }
        inserts.push(active);
    }
    if !errors.is_empty() {
        return Err(ApiError::Input(errors));
    }
    // Once more when a parallel upsert inserted one of the keys first (PostgreSQL: see the module); up to
    // `ATTEMPTS` times, after a short pause, when another won a lock both wanted (MariaDB: InnoDB's gap locks make
    // the losers of inserts of one new key deadlock victims, again while the winner commits). Each attempt rolls
    // back whole, so another is safe.
    let mut attempt = 0;
    let (outcome, models, updater) = loop {
        attempt += 1;
        let run = write::<V>(&request, (key, column), &keys, &raws, inserts.clone(), resolution).await;
        match run {
            Err(ApiError::UniqueViolation(_)) if attempt == 1 => continue,
            Err(ApiError::Contention) if attempt < ATTEMPTS => {
                tokio::time::sleep(std::time::Duration::from_millis(5 << attempt)).await;
                continue;
            }
            other => break other?,
        }
    };
    let left_out = updater.left_out();
    let records: Vec<serde_json::Value> = models
        .into_iter()
        .map(|model| match model {
            Some(model) => visible(&<V::Detail as ReadSchema<_>>::from_model(model), &left_out),
            None => serde_json::Value::Null,
        })
        .collect();
    let status = if outcome.created.is_empty() { StatusCode::OK } else { StatusCode::CREATED };
    let body =
        json!({"created": outcome.created, "updated": outcome.updated, "ignored": outcome.ignored, "records": records});
    let mut response = (status, Json(body)).into_response();
    response.headers_mut().insert(PREFERENCE_APPLIED, HeaderValue::from_static(resolution.as_str()));
    Ok(response)
}

/// The key a row names (`value`, from the row as it will be stored; `raw`, the row's JSON, for its text): a row
/// without it (or with `null`) is a 422.
fn key_of(value: ActiveValue<Value>, raw: &str, key: &str) -> Result<Lookup, InputError> {
    let missing = || InputError::new(["body", key], format!("Each row of an upsert names its `{key}`"), "missing");
    let value = match value {
        ActiveValue::Set(value) | ActiveValue::Unchanged(value) => value,
        ActiveValue::NotSet => return Err(missing()),
    };
    let sent = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(raw).ok();
    let raw = match sent.as_ref().and_then(|row| row.get(key)) {
        None | Some(serde_json::Value::Null) => return Err(missing()),
        Some(serde_json::Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    };
    Ok(Lookup { raw, value })
}

/// How many times an upsert runs when the database gives up on a lock (then 503 `database_busy`).
const ATTEMPTS: u32 = 4;

/// One attempt: the transaction of the module's steps 2 to 4. The records by row (`None` for an ignored row) and
/// the request as admitted for the updates (the request itself when nothing was updated).
async fn write<V: Hooks>(
    request: &RequestContext,
    (key, column): (&str, <V::Entity as EntityTrait>::Column),
    keys: &[Lookup],
    raws: &[Box<RawValue>],
    inserts: Vec<<V::Entity as EntityTrait>::ActiveModel>,
    resolution: Resolution,
) -> Result<(Outcome, Vec<Option<ModelOf<V>>>, RequestContext), ApiError> {
    let mut writing = Writing::within(access::begin_locking::<V>(request).await?);
    let txn = writing.txn();
    let per_statement = crate::store::rows_per_statement(request.db.get_database_backend(), 1);
    let mut exist = Vec::new();
    for chunk in keys.chunks(per_statement) {
        let values = chunk.iter().map(|key| key.value.clone());
        let select = V::Entity::find().filter(column.is_in(values)).lock_exclusive();
        exist.extend(crate::store::all_in::<V>(txn, select, chunk.len(), "lookup").await?);
    }
    let existing: Vec<usize> = (0..keys.len())
        .filter(|&i| exist.iter().any(|model| sea_orm::ModelTrait::get(model, column) == keys[i].value))
        .collect();
    let mut updater = request.clone();
    let mut outcome = Outcome::default();
    let mut models: Vec<Option<ModelOf<V>>> = (0..keys.len()).map(|_| None).collect();
    // With `custom_hooks`: each updated row as it was found, for `after_commit`.
    let mut previous: Vec<(usize, ModelOf<V>)> = Vec::new();
    if !existing.is_empty() {
        if resolution == Resolution::MergeDuplicates {
            access::admit::<V>(&mut updater, Operation::Update)?;
        }
        let named: Vec<Lookup> = existing.iter().map(|&i| keys[i].clone()).collect();
        let found = access::fetch_visible_many_locked_by::<V>(&updater, key, &named, txn).await?;
        let mut errors = Vec::new();
        for (&i, model) in existing.iter().zip(found) {
            if resolution == Resolution::IgnoreDuplicates {
                outcome.ignored.push(i);
                continue;
            }
            let data = reject_restricted_keys(raws[i].get().as_bytes(), &updater.restricted_fields)
                .and_then(|()| json_body::<V::Update>(raws[i].get().as_bytes(), &updater.restricted_fields));
            if hooked::<V>() {
                previous.push((i, model.clone()));
            }
            match data {
                Ok(data) => match write_update::<V>(On::Txn(txn), model, data).await {
                    Ok((model, _)) => {
                        models[i] = Some(model);
                        outcome.updated.push(i);
                    }
                    Err(ApiError::Input(found)) => errors.extend(found.into_iter().map(|e| at_row(i, e))),
                    Err(other) => return Err(other),
                },
                Err(ApiError::Input(found)) => errors.extend(found.into_iter().map(|e| at_row(i, e))),
                Err(other) => return Err(other),
            }
        }
        if !errors.is_empty() {
            return Err(ApiError::Input(errors));
        }
    }
    let fresh: Vec<usize> = (0..keys.len()).filter(|i| !existing.contains(i)).collect();
    let rows = inserts.into_iter().enumerate().filter(|(i, _)| !existing.contains(i)).map(|(_, row)| row);
    let created = crate::store::insert_many::<V>(txn, rows.collect()).await?;
    for (&i, model) in fresh.iter().zip(created) {
        models[i] = Some(model);
        outcome.created.push(i);
    }
    for (i, model) in models.iter().enumerate() {
        let Some(model) = model else { continue };
        let action = if outcome.created.contains(&i) { Action::Created } else { Action::Updated };
        writing.publish(ChangeEvent::of::<V>(action, model));
    }
    writing.commit::<V>(&request.events).await?;
    if hooked::<V>() {
        after_commit::<V>(request, committed_rows(&models, &outcome, previous));
    }
    Ok((outcome, models, updater))
}

/// The rows an upsert wrote, in request order, as its after-commit hook receives them: each created record, and
/// each updated one with the record it found (`previous`, by row index).
fn committed_rows<M: Clone>(
    models: &[Option<M>],
    outcome: &Outcome,
    mut previous: Vec<(usize, M)>,
) -> Vec<Committed<M>> {
    let mut rows = Vec::new();
    for (i, model) in models.iter().enumerate() {
        let Some(record) = model.clone() else { continue };
        if outcome.created.contains(&i) {
            rows.push(Committed::Created(record));
        } else if let Some(found) = previous.iter().position(|(row, _)| *row == i) {
            rows.push(Committed::Updated { previous: previous.swap_remove(found).1, record });
        }
    }
    rows
}
