//! The JSON body and the response of an [`ApiError`]: one body for every surface (REST, the stream, tools), and the
//! headers some errors carry (`Retry-After`, `WWW-Authenticate`, the `RateLimit` pair).

use axum::Json;
use axum::http::HeaderValue;
use axum::http::header::WWW_AUTHENTICATE;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::{ApiError, RETRY_AFTER_SECONDS};

impl ApiError {
    /// The JSON body of this error's response (what every surface reports: REST, the stream, tools).
    ///
    /// ```
    /// let body = viewset_core::ApiError::NotFound.body();
    /// assert_eq!(body["code"], "not_found");
    /// ```
    pub fn body(&self) -> serde_json::Value {
        let simple = |detail: &str, code: &str| json!({"detail": detail, "code": code});
        match self {
            ApiError::Input(errors) => json!({ "detail": errors }),
            ApiError::Validation { detail, errors } => {
                json!({"detail": detail, "code": "validation_error", "errors": errors})
            }
            ApiError::PermissionDenied(msg) => simple(msg, "permission_denied"),
            ApiError::NotFound => simple("Not found.", "not_found"),
            ApiError::NotFoundKey(k) => json!({"detail": format!("No record `{k}`"), "code": "not_found", "key": k}),
            ApiError::NotFoundRow { index, key } => json!({
                "detail": format!("No record `{key}` (row {index})"), "code": "not_found", "key": key, "index": index
            }),
            ApiError::InvalidId(msg) => simple(msg, "invalid_id"),
            ApiError::UniqueViolation(field) => {
                let mut body = simple("A record with this value already exists.", "unique_violation");
                if let Some(field) = field {
                    body["field"] = json!(field);
                }
                body
            }
            ApiError::ForeignKeyViolation => simple("A referenced record does not exist.", "foreign_key_violation"),
            ApiError::MethodNotAllowed => simple("Method not allowed.", "method_not_allowed"),
            ApiError::BodyRejected(_, msg) => simple(msg, "invalid_body"),
            ApiError::Database(_) => simple("Internal server error.", "database_error"),
            ApiError::PreconditionFailed => simple(
                "The record changed: If-Match does not match its current ETag; fetch it again.",
                "precondition_failed",
            ),
            ApiError::PreconditionRequired => {
                simple("This resource requires If-Match with the record's ETag.", "precondition_required")
            }
            ApiError::DatabaseUnavailable => {
                simple("The database is unavailable; retry after the Retry-After delay.", "database_unavailable")
            }
            ApiError::Contention => simple(
                "The database gave up on a lock held by a concurrent request (a deadlock or a lock wait timeout); \
                 nothing was written: retry after the Retry-After delay.",
                "database_busy",
            ),
            ApiError::StillReferenced => simple(
                "This record is still referenced by other records; delete or change them first.",
                "foreign_key_violation",
            ),
            ApiError::UnsupportedMediaType(msg) => simple(msg, "unsupported_media_type"),
            ApiError::UnknownPath { path, canonical } => {
                let rule = "Collection paths end with a slash (`/api/posts/`), record paths do not (`/api/posts/1`).";
                let Some(canonical) = canonical else {
                    return simple(&format!("No route for path `{path}`. {rule}"), "not_found");
                };
                let mut body =
                    simple(&format!("No route for path `{path}`; did you mean `{canonical}`? {rule}"), "not_found");
                body["canonical_path"] = json!(canonical);
                body
            }
            ApiError::Limit { status, limit, detail } => {
                let code = match status.as_u16() {
                    413 => "payload_too_large",
                    414 => "uri_too_long",
                    431 => "request_header_fields_too_large",
                    _ if *limit == "throttle_store" => "throttle_unavailable",
                    _ if *limit == "max_aggregate_time" => "statement_timeout",
                    _ if *limit != "request_timeout" => "overloaded",
                    _ => "request_timeout",
                };
                json!({"detail": detail, "code": code, "limit": limit})
            }
            ApiError::Throttled { scope, retry_after, detail, .. } => {
                json!({"detail": detail, "code": "throttled", "scope": scope, "retry_after": retry_after})
            }
            ApiError::Idempotency { code, detail, .. } => simple(detail, code),
            ApiError::Unauthorized { code, detail } => simple(detail, code),
            ApiError::InsufficientScope { scope } => json!({
                "detail": format!("The token lacks the scope this operation needs: {scope}."),
                "code": "insufficient_scope",
                "scope": scope,
            }),
            ApiError::IdentityProviderUnavailable { retry_after } => json!({
                "detail": "The identity provider's keys could not be fetched yet, so the token cannot be verified; \
                           retry after the Retry-After delay.",
                "code": "identity_provider_unavailable",
                "retry_after": retry_after,
            }),
        }
    }

    /// The `WWW-Authenticate` challenge of a 401 (RFC 6750): `Bearer` when no credential was sent, with
    /// `error="…"` and `error_description="…"` when one was refused; of a 403 `insufficient_scope`:
    /// `Bearer error="insufficient_scope", scope="…"`. `None` for every other error.
    ///
    /// ```
    /// let refused = viewset_core::ApiError::invalid_token("The token has expired.");
    /// let challenge = refused.challenge().unwrap();
    /// assert_eq!(challenge, r#"Bearer error="invalid_token", error_description="The token has expired.""#);
    /// assert_eq!(viewset_core::ApiError::not_authenticated().challenge().unwrap(), "Bearer");
    /// assert!(viewset_core::ApiError::NotFound.challenge().is_none());
    /// ```
    pub fn challenge(&self) -> Option<HeaderValue> {
        let value = match self {
            ApiError::Unauthorized { code, .. } if *code == NOT_AUTHENTICATED => {
                return Some(HeaderValue::from_static("Bearer"));
            }
            ApiError::Unauthorized { code, detail } => {
                format!(r#"Bearer error="{code}", error_description="{}""#, quoted(detail))
            }
            ApiError::InsufficientScope { scope } => {
                format!(r#"Bearer error="insufficient_scope", scope="{}""#, quoted(scope))
            }
            _ => return None,
        };
        Some(HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("Bearer")))
    }
}

/// `text` as the inside of a quoted-string: no `"` or `\` unescaped, and no control character (a header value
/// holds none).
fn quoted(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control())
        .flat_map(|c| (c == '"' || c == '\\').then_some('\\').into_iter().chain([c]))
        .collect()
}

/// The code of [`ApiError::not_authenticated`]: no credential was sent where one is required.
pub(super) const NOT_AUTHENTICATED: &str = "not_authenticated";

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Database(err) = &self {
            tracing::error!(error = %err, "database error in a generated endpoint");
        }
        let body = self.body();
        #[cfg(feature = "otel")]
        let body = crate::trace::stamped(body); // the request's trace id beside the error
        let mut response = (self.status(), Json(body)).into_response();
        if let ApiError::Throttled { retry_after, headers, scope, .. } = self {
            crate::measure::throttled(scope);
            response.headers_mut().extend(*headers);
            response.headers_mut().insert(axum::http::header::RETRY_AFTER, retry_after.into());
            return response;
        }
        if matches!(self, ApiError::Limit { limit: "throttle_store", .. }) {
            response.headers_mut().insert(axum::http::header::RETRY_AFTER, 1.into());
        }
        if let Some(challenge) = self.challenge() {
            response.headers_mut().insert(WWW_AUTHENTICATE, challenge);
        }
        if let ApiError::Contention = self {
            crate::measure::database_busy();
            response.headers_mut().insert(axum::http::header::RETRY_AFTER, 1.into());
        }
        if let ApiError::IdentityProviderUnavailable { retry_after } = self {
            response.headers_mut().insert(axum::http::header::RETRY_AFTER, retry_after.into());
        }
        if let ApiError::DatabaseUnavailable = self {
            tracing::warn!("database unavailable in a generated endpoint");
            response.headers_mut().insert(axum::http::header::RETRY_AFTER, RETRY_AFTER_SECONDS.into());
        }
        response
    }
}
