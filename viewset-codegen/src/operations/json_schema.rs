//! The JSON Schema of [`super::Operation`]s: utoipa's OpenAPI components rewritten as a standalone JSON Schema
//! (`$defs`, each variant one closed object), for `/ai/plan/preview` and language-model providers.

use serde_json::Value;
use utoipa::ToSchema;

use super::Operation;

/// The JSON Schema (2020-12) of a list of operations, `{"operations": [Operation, ...]}`: what clients send to
/// `/ai/plan/preview` and what a language-model provider is asked to answer.
///
/// ```
/// let schema = viewset_codegen::operations_json_schema();
/// assert_eq!(schema["type"], "object");
/// assert!(schema.to_string().contains("new_resource"));
/// ```
pub fn operations_json_schema() -> Value {
    use utoipa::openapi::ComponentsBuilder;
    let mut schemas = Vec::new();
    <Operation as ToSchema>::schemas(&mut schemas);
    let components = ComponentsBuilder::new()
        .schemas_from_iter(schemas)
        .schema("Operation", <Operation as utoipa::PartialSchema>::schema())
        .build();
    let mut defs = rewrite_refs(serde_json::to_value(&components.schemas).unwrap_or_default());
    flatten_variants(&mut defs);
    if let Some(default) = defs.pointer_mut("/Column/properties/default") {
        default["type"] = serde_json::json!(["boolean", "number", "string", "null"]);
    }
    serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "ViewsetCodegenOperations",
        "type": "object",
        "required": ["operations"],
        "additionalProperties": false,
        "properties": {"operations": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/Operation"}}},
        "$defs": defs,
    })
}

/// OpenAPI's `#/components/schemas/X` references as JSON Schema's `#/$defs/X`, and descriptions without the doc
/// comments' code examples.
fn rewrite_refs(value: Value) -> Value {
    match value {
        Value::String(s) if s.starts_with("#/components/schemas/") => {
            Value::String(s.replacen("#/components/schemas/", "#/$defs/", 1))
        }
        Value::Object(mut map) if map.get("description").and_then(Value::as_str).is_some_and(|d| d.contains("```")) => {
            let description = map["description"].as_str().unwrap_or_default();
            let short = description[..description.find("```").unwrap_or(description.len())].trim().to_string();
            map.insert("description".into(), Value::String(short));
            rewrite_refs(Value::Object(map))
        }
        Value::Array(items) => Value::Array(items.into_iter().map(rewrite_refs).collect()),
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, rewrite_refs(v))).collect()),
        other => other,
    }
}

/// Each variant of `Operation` as one closed object: the struct's properties plus `op` (utoipa writes `allOf` of the
/// struct, which is closed with `additionalProperties: false`, and of `{op}`, so no object would validate).
fn flatten_variants(defs: &mut Value) {
    let Some(variants) = defs.pointer("/Operation/oneOf").and_then(Value::as_array).cloned() else { return };
    let mut flat = Vec::new();
    for variant in variants {
        let name = variant.pointer("/allOf/0/$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/"));
        let op = variant.pointer("/allOf/1/properties/op/enum/0").cloned();
        let (Some(name), Some(op)) = (name, op) else { return };
        let Some(mut object) = defs.get(name).cloned() else { return };
        object["properties"]["op"] = serde_json::json!({"const": op});
        if let Some(required) = object["required"].as_array_mut() {
            required.insert(0, Value::from("op"));
        }
        flat.push(object);
        if let Some(defs) = defs.as_object_mut() {
            defs.remove(name);
        }
    }
    defs["Operation"] = serde_json::json!({
        "description": "One change to the project: an object whose `op` names the operation.",
        "oneOf": flat,
    });
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    #[test]
    fn each_variant_is_one_closed_object_with_its_op() {
        let schema = super::operations_json_schema();
        let variants = schema.pointer("/$defs/Operation/oneOf").and_then(|v| v.as_array()).unwrap();
        let ops: Vec<&Value> = variants.iter().map(|v| &v["properties"]["op"]["const"]).collect();
        assert_eq!(
            ops,
            [&json!("new_resource"), &json!("add_to_allowlist"), &json!("add_column"), &json!("new_migration")]
        );
        for variant in variants {
            assert_eq!(variant["additionalProperties"], false);
            assert_eq!(variant["required"][0], "op");
        }
        assert!(schema["$defs"].get("NewResource").is_none() && schema["$defs"].get("Column").is_some());
        assert_eq!(schema["$defs"]["Column"]["properties"]["default"]["type"][0], "boolean");
        assert!(!schema.to_string().contains("#/components/") && !schema.to_string().contains("```"));
    }
}
