//! Body errors that teach (issue 15): when a body does not parse, every missing required field, every unknown or
//! read-only field and the first wrongly typed value are reported together, in API terms (`integer`, `date-time
//! (RFC 3339)`), never Rust type names. Runs only on the error path: a valid body is parsed once.

use utoipa::openapi::schema::{Schema, SchemaFormat};
use utoipa::openapi::{KnownFormat, RefOr};

use crate::error::{ApiError, InputError};

/// What a body's fields are: its schema (properties and required fields) and the model's field names (a model
/// field the schema lacks is read-only: set by the server).
pub(crate) struct BodyShape {
    /// The body's own schema (`CreateSchema::openapi_schema` / `UpdateSchema::openapi_schema`).
    pub schema: RefOr<Schema>,
    /// Every field of the model.
    pub model_fields: Vec<&'static str>,
}

const DATE_TIME: &str = "a date-time (RFC 3339, e.g. 2026-11-22T10:00:00Z)";
const DATE: &str = "a date (YYYY-MM-DD)";

/// `error` (from the typed parse of `bytes`) completed and reworded with what `shape` knows.
pub(crate) fn explain(error: ApiError, bytes: &[u8], shape: &BodyShape, hidden: &[&str]) -> ApiError {
    let ApiError::Input(errors) = error else { return error };
    let object = match &shape.schema {
        RefOr::T(Schema::Object(object)) => Some(object),
        _ => None,
    };
    let format_of = |field: &str| -> Option<&'static str> {
        let RefOr::T(Schema::Object(property)) = object?.properties.get(field)? else { return None };
        match property.format {
            Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)) => Some(DATE_TIME),
            Some(SchemaFormat::KnownFormat(KnownFormat::Date)) => Some(DATE),
            _ => None,
        }
    };
    let body = match (object, serde_json::from_slice::<serde_json::Value>(bytes)) {
        (Some(object), Ok(serde_json::Value::Object(map))) => Some((object, map)),
        _ => None,
    };
    // With the body's fields known, missing and unknown fields are all listed below: drop serde's first one.
    let mut out: Vec<InputError> = errors
        .into_iter()
        .filter(|e| body.is_none() || !matches!(e.kind.as_str(), "missing" | "extra_forbidden"))
        .map(|mut e| {
            let field = e.loc.get(1).cloned().unwrap_or_default();
            e.msg = api_terms(&e.msg, format_of(&field));
            e
        })
        .collect();
    let Some((object, map)) = body else { return ApiError::Input(out) };
    let writable: Vec<String> = object
        .properties
        .keys()
        .filter(|name| !hidden.contains(&name.as_str()))
        .map(|name| format!("`{name}`"))
        .collect();
    for key in map.keys().filter(|key| !object.properties.contains_key(*key)) {
        out.push(if shape.model_fields.contains(&key.as_str()) && !hidden.contains(&key.as_str()) {
            InputError::new(["body", key], "This field is read-only: the server sets it", "read_only")
        } else {
            let msg = format!("Unknown field `{key}`; the fields you may send are: {}", writable.join(", "));
            InputError::new(["body", key], msg, "extra_forbidden")
        });
    }
    for field in object.required.iter().filter(|field| !map.contains_key(*field)) {
        out.push(InputError::new(["body", field], "Field required", "missing"));
    }
    ApiError::Input(out)
}

/// serde's wording in API terms: `invalid type: string "x", expected i32` → `Input should be an integer (got a
/// string)`; date and time parse errors name the accepted format (`format`, from the body's schema).
fn api_terms(msg: &str, format: Option<&str>) -> String {
    let split = msg.strip_prefix("invalid type: ").or_else(|| msg.strip_prefix("invalid value: "));
    if let Some((got, expected)) = split.and_then(|rest| rest.rsplit_once(", expected ")) {
        let expected = format.map_or_else(|| expected_in_api_terms(expected), str::to_string);
        return format!("Input should be {expected} (got {})", got_in_api_terms(got));
    }
    match format {
        Some(format) if !msg.starts_with("Input should") => format!("Input should be {format}: {msg}"),
        _ => msg.to_string(),
    }
}

fn expected_in_api_terms(expected: &str) -> String {
    let range = |min: i128, max: i128| format!("an integer between {min} and {max}");
    match expected {
        "i8" => range(i8::MIN.into(), i8::MAX.into()),
        "i16" => range(i16::MIN.into(), i16::MAX.into()),
        "i32" => range(i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" => range(i64::MIN.into(), i64::MAX.into()),
        "u8" => range(0, u8::MAX.into()),
        "u16" => range(0, u16::MAX.into()),
        "u32" => range(0, u32::MAX.into()),
        "u64" | "usize" => range(0, u64::MAX.into()),
        "f32" | "f64" => "a number".into(),
        "a sequence" => "a list".into(),
        "a map" => "an object".into(),
        other if other.starts_with("struct ") => "an object".into(),
        other if other.contains("date and time") => DATE_TIME.into(),
        other if other.contains("date") => DATE.into(),
        other => other.to_string(),
    }
}

fn got_in_api_terms(got: &str) -> String {
    let kind = got.split([' ', '`', '"']).next().unwrap_or(got);
    match kind {
        "string" => format!("the string {}", got.trim_start_matches("string ")),
        "integer" | "floating" => format!("the number {}", got.rsplit(' ').next().unwrap_or(got).trim_matches('`')),
        "boolean" => format!("the boolean {}", got.rsplit(' ').next().unwrap_or(got).trim_matches('`')),
        "null" => "null".into(),
        "map" => "an object".into(),
        "sequence" => "a list".into(),
        _ => got.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_types_become_api_terms() {
        let msg = api_terms(r#"invalid type: string "x", expected i32"#, None);
        assert_eq!(msg, r#"Input should be an integer between -2147483648 and 2147483647 (got the string "x")"#);
        assert!(api_terms("invalid type: floating point `1.5`, expected i32", None).contains("the number 1.5"));
        assert_eq!(
            api_terms("invalid type: integer `5`, expected a string", None),
            "Input should be a string (got the number 5)"
        );
        assert_eq!(
            api_terms("invalid type: boolean `true`, expected f64", None),
            "Input should be a number (got the boolean true)"
        );
        let date = api_terms("input contains invalid characters", Some(DATE_TIME));
        assert_eq!(
            date,
            "Input should be a date-time (RFC 3339, e.g. 2026-11-22T10:00:00Z): input contains invalid characters"
        );
        for msg in [api_terms(r#"invalid type: map, expected u64"#, None), expected_in_api_terms("f64")] {
            assert!(!msg.contains("u64") && !msg.contains("f64"), "{msg}");
        }
    }
}
