use viewset_core::prelude::*;
// One error per ViewSet, at its model path, allowlists or not: every use of `ModelSchema` in the expansion is spelt at
// that token, so rustc reports the unmet bound once (it was three, two of them at `ModelViewSet`, and one more per
// search field).

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

#[derive(ModelViewSet)]
#[viewset(
    model = note::Entity,
    prefix = "/api/titled-notes",
    lookup_field = "title",
    filter_backends = [ServiceFilterBackend, SearchFilter, OrderingFilter],
    filterable_fields = ["id"],
    search_fields = ["title"],
    ordering_fields = ["title"]
)]
pub struct TitledNoteViewSet;

fn main() {}
