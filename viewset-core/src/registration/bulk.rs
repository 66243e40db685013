//! The bulk routes of a ViewSet with `#[viewset(bulk)]`: `POST <prefix>/` with a JSON array (the object form is
//! the single create, [`super::routes`]), and `DELETE <prefix>/?<lookup>__in=1,2,3`. Admission is the single
//! routes' own ([`crate::access::enter`] with `Create` or `Delete`, run before this module is reached); each row
//! of a body is read as a single create's body is ([`parse_body`]), its errors located at its index.

use axum::body::Bytes;
use axum::response::Response;
use futures_util::FutureExt;
use serde_json::value::RawValue;

use super::routes::{create_shape, parse_body, respond};
use crate::access::enter;
use crate::access::lookup::Lookup;
use crate::access::operation::Operation;
use crate::error::ApiError;
use crate::request::RequestContext;
use crate::viewset::bulk::at_row;
use crate::viewset::hooks::Hooks;
use crate::viewset::prefer;

/// Whether a create body is a JSON array (its first character other than white space is `[`).
pub(crate) fn is_array(bytes: &[u8]) -> bool {
    bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
}

/// A bulk create after admission: the rows, `V::create_many`, and the minimal answer when `Prefer` asks for it.
pub(crate) async fn create<V: Hooks>(
    request: RequestContext,
    bytes: Bytes,
    minimal: bool,
) -> Result<Response, ApiError> {
    crate::schema::require_json(&request.headers, &bytes)?;
    let rows = rows::<V>(&bytes, &request)?;
    let response = V::create_many(rows, request).await?;
    Ok(if minimal { prefer::minimal_many(response) } else { response })
}

/// The rows of a bulk body: at least one, at most `max_bulk`, each an object a single create accepts. The errors of
/// every row are reported together, each at `["body", "<index>", ...]`.
fn rows<V: Hooks>(bytes: &[u8], request: &RequestContext) -> Result<Vec<V::Create>, ApiError> {
    let items = items::<V>(bytes)?;
    let mut rows = Vec::with_capacity(items.len());
    let mut errors = Vec::new();
    for (index, item) in items.iter().enumerate() {
        match parse_body::<V::Create>(item.get().as_bytes(), request, create_shape::<V>) {
            Ok(row) => rows.push(row),
            Err(ApiError::Input(found)) => errors.extend(found.into_iter().map(|e| at_row(index, e))),
            Err(other) => return Err(other),
        }
    }
    if errors.is_empty() { Ok(rows) } else { Err(ApiError::Input(errors)) }
}

/// The items of a JSON array body, unparsed: at least one, at most `max_bulk` (a bulk create's, an upsert's).
pub(super) fn items<V: Hooks>(bytes: &[u8]) -> Result<Vec<&RawValue>, ApiError> {
    let items: Vec<&RawValue> = serde_json::from_slice(bytes).map_err(|e| {
        let msg = e.to_string();
        let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        ApiError::input(["body"], msg, "json_invalid")
    })?;
    let max = V::CONFIG.bulk.max;
    if items.is_empty() {
        return Err(ApiError::input(["body"], "Send at least one record: the array is empty", "too_short"));
    }
    if items.len() > max {
        let msg = format!("At most {max} records in one request (max_bulk); this one has {}", items.len());
        return Err(ApiError::input(["body"], msg, "too_long"));
    }
    Ok(items)
}

/// `DELETE <prefix>/?<lookup>__in=...`: admitted as a single delete, then the keys and `V::delete_many`.
pub(crate) fn delete_route<V: Hooks>(mut request: RequestContext) -> impl Future<Output = Response> + Send {
    async move {
        let pass = enter::<V>(&mut request, Operation::Delete).await?;
        pass.answer(
            async move {
                if V::require_if_match() {
                    // One `If-Match` cannot hold the tag of every record.
                    return Err(ApiError::PreconditionRequired);
                }
                let keys = keys::<V>(&request)?;
                V::delete_many(keys, request).await
            }
            .await,
        )
    }
    .map(respond)
}

/// The keys of a bulk delete: `?<lookup>__in=` and nothing else, each value a key of `V` (400 `invalid_id`
/// otherwise), at most `max_bulk` of them, each kept once.
fn keys<V: Hooks>(request: &RequestContext) -> Result<Vec<Lookup>, ApiError> {
    let name = format!("{}__in", V::CONFIG.lookup_field);
    let example = format!("`?{name}=1,2,3`");
    request.query.check()?;
    if let Some((other, _)) = request.query.iter().find(|(key, _)| *key != name) {
        let msg = format!("A bulk delete takes only `{name}`, the records to delete ({example}), not `{other}`");
        return Err(ApiError::input(["query", other], msg, "extra_forbidden"));
    }
    let raw = request.query.one(&name)?.unwrap_or_default();
    if raw.is_empty() {
        let msg = format!("A bulk delete names the records to delete: {example}; it never deletes by filter");
        return Err(ApiError::input(["query", name.as_str()], msg, "missing"));
    }
    let max = V::CONFIG.bulk.max;
    let count = raw.split(',').count();
    if count > max {
        let msg = format!("At most {max} keys in one request (max_bulk); this one has {count}");
        return Err(ApiError::input(["query", name.as_str()], msg, "too_long"));
    }
    let mut keys: Vec<Lookup> = Vec::with_capacity(count);
    for part in raw.split(',') {
        let key = Lookup::parse::<V>(part)?;
        if !keys.iter().any(|seen| seen.value == key.value) {
            keys.push(key);
        }
    }
    Ok(keys)
}
