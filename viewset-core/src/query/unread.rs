//! No filter silently ignored: after a list's query is built (`access::scoped_list`), a query parameter shaped like
//! a filter that no filter read is a 422 `unknown_filter` naming it, with the filters this caller may use and the
//! closest of them. Shaped like a filter means: a key with `__` (`views__gte`, `author__name`, `nosuch__in`), or a
//! field of the model the caller may see. Any other unknown parameter (`utm_source`, a field hidden from this
//! caller) stays ignored, as in DRF, so a hidden field answers exactly as a name the model does not have.

use crate::contract::hooks::Hooks;
use crate::error::ApiError;
use crate::request::RequestContext;
use crate::types::columns::column_names;
use crate::types::lookups::FilterLookup;
use crate::types::options::RelatedField;
use crate::types::params::is_reserved_query_name;

/// The facts of `V` the check reads, handed to one plain function.
pub(crate) fn refuse_unread<V: Hooks>(request: &RequestContext) -> Result<(), ApiError> {
    let mut unread = request.query.unread().peekable();
    if unread.peek().is_none() {
        return Ok(());
    }
    let columns = column_names::<V::Entity>();
    let facts = Facts {
        columns: &columns,
        exact: &V::get_filter_fields(),
        with_lookups: if V::CONFIG.filters_with_lookups() { V::CONFIG.filterable_fields } else { &[] },
        related: if V::CONFIG.filters_with_lookups() { V::CONFIG.related_fields } else { &[] },
        paginator: <V::Pagination as crate::contract::paginator::Paginator>::PARAMETERS,
    };
    match unread.find(|key| facts.filter_shaped(key, request)) {
        Some(key) => Err(unknown_filter(key, &facts.allowed(request))),
        None => Ok(()),
    }
}

/// The stream's stricter rule: any parameter its query did not read (a page's `limit`, `expand`, `utm_source`) is a
/// 422 `unknown_parameter`, since a subscriber cannot see that it was ignored.
pub(crate) fn refuse_any_unread(request: &RequestContext) -> Result<(), ApiError> {
    match request.query.unread().next() {
        Some(key) => {
            let msg = format!(
                "the stream does not read `{key}`; it reads the list's filters, `or`, `search`, `q` and `fields`"
            );
            Err(ApiError::input(["query", key], msg, "unknown_parameter"))
        }
        None => Ok(()),
    }
}

/// What a ViewSet allows as filters.
struct Facts<'a> {
    columns: &'a [&'static str],
    exact: &'a [&'static str],
    with_lookups: &'a [&'static str],
    related: &'static [RelatedField],
    paginator: &'a [&'static str],
}

impl Facts<'_> {
    /// Whether an unread `key` would be taken for a filter by its sender.
    fn filter_shaped(&self, key: &str, request: &RequestContext) -> bool {
        if is_reserved_query_name(key) || self.paginator.contains(&key) {
            return false;
        }
        key.contains("__") || (self.columns.contains(&key) && request.may_query(key))
    }

    /// The filters this caller may use, as clients write them (`views__<lookup>` for a field with lookups).
    fn allowed(&self, request: &RequestContext) -> Vec<String> {
        let visible = |field: &&&str| request.may_query(field) && !is_reserved_query_name(field);
        let mut allowed: Vec<String> = Vec::new();
        for field in self.exact.iter().filter(visible) {
            if !self.with_lookups.contains(field) {
                allowed.push((*field).to_string());
            }
        }
        allowed.extend(self.with_lookups.iter().filter(visible).map(|field| format!("{field}__<lookup>")));
        allowed.extend(self.related.iter().map(|related| related.path.to_string()));
        allowed
    }
}

/// The 422 of a filter-shaped `key` no filter reads.
fn unknown_filter(key: &str, allowed: &[String]) -> ApiError {
    let listed = if allowed.is_empty() { "none".to_string() } else { allowed.join(", ") };
    let mut msg = format!("`{key}` is not a filter of this list; filters: {listed}");
    if let Some(close) = closest(key, allowed) {
        msg.push_str(&format!(" (did you mean `{close}`?)"));
    }
    ApiError::input(["query", key], msg, "unknown_filter")
}

/// The allowed filter closest to `key`, compared as clients write it (`views__gte` against `views__<lookup>` by
/// its field and a known lookup).
fn closest(key: &str, allowed: &[String]) -> Option<String> {
    let (field, lookup) = FilterLookup::split(key);
    let mut best: Option<(usize, String)> = None;
    for candidate in allowed {
        let (written, compared) = match candidate.strip_suffix("__<lookup>") {
            Some(base) => match lookup.filter(|_| key.contains("__")) {
                Some(lookup) => (format!("{base}__{}", lookup.name()), field),
                None => (base.to_string(), key),
            },
            None => (candidate.clone(), key),
        };
        let base = candidate.strip_suffix("__<lookup>").unwrap_or(candidate);
        let distance = crate::schema::names::edit_distance(base, compared);
        if best.as_ref().is_none_or(|(d, _)| distance < *d) {
            best = Some((distance, written));
        }
    }
    let limit = (key.len() / 3).max(2);
    best.filter(|(distance, _)| *distance <= limit).map(|(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn closest_filter() {
        let allowed = ["title".to_string(), "views__<lookup>".to_string(), "author__name".to_string()];
        assert_eq!(closest("titel", &allowed).as_deref(), Some("title"));
        assert_eq!(closest("veiws__gte", &allowed).as_deref(), Some("views__gte"));
        assert_eq!(closest("author__nam", &allowed).as_deref(), Some("author__name"));
        assert_eq!(closest("category__name", &allowed), None);
    }
}
