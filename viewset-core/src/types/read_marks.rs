//! Which pairs of a query string some reader asked for: after the list's query is built, a filter-shaped
//! parameter nobody read is refused rather than silently ignored (`query/unread.rs`).

use std::sync::atomic::{AtomicU64, Ordering};

/// One bit per decoded pair: the first 64 inline (no allocation for the common query string), the rest boxed.
#[derive(Debug, Default)]
pub(crate) struct ReadMarks {
    first: AtomicU64,
    rest: Box<[AtomicU64]>,
}

impl ReadMarks {
    /// Room for `pairs` marks, none set.
    pub(crate) fn new(pairs: usize) -> Self {
        let words = pairs.saturating_sub(64).div_ceil(64);
        ReadMarks { first: AtomicU64::new(0), rest: (0..words).map(|_| AtomicU64::new(0)).collect() }
    }

    fn word(&self, index: usize) -> Option<&AtomicU64> {
        match index / 64 {
            0 => Some(&self.first),
            n => self.rest.get(n - 1),
        }
    }

    /// Marks pair `index` as read.
    pub(crate) fn mark(&self, index: usize) {
        if let Some(word) = self.word(index) {
            word.fetch_or(1 << (index % 64), Ordering::Relaxed);
        }
    }

    /// Whether pair `index` was read.
    pub(crate) fn is_marked(&self, index: usize) -> bool {
        self.word(index).is_some_and(|word| word.load(Ordering::Relaxed) & (1 << (index % 64)) != 0)
    }
}

impl Clone for ReadMarks {
    fn clone(&self) -> Self {
        let copy = |word: &AtomicU64| AtomicU64::new(word.load(Ordering::Relaxed));
        ReadMarks { first: copy(&self.first), rest: self.rest.iter().map(copy).collect() }
    }
}

#[cfg(test)]
mod tests {
    use super::ReadMarks;

    #[test]
    fn marks_past_the_inline_word() {
        let marks = ReadMarks::new(200);
        for index in [0, 63, 64, 130, 199] {
            assert!(!marks.is_marked(index));
            marks.mark(index);
            assert!(marks.is_marked(index));
        }
        assert!(!marks.is_marked(1) && !marks.is_marked(65));
        let copy = marks.clone();
        assert!(copy.is_marked(199) && !copy.is_marked(198));
        marks.mark(10_000);
        assert!(!marks.is_marked(10_000));
    }
}
