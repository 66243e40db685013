//! The MCP server's read-only resources: the application's OpenAPI document (`viewset://openapi.json`) and each
//! ViewSet's schema (`viewset://viewsets/<ViewSet>`), JSON documents built once when Studio is mounted.
//!
//! They follow the tools' policy: a ViewSet has a schema resource exactly when it has tools (`ai_exposed`, the
//! default), and the OpenAPI document holds only the operations that are tools (an action with `ai_exposed = false`
//! and the routes of a ViewSet with `ai_exposed = false` are left out, with the component schemas only they use). They
//! are reached through the same gate as the tools, and describe; they hold no record (data is read by the tools, as
//! the caller).

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::catalog::{Tool, resolve};
use crate::studio::Studio;

/// The URI of the OpenAPI document.
pub(crate) const OPENAPI_URI: &str = "viewset://openapi.json";
/// The prefix of a ViewSet's schema URI (then its name).
pub(crate) const VIEWSET_URI: &str = "viewset://viewsets/";

/// One resource: how `resources/list` names it and the JSON text `resources/read` answers.
#[derive(Debug, Clone)]
pub(crate) struct Resource {
    pub(crate) uri: String,
    pub(crate) name: String,
    pub(crate) title: String,
    pub(crate) description: String,
    pub(crate) text: String,
}

/// The resources of `studio` with its tool catalog `tools`: the OpenAPI document, then one schema per ViewSet with
/// tools, in the order of the catalog.
pub(crate) fn build(studio: &Studio, tools: &[Tool]) -> Vec<Resource> {
    let document = openapi(&studio.openapi, tools);
    let mut resources = vec![Resource {
        uri: OPENAPI_URI.into(),
        name: "openapi".into(),
        title: format!("{} OpenAPI document", studio.name),
        description: "The OpenAPI 3.1 document of the routes exposed as MCP tools (paths, parameters, bodies, \
                      responses, errors)."
            .into(),
        text: document.to_string(),
    }];
    let mut viewsets: Vec<&str> = Vec::new();
    for tool in tools {
        if !viewsets.contains(&tool.info.viewset) {
            viewsets.push(tool.info.viewset);
        }
    }
    for viewset in viewsets {
        let own: Vec<&Tool> = tools.iter().filter(|t| t.info.viewset == viewset).collect();
        let schema = viewset_schema(studio, viewset, &own);
        resources.push(Resource {
            uri: format!("{VIEWSET_URI}{viewset}"),
            name: viewset.to_string(),
            title: format!("{viewset} schema ({})", own[0].info.table),
            description: format!(
                "{viewset}: its model's fields, the JSON Schemas of its read, create and update bodies, its \
                 configuration and its tools."
            ),
            text: schema.to_string(),
        });
    }
    resources
}

/// `document` with only the operations of `tools` (and the path-level keys of their paths), and of its component
/// schemas only those they (or the other component sections, kept whole) reference, directly or through others.
fn openapi(document: &Value, tools: &[Tool]) -> Value {
    let mut paths = Map::new();
    for tool in tools {
        let path = &tool.info.path;
        let method = tool.info.method.to_ascii_lowercase();
        let Some(item) = document["paths"][path].as_object() else { continue };
        let Some(operation) = item.get(&method) else { continue };
        let kept = paths.entry(path.clone()).or_insert_with(|| {
            let shared = item.iter().filter(|(k, _)| matches!(k.as_str(), "parameters" | "summary" | "description"));
            Value::Object(shared.map(|(k, v)| (k.clone(), v.clone())).collect())
        });
        kept[method] = operation.clone();
    }
    let paths = Value::Object(paths);
    let all = &document["components"]["schemas"];
    let mut used = BTreeSet::new();
    // Roots: the kept operations, and the other component sections (shared responses), which are kept whole.
    let mut others = document["components"].clone();
    if let Some(others) = others.as_object_mut() {
        others.remove("schemas");
    }
    let mut pending = references(&paths);
    pending.extend(references(&others));
    while let Some(name) = pending.pop() {
        if used.insert(name.clone()) {
            pending.extend(references(&all[&name]));
        }
    }
    let mut out = document.clone();
    out["paths"] = paths;
    if let Some(schemas) = out.pointer_mut("/components/schemas").and_then(Value::as_object_mut) {
        schemas.retain(|name, _| used.contains(name));
    }
    out
}

/// The component schema names `value` references (`#/components/schemas/<name>`).
fn references(value: &Value) -> Vec<String> {
    match value {
        Value::Object(object) => object
            .iter()
            .flat_map(|(key, v)| match (key.as_str(), v.as_str()) {
                ("$ref", Some(r)) => r.strip_prefix("#/components/schemas/").map(str::to_string).into_iter().collect(),
                _ => references(v),
            })
            .collect(),
        Value::Array(items) => items.iter().flat_map(references).collect(),
        _ => Vec::new(),
    }
}

/// One ViewSet's schema: its table, its model (fields and relations, when registered), the JSON Schemas of the
/// record it answers and of its create and update bodies (read from its tools' operations, self-contained), its
/// configuration (when registered with `Studio::viewset`; only its exposed actions) and its tools.
fn viewset_schema(studio: &Studio, viewset: &str, tools: &[&Tool]) -> Value {
    let document = &studio.openapi;
    let operation = |tool: &Tool| &document["paths"][&tool.info.path][tool.info.method.to_ascii_lowercase()];
    let of = |kind: &str| tools.iter().find(|t| t.info.operation.as_str() == kind).map(|t| operation(t));
    let mut schemas = Map::new();
    let read = of("retrieve").map(|op| &op["responses"]["200"]["content"]["application/json"]["schema"]);
    for (name, schema) in [
        ("read", read),
        ("create", of("create").map(|op| &op["requestBody"]["content"]["application/json"]["schema"])),
        ("update", of("update").map(|op| &op["requestBody"]["content"]["application/json"]["schema"])),
    ] {
        if let Some(schema) = schema.filter(|s| !s.is_null()) {
            schemas.insert(name.into(), resolve(schema, document, 0));
        }
    }
    let table = &tools[0].info.table;
    let model = studio.models.iter().find(|m| &m.table_name == table).map(|m| m.to_full_json());
    let configuration = studio.viewset_details.iter().find(|v| v["name"] == viewset).cloned().map(|mut c| {
        if let Some(actions) = c["actions"].as_array_mut() {
            actions.retain(|a| a["ai_exposed"] == true);
        }
        c
    });
    let tool_list: Vec<Value> = tools
        .iter()
        .map(|t| {
            let i = &t.info;
            json!({"name": i.name, "operation": i.operation.as_str(), "method": i.method, "path": i.path,
                   "read_only": i.read_only})
        })
        .collect();
    json!({
        "viewset": viewset,
        "table": table,
        "model": model,
        "schemas": schemas,
        "configuration": configuration,
        "tools": tool_list,
    })
}
