//! A token's shape, read before any key is looked at (so a malformed or oversized token never reaches the network),
//! and the refusals of every check, each a 401 `invalid_token` whose description names the check and never the
//! token.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::Algorithm;
use jsonwebtoken::errors::ErrorKind;
use serde_json::Value;

use crate::error::ApiError;

/// What the verifier reads of a token's header.
#[derive(Debug)]
pub(super) struct Header {
    /// The signing algorithm (never `none`).
    pub alg: Algorithm,
    /// The key id, when the token names one.
    pub kid: Option<String>,
}

/// Why a token was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Refusal {
    /// Longer than the configured maximum.
    TooLarge,
    /// Not three base64url parts, or a header that is not a JSON object.
    Malformed,
    /// `alg: none`.
    Unsigned,
    /// An algorithm this verifier does not know.
    UnsupportedAlgorithm,
    /// A known algorithm the configuration does not allow.
    AlgorithmNotAllowed(Algorithm),
    /// No key with the token's `kid` (or no key at all for its algorithm).
    UnknownKey,
    /// The key the token names does not sign with the token's algorithm (e.g. HS256 with an RSA key).
    KeyAlgorithm(Algorithm),
    /// The signature does not verify.
    BadSignature,
    /// `exp` has passed (beyond the leeway).
    Expired,
    /// `nbf` is still ahead (beyond the leeway).
    NotYetValid,
    /// `aud` names none of the accepted audiences.
    WrongAudience,
    /// `iss` is not the accepted issuer.
    WrongIssuer,
    /// A required claim is missing.
    MissingClaim(String),
    /// A claim has the wrong type (e.g. `exp` as a string).
    InvalidClaim(String),
}

impl Refusal {
    /// The description the 401 carries (and its challenge's `error_description`).
    pub fn detail(&self) -> String {
        match self {
            Refusal::TooLarge => "The token is too large.".into(),
            Refusal::Malformed => "The token is malformed: not a signed JWT (three base64url parts).".into(),
            Refusal::Unsigned => "The token is unsigned (alg none), which is never accepted.".into(),
            Refusal::UnsupportedAlgorithm => "The token's signing algorithm is not supported.".into(),
            Refusal::AlgorithmNotAllowed(alg) => format!("The token's signing algorithm {alg:?} is not allowed."),
            Refusal::UnknownKey => "The token's signing key is unknown.".into(),
            Refusal::KeyAlgorithm(alg) => format!("The token's signing key does not sign with {alg:?}."),
            Refusal::BadSignature => "The token's signature is invalid.".into(),
            Refusal::Expired => "The token has expired.".into(),
            Refusal::NotYetValid => "The token is not valid yet (nbf).".into(),
            Refusal::WrongAudience => "The token was issued for another audience.".into(),
            Refusal::WrongIssuer => "The token was issued by another issuer.".into(),
            Refusal::MissingClaim(claim) => format!("The token lacks the required claim `{claim}`."),
            Refusal::InvalidClaim(claim) => format!("The token's claim `{claim}` has the wrong type."),
        }
    }
}

impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> Self {
        ApiError::invalid_token(refusal.detail())
    }
}

/// The header of a compact JWS `token` no longer than `max_bytes`: three non-empty base64url parts, a JSON object
/// header with a known `alg` (never `none`) and an optional string `kid`, and no `crit` extension.
pub(super) fn header(token: &str, max_bytes: usize) -> Result<Header, Refusal> {
    if token.len() > max_bytes {
        return Err(Refusal::TooLarge);
    }
    let parts: Vec<&str> = token.split('.').collect();
    let [head, payload, signature] = parts[..] else { return Err(Refusal::Malformed) };
    let base64url = |part: &str| part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ![head, payload, signature].into_iter().all(base64url) || head.is_empty() || payload.is_empty() {
        return Err(Refusal::Malformed);
    }
    let bytes = URL_SAFE_NO_PAD.decode(head).map_err(|_| Refusal::Malformed)?;
    let Ok(Value::Object(fields)) = serde_json::from_slice::<Value>(&bytes) else { return Err(Refusal::Malformed) };
    let alg = match fields.get("alg") {
        Some(Value::String(alg)) if alg.eq_ignore_ascii_case("none") => return Err(Refusal::Unsigned),
        Some(Value::String(alg)) => alg.parse::<Algorithm>().map_err(|_| Refusal::UnsupportedAlgorithm)?,
        _ => return Err(Refusal::Malformed),
    };
    if signature.is_empty() {
        return Err(Refusal::BadSignature);
    }
    // RFC 7515 §4.1.11: an extension the recipient does not understand must be refused.
    if fields.contains_key("crit") {
        return Err(Refusal::Malformed);
    }
    let kid = match fields.get("kid") {
        None => None,
        Some(Value::String(kid)) => Some(kid.clone()),
        Some(_) => return Err(Refusal::Malformed),
    };
    Ok(Header { alg, kid })
}

/// The refusal of a `jsonwebtoken` check.
pub(super) fn refusal_of(error: &jsonwebtoken::errors::Error) -> Refusal {
    match error.kind() {
        ErrorKind::ExpiredSignature => Refusal::Expired,
        ErrorKind::ImmatureSignature => Refusal::NotYetValid,
        ErrorKind::InvalidAudience => Refusal::WrongAudience,
        ErrorKind::InvalidIssuer => Refusal::WrongIssuer,
        ErrorKind::MissingRequiredClaim(claim) => Refusal::MissingClaim(claim.clone()),
        ErrorKind::InvalidClaimFormat(claim) => Refusal::InvalidClaim(claim.clone()),
        ErrorKind::InvalidSignature
        | ErrorKind::InvalidEcdsaKey
        | ErrorKind::InvalidEddsaKey
        | ErrorKind::InvalidRsaKey(_) => Refusal::BadSignature,
        ErrorKind::InvalidAlgorithm | ErrorKind::MissingAlgorithm | ErrorKind::UnsupportedAlgorithm => {
            Refusal::UnsupportedAlgorithm
        }
        _ => Refusal::Malformed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(text: &str) -> String {
        URL_SAFE_NO_PAD.encode(text)
    }

    #[test]
    fn shapes_are_read_before_any_key() {
        let claims = b64(r#"{"sub":"a"}"#);
        let rs256 = format!("{}.{claims}.c2ln", b64(r#"{"alg":"RS256","kid":"k1"}"#));
        let read = header(&rs256, 8192).unwrap();
        assert_eq!((read.alg, read.kid.as_deref()), (Algorithm::RS256, Some("k1")));
        assert_eq!(header(&rs256, 10).unwrap_err(), Refusal::TooLarge);
        let none = format!("{}.{claims}.", b64(r#"{"alg":"none"}"#));
        assert_eq!(header(&none, 8192).unwrap_err(), Refusal::Unsigned);
        let none_upper = format!("{}.{claims}.", b64(r#"{"alg":"NONE"}"#));
        assert_eq!(header(&none_upper, 8192).unwrap_err(), Refusal::Unsigned);
        let unknown = format!("{}.{claims}.c2ln", b64(r#"{"alg":"XS999"}"#));
        assert_eq!(header(&unknown, 8192).unwrap_err(), Refusal::UnsupportedAlgorithm);
        let crit = format!("{}.{claims}.c2ln", b64(r#"{"alg":"RS256","crit":["x"]}"#));
        assert_eq!(header(&crit, 8192).unwrap_err(), Refusal::Malformed);
        let unsigned_rs = format!("{}.{claims}.", b64(r#"{"alg":"RS256"}"#));
        assert_eq!(header(&unsigned_rs, 8192).unwrap_err(), Refusal::BadSignature);
        for malformed in ["", "abc", "a.b", "a.b.c.d", "!!!.e30.c2ln", "e30.e30.c2ln", "W10.e30.c2ln", "%%%.%%%.%%%"] {
            assert_eq!(header(malformed, 8192).unwrap_err(), Refusal::Malformed, "{malformed}");
        }
        let numeric_kid = format!("{}.{claims}.c2ln", b64(r#"{"alg":"RS256","kid":7}"#));
        assert_eq!(header(&numeric_kid, 8192).unwrap_err(), Refusal::Malformed);
    }

    #[test]
    fn every_refusal_is_a_401_invalid_token_naming_its_check() {
        let error = ApiError::from(Refusal::Expired);
        assert_eq!(error.status(), 401);
        assert_eq!(
            error.challenge().unwrap(),
            r#"Bearer error="invalid_token", error_description="The token has expired.""#
        );
        assert!(Refusal::KeyAlgorithm(Algorithm::HS256).detail().contains("HS256"));
    }
}
