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
        let mut buffer = buffer();
        serde_json::to_writer(&mut buffer, body).map_err(refused)?;
        Ok(finished(buffer))
    }

    /// The JSON text.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// A page's JSON object written field by field, in the order they are given: the built-in paginators' envelopes.
/// A typed envelope generic over its results (`Page<Items<Model>>`) is serialized again for every model, and with
/// each serializer serde_json's struct fields reach; here the fields other than the results are written by code
/// compiled once, and the results by one serializer (build time: bench/notes/build-time-rounds.md).
pub(crate) struct Fields(Vec<u8>);

impl Fields {
    /// An empty object, its buffer sized as [`PageBody::new`]'s.
    pub(crate) fn new() -> Self {
        let mut buffer = buffer();
        buffer.push(b'{');
        Fields(buffer)
    }

    /// Writes `"name":` (`name` needs no escaping: the envelopes' own field names).
    fn name(&mut self, name: &str) {
        if self.0.len() > 1 {
            self.0.push(b',');
        }
        self.0.push(b'"');
        self.0.extend_from_slice(name.as_bytes());
        self.0.extend_from_slice(b"\":");
    }

    /// A field: a count, a link, the page's results.
    pub(crate) fn value<T: Serialize + ?Sized>(mut self, name: &str, value: &T) -> Result<Self, ApiError> {
        self.name(name);
        serde_json::to_writer(&mut self.0, value).map_err(refused)?;
        Ok(self)
    }

    /// The object, closed.
    pub(crate) fn end(mut self) -> PageBody {
        self.0.push(b'}');
        finished(self.0)
    }
}

/// A page's buffer: it starts at the size of the last page serialized (at least 1 KiB, at most 256 KiB).
fn buffer() -> Vec<u8> {
    Vec::with_capacity(LAST_PAGE_BYTES.load(Ordering::Relaxed).clamp(1024, 256 * 1024))
}

/// The serialized page, its size remembered for the next.
fn finished(buffer: Vec<u8>) -> PageBody {
    LAST_PAGE_BYTES.store(buffer.len() + buffer.len() / 8, Ordering::Relaxed);
    PageBody(Bytes::from(buffer))
}

/// A value that did not serialize (its `Serialize` implementation failed): a 500.
fn refused(e: serde_json::Error) -> ApiError {
    ApiError::Database(sea_orm::DbErr::Custom(format!("serialize page: {e}")))
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
