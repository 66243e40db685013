//! The OpenAPI 3.1 description of registered ViewSets: every generated route, with its parameters (typed per
//! column, with only the lookups that apply and the configured bounds), bodies (closed objects), error responses
//! (shared components) and security (the bearer scheme, required where `permission_classes` refuse anonymous
//! callers), built from the ViewSets' configuration and the models' derived schemas.

pub(crate) mod aggregate;
pub(crate) mod bulk;
pub(crate) mod conditional;
pub(crate) mod doc;
pub(crate) mod document;
pub(crate) mod embedded;
pub(crate) mod filters;
pub(crate) mod nested;
pub(crate) mod operations;
pub(crate) mod responses;
pub(crate) mod retries;
pub(crate) mod shapes;

pub use crate::types::field_schema::FieldSchema;
#[cfg(feature = "docs")]
pub(crate) use document::docs_router;
pub(crate) use document::document;
pub use operations::{manual_path_item, viewset_paths};
pub use responses::{BEARER, components};
pub use shapes::error_components;
