//! `POST <prefix>/upsert` (`#[viewset(upsert_keys = [...])]`): creates each row whose key is new and updates (or,
//! with `Prefer: resolution=ignore-duplicates`, leaves as it is) each row whose key exists; `?on_conflict=<key>`
//! names the key, and may be left out when the ViewSet declares one. Admission is the create's own
//! ([`crate::access::enter`] with `Create`); updating an existing record needs `Update` too, asked by
//! [`crate::handlers::upsert::upsert`] only when a key exists.
//!
//! `POST <prefix>/` creates one record and nothing else: an `on_conflict` there, or a `resolution` preference on a
//! ViewSet with upsert keys, is a 422 naming this route ([`not_here`]), so a PostgREST-style upsert is never taken
//! for a plain create.

use axum::body::{Body, Bytes};
use axum::http::request::Parts;
use axum::response::Response;
use serde_json::value::RawValue;

use super::bulk::{is_array, items};
use super::entry::{BodyBytes, RouteFuture};
use super::ops::Ops;
use crate::contract::config::Config;
use crate::contract::hooks::Hooks;
use crate::error::ApiError;
use crate::handlers::bulk::at_row;
use crate::handlers::etag::unconditional_many;
use crate::handlers::upsert::{Resolution, UpsertRow, upsert};
use crate::registration::routes::{collection_write, create_shape, parse_body};
use crate::request::RequestContext;

/// `POST <prefix>/upsert`: admitted as a create, the `Idempotency-Key` claimed as a create claims it, then the key,
/// the resolution and the ViewSet's upsert.
pub(crate) fn upsert_run(ops: &'static Ops, request: RequestContext, parts: Parts, body: Body) -> RouteFuture {
    collection_write(ops, request, (parts, body), run)
}

/// An upsert after admission.
async fn run(ops: &'static Ops, request: RequestContext, bytes: BodyBytes) -> Result<Response, ApiError> {
    let (key, resolution) = wanted(ops.config, &request)?;
    let bytes = bytes.map_err(|e| ApiError::BodyRejected(e.status(), e.body_text()))?;
    let route = ops.upsert.ok_or(ApiError::NotFound)?;
    route(request, bytes, key, resolution).await
}

/// The key and the resolution of an upsert: `on_conflict` (one of `upsert_keys`; may be left out when there is one)
/// and `Prefer: resolution=` (`merge-duplicates` when absent). 422 for any other query parameter, an unknown key,
/// or `If-Match` (an upsert is never conditional).
fn wanted(config: &Config, request: &RequestContext) -> Result<(&'static str, Resolution), ApiError> {
    let keys = config.bulk.upsert_keys;
    request.query.check()?;
    if let Some((other, _)) = request.query.iter().find(|(name, _)| *name != "on_conflict") {
        let msg = format!("An upsert takes only `on_conflict` (one of: {}), not `{other}`", keys.join(", "));
        return Err(ApiError::input(["query", other], msg, "extra_forbidden"));
    }
    unconditional_many(false, request, "an upsert")?;
    let resolution = Resolution::from_headers(&request.headers).unwrap_or(Resolution::MergeDuplicates);
    let refused = |msg: String, code| ApiError::input(["query", "on_conflict"], msg, code);
    match (request.query.one("on_conflict")?, keys) {
        (None, [key]) => Ok((key, resolution)),
        (None, _) => {
            Err(refused(format!("Name the upsert key: `on_conflict` is one of {}", keys.join(", ")), "missing"))
        }
        (Some(name), _) if let Some(key) = keys.iter().find(|key| **key == name) => Ok((key, resolution)),
        _ => Err(refused(format!("`on_conflict` names one of the upsert keys: {}", keys.join(", ")), "invalid")),
    }
}

/// A plain create's refusal of an upsert's signs: `on_conflict`, or a `resolution` preference on a ViewSet with
/// upsert keys, is a 422 naming `POST <prefix>/upsert` (or saying there is none).
pub(crate) fn not_here(config: &Config, request: &RequestContext) -> Result<(), ApiError> {
    let keys = config.bulk.upsert_keys;
    let on_conflict = request.query.iter().any(|(name, _)| name == "on_conflict");
    let resolution = Resolution::from_headers(&request.headers).is_some() && !keys.is_empty();
    if !on_conflict && !resolution {
        return Ok(());
    }
    let path = crate::contract::paths::upsert(crate::contract::paths::base(request.uri.path()));
    let msg = if keys.is_empty() {
        "This resource declares no upsert keys: `POST` here creates one record".to_string()
    } else {
        format!("`POST` here creates one record; an upsert is `POST {path}` (`on_conflict`: {})", keys.join(", "))
    };
    let location = if on_conflict { ["query", "on_conflict"] } else { ["header", "prefer"] };
    Err(ApiError::input(location, msg, "extra_forbidden"))
}

/// An upsert of `V` after admission: the body (an array of rows: one, or with `bulk(create)` up to `max_bulk`),
/// each row read as a create body (errors at `["body", "<index>", …]`), then [`upsert`].
pub(crate) async fn create<V: Hooks>(
    request: RequestContext,
    bytes: Bytes,
    key: &'static str,
    resolution: Resolution,
) -> Result<Response, ApiError> {
    crate::schema::require_json(&request.headers, &bytes)?;
    if !is_array(&bytes) {
        let msg = "An upsert is a JSON array of records, each naming its key (one record: `[{…}]`)";
        return Err(ApiError::input(["body"], msg, "list_type"));
    }
    let raws: Vec<&RawValue> = items::<V>(&bytes)?;
    if !V::CONFIG.bulk.create && raws.len() > 1 {
        let msg = format!(
            "One record per upsert: this resource does not declare `bulk(create)`; this one has {}",
            raws.len()
        );
        return Err(ApiError::input(["body"], msg, "too_long"));
    }
    let mut rows = Vec::with_capacity(raws.len());
    let mut errors = Vec::new();
    for (index, raw) in raws.into_iter().enumerate() {
        match parse_body::<V::Create>(raw.get().as_bytes(), &request, create_shape::<V>) {
            Ok(create) => rows.push(UpsertRow { create, raw: raw.to_owned() }),
            Err(ApiError::Input(found)) => errors.extend(found.into_iter().map(|e| at_row(index, e))),
            Err(other) => return Err(other),
        }
    }
    if !errors.is_empty() {
        return Err(ApiError::Input(errors));
    }
    upsert::<V>(rows, key, resolution, request).await
}
