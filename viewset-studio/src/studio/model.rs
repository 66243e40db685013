//! `ModelEntry`: one model as Studio describes it (schema checksum, context summary).

use sea_orm::{ColumnTrait, EntityTrait, IdenStatic, Iterable, PrimaryKeyToColumn, RelationTrait};
use serde_json::{Value, json};

/// One model as Studio describes it.
///
/// ```
/// use sea_orm::entity::prelude::*;
///
/// #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
/// #[sea_orm(table_name = "tags")]
/// pub struct Model {
///     #[sea_orm(primary_key)]
///     pub id: i32,
///     pub label: String,
/// }
/// #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
/// pub enum Relation {}
/// impl ActiveModelBehavior for ActiveModel {}
///
/// let entry = viewset_studio::ModelEntry::of::<Entity>("Tag");
/// assert_eq!(entry.table_name, "tags");
/// assert_eq!(entry.fields.len(), 2);
/// assert_eq!(entry.fields[0]["primary_key"], true);
/// assert!(entry.relations.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ModelEntry {
    /// The model's name (`Post`).
    pub name: String,
    /// Its table.
    pub table_name: String,
    /// Column name, type, nullability, uniqueness and primary-key flag of each column.
    pub fields: Vec<Value>,
    /// Relation names (`Author`, ...).
    pub relations: Vec<String>,
    /// Each relation's kind, tables and columns (for `/ai/context/full`; not part of the schema checksum).
    pub relation_details: Vec<Value>,
}

impl ModelEntry {
    /// Describes entity `E` under `name`.
    pub fn of<E: EntityTrait>(name: &str) -> Self {
        let primary: Vec<&'static str> = E::PrimaryKey::iter().map(|k| k.into_column().as_str()).collect();
        let fields = E::Column::iter()
            .map(|column| {
                let def = column.def();
                json!({
                    "name": column.as_str(),
                    "type": format!("{:?}", def.get_column_type()),
                    "nullable": def.is_null(),
                    "unique": def.is_unique(),
                    "primary_key": primary.contains(&column.as_str()),
                })
            })
            .collect();
        ModelEntry {
            name: name.to_string(),
            table_name: E::default().table_name().to_string(),
            fields,
            relations: E::Relation::iter().map(|r| format!("{r:?}")).collect(),
            relation_details: E::Relation::iter()
                .map(|r| {
                    let def = r.def();
                    json!({
                        "name": format!("{r:?}"),
                        "type": format!("{:?}", def.rel_type),
                        "from_table": format!("{:?}", def.from_tbl),
                        "to_table": format!("{:?}", def.to_tbl),
                        "from_columns": format!("{:?}", def.from_col),
                        "to_columns": format!("{:?}", def.to_col),
                    })
                })
                .collect(),
        }
    }

    /// The entry with its relations' details, as `/ai/context/full` shows it.
    pub(crate) fn to_full_json(&self) -> Value {
        let mut entry = self.to_json();
        entry["relations"] = Value::Array(self.relation_details.clone());
        entry
    }

    /// The entry as hashed by `schema_checksum`.
    pub(crate) fn to_json(&self) -> Value {
        json!({"name": self.name, "table_name": self.table_name, "fields": self.fields, "relations": self.relations})
    }
}
