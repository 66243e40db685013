//! How long durable events are kept.

use std::time::Duration;

/// How long a durable bus keeps events for `Last-Event-ID` resume: events older than `age`, and all but the newest
/// `events`, are deleted. The outbox ([`crate::events::EventBus::outbox`]) deletes them in the background on every
/// instance, each `prune_every` (the newest event is always kept); a JetStream stream
/// ([`crate::events::EventBus::nats`]) is created with `age` and `events` as its limits, and NATS enforces them.
///
/// ```
/// let kept = viewset_core::events::Retention::default();
/// assert_eq!((kept.age.as_secs(), kept.events, kept.prune_every.as_secs()), (24 * 60 * 60, 1_000_000, 60));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// Events older than this are deleted.
    pub age: Duration,
    /// At most this many events are kept.
    pub events: u64,
    /// How often each instance deletes what is past the retention.
    pub prune_every: Duration,
}

impl Default for Retention {
    fn default() -> Self {
        Retention { age: Duration::from_secs(24 * 60 * 60), events: 1_000_000, prune_every: Duration::from_secs(60) }
    }
}
