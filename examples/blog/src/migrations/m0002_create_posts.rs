//! Creates `posts`.

use sea_orm_migration::{prelude::*, schema::*};

/// Creates `posts` with its foreign key to `authors`.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("posts")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(string_len("title", 200))
                    .col(text("body"))
                    .col(boolean("published").default(false))
                    .col(integer("views").default(0))
                    .col(double_null("rating"))
                    .col(integer("author_id"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_posts_author")
                            .from("posts", "author_id")
                            .to("authors", "id")
                            .on_delete(ForeignKeyAction::Restrict),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table("posts").to_owned()).await
    }
}
