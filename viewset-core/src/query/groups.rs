//! Boolean filter groups of [`ServiceFilterBackend`](super::ServiceFilterBackend): `?or=(...)`, after PostgREST.
//!
//! Grammar (one `or` parameter; whitespace is not trimmed):
//!
//! ```text
//! or     = "(" items ")"                      the top level is a disjunction
//! items  = item *("," item)
//! item   = term / "and(" items ")" / "or(" items ")"
//! term   = parameter "." value                e.g. views__gt.100, rating__isnull.true, title.Hello
//! value  = *(any character but , ( ) ")  /  DQUOTE *(any character; \" and \\ escaped) DQUOTE
//! ```
//!
//! Each `parameter` is a filter parameter the ViewSet accepts (`filterable_fields` with a lookup, exactly as
//! `?views__gt=100`), its value parsed as that parameter's value; a value holding `,`, `(` or `)` is written in
//! double quotes (`title__in."a,b"`). At most [`QueryLimits::max_group_depth`] levels of nesting (the top group
//! is level 1) and [`QueryLimits::max_group_terms`] terms. Every mistake is a 422 located at `["query", "or"]`.

use sea_orm::sea_query::Expr;
use sea_orm::{Condition, DbBackend};

use crate::contract::viewset::ViewSet;
use crate::error::ApiError;
use crate::query::filter::condition;
use crate::request::RequestContext;
use crate::types::columns::column;
use crate::types::lookups::FilterLookup;
use crate::types::options::RelatedField;
use crate::types::query_limits::QueryLimits;

/// A parsed `or` group: terms (`parameter`, `value`) combined by `and(...)` / `or(...)`.
///
/// ```
/// use viewset_core::query::{FilterGroup, QueryLimits};
/// let group = FilterGroup::parse("(views__gt.100,and(rating__isnull.true,title.\"a,b\"))", &QueryLimits::DEFAULT).unwrap();
/// let FilterGroup::Any(items) = group else { panic!() };
/// assert_eq!(items[0], FilterGroup::Term("views__gt".into(), "100".into()));
/// assert_eq!(items[1], FilterGroup::All(vec![
///     FilterGroup::Term("rating__isnull".into(), "true".into()),
///     FilterGroup::Term("title".into(), "a,b".into()),
/// ]));
/// assert!(FilterGroup::parse("(views__gt.100", &QueryLimits::DEFAULT).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilterGroup {
    /// `parameter.value`.
    Term(String, String),
    /// `and(...)`: every item holds.
    All(Vec<FilterGroup>),
    /// `or(...)` (and the top level): some item holds.
    Any(Vec<FilterGroup>),
}

/// The 422 of a malformed or oversized `or`.
pub(crate) fn group_error(msg: impl Into<String>, kind: &str) -> ApiError {
    ApiError::input(["query", "or"], msg, kind)
}

impl FilterGroup {
    /// Parses the value of `?or=`, within `limits`.
    pub fn parse(raw: &str, limits: &QueryLimits) -> Result<FilterGroup, ApiError> {
        let mut parser = Parser { text: raw.as_bytes(), raw, at: 0, terms: 0, limits };
        if !raw.starts_with('(') {
            return Err(parser.syntax("must start with `(`, e.g. or=(views__gt.100,rating__isnull.true)"));
        }
        parser.at = 1;
        let items = parser.items(1)?;
        if parser.at != raw.len() {
            return Err(parser.syntax("unexpected text after the closing `)`"));
        }
        Ok(FilterGroup::Any(items))
    }

    /// The terms of the group, depth first.
    pub fn terms(&self) -> Vec<(&str, &str)> {
        match self {
            FilterGroup::Term(key, value) => vec![(key.as_str(), value.as_str())],
            FilterGroup::All(items) | FilterGroup::Any(items) => items.iter().flat_map(FilterGroup::terms).collect(),
        }
    }
}

/// The condition of `group` for `V`: each term as `?parameter=value` would filter (same allowlist, lookups and
/// value parsing), combined with `Condition::all()` / `Condition::any()`. Errors name the term, at `["query", "or"]`.
pub(crate) fn group_condition<V: ViewSet>(
    group: &FilterGroup,
    request: &RequestContext,
    backend: DbBackend,
    limits: &QueryLimits,
) -> Result<Condition, ApiError> {
    let combine = |mut combined: Condition, items: &[FilterGroup]| {
        for item in items {
            combined = combined.add(group_condition::<V>(item, request, backend, limits)?);
        }
        Ok(combined)
    };
    match group {
        FilterGroup::All(items) => combine(Condition::all(), items),
        FilterGroup::Any(items) => combine(Condition::any(), items),
        FilterGroup::Term(key, value) => {
            let allowed = queryable(V::CONFIG.filterable_fields, request);
            let related =
                RelatedField::find(V::CONFIG.related_fields, key).filter(|(rf, _)| allowed.contains(&rf.path));
            let built = match related {
                Some((rf, lookup)) => crate::query::related::filter::<V::Entity>(rf, lookup, value, "or", request),
                None => term_condition::<V>(key, value, &allowed, backend, limits),
            };
            in_or(key, built)
        }
    }
}

/// The fields of `fields` this caller may filter on.
fn queryable(fields: &'static [&'static str], request: &RequestContext) -> Vec<&'static str> {
    fields.iter().copied().filter(|field| request.may_query(field)).collect()
}

/// A term's condition, its errors saying they are `key` in `or`.
fn in_or(key: &str, built: Result<Expr, ApiError>) -> Result<Condition, ApiError> {
    match built {
        Ok(expr) => Ok(Condition::all().add(expr)),
        Err(ApiError::Input(mut errors)) => {
            for error in &mut errors {
                error.msg = format!("`{key}` in `or`: {}", error.msg);
            }
            Err(ApiError::Input(errors))
        }
        Err(other) => Err(other),
    }
}

/// A term naming a field that is not a filter here.
fn not_filterable(allowed: &[&str]) -> ApiError {
    group_error(format!("not a filter of this endpoint (filterable: {})", allowed.join(", ")), "unknown_field")
}

/// A term on a field of `V` itself.
fn term_condition<V: ViewSet>(
    key: &str,
    value: &str,
    allowed: &[&str],
    backend: DbBackend,
    limits: &QueryLimits,
) -> Result<Expr, ApiError> {
    let (field, lookup) = FilterLookup::split(key);
    let col = match column::<V::Entity>(field) {
        Some(col) if allowed.contains(&field) => col,
        _ => return Err(not_filterable(allowed)),
    };
    let Some(lookup) = lookup else {
        let suffix = key.split_once("__").map_or("", |(_, suffix)| suffix);
        return Err(group_error(format!("unsupported lookup `{suffix}`"), "unsupported_lookup"));
    };
    condition(col, lookup, value, "or", backend, limits)
}

struct Parser<'a> {
    text: &'a [u8],
    raw: &'a str,
    at: usize,
    terms: usize,
    limits: &'a QueryLimits,
}

impl Parser<'_> {
    fn syntax(&self, what: &str) -> ApiError {
        group_error(format!("Invalid `or` group at character {}: {what}", self.at + 1), "group_syntax")
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    /// `items ")"`, after an opening `(` at nesting `depth`.
    fn items(&mut self, depth: usize) -> Result<Vec<FilterGroup>, ApiError> {
        if depth > self.limits.max_group_depth {
            let max = self.limits.max_group_depth;
            let msg = format!("`or` may nest at most {max} levels of groups (limit max_group_depth)");
            return Err(group_error(msg, "too_deep"));
        }
        let mut items = Vec::new();
        loop {
            items.push(self.item(depth)?);
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b')') => {
                    self.at += 1;
                    return Ok(items);
                }
                Some(_) => return Err(self.syntax("expected `,` or `)`")),
                None => return Err(self.syntax("unbalanced parentheses: a `)` is missing")),
            }
        }
    }

    fn item(&mut self, depth: usize) -> Result<FilterGroup, ApiError> {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
            self.at += 1;
        }
        let name = &self.raw[start..self.at];
        match self.peek() {
            Some(b'(') if name == "and" || name == "or" => {
                self.at += 1;
                let items = self.items(depth + 1)?;
                Ok(if name == "and" { FilterGroup::All(items) } else { FilterGroup::Any(items) })
            }
            Some(b'.') if !name.is_empty() => {
                self.at += 1;
                self.terms += 1;
                if self.terms > self.limits.max_group_terms {
                    let max = self.limits.max_group_terms;
                    let msg = format!("`or` may have at most {max} terms (limit max_group_terms)");
                    return Err(group_error(msg, "too_many_terms"));
                }
                let value = self.value()?;
                Ok(FilterGroup::Term(name.to_string(), value))
            }
            _ => Err(self.syntax("expected `parameter.value`, `and(...)` or `or(...)`")),
        }
    }

    fn value(&mut self) -> Result<String, ApiError> {
        if self.peek() != Some(b'"') {
            let start = self.at;
            while self.peek().is_some_and(|c| !matches!(c, b',' | b'(' | b')' | b'"')) {
                self.at += 1;
            }
            return Ok(self.raw[start..self.at].to_string());
        }
        self.at += 1;
        let mut out = String::new();
        let mut chars = self.raw[self.at..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.at += i + 1;
                    return Ok(out);
                }
                '\\' => match chars.next() {
                    Some((_, escaped @ ('"' | '\\'))) => out.push(escaped),
                    _ => break,
                },
                other => out.push(other),
            }
        }
        self.at = self.raw.len();
        Err(self.syntax("a quoted value is not closed (inside quotes, write `\\\"` and `\\\\`)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(raw: &str, limits: &QueryLimits) -> String {
        match FilterGroup::parse(raw, limits) {
            Err(ApiError::Input(errors)) => errors[0].kind.clone(),
            other => panic!("{raw}: {other:?}"),
        }
    }

    #[test]
    fn parses_nested_groups_and_quoted_values() {
        let group = FilterGroup::parse(r#"(a.1,or(b__in."x,(y)",and(c.,d."q\"\\")))"#, &QueryLimits::DEFAULT).unwrap();
        let term = |k: &str, v: &str| FilterGroup::Term(k.into(), v.into());
        let expected = FilterGroup::Any(vec![
            term("a", "1"),
            FilterGroup::Any(vec![term("b__in", "x,(y)"), FilterGroup::All(vec![term("c", ""), term("d", "q\"\\")])]),
        ]);
        assert_eq!(group, expected);
        assert_eq!(group.terms().len(), 4);
    }

    #[test]
    fn refuses_malformed_and_oversized_groups() {
        let limits = QueryLimits::DEFAULT;
        for bad in ["", "a.1", "(a.1", "(a.1))", "(a.1,)", "()", "(and(a.1)", "(x(a.1))", "(a.\"1)", "(.1)"] {
            assert_eq!(kind(bad, &limits), "group_syntax", "{bad}");
        }
        assert!(FilterGroup::parse("(and(or(a.1)))", &limits).is_ok());
        assert_eq!(kind("(and(or(and(a.1))))", &limits), "too_deep");
        let many = (0..=limits.max_group_terms).map(|i| format!("a.{i}")).collect::<Vec<_>>().join(",");
        assert_eq!(kind(&format!("({many})"), &limits), "too_many_terms");
    }
}
