//! Checksums: full SHA-256 hex of canonical JSON (object keys sorted at every level, no whitespace).

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// `value` with every object's keys sorted, recursively.
pub fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let mut sorted = Map::new();
            for key in keys {
                sorted.insert(key.clone(), canonical(&map[key]));
            }
            Value::Object(sorted)
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// SHA-256 hex of the canonical JSON of `value`.
///
/// ```
/// use serde_json::json;
/// let a = viewset_studio::checksum(&json!({"b": 1, "a": [{"y": 2, "x": 1}]}));
/// let b = viewset_studio::checksum(&json!({"a": [{"x": 1, "y": 2}], "b": 1}));
/// assert_eq!(a, b);
/// assert_eq!(a.len(), 64);
/// ```
pub fn checksum(value: &Value) -> String {
    let text = serde_json::to_string(&canonical(value)).unwrap_or_default();
    sha256_hex(text.as_bytes())
}

/// SHA-256 hex of `bytes`.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Compares two byte strings in time that depends only on their lengths (through `subtle`).
///
/// ```
/// assert!(viewset_studio::constant_time_eq(b"s3cret", b"s3cret"));
/// assert!(!viewset_studio::constant_time_eq(b"s3cret", b"s3creT"));
/// assert!(!viewset_studio::constant_time_eq(b"s3cret", b"s3cret!"));
/// ```
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.ct_eq(b).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digest_and_equality() {
        // sha256("{}")
        assert_eq!(
            checksum(&serde_json::json!({})),
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
    }
}
