//! The default handlers of the generated routes (`crud.rs`: list, retrieve, create, update, delete), bulk writes
//! and upserts, ETags and `Prefer`. They stand above everything they call; the public module `viewset` hands their
//! names on.

pub(crate) mod after;
pub mod bulk;
pub mod crud;
pub mod etag;
pub mod nested;
pub(crate) mod nested_links;
pub(crate) mod nested_update;
pub mod prefer;
pub mod upsert;
