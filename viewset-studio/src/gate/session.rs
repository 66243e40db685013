//! Studio sessions: the browser's credential after signing in with the Studio token at `/studio/ui`.
//!
//! The cookie `studio_session` holds a [`SessionSigner`] token signed with `studio_secret_token`: its payload is a
//! random CSRF value and a fingerprint of the Studio token (an HMAC under the same secret, so changing the token ends
//! every session). It is set twice, `Path=/studio` and `Path=/ai` (the two trees the gate guards; the application's
//! own routes never receive it), `HttpOnly`, `SameSite=Strict`, with `Max-Age` the session's [`TTL`], and `Secure`
//! outside development or behind `X-Forwarded-Proto: https`.
//!
//! A request authenticated by this cookie alone that is not `GET`/`HEAD`/`OPTIONS` must carry the session's CSRF
//! value as `X-Studio-CSRF` (the page reads it from its `<meta name="studio-csrf">`); without it the gate answers
//! 403 `csrf_failed`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::http::header::SET_COOKIE;
use axum::http::{HeaderMap, HeaderValue};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use viewset_core::session::{SessionError, SessionSigner};

use crate::settings::{Environment, StudioSettings};

/// The cookie's name.
pub(crate) const COOKIE: &str = "studio_session";
/// The header that carries the session's CSRF value on writes.
pub(crate) const CSRF_HEADER: &str = "x-studio-csrf";
/// How long a session lasts: a working day; signing in again is one field.
pub(crate) const TTL: Duration = Duration::from_secs(8 * 60 * 60);
/// The paths the cookie is set for: the two trees behind the gate.
const COOKIE_PATHS: [&str; 2] = ["/studio", "/ai"];

/// What the cookie of a request says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CookieState {
    /// No `studio_session` cookie.
    Absent,
    /// A cookie that does not verify: forged, tampered, signed with another secret, expired, or made for an earlier
    /// Studio token.
    Refused(&'static str),
    /// A valid session.
    Valid { csrf: String, expires_at: SystemTime },
}

/// Signs and checks Studio sessions; exists only when both `studio_secret_token` and `studio_auth_token` are set.
#[derive(Clone)]
pub(crate) struct Sessions {
    signer: SessionSigner,
    fingerprint: String,
    secure: bool,
}

fn fingerprint(secret: &str, token: &str) -> String {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.as_bytes()).expect("HMAC accepts any key length");
    mac.update(b"viewset-studio-token:");
    mac.update(token.as_bytes());
    hex::encode(&mac.finalize().into_bytes()[..16])
}

impl Sessions {
    /// The sessions of `settings`, or `None` without a secret or a token to sign in with.
    pub(crate) fn new(settings: &StudioSettings) -> Option<Sessions> {
        let secret = settings.studio_secret_token.as_deref().filter(|s| !s.is_empty())?;
        let token = settings.studio_auth_token.as_deref()?;
        Some(Sessions {
            signer: SessionSigner::new(secret.as_bytes()).with_ttl(TTL),
            fingerprint: fingerprint(secret, token),
            secure: settings.environment != Environment::Development,
        })
    }

    /// A new session: the cookie value and its CSRF value.
    pub(crate) fn issue(&self) -> (String, String) {
        let mut random = [0u8; 32];
        getrandom::fill(&mut random).expect("the operating system provides random bytes");
        let csrf = URL_SAFE_NO_PAD.encode(random);
        (self.signer.sign(&format!("{csrf}~{}", self.fingerprint)), csrf)
    }

    /// What the request's `studio_session` cookies say (any valid one counts).
    pub(crate) fn check(&self, headers: &HeaderMap) -> CookieState {
        let mut state = CookieState::Absent;
        for value in cookie_values(headers, COOKIE) {
            match self.signer.verify(value) {
                Ok(session) => {
                    let Some((csrf, fp)) = session.payload.split_once('~') else {
                        state = CookieState::Refused("The Studio session is not valid.");
                        continue;
                    };
                    if !crate::checksum::constant_time_eq(fp.as_bytes(), self.fingerprint.as_bytes()) {
                        state = CookieState::Refused("The Studio session was made for an earlier Studio token.");
                        continue;
                    }
                    return CookieState::Valid { csrf: csrf.to_string(), expires_at: session.expires_at };
                }
                Err(SessionError::Expired) => state = CookieState::Refused("The Studio session has expired."),
                Err(_) => state = CookieState::Refused("The Studio session is not valid."),
            }
        }
        state
    }

    /// The `Set-Cookie` values of a new session (one per guarded path).
    pub(crate) fn set_cookies(&self, value: &str, headers: &HeaderMap) -> Vec<HeaderValue> {
        let secure = self.secure || forwarded_https(headers);
        cookies(value, TTL.as_secs(), secure)
    }
}

/// The `Set-Cookie` values that end a session in the browser.
pub(crate) fn clear_cookies() -> Vec<HeaderValue> {
    cookies("", 0, false)
}

/// Appends `cookies` to `headers` as `Set-Cookie`.
pub(crate) fn append_cookies(headers: &mut HeaderMap, cookies: Vec<HeaderValue>) {
    for cookie in cookies {
        headers.append(SET_COOKIE, cookie);
    }
}

fn cookies(value: &str, max_age: u64, secure: bool) -> Vec<HeaderValue> {
    COOKIE_PATHS
        .iter()
        .map(|path| {
            let secure = if secure { "; Secure" } else { "" };
            let cookie = format!("{COOKIE}={value}; Path={path}; Max-Age={max_age}; HttpOnly; SameSite=Strict{secure}");
            HeaderValue::from_str(&cookie).expect("a signed token is a valid header value")
        })
        .collect()
}

fn forwarded_https(headers: &HeaderMap) -> bool {
    headers.get("x-forwarded-proto").and_then(|v| v.to_str().ok()).is_some_and(|v| v.eq_ignore_ascii_case("https"))
}

/// Every value of the cookie `cookie` in the request.
pub(crate) fn cookie_values<'h>(headers: &'h HeaderMap, cookie: &'h str) -> impl Iterator<Item = &'h str> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .filter(move |(name, _)| *name == cookie)
        .map(|(_, value)| value.trim())
}

/// A `Cookie` header value without Studio's cookies, `studio_session` and `studio_staff` (`None` when nothing else
/// is left), for the requests `/ai` makes to the application: Studio's credentials never reach it.
pub(crate) fn without_session_cookie(value: &HeaderValue) -> Option<HeaderValue> {
    let text = value.to_str().ok()?;
    let studio = [COOKIE, super::staff::STAFF_COOKIE];
    let kept: Vec<&str> = text
        .split(';')
        .map(str::trim)
        .filter(|pair| !pair.is_empty() && pair.split_once('=').is_none_or(|(name, _)| !studio.contains(&name)))
        .collect();
    if kept.is_empty() { None } else { HeaderValue::from_str(&kept.join("; ")).ok() }
}

/// Whether the request's `X-Studio-CSRF` equals `csrf` (constant-time).
pub(crate) fn csrf_ok(headers: &HeaderMap, csrf: &str) -> bool {
    let presented = headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok()).unwrap_or_default();
    !presented.is_empty() && crate::checksum::constant_time_eq(presented.as_bytes(), csrf.as_bytes())
}

/// Seconds since the Unix epoch (for the session's JSON).
pub(crate) fn unix_seconds(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(secret: Option<&str>, token: &str) -> StudioSettings {
        StudioSettings {
            enable_studio: true,
            studio_require_auth: true,
            studio_auth_token: Some(token.into()),
            studio_secret_token: secret.map(str::to_string),
            ..StudioSettings::default()
        }
    }

    fn with_cookie(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("cookie", HeaderValue::from_str(&format!("theme=dark; {COOKIE}={value}")).unwrap());
        headers
    }

    #[test]
    fn issue_check_and_refusals() {
        assert!(Sessions::new(&settings(None, "t")).is_none(), "no secret, no sessions");
        let sessions = Sessions::new(&settings(Some("secret-secret-secret"), "t")).unwrap();
        let (value, csrf) = sessions.issue();
        match sessions.check(&with_cookie(&value)) {
            CookieState::Valid { csrf: found, .. } => assert_eq!(found, csrf),
            other => panic!("{other:?}"),
        }
        assert_eq!(sessions.check(&HeaderMap::new()), CookieState::Absent);
        assert!(matches!(sessions.check(&with_cookie("forged")), CookieState::Refused(_)));
        // Another secret, and another token under the same secret.
        let foreign = Sessions::new(&settings(Some("another-secret-value"), "t")).unwrap().issue().0;
        assert!(matches!(sessions.check(&with_cookie(&foreign)), CookieState::Refused(_)));
        let earlier_token = Sessions::new(&settings(Some("secret-secret-secret"), "old")).unwrap().issue().0;
        assert_eq!(
            sessions.check(&with_cookie(&earlier_token)),
            CookieState::Refused("The Studio session was made for an earlier Studio token.")
        );
        // An expired one.
        let old = sessions.signer.sign_at("x~y", SystemTime::now() - TTL - Duration::from_secs(1));
        assert_eq!(sessions.check(&with_cookie(&old)), CookieState::Refused("The Studio session has expired."));
    }

    #[test]
    fn cookie_flags_and_csrf() {
        let sessions = Sessions::new(&settings(Some("secret-secret-secret"), "t")).unwrap();
        let set = sessions.set_cookies("v", &HeaderMap::new());
        assert_eq!(set.len(), 2);
        assert_eq!(set[0], "studio_session=v; Path=/studio; Max-Age=28800; HttpOnly; SameSite=Strict");
        assert_eq!(set[1], "studio_session=v; Path=/ai; Max-Age=28800; HttpOnly; SameSite=Strict");
        let mut https = HeaderMap::new();
        https.insert("x-forwarded-proto", HeaderValue::from_static("https"));
        assert!(sessions.set_cookies("v", &https)[0].to_str().unwrap().ends_with("; Secure"));
        assert!(clear_cookies()[0].to_str().unwrap().contains("Max-Age=0"));
        let mut headers = HeaderMap::new();
        assert!(!csrf_ok(&headers, "abc"));
        headers.insert(CSRF_HEADER, HeaderValue::from_static("abd"));
        assert!(!csrf_ok(&headers, "abc"));
        headers.insert(CSRF_HEADER, HeaderValue::from_static("abc"));
        assert!(csrf_ok(&headers, "abc"));
        assert!(!csrf_ok(&HeaderMap::new(), ""));
    }

    #[test]
    fn the_session_cookie_is_removed_from_forwarded_cookies() {
        let strip = |v: &'static str| without_session_cookie(&HeaderValue::from_static(v));
        assert_eq!(strip("theme=dark; studio_session=abc; blog_session=x").unwrap(), "theme=dark; blog_session=x");
        assert_eq!(strip("studio_staff=t; a=1").unwrap(), "a=1");
        assert_eq!(strip("studio_session=abc"), None);
        assert_eq!(strip("a=1").unwrap(), "a=1");
    }
}
