//! The response body a paginator builds: JSON serialized once, straight from typed values.

use axum::body::Bytes;
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::ApiError;

/// The length of the last page body serialized, plus an eighth: the next page's starting buffer.
static LAST_PAGE_BYTES: AtomicUsize = AtomicUsize::new(0);

/// A serialized JSON response body, returned by [`crate::pagination::Paginator::paginate`]. Built from any `Serialize` value
/// (a typed envelope, or `serde_json::json!` for free-form metadata) without going through a JSON tree.
///
/// ```
/// let body = viewset_core::pagination::PageBody::new(&serde_json::json!({"items": [1, 2]})).unwrap();
/// assert_eq!(body.as_bytes(), br#"{"items":[1,2]}"#);
/// ```
#[derive(Debug, Clone)]
pub struct PageBody(Bytes);

impl PageBody {
    /// Serializes `body` (a 500 only if its `Serialize` implementation fails).
    /// The buffer starts at the size of the last page serialized (at least 1 KiB, at most 256 KiB): a page grown
    /// from 1 KiB was copied three times on its way to 8 KiB.
    pub fn new<T: Serialize + ?Sized>(body: &T) -> Result<Self, ApiError> {
        let mut buffer = Vec::with_capacity(LAST_PAGE_BYTES.load(Ordering::Relaxed).clamp(1024, 256 * 1024));
        serde_json::to_writer(&mut buffer, body)
            .map_err(|e| ApiError::Database(sea_orm::DbErr::Custom(format!("serialize page: {e}"))))?;
        LAST_PAGE_BYTES.store(buffer.len() + buffer.len() / 8, Ordering::Relaxed);
        Ok(PageBody(Bytes::from(buffer)))
    }

    /// The JSON text.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl IntoResponse for PageBody {
    fn into_response(self) -> Response {
        json_response(StatusCode::OK, self.0.into())
    }
}

/// Serialized JSON as a response with `status`. Built directly: bytes as a response first get
/// `application/octet-stream`, which the JSON type would then replace (one header insert more).
pub(crate) fn json_response(status: StatusCode, body: axum::body::Body) -> Response {
    let mut response = Response::new(body);
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
