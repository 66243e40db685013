//! Adds `posts.slug`: optional and unique (a unique index, which holds any number of `NULL`s on SQLite and
//! PostgreSQL), the key the posts' upsert names (`upsert_keys = ["slug"]`).

use sea_orm_migration::{prelude::*, schema::*};

/// Adds `slug` and its unique index `posts_slug`.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let column = string_len_null("slug", 100);
        manager.alter_table(Table::alter().table("posts").add_column(column).to_owned()).await?;
        let index = Index::create().name("posts_slug").table("posts").col("slug").unique().to_owned();
        manager.create_index(index).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_index(Index::drop().name("posts_slug").table("posts").to_owned()).await?;
        manager.alter_table(Table::alter().table("posts").drop_column("slug").to_owned()).await
    }
}
