//! The tenants example's entities.

pub mod note;
pub mod project;
pub mod task;
