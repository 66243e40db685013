use sea_orm::{DbBackend, QueryFilter, QuerySelect, QueryTrait, Select, Values};

use super::*;

mod note {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "notes")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i32,
        pub title: String,
        pub rank: Option<i32>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

use note::{Column, Entity};

fn term(column: Column, direction: Direction) -> OrderTerm<Entity> {
    OrderTerm { column, direction, computed: None }
}

/// The values every shape of cursor binds are the ones sea-query binds, in its order: the kept text of each shape
/// is then used (`store::keyset` keeps none where they differ).
#[test]
fn the_listed_values_are_sea_querys_for_every_shape() {
    use Direction::{Asc, Desc};
    let orders = [
        vec![term(Column::Id, Desc)],
        vec![term(Column::Title, Asc), term(Column::Id, Asc)],
        vec![term(Column::Rank, Desc), term(Column::Id, Desc)],
        vec![term(Column::Rank, Asc), term(Column::Title, Desc), term(Column::Id, Asc)],
    ];
    let value = |column: Column, null: bool| match column {
        _ if null => None,
        Column::Title => Some(Value::String(Some("b".into()))),
        _ => Some(Value::Int(Some(7))),
    };
    for backend in [DbBackend::Postgres, DbBackend::Sqlite, DbBackend::MySql] {
        for order in &orders {
            let page = |select: Select<Entity>, backwards| apply_order(select, order, backwards).limit(21);
            for backwards in [false, true] {
                let first = page(Entity::find(), backwards).build(backend);
                assert_eq!(first.values, Some(Values(bound(order, None, backwards, 21))));
                for nulls in 0..(1u32 << order.len()) {
                    let values: Vec<_> =
                        order.iter().enumerate().map(|(i, t)| value(t.column, nulls & (1 << i) != 0)).collect();
                    let select = Entity::find().filter(after(order, &values, backwards));
                    let rendered = page(select, backwards).build(backend);
                    let listed = bound(order, Some(&values), backwards, 21);
                    assert_eq!(rendered.values, Some(Values(listed)), "{backend:?} {} {nulls:b}", rendered.sql);
                }
            }
        }
    }
}

#[test]
fn shapes_differ_by_direction_and_by_null_values() {
    let (one, null) = (Some(Value::Int(Some(1))), None);
    let shapes = [
        shape(None, false),
        shape(Some(&[one.clone(), one.clone()]), false),
        shape(Some(&[one.clone(), one.clone()]), true),
        shape(Some(&[null.clone(), one.clone()]), false),
        shape(Some(&[one.clone(), null.clone()]), false),
        shape(Some(&[null.clone(), null]), true),
    ];
    for (i, a) in shapes.iter().enumerate() {
        assert!(shapes[i + 1..].iter().all(|b| a != b), "{shapes:?}");
    }
}
