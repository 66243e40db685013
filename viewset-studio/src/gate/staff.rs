//! Staff sessions without glue code: the cookie `studio_staff` ([`STAFF_COOKIE`]) holding a
//! [`SessionSigner`] token signed with Studio's `studio_secret_token` whose payload is `staff:<user>`
//! ([`staff_payload`]). The application signs it at its own sign-in for a staff user (its sessions are its own; the
//! framework has no login) and Studio admits it by default, with no hook: the expiry is the token's, a changed,
//! forged, foreign-key or expired token is refused, and so is a valid token whose payload names no staff user.
//! Applications with sessions of another kind keep `Studio::staff_session`.
//!
//! Like the Studio token, the cookie only opens Studio's door: `/ai` calls do not carry it to the application, so it
//! is never an identity there.
//!
//! ```
//! use viewset_core::session::SessionSigner;
//! use viewset_studio::{STAFF_COOKIE, staff_payload};
//! let signer = SessionSigner::new("the value of SERVICE_STUDIO_SECRET_TOKEN");
//! let token = signer.sign(&staff_payload("alice"));
//! let set_cookie = format!("{STAFF_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict");
//! assert!(set_cookie.starts_with("studio_staff="));
//! ```

use axum::http::HeaderMap;
use viewset_core::session::{SessionError, SessionSigner};

use crate::settings::StudioSettings;

/// The name of the staff session cookie Studio admits by default.
pub const STAFF_COOKIE: &str = "studio_staff";

/// What a staff session's payload starts with.
const PREFIX: &str = "staff:";

/// The payload of `user`'s staff session, `staff:<user>`: sign it with a [`SessionSigner`] keyed by
/// `studio_secret_token` and set the token as the [`STAFF_COOKIE`] cookie.
///
/// ```
/// assert_eq!(viewset_studio::staff_payload("alice"), "staff:alice");
/// ```
pub fn staff_payload(user: &str) -> String {
    format!("{PREFIX}{user}")
}

/// What the request's staff cookies say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StaffState {
    /// No `studio_staff` cookie.
    Absent,
    /// A cookie that does not verify, or names no staff user.
    Refused(&'static str),
    /// A staff session of this user.
    Valid(String),
}

/// Checks staff session cookies; exists when `studio_secret_token` is set.
#[derive(Clone)]
pub(crate) struct StaffCookies {
    signer: SessionSigner,
}

impl StaffCookies {
    /// The staff sessions of `settings`, or `None` without a secret to verify them with.
    pub(crate) fn new(settings: &StudioSettings) -> Option<StaffCookies> {
        let secret = settings.studio_secret_token.as_deref().filter(|s| !s.is_empty())?;
        Some(StaffCookies { signer: SessionSigner::new(secret.as_bytes()) })
    }

    /// What the request's `studio_staff` cookies say (any valid one counts).
    pub(crate) fn check(&self, headers: &HeaderMap) -> StaffState {
        let mut state = StaffState::Absent;
        for value in super::session::cookie_values(headers, STAFF_COOKIE) {
            state = match self.signer.verify(value) {
                Ok(session) => match session.payload.strip_prefix(PREFIX) {
                    Some(user) if !user.is_empty() && !user.chars().any(char::is_control) => {
                        return StaffState::Valid(user.to_string());
                    }
                    _ => StaffState::Refused("The staff session does not name a staff user."),
                },
                Err(SessionError::Expired) => StaffState::Refused("The staff session has expired."),
                Err(_) => StaffState::Refused("The staff session is not valid."),
            };
        }
        state
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use axum::http::HeaderValue;

    use super::*;

    const SECRET: &str = "staff-secret-staff-secret-0123456";

    fn with_cookie(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("cookie", HeaderValue::from_str(&format!("theme=dark; {STAFF_COOKIE}={value}")).unwrap());
        headers
    }

    #[test]
    fn staff_non_staff_expired_forged_and_foreign() {
        let settings = StudioSettings { studio_secret_token: Some(SECRET.into()), ..StudioSettings::default() };
        assert!(StaffCookies::new(&StudioSettings::default()).is_none(), "no secret, no staff cookies");
        let cookies = StaffCookies::new(&settings).unwrap();
        let signer = SessionSigner::new(SECRET);
        assert_eq!(
            cookies.check(&with_cookie(&signer.sign(&staff_payload("alice")))),
            StaffState::Valid("alice".into())
        );
        assert_eq!(cookies.check(&HeaderMap::new()), StaffState::Absent);
        for payload in ["user:bob", "staff:", "alice", "staff:a\nb"] {
            let state = cookies.check(&with_cookie(&signer.sign(payload)));
            assert_eq!(state, StaffState::Refused("The staff session does not name a staff user."), "{payload:?}");
        }
        let old = signer.sign_at(&staff_payload("alice"), SystemTime::now() - Duration::from_secs(13 * 3600));
        assert_eq!(cookies.check(&with_cookie(&old)), StaffState::Refused("The staff session has expired."));
        let foreign = SessionSigner::new("another-secret-another-secret-01").sign(&staff_payload("alice"));
        for value in [foreign.as_str(), "forged", ""] {
            assert_eq!(cookies.check(&with_cookie(value)), StaffState::Refused("The staff session is not valid."));
        }
    }
}
