//! The query string of a request, decoded once.

/// Decoded `key=value` pairs in request order. Repeated keys keep every value; [`QueryParams::get`] returns the
/// last one (as most frameworks do).
///
/// ```
/// let q = viewset_core::query::QueryParams::parse(Some("limit=5&title=a%20b&limit=7"));
/// assert_eq!(q.get("limit"), Some("7"));
/// assert_eq!(q.get("title"), Some("a b"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct QueryParams(Vec<(String, String)>);

impl QueryParams {
    /// Decodes a raw query string (`None` = no query).
    pub fn parse(raw: Option<&str>) -> Self {
        let pairs = raw
            .map(|q| form_urlencoded::parse(q.as_bytes()).map(|(k, v)| (k.into_owned(), v.into_owned())).collect())
            .unwrap_or_default();
        QueryParams(pairs)
    }
    /// The last value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
    /// Every pair, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
    /// Parses `key` as an integer in `min..=max`; absent gives `default`; anything else is a 422 naming it.
    pub fn bounded_int(&self, key: &str, default: u64, min: u64, max: Option<u64>) -> Result<u64, crate::ApiError> {
        let Some(raw) = self.get(key) else { return Ok(default) };
        let loc = ["query", key];
        let value: i128 = raw.trim().parse().map_err(|_| {
            crate::ApiError::input(
                loc,
                "Input should be a valid integer, unable to parse string as an integer",
                "int_parsing",
            )
        })?;
        if value < i128::from(min) {
            return Err(crate::ApiError::input(
                loc,
                format!("Input should be greater than or equal to {min}"),
                "greater_than_equal",
            ));
        }
        if let Some(max) = max
            && value > i128::from(max)
        {
            return Err(crate::ApiError::input(
                loc,
                format!("Input should be less than or equal to {max}"),
                "less_than_equal",
            ));
        }
        u64::try_from(value).map_err(|_| crate::ApiError::input(loc, "Input is too large", "less_than_equal"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ApiError;

    #[test]
    fn bounds() {
        let q = QueryParams::parse(Some("limit=0&offset=-1&x=abc&big=99999999999999999999999"));
        assert!(matches!(q.bounded_int("limit", 20, 1, Some(100)), Err(ApiError::Input(_))));
        assert!(matches!(q.bounded_int("offset", 0, 0, None), Err(ApiError::Input(_))));
        assert!(matches!(q.bounded_int("x", 0, 0, None), Err(ApiError::Input(_))));
        assert!(matches!(q.bounded_int("big", 0, 0, None), Err(ApiError::Input(_))));
        assert_eq!(q.bounded_int("missing", 20, 1, Some(100)).unwrap(), 20);
    }
}
