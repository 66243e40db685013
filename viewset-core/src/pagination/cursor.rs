//! `CursorPagination`: keyset pagination over the effective ordering plus the primary key. Correct for every
//! allowed ordering (nullable columns included), stable while rows are inserted, and a deep page costs what the
//! first one does.

use std::any::TypeId;

use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{ColumnTrait, Condition, EntityTrait, IdenStatic, QueryFilter, QuerySelect, Value};

use super::list_items;
use crate::contract::config::Config;
use crate::contract::paginator::{PageQuery, Paginator, Window};
use crate::contract::viewset::{ModelOf, ViewSet};
use crate::error::ApiError;
use crate::pagination::cursor_token::CursorToken;
use crate::query::ordering::apply_order;
use crate::request::RequestContext;
use crate::store::KeysetPage;
use crate::types::columns::field_name;
use crate::types::list_query::OrderTerm;
use crate::types::options::Direction;
use crate::types::page_body::{Fields, PageBody};
use crate::types::params::QueryParams;
use crate::types::value::from_json;

/// `?cursor=&limit=` and `{next, previous, results}`; `next`/`previous` are relative URLs (path and query) or null.
/// A cursor is only valid for the ordering it was made with.
#[derive(Debug, Clone, Copy, Default)]
pub struct CursorPagination;

fn invalid_cursor(msg: &str) -> ApiError {
    ApiError::input(["query", "cursor"], msg, "cursor_invalid")
}

impl Paginator for CursorPagination {
    const PARAMETERS: &'static [&'static str] = &["cursor", "limit"];
    const RESPONSE_FIELDS: &'static [&'static str] = &["next", "previous", "results"];

    fn window(query: &QueryParams, config: &Config) -> Result<Window, ApiError> {
        // One more row than the page is fetched, so the largest page leaves room for it.
        let max = Ord::min(config.max_limit, crate::query::MAX_SQL_INTEGER - 1);
        Ok(Window { limit: query.bounded_int("limit", config.default_limit, 1, Some(max))?, offset: 0 })
    }

    // An `async` block rather than an `async fn`, which would keep `page` twice (rust-lang/rust#62958).
    #[allow(clippy::manual_async_fn)]
    fn paginate<V: ViewSet>(
        mut page: PageQuery<V::Entity>,
        request: &RequestContext,
    ) -> impl Future<Output = Result<PageBody, ApiError>> + Send {
        async move {
            page.order.retain(|t| !t.computed.as_ref().is_some_and(|c| c.droppable));
            if let Some(computed) = page.order.iter().find_map(|t| t.computed.as_ref()) {
                // A cursor carries the boundary row's own values; a value computed in SQL is not one of them.
                let msg = format!(
                    "ordering by `{}` cannot be paged with a cursor: order by this model's own fields",
                    computed.name
                );
                return Err(ApiError::input(["query", "ordering"], msg, "ordering_unavailable"));
            }
            let signature = ordering_signature(&page.order);
            let token = match request.query.one("cursor")?.filter(|c| !c.is_empty()) {
                None => None,
                Some(raw) => match checked_token(raw, &signature, page.order.len())? {
                    // Rare (a link that would have been too long): its own future, outside this one.
                    token if token.by_key => Some(Box::pin(boundary_by_key::<V>(token, &page.order, request)).await?),
                    token => Some(token),
                },
            };
            let backwards = token.as_ref().is_some_and(|t| t.backwards);
            let limit = page.limit + 1;
            // In a block of its own, so the future does not keep the typed values across the read.
            let statement = {
                let values = token.as_ref().map(|t| typed_values(&page.order, &t.values)).transpose()?;
                let (order, values) = (&page.order, values.as_deref());
                let keyset = KeysetPage { select: page.select, order, shape: shape(values, backwards) };
                let bound = || bound(order, values, backwards, limit);
                keyset.statement(TypeId::of::<V>(), request.reader().backend(), bound, |mut select| {
                    if let Some(values) = values {
                        select = select.filter(after(order, values, backwards));
                    }
                    apply_order(select, order, backwards).limit(limit)
                })
            };
            let mut rows: Vec<ModelOf<V>> = crate::store::page_rows::<V>(statement, limit, request.reader()).await?;
            let more = rows.len() as u64 > page.limit;
            rows.truncate(page.limit as usize);
            if backwards {
                rows.reverse();
            }
            let names = term_names(&page.order);
            let edge = |last: bool| {
                let row = if last { rows.last() } else { rows.first() };
                row.map(|row| row_values::<V>(row, &names))
            };
            let walk = Walk { signature, token, backwards, more };
            let (next, previous) = walk.links(request, &edge, rows.is_empty());
            let results = list_items::<V>(rows, request).await?;
            let page = Fields::new().value("next", &next)?.value("previous", &previous)?;
            Ok(page.value("results", &results)?.end())
        }
    }
}

/// The cursor `raw`, decoded and checked against the page's ordering (`signature`, `terms` terms): 400 otherwise.
fn checked_token(raw: &str, signature: &str, terms: usize) -> Result<CursorToken, ApiError> {
    let token = CursorToken::decode(raw).ok_or_else(|| invalid_cursor("Invalid cursor"))?;
    let expected = if token.by_key { 1 } else { terms };
    if token.ordering != signature || token.values.len() != expected {
        return Err(invalid_cursor("This cursor was made for another ordering; start again without it"));
    }
    Ok(token)
}

/// Where a page of a walk is: what its links are made from, apart from its rows.
struct Walk {
    signature: String,
    /// The cursor the page was asked with.
    token: Option<CursorToken>,
    backwards: bool,
    /// Whether a row was found past the page (in the walk's direction).
    more: bool,
}

impl Walk {
    /// The page's `next` and `previous` links; `values(last)` reads the ordering values of its last (else first)
    /// row, `None` on an empty page.
    fn links(
        self,
        request: &RequestContext,
        values: &dyn Fn(bool) -> Option<Vec<serde_json::Value>>,
        empty: bool,
    ) -> (Option<String>, Option<String>) {
        let links = Links::of(request);
        let signature = &self.signature;
        let edge = |last: bool, backwards: bool| {
            let values = values(last)?;
            Some(links.to(&CursorToken { values, backwards, ordering: signature.clone(), by_key: false }))
        };
        let (next, previous) = if self.backwards {
            (edge(true, false), if self.more { edge(false, true) } else { None })
        } else {
            (
                if self.more { edge(true, false) } else { None },
                if self.token.is_some() { edge(false, true) } else { None },
            )
        };
        // An empty page reached through a cursor still links back to where it came from.
        let previous = previous.or_else(|| match (&self.token, empty, self.backwards) {
            (Some(t), true, false) => Some(links.to(&CursorToken { backwards: true, ..t.clone() })),
            _ => None,
        });
        let next = next.or_else(|| match (&self.token, empty, self.backwards) {
            (Some(t), true, true) => Some(links.to(&CursorToken { backwards: false, ..t.clone() })),
            _ => None,
        });
        (next, previous)
    }
}

/// `-views,id`: what a cursor is bound to.
fn ordering_signature<E: EntityTrait>(order: &[OrderTerm<E>]) -> String {
    let mut signature = String::with_capacity(order.len() * 12);
    for (i, term) in order.iter().enumerate() {
        if i > 0 {
            signature.push(',');
        }
        if term.direction == Direction::Desc {
            signature.push('-');
        }
        signature.push_str(term.column.as_str());
    }
    signature
}

/// The field names of the ordering's terms, the names [`row_values`] reads.
fn term_names<E: EntityTrait>(order: &[OrderTerm<E>]) -> Vec<&'static str> {
    order.iter().map(|t| field_name::<E>(t.column)).collect()
}

/// The boundary row's values of the fields `names` (the ordering's, [`term_names`]) as its JSON writes them.
fn row_values<V: ViewSet>(row: &ModelOf<V>, names: &[&'static str]) -> Vec<serde_json::Value> {
    crate::pagination::picked::picked(row, names).unwrap_or_else(|| {
        let json = serde_json::to_value(row).unwrap_or_default();
        names.iter().map(|name| json.get(name).cloned().unwrap_or_default()).collect()
    })
}

/// A cursor that carries only its boundary row's primary key, with the row's ordering values read back (422 when
/// the row is gone). The row is read by key alone: the values only bound the page, which is still the caller's scoped
/// query, and only the server signs such a cursor, for a row it showed.
async fn boundary_by_key<V: ViewSet>(
    token: CursorToken,
    order: &[OrderTerm<V::Entity>],
    request: &RequestContext,
) -> Result<CursorToken, ApiError> {
    let key = order.last().ok_or_else(|| invalid_cursor("Invalid cursor"))?.column;
    let value = typed(key, &token.values[0])?.ok_or_else(|| invalid_cursor("Invalid cursor"))?;
    let by_key = crate::store::Find::First(V::Entity::find().filter(key.eq(value)));
    let row = crate::store::find::<V>(request.reader(), by_key)
        .await?
        .ok_or_else(|| invalid_cursor("The record this cursor points at no longer exists; start again without it"))?;
    Ok(CursorToken { values: row_values::<V>(&row, &term_names(order)), by_key: false, ..token })
}

/// The links of a page: the request's own path and query with `cursor` replaced. The other pairs are kept as the
/// client sent them: decoding and encoding them again would grow every byte that is not UTF-8 into the nine of
/// `%EF%BF%BD`, and a link three times the request's length can pass the URI limit the request kept (found by
/// `fuzz/`'s `cursor` target). The part before the token is written once for the page's links.
struct Links {
    /// The path, `?`, the kept pairs each followed by `&`, then `cursor=`.
    prefix: String,
    max_uri_bytes: Option<usize>,
}

impl Links {
    fn of(request: &RequestContext) -> Links {
        // Only a pair's key is decoded to recognise it (its value, the old cursor, is the longest part of the query).
        let is_cursor = |pair: &&str| {
            let key = pair.split_once('=').map_or(*pair, |(key, _)| key);
            form_urlencoded::parse(key.as_bytes()).next().is_some_and(|(k, _)| k == "cursor")
        };
        let raw = request.uri.query().unwrap_or("");
        let mut prefix = String::with_capacity(request.uri.path().len() + raw.len() + 9);
        prefix.push_str(request.uri.path());
        prefix.push('?');
        for pair in raw.split('&').filter(|pair| !pair.is_empty() && !is_cursor(pair)) {
            prefix.push_str(pair);
            prefix.push('&');
        }
        prefix.push_str("cursor=");
        Links { prefix, max_uri_bytes: request.max_uri_bytes }
    }

    /// The link to `token`. A token is base64url and `.`, which form encoding leaves as they are: it is written as it
    /// is. A link longer than the server accepts carries the shortest cursor, the boundary row's key. (A request
    /// within a cursor's length of the limit can still get a longer link: its own parameters are kept as sent.)
    fn to(&self, token: &CursorToken) -> String {
        let mut link = String::with_capacity(self.prefix.len() + 96);
        link.push_str(&self.prefix);
        token.encode_bounded_into(&mut link);
        if self.max_uri_bytes.is_some_and(|max| link.len() > max) {
            link.truncate(self.prefix.len());
            token.encode_by_key_into(&mut link);
        }
        debug_assert!(link[self.prefix.len()..].bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)));
        link
    }
}

/// A cursor value back to a typed value of the column (`None` for JSON null).
fn typed<C: ColumnTrait>(column: C, json: &serde_json::Value) -> Result<Option<Value>, ApiError> {
    match json {
        serde_json::Value::Null => Ok(None),
        serde_json::Value::Array(_) | serde_json::Value::Object(_) => Err(invalid_cursor("Invalid cursor")),
        scalar => {
            from_json(column.def().get_column_type(), scalar).map(Some).map_err(|_| invalid_cursor("Invalid cursor"))
        }
    }
}

/// The cursor's `values` as typed values of the ordering's columns (`None` for JSON null); 400 otherwise.
fn typed_values<E: EntityTrait>(
    order: &[OrderTerm<E>],
    values: &[serde_json::Value],
) -> Result<Vec<Option<Value>>, ApiError> {
    order.iter().zip(values).map(|(term, value)| typed(term.column, value)).collect()
}

/// What the keyset page's text depends on besides the ordering: a cursor or none, its direction, its null values.
fn shape(values: Option<&[Option<Value>]>, backwards: bool) -> u16 {
    let Some(values) = values else { return 0 };
    let nulls = values.iter().take(14).enumerate().filter(|(_, v)| v.is_none()).fold(0, |bits, (i, _)| bits | 4 << i);
    1 | u16::from(backwards) << 1 | nulls
}

/// The values the page's statement binds, in its order: [`after`]'s (each term's equalities, then its bound),
/// then the `LIMIT`'s.
fn bound<E: EntityTrait>(
    order: &[OrderTerm<E>],
    values: Option<&[Option<Value>]>,
    backwards: bool,
    limit: u64,
) -> Vec<Value> {
    let (mut bound, values) = (Vec::new(), values.unwrap_or_default());
    for (i, (term, value)) in order.iter().zip(values).enumerate() {
        bound.extend(values[..i].iter().flatten().cloned());
        let direction = if backwards { term.direction.reversed() } else { term.direction };
        match (direction, value) {
            (Direction::Asc, None) => {}
            (Direction::Desc, None) => bound.extend([Value::Int(Some(1)), Value::Int(Some(0))]),
            (_, Some(value)) => bound.push(value.clone()),
        }
    }
    bound.push(Value::BigUnsigned(Some(limit)));
    bound
}

/// Rows strictly after the boundary in the walk's direction: for terms t1..tn,
/// `(t1 ≻ v1) OR (t1 = v1 AND t2 ≻ v2) OR ...`, where ≻ follows each term's direction and NULLs sort first
/// ascending, last descending (as `apply_order` sorts them). [`bound`] lists its values.
fn after<E: EntityTrait>(order: &[OrderTerm<E>], values: &[Option<Value>], backwards: bool) -> Condition {
    let mut any = Condition::any();
    for i in 0..order.len() {
        let term = &order[i];
        let direction = if backwards { term.direction.reversed() } else { term.direction };
        let beyond: Expr = match (direction, values[i].clone()) {
            (Direction::Asc, None) => term.column.is_not_null(),
            (Direction::Asc, Some(v)) => term.column.gt(v),
            (Direction::Desc, None) => Expr::val(1).eq(0),
            // NULLs come last descending; a NOT NULL column has none, and the plain `<` keeps index scans.
            (Direction::Desc, Some(v)) if term.column.def().is_null() => {
                Expr::col(term.column.as_column_ref()).lt(v).or(term.column.is_null())
            }
            (Direction::Desc, Some(v)) => term.column.lt(v),
        };
        if i == 0 {
            // The first term alone: no equalities before it to hold it in a condition of its own.
            any = any.add(beyond);
            continue;
        }
        let mut all = Condition::all();
        for (term, value) in order[..i].iter().zip(values) {
            all = all.add(match value.clone() {
                None => term.column.is_null(),
                Some(v) => term.column.eq(v),
            });
        }
        any = any.add(all.add(beyond));
    }
    any
}

#[cfg(test)]
mod tests;
