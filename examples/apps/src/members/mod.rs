//! The `members` app: library members.

pub mod api;
pub mod member;
