//! When a failed delivery is tried again, and when an endpoint is given up on.

use std::time::Duration;

/// The retry schedule of an endpoint: the waits before each new attempt (with ±20 % jitter), after which the event
/// is dead-lettered; and how long an endpoint may keep failing before it is disabled.
///
/// The default is the schedule of the Standard Webhooks reference (about a day and a half): 5 s, 5 min, 30 min,
/// 2 h, 5 h, 10 h, 10 h; disabled after 5 days of failures.
///
/// ```
/// use std::time::Duration;
/// use viewset_core::webhooks::Retry;
///
/// let quick = Retry::new(vec![Duration::from_millis(100), Duration::from_secs(1)]);
/// assert_eq!(quick.attempts(), 3);
/// assert_eq!(Retry::default().attempts(), 8);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Retry {
    /// The wait before the second attempt, the third, and so on.
    pub waits: Vec<Duration>,
    /// How long an endpoint may fail every attempt before it is disabled (and reported).
    pub disable_after: Duration,
}

impl Default for Retry {
    fn default() -> Self {
        let minutes = |m: u64| Duration::from_secs(m * 60);
        Retry {
            waits: vec![
                Duration::from_secs(5),
                minutes(5),
                minutes(30),
                minutes(120),
                minutes(300),
                minutes(600),
                minutes(600),
            ],
            disable_after: Duration::from_secs(5 * 24 * 3600),
        }
    }
}

impl Retry {
    /// A schedule of these waits (the default `disable_after`).
    pub fn new(waits: Vec<Duration>) -> Retry {
        Retry { waits, ..Retry::default() }
    }

    /// Sets how long an endpoint may fail before it is disabled.
    pub fn disable_after(mut self, after: Duration) -> Retry {
        self.disable_after = after;
        self
    }

    /// The number of attempts an event gets, the first included.
    pub fn attempts(&self) -> usize {
        self.waits.len() + 1
    }

    /// The wait after failed attempt `attempt` (1-based): the schedule's, jittered by ±20 %, or the receiver's
    /// `Retry-After` when it asks for longer (at most an hour); `None` when the schedule is spent.
    pub(super) fn wait(&self, attempt: usize, retry_after: Option<Duration>) -> Option<Duration> {
        let planned = *self.waits.get(attempt.checked_sub(1)?)?;
        let jitter = (uuid::Uuid::new_v4().as_u128() % 401) as f64 / 1000.0 - 0.2;
        let jittered = planned.mul_f64(1.0 + jitter);
        let asked = retry_after.map(|asked| asked.min(Duration::from_secs(3600))).unwrap_or_default();
        Some(jittered.max(asked))
    }
}

/// Whether a receiver's status asks for another attempt: 408, 429 and 5xx do; any other 4xx does not (the receiver
/// refused this message, sending it again would not help).
pub(super) fn retryable(status: u16) -> bool {
    status == 408 || status == 429 || status >= 500
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_are_jittered_and_end() {
        let retry = Retry::new(vec![Duration::from_secs(10)]);
        for _ in 0..100 {
            let wait = retry.wait(1, None).expect("one retry");
            assert!(wait >= Duration::from_secs(8) && wait <= Duration::from_secs(12), "{wait:?}");
        }
        assert_eq!(retry.wait(2, None), None);
        assert_eq!(retry.wait(0, None), None);
        assert_eq!(retry.wait(1, Some(Duration::from_secs(60))), Some(Duration::from_secs(60)));
        assert!(retryable(429) && retryable(408) && retryable(503) && !retryable(400) && !retryable(410));
    }
}
