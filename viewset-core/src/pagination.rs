//! Paginators: how a list page is requested and enveloped.

use serde::Serialize;

/// One page of results with its metadata.
#[derive(Debug, Clone, Serialize)]
pub struct Page<T> {
    /// Size of the filtered result set.
    pub count: u64,
    /// Records of the requested page.
    pub results: Vec<T>,
    /// Page size used.
    pub limit: u64,
    /// Offset used.
    pub offset: u64,
}

/// A pagination class (`pagination_class = ...`): turns a page into the response body.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a pagination class",
    note = "pagination_class takes a type implementing `viewset_core::Paginator`, e.g. `LimitOffsetPagination`"
)]
pub trait Paginator: Send + Sync + 'static {
    /// The response body of a page.
    fn envelope<T: Serialize>(page: Page<T>) -> serde_json::Value;
}

/// The default: `?limit=&offset=` and the `{count, results, limit, offset}` envelope.
///
/// ```
/// use viewset_core::{LimitOffsetPagination, Page, Paginator};
/// let body = LimitOffsetPagination::envelope(Page { count: 1, results: vec![1], limit: 20, offset: 0 });
/// assert_eq!(body, serde_json::json!({"count": 1, "results": [1], "limit": 20, "offset": 0}));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct LimitOffsetPagination;

impl Paginator for LimitOffsetPagination {
    fn envelope<T: Serialize>(page: Page<T>) -> serde_json::Value {
        serde_json::to_value(page).unwrap_or(serde_json::Value::Null)
    }
}
