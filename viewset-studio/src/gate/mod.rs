//! The checks every Studio request passes, in order: Origin, then (when auth is required) credentials: the Studio
//! token, the application's staff session (its hook, or by default a `studio_staff` cookie signed with the Studio
//! secret, see [`staff`]), or a Studio session cookie (whose writes also need the session's CSRF header, see
//! [`session`]). A `401` of the MCP endpoint names its protected resource metadata ([`resource`]); with feature
//! `jwt` and `Studio::mcp_tokens`, that endpoint also admits an OAuth access token issued for it (`mcp_token`). The
//! gate knows the credentials, not the pages: the sign-in page it answers a browser with is the UI's, handed over
//! when Studio is mounted ([`SignInPage`]).

#[cfg(feature = "jwt")]
pub(crate) mod mcp_token;
pub(crate) mod resource;
pub(crate) mod session;
pub(crate) mod staff;

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, HOST, ORIGIN, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

use self::session::{CookieState, Sessions, append_cookies, clear_cookies, csrf_ok};
use self::staff::{StaffCookies, StaffState};
use crate::checksum::constant_time_eq;
use crate::paths::{AI_TOOLS_MCP, AI_TOOLS_MCP_METADATA, SESSION, UI, UI_ASSETS};
use crate::reply::error;
use crate::settings::StudioSettings;

/// Decides whether a request carries a valid staff session (the application's own sessions; the framework has no
/// login). Return `true` only for an authenticated staff user.
pub type StaffSessionHook = Arc<dyn Fn(&HeaderMap) -> bool + Send + Sync>;

/// The page a browser without a credential gets at `GET /studio/ui`, with its status and why the last attempt or the
/// cookie was refused (the UI's sign-in form).
pub(crate) type SignInPage = fn(StatusCode, Option<&str>) -> Response;

/// What the middleware needs.
#[derive(Clone)]
pub(crate) struct Gate {
    pub(crate) allowed_origins: Vec<String>,
    pub(crate) require_auth: bool,
    pub(crate) token: Option<String>,
    pub(crate) staff_session: Option<StaffSessionHook>,
    /// Staff session cookies signed with `studio_secret_token`, when it is set.
    pub(crate) staff_cookies: Option<StaffCookies>,
    /// Studio sessions, when `studio_secret_token` (and the token) are set.
    pub(crate) sessions: Option<Sessions>,
    /// The sign-in page of the UI.
    pub(crate) sign_in_page: SignInPage,
    /// `Studio::public_url`: the origin of the absolute URLs in the MCP endpoint's `401`.
    pub(crate) public_url: Option<String>,
    /// The scopes an MCP access token needs, space-separated: named in the MCP endpoint's `401` challenge.
    pub(crate) mcp_scope: Option<String>,
    /// `Studio::mcp_tokens`: access tokens issued for the MCP endpoint.
    #[cfg(feature = "jwt")]
    pub(crate) mcp_tokens: Option<Arc<mcp_token::McpTokenGate>>,
}

/// How a request got through the gate (a request extension the handlers read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Admission {
    /// Studio does not require authentication.
    Open,
    /// A path that checks its own credential or needs none (the sign-in, the UI's static assets).
    Exempt,
    /// The Studio token.
    Token,
    /// A staff session: the application's hook (`user: None`) or a signed `studio_staff` cookie (its user).
    StaffSession { user: Option<String> },
    /// A Studio session cookie, with its CSRF value.
    Session { csrf: String, expires_at: std::time::SystemTime },
    /// An OAuth access token issued for the MCP endpoint (`Studio::mcp_tokens`), with its subject; its `Principal`
    /// is a request extension beside this one, and the token is not forwarded to the application's routes.
    #[cfg(feature = "jwt")]
    McpToken { user: Option<String> },
}

impl Gate {
    /// The gate of `settings`, with the application's staff-session hook, the UI's sign-in page and the public
    /// origin (`Studio::public_url`).
    pub(crate) fn new(
        settings: &StudioSettings,
        staff_session: Option<StaffSessionHook>,
        sign_in_page: SignInPage,
        public_url: Option<String>,
    ) -> Self {
        Gate {
            allowed_origins: settings.studio_allowed_origins.iter().map(|o| normalize(o)).collect(),
            require_auth: settings.studio_require_auth,
            token: settings.studio_auth_token.clone(),
            staff_session,
            staff_cookies: StaffCookies::new(settings),
            sessions: Sessions::new(settings),
            sign_in_page,
            public_url,
            mcp_scope: None,
            #[cfg(feature = "jwt")]
            mcp_tokens: None,
        }
    }

    /// How the request may proceed, or its refusal: a disallowed Origin (403; the page's own origin, equal to the
    /// `Host`, is the page itself), then without a credential 401 (the sign-in page for `GET /studio/ui`), and a
    /// session-cookie write without its CSRF header 403.
    pub(crate) fn admit(&self, method: &Method, path: &str, headers: &HeaderMap) -> Result<Admission, Box<Response>> {
        if let Some(origin) = headers.get(ORIGIN) {
            let origin = origin.to_str().map(normalize).unwrap_or_default();
            let allowed =
                self.allowed_origins.iter().any(|o| o == "*" || *o == origin) || same_origin(&origin, headers);
            if !allowed {
                return Err(Box::new(error(
                    StatusCode::FORBIDDEN,
                    "This origin may not use Studio (see SERVICE_STUDIO_ALLOWED_ORIGINS).",
                    "origin_not_allowed",
                )));
            }
        }
        if !self.require_auth {
            return Ok(Admission::Open);
        }
        if exempt(method, path) {
            return Ok(Admission::Exempt);
        }
        if self.bearer_ok(headers) {
            return Ok(Admission::Token);
        }
        if self.session_ok(headers) {
            return Ok(Admission::StaffSession { user: None });
        }
        let staff = self.staff_cookies.as_ref().map_or(StaffState::Absent, |s| s.check(headers));
        if let StaffState::Valid(user) = staff {
            return Ok(Admission::StaffSession { user: Some(user) });
        }
        let state = self.sessions.as_ref().map_or(CookieState::Absent, |s| s.check(headers));
        match state {
            CookieState::Valid { csrf, expires_at } => {
                let safe = matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
                if !safe && !csrf_ok(headers, &csrf) {
                    return Err(Box::new(error(
                        StatusCode::FORBIDDEN,
                        "A Studio write signed in by the session cookie needs that session's `X-Studio-CSRF` header \
                         (the Studio page sends it).",
                        "csrf_failed",
                    )));
                }
                Ok(Admission::Session { csrf, expires_at })
            }
            CookieState::Refused(reason) => {
                let mut response = self.unauthorized(method, path, headers, Some(reason));
                append_cookies(response.headers_mut(), clear_cookies());
                Err(Box::new(response))
            }
            CookieState::Absent => {
                let reason = if let StaffState::Refused(reason) = staff { Some(reason) } else { None };
                Err(Box::new(self.unauthorized(method, path, headers, reason)))
            }
        }
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

    /// The 401 of a request without a valid credential: the sign-in page for the UI, JSON elsewhere, with a Bearer
    /// challenge: `error="invalid_token"` when a token was presented (RFC 6750), and for the MCP endpoint its
    /// protected resource metadata (`resource_metadata`, RFC 9728).
    fn unauthorized(&self, method: &Method, path: &str, headers: &HeaderMap, reason: Option<&str>) -> Response {
        if matches!(*method, Method::GET | Method::HEAD) && path == UI {
            return (self.sign_in_page)(StatusCode::UNAUTHORIZED, reason);
        }
        let detail = format!(
            "{}Studio requires its token (`X-Studio-Token: <token>` or `Authorization: Bearer <token>`), a staff session \
             or a Studio session (sign in at /studio/ui).",
            reason.map(|r| format!("{r} ")).unwrap_or_default()
        );
        let code = if reason.is_some() { "session_invalid" } else { "not_authenticated" };
        let mut response = error(StatusCode::UNAUTHORIZED, &detail, code);
        let presented = headers.contains_key(STUDIO_TOKEN) || bearer(headers).is_some();
        let mut challenge = String::from("Bearer realm=\"studio\"");
        if presented {
            challenge.push_str(", error=\"invalid_token\"");
        }
        if path == AI_TOOLS_MCP {
            if let Some(scope) = &self.mcp_scope {
                challenge.push_str(&format!(", scope=\"{scope}\""));
            }
            challenge.extend(resource::challenge_parameter(self.public_url.as_deref(), headers));
        }
        if let Ok(value) = HeaderValue::from_str(&challenge) {
            response.headers_mut().insert(WWW_AUTHENTICATE, value);
        }
        response
    }
}

/// The header that carries the Studio token when `Authorization` belongs to the application's own users.
pub const STUDIO_TOKEN: &str = "x-studio-token";

/// Whether `Authorization: Bearer …` holds the Studio `token` (compared in constant time).
pub(crate) fn authorization_is_token(headers: &HeaderMap, token: Option<&str>) -> bool {
    let Some(expected) = token else { return false };
    bearer(headers).is_some_and(|p| constant_time_eq(p.as_bytes(), expected.as_bytes()))
}

/// The token of `Authorization: Bearer …`, if any.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .map(str::trim)
}

/// Paths the gate lets through without a credential: the sign-in itself (it checks the token), the UI's static
/// assets (the sign-in page needs the style sheet; they hold no data) and the MCP endpoint's protected resource
/// metadata (how to get a credential).
fn exempt(method: &Method, path: &str) -> bool {
    (*method == Method::POST && path == SESSION)
        || (matches!(*method, Method::GET | Method::HEAD)
            && (path == AI_TOOLS_MCP_METADATA
                || path.strip_prefix(UI_ASSETS).is_some_and(|rest| rest.starts_with('/'))))
}

/// Whether `origin` (normalized) is the request's own `Host` (any scheme) and that host is a loopback name: the
/// Studio page calling the development server it was loaded from. Only loopback hosts count: under DNS rebinding a
/// hostile page's Origin equals its Host too (`evil.example:8000`), so any other host must be listed in
/// `SERVICE_STUDIO_ALLOWED_ORIGINS`.
fn same_origin(origin: &str, headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(HOST).and_then(|h| h.to_str().ok()).map(normalize) else { return false };
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host.as_str(), |(name, _)| name),
    };
    let loopback = name == "localhost" || name.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback());
    loopback && origin.split_once("://").is_some_and(|(_, authority)| !authority.is_empty() && authority == host)
}

fn normalize(origin: &str) -> String {
    origin.trim().trim_end_matches('/').to_ascii_lowercase()
}

/// The middleware: Origin first (403), then credentials (401), then CSRF (403); the [`Admission`] becomes a request
/// extension.
pub(crate) async fn check(State(gate): State<Arc<Gate>>, mut request: Request, next: Next) -> Response {
    match gate.admit(request.method(), request.uri().path(), request.headers()) {
        Ok(admission) => {
            request.extensions_mut().insert(admission);
            next.run(request).await
        }
        #[cfg(feature = "jwt")]
        Err(refusal) if refusal.status() == StatusCode::UNAUTHORIZED && request.uri().path() == AI_TOOLS_MCP => {
            let Some(tokens) = gate.mcp_tokens.clone() else { return *refusal };
            let presented = mcp_token::presented(request.headers(), gate.token.as_deref()).map(str::to_owned);
            let Some(token) = presented else { return *refusal };
            match tokens.verify(&token).await {
                mcp_token::Verdict::Admitted(principal) => {
                    let user = principal.user_id.clone();
                    request.extensions_mut().insert(principal);
                    request.extensions_mut().insert(Admission::McpToken { user });
                    next.run(request).await
                }
                mcp_token::Verdict::Refused(error) => {
                    let mut tail = String::from(", realm=\"studio\"");
                    tail.extend(resource::challenge_parameter(gate.public_url.as_deref(), request.headers()));
                    mcp_token::refusal(error, &tail)
                }
            }
        }
        Err(refusal) => *refusal,
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn host(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(HOST, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn only_a_loopback_page_is_its_own_origin() {
        assert!(same_origin("http://127.0.0.1:8000", &host("127.0.0.1:8000")));
        assert!(same_origin("http://localhost:8000", &host("localhost:8000")));
        assert!(same_origin("http://[::1]:8000", &host("[::1]:8000")));
        assert!(!same_origin("http://127.0.0.1:9000", &host("127.0.0.1:8000")), "another port is another origin");
        // DNS rebinding: a hostile name resolving to loopback has Origin == Host, and is still refused.
        assert!(!same_origin("http://evil.example:8000", &host("evil.example:8000")));
        assert!(!same_origin("http://10.0.0.5:8000", &host("10.0.0.5:8000")));
    }
}
