//! The tool catalog: each [`ToolInfo`] the `Api` registered, with its input JSON Schema read from the operation
//! the OpenAPI module already describes (path `pk`, query parameters with their lookups and bounds, the JSON
//! body), so the catalog, `/openapi.json` and the server cannot disagree.

use serde_json::{Map, Value, json};
use viewset_core::registration::{ToolInfo, ToolOperation};

/// Arguments that are not query parameters.
pub(crate) const PK: &str = "pk";
/// The JSON body of a create, update or action.
pub(crate) const BODY: &str = "body";
/// Sent as `If-Match` (update, delete, detail actions).
pub(crate) const IF_MATCH: &str = "if_match";

/// One tool with what a caller needs to call it.
#[derive(Debug, Clone)]
pub(crate) struct Tool {
    pub(crate) info: ToolInfo,
    /// The input JSON Schema (an object).
    pub(crate) input_schema: Value,
    /// The query parameters of its route (the input properties that go to the query string).
    pub(crate) query: Vec<String>,
    /// Whether the route reads a JSON body.
    pub(crate) body: bool,
    pub(crate) description: String,
}

impl Tool {
    /// The MCP tool object (`name`, `title`, `description`, `inputSchema`, `annotations`) and, under `_meta`,
    /// the route it calls.
    pub(crate) fn to_json(&self) -> Value {
        let info = &self.info;
        json!({
            "name": info.name,
            "title": self.title(),
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": {
                "title": self.title(),
                "readOnlyHint": info.read_only,
                "destructiveHint": info.destructive,
                "idempotentHint": info.idempotent,
                "openWorldHint": false,
            },
            "_meta": {
                "viewset": info.viewset,
                "table": info.table,
                "operation": info.operation.as_str(),
                "action": info.action,
                "method": info.method,
                "path": info.path,
                "approval": approval(info.read_only),
            },
        })
    }

    fn title(&self) -> String {
        let info = &self.info;
        match info.action {
            Some(action) => format!("{} {action} ({} {})", info.table, info.method, info.path),
            None => format!("{} {}", info.table, info.operation.as_str()),
        }
    }
}

/// The approval hint of a tool (`_meta.approval`): a tool that writes should be confirmed by a person before a
/// client calls it. Only a hint (spec: "MCP approval metadata installs no HTTP approval workflow"): no approval
/// workflow, route or middleware exists on the server.
fn approval(read_only: bool) -> Value {
    if read_only {
        json!({"required": false})
    } else {
        json!({"required": true, "reason": "This tool changes data; ask a person to confirm before calling it."})
    }
}

/// The tools of `infos`, described from the OpenAPI `document` (as JSON).
pub(crate) fn build(infos: &[ToolInfo], document: &Value) -> Vec<Tool> {
    infos.iter().map(|info| tool(info, document)).collect()
}

fn tool(info: &ToolInfo, document: &Value) -> Tool {
    let operation = &document["paths"][&info.path][info.method.to_ascii_lowercase()];
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut query = Vec::new();
    for parameter in operation["parameters"].as_array().into_iter().flatten() {
        let Some(name) = parameter["name"].as_str() else { continue };
        let mut schema = resolve(&parameter["schema"], document, 0);
        if let (Some(object), Some(description)) = (schema.as_object_mut(), parameter["description"].as_str()) {
            object.insert("description".into(), description.into());
        }
        match parameter["in"].as_str() {
            Some("path") => {
                properties.insert(PK.into(), schema);
                required.push(PK);
            }
            Some("query") => {
                properties.insert(name.to_string(), schema);
                query.push(name.to_string());
            }
            _ => {}
        }
    }
    let body_schema = &operation["requestBody"]["content"]["application/json"]["schema"];
    let body = !body_schema.is_null();
    if body {
        properties.insert(BODY.into(), resolve(body_schema, document, 0));
        required.push(BODY);
    }
    if matches!(info.operation, ToolOperation::Update | ToolOperation::Delete) {
        properties.insert(
            IF_MATCH.into(),
            json!({"type": "string", "description": "Sent as `If-Match`: the `etag` of the record as you last read it \
                   (a mismatch is 412; without it, 428 when the ViewSet requires If-Match)."}),
        );
    }
    let summary = operation["summary"].as_str().unwrap_or(info.operation.as_str());
    let mut description = match info.operation {
        ToolOperation::Action => format!("Action `{}` of {}", info.action.unwrap_or_default(), info.viewset),
        _ => format!("{summary} of {} ({})", info.viewset, info.table),
    };
    description.push_str(&format!(": `{} {}`, as the caller's own identity.", info.method, info.path));
    if !info.doc.is_empty() {
        description.push(' ');
        description.push_str(info.doc);
    }
    Tool {
        info: info.clone(),
        input_schema: json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        }),
        query,
        body,
        description,
    }
}

/// `schema` with `#/components/schemas/…` references replaced by their definitions (a tool's input schema stands
/// alone); references nested deeper than 8 levels become `{}`.
pub(crate) fn resolve(schema: &Value, document: &Value, depth: usize) -> Value {
    match schema {
        Value::Object(object) => {
            if let Some(name) =
                object.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                let target = &document["components"]["schemas"][name];
                return if depth < 8 && !target.is_null() { resolve(target, document, depth + 1) } else { json!({}) };
            }
            Value::Object(object.iter().map(|(k, v)| (k.clone(), resolve(v, document, depth))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| resolve(v, document, depth)).collect()),
        other => other.clone(),
    }
}
