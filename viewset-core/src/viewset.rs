//! The ViewSet: a model plus its configuration ([`ViewSet`], [`Config`]), its overridable handlers and hooks
//! ([`Hooks`]) and their default bodies ([`handlers`]). `#[derive(ModelViewSet)]` implements the first two.
//!
//! The contract (the crate's `contract/` folder: the trait, its configuration, hooks and paginator) is the floor
//! the rest of the crate stands on; the default handlers, bulk writes, upserts, ETags and `Prefer` (the `handlers/`
//! folder) sit above everything they call. Inside the crate, code imports a name from the file that defines it;
//! this module only hands the names on.

pub use crate::contract::committed::Committed;
pub use crate::contract::config::Config;
pub use crate::contract::hooks::Hooks;
pub use crate::contract::viewset::{ModelOf, ViewSet};
pub use crate::handlers::crud::base_queryset;
pub use crate::handlers::{bulk, etag, nested, prefer, upsert};
pub use crate::types::options::{Bulk, Nested};
pub use crate::types::options::{Direction, OrderingFields};

/// The default handlers of the generated routes (list, retrieve, create, update, delete).
pub mod handlers {
    pub use crate::handlers::crud::*;
}
