//! `posts`: a title of at most 200 characters, a body, flags and counters, an author, a server-set time and an
//! optional unique slug (the key of the posts' upsert); tags through `post_tags`.

use sea_orm::ActiveValue::Set;
use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};
use viewset_core::ModelSchema;

/// A blog post.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
#[sea_orm(table_name = "posts")]
pub struct Model {
    /// Primary key.
    #[sea_orm(primary_key)]
    pub id: i32,
    /// Title, at most 200 characters.
    #[sea_orm(column_type = "String(StringLen::N(200))")]
    pub title: String,
    /// Body text.
    #[sea_orm(column_type = "Text")]
    pub body: String,
    /// Published flag (default false).
    #[sea_orm(default_value = false)]
    pub published: bool,
    /// View counter (default 0).
    #[sea_orm(default_value = 0)]
    pub views: i32,
    /// Optional rating.
    pub rating: Option<f64>,
    /// The author.
    pub author_id: i32,
    /// Creation time, set by the server.
    #[viewset(read_only)]
    pub created_at: DateTimeUtc,
    /// Optional, unique: what `POST /api/posts/?on_conflict=slug` upserts by.
    #[sea_orm(unique, column_type = "String(StringLen::N(100))", nullable)]
    pub slug: Option<String>,
}

/// Relations of a post.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    /// The post's author.
    #[sea_orm(belongs_to = "super::author::Entity", from = "Column::AuthorId", to = "super::author::Column::Id")]
    Author,
}

impl Related<super::author::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Author.def()
    }
}

/// Posts and tags through `post_tags` (many-to-many: `relations(tags = tag::Entity)` on `PostViewSet`).
impl Related<super::tag::Entity> for Entity {
    fn to() -> RelationDef {
        super::post_tag::Relation::Tag.def()
    }
    fn via() -> Option<RelationDef> {
        Some(super::post_tag::Relation::Post.def().rev())
    }
}

#[async_trait::async_trait]
impl ActiveModelBehavior for ActiveModel {
    /// The server owns `created_at`: it is stamped on insert, whatever the client sent.
    async fn before_save<C>(mut self, _db: &C, insert: bool) -> Result<Self, DbErr>
    where
        C: ConnectionTrait,
    {
        if insert {
            self.created_at = Set(chrono::Utc::now());
        }
        Ok(self)
    }
}
