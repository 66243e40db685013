mod reading {
    use sea_orm::entity::prelude::*;
    use serde::{Deserialize, Serialize};
    use viewset_core::ModelSchema;

    // A mistaken field option does not hide the other field's mistake: both are reported in one build.
    #[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
    #[sea_orm(table_name = "readings")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i32,
        #[viewset(max_lenght = 20)]
        pub label: String,
        pub sensor_2: f64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

fn main() {}
