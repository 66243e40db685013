//! The OpenAPI 3.1 description of registered ViewSets: every generated route, with its parameters, bodies and
//! error responses, built from the ViewSets' configuration and the models' derived schemas.

mod field_schema;
mod operations;
mod shapes;

pub use field_schema::FieldSchema;
pub use operations::{manual_path_item, viewset_paths};
pub use shapes::error_components;
