//! The buckets of one process: governor's GCRA, one keyed limiter per rate.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};

use super::bucket::Outcome;
use super::declared::Rule;
use super::rate::Rate;

type Limiter = RateLimiter<String, DefaultKeyedStateStore<String>, DefaultClock, StateInformationMiddleware>;

/// Checks between two sweeps of buckets that are full again (governor's `retain_recent`).
const SWEEP_EVERY: u64 = 4096;

/// In-process buckets: a limiter per distinct rate, each keyed by the rule's key.
#[derive(Debug, Default)]
pub(crate) struct Memory {
    /// Read on every check, written once per new rate: readers do not wait for each other.
    limiters: RwLock<HashMap<Rate, Arc<Limiter>>>,
    checks: AtomicU64,
}

impl Memory {
    fn limiter(&self, rate: Rate) -> Arc<Limiter> {
        if let Some(limiter) = self.limiters.read().unwrap_or_else(PoisonError::into_inner).get(&rate) {
            return limiter.clone();
        }
        let mut limiters = self.limiters.write().unwrap_or_else(PoisonError::into_inner);
        limiters
            .entry(rate)
            .or_insert_with(|| {
                Arc::new(RateLimiter::keyed(quota(rate)).with_middleware::<StateInformationMiddleware>())
            })
            .clone()
    }

    /// Counts the request against each rule in turn, up to the first that refuses it.
    pub(crate) fn check(&self, rules: &[Rule]) -> Vec<Outcome> {
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.sweep();
        }
        let mut outcomes = Vec::with_capacity(rules.len());
        for rule in rules {
            let limiter = self.limiter(rule.rate);
            match limiter.check_key(&rule.key) {
                Ok(state) => {
                    let remaining = state.remaining_burst_capacity();
                    let reset = rule.rate.interval() * (rule.rate.count - remaining.min(rule.rate.count));
                    outcomes.push(Outcome::Allowed { remaining, reset });
                }
                Err(not_until) => {
                    outcomes.push(Outcome::Denied { retry_after: not_until.wait_time_from(limiter.clock().now()) });
                    break;
                }
            }
        }
        outcomes
    }

    /// Forgets the buckets that are full again (a caller who waited its window out), so memory follows the
    /// callers of the last window rather than every caller ever seen.
    fn sweep(&self) {
        let limiters: Vec<_> = self.limiters.read().unwrap_or_else(PoisonError::into_inner).values().cloned().collect();
        for limiter in limiters {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
    }
}

/// The GCRA quota of `rate`: a burst of `count`, one cell back every `period / count`.
fn quota(rate: Rate) -> Quota {
    let burst = NonZeroU32::new(rate.count.max(1)).expect("at least 1");
    Quota::with_period(rate.interval()).expect("a rate's interval is above zero").allow_burst(burst)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::throttle::rate::Period;

    #[test]
    fn a_burst_of_count_then_refusals_with_a_wait() {
        let memory = Memory::default();
        let rule = Rule { policy: "anon", rate: Rate::new(3, Period::Minute), key: "k".into() };
        let remaining: Vec<_> = (0..3)
            .map(|_| match memory.check(std::slice::from_ref(&rule))[..] {
                [Outcome::Allowed { remaining, .. }] => remaining,
                ref other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(remaining, [2, 1, 0]);
        match memory.check(std::slice::from_ref(&rule))[..] {
            [Outcome::Denied { retry_after }] => assert!(retry_after.as_secs() >= 19 && retry_after.as_secs() <= 20),
            ref other => panic!("{other:?}"),
        }
        let other = Rule { key: "other".into(), ..rule };
        assert!(matches!(memory.check(&[other])[..], [Outcome::Allowed { remaining: 2, .. }]), "another caller");
    }
}
