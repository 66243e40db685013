//! The Studio web UI at `/studio/ui`: one HTML page and a few plain ES modules and a style sheet, all embedded in
//! the binary ([`assets`]) and served from `/studio/ui/assets/`, under a Content-Security-Policy that allows
//! nothing but this origin (no inline script or style, no other host). The page calls the same JSON endpoints a
//! script would (the Studio ones with the session cookie and its CSRF header; the application's own routes with the
//! identity the developer chooses), so it reads no data around the API.
//!
//! The Model Browser's chart (`aggregates.js`, its geometry in `chart.js`): for a ViewSet that declares
//! `aggregates(...)`, pick a group key, a time bucket (for a date or time field) and a value (`count`, or a declared
//! `sum` / `avg` / `min` / `max` / `count_distinct`), and the page asks `GET <prefix>/aggregate` as the chosen
//! identity, with the filters and search the Model Browser applied, and draws the groups as SVG itself: bars for a
//! grouping, a line for time buckets. Its choices are the ViewSet's `aggregates` in `/ai/context/full`
//! (`crate::studio` builds it from the derive's declaration), never a list in the page.
//!
//! Signing in ([`crate::gate::session`]): when Studio requires authentication, `GET /studio/ui` without a credential is a 401
//! with a sign-in form (one password field for the Studio token) that posts to `/studio/session`; the answer sets
//! the signed session cookie and sends the browser back to the page. `DELETE /studio/session` signs out.

mod assets;
mod migrate;

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, LOCATION};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;

use crate::gate::Admission;
use crate::gate::session::{self, Sessions, append_cookies, clear_cookies, unix_seconds};
use crate::paths::{SESSION, UI, UI_ASSETS};
use crate::reply::{error, method_not_allowed};
use crate::studio::state::Inner;

/// The Content-Security-Policy of the page, the sign-in page and every asset: this origin only, no inline code.
pub(crate) const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
     connect-src 'self'; font-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// What the UI's handlers share.
struct UiState {
    inner: Arc<Inner>,
    sessions: Option<Sessions>,
    token: Option<String>,
    require_auth: bool,
}

/// The UI's routes over Studio's state (the gate is layered by the caller).
pub(crate) fn routes(inner: Arc<Inner>) -> Router {
    let settings = inner.studio.settings().clone();
    let migrate = migrate::routes(inner.clone());
    let state = Arc::new(UiState {
        sessions: Sessions::new(&settings),
        token: settings.studio_auth_token.clone(),
        require_auth: settings.studio_require_auth,
        inner,
    });
    Router::new()
        .route(UI, get(page).fallback(method_not_allowed))
        .route(&format!("{UI_ASSETS}/{{*file}}"), get(asset).fallback(method_not_allowed))
        .route(SESSION, get(describe).post(sign_in).delete(sign_out).fallback(method_not_allowed))
        .with_state(state)
        .merge(migrate)
}

/// The headers every UI response carries.
fn protect(mut response: Response, cache: &'static str) -> Response {
    let headers = response.headers_mut();
    headers.insert("content-security-policy", HeaderValue::from_static(CSP));
    headers.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    // `same-origin`, not `no-referrer`: with `no-referrer` the browser sends `Origin: null` on the page's own POSTs.
    headers.insert("referrer-policy", HeaderValue::from_static("same-origin"));
    headers.insert("x-frame-options", HeaderValue::from_static("DENY"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static(cache));
    response
}

/// Escapes text for HTML content and attribute values.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

/// The sign-in page with `status` and an optional message (why the last attempt or the cookie was refused); the gate
/// answers it to a browser at the page without a credential.
pub(crate) fn sign_in_page(status: StatusCode, message: Option<&str>) -> Response {
    let message = message.map(|m| format!("<p class=\"alert\" role=\"alert\">{}</p>", escape(m))).unwrap_or_default();
    let html = assets::SIGN_IN_HTML.replace("{{message}}", &message).replace("{{action}}", SESSION);
    protect((status, [(CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response(), "no-store")
}

async fn page(State(state): State<Arc<UiState>>, admission: Option<axum::Extension<Admission>>) -> Response {
    let (csrf, auth) = match admission.map(|a| a.0) {
        Some(Admission::Session { csrf, .. }) => (csrf, "session"),
        Some(Admission::Token) => (String::new(), "token"),
        Some(Admission::StaffSession { .. }) => (String::new(), "staff_session"),
        _ => (String::new(), "open"),
    };
    let studio = &state.inner.studio;
    let html = assets::INDEX_HTML
        .replace("{{project}}", &escape(&studio.name))
        .replace("{{csrf}}", &escape(&csrf))
        .replace("{{auth}}", auth)
        .replace("{{debug}}", if studio.settings().debug { "true" } else { "false" });
    protect(([(CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response(), "no-store")
}

async fn asset(Path(file): Path<String>) -> Response {
    match assets::find(&file) {
        Some((content_type, body)) => protect(([(CONTENT_TYPE, content_type)], body).into_response(), "no-cache"),
        None => error(StatusCode::NOT_FOUND, &format!("No Studio asset `{file}`."), "not_found"),
    }
}

/// `GET /studio/session`: how this request is admitted, and the CSRF value of its session.
async fn describe(admission: Option<axum::Extension<Admission>>) -> Response {
    let body = match admission.map(|a| a.0) {
        Some(Admission::Session { csrf, expires_at }) => {
            json!({"authenticated": true, "via": "session", "csrf": csrf, "expires_at": unix_seconds(expires_at)})
        }
        Some(Admission::Token) => json!({"authenticated": true, "via": "token", "csrf": null}),
        Some(Admission::StaffSession { user }) => {
            json!({"authenticated": true, "via": "staff_session", "csrf": null, "user": user})
        }
        _ => json!({"authenticated": false, "via": "open", "csrf": null}),
    };
    axum::Json(body).into_response()
}

/// Whether the request asked for JSON (a script signing in) rather than a page (the form).
fn wants_json(headers: &HeaderMap) -> bool {
    headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.starts_with("application/json"))
}

/// `POST /studio/session`: the Studio token (form field or JSON key `token`) for a session cookie.
async fn sign_in(State(state): State<Arc<UiState>>, headers: HeaderMap, body: Bytes) -> Response {
    let json = wants_json(&headers);
    let refuse = |status: StatusCode, detail: &str, code: &str| {
        if json { error(status, detail, code) } else { sign_in_page(status, Some(detail)) }
    };
    if !state.require_auth {
        return see_other(UI);
    }
    let (Some(sessions), Some(expected)) = (&state.sessions, &state.token) else {
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "Signing in needs SERVICE_STUDIO_SECRET_TOKEN (the secret that signs Studio sessions); the token still \
             works as `X-Studio-Token` or `Authorization: Bearer`.",
            "sessions_unavailable",
        );
    };
    let presented = if json {
        serde_json::from_slice::<serde_json::Value>(&body).ok().and_then(|v| v["token"].as_str().map(str::to_string))
    } else {
        form_urlencoded::parse(&body).find(|(k, _)| k == "token").map(|(_, v)| v.into_owned())
    };
    let presented = presented.unwrap_or_default();
    if !crate::checksum::constant_time_eq(presented.trim().as_bytes(), expected.as_bytes()) {
        return refuse(StatusCode::UNAUTHORIZED, "That is not the Studio token.", "invalid_token");
    }
    let (value, csrf) = sessions.issue();
    let mut response = if json {
        let expires = unix_seconds(std::time::SystemTime::now() + session::TTL);
        axum::Json(json!({"authenticated": true, "via": "session", "csrf": csrf, "expires_at": expires}))
            .into_response()
    } else {
        see_other(UI)
    };
    append_cookies(response.headers_mut(), sessions.set_cookies(&value, &headers));
    protect(response, "no-store")
}

/// `DELETE /studio/session`: ends the browser's session (the cookie is cleared; the gate already checked CSRF).
async fn sign_out() -> Response {
    let mut response = StatusCode::NO_CONTENT.into_response();
    append_cookies(response.headers_mut(), clear_cookies());
    response
}

fn see_other(location: &'static str) -> Response {
    (StatusCode::SEE_OTHER, [(LOCATION, location)]).into_response()
}
