//! A relation followed to the ViewSet registered for its table: shared by `?expand=` and related-field filters.

use sea_orm::sea_query::{DynIden, TableRef};
use sea_orm::{Identity, RelationDef, RelationType};

use crate::request::embedders::{Embedder, Embedders};

/// A relation followed from its model: its two tables and single columns, and the ViewSet serving the related table.
/// Shared by `?expand=` and related-field filters, each wording its own 422s.
pub(crate) struct Hop {
    pub from_table: DynIden,
    pub from_col: DynIden,
    pub to_table: DynIden,
    pub to_col: DynIden,
    /// Has-many (the related side holds the key).
    pub many: bool,
    pub target: Embedder,
}

/// Why a relation cannot be followed here.
pub(crate) enum HopError {
    /// No registered ViewSet serves this table.
    Unserved(String),
    /// A relation over several columns.
    Composite,
}

impl Hop {
    /// `def` as followed through `embedders`.
    pub(crate) fn of(def: &RelationDef, embedders: Option<&Embedders>) -> Result<Hop, HopError> {
        let table = |t: &TableRef| match t {
            TableRef::Table(name, _) => Some(name.1.clone()),
            _ => None,
        };
        let single = |i: &Identity| match i {
            Identity::Unary(column) => Some(column.clone()),
            _ => None,
        };
        let to_table = table(&def.to_tbl);
        let name = to_table.as_ref().map(ToString::to_string).unwrap_or_default();
        let target = *embedders.and_then(|e| e.for_table(&name)).ok_or(HopError::Unserved(name))?;
        match (table(&def.from_tbl), to_table, single(&def.from_col), single(&def.to_col)) {
            (Some(from_table), Some(to_table), Some(from_col), Some(to_col)) => {
                Ok(Hop { from_table, from_col, to_table, to_col, many: def.rel_type == RelationType::HasMany, target })
            }
            _ => Err(HopError::Composite),
        }
    }
}
