use viewset_core::prelude::*;
// Today: three errors of the same message, one at the model path and two at `ModelViewSet` (issue 46 asks for one,
// at the model path; not done yet). This file records the reviewed current output.

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
