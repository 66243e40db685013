//! `POST /ai/query/execute`: a structured read-only query `{viewset, filters, search, ordering, limit, offset,
//! cursor}` run as the ViewSet's list tool (its `GET` list route, as the caller), never SQL from the client. The
//! answer has the rows and count the list route returned, the SQL statements it ran (recorded from the very
//! statements, see `viewset_core::store::record_statements`) with their times, and the whole call's time. With
//! `"explain": true` (a debug panel: only when Studio runs in debug mode) each statement also carries the
//! database's plan (`viewset_core::store::explain`: planned with its own bound values, never run again).
//!
//! **Aggregates.** With an `aggregate` object (`{"group_by": [...], "count": true, "sum": [...], "avg": [...],
//! "min": [...], "max": [...], "count_distinct": [...], "having": [...], "order_by": [...], "limit": n, "tz": "..."}`,
//! see `super::aggregate`) the same query runs as the ViewSet's `<basename>_aggregate` tool instead
//! (`GET <prefix>/aggregate`, as the caller), so the groups are counted over exactly the rows the list would show
//! that caller: `filters` and `search` narrow them as they narrow the list; the list's `ordering`, `limit`, `offset`
//! and `cursor` are refused (the aggregate's own are `aggregate.order_by` and `aggregate.limit`). The answer is
//! `{"viewset", "tool", "groups", "truncated", "sql", "time_ms"}`. A ViewSet without `aggregates(...)` (or not
//! AI-exposed) is a 422 `no_aggregates`; what the route refuses (an undeclared or hidden field, a bad bucket or zone,
//! a `limit` over `max_groups`) is its own 422, answered unchanged.

use std::sync::Arc;
use std::time::Instant;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{Extensions, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use viewset_core::aggregate::PARAMETERS;
use viewset_core::query::is_reserved_query_name;
use viewset_core::registration::ToolOperation;
use viewset_core::store::record_statements;

use super::dispatch::{self, Caller};
use super::{AiState, Tool, aggregate};

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
    /// Run as the ViewSet's aggregate instead of its list (`super::aggregate`).
    aggregate: Option<Value>,
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
    let (tool, arguments) = match arguments(&state.tools, &query) {
        Ok(found) => found,
        Err(refused) => return refused,
    };
    if query.explain && !state.inner.studio.settings().debug {
        let msg = "EXPLAIN is a debug panel: it is offered when Studio runs in debug mode (SERVICE_DEBUG=true)".into();
        return unprocessable(&["body", "explain"], msg, "debug_only");
    }
    let caller = Caller { headers: &headers, extensions: &extensions, studio_token: state.studio_token.as_deref() };
    let started = Instant::now();
    let (answer, statements) = record_statements(dispatch::call(&state.app, tool, &arguments, &caller)).await;
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
    if query.aggregate.is_some() {
        return axum::Json(json!({
            "viewset": tool.info.viewset,
            "tool": tool.info.name,
            "groups": page.get("groups").cloned().unwrap_or(Value::Array(Vec::new())),
            "truncated": page.get("truncated").cloned().unwrap_or(Value::Bool(false)),
            "sql": sql,
            "time_ms": elapsed_ms,
        }))
        .into_response();
    }
    let rows = page.get("results").or_else(|| page.get("items")).cloned().unwrap_or(Value::Array(Vec::new()));
    axum::Json(json!({
        "viewset": tool.info.viewset,
        "tool": tool.info.name,
        "rows": rows,
        "count": page.get("count").cloned().unwrap_or(Value::Null),
        "next": page.get("next").cloned().unwrap_or(Value::Null),
        "previous": page.get("previous").cloned().unwrap_or(Value::Null),
        "sql": sql,
        "time_ms": elapsed_ms,
    }))
    .into_response()
}

/// The tool `query` runs (the ViewSet's list, or its aggregate with `aggregate`) and its arguments, or the 422 of
/// a query it cannot run.
fn arguments<'a>(tools: &'a [Tool], query: &Query) -> Result<(&'a Tool, Map<String, Value>), Response> {
    let operation = if query.aggregate.is_some() { ToolOperation::Aggregate } else { ToolOperation::List };
    let named = |t: &&Tool| t.info.viewset == query.viewset || t.info.table == query.viewset;
    let Some(tool) = tools.iter().filter(named).find(|t| t.info.operation == operation) else {
        if operation == ToolOperation::Aggregate
            && tools.iter().filter(named).any(|t| t.info.operation == ToolOperation::List)
        {
            let msg = format!(
                "`{}` declares no aggregates (#[viewset(aggregates(...))]), or its aggregate is not AI-exposed",
                query.viewset
            );
            return Err(unprocessable(&["body", "aggregate"], msg, "no_aggregates"));
        }
        let known: Vec<&str> =
            tools.iter().filter(|t| t.info.operation == ToolOperation::List).map(|t| t.info.viewset).collect();
        let msg = format!("no AI-exposed ViewSet `{}`; known: {}", query.viewset, known.join(", "));
        return Err(unprocessable(&["body", "viewset"], msg, "unknown_viewset"));
    };
    let accepts = |name: &str| tool.query.iter().any(|q| q == name);
    let own = |name: &str| operation == ToolOperation::Aggregate && PARAMETERS.contains(&name);
    let mut arguments = Map::new();
    for (name, value) in &query.filters {
        if is_reserved_query_name(name) || own(name) || !accepts(name) {
            let filters: Vec<&String> = tool.query.iter().filter(|q| !is_reserved_query_name(q) && !own(q)).collect();
            let msg = format!("`{name}` is not a filter of {}; filters: {filters:?}", tool.info.viewset);
            return Err(unprocessable(&["body", "filters", name], msg, "unknown_filter"));
        }
        arguments.insert(name.clone(), value.clone());
    }
    let limit_name = if accepts("limit") { "limit" } else { "page_size" };
    let ordering = match &query.ordering {
        Some(terms @ (Value::Array(_) | Value::String(_))) => Some(terms.clone()),
        None => None,
        Some(_) => {
            return Err(unprocessable(&["body", "ordering"], "a string or a list of strings".into(), "type_error"));
        }
    };
    let optional = [
        ("search", query.search.clone().map(Value::from)),
        ("ordering", ordering),
        (limit_name, query.limit.map(Value::from)),
        ("offset", query.offset.map(Value::from)),
        ("cursor", query.cursor.clone().map(Value::from)),
    ];
    for (name, value) in optional {
        let Some(value) = value else { continue };
        if operation == ToolOperation::Aggregate && name != "search" {
            let msg = format!(
                "an aggregate has no `{name}` of the list's; its groups are ordered and bounded by `aggregate.order_by` \
                 and `aggregate.limit`"
            );
            return Err(unprocessable(&["body", name], msg, "unsupported_parameter"));
        }
        if !accepts(name) {
            let msg = format!("{} does not take `{name}` (its list parameters: {:?})", tool.info.viewset, tool.query);
            return Err(unprocessable(&["body", name], msg, "unsupported_parameter"));
        }
        arguments.insert(name.to_string(), value);
    }
    if let Some(requested) = &query.aggregate {
        let own = aggregate::arguments(requested, &accepts, tool.info.viewset).map_err(|refused| {
            let mut loc = vec!["body", "aggregate"];
            loc.extend(refused.key.as_deref());
            unprocessable(&loc, refused.msg, refused.kind)
        })?;
        arguments.extend(own);
    }
    Ok((tool, arguments))
}
