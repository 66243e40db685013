//! What a bus counts of its own work, for the scrape (`metrics.rs` reads it from the [`crate::ServiceState`]'s
//! bus, as it reads the subscribers): the outbox rows its relay found waiting, the relay rounds that failed, the
//! `reset` frames its subscribers were sent by reason, and the events a subscriber was not shown. Relaxed atomics on
//! paths that are rare (a relay round, a reset) or already pay a query (a visibility outcome); without the `metrics`
//! feature nothing reads them, and nothing is counted.

// Only the scrape (feature `metrics`) reads the counts.
#![cfg_attr(not(feature = "metrics"), allow(dead_code))]

use std::sync::atomic::{AtomicU64, Ordering};

/// The reasons of a stream's `reset` frame, in the order of [`BusStats::resets`].
pub(crate) const RESET_REASONS: [&str; 5] =
    ["lagged", "reconnected", "resume_unavailable", "malformed_last_event_id", "shutdown"];

/// The counters of one bus.
#[derive(Debug, Default)]
pub(crate) struct BusStats {
    /// Outbox rows not yet handed on (NATS: not acknowledged by JetStream; PostgreSQL: not numbered) when this
    /// process's relay last looked.
    backlog: AtomicU64,
    /// Relay rounds that failed (NATS unreachable or refusing, the outbox table unreadable).
    relay_failures: AtomicU64,
    /// `reset` frames sent, by the index of their reason in [`RESET_REASONS`].
    resets: [AtomicU64; RESET_REASONS.len()],
    /// Events a subscriber of this process was not shown (its view cannot see the record), or whose visibility
    /// check failed.
    hidden: AtomicU64,
    failed: AtomicU64,
}

/// A reading of [`BusStats`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct BusCounts {
    pub(crate) backlog: u64,
    pub(crate) relay_failures: u64,
    pub(crate) resets: [u64; RESET_REASONS.len()],
    pub(crate) hidden: u64,
    pub(crate) failed: u64,
}

impl BusStats {
    /// The relay found `rows` waiting.
    #[cfg(any(feature = "postgres", feature = "nats"))]
    #[inline]
    pub(crate) fn backlog(&self, rows: usize) {
        if !crate::measure::ON {
            return;
        }
        self.backlog.store(rows as u64, Ordering::Relaxed);
    }

    /// A relay round failed.
    #[cfg(any(feature = "postgres", feature = "nats"))]
    #[inline]
    pub(crate) fn relay_failed(&self) {
        if !crate::measure::ON {
            return;
        }
        self.relay_failures.fetch_add(1, Ordering::Relaxed);
    }

    /// A `reset` frame with `reason` was sent (a reason not in [`RESET_REASONS`] is not counted; the test below
    /// keeps the list whole).
    #[inline]
    pub(crate) fn reset(&self, reason: &str) {
        if !crate::measure::ON {
            return;
        }
        if let Some(at) = RESET_REASONS.iter().position(|known| *known == reason) {
            self.resets[at].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// An event a subscriber was not shown: `failed` when its visibility check failed, else hidden from it.
    #[inline]
    pub(crate) fn not_shown(&self, failed: bool) {
        if !crate::measure::ON {
            return;
        }
        let counter = if failed { &self.failed } else { &self.hidden };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// The counters now.
    pub(crate) fn read(&self) -> BusCounts {
        BusCounts {
            backlog: self.backlog.load(Ordering::Relaxed),
            relay_failures: self.relay_failures.load(Ordering::Relaxed),
            resets: std::array::from_fn(|at| self.resets[at].load(Ordering::Relaxed)),
            hidden: self.hidden.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
        }
    }
}

// Without `metrics` nothing is counted (see the methods).
#[cfg(all(test, feature = "metrics"))]
mod tests {
    use super::*;

    #[test]
    fn counts_what_it_is_told() {
        let stats = BusStats::default();
        stats.backlog.store(3, Ordering::Relaxed);
        stats.relay_failures.fetch_add(1, Ordering::Relaxed);
        for reason in RESET_REASONS {
            stats.reset(reason);
        }
        stats.reset("lagged");
        stats.reset("no such reason");
        stats.not_shown(false);
        stats.not_shown(false);
        stats.not_shown(true);
        let counts = stats.read();
        assert_eq!(counts.backlog, 3);
        assert_eq!(counts.relay_failures, 1);
        assert_eq!(counts.resets, [2, 1, 1, 1, 1]);
        assert_eq!((counts.hidden, counts.failed), (2, 1));
    }
}
