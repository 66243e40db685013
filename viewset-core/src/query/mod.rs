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

pub(crate) mod filter;
pub(crate) mod fulltext;
pub(crate) mod groups;
pub(crate) mod narrow;
pub(crate) mod ordering;
pub(crate) mod related;
pub(crate) mod search;
pub(crate) mod text_match;
pub(crate) mod unread;

pub use crate::types::list_query::{Computed, ListQuery, OrderTerm, OrderingState};
pub use crate::types::lookups::FilterLookup;
pub use crate::types::options::{FullText, RelatedField};
pub use crate::types::params::{Filters, MAX_SQL_INTEGER, QueryParams, RESERVED_QUERY_NAMES, is_reserved_query_name};
pub use crate::types::query_limits::QueryLimits;
/// Typed filter values: parsing a query string value as a column's type, and what a column may store.
pub use crate::types::value;
pub use filter::{DjangoFilterBackend, FilterBackend, ServiceFilterBackend, apply_exact_filters, router_filters};
pub use fulltext::{FULLTEXT_PARAM, FullTextSearchFilter, boolean_mode_query, fts5_query};
pub use groups::FilterGroup;
pub use narrow::narrow;
pub use ordering::{OrderingFilter, apply_order, effective_order};
pub use related::column_type_of;
pub use search::SearchFilter;
