//! The ViewSet: a model plus its configuration ([`ViewSet`], [`Config`]), its overridable handlers and hooks
//! ([`Hooks`]) and their default bodies ([`handlers`]). `#[derive(ModelViewSet)]` implements the first two.
//!
//! The contract (`contract`, `config`, `options`, `paginator`, `hooks`) is the floor the rest of the crate stands
//! on; the default handlers and ETags (`handlers`, `etag`) sit above everything they call. Inside the crate, code
//! imports a name from the file that defines it; this module only hands the names on.

pub mod bulk;
pub(crate) mod config;
pub(crate) mod contract;
pub mod etag;
pub mod handlers;
pub(crate) mod hooks;
pub(crate) mod options;
pub(crate) mod paginator;
pub mod prefer;
pub mod upsert;

pub use config::{Config, Direction, OrderingFields};
pub use contract::{ModelOf, ViewSet};
pub use handlers::base_queryset;
pub use hooks::Hooks;
pub use options::Bulk;
