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
///
/// It is `#[non_exhaustive]`: start from [`Retention::default`] and set what changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
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

impl Retention {
    /// This retention with [`Retention::age`] set.
    ///
    /// ```
    /// use std::time::Duration;
    /// use viewset_core::events::Retention;
    /// let week = Retention::default()
    ///     .with_age(Duration::from_secs(7 * 24 * 60 * 60))
    ///     .with_events(5_000_000)
    ///     .with_prune_every(Duration::from_secs(300));
    /// assert_eq!((week.events, week.prune_every.as_secs()), (5_000_000, 300));
    /// ```
    pub const fn with_age(mut self, age: Duration) -> Self {
        self.age = age;
        self
    }

    /// This retention with [`Retention::events`] set.
    pub const fn with_events(mut self, events: u64) -> Self {
        self.events = events;
        self
    }

    /// This retention with [`Retention::prune_every`] set.
    pub const fn with_prune_every(mut self, every: Duration) -> Self {
        self.prune_every = every;
        self
    }
}
