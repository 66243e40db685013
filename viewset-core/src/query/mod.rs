//! How a list request becomes SQL: the decoded query string, the router's exact-match filters, the filter
//! backends ([`ServiceFilterBackend`] with its [`FilterLookup`]s, [`SearchFilter`], [`OrderingFilter`]), typed
//! values and the [`ListQuery`] they build together. Nothing here runs a query; [`crate::access`] scopes it and
//! [`crate::pagination`] runs it.
//!
//! ```
//! use viewset_core::query::{FilterLookup, QueryParams};
//! let params = QueryParams::parse(Some("views__gte=10&search=rust"));
//! assert_eq!(params.get("search"), Some("rust"));
//! assert_eq!(FilterLookup::split("views__gte"), ("views", Some(FilterLookup::Gte)));
//! ```

pub(crate) mod columns;
mod filter;
mod fulltext;
mod groups;
mod limits;
mod list_query;
mod lookups;
mod narrow;
pub(crate) mod ordering;
mod params;
pub(crate) mod related;
mod search;
pub(crate) mod text_match;
pub mod value;

pub(crate) use filter::apply_exact_filters_except;
pub use filter::{DjangoFilterBackend, FilterBackend, Filters, ServiceFilterBackend, apply_exact_filters};
pub use fulltext::{FULLTEXT_PARAM, FullText, FullTextSearchFilter, fts5_query};
pub use groups::FilterGroup;
pub use limits::QueryLimits;
pub use list_query::{Computed, ListQuery, OrderTerm, OrderingState};
pub use lookups::FilterLookup;
pub use narrow::narrow;
pub use ordering::{OrderingFilter, apply_order, effective_order};
pub use params::{MAX_SQL_INTEGER, QueryParams, RESERVED_QUERY_NAMES, is_reserved_query_name};
pub use related::{RelatedField, column_type_of};
pub use search::SearchFilter;
