//! The per-process event bus: a broadcast channel, a bounded replay buffer, and optionally PostgreSQL between
//! processes: `LISTEN/NOTIFY` ([`EventBus::postgres`]), or the durable outbox (`outbox.rs`, [`EventBus::outbox`]).

// Without the `postgres` feature the carriers between processes, and what only they use, cannot be built.
#![cfg_attr(not(feature = "postgres"), allow(dead_code))]

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{broadcast, watch};

use super::event::ChangeEvent;
use super::shared_views::SharedViews;

/// The `NOTIFY` channel.
#[cfg(feature = "postgres")]
const CHANNEL: &str = "viewset_events";
/// Events kept for `Last-Event-ID` resume.
const REPLAY: usize = 1024;
/// Events a subscriber may fall behind before it is told it lagged.
const BACKLOG: usize = 512;
/// `NOTIFY` payloads must stay under 8000 bytes.
#[cfg(feature = "postgres")]
const MAX_NOTIFY: usize = 7900;

/// An event with its sequence number in this process.
#[derive(Debug, Clone)]
pub struct Sequenced {
    /// Monotonic in this process.
    pub seq: u64,
    /// The event.
    pub event: Arc<ChangeEvent>,
}

struct Inner {
    instance: String,
    next: AtomicU64,
    sender: broadcast::Sender<Sequenced>,
    replay: Mutex<VecDeque<Sequenced>>,
    /// The first sequence number after the latest gap (events that may have been lost: the PostgreSQL listener
    /// reconnected); 0 before any. Resuming from before it is impossible; subscribers are told when it moves.
    gap: watch::Sender<u64>,
    carrier: Carrier,
    views: SharedViews,
    /// Wakes this process's outbox reader (a write of this process committed events).
    wake: Arc<tokio::sync::Notify>,
}

/// How events travel between processes.
enum Carrier {
    /// They do not: this process only.
    InProcess,
    /// `NOTIFY` after the commit; lost when no listener hears it.
    Notify(Pool),
    /// Rows of `viewset_events` written with the change, numbered for the whole cluster (`outbox.rs`).
    Outbox(Pool),
}

/// The pool that carries events between processes (feature `postgres`).
#[cfg(feature = "postgres")]
type Pool = sqlx::PgPool;
/// Without the `postgres` feature no bus can have a pool.
#[cfg(not(feature = "postgres"))]
type Pool = std::convert::Infallible;

/// An [`EventBus`] that does not keep it alive.
pub(crate) struct WeakBus(std::sync::Weak<Inner>);

impl WeakBus {
    /// The bus, while a clone of it lives.
    pub(crate) fn upgrade(&self) -> Option<EventBus> {
        self.0.upgrade().map(EventBus)
    }
}

/// Delivers lifecycle events to the stream subscribers of this process (and of other processes, with
/// [`EventBus::postgres`]). Cheap to clone.
#[derive(Clone)]
pub struct EventBus(Arc<Inner>);

impl std::fmt::Debug for EventBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventBus").field("instance", &self.0.instance).field("carrier", &self.carrier_name()).finish()
    }
}

impl Default for EventBus {
    fn default() -> Self {
        EventBus::in_process()
    }
}

fn instance_id() -> String {
    let mut bytes = [0u8; 6];
    getrandom::fill(&mut bytes).expect("random bytes");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl EventBus {
    /// Delivery within this process only (SQLite, tests, single instances).
    pub fn in_process() -> Self {
        EventBus::with_carrier(Carrier::InProcess)
    }

    fn with_carrier(carrier: Carrier) -> Self {
        let (sender, _) = broadcast::channel(BACKLOG);
        EventBus(Arc::new(Inner {
            instance: instance_id(),
            next: AtomicU64::new(1),
            sender,
            replay: Mutex::new(VecDeque::with_capacity(REPLAY)),
            gap: watch::channel(0).0,
            carrier,
            views: SharedViews::default(),
            wake: Arc::default(),
        }))
    }

    /// Delivery between every process on this PostgreSQL database: publishing sends `NOTIFY`, and one task per
    /// process listens and delivers to local subscribers. When the listening connection drops, events notified
    /// meanwhile are lost: the task reconnects, then tells every subscriber of this process `event: reset` with
    /// `"reason": "reconnected"` (refetch), and `Last-Event-ID`s from before the gap can no longer resume.
    /// Needs the `postgres` feature.
    #[cfg(feature = "postgres")]
    pub async fn postgres(pool: sqlx::PgPool) -> Result<Self, sqlx::Error> {
        let mut listener = sqlx::postgres::PgListener::connect_with(&pool).await?;
        // Reconnect here rather than inside `try_recv`, to know when the connection is back.
        listener.eager_reconnect(false);
        listener.listen(CHANNEL).await?;
        let bus = EventBus::with_carrier(Carrier::Notify(pool));
        let weak = bus.downgrade();
        tokio::spawn(async move {
            loop {
                let notification = match listener.try_recv().await {
                    Ok(Some(n)) => n,
                    Ok(None) => {
                        tracing::warn!("event listener lost its connection; reconnecting");
                        if !reconnect(&mut listener).await {
                            return;
                        }
                        let Some(bus) = weak.upgrade() else { return };
                        bus.reconnected();
                        continue;
                    }
                    Err(sqlx::Error::PoolClosed) => return,
                    Err(err) => {
                        // The next `try_recv` reports a dropped connection as `Ok(None)`.
                        tracing::warn!(error = %err, "event listener error; retrying");
                        tokio::time::sleep(RETRY).await;
                        continue;
                    }
                };
                let Some(bus) = weak.upgrade() else { return };
                match serde_json::from_str::<ChangeEvent>(notification.payload()) {
                    Ok(event) => bus.deliver(event),
                    Err(err) => tracing::warn!(error = %err, "ignoring a malformed event notification"),
                }
            }
        });
        Ok(bus)
    }

    /// A bus carried by the outbox (`outbox.rs` starts its reader).
    #[cfg(feature = "postgres")]
    pub(crate) fn over_outbox(pool: Pool) -> Self {
        EventBus::with_carrier(Carrier::Outbox(pool))
    }

    /// A handle that does not keep the bus alive: its background tasks end when the last clone is dropped.
    pub(crate) fn downgrade(&self) -> WeakBus {
        WeakBus(Arc::downgrade(&self.0))
    }

    /// Marks a gap after the events delivered so far and tells every subscriber (`reset`, `reconnected`).
    #[cfg(feature = "postgres")]
    pub(crate) fn reconnected(&self) {
        // Only the listening task delivers on a PostgreSQL bus, so no event is numbered meanwhile.
        self.0.gap.send_replace(self.0.next.load(Ordering::SeqCst));
    }

    /// Notices of gaps in delivery (the value is the first sequence number after the latest one).
    pub(crate) fn gaps(&self) -> watch::Receiver<u64> {
        self.0.gap.subscribe()
    }

    /// This process's id, the prefix of its event ids.
    pub fn instance(&self) -> &str {
        &self.0.instance
    }

    /// Publishes an event: to every process with PostgreSQL, else to this one. Never blocks on subscribers. On an
    /// outbox bus the event is written in a statement of its own (the generated routes write theirs in the change's
    /// transaction instead).
    pub fn publish(&self, event: ChangeEvent) {
        match &self.0.carrier {
            Carrier::InProcess => self.deliver(event),
            Carrier::Notify(pool) => notify(pool, event),
            Carrier::Outbox(pool) => record_alone(self, pool, event),
        }
    }

    /// Whether events are written with the change in its transaction (an outbox): the generated writes then run
    /// in a transaction and write their events with it.
    pub fn is_durable(&self) -> bool {
        matches!(self.0.carrier, Carrier::Outbox(_))
    }

    /// Tells this process's outbox reader that events were committed (nothing on other buses).
    pub(crate) fn wake(&self) {
        self.0.wake.notify_one();
    }

    /// What [`EventBus::wake`] signals.
    pub(crate) fn wakes(&self) -> Arc<tokio::sync::Notify> {
        self.0.wake.clone()
    }

    /// The outbox's pool, on an outbox bus.
    pub(crate) fn outbox_pool(&self) -> Option<&Pool> {
        match &self.0.carrier {
            Carrier::Outbox(pool) => Some(pool),
            _ => None,
        }
    }

    fn carrier_name(&self) -> &'static str {
        match self.0.carrier {
            Carrier::InProcess => "in process",
            Carrier::Notify(_) => "postgres notify",
            Carrier::Outbox(_) => "postgres outbox",
        }
    }

    /// The `id:` of the frame of the event numbered `seq`: the cluster-wide number on an outbox bus, else
    /// `<instance>-<seq>`.
    pub(crate) fn event_id(&self, seq: u64) -> String {
        if self.is_durable() { seq.to_string() } else { format!("{}-{seq}", self.0.instance) }
    }

    /// Hands an event to this process's subscribers and replay buffer.
    fn deliver(&self, event: ChangeEvent) {
        self.push(Sequenced { seq: self.0.next.fetch_add(1, Ordering::SeqCst), event: Arc::new(event) });
    }

    /// Hands an event the outbox numbered `seq` to this process's subscribers and replay buffer (one reader task
    /// per process calls this, in increasing order).
    pub(crate) fn deliver_numbered(&self, seq: u64, event: ChangeEvent) {
        self.0.next.store(seq + 1, Ordering::SeqCst);
        self.push(Sequenced { seq, event: Arc::new(event) });
    }

    /// Sets the number the next event will have (an outbox bus starts after the newest event it finds).
    pub(crate) fn start_after(&self, seq: u64) {
        self.0.next.store(seq + 1, Ordering::SeqCst);
    }

    fn push(&self, sequenced: Sequenced) {
        {
            // A poisoned lock is read through, as the store's caches do: an event is only ever pushed whole.
            let mut replay = self.0.replay.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if replay.len() == REPLAY {
                replay.pop_front();
            }
            replay.push_back(sequenced.clone());
        }
        let _ = self.0.sender.send(sequenced);
    }

    /// A new subscription.
    pub fn subscribe(&self) -> broadcast::Receiver<Sequenced> {
        self.0.sender.subscribe()
    }

    /// The subscriber groups of this process and their shared visibility outcomes.
    pub(crate) fn views(&self) -> &SharedViews {
        &self.0.views
    }

    /// The buffered events after `seq`, or `None` when some of them are no longer buffered, may have been lost
    /// (a gap after `seq`), or `seq` was never sent.
    pub fn since(&self, seq: u64) -> Option<Vec<Sequenced>> {
        let replay = self.0.replay.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let next = self.0.next.load(Ordering::SeqCst);
        let oldest = replay.front().map_or(next, |e| e.seq);
        if seq + 1 < oldest || seq >= next || seq < *self.0.gap.borrow() {
            return None;
        }
        Some(replay.iter().filter(|e| e.seq > seq).cloned().collect())
    }
}

/// Pause between attempts to reach PostgreSQL again.
#[cfg(feature = "postgres")]
pub(crate) const RETRY: std::time::Duration = std::time::Duration::from_millis(500);

/// Connects `listener` again (listening on its channels), retrying until PostgreSQL answers; `false` when the
/// pool was closed (the application is shutting down).
#[cfg(feature = "postgres")]
pub(crate) async fn reconnect(listener: &mut sqlx::postgres::PgListener) -> bool {
    loop {
        // Any statement connects a listener that has no connection, and re-issues its `LISTEN`s first.
        match sqlx::query("SELECT 1").execute(&mut *listener).await {
            Ok(_) => return true,
            Err(sqlx::Error::PoolClosed) => return false,
            Err(err) => {
                tracing::warn!(error = %err, "event listener cannot reconnect yet; retrying");
                tokio::time::sleep(RETRY).await;
            }
        }
    }
}

/// Sends `event` to every process listening on this database (`NOTIFY`).
#[cfg(feature = "postgres")]
fn notify(pool: &Pool, event: ChangeEvent) {
    let pool = pool.clone();
    let mut payload = serde_json::to_string(&event).unwrap_or_default();
    if payload.len() > MAX_NOTIFY {
        // A large deleted row: send the key only; subscribers then see the delete only if they saw the row.
        payload = serde_json::to_string(&ChangeEvent { snapshot: None, ..event }).unwrap_or_default();
    }
    tokio::spawn(async move {
        if let Err(err) = sqlx::query("SELECT pg_notify($1, $2)").bind(CHANNEL).bind(payload).execute(&pool).await {
            tracing::error!(error = %err, "could not publish an event");
        }
    });
}

/// Writes `event` to the outbox in a statement of its own (an event published outside the write's transaction).
#[cfg(feature = "postgres")]
fn record_alone(bus: &EventBus, pool: &Pool, event: ChangeEvent) {
    let (pool, bus) = (pool.clone(), bus.clone());
    let payload = serde_json::to_string(&event).unwrap_or_default();
    tokio::spawn(async move {
        let record = sqlx::query(sqlx::AssertSqlSafe(super::migration::record_sql(1))).bind(payload);
        match record.execute(&pool).await {
            Ok(_) => bus.wake(),
            Err(err) => tracing::error!(error = %err, "could not record an event in the outbox"),
        }
    });
}

/// Without the `postgres` feature there is no pool to notify through.
#[cfg(not(feature = "postgres"))]
fn notify(pool: &Pool, _: ChangeEvent) {
    match *pool {}
}

/// Without the `postgres` feature there is no outbox.
#[cfg(not(feature = "postgres"))]
fn record_alone(_: &EventBus, pool: &Pool, _: ChangeEvent) {
    match *pool {}
}
