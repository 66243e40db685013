//! Shared pieces of the cross-crate tests: a fixture model for the trybuild cases and the HTTP harness that
//! runs the examples on SQLite and PostgreSQL.

pub mod ai_client;
pub mod cluster;
pub mod datagen;
pub mod docs;
pub mod every_database;
pub mod fixtures;
pub mod harness;
pub mod identities;
pub mod nats;
pub mod processes;
pub mod shell;
pub mod sql_spans;
pub mod sse;
pub mod studio_fixtures;
pub mod webhook_receiver;
