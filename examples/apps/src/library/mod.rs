//! The `library` app: books.

pub mod api;
pub mod book;
