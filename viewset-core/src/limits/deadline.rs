//! Keeps each request's timeout from waking the runtime: one task per runtime holds a timer due at half the shortest
//! request timeout, so a request's deadline is never the timer driver's earliest and registering it wakes nothing.
//! Why, and what it saves: bench/notes/design-notes.md.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// The keeper of this process.
pub(super) static KEEPER: Keeper = Keeper::new();

/// Whether a keeper task runs (on some runtime), and its period.
pub(super) struct Keeper {
    running: AtomicBool,
    /// Half the shortest request timeout seen, in milliseconds.
    period_ms: AtomicU64,
}

impl Keeper {
    const fn new() -> Self {
        Keeper { running: AtomicBool::new(false), period_ms: AtomicU64::new(u64::MAX) }
    }

    /// Makes sure a keeper task runs for requests whose timeout is `timeout` (called once per request: two loads
    /// when one runs and its period already fits).
    pub(super) fn keep_ahead_of(&'static self, timeout: Duration) {
        let period = u64::try_from(timeout.as_millis() / 2).unwrap_or(u64::MAX).max(1);
        if period < self.period_ms.load(Ordering::Relaxed) {
            self.period_ms.fetch_min(period, Ordering::Relaxed);
        }
        if self.running.load(Ordering::Relaxed) || self.running.swap(true, Ordering::AcqRel) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            self.running.store(false, Ordering::Release);
            return;
        };
        runtime.spawn(async move {
            // Dropped with the task, when the keeper's runtime shuts down.
            let _running = Running(self);
            loop {
                tokio::time::sleep(Duration::from_millis(self.period_ms.load(Ordering::Relaxed))).await;
            }
        });
    }
}

/// Marks the keeper as gone when its task is dropped.
struct Running(&'static Keeper);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.running.store(false, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keeper_ends_with_its_runtime_and_the_next_runtime_starts_another() {
        static OURS: Keeper = Keeper::new();
        for timeout in [30, 4] {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
            runtime.block_on(async {
                OURS.keep_ahead_of(Duration::from_secs(timeout));
                OURS.keep_ahead_of(Duration::from_secs(60));
                tokio::task::yield_now().await;
                assert!(OURS.running.load(Ordering::Acquire));
                assert_eq!(OURS.period_ms.load(Ordering::Relaxed), timeout.min(30) * 500);
            });
            drop(runtime);
            assert!(!OURS.running.load(Ordering::Acquire), "the keeper ended with its runtime");
        }
        // Outside a runtime there is nothing to spawn on, and nothing is marked as running.
        OURS.keep_ahead_of(Duration::from_secs(30));
        assert!(!OURS.running.load(Ordering::Acquire));
    }
}
