//! `?count=exact|estimated|none` on the counting paginators: how the size of the filtered set is found. `exact`
//! (the default) counts; `none` skips the count query; `estimated` asks PostgreSQL's or MariaDB's planner
//! (`EXPLAIN`) and counts exactly when the estimate is small ([`EXACT_BELOW`]) or the database has no planner
//! estimate (SQLite, MySQL).
//! When the request gives no `?count=`, the ViewSet's `#[viewset(count_mode = "...")]` ([`Config::count_mode`],
//! default exact) decides. The envelope says which count it carries in `count_mode` whenever that is not the spec's
//! plain exact count: when `?count=` was given, or when the ViewSet's default mode is not `exact`.
//!
//! [`Config::count_mode`]: crate::viewset::Config::count_mode

use std::future::Future;

use crate::contract::paginator::PageQuery;
use crate::contract::viewset::{ModelOf, ViewSet};
use crate::error::ApiError;
use crate::request::{Reader, RequestContext};
use crate::store::explain::estimate;
use crate::store::page::CountedPage;
use crate::types::options::CountMode;

/// Below this planner estimate `estimated` counts exactly: a small count is cheap, and the planner's guess for a
/// small or freshly written table can be far off.
pub const EXACT_BELOW: u64 = 10_000;

/// The size of a page's filtered set, as its mode found it.
///
/// ```
/// use viewset_core::pagination::Counted;
/// assert_eq!(Counted::Estimated(120_000).value(), Some(120_000));
/// assert_eq!(Counted::Skipped.mode(), "none");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// Counted.
    Exact(u64),
    /// The planner's estimate.
    Estimated(u64),
    /// Not counted (`count=none`).
    Skipped,
}

impl Counted {
    /// The count, if any.
    pub fn value(self) -> Option<u64> {
        match self {
            Counted::Exact(n) | Counted::Estimated(n) => Some(n),
            Counted::Skipped => None,
        }
    }

    /// `count_mode` in the envelope.
    pub fn mode(self) -> &'static str {
        match self {
            Counted::Exact(_) => "exact",
            Counted::Estimated(_) => "estimated",
            Counted::Skipped => "none",
        }
    }
}

/// The page's rows and its count as `?count=` asks (the ViewSet's `count_mode` when absent), with whether the
/// envelope carries `count_mode` (the parameter was given, or the ViewSet's default is not `exact`). The statements
/// are rendered when this is called, as [`fetch_counted`](super::fetch_counted) explains.
pub fn fetch_with_count<'a, V: ViewSet>(
    page: PageQuery<V::Entity>,
    request: &'a RequestContext,
) -> impl Future<Output = Result<(Vec<ModelOf<V>>, Counted, bool), ApiError>> + Send + 'a {
    let asked = CountMode::from_query(&request.query);
    let reader = request.reader();
    let default = V::CONFIG.count_mode;
    let exact = matches!(asked, Ok(mode) if mode.unwrap_or(default) == CountMode::Exact);
    let windowed = exact && searches(request) && crate::store::Plan::of::<V>(reader.backend()).window_count;
    let statements = if windowed {
        CountedPage::windowed(page, reader.backend())
    } else {
        CountedPage::of::<V>(page, reader.backend())
    };
    let table = crate::store::write::table::<V>();
    // One await, of a future of one type for every ViewSet; the rows decoded after it.
    async move {
        let asked = asked?;
        let (rows, counted) = read_counted(statements, reader, asked.unwrap_or(default), table).await?;
        let rows = V::decode_rows(&rows).map_err(|err| ApiError::from_db(err, table))?;
        Ok((rows, counted, asked.is_some() || default != CountMode::Exact))
    }
}

/// The rows of `statements`' page, undecoded, and its count as `mode` asks: [`fetch_with_count`] past its generic
/// part.
async fn read_counted(
    statements: CountedPage,
    reader: Reader<'_>,
    mode: CountMode,
    table: &'static str,
) -> Result<(Vec<sea_orm::QueryResult>, Counted), ApiError> {
    let estimated = match mode {
        CountMode::Exact => None,
        CountMode::None => return Ok((statements.read(reader, false, table).await?.0, Counted::Skipped)),
        CountMode::Estimated => estimate(&statements.inner, reader).await.filter(|rows| *rows >= EXACT_BELOW),
    };
    if let Some(rows_estimated) = estimated {
        return Ok((statements.read(reader, false, table).await?.0, Counted::Estimated(rows_estimated)));
    }
    let (rows, count) = statements.read(reader, true, table).await?;
    Ok((rows, Counted::Exact(count.unwrap_or(0))))
}

/// Whether the request has a search term (`search`, or full text's `q`): its page reads every match, and on
/// PostgreSQL and SQLite counts them in the same statement ([`crate::store::Plan::window_count`]).
fn searches(request: &RequestContext) -> bool {
    let given = |name| request.query.one(name).ok().flatten().is_some_and(|term| !term.trim().is_empty());
    given("search") || given(crate::query::fulltext::FULLTEXT_PARAM)
}
