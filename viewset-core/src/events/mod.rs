//! Lifecycle events of records and their server-sent-event stream, `GET <prefix>/stream`.
//!
//! Writes publish after they commit (the generated create/update/delete, and application code through
//! [`publish`]). Each process keeps a bounded buffer of recent events for `Last-Event-ID` resume; it is not a
//! durable log. With PostgreSQL, [`EventBus::postgres`] carries events between processes with `LISTEN/NOTIFY`
//! (one listening connection per process; the payload is the key and the action, and every process loads the
//! record through each subscriber's own view).

pub(crate) mod bus;
pub(crate) mod event;
pub(crate) mod record;
pub(crate) mod shared_views;
pub(crate) mod stream;
pub(crate) mod visibility;

pub use bus::EventBus;
pub use event::{Action, ChangeEvent};
pub use stream::stream_route;

use crate::request::RequestContext;
use crate::viewset::contract::{ModelOf, ViewSet};

/// Publishes a lifecycle event of `record` for `V` (call it after your transaction commits).
pub fn publish<V: ViewSet>(request: &RequestContext, action: Action, record: &ModelOf<V>) {
    request.events.publish(ChangeEvent::of::<V>(action, record));
}
