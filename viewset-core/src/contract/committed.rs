//! What an after-commit hook is told: one committed row of a write ([`crate::Hooks::after_commit`]).

/// One row a committed write created, updated or deleted, as [`crate::Hooks::after_commit`] receives it.
///
/// ```
/// use viewset_core::viewset::Committed;
/// let change = Committed::Updated { previous: "draft", record: "published" };
/// assert_eq!(change.record(), &"published");
/// assert_eq!(change.action(), "updated");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Committed<M> {
    /// A created record, as it was inserted.
    Created(M),
    /// An updated record: as the caller's write found it (read in the write's transaction), and as written.
    Updated {
        /// Before the write.
        previous: M,
        /// After it.
        record: M,
    },
    /// A deleted record, its last state.
    Deleted(M),
}

impl<M> Committed<M> {
    /// The record as the write left it (a deleted record's last state).
    pub fn record(&self) -> &M {
        match self {
            Committed::Created(record) | Committed::Updated { record, .. } | Committed::Deleted(record) => record,
        }
    }

    /// `created`, `updated` or `deleted`, as the stream's events name it.
    pub fn action(&self) -> &'static str {
        match self {
            Committed::Created(_) => "created",
            Committed::Updated { .. } => "updated",
            Committed::Deleted(_) => "deleted",
        }
    }
}
