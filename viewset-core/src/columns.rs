//! Finding an entity's columns by name at run time.

use sea_orm::{EntityTrait, IdenStatic, Iterable};

/// The column called `name`.
pub fn column<E: EntityTrait>(name: &str) -> Option<E::Column> {
    E::Column::iter().find(|c| c.as_str() == name)
}

/// Every column name, in declaration order.
pub fn column_names<E: EntityTrait>() -> Vec<&'static str> {
    E::Column::iter().map(|c| c.as_str()).collect()
}
