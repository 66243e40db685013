//! How much one query string may ask for: the one place the limits on query input live. Each is refused with a
//! 422 whose message names the limit, so a client knows what to change and an operator knows what to raise.

use crate::error::ApiError;

/// Limits on a list request's query string, with generous defaults ([`QueryLimits::DEFAULT`]). Set them for an
/// application with [`crate::ServiceState::with_query_limits`].
///
/// | limit | default | refuses |
/// |---|---|---|
/// | `max_query_params` | 1,000 | more `key=value` pairs than this (below it, unknown parameters stay ignored) |
/// | `max_in_values` | 1,000 | an `__in` list with more values than this |
/// | `max_ordering_terms` | 20 | an `ordering` with more comma-separated terms than this |
/// | `max_search_length` | 1,000 | a `search`, `__contains` or `__icontains` value longer than this (characters) |
/// | `max_group_depth` | 3 | an `or` group nested deeper than this (the top group is level 1) |
/// | `max_group_terms` | 20 | an `or` group with more terms than this |
/// | `max_aggregate_time` | 20 s | an aggregate the database runs longer than this: it stops the statement (PostgreSQL `statement_timeout`, MariaDB `max_statement_time`, MySQL `MAX_EXECUTION_TIME`) and the answer is 503 `statement_timeout`; SQLite has no such bound (the request timeout still answers) |
///
/// ```
/// use viewset_core::query::{QueryLimits, QueryParams};
/// let limits = QueryLimits::DEFAULT.with_max_in_values(3);
/// let params = QueryParams::parse_with(Some("views__in=1,2,3,4"), limits);
/// assert_eq!(params.limits().max_in_values, 3);
/// let state_limits = viewset_core::query::QueryLimits::default();
/// assert_eq!(state_limits.max_query_params, 1_000);
/// ```
///
/// It is `#[non_exhaustive]` (a limit added later is no breaking change): start from [`QueryLimits::DEFAULT`] and set
/// what changes with the `with_*` setters, which are `const`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct QueryLimits {
    /// Most `key=value` pairs in one query string.
    pub max_query_params: usize,
    /// Most values in one `field__in` list.
    pub max_in_values: usize,
    /// Most terms in `ordering`.
    pub max_ordering_terms: usize,
    /// Longest `search`, `__contains` or `__icontains` value, in characters.
    pub max_search_length: usize,
    /// Most levels of nesting in an `or` group (`?or=(a.1,and(b.2,c.3))` has 2).
    pub max_group_depth: usize,
    /// Most terms in an `or` group.
    pub max_group_terms: usize,
    /// Longest time the database may run one aggregate statement (`GET <prefix>/aggregate`).
    pub max_aggregate_time: std::time::Duration,
}

impl QueryLimits {
    /// The defaults (see the table on [`QueryLimits`]).
    pub const DEFAULT: QueryLimits = QueryLimits {
        max_query_params: 1_000,
        max_in_values: 1_000,
        max_ordering_terms: 20,
        max_search_length: 1_000,
        max_group_depth: 3,
        max_group_terms: 20,
        max_aggregate_time: std::time::Duration::from_secs(20),
    };

    /// These limits with [`QueryLimits::max_query_params`] set.
    ///
    /// ```
    /// use viewset_core::query::QueryLimits;
    /// const SMALL: QueryLimits = QueryLimits::DEFAULT
    ///     .with_max_query_params(50)
    ///     .with_max_in_values(10)
    ///     .with_max_ordering_terms(3)
    ///     .with_max_search_length(64)
    ///     .with_max_group_depth(2)
    ///     .with_max_group_terms(5);
    /// assert_eq!((SMALL.max_in_values, SMALL.max_group_terms), (10, 5));
    /// ```
    pub const fn with_max_query_params(mut self, pairs: usize) -> Self {
        self.max_query_params = pairs;
        self
    }

    /// These limits with [`QueryLimits::max_in_values`] set.
    pub const fn with_max_in_values(mut self, values: usize) -> Self {
        self.max_in_values = values;
        self
    }

    /// These limits with [`QueryLimits::max_ordering_terms`] set.
    pub const fn with_max_ordering_terms(mut self, terms: usize) -> Self {
        self.max_ordering_terms = terms;
        self
    }

    /// These limits with [`QueryLimits::max_search_length`] set (characters).
    pub const fn with_max_search_length(mut self, characters: usize) -> Self {
        self.max_search_length = characters;
        self
    }

    /// These limits with [`QueryLimits::max_group_depth`] set.
    pub const fn with_max_group_depth(mut self, levels: usize) -> Self {
        self.max_group_depth = levels;
        self
    }

    /// These limits with [`QueryLimits::max_group_terms`] set.
    pub const fn with_max_group_terms(mut self, terms: usize) -> Self {
        self.max_group_terms = terms;
        self
    }

    /// These limits with [`QueryLimits::max_aggregate_time`] set (below the request timeout, so the database
    /// stops a slow aggregate before the request is given up on).
    ///
    /// ```
    /// use std::time::Duration;
    /// use viewset_core::query::QueryLimits;
    /// const QUICK: QueryLimits = QueryLimits::DEFAULT.with_max_aggregate_time(Duration::from_secs(5));
    /// assert_eq!(QUICK.max_aggregate_time, Duration::from_secs(5));
    /// ```
    pub const fn with_max_aggregate_time(mut self, time: std::time::Duration) -> Self {
        self.max_aggregate_time = time;
        self
    }

    /// `search`, `__contains` and `__icontains` values: at most `max_search_length` characters.
    pub(crate) fn check_search(&self, param: &str, value: &str) -> Result<(), ApiError> {
        if value.chars().count() > self.max_search_length {
            let max = self.max_search_length;
            let msg = format!("`{param}` may have at most {max} characters (limit max_search_length)");
            return Err(ApiError::input(["query", param], msg, "string_too_long"));
        }
        Ok(())
    }

    /// `__in` lists: at most `max_in_values` values.
    pub(crate) fn check_in_values(&self, param: &str, count: usize) -> Result<(), ApiError> {
        if count > self.max_in_values {
            let max = self.max_in_values;
            let msg = format!("`{param}` may list at most {max} values (limit max_in_values)");
            return Err(ApiError::input(["query", param], msg, "too_many_values"));
        }
        Ok(())
    }

    /// `ordering`: at most `max_ordering_terms` terms.
    pub(crate) fn check_ordering_terms(&self, count: usize) -> Result<(), ApiError> {
        if count > self.max_ordering_terms {
            let max = self.max_ordering_terms;
            let msg = format!("`ordering` may have at most {max} terms (limit max_ordering_terms)");
            return Err(ApiError::input(["query", "ordering"], msg, "too_many_terms"));
        }
        Ok(())
    }
}

impl Default for QueryLimits {
    fn default() -> Self {
        QueryLimits::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(err: ApiError) -> String {
        match err {
            ApiError::Input(errors) => errors[0].msg.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn each_limit_names_itself() {
        let limits =
            QueryLimits { max_in_values: 2, max_ordering_terms: 1, max_search_length: 3, ..QueryLimits::DEFAULT };
        assert!(limits.check_search("search", "abc").is_ok());
        assert!(msg(limits.check_search("search", "abcd").unwrap_err()).contains("max_search_length"));
        assert!(limits.check_in_values("views__in", 2).is_ok());
        assert!(msg(limits.check_in_values("views__in", 3).unwrap_err()).contains("max_in_values"));
        assert!(limits.check_ordering_terms(1).is_ok());
        assert!(msg(limits.check_ordering_terms(2).unwrap_err()).contains("max_ordering_terms"));
    }
}
