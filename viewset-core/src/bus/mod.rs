//! The event bus and its carriers: in process, PostgreSQL `LISTEN/NOTIFY` (`notify.rs`), the durable outbox
//! (`outbox.rs`) and NATS JetStream (`nats.rs`); the event itself, the table's migration, retention, and the
//! subscribers' shared views with their batched visibility questions. The bus dispatches over its carriers, so the
//! files of this folder import each other; nothing here imports a ViewSet. The public module `events` hands the
//! names on, beside the stream that stands above it.

pub mod batch;
pub mod event;
pub mod event_bus;
pub mod migration;
#[cfg(feature = "nats")]
pub mod nats;
#[cfg(feature = "postgres")]
pub mod notify;
#[cfg(feature = "postgres")]
pub mod outbox;
pub mod retention;
pub mod shared_views;
pub(crate) mod stats;
