//! The lookups of [`ServiceFilterBackend`](super::ServiceFilterBackend), written once: the filter applies them,
//! the OpenAPI document lists them.

use sea_orm::sea_query::ColumnType;

use crate::types::value::{is_ordered, is_text};

/// One lookup of a `field__lookup=value` query parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FilterLookup {
    /// `field=value`: equality (`null`/`none`/empty: IS NULL).
    Exact,
    /// `field__gt`: greater than.
    Gt,
    /// `field__gte`: greater than or equal.
    Gte,
    /// `field__lt`: less than.
    Lt,
    /// `field__lte`: less than or equal.
    Lte,
    /// `field__in`: one of a comma-separated list.
    In,
    /// `field__isnull`: IS NULL (`true`) or IS NOT NULL (`false`).
    IsNull,
    /// `field__contains`: case-sensitive substring (text fields).
    Contains,
    /// `field__icontains`: case-insensitive substring (text fields).
    IContains,
}

impl FilterLookup {
    /// Every lookup, in documentation order.
    pub const ALL: [FilterLookup; 9] = [
        FilterLookup::Exact,
        FilterLookup::Gt,
        FilterLookup::Gte,
        FilterLookup::Lt,
        FilterLookup::Lte,
        FilterLookup::In,
        FilterLookup::IsNull,
        FilterLookup::Contains,
        FilterLookup::IContains,
    ];

    /// The suffix after `__` (`exact` for a bare field).
    ///
    /// ```
    /// assert_eq!(viewset_core::query::FilterLookup::IContains.name(), "icontains");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            FilterLookup::Exact => "exact",
            FilterLookup::Gt => "gt",
            FilterLookup::Gte => "gte",
            FilterLookup::Lt => "lt",
            FilterLookup::Lte => "lte",
            FilterLookup::In => "in",
            FilterLookup::IsNull => "isnull",
            FilterLookup::Contains => "contains",
            FilterLookup::IContains => "icontains",
        }
    }

    /// The lookup named `name`.
    ///
    /// ```
    /// use viewset_core::query::FilterLookup;
    /// assert_eq!(FilterLookup::from_name("gte"), Some(FilterLookup::Gte));
    /// assert_eq!(FilterLookup::from_name("regex"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<FilterLookup> {
        FilterLookup::ALL.into_iter().find(|lookup| lookup.name() == name)
    }

    /// A query parameter's field and lookup: `views__gte` → (`views`, `Gte`), `views` → (`views`, `Exact`);
    /// an unknown suffix gives `None`.
    ///
    /// ```
    /// use viewset_core::query::FilterLookup;
    /// assert_eq!(FilterLookup::split("title"), ("title", Some(FilterLookup::Exact)));
    /// assert_eq!(FilterLookup::split("title__regex"), ("title", None));
    /// ```
    pub fn split(param: &str) -> (&str, Option<FilterLookup>) {
        match param.split_once("__") {
            Some((field, lookup)) => (field, FilterLookup::from_name(lookup)),
            None => (param, Some(FilterLookup::Exact)),
        }
    }

    /// Whether the lookup makes sense on a column of this type (otherwise it is a 422 `unsupported_lookup`).
    ///
    /// ```
    /// use sea_orm::sea_query::ColumnType;
    /// use viewset_core::query::FilterLookup;
    /// assert!(FilterLookup::Gt.applies_to(&ColumnType::Integer));
    /// assert!(!FilterLookup::Gt.applies_to(&ColumnType::Boolean));
    /// assert!(!FilterLookup::Contains.applies_to(&ColumnType::Integer));
    /// ```
    pub fn applies_to(self, column_type: &ColumnType) -> bool {
        match self {
            FilterLookup::Gt | FilterLookup::Gte | FilterLookup::Lt | FilterLookup::Lte => is_ordered(column_type),
            FilterLookup::Contains | FilterLookup::IContains => is_text(column_type),
            FilterLookup::Exact | FilterLookup::In | FilterLookup::IsNull => true,
        }
    }
}
