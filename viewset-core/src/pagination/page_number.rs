//! `PageNumberPagination`: `?page=&page_size=` and `{count, page, page_size, total_pages, results}`.

use super::list_items;
use crate::contract::config::Config;
use crate::contract::paginator::{PageQuery, Paginator, Window};
use crate::contract::viewset::ViewSet;
use crate::error::ApiError;
use crate::pagination::count::{Counted, fetch_with_count};
use crate::request::RequestContext;
use crate::types::page_body::{Fields, PageBody};
use crate::types::params::QueryParams;

/// `page` (≥ 1, default 1) and `page_size` (1..=`max_limit`, default `default_limit`). A page past the last one is
/// a 404 (the first page always exists, even when empty). With `?count=none` (or an estimate) the last page is not
/// known: `count` and `total_pages` are `null` (or estimated) and a page past the end is empty, not 404.
#[derive(Debug, Clone, Copy, Default)]
pub struct PageNumberPagination;

impl Paginator for PageNumberPagination {
    const PARAMETERS: &'static [&'static str] = &["page", "page_size", "count"];
    const RESPONSE_FIELDS: &'static [&'static str] = &["count", "page", "page_size", "total_pages", "results"];

    fn window(query: &QueryParams, config: &Config) -> Result<Window, ApiError> {
        let page_size = query.bounded_int("page_size", config.default_limit, 1, Some(config.max_limit))?;
        // The offset `(page - 1) * page_size` must stay a signed 64-bit integer, as databases bind it.
        let page = query.bounded_int("page", 1, 1, Some(crate::query::MAX_SQL_INTEGER / page_size))?;
        Ok(Window { limit: page_size, offset: (page - 1) * page_size })
    }

    fn paginate<V: ViewSet>(
        page: PageQuery<V::Entity>,
        request: &RequestContext,
    ) -> impl Future<Output = Result<PageBody, ApiError>> + Send {
        let page_size = page.limit;
        let number = page.offset / page_size + 1;
        // The statements are rendered now (see `fetch_rows`); the block holds either the fetch or what follows it.
        let fetch = fetch_with_count::<V>(page, request);
        async move {
            let (rows, counted, asked) = fetch.await?;
            let total_pages = counted.value().map(|count| count.div_ceil(page_size));
            if let (Counted::Exact(_), Some(total)) = (counted, total_pages)
                && number > total.max(1)
            {
                return Err(ApiError::NotFound);
            }
            let results = list_items::<V>(rows, request).await?;
            let page = Fields::new().value("count", &counted.value())?.value("page", &number)?;
            let page = page.value("page_size", &page_size)?.value("total_pages", &total_pages)?;
            let page = page.value("results", &results)?;
            Ok(match asked {
                true => page.value("count_mode", counted.mode())?.end(),
                false => page.end(),
            })
        }
    }
}
