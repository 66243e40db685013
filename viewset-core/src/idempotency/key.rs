//! The `Idempotency-Key` header, who a key belongs to, and the fingerprint of a request.

use axum::http::{HeaderMap, Method};
use sha2::{Digest, Sha256};

use crate::error::ApiError;
use crate::types::principal::Principal;

/// The request header.
pub(crate) const IDEMPOTENCY_KEY: axum::http::HeaderName = axum::http::HeaderName::from_static("idempotency-key");

/// The longest key accepted, in bytes.
///
/// ```
/// assert_eq!(viewset_core::idempotency::MAX_KEY_BYTES, 255);
/// ```
pub const MAX_KEY_BYTES: usize = 255;

/// A valid `Idempotency-Key`: 1 to [`MAX_KEY_BYTES`] visible ASCII characters (`!` to `~`), sent once.
///
/// ```
/// use axum::http::HeaderMap;
/// use viewset_core::idempotency::IdempotencyKey;
/// let mut headers = HeaderMap::new();
/// assert!(IdempotencyKey::from_headers(&headers).unwrap().is_none());
/// headers.insert("idempotency-key", "order-4711".parse().unwrap());
/// assert_eq!(IdempotencyKey::from_headers(&headers).unwrap().unwrap().as_str(), "order-4711");
/// headers.insert("idempotency-key", "two words".parse().unwrap());
/// assert_eq!(IdempotencyKey::from_headers(&headers).unwrap_err().status(), 400);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    /// The request's key: `None` without the header; a 400 `invalid_idempotency_key` when it is empty, longer than
    /// [`MAX_KEY_BYTES`], not visible ASCII, or sent more than once.
    pub fn from_headers(headers: &HeaderMap) -> Result<Option<IdempotencyKey>, ApiError> {
        let mut values = headers.get_all(IDEMPOTENCY_KEY).iter();
        let Some(value) = values.next() else { return Ok(None) };
        if values.next().is_some() {
            return Err(invalid("Send one Idempotency-Key header, not several."));
        }
        let bytes = value.as_bytes();
        if bytes.is_empty() {
            return Err(invalid("Idempotency-Key is empty."));
        }
        if bytes.len() > MAX_KEY_BYTES {
            return Err(invalid(&format!("Idempotency-Key is longer than {MAX_KEY_BYTES} bytes.")));
        }
        if !bytes.iter().all(|b| (b'!'..=b'~').contains(b)) {
            return Err(invalid("Idempotency-Key may hold visible ASCII characters only (no spaces)."));
        }
        Ok(Some(IdempotencyKey(String::from_utf8_lossy(bytes).into_owned())))
    }

    /// The key as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn invalid(detail: &str) -> ApiError {
    ApiError::Idempotency {
        status: axum::http::StatusCode::BAD_REQUEST,
        code: "invalid_idempotency_key",
        detail: detail.into(),
    }
}

/// Who a key belongs to: the principal's user and tenant (keys of different callers never meet), or `None` for an
/// anonymous caller, whose keys are refused (see [`crate::idempotency`]).
///
/// ```
/// use viewset_core::Principal;
/// use viewset_core::idempotency::owner;
/// assert_eq!(owner(&Principal::anonymous()), None);
/// assert_ne!(owner(&Principal::user("alice")), owner(&Principal::user("alice").with_tenant("acme")));
/// ```
pub fn owner(principal: &Principal) -> Option<String> {
    let user = principal.user_id.as_deref()?;
    let owner = serde_json::json!([user, principal.tenant_id]).to_string();
    // The column holds 512 characters; a longer identity is kept as its hash.
    Some(if owner.len() <= 200 { owner } else { format!("sha256:{}", hex(&Sha256::digest(owner.as_bytes()))) })
}

/// The SHA-256 (hex) of a request as a key's first use is compared with its repeats: method, path and query,
/// owner and body, each length-prefixed so no two different requests write the same bytes.
///
/// ```
/// use axum::http::Method;
/// use viewset_core::idempotency::fingerprint;
/// let one = fingerprint(&Method::POST, "/api/posts/", "alice", br#"{"title":"a"}"#);
/// assert_eq!(one.len(), 64);
/// assert_ne!(one, fingerprint(&Method::POST, "/api/posts/", "alice", br#"{"title":"b"}"#));
/// assert_ne!(one, fingerprint(&Method::POST, "/api/posts/", "bob", br#"{"title":"a"}"#));
/// ```
pub fn fingerprint(method: &Method, path_and_query: &str, owner: &str, body: &[u8]) -> String {
    let mut hash = Sha256::new();
    for part in [method.as_str().as_bytes(), path_and_query.as_bytes(), owner.as_bytes(), body] {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part);
    }
    hex(&hash.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
