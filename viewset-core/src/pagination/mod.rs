//! Paginators (`pagination_class`): which query parameters select a page, how the page is fetched and how it is
//! enveloped. Built in: [`LimitOffsetPagination`] (the default), [`PageNumberPagination`], [`CursorPagination`].

pub(crate) mod count;
pub(crate) mod csv;
pub(crate) mod csv_stream;
pub(crate) mod cursor;
pub(crate) mod cursor_token;
pub(crate) mod limit_offset;
pub(crate) mod page_number;
pub(crate) mod picked;

use std::future::Future;

use serde::Serialize;

use crate::access::fields::Items;
use crate::contract::viewset::{ModelOf, ViewSet};
use crate::error::ApiError;
use crate::request::{Reader, RequestContext};
use crate::schema::ReadSchema;

pub use crate::contract::paginator::{PageQuery, Paginator, Window};
pub use crate::store::page::count_rows;
pub use crate::types::options::CountMode;
pub use crate::types::page_body::PageBody;
pub(crate) use crate::types::page_body::json_response;
pub use count::{Counted, EXACT_BELOW, fetch_with_count};
pub use csv::{CSV_CONTENT_TYPE, Formulas, ListFormat, csv_of_page, write_csv_record};
pub use csv_stream::CSV_CHUNK_ROWS;
pub use cursor::CursorPagination;
pub use limit_offset::LimitOffsetPagination;
pub use page_number::PageNumberPagination;

/// The default envelope: `{count, results, limit, offset}`.
#[derive(Debug, Clone, Serialize)]
pub struct Page<R> {
    /// Size of the filtered result set.
    pub count: u64,
    /// Records of the requested page.
    pub results: R,
    /// Page size used.
    pub limit: u64,
    /// Offset used.
    pub offset: u64,
}

/// The ordered rows of a page window, read through the store (role `page`) on `db`: a connection, or (in a
/// paginator) the request's [`RequestContext::reader`], so a GET reads its replica when the state has one.
///
/// The statement is rendered when this is called, so the future holds it rather than the query it came from (a
/// `Select` is about 550 bytes, and an `async fn` keeps its arguments for as long as it runs). Likewise
/// [`fetch_counted`], [`fetch_with_count`] and the built-in paginators.
pub fn fetch_rows<'a, V: ViewSet>(
    page: PageQuery<V::Entity>,
    db: impl Into<Reader<'a>>,
) -> impl Future<Output = Result<Vec<ModelOf<V>>, ApiError>> + Send + 'a {
    let limit = page.limit;
    crate::store::select_page::<V>(page.ordered_window(), limit, db.into())
}

/// The ordered rows of a page window and the size of the filtered set. The two queries run concurrently (each on
/// its own pool connection), so a list costs about one round trip; both statements are rendered when this is
/// called. (A single query with `COUNT(*) OVER ()` reads and buffers every matching row: BENCHMARKS.md.) Read on
/// `db` as [`fetch_rows`] reads.
pub fn fetch_counted<'a, V: ViewSet>(
    page: PageQuery<V::Entity>,
    db: impl Into<Reader<'a>>,
) -> impl Future<Output = Result<(Vec<ModelOf<V>>, u64), ApiError>> + Send + 'a {
    let reader = db.into();
    crate::store::CountedPage::of::<V>(page, reader.backend()).rows_and_count::<V>(reader)
}

/// Rows as the list representation, without the fields hidden from this caller, with the relations `?expand=`
/// asks for embedded ([`crate::embed`]: one query per relation for the whole page).
pub async fn list_items<V: ViewSet>(
    rows: Vec<ModelOf<V>>,
    request: &RequestContext,
) -> Result<Items<V::ListItem>, ApiError> {
    let embedded = crate::embed::embed_rows::<V>(&rows, &request.expand, request).await?;
    let items = Items::new(rows.into_iter().map(V::ListItem::from_model).collect(), request.left_out());
    Ok(if request.expand.is_empty() { items } else { items.with_embedded(embedded) })
}
