//! Where the buckets live: this process ([`Memory`](super::memory::Memory)) or Redis, shared by every instance.

use std::sync::Arc;
use std::time::Duration;

use super::declared::Rule;
use super::memory::Memory;

/// What one rule decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Counted: `remaining` more requests now, the whole budget back after `reset`.
    Allowed { remaining: u32, reset: Duration },
    /// Refused: the next request is admitted after `retry_after`.
    Denied { retry_after: Duration },
}

/// The store of an application's buckets.
#[derive(Debug, Clone)]
pub(crate) enum Buckets {
    Memory(Arc<Memory>),
    #[cfg(feature = "redis")]
    Redis(Arc<super::redis::RedisBuckets>),
}

impl Buckets {
    /// Counts a request against `rules` in order, up to the first that refuses it; an error when the store
    /// cannot be asked (Redis unreachable or slower than its timeout).
    pub(crate) async fn check(&self, rules: &[Rule]) -> Result<Vec<Outcome>, String> {
        match self {
            Buckets::Memory(memory) => Ok(memory.check(rules)),
            #[cfg(feature = "redis")]
            Buckets::Redis(redis) => redis.check(rules).await,
        }
    }

    /// `memory` or `redis`, for logs.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Buckets::Memory(_) => "memory",
            #[cfg(feature = "redis")]
            Buckets::Redis(_) => "redis",
        }
    }
}
