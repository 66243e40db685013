//! The query string of a request, decoded once, with the rule for repeated parameters and the parameter-count cap.

use crate::error::ApiError;
use crate::types::query_limits::QueryLimits;
use crate::types::read_marks::ReadMarks;

/// Exact-match filters the router passes to `list`: field name → raw query value.
pub type Filters = std::collections::BTreeMap<String, String>;

/// The largest integer a paging parameter may have: databases bind `LIMIT`/`OFFSET` as signed 64-bit integers.
pub const MAX_SQL_INTEGER: u64 = i64::MAX as u64;

/// The query parameter names the framework itself uses or keeps for its reads (paging, search, ordering, sparse
/// fields, embedding, …): never a filter. A model field with one of these names is left out of the router's
/// exact-match filters, and naming it in `filterable_fields` is a compile error. A paginator's own
/// `PARAMETERS` are reserved for the ViewSets that use it.
pub const RESERVED_QUERY_NAMES: &[&str] = &[
    "limit",
    "offset",
    "page",
    "page_size",
    "cursor",
    "search",
    "ordering",
    "fields",
    "expand",
    "count",
    "format",
    "or",
    "q",
];

/// Whether `name` is in [`RESERVED_QUERY_NAMES`] (a `const fn`: the derive checks `filterable_fields` with it at
/// compile time).
///
/// ```
/// use viewset_core::query::is_reserved_query_name;
/// assert!(is_reserved_query_name("ordering") && !is_reserved_query_name("title"));
/// ```
pub const fn is_reserved_query_name(name: &str) -> bool {
    let mut i = 0;
    while i < RESERVED_QUERY_NAMES.len() {
        if name.len() == RESERVED_QUERY_NAMES[i].len() {
            let (a, b) = (name.as_bytes(), RESERVED_QUERY_NAMES[i].as_bytes());
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return true;
            }
        }
        i += 1;
    }
    false
}

/// Decoded `key=value` pairs in request order, with the [`QueryLimits`] of the application.
///
/// **One rule for repeated parameters**: a parameter the framework reads (`limit`, `offset`, `page`,
/// `page_size`, `cursor`, `search`, `ordering` and every filter) must appear at most once; given twice it is a
/// 422 `duplicate_parameter` ([`QueryParams::one`]). Parameters nobody reads are ignored, repeated or not, except
/// on a list: there a parameter shaped like a filter (`field__lookup`, `relation__field`, or a field the caller may
/// see) that no filter read is a 422 `unknown_filter`, so a filter is never silently ignored. Every read marks
/// what it read ([`QueryParams::get`] and [`QueryParams::iter`] too, so an application's own parameters, read
/// through them, are never refused). [`QueryParams::get`] (the last value) remains for an application's own
/// parameters.
///
/// ```
/// let q = viewset_core::query::QueryParams::parse(Some("limit=5&title=a%20b&limit=7"));
/// assert_eq!(q.get("title"), Some("a b"));
/// assert_eq!(q.one("title").unwrap(), Some("a b"));
/// assert_eq!(q.one("limit").unwrap_err().status(), 422);
/// ```
#[derive(Debug, Clone, Default)]
pub struct QueryParams {
    /// Every decoded key and value, one after the other: one buffer, not two `String`s per pair.
    text: String,
    /// Per pair, in `text`: where its key starts, where its key ends and its value starts, where its value ends.
    pairs: Vec<[usize; 3]>,
    /// More pairs than `limits.max_query_params` were sent (only that many were decoded).
    over_limit: bool,
    limits: QueryLimits,
    /// Which pairs were read.
    read: ReadMarks,
}

impl QueryParams {
    /// Decodes a raw query string (`None` = no query) under the default [`QueryLimits`].
    pub fn parse(raw: Option<&str>) -> Self {
        QueryParams::parse_with(raw, QueryLimits::DEFAULT)
    }

    /// Decodes a raw query string under `limits`. At most `max_query_params` pairs are decoded; more make every
    /// read through [`QueryParams::check`] or [`QueryParams::one`] a 422.
    pub fn parse_with(raw: Option<&str>, limits: QueryLimits) -> Self {
        let raw = raw.unwrap_or_default();
        // Decoded pairs are no longer than the raw string, but for bytes that are not UTF-8 (each a 3-byte U+FFFD).
        let mut text = String::with_capacity(raw.len());
        let mut pairs = Vec::new();
        let mut over_limit = false;
        for (k, v) in form_urlencoded::parse(raw.as_bytes()) {
            if pairs.len() == limits.max_query_params {
                over_limit = true;
                break;
            }
            let start = text.len();
            text.push_str(&k);
            let middle = text.len();
            text.push_str(&v);
            pairs.push([start, middle, text.len()]);
        }
        let read = ReadMarks::new(pairs.len());
        QueryParams { text, pairs, over_limit, limits, read }
    }

    /// The limits this query string is read under.
    pub fn limits(&self) -> &QueryLimits {
        &self.limits
    }

    /// A 422 naming `max_query_params` when the query string has more pairs than that.
    ///
    /// ```
    /// use viewset_core::query::{QueryLimits, QueryParams};
    /// let limits = QueryLimits::DEFAULT.with_max_query_params(2);
    /// assert!(QueryParams::parse_with(Some("a=1&b=2"), limits).check().is_ok());
    /// assert!(QueryParams::parse_with(Some("a=1&b=2&c=3"), limits).check().is_err());
    /// ```
    pub fn check(&self) -> Result<(), ApiError> {
        if self.over_limit {
            let max = self.limits.max_query_params;
            let msg = format!("At most {max} query parameters are accepted (limit max_query_params)");
            return Err(ApiError::input(["query"], msg, "too_many_parameters"));
        }
        Ok(())
    }

    /// The value of a parameter the framework reads: `None` when absent, a 422 `duplicate_parameter` when given
    /// more than once (and the [`QueryParams::check`] error first).
    pub fn one(&self, key: &str) -> Result<Option<&str>, ApiError> {
        self.check()?;
        let mut values = self.marked(|k| k == key).map(|(_, v)| v);
        let first = values.next();
        if values.next().is_some() {
            return Err(duplicate(key));
        }
        Ok(first)
    }

    /// The last value of `key` (for an application's own parameters; the framework reads through
    /// [`QueryParams::one`]).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.marked(|k| k == key).last().map(|(_, v)| v)
    }

    /// Every pair, in order (each counts as read).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.marked(|_| true)
    }

    /// The pairs whose key `selects`, each marked as read.
    fn marked(&self, selects: impl Fn(&str) -> bool) -> impl Iterator<Item = (&str, &str)> {
        self.pairs.iter().enumerate().filter_map(move |(index, &pair)| {
            let (k, v) = self.pair(pair);
            selects(k).then(|| {
                self.read.mark(index);
                (k, v)
            })
        })
    }

    /// The keys no reader asked for, in order (a key given twice, twice).
    pub(crate) fn unread(&self) -> impl Iterator<Item = &str> {
        self.pairs
            .iter()
            .enumerate()
            .filter(|(index, _)| !self.read.is_marked(*index))
            .map(|(_, &pair)| self.pair(pair).0)
    }

    fn pair(&self, [start, middle, end]: [usize; 3]) -> (&str, &str) {
        (&self.text[start..middle], &self.text[middle..end])
    }

    /// The pairs whose key `reads` selects, each key at most once (else a 422 `duplicate_parameter`).
    ///
    /// ```
    /// let q = viewset_core::query::QueryParams::parse(Some("views=1&x=1&x=2"));
    /// assert_eq!(q.read_once(|k| k == "views").unwrap(), vec![("views", "1")]);
    /// assert!(q.read_once(|k| k.len() == 1).is_err());
    /// ```
    pub fn read_once(&self, reads: impl Fn(&str) -> bool) -> Result<Vec<(&str, &str)>, ApiError> {
        self.check()?;
        let mut read: Vec<(&str, &str)> = Vec::new();
        for (k, v) in self.marked(reads) {
            if read.iter().any(|(seen, _)| *seen == k) {
                return Err(duplicate(k));
            }
            read.push((k, v));
        }
        Ok(read)
    }

    /// Parses `key` as an integer in `min..=max` (`max` at most [`MAX_SQL_INTEGER`]); absent gives `default`;
    /// anything else is a 422 naming it.
    pub fn bounded_int(&self, key: &str, default: u64, min: u64, max: Option<u64>) -> Result<u64, ApiError> {
        let Some(raw) = self.one(key)? else { return Ok(default) };
        let loc = ["query", key];
        let value: i128 = raw.trim().parse().map_err(|_| {
            ApiError::input(loc, "Input should be a valid integer, unable to parse string as an integer", "int_parsing")
        })?;
        if value < i128::from(min) {
            return Err(ApiError::input(
                loc,
                format!("Input should be greater than or equal to {min}"),
                "greater_than_equal",
            ));
        }
        let max = max.unwrap_or(MAX_SQL_INTEGER).min(MAX_SQL_INTEGER);
        if value > i128::from(max) {
            return Err(ApiError::input(
                loc,
                format!("Input should be less than or equal to {max}"),
                "less_than_equal",
            ));
        }
        u64::try_from(value).map_err(|_| ApiError::input(loc, "Input is too large", "less_than_equal"))
    }
}

fn duplicate(key: &str) -> ApiError {
    let msg = format!("`{key}` was given more than once; give it once");
    ApiError::input(["query", key], msg, "duplicate_parameter")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds() {
        let q = QueryParams::parse(Some("limit=0&offset=-1&x=abc&big=99999999999999999999999&i=9223372036854775808"));
        assert!(matches!(q.bounded_int("limit", 20, 1, Some(100)), Err(ApiError::Input(_))));
        assert!(matches!(q.bounded_int("offset", 0, 0, None), Err(ApiError::Input(_))));
        assert!(matches!(q.bounded_int("x", 0, 0, None), Err(ApiError::Input(_))));
        assert!(matches!(q.bounded_int("big", 0, 0, None), Err(ApiError::Input(_))));
        assert!(matches!(q.bounded_int("i", 0, 0, Some(u64::MAX)), Err(ApiError::Input(_))));
        assert_eq!(q.bounded_int("missing", 20, 1, Some(100)).unwrap(), 20);
        let q = QueryParams::parse(Some("i=9223372036854775807"));
        assert_eq!(q.bounded_int("i", 0, 0, None).unwrap(), MAX_SQL_INTEGER);
    }

    #[test]
    fn repeated_and_counted() {
        let q = QueryParams::parse(Some("limit=1&limit=1&utm=a&utm=b"));
        assert!(matches!(q.bounded_int("limit", 20, 1, Some(100)), Err(ApiError::Input(_))));
        assert_eq!(q.get("utm"), Some("b"));
        let limits = QueryLimits { max_query_params: 3, ..QueryLimits::DEFAULT };
        let q = QueryParams::parse_with(Some("a=1&b=1&c=1&d=1&e=1"), limits);
        assert_eq!(q.iter().count(), 3);
        assert!(q.one("a").is_err());
        assert!(q.read_once(|_| true).is_err());
    }

    #[test]
    fn pairs_share_one_buffer() {
        let q = QueryParams::parse(Some("a=%FF%FE&%62=x+y&&c&=v&d=%E2%82%AC"));
        let pairs: Vec<(&str, &str)> = q.iter().collect();
        assert_eq!(pairs, [("a", "\u{FFFD}\u{FFFD}"), ("b", "x y"), ("c", ""), ("", "v"), ("d", "€")]);
        assert_eq!((q.get("b"), q.one("d").unwrap(), q.get("missing")), (Some("x y"), Some("€"), None));
        assert_eq!(QueryParams::parse(None).iter().count(), 0);
    }
}
