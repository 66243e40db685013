//! `PageNumberPagination`: `?page=&page_size=` and `{count, page, page_size, total_pages, results}`.

use serde::Serialize;

use super::{PageBody, PageQuery, Paginator, Window, fetch_counted, list_items};
use crate::error::ApiError;
use crate::query::QueryParams;
use crate::request::RequestContext;
use crate::viewset::{Config, ViewSet};

/// `page` (≥ 1, default 1) and `page_size` (1..=`max_limit`, default `default_limit`). A page past the last one is
/// a 404 (the first page always exists, even when empty).
#[derive(Debug, Clone, Copy, Default)]
pub struct PageNumberPagination;

#[derive(Serialize)]
struct NumberedPage<R> {
    count: u64,
    page: u64,
    page_size: u64,
    total_pages: u64,
    results: R,
}

impl Paginator for PageNumberPagination {
    const PARAMETERS: &'static [&'static str] = &["page", "page_size"];
    const RESPONSE_FIELDS: &'static [&'static str] = &["count", "page", "page_size", "total_pages", "results"];

    fn window(query: &QueryParams, config: &Config) -> Result<Window, ApiError> {
        let page_size = query.bounded_int("page_size", config.default_limit, 1, Some(config.max_limit))?;
        // The offset `(page - 1) * page_size` must stay a signed 64-bit integer, as databases bind it.
        let page = query.bounded_int("page", 1, 1, Some(crate::query::MAX_SQL_INTEGER / page_size))?;
        Ok(Window { limit: page_size, offset: (page - 1) * page_size })
    }

    async fn paginate<V: ViewSet>(page: PageQuery<V::Entity>, request: &RequestContext) -> Result<PageBody, ApiError> {
        let page_size = page.limit;
        let number = page.offset / page_size + 1;
        let (rows, count) = fetch_counted::<V>(page, &request.db).await?;
        let total_pages = count.div_ceil(page_size);
        if number > total_pages.max(1) {
            return Err(ApiError::NotFound);
        }
        let results = list_items::<V>(rows, request);
        PageBody::new(&NumberedPage { count, page: number, page_size, total_pages, results })
    }
}
