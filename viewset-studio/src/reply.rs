//! What every Studio and `/ai` answer shares: the JSON error body in the framework's shape, the JSON 405, and the
//! time stamps.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// A JSON error body in the framework's shape.
pub(crate) fn error(status: StatusCode, detail: &str, code: &str) -> Response {
    (status, Json(json!({"detail": detail, "code": code}))).into_response()
}

/// The JSON 405 of a Studio or `/ai` path asked with a method it does not answer.
pub(crate) async fn method_not_allowed() -> Response {
    error(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed.", "method_not_allowed")
}

/// Now, as ISO 8601 UTC with milliseconds.
pub(crate) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
