//! The checks every Studio request passes, in order: Origin, then (when auth is required) credentials.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, ORIGIN, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::StudioSettings;
use crate::checksum::constant_time_eq;

/// Decides whether a request carries a valid staff session (the application's own sessions; the framework has no
/// login). Return `true` only for an authenticated staff user.
pub type StaffSessionHook = Arc<dyn Fn(&HeaderMap) -> bool + Send + Sync>;

/// What the middleware needs.
#[derive(Clone)]
pub(crate) struct Gate {
    pub(crate) allowed_origins: Vec<String>,
    pub(crate) require_auth: bool,
    pub(crate) token: Option<String>,
    pub(crate) staff_session: Option<StaffSessionHook>,
}

impl Gate {
    pub(crate) fn new(settings: &StudioSettings, staff_session: Option<StaffSessionHook>) -> Self {
        Gate {
            allowed_origins: settings.studio_allowed_origins.iter().map(|o| normalize(o)).collect(),
            require_auth: settings.studio_require_auth,
            token: settings.studio_auth_token.clone(),
            staff_session,
        }
    }

    /// `None` when the request may proceed, else the refusal.
    pub(crate) fn refuse(&self, headers: &HeaderMap) -> Option<Response> {
        if let Some(origin) = headers.get(ORIGIN) {
            let origin = origin.to_str().map(normalize).unwrap_or_default();
            let allowed = self.allowed_origins.iter().any(|o| o == "*" || *o == origin);
            if !allowed {
                return Some(error(
                    StatusCode::FORBIDDEN,
                    "This origin may not use Studio (see SERVICE_STUDIO_ALLOWED_ORIGINS).",
                    "origin_not_allowed",
                ));
            }
        }
        if self.require_auth && !self.bearer_ok(headers) && !self.session_ok(headers) {
            let mut response = error(
                StatusCode::UNAUTHORIZED,
                "Studio requires its token (`X-Studio-Token: <token>` or `Authorization: Bearer <token>`) or a staff session.",
                "not_authenticated",
            );
            response.headers_mut().insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"studio\""));
            return Some(response);
        }
        None
    }

    fn bearer_ok(&self, headers: &HeaderMap) -> bool {
        let Some(expected) = &self.token else { return false };
        let header = headers.get(STUDIO_TOKEN).and_then(|v| v.to_str().ok()).map(str::trim);
        header.is_some_and(|p| constant_time_eq(p.as_bytes(), expected.as_bytes()))
            || authorization_is_token(headers, Some(expected.as_str()))
    }

    fn session_ok(&self, headers: &HeaderMap) -> bool {
        self.staff_session.as_ref().is_some_and(|hook| hook(headers))
    }
}

/// The header that carries the Studio token when `Authorization` belongs to the application's own users.
pub const STUDIO_TOKEN: &str = "x-studio-token";

/// Whether `Authorization: Bearer …` holds the Studio `token` (compared in constant time).
pub(crate) fn authorization_is_token(headers: &HeaderMap, token: Option<&str>) -> bool {
    let Some(expected) = token else { return false };
    let presented = headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .map(str::trim);
    presented.is_some_and(|p| constant_time_eq(p.as_bytes(), expected.as_bytes()))
}

fn normalize(origin: &str) -> String {
    origin.trim().trim_end_matches('/').to_ascii_lowercase()
}

/// A JSON error body in the framework's shape.
pub(crate) fn error(status: StatusCode, detail: &str, code: &str) -> Response {
    (status, axum::Json(json!({"detail": detail, "code": code}))).into_response()
}

/// The middleware: Origin first (403), then credentials (401).
pub(crate) async fn check(State(gate): State<Arc<Gate>>, request: Request, next: Next) -> Response {
    if let Some(refusal) = gate.refuse(request.headers()) {
        return refusal;
    }
    next.run(request).await
}

/// Reads one cookie from the `Cookie` headers.
///
/// ```
/// use axum::http::{HeaderMap, HeaderValue};
/// let mut headers = HeaderMap::new();
/// headers.insert("cookie", HeaderValue::from_static("a=1; session=xyz"));
/// assert_eq!(viewset_studio::cookie(&headers, "session").as_deref(), Some("xyz"));
/// assert_eq!(viewset_studio::cookie(&headers, "missing"), None);
/// ```
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    viewset_core::auth::cookie(headers, name).map(str::to_string)
}
