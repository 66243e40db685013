use viewset_core::prelude::*;

mod edition {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
    #[sea_orm(table_name = "editions")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i32,
        pub format: String,
        pub count: i32,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

// `format` and `count` are reserved query names: as filters they would collide with the framework's parameters.
#[derive(ModelViewSet)]
#[viewset(model = edition::Entity, filter_backends = [ServiceFilterBackend], filterable_fields = ["id", "format", "count"])]
pub struct EditionViewSet;

fn main() {}
