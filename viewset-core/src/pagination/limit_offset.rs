//! `LimitOffsetPagination`: `?limit=&offset=` and `{count, results, limit, offset}` (`?count=`, or a ViewSet
//! `count_mode` other than `exact`, adds `count_mode`; `count` is `null` with `count=none`).

use serde::Serialize;

use super::count::fetch_with_count;
use super::page_body::PageBody;
use super::{Page, list_items};
use crate::error::ApiError;
use crate::query::params::QueryParams;
use crate::request::RequestContext;
use crate::viewset::config::Config;
use crate::viewset::contract::ViewSet;
use crate::viewset::paginator::{PageQuery, Paginator, Window};

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
/// #     staff_only_fields: &[], filter_backends: &[], module: "", require_if_match: false,
/// #     count_mode: viewset_core::Config::DEFAULT_COUNT_MODE, expandable: &[], related_fields: &[], fulltext: None, custom_hooks: false, save_hooks: false,
/// #     basename: "", csv_keep_formulas: false, throttle: viewset_core::throttle::Throttles::NONE,
/// #     bulk: viewset_core::viewset::Bulk::OFF };
/// let w = LimitOffsetPagination::window(&QueryParams::parse(Some("offset=40")), &config).unwrap();
/// assert_eq!((w.limit, w.offset), (20, 40));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct LimitOffsetPagination;

impl Paginator for LimitOffsetPagination {
    const PARAMETERS: &'static [&'static str] = &["limit", "offset", "count"];
    const RESPONSE_FIELDS: &'static [&'static str] = &["count", "results", "limit", "offset"];

    fn window(query: &QueryParams, config: &Config) -> Result<Window, ApiError> {
        Ok(Window {
            limit: query.bounded_int("limit", config.default_limit, 1, Some(config.max_limit))?,
            offset: query.bounded_int("offset", 0, 0, None)?,
        })
    }

    fn paginate<V: ViewSet>(
        page: PageQuery<V::Entity>,
        request: &RequestContext,
    ) -> impl Future<Output = Result<PageBody, ApiError>> + Send {
        let (limit, offset) = (page.limit, page.offset);
        // The statements are rendered now (see `fetch_rows`); the block holds either the fetch or what follows it.
        let fetch = fetch_with_count::<V>(page, request);
        async move {
            let (rows, counted, asked) = fetch.await?;
            let results = list_items::<V>(rows, request).await?;
            match (counted.value(), asked) {
                (Some(count), false) => PageBody::new(&Page { count, results, limit, offset }),
                (count, _) => PageBody::new(&ModedPage { count, count_mode: counted.mode(), results, limit, offset }),
            }
        }
    }
}

/// The envelope when `?count=` was given (or the ViewSet's `count_mode` is not `exact`): the count may be `null`,
/// and `count_mode` says which it is.
#[derive(Serialize)]
struct ModedPage<R> {
    count: Option<u64>,
    count_mode: &'static str,
    results: R,
    limit: u64,
    offset: u64,
}
