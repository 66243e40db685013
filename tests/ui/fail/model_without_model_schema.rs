use viewset_core::prelude::*;
// One error, at the model path: every use of `ModelSchema` in the expansion is spelt at that token, so rustc reports
// the unmet bound once (it was three, two of them at `ModelViewSet`).

mod note {
    use sea_orm::entity::prelude::*;

    // No `viewset_core::ModelSchema` in the derives.
    #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
    #[sea_orm(table_name = "notes")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i32,
        pub title: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

#[derive(ModelViewSet)]
#[viewset(model = note::Entity, prefix = "/api/notes")]
pub struct NoteViewSet;

fn main() {}
