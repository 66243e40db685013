//! `post_tags`: the join table of posts and tags. The pair is the primary key, so a tag is linked to a post once;
//! deleting a post or a tag deletes its links.

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};
use viewset_core::ModelSchema;

/// A post's tag.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
#[sea_orm(table_name = "post_tags")]
pub struct Model {
    /// The post.
    #[sea_orm(primary_key, auto_increment = false)]
    pub post_id: i32,
    /// The tag.
    #[sea_orm(primary_key, auto_increment = false)]
    pub tag_id: i32,
}

/// Relations of a link: its post and its tag.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    /// The tagged post.
    #[sea_orm(belongs_to = "super::post::Entity", from = "Column::PostId", to = "super::post::Column::Id")]
    Post,
    /// The tag.
    #[sea_orm(belongs_to = "super::tag::Entity", from = "Column::TagId", to = "super::tag::Column::Id")]
    Tag,
}

impl Related<super::post::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Post.def()
    }
}

impl Related<super::tag::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Tag.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
