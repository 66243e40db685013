//! JSON bodies: any malformed or wrongly typed body is a 422 with the location of the problem.

use serde::de::DeserializeOwned;

use super::object::from_object;
use crate::error::{ApiError, InputError};

/// Parses a JSON request body into `T`, mapping serde's errors to route-input errors at `["body", ...]`.
///
/// ```
/// #[derive(serde::Deserialize, Debug)]
/// #[serde(deny_unknown_fields)]
/// struct B { n: i32 }
/// let err = viewset_core::schema::parse_json_body::<B>(&br#"{"n": "x"}"#[..]).unwrap_err();
/// assert_eq!(err.status(), 422);
/// ```
pub fn parse_json_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    refuse_non_objects(bytes)?;
    // The common case, a valid body, parses once; a refused body's failing field is found from the error's position
    // (`located.rs`).
    let failed = match from_object(bytes) {
        Ok(value) => return Ok(value),
        Err(err) => err,
    };
    // JSON (and the OpenAPI document's JSON Schema) has one number type: `5.0` is an integer as much as `5` is.
    // Read from bytes again (not `from_value`, which would compile `T`'s deserializer once more per body type).
    if let Some(integral) = with_integral_floats(bytes)
        && let Ok(parsed) = from_object(&integral)
    {
        return Ok(parsed);
    }
    Err(located_error(failed, bytes))
}

/// An empty body, a JSON array (serde would read a struct from it, fields by position), or a body with the NUL
/// character (PostgreSQL cannot store it in text: refused on every database, at the string that has it).
fn refuse_non_objects(bytes: &[u8]) -> Result<(), ApiError> {
    let Some(first) = bytes.iter().find(|b| !b.is_ascii_whitespace()) else {
        return Err(ApiError::input(["body"], "Field required", "missing"));
    };
    if *first == b'[' {
        return Err(ApiError::input(["body"], "Input should be a valid JSON object", "model_type"));
    }
    if bytes.windows(6).any(|w| w == b"\\u0000")
        && let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes)
        && let Some(path) = nul_path(&value)
    {
        let loc = std::iter::once("body".to_string()).chain(path).collect();
        let msg = "Input should not contain the NUL character (\\u0000)".to_string();
        return Err(ApiError::Input(vec![InputError { loc, msg, kind: "string_nul".to_string() }]));
    }
    Ok(())
}

/// The body with its integral floats (`5.0`) written as integers, when it has any.
fn with_integral_floats(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut value = serde_json::from_slice::<serde_json::Value>(bytes).ok()?;
    integral_floats_to_integers(&mut value).then(|| value.to_string().into_bytes())
}

/// A body that does not deserialize (`bytes`), at the field where it failed (found from the error's position: one
/// function for every body type).
fn located_error(err: serde_json::Error, bytes: &[u8]) -> ApiError {
    let mut loc = vec!["body".to_string()];
    let msg = err.to_string();
    let kind = classify(&err, &msg);
    // serde reports a missing or unknown field at the parent; name the field itself.
    let field = between_backticks(&msg);
    if kind != "json_invalid" {
        loc.extend(super::located::path_at(bytes, err.line(), err.column()));
    }
    if matches!(kind, "missing" | "extra_forbidden")
        && let Some(field) = field
        && loc.last() != Some(&field)
    {
        loc.push(field);
    }
    let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
    ApiError::Input(vec![InputError { loc, msg, kind: kind.to_string() }])
}

/// Used by the generated routes: raw bytes to a typed body. An unknown field's message lists only the fields this
/// caller may write (serde's "expected one of" would name `restricted` ones too).
pub(crate) fn json_body<T: DeserializeOwned>(bytes: &[u8], restricted: &[&'static str]) -> Result<T, ApiError> {
    parse_json_body(bytes).map_err(|err| without_restricted(err, restricted))
}

/// `err` with the `restricted` fields left out of its unknown-field messages.
fn without_restricted(err: ApiError, restricted: &[&'static str]) -> ApiError {
    match err {
        ApiError::Input(mut errors) => {
            for error in errors.iter_mut().filter(|e| e.kind == "extra_forbidden") {
                error.msg = without_fields(&error.msg, restricted);
            }
            ApiError::Input(errors)
        }
        other => other,
    }
}

/// serde's `unknown field `x`, expected one of `a`, `b`` rebuilt without the `hidden` names.
fn without_fields(msg: &str, hidden: &[&str]) -> String {
    let names: Vec<&str> = msg.split('`').skip(1).step_by(2).collect();
    let Some((unknown, expected)) = names.split_first() else { return msg.to_string() };
    let expected: Vec<String> = expected.iter().filter(|n| !hidden.contains(n)).map(|n| format!("`{n}`")).collect();
    match expected.len() {
        0 => format!("unknown field `{unknown}`"),
        _ => format!("unknown field `{unknown}`, expected one of {}", expected.join(", ")),
    }
}

/// Refuses a body that is not declared JSON (415): `application/json` and `application/*+json` are accepted, with
/// parameters such as `charset`; without a `Content-Type`, only an empty body passes (to be reported as missing).
///
/// ```
/// use axum::http::{HeaderMap, HeaderValue, header::CONTENT_TYPE};
/// use viewset_core::schema::require_json;
/// let mut headers = HeaderMap::new();
/// assert_eq!(require_json(&headers, b"{}").unwrap_err().status(), 415);
/// headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/merge-patch+json; charset=utf-8"));
/// assert!(require_json(&headers, b"{}").is_ok());
/// headers.insert(CONTENT_TYPE, HeaderValue::from_static("Application/JSON"));
/// assert!(require_json(&headers, b"{}").is_ok());
/// for refused in ["text/plain", "application/x/y+json", "application/jsonx", "json"] {
///     headers.insert(CONTENT_TYPE, HeaderValue::from_static(refused));
///     assert_eq!(require_json(&headers, b"{}").unwrap_err().status(), 415, "{refused}");
/// }
/// ```
pub fn require_json(headers: &axum::http::HeaderMap, bytes: &[u8]) -> Result<(), ApiError> {
    let Some(value) = headers.get(axum::http::header::CONTENT_TYPE) else {
        if bytes.is_empty() {
            return Ok(());
        }
        return Err(ApiError::UnsupportedMediaType(
            "A request body needs `Content-Type: application/json`.".to_string(),
        ));
    };
    // Compared ignoring ASCII case, without a lowercased copy (a header value that is text is ASCII).
    let mime = value.to_str().unwrap_or("").split(';').next().unwrap_or("").trim().as_bytes();
    let json = match mime.split_at_checked("application/".len()) {
        Some((kind, sub)) if kind.eq_ignore_ascii_case(b"application/") => {
            sub.eq_ignore_ascii_case(b"json")
                || (sub.len() >= "+json".len()
                    && sub[sub.len() - "+json".len()..].eq_ignore_ascii_case(b"+json")
                    && !sub.contains(&b'/'))
        }
        _ => false,
    };
    if json {
        Ok(())
    } else {
        Err(ApiError::UnsupportedMediaType(format!(
            "Content-Type `{}` is not accepted; send `application/json`.",
            value.to_str().unwrap_or("?")
        )))
    }
}

/// The location of the first string (or key) holding a NUL character, outermost first.
fn nul_path(value: &serde_json::Value) -> Option<Vec<String>> {
    match value {
        serde_json::Value::String(s) => s.contains('\0').then(Vec::new),
        serde_json::Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| nul_path(item).map(|rest| std::iter::once(i.to_string()).chain(rest).collect())),
        serde_json::Value::Object(map) => map.iter().find_map(|(key, item)| {
            if key.contains('\0') {
                return Some(vec![key.replace('\0', "\\u0000")]);
            }
            nul_path(item).map(|rest| std::iter::once(key.clone()).chain(rest).collect())
        }),
        _ => None,
    }
}

/// Rewrites every float with no fraction (within `i64`) as an integer; whether any was rewritten.
fn integral_floats_to_integers(value: &mut serde_json::Value) -> bool {
    match value {
        serde_json::Value::Number(n) if n.is_f64() => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => {
                *value = serde_json::Value::from(f as i64);
                true
            }
            _ => false,
        },
        serde_json::Value::Array(items) => items.iter_mut().fold(false, |any, v| integral_floats_to_integers(v) | any),
        serde_json::Value::Object(map) => map.values_mut().fold(false, |any, v| integral_floats_to_integers(v) | any),
        _ => false,
    }
}

fn classify(err: &serde_json::Error, msg: &str) -> &'static str {
    use serde_json::error::Category;
    match err.classify() {
        Category::Syntax | Category::Eof | Category::Io => "json_invalid",
        Category::Data if msg.starts_with("missing field") => "missing",
        Category::Data if msg.starts_with("unknown field") => "extra_forbidden",
        Category::Data if msg.starts_with("invalid type: map") => "model_type",
        Category::Data => "type_error",
    }
}

fn between_backticks(msg: &str) -> Option<String> {
    let start = msg.find('`')? + 1;
    let len = msg[start..].find('`')?;
    Some(msg[start..start + len].to_string())
}

#[cfg(test)]
mod tests {
    use axum::body::Bytes;

    use super::*;

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Body {
        title: String,
        views: Option<i32>,
    }

    fn loc_kind(raw: &str) -> (Vec<String>, String) {
        match parse_json_body::<Body>(raw.as_bytes()).unwrap_err() {
            ApiError::Input(mut e) => {
                let e = e.remove(0);
                (e.loc, e.kind)
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn unknown_field_messages_name_only_writable_fields() {
        let msg = "unknown field `x`, expected one of `name`, `email`, `bio`";
        assert_eq!(without_fields(msg, &["email"]), "unknown field `x`, expected one of `name`, `bio`");
        assert_eq!(without_fields("unknown field `x`, expected `email`", &["email"]), "unknown field `x`");
        let err = json_body::<Body>(&Bytes::from_static(br#"{"title": "a", "x": 1}"#), &["views"]).unwrap_err();
        assert!(!err.body().to_string().contains("views"), "{}", err.body());
        assert!(err.body().to_string().contains("`title`"), "{}", err.body());
    }

    #[test]
    fn locations() {
        assert_eq!(loc_kind(r#"{"views": 1}"#), (vec!["body".into(), "title".into()], "missing".into()));
        assert_eq!(loc_kind(r#"{"title": "a", "x": 1}"#), (vec!["body".into(), "x".into()], "extra_forbidden".into()));
        assert_eq!(loc_kind(r#"{"title": 5}"#), (vec!["body".into(), "title".into()], "type_error".into()));
        assert_eq!(loc_kind("{not json"), (vec!["body".into()], "json_invalid".into()));
        assert_eq!(loc_kind("[1]").1, "model_type");
        assert_eq!(loc_kind(r#"["t", 1]"#).1, "model_type");
        assert_eq!(loc_kind("5").1, "type_error");
        assert_eq!(loc_kind("  ").1, "missing");
        assert_eq!(loc_kind(r#"{"title": "a"} x"#), (vec!["body".into()], "json_invalid".into()));
        assert!(parse_json_body::<Body>(br#" {"title": "a"} "#).is_ok());
        assert_eq!(loc_kind(r#"{"title": "a\u0000b"}"#), (vec!["body".into(), "title".into()], "string_nul".into()));
        assert_eq!(loc_kind(r#"{"title": "a\U0000"}"#).1, "json_invalid");
        // An escaped backslash followed by `u0000` is text, not NUL.
        assert!(parse_json_body::<Body>(br#"{"title": "a\\u0000"}"#).is_ok());
    }

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        n: i32,
        tags: Vec<u8>,
    }

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Outer {
        title: String,
        inner: Option<Inner>,
        list: Option<Vec<Inner>>,
    }

    #[test]
    fn nested_locations() {
        let loc = |raw: &str| match parse_json_body::<Outer>(raw.as_bytes()).unwrap_err() {
            ApiError::Input(e) => e[0].loc.join("."),
            other => panic!("{other:?}"),
        };
        assert_eq!(loc(r#"{"title": "a", "inner": {"n": 1, "tags": [1, 2, 300]}}"#), "body.inner.tags.2");
        assert_eq!(loc(r#"{"title": "a", "inner": {"n": 1, "tags": [], "zz": 1}}"#), "body.inner.zz");
        assert_eq!(loc(r#"{"title": "a", "list": [{"n": 1, "tags": []}, {"n": 2}]}"#), "body.list.1.tags");
        assert_eq!(loc("{\n  \"title\": \"a\",\n  \"inner\": {\"n\": \"1\",\n \"tags\": []}\n}"), "body.inner.n");
        assert_eq!(loc(r#"{"t\"x": 1, "title": 5}"#), "body.title");
    }
}
