//! Lifecycle events of records and their server-sent-event stream, `GET <prefix>/stream`.
//!
//! The bus decides how events travel ([`EventBus`]):
//!
//! | bus | ids | between processes | resume |
//! |---|---|---|---|
//! | [`EventBus::in_process`] (default; SQLite, tests) | `<instance>-<n>` | no | this process's last 1,024 events |
//! | [`EventBus::postgres`] | `<instance>-<n>` | `NOTIFY` after the commit (lost if no listener hears it) | the same |
//! | [`EventBus::outbox`] (PostgreSQL) | `<n>`, one order on every instance | rows written in the change's transaction | any instance, within [`Retention`] |
//! | `EventBus::nats` (feature `nats`; any database) | `<n>`, the JetStream stream sequence | rows written in the change's transaction, published to JetStream after the commit (relayed when NATS was down) | any instance, within the stream's limits |
//!
//! The generated writes hand their events to the store with the change: on an outbox bus they are inserted in the
//! write's own transaction (so a rolled-back write has none, a committed one is never lost); otherwise they are
//! published after the commit. Application code publishes through [`publish`]. Every process loads each record
//! through each subscriber's own view (the payload is the key and the action).

pub(crate) mod record;
pub(crate) mod resume;
pub(crate) mod stream;
pub(crate) mod visibility;

pub use crate::bus::event::{Action, ChangeEvent};
pub use crate::bus::event_bus::EventBus;
pub use crate::bus::migration::{MIGRATION_NAME, MIGRATION_SOURCE, Migration};
#[cfg(feature = "nats")]
pub use crate::bus::nats::{ACK_WAIT, RELAY};
#[cfg(feature = "postgres")]
pub use crate::bus::outbox::POLL;
pub use crate::bus::retention::Retention;
/// The NATS client [`EventBus::nats_with`] takes (feature `nats`), re-exported so its version is the one viewset uses.
#[cfg(feature = "nats")]
pub use async_nats;
pub use stream::stream_route;

use crate::contract::viewset::{ModelOf, ViewSet};
use crate::request::RequestContext;

/// Publishes a lifecycle event of `record` for `V` (call it after your transaction commits).
pub fn publish<V: ViewSet>(request: &RequestContext, action: Action, record: &ModelOf<V>) {
    request.events.publish(ChangeEvent::of::<V>(action, record));
}
