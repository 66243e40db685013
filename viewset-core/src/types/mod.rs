//! The plain types every other module reads: the operation and the principal, the decoded query (its parameters,
//! lookups, ordering terms, typed values, columns and limits), what `#[viewset]` declares for other modules
//! (`options.rs`), the field schema and the JSON answer of a page or record (`page_body.rs`). They import nothing
//! above the errors; the public modules (`access`, `query`, `pagination`, `openapi`, `viewset`, `embed`) hand them
//! on.

pub mod columns;
pub mod field_schema;
pub mod list_query;
pub mod lookups;
pub mod operation;
pub mod options;
pub mod page_body;
pub mod params;
pub mod principal;
pub mod query_limits;
pub(crate) mod read_marks;
pub mod value;
