//! The blog's sea-orm entities.

pub mod author;
pub mod post;
pub mod post_tag;
pub mod tag;
