//! The blog's sea-orm entities.

pub mod author;
pub mod post;
