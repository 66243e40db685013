//! `LimitOffsetPagination`: `?limit=&offset=` and `{count, results, limit, offset}` (`?count=`, or a ViewSet
//! `count_mode` other than `exact`, adds `count_mode`; `count` is `null` with `count=none`).

use super::list_items;
use crate::contract::config::Config;
use crate::contract::paginator::{PageQuery, Paginator, Window};
use crate::contract::viewset::ViewSet;
use crate::error::ApiError;
use crate::pagination::count::fetch_with_count;
use crate::request::RequestContext;
use crate::types::page_body::{Fields, PageBody};
use crate::types::params::QueryParams;

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
/// #     bulk: viewset_core::viewset::Bulk::OFF, aggregates: None, nested: viewset_core::viewset::Nested::OFF };
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
            // `{count, results, limit, offset}`, with `count_mode` after `count` when it was asked for or the
            // count is not exact ([`crate::pagination::Page`] is the first form's type).
            let page = Fields::new().value("count", &counted.value())?;
            let page = match (counted.value(), asked) {
                (Some(_), false) => page,
                _ => page.value("count_mode", counted.mode())?,
            };
            Ok(page.value("results", &results)?.value("limit", &limit)?.value("offset", &offset)?.end())
        }
    }
}
