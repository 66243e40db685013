//! Conditional requests: a strong `ETag` per representation, `If-None-Match` on retrieve (304), `If-Match` on
//! PATCH and DELETE (412) and the opt-in [`Hooks::require_if_match`] (428).
//!
//! The tag is the BLAKE3 hash (256 bits) of the exact JSON body the caller receives, so two callers who see
//! different fields (hidden fields) get different tags for the same record, and a tag only matches the
//! representation that caller saw. BLAKE3 rather than SHA-256: both are collision-resistant, and BLAKE3 costs a
//! third of SHA-256's instructions on a CPU without SHA extensions (and no more with them), on every retrieve and
//! write (BENCHMARKS.md). `If-Match` uses the strong comparison (a weak `W/"…"` tag never matches);
//! `If-None-Match` the weak one; `*` matches any existing record.

use axum::http::header::{ETAG, IF_MATCH, IF_NONE_MATCH};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Serialize;

use crate::access::fields::visible;
use crate::contract::hooks::Hooks;
use crate::contract::viewset::{ModelOf, ViewSet};
use crate::error::ApiError;
use crate::request::RequestContext;
use crate::schema::ReadSchema;

/// The strong entity tag of a response body: `"` + base64url(BLAKE3(body)) + `"`.
///
/// ```
/// let tag = viewset_core::viewset::etag::entity_tag(br#"{"id":1}"#);
/// assert!(tag.starts_with('"') && tag.ends_with('"') && tag.len() == 45);
/// assert_ne!(tag, viewset_core::viewset::etag::entity_tag(br#"{"id":2}"#));
/// ```
pub fn entity_tag(body: &[u8]) -> String {
    let tag = tag_bytes(body);
    std::str::from_utf8(&tag).expect("base64 and quotes are ASCII").to_string()
}

/// [`entity_tag`] written on the stack.
fn tag_bytes(body: &[u8]) -> [u8; 45] {
    let mut tag = [b'"'; 45];
    let written = URL_SAFE_NO_PAD.encode_slice(blake3::hash(body).as_bytes(), &mut tag[1..44]);
    debug_assert_eq!(written, Ok(43));
    tag
}

/// `value` as a JSON response with its [`entity_tag`] in `ETag`.
///
/// ```
/// use axum::http::StatusCode;
/// let response = viewset_core::viewset::etag::tagged_json(StatusCode::OK, &serde_json::json!({"id": 1}));
/// assert!(response.headers().contains_key("etag"));
/// ```
pub fn tagged_json<T: Serialize>(status: StatusCode, value: &T) -> Response {
    tagged_body(status, serde_json::to_vec(value))
}

/// A serialized JSON body as a response with its [`entity_tag`] in `ETag` (a 500 if serializing failed).
fn tagged_body(status: StatusCode, body: serde_json::Result<Vec<u8>>) -> Response {
    match body {
        Ok(body) => {
            let tag = HeaderValue::from_bytes(&tag_bytes(&body)).expect("an entity tag is a valid header value");
            let mut response = crate::pagination::json_response(status, body.into());
            response.headers_mut().insert(ETAG, tag);
            response
        }
        Err(err) => {
            tracing::error!(error = %err, "could not serialize a response body");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                axum::Json(serde_json::json!({"detail": "Internal server error.", "code": "internal_error"})),
            )
                .into_response()
        }
    }
}

/// `model`'s detail representation as this caller receives it (hidden fields removed), as JSON bytes.
fn representation_body<V: ViewSet>(model: ModelOf<V>, request: &RequestContext) -> serde_json::Result<Vec<u8>> {
    let item = V::Detail::from_model(model);
    // Room for a typical record: `to_vec` starts at 128 bytes and grows a 300-byte record twice.
    let mut body = Vec::with_capacity(512);
    if request.hidden_fields.is_empty() && request.omitted_fields.is_empty() {
        serde_json::to_writer(&mut body, &item)?;
    } else {
        serde_json::to_writer(&mut body, &visible(&item, &request.left_out()))?;
    }
    Ok(body)
}

/// `model`'s detail representation as a response with its `ETag`: what retrieve and writes answer.
pub fn tagged_representation<V: ViewSet>(model: ModelOf<V>, request: &RequestContext, status: StatusCode) -> Response {
    tagged_body(status, representation_body::<V>(model, request))
}

/// The tag of `model`'s detail representation as this caller receives it (hidden fields removed).
pub fn representation_tag<V: ViewSet>(model: &ModelOf<V>, request: &RequestContext) -> String {
    entity_tag(&representation_body::<V>(model.clone(), request).unwrap_or_default())
}

/// The tags listed in a conditional header: `None` when it is absent, `Some(["*"])` for `*`.
fn listed(headers: &HeaderMap, name: axum::http::HeaderName) -> Option<Vec<String>> {
    let values: Vec<&HeaderValue> = headers.get_all(name).iter().collect();
    if values.is_empty() {
        return None;
    }
    let tags = values
        .iter()
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .flat_map(|v| v.split(',').map(|t| t.trim().to_string()).collect::<Vec<_>>())
        .filter(|t| !t.is_empty())
        .collect();
    Some(tags)
}

/// `If-Match` before a write (call it after the record was fetched, before writing): 412 `precondition_failed`
/// unless the header is absent, `*`, or lists the strong tag of the representation this caller sees now.
pub fn check_if_match<V: ViewSet>(request: &RequestContext, model: &ModelOf<V>) -> Result<(), ApiError> {
    let Some(tags) = listed(&request.headers, IF_MATCH) else { return Ok(()) };
    if tags.iter().any(|t| t == "*") {
        return Ok(());
    }
    let current = representation_tag::<V>(model, request);
    if tags.contains(&current) { Ok(()) } else { Err(ApiError::PreconditionFailed) }
}

/// Whether the request's write is conditional (it carries `If-Match`): the default handlers then read, compare
/// and write the record in one transaction with the row locked ([`crate::access::fetch_visible_locked`]), so two
/// writers holding the same tag cannot both succeed.
///
/// ```
/// use axum::http::HeaderMap;
/// let mut headers = HeaderMap::new();
/// assert!(!viewset_core::viewset::etag::is_conditional(&headers));
/// headers.insert("if-match", "\"abc\"".parse().unwrap());
/// assert!(viewset_core::viewset::etag::is_conditional(&headers));
/// ```
pub fn is_conditional(headers: &HeaderMap) -> bool {
    headers.contains_key(IF_MATCH)
}

/// The conditions of a write of many records (a bulk update or delete, an upsert), before it reads any: 428
/// `precondition_required` when the ViewSet `required` `If-Match` (one header cannot hold the tag of every record),
/// else 422 at `["header", "if-match"]` (`if_match_unsupported`) when the request sent one: one tag names one
/// record's version, and going ahead without the check the client asked for could overwrite a version it never saw.
pub(crate) fn unconditional_many(required: bool, request: &RequestContext, write: &str) -> Result<(), ApiError> {
    if required {
        return Err(ApiError::PreconditionRequired);
    }
    if !is_conditional(&request.headers) {
        return Ok(());
    }
    let msg = format!(
        "If-Match names one record's ETag, which {write} of many records cannot check: send a PATCH or DELETE per \
         record with its If-Match, or leave the header out"
    );
    Err(ApiError::input(["header", "if-match"], msg, "if_match_unsupported"))
}

/// 428 `precondition_required` when `V` requires `If-Match` ([`Hooks::require_if_match`]) and none was sent.
pub fn require_if_match<V: Hooks>(request: &RequestContext) -> Result<(), ApiError> {
    require_if_match_by(V::require_if_match(), request)
}

/// [`require_if_match`] for a ViewSet that `required` it or not: one function for every ViewSet.
pub(crate) fn require_if_match_by(required: bool, request: &RequestContext) -> Result<(), ApiError> {
    if required && !request.headers.contains_key(IF_MATCH) {
        return Err(ApiError::PreconditionRequired);
    }
    Ok(())
}

/// The tags of the request's `If-None-Match`, if it has one (read before the handler consumes the request).
pub fn if_none_match(headers: &HeaderMap) -> Option<Vec<String>> {
    listed(headers, IF_NONE_MATCH)
}

/// `If-None-Match` on a read: a 200 whose `ETag` the caller already has (weak comparison, or `*`) becomes a
/// 304 with the `ETag` and no body; any other response is returned as it is.
///
/// ```
/// use axum::http::{HeaderMap, StatusCode};
/// use viewset_core::viewset::etag::{if_none_match, not_modified, tagged_json};
/// let response = tagged_json(StatusCode::OK, &serde_json::json!({"id": 1}));
/// let mut headers = HeaderMap::new();
/// headers.insert("if-none-match", response.headers()["etag"].clone());
/// assert_eq!(not_modified(if_none_match(&headers), response).status(), StatusCode::NOT_MODIFIED);
/// ```
pub fn not_modified(if_none_match: Option<Vec<String>>, response: Response) -> Response {
    if response.status() != StatusCode::OK {
        return response;
    }
    let (Some(tags), Some(current)) = (if_none_match, response.headers().get(ETAG)) else {
        return response;
    };
    let current = String::from_utf8_lossy(current.as_bytes()).into_owned();
    let opaque = |t: &str| t.strip_prefix("W/").unwrap_or(t).to_string();
    if tags.iter().any(|t| t == "*" || opaque(t) == opaque(&current)) {
        let tag = response.headers().get(ETAG).cloned().expect("checked above");
        return (StatusCode::NOT_MODIFIED, [(ETAG, tag)]).into_response();
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(name: axum::http::HeaderName, values: &[&str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for v in values {
            map.append(name.clone(), HeaderValue::from_str(v).unwrap());
        }
        map
    }

    #[test]
    fn lists_are_split_and_trimmed() {
        let map = headers(IF_MATCH, &["\"a\", \"b\"", "\"c\""]);
        assert_eq!(listed(&map, IF_MATCH).unwrap(), vec!["\"a\"", "\"b\"", "\"c\""]);
        assert_eq!(listed(&HeaderMap::new(), IF_MATCH), None);
    }

    #[test]
    fn not_modified_uses_the_weak_comparison() {
        let response = tagged_json(StatusCode::OK, &serde_json::json!({"id": 1}));
        let tag = response.headers()[ETAG].to_str().unwrap().to_string();
        let request = headers(IF_NONE_MATCH, &[&format!("\"other\", W/{tag}")]);
        let answered = not_modified(if_none_match(&request), response);
        assert_eq!(answered.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(answered.headers()[ETAG].to_str().unwrap(), tag);
    }
}
