//! The opaque, tamper-evident cursor of `CursorPagination`: the boundary row's ordering values, the direction and
//! the ordering it was made for, as base64url JSON with an HMAC-SHA256 tag. When those values are long (ordering by
//! a text column of a few KB) the cursor carries only the boundary row's primary key and the values are read back
//! from the row: a link the server makes stays short, whatever the data.
//!
//! The key is SHA-256 of `SERVICE_SECRET_KEY` when set (share it between instances so cursors survive restarts
//! and load balancing); otherwise a random key per process.

use std::sync::OnceLock;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Where the cursor points and which way the client walks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CursorToken {
    /// Values of the effective ordering's columns on the boundary row.
    #[serde(rename = "v")]
    pub values: Vec<serde_json::Value>,
    /// `true` for a `previous` cursor.
    #[serde(rename = "b")]
    pub backwards: bool,
    /// The ordering the cursor belongs to (`-views,id`).
    #[serde(rename = "o")]
    pub ordering: String,
    /// `true` when `values` holds only the boundary row's primary key (the last ordering term), the other values
    /// being too long to carry.
    #[serde(rename = "k", default, skip_serializing_if = "std::ops::Not::not")]
    pub by_key: bool,
}

/// The largest encoded cursor that carries its values; a longer one carries the primary key instead.
pub const MAX_INLINE_BYTES: usize = 512;

/// The HMAC state after the key (its inner and outer padded blocks already hashed), made once per process: each
/// cursor then costs only the hashing of its own payload.
fn keyed() -> &'static Hmac<Sha256> {
    static KEYED: OnceLock<Hmac<Sha256>> = OnceLock::new();
    KEYED.get_or_init(|| {
        let key: [u8; 32] = match std::env::var("SERVICE_SECRET_KEY") {
            Ok(secret) if !secret.is_empty() => Sha256::digest(secret.as_bytes()).into(),
            _ => {
                let mut key = [0u8; 32];
                getrandom::fill(&mut key).expect("the operating system provides random bytes");
                key
            }
        };
        <Hmac<Sha256> as KeyInit>::new_from_slice(&key).expect("HMAC accepts any key length")
    })
}

fn tag(payload: &[u8]) -> Hmac<Sha256> {
    let mut mac = keyed().clone();
    mac.update(payload);
    mac
}

impl CursorToken {
    /// `payload.tag`, both base64url, written at the end of `out`.
    pub fn encode_into(&self, out: &mut String) {
        let payload = serde_json::to_vec(self).expect("a cursor serializes");
        let tag = tag(&payload).finalize().into_bytes();
        out.reserve((payload.len() + tag.len()) * 4 / 3 + 3);
        URL_SAFE_NO_PAD.encode_string(&payload, out);
        out.push('.');
        URL_SAFE_NO_PAD.encode_string(tag, out);
    }

    /// [`CursorToken::encode_into`], or when that is longer than [`MAX_INLINE_BYTES`], the token by key
    /// ([`CursorToken::encode_by_key_into`]), written at the end of `out`.
    pub fn encode_bounded_into(&self, out: &mut String) {
        let start = out.len();
        self.encode_into(out);
        if out.len() - start > MAX_INLINE_BYTES {
            out.truncate(start);
            self.encode_by_key_into(out);
        }
    }

    /// The token by key (only the last value, the primary key, with `by_key` set), the shortest form, written at the
    /// end of `out`. A token without a key to carry (a null last value; only a token the server did not make has one)
    /// is written as it is.
    pub fn encode_by_key_into(&self, out: &mut String) {
        match self.values.last() {
            Some(key) if !self.by_key && !key.is_null() => {
                let by_key = CursorToken {
                    values: vec![key.clone()],
                    backwards: self.backwards,
                    ordering: self.ordering.clone(),
                    by_key: true,
                };
                by_key.encode_into(out)
            }
            _ => self.encode_into(out),
        }
    }

    /// `None` for anything this process did not sign.
    pub fn decode(raw: &str) -> Option<CursorToken> {
        let (payload, signature) = raw.split_once('.')?;
        let payload = URL_SAFE_NO_PAD.decode(payload).ok()?;
        let signature = URL_SAFE_NO_PAD.decode(signature).ok()?;
        tag(&payload).verify_slice(&signature).ok()?;
        serde_json::from_slice(&payload).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `write` writes into an empty string.
    fn written(write: impl FnOnce(&mut String)) -> String {
        let mut out = String::new();
        write(&mut out);
        out
    }

    #[test]
    fn round_trip_and_tamper() {
        let token = CursorToken {
            values: vec![serde_json::json!(5), serde_json::json!("x")],
            backwards: false,
            ordering: "-views,id".into(),
            by_key: false,
        };
        let raw = written(|out| token.encode_into(out));
        assert_eq!(CursorToken::decode(&raw), Some(token));
        let (payload, sig) = raw.split_once('.').unwrap();
        let forged = URL_SAFE_NO_PAD.encode(br#"{"v":[1],"b":false,"o":"-views,id"}"#);
        assert_eq!(CursorToken::decode(&format!("{forged}.{sig}")), None);
        assert_eq!(CursorToken::decode(payload), None);
        assert_eq!(CursorToken::decode("garbage"), None);
    }

    #[test]
    fn long_values_travel_by_key() {
        let long = "\u{1}".repeat(4_000);
        let token = CursorToken {
            values: vec![serde_json::json!(long), serde_json::json!(7)],
            backwards: true,
            ordering: "title,id".into(),
            by_key: false,
        };
        let raw = written(|out| token.encode_bounded_into(out));
        assert!(raw.len() <= MAX_INLINE_BYTES, "{} bytes", raw.len());
        let decoded = CursorToken::decode(&raw).unwrap();
        assert_eq!(decoded, CursorToken { values: vec![serde_json::json!(7)], by_key: true, ..token });
        let short =
            CursorToken { values: vec![serde_json::json!(5)], backwards: false, ordering: "id".into(), by_key: false };
        assert_eq!(CursorToken::decode(&written(|out| short.encode_bounded_into(out))), Some(short));
    }
}
