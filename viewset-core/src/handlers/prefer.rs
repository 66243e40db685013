//! `Prefer: return=minimal` (RFC 7240) on create and update. A create answers `201` with `Location` (the new
//! record's URL) and no body; an update `204` with `Location` (the record's URL) and no body; both keep the
//! representation's `ETag` and say `Preference-Applied: return=minimal`. `return=representation`, no `Prefer`, and
//! preferences this server does not know answer as before (unknown preferences are ignored, RFC 7240 §2). A bulk
//! create answers `201` and a bulk update `204`, without a body and without `Location` ([`minimal_many`]).
//!
//! The record's URL is the request's own path: a create's collection path plus the record's lookup value, an
//! update's parent path plus the lookup value it has now (a PATCH may change a slug). When the answer does not
//! carry the lookup field (a hook's own response, a field hidden from this caller), a create cannot say where the
//! record is: the preference is then not honoured and the representation is returned, as RFC 7240 allows.

use axum::body::Body;
use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE, LOCATION};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::Response;

use crate::contract::viewset::ViewSet;

/// `Preference-Applied` (RFC 7240 §3).
///
/// ```
/// assert_eq!(viewset_core::viewset::prefer::PREFERENCE_APPLIED.as_str(), "preference-applied");
/// ```
pub const PREFERENCE_APPLIED: HeaderName = HeaderName::from_static("preference-applied");

/// Whether the request's `Prefer` headers ask for `return=minimal`: the first `return` preference decides (names
/// and values compared without case, a quoted value unquoted); every other preference is ignored.
///
/// ```
/// use axum::http::HeaderMap;
/// use viewset_core::viewset::prefer::wants_minimal;
/// let mut headers = HeaderMap::new();
/// assert!(!wants_minimal(&headers));
/// headers.insert("prefer", "respond-async, Return=\"minimal\"; x=1".parse().unwrap());
/// assert!(wants_minimal(&headers));
/// headers.insert("prefer", "return=representation".parse().unwrap());
/// assert!(!wants_minimal(&headers));
/// ```
pub fn wants_minimal(headers: &HeaderMap) -> bool {
    for value in headers.get_all("prefer") {
        let Ok(value) = value.to_str() else { continue };
        for preference in value.split(',') {
            let token = preference.split(';').next().unwrap_or("");
            let (name, value) = token.split_once('=').unwrap_or((token, ""));
            if name.trim().eq_ignore_ascii_case("return") {
                return value.trim().trim_matches('"').eq_ignore_ascii_case("minimal");
            }
        }
    }
    false
}

/// What a write answered, for [`minimal`].
///
/// ```
/// use viewset_core::viewset::prefer::Written;
/// assert_ne!(Written::Created, Written::Updated);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// A create (POST on the collection): `201` becomes `201` without a body.
    Created,
    /// An update (PATCH on a record): `200` becomes `204`.
    Updated,
}

/// `response` (the representation a write answered, `201` or `200`) as its minimal form for the request at
/// `path`: no body, `Location`, `Preference-Applied: return=minimal`, the other headers kept. Any other status is
/// returned as it is, and so is a create whose body does not show the lookup field of `V`.
///
/// ```
/// # mod post { use sea_orm::entity::prelude::*;
/// # #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
/// # #[sea_orm(table_name = "posts")]
/// # pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub title: String }
/// # #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// # impl ActiveModelBehavior for ActiveModel {} }
/// # #[derive(viewset_core::ModelViewSet)] #[viewset(model = post::Entity, prefix = "/api/posts")] struct Posts;
/// # async fn run() {
/// use axum::http::StatusCode;
/// use viewset_core::viewset::prefer::{Written, minimal};
/// let created = viewset_core::viewset::etag::tagged_json(StatusCode::CREATED, &serde_json::json!({"id": 7}));
/// let answer = minimal::<Posts>(created, "/api/posts/", Written::Created).await;
/// assert_eq!(answer.status(), StatusCode::CREATED);
/// assert_eq!(answer.headers()["location"], "/api/posts/7");
/// assert_eq!(answer.headers()["preference-applied"], "return=minimal");
/// # }
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(run());
/// ```
pub fn minimal<V: ViewSet>(
    response: Response,
    path: &str,
    written: Written,
) -> impl Future<Output = Response> + Send + '_ {
    minimal_by(response, path, written, V::CONFIG.lookup_field)
}

/// [`minimal`] for a record whose URL ends with its `lookup_field` (compiled once, not per ViewSet).
pub(crate) async fn minimal_by(response: Response, path: &str, written: Written, lookup_field: &str) -> Response {
    let expected = match written {
        Written::Created => StatusCode::CREATED,
        Written::Updated => StatusCode::OK,
    };
    if response.status() != expected {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let value = lookup_value(&bytes, lookup_field);
    let location = match (written, value) {
        (Written::Created, Some(value)) => format!("{}/{value}", path.trim_end_matches('/')),
        (Written::Updated, Some(value)) => {
            format!("{}/{value}", path.rsplit_once('/').map_or("", |(parent, _)| parent))
        }
        (Written::Updated, None) => path.to_string(),
        (Written::Created, None) => return Response::from_parts(parts, Body::from(bytes)),
    };
    let Ok(location) = HeaderValue::from_str(&location) else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    parts.headers.insert(LOCATION, location);
    parts.headers.insert(PREFERENCE_APPLIED, HeaderValue::from_static("return=minimal"));
    parts.headers.remove(CONTENT_TYPE);
    parts.headers.remove(CONTENT_LENGTH);
    if written == Written::Updated {
        parts.status = StatusCode::NO_CONTENT;
    }
    Response::from_parts(parts, Body::empty())
}

/// A bulk write's answer (a bulk create's `201` or a bulk update's `200`, with the array of records) as its minimal
/// form: a create's `201` or an update's `204`, without a body, with `Preference-Applied: return=minimal`; there is
/// no one record's URL to give, so no `Location`. Any other status is returned as it is.
///
/// ```
/// use axum::http::StatusCode;
/// use axum::response::IntoResponse;
/// use viewset_core::viewset::prefer::{Written, minimal_many};
/// let created = (StatusCode::CREATED, axum::Json(serde_json::json!([{"id": 1}, {"id": 2}]))).into_response();
/// let answer = minimal_many(created, Written::Created);
/// assert_eq!(answer.status(), StatusCode::CREATED);
/// assert_eq!(answer.headers()["preference-applied"], "return=minimal");
/// assert!(answer.headers().get("content-type").is_none());
/// let updated = axum::Json(serde_json::json!([{"id": 1}])).into_response();
/// assert_eq!(minimal_many(updated, Written::Updated).status(), StatusCode::NO_CONTENT);
/// ```
pub fn minimal_many(response: Response, written: Written) -> Response {
    let expected = match written {
        Written::Created => StatusCode::CREATED,
        Written::Updated => StatusCode::OK,
    };
    if response.status() != expected {
        return response;
    }
    let (mut parts, _) = response.into_parts();
    parts.headers.insert(PREFERENCE_APPLIED, HeaderValue::from_static("return=minimal"));
    parts.headers.remove(CONTENT_TYPE);
    parts.headers.remove(CONTENT_LENGTH);
    if written == Written::Updated {
        parts.status = StatusCode::NO_CONTENT;
    }
    Response::from_parts(parts, Body::empty())
}

/// The lookup field of a JSON object body, as a path segment (percent-encoded outside RFC 3986's unreserved set).
fn lookup_value(body: &[u8], field: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let text = match value.get(field)? {
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Number(number) => number.to_string(),
        _ => return None,
    };
    let mut segment = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            segment.push(char::from(byte));
        } else {
            segment.push_str(&format!("%{byte:02X}"));
        }
    }
    (!segment.is_empty()).then_some(segment)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_lookup_value_is_one_encoded_path_segment() {
        assert_eq!(super::lookup_value(br#"{"id": 12}"#, "id").as_deref(), Some("12"));
        assert_eq!(super::lookup_value(br#"{"slug": "a b/c"}"#, "slug").as_deref(), Some("a%20b%2Fc"));
        assert_eq!(super::lookup_value(br#"{"id": null}"#, "id"), None);
        assert_eq!(super::lookup_value(b"[]", "id"), None);
    }
}
