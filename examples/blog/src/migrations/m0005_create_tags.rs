//! Creates `tags` and the join table `post_tags`: a post's tags, each pair once (the pair is the primary key), the
//! links deleted with their post or their tag.

use sea_orm_migration::{prelude::*, schema::*};

/// Creates `tags` (id, unique name) and `post_tags` (post, tag; the pair the key; an index on `tag_id`).
#[derive(DeriveMigrationName)]
pub struct Migration;

/// `post_tags.<column>` referencing `<table>.id`, its links deleted with the row they name.
fn link(name: &str, column: &'static str, table: &'static str) -> ForeignKeyCreateStatement {
    ForeignKey::create()
        .name(name)
        .from("post_tags", column)
        .to(table, "id")
        .on_delete(ForeignKeyAction::Cascade)
        .on_update(ForeignKeyAction::Cascade)
        .to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("tags")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(string_len_uniq("name", 50))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("post_tags")
                    .if_not_exists()
                    .col(integer("post_id"))
                    .col(integer("tag_id"))
                    .primary_key(Index::create().name("pk_post_tags").col("post_id").col("tag_id"))
                    .foreign_key(&mut link("fk_post_tags_post", "post_id", "posts"))
                    .foreign_key(&mut link("fk_post_tags_tag", "tag_id", "tags"))
                    .to_owned(),
            )
            .await?;
        // The key's leading column serves a post's tags; this serves a tag's posts.
        let index = Index::create().name("post_tags_tag_id").table("post_tags").col("tag_id").to_owned();
        manager.create_index(index).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table("post_tags").to_owned()).await?;
        manager.drop_table(Table::drop().table("tags").to_owned()).await
    }
}
