//! Target `body`: a create or PATCH body, raw or structured, through the real routes (content type, restricted
//! fields, the typed parse, validation, the write statement), and through [`parse_json_body`] directly into the
//! derived `ItemCreate` and `ItemPatch`, checked against serde itself: a body serde accepts is accepted (bar the
//! NUL character, refused on purpose), and every refusal is a 422 located in the body.
//!
//! Selector bits: 0 backend; 1 POST `/items/` or PATCH `/items/1`; 2–3 the caller (anonymous, user, staff,
//! anonymous); 4–5 the content type (`application/json`, `application/merge-patch+json; charset=utf-8`, none,
//! `text/plain`); 6 the rest is a structured object (fields and values from the pools of [`crate::input`]) rather
//! than raw bytes; 7 a whitespace-padded body.

use arbitrary::Unstructured;
use axum::http::{Method, StatusCode};
use sea_orm::IntoActiveModel;
use viewset_core::ApiError;
use viewset_core::schema::{CreateSchema, UpdateSchema, parse_json_body};

use crate::app::{Call, send};
use crate::input::{FIELDS, Selector, json_value, pick, principal};
use crate::model::item::{ModelCreate as ItemCreate, ModelPatch as ItemPatch};
use crate::proxy::sample;

const CONTENT_TYPES: [Option<&str>; 4] =
    [Some("application/json"), Some("application/merge-patch+json; charset=utf-8"), None, Some("text/plain")];

/// Runs one input.
pub fn run(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else { return };
    let selector = Selector(first);
    let mut body = if selector.bit(6) {
        match structured(&mut Unstructured::new(rest)) {
            Ok(body) => body,
            Err(_) => return,
        }
    } else {
        rest.to_vec()
    };
    if selector.bit(7) {
        body = [&b" \n\t"[..], &body, b"\r\n "].concat();
    }
    direct(&body);
    let patch = selector.bit(1);
    let caller = principal(selector.two(2));
    let staff = caller.is_staff;
    let content_type = CONTENT_TYPES[selector.two(4)];
    let (method, uri) = if patch { (Method::PATCH, "/items/1") } else { (Method::POST, "/items/") };
    let mut call = Call::get(selector.backend(), caller, uri.to_string());
    (call.method, call.content_type, call.body, call.rows) = (method.clone(), content_type, body, vec![sample()]);
    let answer = send(&call);
    let written = if patch { StatusCode::OK } else { StatusCode::CREATED };
    match answer.status {
        s if s == written => assert_eq!(answer.body.get("secret").is_some(), staff, "{}", answer.body),
        StatusCode::UNPROCESSABLE_ENTITY | StatusCode::UNSUPPORTED_MEDIA_TYPE => {}
        other => panic!("{method} {uri} answered {other}: {}", answer.body),
    }
    if content_type == Some("text/plain") || (content_type.is_none() && !call.body.is_empty()) {
        assert_eq!(answer.status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{}", answer.body);
    }
}

/// An object of up to 8 fields (writable, read-only, staff-only, unknown) with boundary values, sometimes with
/// bytes after it.
fn structured(u: &mut Unstructured) -> arbitrary::Result<Vec<u8>> {
    let mut map = serde_json::Map::new();
    for _ in 0..u.int_in_range(0..=8)? {
        map.insert(pick(u, FIELDS)?.to_string(), json_value(u, 2)?);
    }
    let mut bytes = serde_json::to_vec(&serde_json::Value::Object(map)).expect("JSON serializes");
    if u.ratio(1, 16)? {
        bytes.extend_from_slice(u.arbitrary::<&[u8]>()?);
    }
    Ok(bytes)
}

/// `parse_json_body` into both derived types, against serde's own verdict; validation and conversion of what parsed.
fn direct(body: &[u8]) {
    // Refused on purpose although serde would take them: the NUL character, and an array for an object.
    let on_purpose =
        body.windows(6).any(|w| w == b"\\u0000") || body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
    match parse_json_body::<ItemCreate>(body) {
        Ok(create) => {
            if create.validate().is_ok() {
                let _ = create.into_active_model();
            }
        }
        Err(err) => refused(err, serde_json::from_slice::<ItemCreate>(body).is_ok(), on_purpose),
    }
    match parse_json_body::<ItemPatch>(body) {
        Ok(patch) => {
            if patch.validate().is_ok() {
                let mut active = sample().into_active_model();
                patch.apply(&mut active);
            }
        }
        Err(err) => refused(err, serde_json::from_slice::<ItemPatch>(body).is_ok(), on_purpose),
    }
}

fn refused(err: ApiError, serde_accepts: bool, on_purpose: bool) {
    assert!(!serde_accepts || on_purpose, "serde accepts a body parse_json_body refuses: {:?}", err.body());
    let ApiError::Input(errors) = &err else { panic!("a body error that is not a 422: {err:?}") };
    assert!(errors.iter().all(|e| e.loc.first().map(String::as_str) == Some("body")), "{:?}", err.body());
}
