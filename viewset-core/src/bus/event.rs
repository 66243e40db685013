//! One lifecycle event, as carried between processes (built from a record in `record.rs`).

use serde::{Deserialize, Serialize};

/// What happened to a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Action {
    /// Inserted.
    Created,
    /// Changed.
    Updated,
    /// Removed.
    Deleted,
}

impl Action {
    /// The SSE event name.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Created => "created",
            Action::Updated => "updated",
            Action::Deleted => "deleted",
        }
    }
}

/// A change of one record, as carried between processes: the table, the action, the primary key and (for
/// deletes) the last state of the row, which visibility checks need once the row is gone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChangeEvent {
    /// Table name.
    pub table: String,
    /// What happened.
    pub action: Action,
    /// Primary key (an array for composite keys).
    pub pk: serde_json::Value,
    /// The deleted row (deletes only), for checking who could see it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<serde_json::Value>,
}
