//! One lifecycle event.

use sea_orm::{EntityName, EntityTrait, IdenStatic, Iterable, PrimaryKeyToColumn};
use serde::{Deserialize, Serialize};

use crate::{ModelOf, ViewSet};

/// What happened to a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
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

impl ChangeEvent {
    /// The event of `record` for `V`.
    pub fn of<V: ViewSet>(action: Action, record: &ModelOf<V>) -> Self {
        let json = serde_json::to_value(record).unwrap_or_default();
        let mut keys: Vec<serde_json::Value> = <V::Entity as EntityTrait>::PrimaryKey::iter()
            .map(|k| json.get(k.into_column().as_str()).cloned().unwrap_or_default())
            .collect();
        let pk = if keys.len() == 1 { keys.remove(0) } else { serde_json::Value::Array(keys) };
        ChangeEvent {
            table: V::Entity::default().table_name().to_string(),
            action,
            pk,
            snapshot: (action == Action::Deleted).then_some(json),
        }
    }
}
