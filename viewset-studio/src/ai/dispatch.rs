//! A tool call as a request to the application's own router: the route of the tool, the `pk` in the path, the
//! other arguments in the query string, the `body` as JSON, and the caller's credentials and request extensions.
//! The generated handler answers it, so admission, row policies, hidden fields, validation and transactions are
//! those of REST, and the answer is REST's answer.
//!
//! The credential rule: the request keeps every header of the `/ai` request except Studio's own credential
//! (`X-Studio-Token`, `Authorization` when it holds the Studio token, the `studio_session` cookie and its
//! `X-Studio-CSRF` header; `Authorization` when it holds an access token issued for the MCP endpoint, whose principal
//! the gate attached as an extension: a token is not passed through to another resource) and the headers of the `/ai` transport
//! (body framing, `Accept`, MCP session headers, conditional headers: `If-Match` comes from the `if_match`
//! argument only). So the application's middleware sees the caller's own `Authorization`/cookies and attaches
//! the same principal REST would; a Studio credential alone leaves the call anonymous. The request's extensions
//! (a `Principal` an outer middleware attached to the `/ai` request) are carried over unchanged.

use axum::Router;
use axum::body::Body;
use axum::http::header;
use axum::http::{Extensions, HeaderMap, HeaderValue, Method, Request, StatusCode};
use serde_json::{Map, Value, json};
use tower::ServiceExt;

use super::catalog::{BODY, IF_MATCH, PK, Tool};
use crate::gate::session::{CSRF_HEADER, without_session_cookie};
use crate::gate::{STUDIO_TOKEN, authorization_is_token};

/// Largest answer read back from a route (the list routes are bounded by `max_limit`).
const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;

/// What the route answered.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    /// The JSON body (a non-JSON body is kept as a string).
    pub(crate) body: Value,
    /// The raw body text.
    pub(crate) text: String,
    /// The `ETag` header, when the route sent one.
    pub(crate) etag: Option<String>,
}

impl Answer {
    /// A refusal decided before any route ran (bad arguments), in the framework's error shape.
    pub(crate) fn refusal(status: StatusCode, body: Value) -> Answer {
        Answer { status, text: body.to_string(), body, etag: None }
    }

    /// `{"status", "etag"?, "body"}`: the structured result of a tool call.
    pub(crate) fn to_json(&self) -> Value {
        let mut out = json!({"status": self.status.as_u16(), "body": self.body});
        if let Some(etag) = &self.etag {
            out["etag"] = etag.clone().into();
        }
        out
    }
}

/// The caller of an `/ai` request: its headers and extensions, and the Studio token to strip.
pub(crate) struct Caller<'a> {
    pub(crate) headers: &'a HeaderMap,
    pub(crate) extensions: &'a Extensions,
    pub(crate) studio_token: Option<&'a str>,
}

/// Headers of the `/ai` transport that must not reach the route.
const TRANSPORT: [&str; 10] = [
    "content-length",
    "content-type",
    "transfer-encoding",
    "accept",
    "accept-encoding",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
    "if-match",
    "if-none-match",
];

impl Caller<'_> {
    fn forwarded_headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        // Studio's token, or an access token issued for the MCP endpoint (its principal is an extension already).
        #[cfg(feature = "jwt")]
        let mcp_token =
            matches!(self.extensions.get::<crate::gate::Admission>(), Some(crate::gate::Admission::McpToken { .. }));
        #[cfg(not(feature = "jwt"))]
        let mcp_token = false;
        let studio_bearer = authorization_is_token(self.headers, self.studio_token) || mcp_token;
        for (name, value) in self.headers {
            let skip = TRANSPORT.contains(&name.as_str())
                || name.as_str() == STUDIO_TOKEN
                || name.as_str() == CSRF_HEADER
                || (name == header::AUTHORIZATION && studio_bearer);
            if skip {
                continue;
            }
            if name == header::COOKIE {
                // The Studio session cookie is Studio's credential too: the application gets its own cookies only.
                if let Some(rest) = without_session_cookie(value) {
                    headers.append(name.clone(), rest);
                }
                continue;
            }
            headers.append(name.clone(), value.clone());
        }
        headers
    }
}

fn bad_arguments(detail: String, loc: &[&str]) -> Box<Answer> {
    Box::new(Answer::refusal(
        StatusCode::UNPROCESSABLE_ENTITY,
        json!({"detail": [{"loc": loc, "msg": detail, "type": "invalid_argument"}]}),
    ))
}

/// One query-string value: scalars as written, arrays joined by commas (`field__in`).
fn query_value(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Array(items) => items.iter().map(query_value).collect::<Option<Vec<_>>>().map(|v| v.join(",")),
        Value::Null | Value::Object(_) => None,
    }
}

/// A path segment with everything but unreserved characters percent-encoded.
fn segment(raw: &str) -> String {
    raw.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            other => format!("%{other:02X}"),
        })
        .collect()
}

/// The request `tool` makes for `arguments`, or the refusal of arguments its input schema does not have.
fn build(tool: &Tool, arguments: &Map<String, Value>, caller: &Caller<'_>) -> Result<Request<Body>, Box<Answer>> {
    let mut path = tool.info.path.clone();
    let mut query = form_urlencoded::Serializer::new(String::new());
    let mut body = None;
    let mut headers = caller.forwarded_headers();
    for (name, value) in arguments {
        match name.as_str() {
            PK if tool.info.has_pk() => {
                let Some(pk) = query_value(value).filter(|_| !value.is_array()) else {
                    return Err(bad_arguments("`pk` is a string or a number".into(), &["arguments", PK]));
                };
                path = path.replace("{pk}", &segment(&pk));
            }
            BODY if tool.body => body = Some(value.to_string()),
            IF_MATCH if tool.input_schema["properties"].get(IF_MATCH).is_some() => {
                let tag = value.as_str().and_then(|v| HeaderValue::from_str(v).ok());
                let Some(tag) = tag else {
                    return Err(bad_arguments("`if_match` is an entity tag string".into(), &["arguments", IF_MATCH]));
                };
                headers.insert(header::IF_MATCH, tag);
            }
            name if tool.query.iter().any(|q| q == name) => {
                if value.is_null() {
                    continue;
                }
                let Some(text) = query_value(value) else {
                    return Err(bad_arguments(
                        format!("`{name}` is a scalar or a list of scalars"),
                        &["arguments", name],
                    ));
                };
                query.append_pair(name, &text);
            }
            other => {
                let known: Vec<&str> = tool.input_schema["properties"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(k, _)| k.as_str())
                    .collect();
                return Err(bad_arguments(
                    format!("unknown argument `{other}` for {}; known: {}", tool.info.name, known.join(", ")),
                    &["arguments", other],
                ));
            }
        }
    }
    if path.contains("{pk}") {
        return Err(bad_arguments(format!("{} needs `pk`", tool.info.name), &["arguments", PK]));
    }
    if tool.body && body.is_none() {
        return Err(bad_arguments(format!("{} needs `body`", tool.info.name), &["arguments", BODY]));
    }
    let query = query.finish();
    let uri = if query.is_empty() { path } else { format!("{path}?{query}") };
    let method = Method::from_bytes(tool.info.method.as_bytes()).unwrap_or(Method::GET);
    let mut request = Request::builder().method(method).uri(uri);
    headers.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
    if body.is_some() {
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    }
    if let Some(map) = request.headers_mut() {
        *map = headers;
    }
    let mut request = request
        .body(body.map(Body::from).unwrap_or_else(Body::empty))
        .map_err(|e| bad_arguments(format!("these arguments do not make a request: {e}"), &["arguments"]))?;
    *request.extensions_mut() = caller.extensions.clone();
    Ok(request)
}

/// Calls `tool` with `arguments` as `caller`, through `app` (the application's router without Studio).
pub(crate) async fn call(app: &Router, tool: &Tool, arguments: &Map<String, Value>, caller: &Caller<'_>) -> Answer {
    let request = match build(tool, arguments, caller) {
        Ok(request) => request,
        Err(refusal) => return *refusal,
    };
    let response = match app.clone().oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    let status = response.status();
    let etag = response.headers().get(header::ETAG).and_then(|v| v.to_str().ok()).map(str::to_string);
    let text = match axum::body::to_bytes(response.into_body(), MAX_ANSWER_BYTES).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            return Answer::refusal(
                StatusCode::BAD_GATEWAY,
                json!({"detail": format!("The route's answer could not be read: {e}"), "code": "answer_unreadable"}),
            );
        }
    };
    let body = serde_json::from_str(&text).unwrap_or_else(|_| Value::String(text.clone()));
    Answer { status, body, text, etag }
}
