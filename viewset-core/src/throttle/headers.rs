//! The IETF `RateLimit-Policy` and `RateLimit` headers (draft-ietf-httpapi-ratelimit-headers), as structured
//! fields: `"anon";q=100;w=60` and `"anon";r=42;t=18`.

use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};

use super::declared::Rule;
use crate::error::ApiError;

/// A request that passed its throttles, carrying the `RateLimit` headers to its answer when the throttle puts
/// them on every answer ([`Throttle::headers_on_every_answer`](super::Throttle::headers_on_every_answer)).
///
/// ```
/// let pass = viewset_core::throttle::Pass::default();
/// let response = pass.stamp(axum::response::IntoResponse::into_response("ok"));
/// assert!(response.headers().get("ratelimit").is_none());
/// ```
#[derive(Debug, Default)]
#[must_use = "a pass carries the RateLimit headers to the answer"]
pub struct Pass(Option<Box<HeaderMap>>);

impl Pass {
    /// `response` with this pass's headers.
    pub fn stamp(self, mut response: Response) -> Response {
        if let Some(headers) = self.0 {
            response.headers_mut().extend(*headers);
        }
        response
    }

    /// The answer of a route's work, error or not, with this pass's headers.
    pub fn answer(self, result: Result<Response, ApiError>) -> Result<Response, ApiError> {
        Ok(self.stamp(result.unwrap_or_else(IntoResponse::into_response)))
    }

    pub(crate) fn with(headers: HeaderMap) -> Pass {
        Pass(Some(Box::new(headers)))
    }
}

/// Every policy the request was counted against: quota `q` per window `w` (seconds).
pub(crate) fn policy_header(rules: &[Rule]) -> HeaderValue {
    let policies: Vec<String> = rules
        .iter()
        .map(|rule| format!("\"{}\";q={};w={}", rule.policy, rule.rate.count, rule.rate.window_seconds()))
        .collect();
    value(policies.join(", "))
}

/// The tightest policy's `remaining` requests and the seconds `t` until its budget is whole again (or, refused,
/// until the next request is admitted).
pub(crate) fn remaining_header(policy: &str, remaining: u32, seconds: u64) -> HeaderValue {
    value(format!("\"{policy}\";r={remaining};t={seconds}"))
}

/// Policy names are scope, operation and action names (Rust identifiers): always a valid header value.
fn value(text: String) -> HeaderValue {
    HeaderValue::try_from(text).unwrap_or_else(|_| HeaderValue::from_static("\"default\""))
}
