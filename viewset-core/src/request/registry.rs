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
    /// Has-many (the related side holds the key), or many-to-many.
    pub many: bool,
    pub target: Embedder,
    /// A many-to-many relation's join table: then `from_*` is this model's key and `to_*` the related model's.
    pub junction: Option<Junction>,
}

/// A many-to-many relation's join table (`post_tags`) and its two columns: the one holding this model's key
/// (`post_id`) and the one holding the related model's (`tag_id`).
#[derive(Debug, Clone)]
pub(crate) struct Junction {
    pub table: DynIden,
    pub parent: DynIden,
    pub child: DynIden,
}

/// Why a relation cannot be followed here.
pub(crate) enum HopError {
    /// No registered ViewSet serves this table.
    Unserved(String),
    /// A relation over several columns.
    Composite,
}

impl Hop {
    /// `def` as followed through `embedders`; with `via` (sea-orm's `Related::via`), a many-to-many relation: `via`
    /// from this model to the join table, then `def` from the join table to the related model.
    pub(crate) fn of(
        def: &RelationDef,
        via: Option<RelationDef>,
        embedders: Option<&Embedders>,
    ) -> Result<Hop, HopError> {
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
        if let Some(via) = via {
            let junction = match (table(&via.to_tbl), single(&via.to_col), single(&def.from_col)) {
                (Some(table), Some(parent), Some(child)) => Junction { table, parent, child },
                _ => return Err(HopError::Composite),
            };
            return match (table(&via.from_tbl), to_table, single(&via.from_col), single(&def.to_col)) {
                (Some(from_table), Some(to_table), Some(from_col), Some(to_col)) => {
                    Ok(Hop { from_table, from_col, to_table, to_col, many: true, target, junction: Some(junction) })
                }
                _ => Err(HopError::Composite),
            };
        }
        match (table(&def.from_tbl), to_table, single(&def.from_col), single(&def.to_col)) {
            (Some(from_table), Some(to_table), Some(from_col), Some(to_col)) => {
                let many = def.rel_type == RelationType::HasMany;
                Ok(Hop { from_table, from_col, to_table, to_col, many, target, junction: None })
            }
            _ => Err(HopError::Composite),
        }
    }
}
