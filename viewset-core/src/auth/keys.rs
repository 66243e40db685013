//! Verification keys: a set of keys, each with the algorithms it may verify, and where they come from (static, or
//! an identity provider's JWKS, cached and fetched again on rotation: `keys/remote.rs`).

use std::sync::Arc;

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey};
use serde_json::Value;

use super::token::Refusal;
use crate::error::ApiError;

use super::remote::Remote;

/// One verification key and the only algorithms it verifies: the one its JWK declares (`alg`), else its family's
/// (RSA: RS*/PS*; EC by curve; Ed25519: EdDSA; a shared secret: HS*).
pub(super) struct Key {
    /// The key id (`kid`), if any.
    pub kid: Option<String>,
    /// What this key may verify.
    pub algorithms: Vec<Algorithm>,
    /// The key itself.
    pub key: DecodingKey,
}

impl Key {
    /// A key of a JWK, or `None` for one that cannot verify signatures here: an encryption key (`use: enc`), a
    /// curve or key type not supported, a declared algorithm outside the key's family, or a shared secret
    /// (`kty: oct`) unless `secrets` (never from a fetched JWKS: a published secret is no secret).
    pub fn from_jwk(value: &Value, secrets: bool) -> Option<Key> {
        let jwk: Jwk = serde_json::from_value(value.clone()).ok()?;
        if matches!(&jwk.common.public_key_use, Some(used) if *used != PublicKeyUse::Signature) {
            return None;
        }
        let family: &[Algorithm] = match &jwk.algorithm {
            AlgorithmParameters::RSA(_) => AlgorithmFamily::Rsa.algorithms(),
            AlgorithmParameters::EllipticCurve(ec) => match ec.curve {
                EllipticCurve::P256 => &[Algorithm::ES256],
                EllipticCurve::P384 => &[Algorithm::ES384],
                _ => return None,
            },
            AlgorithmParameters::OctetKeyPair(okp) if okp.curve == EllipticCurve::Ed25519 => &[Algorithm::EdDSA],
            AlgorithmParameters::OctetKey(_) if secrets => AlgorithmFamily::Hmac.algorithms(),
            _ => return None,
        };
        let algorithms = match jwk.common.key_algorithm {
            None => family.to_vec(),
            Some(declared) => vec![*family.iter().find(|alg| same(**alg, declared))?],
        };
        let key = DecodingKey::from_jwk(&jwk).ok()?;
        Some(Key { kid: jwk.common.key_id.clone(), algorithms, key })
    }

    /// A static public key in PEM: RSA, EC or Ed25519, each with its family's algorithms.
    pub fn from_pem(pem: &[u8]) -> Result<Key, String> {
        let (key, algorithms) = if let Ok(key) = DecodingKey::from_rsa_pem(pem) {
            (key, jsonwebtoken::AlgorithmFamily::Rsa.algorithms().to_vec())
        } else if let Ok(key) = DecodingKey::from_ec_pem(pem) {
            (key, vec![Algorithm::ES256, Algorithm::ES384])
        } else if let Ok(key) = DecodingKey::from_ed_pem(pem) {
            (key, vec![Algorithm::EdDSA])
        } else {
            return Err("the PEM is not an RSA, EC or Ed25519 public key".into());
        };
        Ok(Key { kid: None, algorithms, key })
    }
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Key").field("kid", &self.kid).field("algorithms", &self.algorithms).finish_non_exhaustive()
    }
}

/// Whether a JWK's declared algorithm is `alg`.
fn same(alg: Algorithm, declared: KeyAlgorithm) -> bool {
    format!("{alg:?}") == format!("{declared:?}")
}

/// The keys one source holds.
#[derive(Default)]
pub(super) struct KeySet(pub Vec<Key>);

impl KeySet {
    /// The signing keys of a JWKS document (`{"keys": [...]}`) or of a single JWK; keys that cannot verify are left
    /// out, and a document with none is an error.
    pub fn from_json(body: &[u8], secrets: bool) -> Result<KeySet, String> {
        let document: Value = serde_json::from_slice(body).map_err(|e| format!("not JSON: {e}"))?;
        let keys = match document.get("keys") {
            Some(Value::Array(keys)) => keys.iter().filter_map(|key| Key::from_jwk(key, secrets)).collect(),
            Some(_) => return Err("`keys` is not an array".into()),
            None => Key::from_jwk(&document, secrets).into_iter().collect(),
        };
        let set = KeySet(keys);
        if set.0.is_empty() { Err("no key that verifies signatures".into()) } else { Ok(set) }
    }

    /// Whether a key has id `kid`.
    pub fn has(&self, kid: &str) -> bool {
        self.0.iter().any(|key| key.kid.as_deref() == Some(kid))
    }

    /// The keys that may verify a token of `alg` naming `kid`: the key of that id, else (no `kid`) every key of the
    /// algorithm. An unknown `kid` and a key of another algorithm (HS256 with an RSA key) are refusals.
    pub fn candidates(&self, kid: Option<&str>, alg: Algorithm) -> Result<Vec<&Key>, Refusal> {
        let named: Vec<&Key> = match kid {
            Some(kid) => self.0.iter().filter(|key| key.kid.as_deref() == Some(kid)).collect(),
            None => self.0.iter().collect(),
        };
        if named.is_empty() {
            return Err(Refusal::UnknownKey);
        }
        let fitting: Vec<&Key> = named.into_iter().filter(|key| key.algorithms.contains(&alg)).collect();
        if fitting.is_empty() { Err(Refusal::KeyAlgorithm(alg)) } else { Ok(fitting) }
    }
}

/// Where the keys come from.
pub(super) enum KeyStore {
    /// Keys given in the configuration.
    Static(Arc<KeySet>),
    /// An identity provider's JWKS, fetched and cached.
    Remote(Box<Remote>),
}

impl KeyStore {
    /// The keys to verify a token naming `kid` with: the cached set, fetched again when stale or when `kid` is
    /// unknown (at most once per interval); a 503 while the provider was never reached.
    pub async fn keys(&self, kid: Option<&str>) -> Result<Arc<KeySet>, ApiError> {
        match self {
            KeyStore::Static(keys) => Ok(keys.clone()),
            KeyStore::Remote(remote) => remote.keys(kid).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const N: &str = "sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw";

    #[test]
    fn a_key_verifies_only_its_own_algorithms() {
        let rsa = json!({"kty": "RSA", "kid": "r1", "n": N, "e": "AQAB", "alg": "RS256", "use": "sig"});
        let set = KeySet::from_json(json!({"keys": [rsa]}).to_string().as_bytes(), false).unwrap();
        assert_eq!(set.candidates(Some("r1"), Algorithm::RS256).unwrap().len(), 1);
        assert_eq!(set.candidates(Some("r1"), Algorithm::HS256).unwrap_err(), Refusal::KeyAlgorithm(Algorithm::HS256));
        assert_eq!(set.candidates(Some("r1"), Algorithm::PS256).unwrap_err(), Refusal::KeyAlgorithm(Algorithm::PS256));
        assert_eq!(set.candidates(Some("other"), Algorithm::RS256).unwrap_err(), Refusal::UnknownKey);
        assert!(set.has("r1") && !set.has("other"));
        let undeclared = json!({"kty": "RSA", "n": N, "e": "AQAB"});
        let set = KeySet::from_json(undeclared.to_string().as_bytes(), false).unwrap();
        assert_eq!(set.candidates(None, Algorithm::PS512).unwrap().len(), 1, "a key without alg: its family");
    }

    #[test]
    fn secrets_encryption_keys_and_mismatched_declarations_are_left_out_of_a_fetched_set() {
        let secret = json!({"kty": "oct", "k": "c2VjcmV0", "kid": "s"});
        let encryption = json!({"kty": "RSA", "n": N, "e": "AQAB", "use": "enc", "kid": "e"});
        let mismatched = json!({"kty": "RSA", "n": N, "e": "AQAB", "alg": "ES256", "kid": "m"});
        let unknown_kty = json!({"kty": "XYZ", "kid": "x"});
        let document = json!({"keys": [secret, encryption, mismatched, unknown_kty]}).to_string();
        assert!(KeySet::from_json(document.as_bytes(), false).is_err(), "nothing usable");
        let with_secrets = KeySet::from_json(document.as_bytes(), true).unwrap();
        assert_eq!(with_secrets.0.len(), 1);
        assert!(with_secrets.has("s"));
        assert!(KeySet::from_json(b"not json", false).is_err());
        assert!(KeySet::from_json(br#"{"keys": {}}"#, false).is_err());
    }
}
