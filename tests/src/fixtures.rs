//! A small model for compile tests: text, number, bool and nullable columns.

/// `articles`: id, title, body, views, published, rating, slug.
pub mod article {
    use sea_orm::entity::prelude::*;
    use serde::{Deserialize, Serialize};
    use viewset_core::ModelSchema;

    /// An article.
    #[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
    #[sea_orm(table_name = "articles")]
    pub struct Model {
        /// Primary key.
        #[sea_orm(primary_key)]
        pub id: i32,
        /// Title.
        pub title: String,
        /// Body.
        pub body: String,
        /// Views.
        #[sea_orm(default_value = 0)]
        pub views: i32,
        /// Published flag.
        #[sea_orm(default_value = false)]
        pub published: bool,
        /// Optional rating.
        pub rating: Option<f64>,
        /// Unique slug.
        #[sea_orm(unique)]
        pub slug: String,
    }

    /// No relations.
    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
