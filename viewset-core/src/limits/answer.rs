//! What [`Limits::apply`](super::Limits::apply)'s service answers: the route's response within the timeout, with
//! the request id echoed, and an error answer that is not JSON (or a 5xx without the id) rewritten.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::http::{StatusCode, header};
use axum::response::Response;
use futures_util::future::{BoxFuture, Either};
use serde_json::json;
use tokio::task::futures::TaskLocalFuture;
use tokio::time::Timeout;
use tracing::instrument::Instrumented;

use super::shed::Slot;
use super::{InForce, Limits, REQUEST_ID};
use crate::measure::{Route, Started};

pin_project_lite::pin_project! {
    /// The future of the limits service: the route's response within the timeout, the id echoed. Only an error
    /// answer that must be rewritten (a 5xx, an error that is not JSON) reads its body in a boxed second step; every
    /// other response is returned from the first poll that has it, without a future of its own to allocate.
    pub struct LimitsFuture<F> {
        limits: Limits,
        id: Option<header::HeaderValue>,
        // The request's place among those in flight, given back when this future is dropped.
        slot: Option<Slot>,
        // When it arrived and which route answered it, for its metrics and access-log line.
        started: Started,
        route: Route,
        #[pin]
        state: State<F>,
    }
}

/// The inner future, instrumented with the `request` span when a subscriber wants it.
pub(super) type Run<F> = Either<Instrumented<F>, F>;

pin_project_lite::pin_project! {
    #[project = StateProj]
    enum State<F> {
        Running { #[pin] run: TaskLocalFuture<InForce, Timeout<Run<F>>> },
        Rewriting { rewrite: BoxFuture<'static, Response> },
        Refused { response: Option<Response> },
    }
}

impl<F> LimitsFuture<F> {
    /// The future of a request running as `run`.
    pub(super) fn running(
        limits: Limits,
        run: TaskLocalFuture<InForce, Timeout<Run<F>>>,
        id: header::HeaderValue,
        slot: Option<Slot>,
        started: Started,
    ) -> Self {
        LimitsFuture { limits, id: Some(id), slot, started, route: Route::OTHER, state: State::Running { run } }
    }

    /// The future of a request refused before it ran.
    pub(super) fn done(limits: Limits, response: Response, id: header::HeaderValue, started: Started) -> Self {
        let state = State::Refused { response: Some(response) };
        LimitsFuture { limits, id: Some(id), slot: None, started, route: Route::OTHER, state }
    }
}

impl<F, B> std::future::Future for LimitsFuture<F>
where
    F: std::future::Future<Output = Result<axum::http::Response<B>, Infallible>>,
    B: axum::body::HttpBody<Data = axum::body::Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        let limits = *this.limits;
        let response = match this.state.as_mut().project() {
            StateProj::Running { mut run } => {
                let answer = std::task::ready!(run.as_mut().poll(cx));
                // The route that named itself in the task-local (none: `Route::OTHER`).
                if let Some(in_force) = run.take_value() {
                    *this.route = in_force.route();
                }
                match answer {
                    Ok(Ok(response)) => response.map(Body::new),
                    Ok(Err(never)) => match never {},
                    Err(_) => {
                        let detail = format!("The request did not complete within {:?}.", limits.request_timeout);
                        limits.refuse(StatusCode::SERVICE_UNAVAILABLE, "request_timeout", detail)
                    }
                }
            }
            StateProj::Rewriting { rewrite } => std::task::ready!(rewrite.as_mut().poll(cx)),
            StateProj::Refused { response } => response.take().expect("a limits future polled after it completed"),
        };
        if !matches!(*this.state, State::Running { .. }) || !needs_rewrite(&response) {
            let id = this.id.take().expect("a limits future polled after it completed");
            this.started.finish(*this.route, response.status(), Some(&id));
            return Poll::Ready(Ok(with_id_header(response, id)));
        }
        let id = this.id.clone().expect("a limits future polled after it completed");
        let mut rewrite = Box::pin(rewrite(limits, response, id));
        let first = rewrite.as_mut().poll(cx);
        this.state.set(State::Rewriting { rewrite });
        match first {
            Poll::Ready(response) => {
                let id = this.id.take().expect("a limits future polled after it completed");
                this.started.finish(*this.route, response.status(), Some(&id));
                Poll::Ready(Ok(with_id_header(response, id)))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// Whether `response` is an error answer [`rewrite`] changes: a 5xx (it carries the request id), or a 4xx that
/// is not JSON.
fn needs_rewrite(response: &Response) -> bool {
    let status = response.status();
    status.is_server_error()
        || (status.is_client_error()
            && !response
                .headers()
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .contains("json"))
}

/// A 5xx answer carrying the request id, and an error answer that is not JSON as JSON.
async fn rewrite(limits: Limits, response: Response, id: header::HeaderValue) -> Response {
    let response = if response.status().is_server_error() {
        with_request_id(response, id.to_str().unwrap_or("")).await
    } else {
        response
    };
    json_errors(limits, response).await
}

/// `response` with the request id in its `x-request-id` header, unless the application set one itself.
fn with_id_header(mut response: Response, id: header::HeaderValue) -> Response {
    response.headers_mut().entry(REQUEST_ID).or_insert(id);
    response
}

/// A 5xx answer, logged with the request id, its JSON body carrying `"request_id"`.
async fn with_request_id(response: Response, id: &str) -> Response {
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, 64 * 1024).await.unwrap_or_default();
    let mut value: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_else(|_| json!({}));
    let code = value.get("code").and_then(|c| c.as_str()).unwrap_or("").to_string();
    tracing::error!(request_id = %id, status = parts.status.as_u16(), code = %code, "request failed");
    if let Some(object) = value.as_object_mut() {
        object.insert("request_id".into(), json!(id));
    }
    let mut response = Response::from_parts(parts, Body::from(value.to_string()));
    response.headers_mut().remove(header::CONTENT_LENGTH);
    response
}

/// Error responses that are not JSON (axum's rejections and 405s, tower-http's 413) become JSON.
async fn json_errors(limits: Limits, response: Response) -> Response {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let content_type = response.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    if content_type.contains("json") {
        return response;
    }
    if status == StatusCode::PAYLOAD_TOO_LARGE {
        let detail = format!("The request body is larger than {} bytes.", limits.max_body_bytes);
        return limits.refuse(status, "max_body_bytes", detail);
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 16 * 1024).await.unwrap_or_default();
    let reason = status.canonical_reason().unwrap_or("Error");
    let detail = match std::str::from_utf8(&text).map(str::trim) {
        Ok(text) if !text.is_empty() => text.to_string(),
        _ => format!("{reason}."),
    };
    let code = reason.to_lowercase().replace([' ', '-'], "_");
    let mut response = Response::from_parts(parts, Body::from(json!({"detail": detail, "code": code}).to_string()));
    response.headers_mut().remove(header::CONTENT_LENGTH);
    response.headers_mut().insert(header::CONTENT_TYPE, header::HeaderValue::from_static("application/json"));
    response
}
