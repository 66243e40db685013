//! `tags`: id and a unique name of at most 50 characters. A post has tags through `post_tags`.

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};
use viewset_core::ModelSchema;

/// A tag.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
#[sea_orm(table_name = "tags")]
pub struct Model {
    /// Primary key.
    #[sea_orm(primary_key)]
    pub id: i32,
    /// Unique name, at most 50 characters.
    #[sea_orm(unique, column_type = "String(StringLen::N(50))")]
    pub name: String,
}

/// Relations of a tag.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    /// The tag's links to posts.
    #[sea_orm(has_many = "super::post_tag::Entity")]
    PostTags,
}

/// Tags and posts through `post_tags`.
impl Related<super::post::Entity> for Entity {
    fn to() -> RelationDef {
        super::post_tag::Relation::Post.def()
    }
    fn via() -> Option<RelationDef> {
        Some(super::post_tag::Relation::Tag.def().rev())
    }
}

impl Related<super::post_tag::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::PostTags.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
