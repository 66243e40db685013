//! Finding an entity's columns by model field name at run time.
//!
//! Allowlists, query parameters and JSON bodies speak the model's field names; SQL speaks column names. They differ
//! when a field is renamed with `#[sea_orm(column_name = "...")]`. A column's field name is the snake case of its
//! `Column` variant, exactly as sea-orm's `DeriveEntityModel` derives the variant from the field (and as its
//! `Column::from_str` accepts it).

use std::any::TypeId;

use heck::ToSnakeCase;
use sea_orm::{EntityTrait, IdenStatic, Iterable};

use crate::memo::Memo;

/// The column of the model field `name`.
pub fn column<E: EntityTrait>(name: &str) -> Option<E::Column> {
    // Loops, not iterator chains, in this module: adapters over closures are compiled again for every entity.
    E::Column::iter().nth(position(field_names::<E>(), name)?)
}

/// Where `name` is in `names`. Not a closure of a generic function, which is compiled again for every entity.
fn position(names: &[&str], name: &str) -> Option<usize> {
    names.iter().position(|field| *field == name)
}

/// The column of `E` named `name` in the database.
#[allow(clippy::manual_find)] // `find` takes a closure: compiled again for every entity.
pub(crate) fn column_named<E: EntityTrait>(name: &str) -> Option<E::Column> {
    for column in E::Column::iter() {
        if column.as_str() == name {
            return Some(column);
        }
    }
    None
}

/// The model field name of `column`.
pub fn field_name<E: EntityTrait>(column: E::Column) -> &'static str {
    let names = field_names::<E>();
    for (position, each) in E::Column::iter().enumerate() {
        if each.as_str() == column.as_str() {
            return names.get(position).copied().unwrap_or(column.as_str());
        }
    }
    column.as_str()
}

/// Every model field name, in declaration order.
pub fn column_names<E: EntityTrait>() -> Vec<&'static str> {
    field_names::<E>().to_vec()
}

/// The field names of `E`'s columns, in declaration order: worked out once per entity and kept (a cursor page asks
/// for them five times: the cache's fixed-seed hash, not std's SipHash).
pub(crate) fn field_names<E: EntityTrait>() -> &'static [&'static str] {
    static NAMES: Memo<TypeId, &'static [&'static str]> = Memo::new();
    let key = TypeId::of::<E>();
    if let Some(found) = NAMES.read().get(&key) {
        return found;
    }
    let mut computed: Vec<&'static str> = Vec::new();
    for column in E::Column::iter() {
        let field = format!("{column:?}").to_snake_case();
        // Unrenamed columns (the usual case) keep their static name; renamed ones get theirs once per entity.
        computed.push(if field == column.as_str() { column.as_str() } else { Box::leak(field.into_boxed_str()) });
    }
    let computed: &'static [&'static str] = Box::leak(computed.into_boxed_slice());
    NAMES.insert(key, computed);
    computed
}

#[cfg(test)]
mod tests {
    use sea_orm::IdenStatic;

    mod post {
        use sea_orm::entity::prelude::*;

        #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
        #[sea_orm(table_name = "posts")]
        pub struct Model {
            #[sea_orm(primary_key)]
            pub id: i32,
            #[sea_orm(column_name = "title")]
            pub headline: String,
            #[sea_orm(column_name = "author_id")]
            pub writer_id: i32,
            pub views: i32,
        }

        #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
        pub enum Relation {}

        impl ActiveModelBehavior for ActiveModel {}
    }

    #[test]
    fn field_names_map_to_column_names() {
        assert_eq!(super::column::<post::Entity>("headline").map(|c| c.as_str()), Some("title"));
        assert_eq!(super::column::<post::Entity>("writer_id").map(|c| c.as_str()), Some("author_id"));
        assert_eq!(super::column::<post::Entity>("views").map(|c| c.as_str()), Some("views"));
        assert!(super::column::<post::Entity>("title").is_none(), "a column name is not a field name");
        assert!(super::column::<post::Entity>("writerId").is_none());
        assert_eq!(super::column_names::<post::Entity>(), ["id", "headline", "writer_id", "views"]);
        assert_eq!(super::field_name::<post::Entity>(post::Column::Headline), "headline");
    }
}
