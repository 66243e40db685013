//! The per-process event bus: a broadcast channel, a bounded replay buffer, and optionally a carrier between
//! processes: PostgreSQL's `LISTEN/NOTIFY` ([`EventBus::postgres`], `notify.rs`), the durable outbox (`outbox.rs`,
//! [`EventBus::outbox`]), or NATS JetStream relayed from the outbox table (`nats.rs`, `EventBus::nats`, feature
//! `nats`).

// Without the `postgres` and `nats` features the carriers between processes, and what only they use, cannot be built.
#![cfg_attr(not(any(feature = "postgres", feature = "nats")), allow(dead_code))]

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{broadcast, watch};

use crate::bus::event::ChangeEvent;
use crate::bus::shared_views::SharedViews;
use crate::bus::stats::BusStats;

/// Events kept for `Last-Event-ID` resume.
const REPLAY: usize = 1024;
/// Events a subscriber may fall behind before it is told it lagged.
const BACKLOG: usize = 512;
/// The pause before a carrier's reader tries to reach its database or server again.
pub(crate) const RETRY: std::time::Duration = std::time::Duration::from_millis(500);
/// Events read from a durable carrier per round trip, and at most handed to a resuming subscriber at once.
pub(crate) const PAGE: usize = 1000;

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
    /// What the bus counts of its relay and its subscribers, for the scrape.
    stats: Arc<BusStats>,
}

/// How events travel between processes.
pub(crate) enum Carrier {
    /// They do not: this process only.
    InProcess,
    /// `NOTIFY` after the commit; lost when no listener hears it (`notify.rs`).
    #[cfg(feature = "postgres")]
    Notify(sqlx::PgPool),
    /// Rows of `viewset_events` written with the change, numbered for the whole cluster (`outbox.rs`).
    #[cfg(feature = "postgres")]
    Outbox(sqlx::PgPool),
    /// Rows of `viewset_events` written with the change, relayed to a JetStream stream, numbered by it (`nats.rs`).
    #[cfg(feature = "nats")]
    Nats(Box<crate::bus::nats::Link>),
}

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

    pub(crate) fn with_carrier(carrier: Carrier) -> Self {
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
            stats: Arc::default(),
        }))
    }

    /// A handle that does not keep the bus alive: its background tasks end when the last clone is dropped.
    pub(crate) fn downgrade(&self) -> WeakBus {
        WeakBus(Arc::downgrade(&self.0))
    }

    /// Marks a gap after the events delivered so far and tells every subscriber (`reset`, `reconnected`).
    pub(crate) fn reconnected(&self) {
        // Only the one reader task delivers on a bus between processes, so no event is numbered meanwhile.
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

    /// Publishes an event: to every process with PostgreSQL or NATS, else to this one. Never blocks on subscribers.
    /// On a durable bus (outbox, NATS) the event is written in a statement of its own (the generated routes write
    /// theirs in the change's transaction instead), then carried as the bus carries every event.
    pub fn publish(&self, event: ChangeEvent) {
        crate::measure::event_published();
        match &self.0.carrier {
            Carrier::InProcess => self.deliver(event),
            #[cfg(feature = "postgres")]
            Carrier::Notify(pool) => crate::bus::notify::notify(pool, event),
            #[cfg(feature = "postgres")]
            Carrier::Outbox(pool) => crate::bus::notify::record_alone(self, pool, event),
            #[cfg(feature = "nats")]
            Carrier::Nats(link) => link.record_alone(event, self.0.stats.clone()),
        }
    }

    /// Whether events are written with the change in its transaction (an outbox, or NATS relayed from one): the
    /// generated writes then run in a transaction and write their events with it.
    pub fn is_durable(&self) -> bool {
        match self.0.carrier {
            Carrier::InProcess => false,
            #[cfg(feature = "postgres")]
            Carrier::Notify(_) => false,
            #[cfg(feature = "postgres")]
            Carrier::Outbox(_) => true,
            #[cfg(feature = "nats")]
            Carrier::Nats(_) => true,
        }
    }

    /// Whether the generated writes should return the ids of the events they record (a relay publishes them).
    pub(crate) fn relays(&self) -> bool {
        #[cfg(feature = "nats")]
        if let Carrier::Nats(_) = self.0.carrier {
            return true;
        }
        false
    }

    /// After a durable write committed the events `recorded` (their row ids, when [`EventBus::relays`]): wakes
    /// this process's outbox reader, or publishes them to NATS and waits for the acknowledgement (when NATS cannot
    /// take them they stay in the table and the relay sends them once it is back; the write stands).
    pub(crate) async fn committed(&self, recorded: Vec<crate::bus::migration::Recorded>) {
        #[cfg(feature = "nats")]
        if let Carrier::Nats(link) = &self.0.carrier {
            return link.relay_committed(recorded, self.stats()).await;
        }
        let _ = recorded;
        self.wake();
    }

    /// Tells this process's outbox reader that events were committed (nothing on other buses).
    pub(crate) fn wake(&self) {
        self.0.wake.notify_one();
    }

    /// What [`EventBus::wake`] signals.
    #[cfg(feature = "postgres")]
    pub(crate) fn wakes(&self) -> Arc<tokio::sync::Notify> {
        self.0.wake.clone()
    }

    fn carrier_name(&self) -> &'static str {
        match self.0.carrier {
            Carrier::InProcess => "in process",
            #[cfg(feature = "postgres")]
            Carrier::Notify(_) => "postgres notify",
            #[cfg(feature = "postgres")]
            Carrier::Outbox(_) => "postgres outbox",
            #[cfg(feature = "nats")]
            Carrier::Nats(_) => "nats jetstream",
        }
    }

    /// The events after `seq` for a resuming subscriber: from this process's buffer, else (on a durable bus) from
    /// the outbox table or the JetStream stream, at most [`PAGE`] at once; `None` when they are not all kept.
    pub(crate) async fn after(&self, seq: u64) -> Option<Vec<Sequenced>> {
        if let Some(events) = self.since(seq) {
            return Some(events);
        }
        match &self.0.carrier {
            #[cfg(feature = "postgres")]
            Carrier::Outbox(pool) => crate::bus::outbox::after(pool, seq).await,
            #[cfg(feature = "nats")]
            Carrier::Nats(link) => link.after(seq).await,
            _ => None,
        }
    }

    /// Whether [`EventBus::after`] may have more after handing `handed` events (a durable carrier is read a page
    /// at a time; a buffer is handed whole).
    pub(crate) fn may_have_more(&self, handed: usize) -> bool {
        self.is_durable() && handed >= PAGE
    }

    /// The `id:` of the frame of the event numbered `seq`: the cluster-wide number on an outbox bus, else
    /// `<instance>-<seq>`.
    pub(crate) fn event_id(&self, seq: u64) -> String {
        if self.is_durable() { seq.to_string() } else { format!("{}-{seq}", self.0.instance) }
    }

    /// Hands an event to this process's subscribers and replay buffer.
    pub(crate) fn deliver(&self, event: ChangeEvent) {
        self.push(Sequenced { seq: self.0.next.fetch_add(1, Ordering::SeqCst), event: Arc::new(event) });
    }

    /// Hands an event the outbox numbered `seq` to this process's subscribers and replay buffer (one reader task
    /// per process calls this, in increasing order).
    pub(crate) fn deliver_numbered(&self, seq: u64, event: ChangeEvent) {
        self.0.next.store(seq + 1, Ordering::SeqCst);
        self.push(Sequenced { seq, event: Arc::new(event) });
    }

    /// Hands the event a durable carrier numbered `seq` to this process's subscribers, `last` being the number of
    /// the one before it this process read (`None` for a payload that is no event). When numbers were skipped (the
    /// events between were deleted before this process read them, an outage longer than the retention) resuming
    /// across them is impossible, and every subscriber is told.
    pub(crate) fn receive(&self, last: &mut u64, seq: u64, event: Option<ChangeEvent>) {
        if seq != *last + 1 {
            tracing::warn!(from = *last + 1, to = seq, "events were deleted before they were delivered");
            self.start_after(seq - 1);
            self.reconnected();
        }
        *last = seq;
        if let Some(event) = event {
            self.deliver_numbered(seq, event);
        }
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
        crate::measure::event_delivered();
        let _ = self.0.sender.send(sequenced);
    }

    /// A new subscription.
    pub fn subscribe(&self) -> broadcast::Receiver<Sequenced> {
        self.0.sender.subscribe()
    }

    /// What this bus counted (its relay's backlog and failures, its subscribers' resets and hidden events).
    pub(crate) fn stats(&self) -> &BusStats {
        &self.0.stats
    }

    /// [`EventBus::stats`] for a task that holds the bus weakly.
    #[cfg(feature = "nats")]
    pub(crate) fn stats_handle(&self) -> Arc<BusStats> {
        self.0.stats.clone()
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
