//! Load shedding: a bound on the requests in flight in this instance (`max_in_flight`) and one on its open event
//! streams (`max_streams`). Beyond either, a request is answered at once with 503 `overloaded` and `Retry-After`,
//! rather than waiting behind the others until its timeout: a client (or a balancer) retries soon, or elsewhere.

use std::sync::atomic::{AtomicUsize, Ordering};

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// The seconds `Retry-After` asks a shed client to wait.
pub const RETRY_AFTER_SECONDS: u64 = 1;

/// A bounded number of places, shared by every route's service of one [`Limits::layer`](super::Limits::layer).
///
/// The count lives as long as the process (one per `Limits::layer` call, which an application makes once): each
/// route's service is cloned for every request, and a shared count behind an `Arc` was two more atomic writes per
/// clone and per place taken, on the count's own cache line, which every worker thread writes (BENCHMARKS.md,
/// "Tenth round"). The count has a cache line of its own.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Slots {
    taken: &'static AtomicUsize,
    max: usize,
    limit: &'static str,
}

/// A count on a cache line of its own (128 bytes: two lines, which x86 prefetches together).
#[repr(align(128))]
struct Padded(AtomicUsize);

/// A place taken from [`Slots`]; given back when dropped.
#[derive(Debug)]
pub(crate) struct Slot(&'static AtomicUsize);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Slots {
    /// `max` places for the limit named `limit` (no bound: `None`).
    pub(crate) fn new(max: Option<usize>, limit: &'static str) -> Option<Slots> {
        max.map(|max| Slots { taken: &Box::leak(Box::new(Padded(AtomicUsize::new(0)))).0, max, limit })
    }

    /// A place, or [`Shed`] when every place is taken.
    pub(crate) fn take(&self) -> Result<Slot, Shed> {
        if self.taken.fetch_add(1, Ordering::AcqRel) >= self.max {
            self.taken.fetch_sub(1, Ordering::AcqRel);
            return Err(Shed { limit: self.limit, max: self.max });
        }
        Ok(Slot(self.taken))
    }
}

/// A request refused because every place of `limit` (`max` of them) is taken: `503` `overloaded` with `Retry-After`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shed {
    limit: &'static str,
    max: usize,
}

impl IntoResponse for Shed {
    fn into_response(self) -> Response {
        crate::measure::shed(self.limit);
        let what = if self.limit == "max_streams" { "event streams are open" } else { "requests are in flight" };
        let detail = format!("The server is busy: {} {what}. Retry after {RETRY_AFTER_SECONDS} s.", self.max);
        let status = StatusCode::SERVICE_UNAVAILABLE;
        let mut response = ApiError::Limit { status, limit: self.limit, detail }.into_response();
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
        response
    }
}
