//! The bulk routes of a ViewSet with `#[viewset(bulk)]`, on a path of their own so that each is one typed
//! operation: `POST <prefix>/bulk` with a JSON array of records, `PATCH <prefix>/bulk` with a JSON array of partial
//! records naming their keys, and `DELETE <prefix>/bulk?<lookup>__in=1,2,3`. Admission is the single routes' own ([`crate::access::enter`] with
//! `Create`, `Update` or `Delete`); each row of a body is read as a single create's or PATCH's body is
//! ([`parse_body`]), its errors located at its index.

use axum::body::Body;
use axum::body::Bytes;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::entry::{self, BodyBytes, RouteFuture};
use super::ops::Ops;
use crate::boxed::boxed;
use crate::boxed::send;
use crate::contract::config::Config;
use crate::contract::hooks::Hooks;
use crate::contract::lookup::Lookup;
use crate::error::{ApiError, InputError};
use crate::handlers::bulk::at_row;
use crate::handlers::etag::unconditional_many;
use crate::handlers::prefer::{self, Written};
use crate::idempotency::key::IDEMPOTENCY_KEY;
use crate::idempotency::once::{once, write};
use crate::registration::routes::{collection_write, create_shape, parse_body, respond, update_shape};
use crate::request::RequestContext;
use crate::types::operation::Operation;

/// Whether a create body is a JSON array (its first character other than white space is `[`).
pub(crate) fn is_array(bytes: &[u8]) -> bool {
    bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
}

/// `POST <prefix>/bulk`: admitted as a single create, the `Idempotency-Key` claimed as a single create claims it,
/// then the ViewSet's bulk create.
pub(crate) fn create_run(ops: &'static Ops, request: RequestContext, parts: Parts, body: Body) -> RouteFuture {
    collection_write(ops, request, (parts, body), create_many)
}

/// A bulk create after admission, before the ViewSet's types: the body and `Prefer`.
async fn create_many(ops: &'static Ops, request: RequestContext, bytes: BodyBytes) -> Result<Response, ApiError> {
    let bytes = bytes.map_err(|e| ApiError::BodyRejected(e.status(), e.body_text()))?;
    let minimal = prefer::wants_minimal(&request.headers);
    let route = ops.bulk_create.ok_or(ApiError::NotFound)?;
    route(request, bytes, minimal).await
}

/// A single create's refusal of an array body: a 422 naming `POST <prefix>/bulk` when the ViewSet has it.
pub(crate) fn not_here(config: &Config, request: &RequestContext) -> ApiError {
    let msg = if config.bulk.create {
        let path = crate::contract::paths::bulk(crate::contract::paths::base(request.uri.path()));
        format!(
            "Input should be one record (a JSON object); to create many in one request, send the array to `POST {path}`"
        )
    } else {
        "Input should be one record (a JSON object); this resource creates one record per request".to_string()
    };
    ApiError::input(["body"], msg, "model_type")
}

/// A bulk create of `V` after admission: the rows, `V::create_many`, and the minimal answer when `Prefer` asks for it.
pub(crate) async fn create<V: Hooks>(
    request: RequestContext,
    bytes: Bytes,
    minimal: bool,
) -> Result<Response, ApiError> {
    crate::schema::require_json(&request.headers, &bytes)?;
    let rows = rows::<V>(&bytes, &request)?;
    let response = V::create_many(rows, request).await?;
    Ok(if minimal { prefer::minimal_many(response, Written::Created) } else { response })
}

/// The rows of a bulk body: at least one, at most `max_bulk`, each an object a single create accepts. The errors of
/// every row are reported together, each at `["body", "<index>", ...]`.
fn rows<V: Hooks>(bytes: &[u8], request: &RequestContext) -> Result<Vec<V::Create>, ApiError> {
    if !is_array(bytes) {
        let msg = "A bulk create is a JSON array of records (one record: `POST` the collection)";
        return Err(ApiError::input(["body"], msg, "list_type"));
    }
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

/// `DELETE <prefix>/bulk?<lookup>__in=...`: admitted as a single delete, then the keys and `V::delete_many`.
pub(crate) fn delete_run<V: Hooks>(ops: &'static Ops, mut request: RequestContext, _: Parts, _: Body) -> RouteFuture {
    send(async move {
        let pass = match ops.enter(&mut request, Operation::Delete).await {
            Ok(pass) => pass,
            Err(refused) => return refused.into_response(),
        };
        let keys = unconditional_many(V::require_if_match(), &request, "a delete").and_then(|()| keys::<V>(&request));
        let answer = match keys {
            Ok(keys) => V::delete_many(keys, request).await,
            Err(err) => Err(err),
        };
        respond(pass.answer(answer))
    })
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

/// `PATCH <prefix>/bulk` with a JSON array: admitted as a single PATCH (`Update`), the `Idempotency-Key` claimed as a
/// single PATCH claims it, then the rows and `V::update_many`.
pub(crate) fn update_run<V: Hooks>(
    ops: &'static Ops,
    mut request: RequestContext,
    parts: Parts,
    body: Body,
) -> RouteFuture {
    send(async move {
        let bytes = entry::bytes(parts, body).await;
        let pass = match ops.enter(&mut request, Operation::Update).await {
            Ok(pass) => pass,
            Err(refused) => return refused.into_response(),
        };
        let answer = if !request.headers.contains_key(IDEMPOTENCY_KEY) {
            update::<V>(request, bytes).await
        } else {
            boxed(|| once(request, bytes, write(update::<V>))).await
        };
        respond(pass.answer(answer))
    })
}

/// A bulk update after admission: the rows, `V::update_many`, and the minimal answer (204) when `Prefer` asks.
#[allow(clippy::manual_async_fn)]
fn update<V: Hooks>(
    request: RequestContext,
    bytes: BodyBytes,
) -> impl Future<Output = Result<Response, ApiError>> + Send {
    async move {
        unconditional_many(V::require_if_match(), &request, "an update")?;
        let bytes = bytes.map_err(|e| ApiError::BodyRejected(e.status(), e.body_text()))?;
        crate::schema::require_json(&request.headers, &bytes)?;
        let minimal = prefer::wants_minimal(&request.headers);
        let rows = update_rows::<V>(&bytes, &request)?;
        let response = V::update_many(rows, request).await?;
        Ok(if minimal { prefer::minimal_many(response, Written::Updated) } else { response })
    }
}

/// The rows of a bulk update: at least one, at most `max_bulk`, each an object naming its record by the lookup
/// field (each key once) with a PATCH body beside it. The errors of every row are reported together, each at
/// `["body", "<index>", ...]`.
fn update_rows<V: Hooks>(bytes: &[u8], request: &RequestContext) -> Result<Vec<(Lookup, V::Update)>, ApiError> {
    let lookup = V::CONFIG.lookup_field;
    if !is_array(bytes) {
        let msg = format!("A bulk update is a JSON array of records, each naming its `{lookup}`");
        return Err(ApiError::input(["body"], msg, "list_type"));
    }
    let items = items::<V>(bytes)?;
    let mut rows: Vec<(Lookup, V::Update)> = Vec::with_capacity(items.len());
    // The keys seen so far, by their typed value (`7` and `"7"` name one record).
    let mut seen = std::collections::HashSet::with_capacity(items.len());
    let mut errors = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let mut found = Vec::new();
        let Ok(Entries(entries)) = serde_json::from_str::<Entries>(item.get()) else {
            let error = InputError::new(["body"], "Input should be a valid JSON object", "model_type");
            errors.push(at_row(index, error));
            continue;
        };
        let (key, body) = split_key(entries, lookup);
        let key = match row_key::<V>(key, lookup) {
            Ok(key) if !seen.insert(format!("{:?}", key.value)) => {
                let msg = format!("Two rows name the {lookup} `{}`: each record once per request", key.raw);
                found.push(InputError::new(["body", lookup], msg, "duplicate_key"));
                None
            }
            Ok(key) => Some(key),
            Err(error) => {
                found.push(error);
                None
            }
        };
        let data = match parse_body::<V::Update>(body.as_bytes(), request, update_shape::<V>) {
            Ok(data) => Some(data),
            Err(ApiError::Input(more)) => {
                found.extend(more);
                None
            }
            Err(other) => return Err(other),
        };
        match (key, data) {
            (Some(key), Some(data)) if found.is_empty() => rows.push((key, data)),
            _ => errors.extend(found.into_iter().map(|e| at_row(index, e))),
        }
    }
    if errors.is_empty() { Ok(rows) } else { Err(ApiError::Input(errors)) }
}

/// A row's lookup value (its first occurrence) and the rest of the row as a PATCH body's JSON text (a second
/// occurrence of the lookup field stays in the body, which refuses it as a PATCH body would).
fn split_key<'a>(entries: Vec<(String, &'a RawValue)>, lookup: &str) -> (Option<&'a RawValue>, String) {
    let mut key = None;
    let mut body = String::from("{");
    for (name, value) in entries {
        if name == lookup && key.is_none() {
            key = Some(value);
            continue;
        }
        if body.len() > 1 {
            body.push(',');
        }
        body.push_str(&serde_json::Value::String(name).to_string());
        body.push(':');
        body.push_str(value.get());
    }
    body.push('}');
    (key, body)
}

/// The key a row names: a string or a number of the lookup field's type (422 at the field otherwise).
fn row_key<V: Hooks>(value: Option<&RawValue>, lookup: &str) -> Result<Lookup, InputError> {
    let missing = || InputError::new(["body", lookup], format!("Each row names its record by `{lookup}`"), "missing");
    let raw = match value.map(|value| serde_json::from_str::<serde_json::Value>(value.get())) {
        None | Some(Ok(serde_json::Value::Null)) => return Err(missing()),
        Some(Ok(serde_json::Value::String(text))) => text,
        // `14913.0` is the integer 14913, as JSON Schema and the body's integer fields read it.
        Some(Ok(serde_json::Value::Number(number))) => integral(&number).unwrap_or_else(|| number.to_string()),
        Some(Ok(value @ serde_json::Value::Bool(_))) => value.to_string(),
        // An array, an object, or a number out of every range.
        Some(_) => {
            let msg = format!("`{lookup}` names one record: a string or a number");
            return Err(InputError::new(["body", lookup], msg, "invalid_id"));
        }
    };
    if raw.contains('\0') {
        let msg = "Input should not contain the NUL character (\\u0000)";
        return Err(InputError::new(["body", lookup], msg, "string_nul"));
    }
    Lookup::parse::<V>(&raw).map_err(|error| {
        let msg = match error {
            ApiError::InvalidId(msg) => msg,
            _ => format!("`{raw}` is not a valid identifier for this resource."),
        };
        InputError::new(["body", lookup], msg, "invalid_id")
    })
}

/// A number written with a fraction of zero (`14913.0`, `-2e3`) as the integer it is; `None` for any other.
fn integral(number: &serde_json::Number) -> Option<String> {
    let value = number.as_f64().filter(|_| number.is_f64())?;
    (value.fract() == 0.0 && value.abs() < 9.0e15).then(|| format!("{}", value as i64))
}

/// A JSON object's members in order, the values unparsed (duplicate names kept).
struct Entries<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Entries<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Members<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Members<'a> {
            type Value = Entries<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries<'a>, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, &'a RawValue>()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }
        deserializer.deserialize_map(Members(std::marker::PhantomData))
    }
}
