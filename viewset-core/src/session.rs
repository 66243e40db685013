//! Signed, expiring session tokens: a payload the application chooses (a user id, a session id, a CSRF value),
//! its expiry time and an HMAC-SHA256 tag (the [`hmac`] and [`sha2`] crates), as one string to put in a cookie. It
//! installs no route and no middleware: the application signs at its own sign-in and verifies where it reads the
//! cookie (e.g. in the verifier of [`crate::auth::Authenticate::cookie`]).
//!
//! The token is `<expiry>.<payload>.<tag>`: the expiry in Unix seconds, the payload and the tag base64url without
//! padding; the tag covers a version label, the expiry and the payload. The payload is signed, not encrypted:
//! whoever holds the token can read it, so put no secret in it. Verification compares tags in constant time
//! (`Mac::verify_slice`) and refuses, each with its own [`SessionError`], a token that is not of this shape, one
//! whose tag no key of the signer made (tampered, forged, or signed with a key the signer does not know), and one
//! whose expiry has passed.
//!
//! **Key rotation**: a signer signs with its newest key and verifies with every key it holds. Rotate by making the
//! new key the signing key and keeping the old one for verification until the tokens it signed have expired
//! ([`SessionSigner::rotate`]), then drop it.
//!
//! ```
//! use std::time::Duration;
//! use viewset_core::session::{SessionError, SessionSigner};
//!
//! let signer = SessionSigner::new(b"a long random secret from your configuration").with_ttl(Duration::from_secs(3600));
//! let token = signer.sign("user:42");
//! assert_eq!(signer.verify(&token).unwrap().payload, "user:42");
//!
//! // A changed part is refused: here a later expiry.
//! let (expires, rest) = token.split_once('.').unwrap();
//! let extended = format!("{}.{rest}", expires.parse::<u64>().unwrap() + 86_400);
//! assert_eq!(signer.verify(&extended).unwrap_err(), SessionError::BadSignature);
//! // Another secret's token is refused.
//! let foreign = SessionSigner::new(b"another secret of the same length, or not").sign("user:42");
//! assert_eq!(signer.verify(&foreign).unwrap_err(), SessionError::BadSignature);
//!
//! // Rotation: the new key signs, the old one still verifies what it signed.
//! let rotated = signer.clone().rotate(b"the next secret, from the next deployment");
//! assert_eq!(rotated.verify(&token).unwrap().payload, "user:42");
//! assert!(signer.verify(&rotated.sign("user:7")).is_err(), "the old signer does not know the new key");
//! ```

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The label the tag covers first: a token of another format (or a future version of this one) never verifies.
const LABEL: &[u8] = b"viewset-session-v1.";

/// How long a token lives unless [`SessionSigner::with_ttl`] says otherwise: 12 hours.
pub const DEFAULT_TTL: Duration = Duration::from_secs(12 * 60 * 60);

/// Why a token was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionError {
    /// Not `<expiry>.<payload>.<tag>` with a number and two base64url parts.
    Malformed,
    /// No key of this signer made the tag: the token was changed, forged, or signed with another key.
    BadSignature,
    /// The tag is right but the expiry has passed.
    Expired,
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SessionError::Malformed => "the session token is malformed",
            SessionError::BadSignature => "the session token's signature is not valid",
            SessionError::Expired => "the session token has expired",
        })
    }
}

impl std::error::Error for SessionError {}

/// A verified token: its payload and when it expires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// What was signed.
    pub payload: String,
    /// When the token stops verifying.
    pub expires_at: SystemTime,
}

/// Signs and verifies session tokens with HMAC-SHA256; see the [module](self) for the format and the rules.
///
/// Keys should be at least 32 random bytes (e.g. `openssl rand -base64 32`) and kept secret; a signer's `Debug`
/// never prints them.
#[derive(Clone)]
pub struct SessionSigner {
    /// The newest key first: it signs; every key verifies.
    keys: Vec<Hmac<Sha256>>,
    ttl: Duration,
}

impl std::fmt::Debug for SessionSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionSigner").field("keys", &self.keys.len()).field("ttl", &self.ttl).finish()
    }
}

fn mac(key: &[u8]) -> Hmac<Sha256> {
    assert!(!key.is_empty(), "a session signing key must not be empty");
    <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC accepts any key length")
}

fn unix(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

impl SessionSigner {
    /// A signer with one key and the [`DEFAULT_TTL`].
    ///
    /// # Panics
    ///
    /// When `key` is empty.
    pub fn new(key: impl AsRef<[u8]>) -> Self {
        SessionSigner { keys: vec![mac(key.as_ref())], ttl: DEFAULT_TTL }
    }

    /// Tokens signed from now on live `ttl` (at least one second).
    ///
    /// ```
    /// let signer = viewset_core::session::SessionSigner::new(b"k").with_ttl(std::time::Duration::from_secs(60));
    /// assert_eq!(signer.ttl().as_secs(), 60);
    /// ```
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl.max(Duration::from_secs(1));
        self
    }

    /// Adds `key` for verification only (an older key whose tokens may still be in use).
    ///
    /// ```
    /// use viewset_core::session::SessionSigner;
    /// let old = SessionSigner::new(b"old key");
    /// let token = old.sign("x");
    /// let signer = SessionSigner::new(b"new key").with_previous_key(b"old key");
    /// assert_eq!(signer.verify(&token).unwrap().payload, "x");
    /// ```
    ///
    /// # Panics
    ///
    /// When `key` is empty.
    pub fn with_previous_key(mut self, key: impl AsRef<[u8]>) -> Self {
        self.keys.push(mac(key.as_ref()));
        self
    }

    /// Makes `newest` the signing key; the keys so far keep verifying.
    ///
    /// # Panics
    ///
    /// When `newest` is empty.
    pub fn rotate(mut self, newest: impl AsRef<[u8]>) -> Self {
        self.keys.insert(0, mac(newest.as_ref()));
        self
    }

    /// How long a token signed now lives.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// A token for `payload`, valid for [`SessionSigner::ttl`] from now.
    pub fn sign(&self, payload: &str) -> String {
        self.sign_at(payload, SystemTime::now())
    }

    /// A token for `payload` signed at `now` (for tests and for callers with their own clock).
    pub fn sign_at(&self, payload: &str, now: SystemTime) -> String {
        let expires = unix(now) + self.ttl.as_secs().max(1);
        let body = format!("{expires}.{}", URL_SAFE_NO_PAD.encode(payload.as_bytes()));
        let tag = self.tag(&self.keys[0], &body).finalize().into_bytes();
        format!("{body}.{}", URL_SAFE_NO_PAD.encode(tag))
    }

    /// The payload of `token` if one of this signer's keys signed it and it has not expired.
    pub fn verify(&self, token: &str) -> Result<Session, SessionError> {
        self.verify_at(token, SystemTime::now())
    }

    /// [`SessionSigner::verify`] as of `now`. The signature is checked before the expiry, so a forged token is
    /// [`SessionError::BadSignature`] whatever expiry it claims.
    ///
    /// ```
    /// use std::time::{Duration, SystemTime};
    /// use viewset_core::session::{SessionError, SessionSigner};
    ///
    /// let signer = SessionSigner::new(b"k").with_ttl(Duration::from_secs(60));
    /// let issued = SystemTime::now();
    /// let token = signer.sign_at("x", issued);
    /// assert!(signer.verify_at(&token, issued + Duration::from_secs(59)).is_ok());
    /// assert_eq!(signer.verify_at(&token, issued + Duration::from_secs(61)), Err(SessionError::Expired));
    /// ```
    pub fn verify_at(&self, token: &str, now: SystemTime) -> Result<Session, SessionError> {
        let (body, tag) = token.rsplit_once('.').ok_or(SessionError::Malformed)?;
        let (expires, payload) = body.split_once('.').ok_or(SessionError::Malformed)?;
        if expires.is_empty() || !expires.bytes().all(|b| b.is_ascii_digit()) {
            return Err(SessionError::Malformed);
        }
        let expires: u64 = expires.parse().map_err(|_| SessionError::Malformed)?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| SessionError::Malformed)?;
        let payload = URL_SAFE_NO_PAD.decode(payload).map_err(|_| SessionError::Malformed)?;
        if !self.keys.iter().any(|key| self.tag(key, body).verify_slice(&tag).is_ok()) {
            return Err(SessionError::BadSignature);
        }
        if unix(now) >= expires {
            return Err(SessionError::Expired);
        }
        let payload = String::from_utf8(payload).map_err(|_| SessionError::Malformed)?;
        Ok(Session { payload, expires_at: UNIX_EPOCH + Duration::from_secs(expires) })
    }

    fn tag(&self, key: &Hmac<Sha256>, body: &str) -> Hmac<Sha256> {
        let mut mac = key.clone();
        mac.update(LABEL);
        mac.update(body.as_bytes());
        mac
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

    fn signer() -> SessionSigner {
        SessionSigner::new(KEY).with_ttl(Duration::from_secs(600))
    }

    #[test]
    fn round_trip_keeps_any_payload() {
        let s = signer();
        for payload in ["", "user:42", "a.b.c", "ünïcødé ✓", "{\"csrf\":\"x\"}"] {
            let token = s.sign(payload);
            assert_eq!(token.matches('.').count(), 2, "{token}");
            let session = s.verify(&token).unwrap();
            assert_eq!(session.payload, payload);
            let left = session.expires_at.duration_since(SystemTime::now()).unwrap();
            assert!(left <= Duration::from_secs(600) && left > Duration::from_secs(590), "{left:?}");
        }
    }

    #[test]
    fn every_single_change_is_refused() {
        let s = signer();
        let token = s.sign("user:42");
        for i in 0..token.len() {
            let mut bytes = token.clone().into_bytes();
            bytes[i] = match bytes[i] {
                b'.' => continue,
                b'A' => b'B',
                _ => b'A',
            };
            let tampered = String::from_utf8(bytes).unwrap();
            assert!(s.verify(&tampered).is_err(), "changed byte {i}: {tampered}");
        }
        // A later expiry with the old tag.
        let (expires, rest) = token.split_once('.').unwrap();
        let later = format!("{}.{rest}", expires.parse::<u64>().unwrap() + 3600);
        assert_eq!(s.verify(&later), Err(SessionError::BadSignature));
        // Another payload with the old tag.
        let (body, tag) = token.rsplit_once('.').unwrap();
        let (expires, _) = body.split_once('.').unwrap();
        let swapped = format!("{expires}.{}.{tag}", URL_SAFE_NO_PAD.encode("user:1"));
        assert_eq!(s.verify(&swapped), Err(SessionError::BadSignature));
        // Truncated tag.
        assert_eq!(s.verify(&token[..token.len() - 3]), Err(SessionError::BadSignature));
    }

    #[test]
    fn malformed_tokens() {
        let s = signer();
        for raw in ["", ".", "..", "abc", "1.2", "x.dXNlcg.AAAA", "-1.dXNlcg.AAAA", "1.!!!.AAAA", "1.dXNlcg.!!!"] {
            assert_eq!(s.verify(raw), Err(SessionError::Malformed), "{raw:?}");
        }
    }

    #[test]
    fn expiry_is_enforced_after_the_signature() {
        let s = signer();
        let issued = UNIX_EPOCH + Duration::from_secs(1_900_000_000);
        let token = s.sign_at("x", issued);
        assert!(s.verify_at(&token, issued).is_ok());
        assert!(s.verify_at(&token, issued + Duration::from_secs(599)).is_ok());
        assert_eq!(s.verify_at(&token, issued + Duration::from_secs(600)), Err(SessionError::Expired));
        assert_eq!(s.verify(&token).map(|v| v.payload), Ok("x".into()), "not expired in real time yet");
        let old = s.sign_at("x", SystemTime::now() - Duration::from_secs(601));
        assert_eq!(s.verify(&old), Err(SessionError::Expired));
        // A forged token that claims a future expiry is a bad signature, not "valid".
        let forged = format!("{}.{}.{}", u64::MAX, URL_SAFE_NO_PAD.encode("x"), URL_SAFE_NO_PAD.encode([0u8; 32]));
        assert_eq!(s.verify(&forged), Err(SessionError::BadSignature));
    }

    #[test]
    fn foreign_keys_and_rotation() {
        let old = signer();
        let old_token = old.sign("old");
        let foreign = SessionSigner::new(b"fedcba9876543210fedcba9876543210");
        assert_eq!(old.verify(&foreign.sign("x")), Err(SessionError::BadSignature));
        assert_eq!(foreign.verify(&old_token), Err(SessionError::BadSignature));

        let rotated = old.clone().rotate(b"the new key, 32 bytes long......");
        let new_token = rotated.sign("new");
        assert_eq!(rotated.verify(&old_token).unwrap().payload, "old", "old tokens verify during the overlap");
        assert_eq!(rotated.verify(&new_token).unwrap().payload, "new");
        assert_eq!(old.verify(&new_token), Err(SessionError::BadSignature), "the new key signs");
        // After the overlap the old key is dropped: its tokens stop verifying.
        let dropped = SessionSigner::new(b"the new key, 32 bytes long......");
        assert_eq!(dropped.verify(&old_token), Err(SessionError::BadSignature));
        assert_eq!(dropped.verify(&new_token).unwrap().payload, "new");
        assert!(!format!("{rotated:?}").contains("new key"));
    }

    #[test]
    #[should_panic(expected = "must not be empty")]
    fn empty_keys_are_refused() {
        let _ = SessionSigner::new(b"");
    }
}
