//! The streamed CSV list: the rows of the JSON page's window (the same query through [`crate::access::scoped_list`],
//! ordering, fields and embedded relations) read and written out in chunks of [`CSV_CHUNK_ROWS`] (one query each,
//! by offset within the window, as the body is sent), so the response holds at most one chunk in memory, never
//! builds the JSON page, and holds no database connection between chunks. Used for
//! a ViewSet whose `list` is the default one, with a window by limit/offset or page number; otherwise (`custom_hooks`,
//! which may override `list`, or a cursor) the JSON page is converted ([`super::csv`]).
//!
//! The first chunk is read before the answer starts: a failing query is a JSON error. A database error after that
//! (the connection lost mid-export) ends the body early, which the client sees as a cut transfer. Rows written
//! between two chunk queries can shift a later chunk, as between two pages.

use axum::body::Body;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::Response;
use futures_util::StreamExt;
use sea_orm::QuerySelect;
use serde_json::Value;

use super::csv::{CSV_CONTENT_TYPE, Formulas, decimal_fields, write_csv_record, write_rows};
use super::list_items;
use crate::access;
use crate::error::ApiError;
use crate::query::narrow::narrow;
use crate::query::ordering::{apply_order, effective_order};
use crate::query::params::Filters;
use crate::request::RequestContext;
use crate::viewset::hooks::Hooks;
use crate::viewset::paginator::Paginator;

/// Rows read and written per chunk.
pub const CSV_CHUNK_ROWS: usize = 200;

/// What the body still has to write.
struct Export<V: Hooks> {
    request: RequestContext,
    select: sea_orm::Select<V::Entity>,
    keys: Vec<String>,
    decimals: Vec<&'static str>,
    next: u64,
    end: u64,
}

impl<V: Hooks> Export<V> {
    /// The CSV rows of the next chunk (`None` when the window is written or the chunk came back short).
    async fn chunk(&mut self) -> Result<Option<(String, bool)>, ApiError> {
        if self.next >= self.end {
            return Ok(None);
        }
        let size = Ord::min(CSV_CHUNK_ROWS as u64, self.end - self.next);
        let select = self.select.clone().offset(self.next).limit(size);
        let rows = crate::store::all::<V>(self.request.reader(), select, size as usize, "page").await?;
        self.next = if (rows.len() as u64) < size { self.end } else { self.next + size };
        let records = match serde_json::to_value(list_items::<V>(rows, &self.request).await?) {
            Ok(Value::Array(records)) => records,
            _ => Vec::new(),
        };
        if self.keys.is_empty()
            && let Some(Value::Object(first)) = records.first()
        {
            self.keys = first.keys().cloned().collect();
        }
        let mut text = String::new();
        write_rows(&mut text, &self.keys, &records, Formulas::of(&V::CONFIG), &self.decimals);
        Ok(Some((text, records.is_empty())))
    }
}

/// The CSV of the list window of `request`; `header` names the columns of an empty list.
pub(crate) async fn stream_csv<V: Hooks>(
    request: RequestContext,
    filters: Filters,
    header: Vec<&'static str>,
) -> Result<Response, ApiError> {
    let window = V::Pagination::window(&request.query, &V::CONFIG)?;
    let query = access::scoped_list::<V>(&request, &filters)?;
    let order = effective_order::<V>(&query, &request);
    let select = apply_order(narrow::<V>(query.select, &request, &order), &order, false);
    let end = window.offset.saturating_add(window.limit);
    let decimals = decimal_fields::<V::Entity>();
    let mut export = Export::<V> { request, select, keys: Vec::new(), decimals, next: window.offset, end };
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
