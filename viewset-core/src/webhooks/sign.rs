//! The Standard Webhooks signature (<https://www.standardwebhooks.com>): `webhook-signature` is `v1,` and the
//! base64 of HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`, keyed by the endpoint's secret
//! (`whsec_` and the base64 of its bytes). During a rotation an endpoint has two secrets and every delivery carries
//! both signatures, separated by a space: a receiver that knows either accepts it.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use super::WebhookError;

/// The prefix of a Standard Webhooks secret.
const PREFIX: &str = "whsec_";

/// An endpoint's signing secret: `whsec_` followed by the base64 of at least 24 random bytes, the form the official
/// `standardwebhooks` libraries accept.
///
/// ```
/// use viewset_core::webhooks::Secret;
///
/// let secret = Secret::generate();
/// assert!(secret.as_str().starts_with("whsec_"));
/// assert!(Secret::parse(secret.as_str()).is_ok());
/// assert!(Secret::parse("not a secret").is_err());
/// ```
#[derive(Clone)]
pub struct Secret {
    text: String,
    key: Vec<u8>,
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(whsec_…)")
    }
}

impl Secret {
    /// Reads a `whsec_…` secret; a missing prefix, bad base64 or fewer than 24 bytes is refused.
    pub fn parse(text: &str) -> Result<Secret, WebhookError> {
        let refused = |why: &str| WebhookError::Config(format!("a webhook secret is `whsec_<base64>`: {why}"));
        let encoded = text.strip_prefix(PREFIX).ok_or_else(|| refused("the `whsec_` prefix is missing"))?;
        let key = STANDARD.decode(encoded).map_err(|e| refused(&format!("not base64 ({e})")))?;
        if key.len() < 24 {
            return Err(refused("the key has fewer than 24 bytes"));
        }
        Ok(Secret { text: text.to_owned(), key })
    }

    /// A new random secret (32 bytes from the operating system's generator).
    pub fn generate() -> Secret {
        let mut key = Vec::with_capacity(32);
        key.extend_from_slice(&uuid::Uuid::new_v4().into_bytes());
        key.extend_from_slice(&uuid::Uuid::new_v4().into_bytes());
        let text = format!("{PREFIX}{}", STANDARD.encode(&key));
        Secret { text, key }
    }

    /// The secret as the receiver configures it (`whsec_…`).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// `v1,<base64 signature>` of one message.
    fn sign(&self, id: &str, timestamp: i64, body: &[u8]) -> String {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.key).expect("HMAC takes a key of any length");
        mac.update(id.as_bytes());
        mac.update(b".");
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
    }
}

/// The `webhook-signature` header of a message: one signature per secret, separated by spaces.
pub(super) fn signatures(secrets: &[Secret], id: &str, timestamp: i64, body: &[u8]) -> String {
    secrets.iter().map(|secret| secret.sign(id, timestamp, body)).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of the Standard Webhooks specification's reference libraries.
    #[test]
    fn signs_as_the_reference_libraries() {
        let secret = Secret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").expect("secret");
        let body = br#"{"test": 2432232314}"#;
        assert_eq!(
            secret.sign("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn a_rotation_signs_with_both() {
        let (old, new) = (Secret::generate(), Secret::generate());
        let header = signatures(&[old.clone(), new.clone()], "1", 5, b"{}");
        let parts: Vec<&str> = header.split(' ').collect();
        assert_eq!(parts, [old.sign("1", 5, b"{}"), new.sign("1", 5, b"{}")]);
    }
}
