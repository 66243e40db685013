//! Cursors signed with the fuzzed process's key ([`crate::app::SECRET`]), as a client who learned the key (or a
//! server bug that signs what it should not) would make them: `base64url(payload).base64url(HMAC-SHA256)`, the key
//! being SHA-256 of `SERVICE_SECRET_KEY`. Unsigned input only reaches the signature check; signed input reaches the
//! payload's parsing and the keyset condition built from its values. [`crate::cursor_self_check`] proves at start-up
//! that a cursor made here is accepted, so a change of the format cannot silently leave the target at the signature.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

use crate::app::SECRET;

/// `payload` (any bytes: normally the JSON `{"v": [...], "b": false, "o": "-id"}`) signed.
pub fn sign(payload: &[u8]) -> String {
    let key: [u8; 32] = Sha256::digest(SECRET.as_bytes()).into();
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&key).expect("HMAC accepts any key length");
    mac.update(payload);
    let tag = mac.finalize().into_bytes();
    format!("{}.{}", URL_SAFE_NO_PAD.encode(payload), URL_SAFE_NO_PAD.encode(tag))
}

/// The JSON payload of a cursor; `by_key` marks one that carries only the boundary row's primary key (the server
/// makes those when the ordering values are long, and reads the row back).
pub fn payload(values: &[serde_json::Value], backwards: bool, ordering: &str, by_key: bool) -> Vec<u8> {
    let mut token = serde_json::json!({"v": values, "b": backwards, "o": ordering});
    if by_key {
        token["k"] = true.into();
    }
    serde_json::to_vec(&token).expect("JSON serializes")
}
