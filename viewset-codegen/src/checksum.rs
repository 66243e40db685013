//! SHA-256 hex of bytes and of canonical JSON (object keys sorted at every level, no whitespace): the preview id
//! and the files' checksums, as viewset-studio computes its own checksums.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// `value` with every object's keys sorted, recursively.
fn canonical(value: &Value) -> Value {
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
pub(crate) fn checksum(value: &Value) -> String {
    let text = serde_json::to_string(&canonical(value)).unwrap_or_default();
    sha256_hex(text.as_bytes())
}

/// SHA-256 hex of `bytes`.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}
