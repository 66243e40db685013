//! `LimitOffsetPagination`: `?limit=&offset=` and `{count, results, limit, offset}`.

use super::{Page, PageBody, PageQuery, Paginator, Window, fetch_counted, list_items};
use crate::error::ApiError;
use crate::query::QueryParams;
use crate::request::RequestContext;
use crate::viewset::{Config, ViewSet};

/// The default: `limit` (default `default_limit`, 1..=`max_limit`) and `offset` (0..=[`MAX_SQL_INTEGER`], the
/// largest offset a database binds).
///
/// [`MAX_SQL_INTEGER`]: crate::query::MAX_SQL_INTEGER
///
/// ```
/// use viewset_core::pagination::{LimitOffsetPagination, Paginator};
/// use viewset_core::query::QueryParams;
/// # let config = viewset_core::Config { name: "", model_name: "", prefix: "", tags: &[], lookup_field: "id", ai_exposed: true,
/// #     stream_enabled: true, default_limit: 20, max_limit: 100, filterable_fields: &[], search_fields: &[],
/// #     ordering_fields: viewset_core::viewset::OrderingFields::Only(&[]), ordering: &[], tenant_field: None,
/// #     staff_only_fields: &[], filter_backends: &[], module: "" };
/// let w = LimitOffsetPagination::window(&QueryParams::parse(Some("offset=40")), &config).unwrap();
/// assert_eq!((w.limit, w.offset), (20, 40));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct LimitOffsetPagination;

impl Paginator for LimitOffsetPagination {
    const PARAMETERS: &'static [&'static str] = &["limit", "offset"];
    const RESPONSE_FIELDS: &'static [&'static str] = &["count", "results", "limit", "offset"];

    fn window(query: &QueryParams, config: &Config) -> Result<Window, ApiError> {
        Ok(Window {
            limit: query.bounded_int("limit", config.default_limit, 1, Some(config.max_limit))?,
            offset: query.bounded_int("offset", 0, 0, None)?,
        })
    }

    async fn paginate<V: ViewSet>(page: PageQuery<V::Entity>, request: &RequestContext) -> Result<PageBody, ApiError> {
        let (limit, offset) = (page.limit, page.offset);
        let (rows, count) = fetch_counted::<V>(page, &request.db).await?;
        let results = list_items::<V>(rows, request);
        PageBody::new(&Page { count, results, limit, offset })
    }
}
