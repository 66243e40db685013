//! The process-wide caches of what is built once per type and backend (a lookup's or a write's statement, a
//! list's `ORDER BY` text, an entity's pre-rendered column list, its field names): one map behind a read-write lock, made on first
//! use. Their keys are type ids and enum values, not caller input, so a fixed-seed hasher serves them (std's SipHash
//! cost 270 instructions a lookup), and a poisoned lock is read through: an entry is only ever inserted whole.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{OnceLock, PoisonError, RwLock, RwLockReadGuard};

type Map<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// A cache for a `static`: `static CACHE: Memo<Key, Value> = Memo::new();`.
pub(crate) struct Memo<K, V>(OnceLock<RwLock<Map<K, V>>>);

impl<K: Eq + Hash, V> Memo<K, V> {
    /// An empty cache; its map is allocated on first use.
    pub(crate) const fn new() -> Self {
        Memo(OnceLock::new())
    }

    fn lock(&self) -> &RwLock<Map<K, V>> {
        self.0.get_or_init(|| RwLock::new(Map::default()))
    }

    /// The entries, for reading (hold the guard only as long as the lookup).
    pub(crate) fn read(&self) -> RwLockReadGuard<'_, Map<K, V>> {
        self.lock().read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds or replaces the entry of `key`.
    pub(crate) fn insert(&self, key: K, value: V) {
        self.lock().write().unwrap_or_else(PoisonError::into_inner).insert(key, value);
    }
}

#[cfg(test)]
mod tests {
    use super::Memo;

    #[test]
    fn entries_are_kept_per_key() {
        static CACHE: Memo<(u8, u8), &str> = Memo::new();
        assert!(CACHE.read().get(&(1, 2)).is_none());
        CACHE.insert((1, 2), "a");
        CACHE.insert((2, 1), "b");
        assert_eq!(CACHE.read().get(&(1, 2)), Some(&"a"));
        CACHE.insert((1, 2), "c");
        assert_eq!(CACHE.read().get(&(1, 2)), Some(&"c"));
        assert_eq!(CACHE.read().get(&(2, 1)), Some(&"b"));
    }
}
