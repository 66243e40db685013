//! JSON bodies: any malformed or wrongly typed body is a 422 with the location of the problem.

use axum::body::Bytes;
use serde::de::DeserializeOwned;

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
    let Some(first) = bytes.iter().find(|b| !b.is_ascii_whitespace()) else {
        return Err(ApiError::input(["body"], "Field required", "missing"));
    };
    // serde would accept a JSON array for a struct (fields by position): a body must be an object.
    if *first == b'[' {
        return Err(ApiError::input(["body"], "Input should be a valid JSON object", "model_type"));
    }
    // The common case, a valid body, parses once; only a failure is parsed again to locate the problem.
    let trailing = match serde_json::from_slice(bytes) {
        Ok(value) => return Ok(value),
        Err(err) => err,
    };
    // JSON (and the OpenAPI document's JSON Schema) has one number type: `5.0` is an integer as much as `5` is.
    if let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(bytes)
        && integral_floats_to_integers(&mut value)
        && let Ok(parsed) = serde_json::from_value(value)
    {
        return Ok(parsed);
    }
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    let located: Result<T, _> = serde_path_to_error::deserialize(de);
    located.map_err(|err| {
        let mut loc = vec!["body".to_string()];
        let path = err.path().to_string();
        let inner = err.into_inner();
        let msg = inner.to_string();
        let kind = classify(&inner, &msg);
        // serde reports a missing or unknown field at the parent; name the field itself.
        let field = between_backticks(&msg);
        if path != "." && kind != "json_invalid" {
            loc.extend(path.split('.').filter(|segment| *segment != "?").map(str::to_string));
        }
        if matches!(kind, "missing" | "extra_forbidden")
            && let Some(field) = field
            && loc.last() != Some(&field)
        {
            loc.push(field);
        }
        let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        ApiError::Input(vec![InputError { loc, msg, kind: kind.to_string() }])
    })?;
    // The value parsed, so the whole-body parse failed after it: characters after the JSON value.
    let msg = trailing.to_string();
    let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
    Err(ApiError::Input(vec![InputError { loc: vec!["body".to_string()], msg, kind: "json_invalid".to_string() }]))
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

/// Used by the generated routes: raw bytes to a typed body.
pub(crate) fn json_body<T: DeserializeOwned>(bytes: &Bytes) -> Result<T, ApiError> {
    parse_json_body(bytes)
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
    }
}
