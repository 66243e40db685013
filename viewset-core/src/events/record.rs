//! The [`ChangeEvent`] of one record of a ViewSet: its primary key as the record's JSON shows it, and for deletes
//! the last state of the row.

use sea_orm::{EntityName, EntityTrait, Iterable, ModelTrait, PrimaryKeyToColumn, Value};

use crate::bus::event::{Action, ChangeEvent};
use crate::contract::viewset::{ModelOf, ViewSet};
use crate::types::columns::field_name;

impl ChangeEvent {
    /// The event of `record` for `V`.
    pub fn of<V: ViewSet>(action: Action, record: &ModelOf<V>) -> Self {
        let (pk, snapshot) = if action == Action::Deleted {
            // Deletes carry the whole row, and the key is read from it.
            let json = serde_json::to_value(record).unwrap_or_default();
            (key_from_json::<V>(&json), Some(json))
        } else {
            (primary_key_json::<V>(record), None)
        };
        ChangeEvent { table: V::Entity::default().table_name().to_string(), action, pk, snapshot }
    }
}

/// The primary key of a record as JSON (an array for composite keys), as the record's JSON shows it.
///
/// Integer and text keys are read column by column; any other key type (a UUID, a date) takes the record's own
/// serialization so the value is the same as in response bodies.
fn primary_key_json<V: ViewSet>(record: &ModelOf<V>) -> serde_json::Value {
    // A loop, not an iterator chain: adapters over closures are compiled again for every ViewSet.
    let mut keys = Vec::new();
    for key in <V::Entity as EntityTrait>::PrimaryKey::iter() {
        match plain_json(record.get(key.into_column())) {
            Some(value) => keys.push(value),
            None => return key_from_json::<V>(&serde_json::to_value(record).unwrap_or_default()),
        }
    }
    one_or_array(keys)
}

/// A key value whose JSON form does not depend on the model's serializer.
fn plain_json(value: Value) -> Option<serde_json::Value> {
    Some(match value {
        Value::TinyInt(Some(v)) => v.into(),
        Value::SmallInt(Some(v)) => v.into(),
        Value::Int(Some(v)) => v.into(),
        Value::BigInt(Some(v)) => v.into(),
        Value::TinyUnsigned(Some(v)) => v.into(),
        Value::SmallUnsigned(Some(v)) => v.into(),
        Value::Unsigned(Some(v)) => v.into(),
        Value::BigUnsigned(Some(v)) => v.into(),
        Value::String(Some(v)) => v.into(),
        _ => return None,
    })
}

fn key_from_json<V: ViewSet>(json: &serde_json::Value) -> serde_json::Value {
    let mut keys = Vec::new();
    for key in <V::Entity as EntityTrait>::PrimaryKey::iter() {
        keys.push(json.get(field_name::<V::Entity>(key.into_column())).cloned().unwrap_or_default());
    }
    one_or_array(keys)
}

/// A single key as itself, a composite key as an array.
fn one_or_array(mut keys: Vec<serde_json::Value>) -> serde_json::Value {
    if keys.len() == 1 { keys.remove(0) } else { serde_json::Value::Array(keys) }
}
