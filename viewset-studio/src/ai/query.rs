//! `POST /ai/query/execute`: a structured read-only query `{viewset, filters, search, ordering, limit, offset,
//! cursor}` run as the ViewSet's list tool (its `GET` list route, as the caller), never SQL from the client. The
//! answer has the rows and count the list route returned, the SQL statements it ran (recorded from the very
//! statements, see `viewset_core::store::record_statements`) with their times, and the whole call's time. With
//! `"explain": true` (a debug panel: only when Studio runs in debug mode) each statement also carries the
//! database's plan (`viewset_core::store::explain`: planned with its own bound values, never run again).

use std::sync::Arc;
use std::time::Instant;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{Extensions, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use viewset_core::query::is_reserved_query_name;
use viewset_core::registration::ToolOperation;
use viewset_core::store::record_statements;

use super::AiState;
use super::dispatch::{self, Caller};

/// The request body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Query {
    /// The ViewSet's name (`PostViewSet`) or its table (`posts`).
    viewset: String,
    /// List parameters: `field` or `field__lookup` → value (a list for `__in`).
    #[serde(default)]
    filters: Map<String, Value>,
    search: Option<String>,
    /// `-views,id` or `["-views", "id"]`.
    ordering: Option<Value>,
    limit: Option<u64>,
    offset: Option<u64>,
    cursor: Option<String>,
    /// Add each statement's plan (debug mode only).
    #[serde(default)]
    explain: bool,
}

fn unprocessable(loc: &[&str], msg: String, kind: &str) -> Response {
    let body = json!({"detail": [{"loc": loc, "msg": msg, "type": kind}]});
    (StatusCode::UNPROCESSABLE_ENTITY, axum::Json(body)).into_response()
}

/// The handler.
pub(super) async fn execute(
    State(state): State<Arc<AiState>>,
    headers: HeaderMap,
    extensions: Extensions,
    body: Bytes,
) -> Response {
    let query: Query = match serde_json::from_slice(&body) {
        Ok(query) => query,
        Err(e) => return unprocessable(&["body"], format!("not a query: {e}"), "invalid_query"),
    };
    let list = state.tools.iter().find(|t| {
        t.info.operation == ToolOperation::List && (t.info.viewset == query.viewset || t.info.table == query.viewset)
    });
    let Some(list) = list else {
        let known: Vec<&str> =
            state.tools.iter().filter(|t| t.info.operation == ToolOperation::List).map(|t| t.info.viewset).collect();
        let msg = format!("no AI-exposed ViewSet `{}`; known: {}", query.viewset, known.join(", "));
        return unprocessable(&["body", "viewset"], msg, "unknown_viewset");
    };
    let accepts = |name: &str| list.query.iter().any(|q| q == name);
    let mut arguments = Map::new();
    for (name, value) in &query.filters {
        if is_reserved_query_name(name) || !accepts(name) {
            let filters: Vec<&String> = list.query.iter().filter(|q| !is_reserved_query_name(q)).collect();
            let msg = format!("`{name}` is not a filter of {}; filters: {filters:?}", list.info.viewset);
            return unprocessable(&["body", "filters", name], msg, "unknown_filter");
        }
        arguments.insert(name.clone(), value.clone());
    }
    let limit_name = if accepts("limit") { "limit" } else { "page_size" };
    let ordering = match query.ordering {
        Some(Value::Array(terms)) => Some(Value::Array(terms)),
        Some(Value::String(terms)) => Some(Value::String(terms)),
        None => None,
        Some(_) => return unprocessable(&["body", "ordering"], "a string or a list of strings".into(), "type_error"),
    };
    let optional = [
        ("search", query.search.map(Value::from)),
        ("ordering", ordering),
        (limit_name, query.limit.map(Value::from)),
        ("offset", query.offset.map(Value::from)),
        ("cursor", query.cursor.map(Value::from)),
    ];
    for (name, value) in optional {
        let Some(value) = value else { continue };
        if !accepts(name) {
            let msg = format!("{} does not take `{name}` (its list parameters: {:?})", list.info.viewset, list.query);
            return unprocessable(&["body", name], msg, "unsupported_parameter");
        }
        arguments.insert(name.to_string(), value);
    }
    if query.explain && !state.inner.studio.settings().debug {
        let msg = "EXPLAIN is a debug panel: it is offered when Studio runs in debug mode (SERVICE_DEBUG=true)".into();
        return unprocessable(&["body", "explain"], msg, "debug_only");
    }
    let caller = Caller { headers: &headers, extensions: &extensions, studio_token: state.studio_token.as_deref() };
    let started = Instant::now();
    let (answer, statements) = record_statements(dispatch::call(&state.app, list, &arguments, &caller)).await;
    let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    if !answer.status.is_success() {
        return (answer.status, axum::Json(answer.body)).into_response();
    }
    let mut sql = serde_json::to_value(&statements).unwrap_or_default();
    if query.explain {
        for (recorded, shown) in statements.iter().zip(sql.as_array_mut().into_iter().flatten()) {
            shown["plan"] = match viewset_core::store::explain(&state.inner.db, recorded).await {
                Ok(plan) => json!(plan),
                Err(e) => json!({"error": e.to_string()}),
            };
        }
    }
    let page = &answer.body;
    let rows = page.get("results").or_else(|| page.get("items")).cloned().unwrap_or(Value::Array(Vec::new()));
    axum::Json(json!({
        "viewset": list.info.viewset,
        "tool": list.info.name,
        "rows": rows,
        "count": page.get("count").cloned().unwrap_or(Value::Null),
        "next": page.get("next").cloned().unwrap_or(Value::Null),
        "previous": page.get("previous").cloned().unwrap_or(Value::Null),
        "sql": sql,
        "time_ms": elapsed_ms,
    }))
    .into_response()
}
