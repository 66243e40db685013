//! The response body a paginator builds: JSON serialized once, straight from typed values.

use axum::body::Bytes;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::error::ApiError;

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
    pub fn new<T: Serialize + ?Sized>(body: &T) -> Result<Self, ApiError> {
        let mut buffer = Vec::with_capacity(1024);
        serde_json::to_writer(&mut buffer, body)
            .map_err(|e| ApiError::Database(sea_orm::DbErr::Custom(format!("serialize page: {e}"))))?;
        Ok(PageBody(Bytes::from(buffer)))
    }

    /// The JSON text.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl IntoResponse for PageBody {
    fn into_response(self) -> Response {
        ([(CONTENT_TYPE, "application/json")], self.0).into_response()
    }
}
