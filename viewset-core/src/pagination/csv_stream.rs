//! The streamed CSV list: the rows of the JSON page's window (the same query through [`crate::access::scoped_list`],
//! ordering, fields and embedded relations) read and written out in chunks of [`CSV_CHUNK_ROWS`] (one query each,
//! by offset within the window, as the body is sent), so the response holds at most one chunk in memory, never
//! builds the JSON page, and holds no database connection between chunks. Used for
//! a ViewSet whose `list` is the default one, with a window by limit/offset or page number; otherwise (`custom_hooks`,
//! which may override `list`, or a cursor) the JSON page is converted ([`crate::pagination::csv`]).
//!
//! The first chunk is read before the answer starts: a failing query is a JSON error. A database error after that
//! (the connection lost mid-export) ends the body early, which the client sees as a cut transfer. Rows written
//! between two chunk queries can shift a later chunk, as between two pages.

use axum::body::Body;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::Response;
use std::sync::Arc;

use futures_util::StreamExt;
use sea_orm::QuerySelect;
use serde_json::Value;

use super::list_items;
use crate::access;
use crate::boxed::{SendFuture, send};
use crate::contract::hooks::Hooks;
use crate::contract::paginator::Paginator;
use crate::error::ApiError;
use crate::pagination::csv::{CSV_CONTENT_TYPE, Formulas, decimal_fields, write_csv_record, write_rows};
use crate::query::narrow::narrow;
use crate::query::ordering::{apply_order, effective_order};
use crate::request::RequestContext;
use crate::types::params::Filters;

/// Rows read and written per chunk.
pub const CSV_CHUNK_ROWS: usize = 200;

/// The JSON records (as the list shows them) of the `size` rows at `offset` of the export's select, and how many
/// rows the database returned. The one part of an export that depends on the ViewSet's types.
type Fetch = Box<dyn FnMut(u64, u64) -> SendFuture<'static, Result<(Vec<Value>, u64), ApiError>> + Send>;

/// An export in progress: what it fetches, its header's keys, and where it is in the window.
struct Export {
    fetch: Fetch,
    keys: Vec<String>,
    decimals: Vec<&'static str>,
    formulas: Formulas,
    next: u64,
    end: u64,
}

impl Export {
    /// The CSV rows of the next chunk (`None` when the window is written or the chunk came back short).
    async fn chunk(&mut self) -> Result<Option<(String, bool)>, ApiError> {
        if self.next >= self.end {
            return Ok(None);
        }
        let size = Ord::min(CSV_CHUNK_ROWS as u64, self.end - self.next);
        let (records, rows) = (self.fetch)(self.next, size).await?;
        self.next = if rows < size { self.end } else { self.next + size };
        if self.keys.is_empty()
            && let Some(Value::Object(first)) = records.first()
        {
            self.keys = first.keys().cloned().collect();
        }
        let mut text = String::new();
        write_rows(&mut text, &self.keys, &records, self.formulas, &self.decimals);
        Ok(Some((text, records.is_empty())))
    }
}

/// The [`Fetch`] of `V` over `select` (ordered, narrowed) for `request`.
fn fetch<V: Hooks>(request: RequestContext, select: sea_orm::Select<V::Entity>) -> Fetch {
    let request = Arc::new(request);
    Box::new(move |offset, size| {
        let (request, select) = (request.clone(), select.clone().offset(offset).limit(size));
        send(async move {
            let rows = crate::store::all::<V>(request.reader(), select, size as usize, "page").await?;
            let count = rows.len() as u64;
            let records = match serde_json::to_value(list_items::<V>(rows, &request).await?) {
                Ok(Value::Array(records)) => records,
                _ => Vec::new(),
            };
            Ok((records, count))
        })
    })
}

/// The streamed CSV answer of `V`'s list for `request` (see the module): `header` names the columns of an empty
/// window.
pub(crate) fn stream_csv<V: Hooks>(
    request: RequestContext,
    filters: Filters,
    header: Vec<&'static str>,
) -> impl Future<Output = Result<Response, ApiError>> + Send {
    // The work per ViewSet is done here, before any future; the future is the same type for every ViewSet.
    respond(export::<V>(request, filters), header)
}

/// The export of `V`'s list for `request`: its window, scope, ordering and columns.
fn export<V: Hooks>(request: RequestContext, filters: Filters) -> Result<Export, ApiError> {
    let window = V::Pagination::window(&request.query, &V::CONFIG)?;
    let query = access::scoped_list::<V>(&request, &filters)?;
    let order = effective_order::<V>(&query, &request);
    let select = apply_order(narrow::<V>(query.select, &request, &order), &order, false);
    let end = window.offset.saturating_add(window.limit);
    let (decimals, formulas) = (decimal_fields::<V::Entity>(), Formulas::of(&V::CONFIG));
    Ok(Export { fetch: fetch::<V>(request, select), keys: Vec::new(), decimals, formulas, next: window.offset, end })
}

/// The answer of `export`: its first chunk read before the answer starts, the others as the body is sent.
async fn respond(export: Result<Export, ApiError>, header: Vec<&'static str>) -> Result<Response, ApiError> {
    let mut export = export?;
    // The first chunk before the answer starts: a failing query is the JSON error of the whole request.
    let first = export.chunk().await?.map(|(rows, _)| rows).unwrap_or_default();
    if export.keys.is_empty() {
        export.keys = header.iter().map(|s| s.to_string()).collect();
    }
    let mut head = String::new();
    write_csv_record(&mut head, export.keys.iter().map(String::as_str));
    head.push_str(&first);
    // Each later chunk is its own query (no connection is held between chunks); an error there ends the body.
    let rest = futures_util::stream::unfold(Some(export), |export| async move {
        let mut export = export?;
        match export.chunk().await {
            Ok(Some((rows, false))) => Some((Ok(rows), Some(export))),
            Ok(_) => None,
            Err(e) => Some((Err(std::io::Error::other(e.to_string())), None)),
        }
    });
    let body = futures_util::stream::once(async move { Ok::<_, std::io::Error>(head) }).chain(rest);
    Response::builder()
        .status(StatusCode::OK)
        .header(CONTENT_TYPE, CSV_CONTENT_TYPE)
        .body(Body::from_stream(body))
        .map_err(|e| ApiError::Database(sea_orm::DbErr::Custom(format!("build the CSV response: {e}"))))
}
