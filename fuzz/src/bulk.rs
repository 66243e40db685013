//! Target `bulk`: bulk create bodies and bulk delete keys through the real routes of a ViewSet with `bulk` (at most
//! 8 rows or keys): every answer is a 201 with one record per row in order, a 200 naming what was deleted, or a
//! client error with the framework's shape (the checks of [`send`]); never a 5xx.
//!
//! Selector bits: 0 backend; 1 POST `/bulk/items/bulk` with an array or DELETE `/bulk/items/bulk?id__in=…`; 2–3 the caller
//! (anonymous, user, staff, anonymous); 4 the rest is structured (up to 10 objects of fields and values from the
//! pools of [`crate::input`], or up to 10 keys) rather than raw bytes (the body, or the query string after `?`).

use arbitrary::Unstructured;
use axum::http::{Method, StatusCode};

use crate::app::{Call, send};
use crate::input::{FIELDS, Selector, json_value, pick, principal};
use crate::proxy::sample;

/// Runs one input.
pub fn run(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else { return };
    let selector = Selector(first);
    let structured = selector.bit(4);
    let mut call = Call::get(selector.backend(), principal(selector.two(2)), String::new());
    call.rows = vec![sample()];
    if selector.bit(1) {
        call.method = Method::DELETE;
        call.uri = match structured {
            true => match keys(&mut Unstructured::new(rest)) {
                Ok(keys) => format!("/bulk/items/bulk?id__in={keys}"),
                Err(_) => return,
            },
            false => format!("/bulk/items/bulk?{}", crate::input::encode_query(rest)),
        };
    } else {
        call.method = Method::POST;
        call.uri = "/bulk/items/bulk".into();
        call.content_type = Some("application/json");
        call.body = match structured {
            true => match rows(&mut Unstructured::new(rest)) {
                Ok(body) => body,
                Err(_) => return,
            },
            false => rest.to_vec(),
        };
    }
    let answer = send(&call);
    match answer.status {
        StatusCode::CREATED => {
            let sent: serde_json::Value = serde_json::from_slice(&call.body).expect("a created body was JSON");
            let created = answer.body.as_array().map(Vec::len);
            let expected = sent.as_array().map_or(1, Vec::len);
            assert_eq!(created.unwrap_or(1), expected, "one record per row: {}", answer.body);
        }
        StatusCode::OK => assert!(answer.body["deleted"].as_u64().is_some_and(|n| n >= 1), "{}", answer.body),
        s if s.is_client_error() => {}
        other => panic!("{} {} answered {other}: {}", call.method, call.uri, answer.body),
    }
}

/// An array of up to 10 objects of up to 6 fields each, sometimes with a non-object item.
fn rows(u: &mut Unstructured) -> arbitrary::Result<Vec<u8>> {
    let mut items = Vec::new();
    for _ in 0..u.int_in_range(0..=10)? {
        if u.ratio(1, 12)? {
            items.push(json_value(u, 1)?);
            continue;
        }
        let mut map = serde_json::Map::new();
        for _ in 0..u.int_in_range(0..=6)? {
            map.insert(pick(u, FIELDS)?.to_string(), json_value(u, 2)?);
        }
        items.push(serde_json::Value::Object(map));
    }
    Ok(serde_json::to_vec(&serde_json::Value::Array(items)).expect("JSON serializes"))
}

/// Up to 10 keys, comma-separated: small and huge numbers, negatives, words, empty keys, repeats.
fn keys(u: &mut Unstructured) -> arbitrary::Result<String> {
    const WORDS: &[&str] = &["1", "2", "0", "-1", "x", "", "1.5", "2147483648", "99999999999999999999", "%00", "1e3"];
    let mut keys = Vec::new();
    for _ in 0..u.int_in_range(0..=10)? {
        keys.push(if u.ratio(1, 3)? { u.int_in_range(0..=20u32)?.to_string() } else { pick(u, WORDS)?.to_string() });
    }
    Ok(keys.join(","))
}
