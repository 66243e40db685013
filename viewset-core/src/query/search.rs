//! `SearchFilter`: `?search=` matched as one substring, case-insensitively, against every `search_fields` column,
//! combined with OR. It is `ILIKE`-style matching (so `%` and `_` are wildcards, as the spec says), not full-text.
//! At most `max_search_length` characters ([`QueryLimits`](super::QueryLimits)); no NUL character.

use sea_orm::{Condition, QueryFilter};

use crate::contract::viewset::ViewSet;
use crate::error::ApiError;
use crate::query::filter::FilterBackend;
use crate::query::text_match::{Wildcards, text_match};
use crate::request::RequestContext;
use crate::types::columns::column;
use crate::types::list_query::ListQuery;
use crate::types::value::check_text;

/// Substring search over `search_fields` (`?search=...`).
#[derive(Debug, Clone, Copy, Default)]
pub struct SearchFilter;

impl FilterBackend for SearchFilter {
    fn filter_queryset<V: ViewSet>(
        mut query: ListQuery<V::Entity>,
        request: &RequestContext,
    ) -> Result<ListQuery<V::Entity>, ApiError> {
        let Some(term) = request.query.one("search")?.filter(|t| !t.is_empty()) else { return Ok(query) };
        request.query.limits().check_search("search", term)?;
        check_text(term).map_err(|msg| ApiError::input(["query", "search"], msg, "value_error"))?;
        let backend = request.db.get_database_backend();
        let mut any = Condition::any();
        for name in V::CONFIG.search_fields.iter().filter(|f| request.may_query(f)) {
            if let Some(col) = column::<V::Entity>(name) {
                any = any.add(text_match(col, term, Wildcards::Sql, true, backend));
            }
        }
        query.select = query.select.filter(any);
        Ok(query)
    }
}
