//! The upsert form of `POST <prefix>/` (`#[viewset(upsert_keys = [...])]`): `Prefer: resolution=merge-duplicates`
//! or `resolution=ignore-duplicates`, with `?on_conflict=<key>` (which may be left out when the ViewSet declares
//! one key). Admission is the create's own ([`crate::access::enter`] with `Create`); updating an existing record
//! needs `Update` too, asked by [`crate::handlers::upsert::upsert`] only when a key exists.
//!
//! `on_conflict` without a `resolution` preference this server knows (none, or an unknown value, which RFC 7240
//! says to ignore) is a plain create, as in PostgREST: an existing key is then the create's unique-violation 409.
//! `on_conflict` naming a field that is no upsert key is a 422 either way. A `resolution` preference without
//! `on_conflict` on a ViewSet without `upsert_keys` is ignored (a plain create, as RFC 7240 allows).

use axum::body::Bytes;
use axum::response::Response;
use serde_json::value::RawValue;

use super::bulk::{is_array, items};
use crate::contract::config::Config;
use crate::contract::hooks::Hooks;
use crate::error::ApiError;
use crate::handlers::bulk::at_row;
use crate::handlers::etag::unconditional_many;
use crate::handlers::upsert::{Resolution, UpsertRow, upsert};
use crate::registration::routes::{create_shape, parse_body};
use crate::request::RequestContext;

/// The upsert a create asks for: the key and the resolution; `None` for a plain create (also an `on_conflict`
/// without a known `resolution`). 422 for an `on_conflict` that is not one of `upsert_keys`.
pub(crate) fn wanted(
    config: &Config,
    request: &RequestContext,
) -> Result<Option<(&'static str, Resolution)>, ApiError> {
    let keys = config.bulk.upsert_keys;
    let on_conflict = request.query.one("on_conflict")?;
    let resolution = Resolution::from_headers(&request.headers);
    let refused = |msg: String| ApiError::input(["query", "on_conflict"], msg, "invalid");
    let Some(resolution) = resolution else {
        return match on_conflict {
            Some(_) if keys.is_empty() => Err(refused("This resource declares no upsert keys".into())),
            Some(name) if !keys.contains(&name) => {
                Err(refused(format!("`on_conflict` names one of the upsert keys: {}", keys.join(", "))))
            }
            _ => Ok(None),
        };
    };
    if !keys.is_empty() {
        // Only the single routes honour `require_if_match` (an upsert never did); `If-Match` itself is refused.
        unconditional_many(false, request, "an upsert")?;
    }
    match (on_conflict, keys) {
        (None, []) => Ok(None),
        (None, [key]) => Ok(Some((key, resolution))),
        (Some(name), _) if let Some(key) = keys.iter().find(|key| **key == name) => Ok(Some((key, resolution))),
        (Some(_), []) => Err(refused("This resource declares no upsert keys".into())),
        _ => Err(refused(format!("`on_conflict` names one of the upsert keys: {}", keys.join(", ")))),
    }
}

/// An upsert after admission: the body (an object, or with `bulk(create)` an array), each row read as a create
/// body (errors at `["body", "<index>", …]`), then [`upsert`].
pub(crate) async fn create<V: Hooks>(
    request: RequestContext,
    bytes: Bytes,
    key: &'static str,
    resolution: Resolution,
) -> Result<Response, ApiError> {
    crate::schema::require_json(&request.headers, &bytes)?;
    let raws: Vec<&RawValue> = if V::CONFIG.bulk.create && is_array(&bytes) {
        items::<V>(&bytes)?
    } else {
        vec![serde_json::from_slice(&bytes).map_err(|e| ApiError::input(["body"], e.to_string(), "json_invalid"))?]
    };
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
