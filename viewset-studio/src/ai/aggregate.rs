//! The `aggregate` of an `/ai/query/execute` body, read into the arguments of the ViewSet's `<basename>_aggregate`
//! tool (`GET <prefix>/aggregate`). Only the shape is checked here (which parameters, their JSON types); what they
//! name (declared fields, buckets, aliases, zones, the caller's hidden fields) is decided by the route itself, as it
//! is for a REST or MCP call, and its 422 is answered unchanged.
//!
//! ```json
//! {"viewset": "posts", "filters": {"published": true}, "search": "engine",
//!  "aggregate": {"group_by": ["author_id", "created_at__month"], "count": true, "sum": ["views"],
//!                "having": ["count__gte:2"], "order_by": ["-sum_views"], "limit": 10, "tz": "UTC"}}
//! ```
//!
//! Lists may also be written as the route's comma-separated text (`"group_by": "author_id,published"`).

use serde_json::{Map, Value};
use viewset_core::aggregate::PARAMETERS;

/// Why an `aggregate` object was refused: where (under `["body", "aggregate"]`), the message and its type.
#[derive(Debug)]
pub(super) struct Refusal {
    pub(super) key: Option<String>,
    pub(super) msg: String,
    pub(super) kind: &'static str,
}

impl Refusal {
    fn at(key: &str, msg: String, kind: &'static str) -> Refusal {
        Refusal { key: Some(key.to_string()), msg, kind }
    }
}

/// The tool arguments of `aggregate` (a JSON object), for a tool whose route takes the query parameters `accepts`
/// names. `count: false` and `null` values are left out.
pub(super) fn arguments(
    aggregate: &Value,
    accepts: &dyn Fn(&str) -> bool,
    viewset: &str,
) -> Result<Map<String, Value>, Refusal> {
    let Some(object) = aggregate.as_object() else {
        let msg = "an object of aggregate parameters, e.g. {\"group_by\": [\"author_id\"], \"count\": true}".into();
        return Err(Refusal { key: None, msg, kind: "type_error" });
    };
    let mut arguments = Map::new();
    for (key, value) in object {
        if !PARAMETERS.contains(&key.as_str()) {
            let msg = format!("`{key}` is not an aggregate parameter; parameters: {}", PARAMETERS.join(", "));
            return Err(Refusal::at(key, msg, "unknown_parameter"));
        }
        if value.is_null() || (key == "count" && *value == Value::Bool(false)) {
            continue;
        }
        let value = match key.as_str() {
            "count" if *value == Value::Bool(true) => value.clone(),
            "count" => return Err(Refusal::at(key, "`count` is true or false".into(), "type_error")),
            "limit" if value.as_u64().is_some() => value.clone(),
            "limit" => return Err(Refusal::at(key, "`limit` is a whole number of groups".into(), "type_error")),
            "tz" if value.is_string() => value.clone(),
            "tz" => return Err(Refusal::at(key, "`tz` is a time zone name, e.g. \"UTC\"".into(), "type_error")),
            _ => names(key, value)?,
        };
        if !accepts(key) {
            let msg = format!("{viewset} declares nothing `{key}` may name (its aggregates(...))");
            return Err(Refusal::at(key, msg, "unsupported_parameter"));
        }
        arguments.insert(key.clone(), value);
    }
    Ok(arguments)
}

/// A list parameter: a string (`"author_id,published"`) or a list of non-empty strings, as the route's text.
fn names(key: &str, value: &Value) -> Result<Value, Refusal> {
    let refused = || Refusal::at(key, format!("`{key}` is a list of names or a comma-separated string"), "type_error");
    match value {
        Value::String(text) if !text.is_empty() => Ok(value.clone()),
        Value::Array(items) if !items.is_empty() => {
            let names: Option<Vec<&str>> = items.iter().map(|v| v.as_str().filter(|s| !s.is_empty())).collect();
            names.map(|n| Value::String(n.join(","))).ok_or_else(refused)
        }
        _ => Err(refused()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(aggregate: Value) -> Result<Map<String, Value>, Refusal> {
        arguments(&aggregate, &|name| name != "min", "PostViewSet")
    }

    #[test]
    fn lists_become_the_routes_text_and_false_or_null_is_left_out() {
        let read = read(json!({"group_by": ["author_id", "created_at__month"], "count": true, "sum": "views",
                               "limit": 3, "tz": "UTC", "avg": null, "having": ["count__gte:2"]}))
        .unwrap();
        assert_eq!(
            Value::Object(read),
            json!({"group_by": "author_id,created_at__month", "count": true, "sum": "views", "limit": 3,
                   "tz": "UTC", "having": "count__gte:2"})
        );
        assert!(super::arguments(&json!({"count": false}), &|_| true, "P").unwrap().is_empty());
    }

    #[test]
    fn bad_shapes_are_refused_at_their_key() {
        let cases = [
            (json!([1]), None, "type_error"),
            (json!({"median": ["views"]}), Some("median"), "unknown_parameter"),
            (json!({"count": "yes"}), Some("count"), "type_error"),
            (json!({"limit": -1}), Some("limit"), "type_error"),
            (json!({"limit": 1.5}), Some("limit"), "type_error"),
            (json!({"tz": 1}), Some("tz"), "type_error"),
            (json!({"group_by": [1]}), Some("group_by"), "type_error"),
            (json!({"group_by": []}), Some("group_by"), "type_error"),
            (json!({"sum": ""}), Some("sum"), "type_error"),
            (json!({"sum": {"views": 1}}), Some("sum"), "type_error"),
            (json!({"min": ["views"]}), Some("min"), "unsupported_parameter"),
        ];
        for (aggregate, key, kind) in cases {
            let refused = read(aggregate.clone()).expect_err(&aggregate.to_string());
            assert_eq!((refused.key.as_deref(), refused.kind), (key, kind), "{aggregate}: {}", refused.msg);
        }
    }
}
