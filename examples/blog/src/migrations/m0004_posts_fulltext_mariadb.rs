//! On MariaDB / MySQL, the `FULLTEXT` index `FullTextSearchFilter` searches `posts` with (`MATCH (title, body)
//! AGAINST (…)` needs an index on exactly those columns). Nothing on SQLite and PostgreSQL, whose full-text search
//! `m0002_create_posts` set up with the table.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

/// Creates the `FULLTEXT` index `posts_fulltext` on `posts (title, body)` on MariaDB / MySQL.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        if db.get_database_backend() == DbBackend::MySql {
            db.execute_unprepared("CREATE FULLTEXT INDEX posts_fulltext ON posts (title, body)").await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        if db.get_database_backend() == DbBackend::MySql {
            db.execute_unprepared("DROP INDEX posts_fulltext ON posts").await?;
        }
        Ok(())
    }
}
