//! Creates `posts`, and what `FullTextSearchFilter` searches it with: on SQLite the FTS5 table `posts_fts` kept in
//! sync with `posts` by triggers; on PostgreSQL the GIN expression index the filter's query uses.

use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};
use sea_orm_migration::{prelude::*, schema::*};

/// Creates `posts` with its foreign key to `authors`.
#[derive(DeriveMigrationName)]
pub struct Migration;

const SQLITE_UP: &[&str] = &[
    "CREATE VIRTUAL TABLE posts_fts USING fts5(title, body, content='posts', content_rowid='id')",
    "CREATE TRIGGER posts_fts_insert AFTER INSERT ON posts BEGIN \
       INSERT INTO posts_fts(rowid, title, body) VALUES (new.id, new.title, new.body); END",
    "CREATE TRIGGER posts_fts_delete AFTER DELETE ON posts BEGIN \
       INSERT INTO posts_fts(posts_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body); END",
    "CREATE TRIGGER posts_fts_update AFTER UPDATE ON posts BEGIN \
       INSERT INTO posts_fts(posts_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body); \
       INSERT INTO posts_fts(rowid, title, body) VALUES (new.id, new.title, new.body); END",
    "INSERT INTO posts_fts(posts_fts) VALUES ('rebuild')",
];
const SQLITE_DOWN: &[&str] = &[
    "DROP TRIGGER posts_fts_update",
    "DROP TRIGGER posts_fts_delete",
    "DROP TRIGGER posts_fts_insert",
    "DROP TABLE posts_fts",
];
const POSTGRES_UP: &[&str] = &["CREATE INDEX posts_fulltext ON posts USING gin \
     (to_tsvector('english'::regconfig, coalesce(title, '') || ' ' || coalesce(body, '')))"];
const POSTGRES_DOWN: &[&str] = &["DROP INDEX posts_fulltext"];

/// Runs the statements of the connection's database.
async fn run(manager: &SchemaManager<'_>, sqlite: &[&str], postgres: &[&str]) -> Result<(), DbErr> {
    let db = manager.get_connection();
    let statements = match db.get_database_backend() {
        DbBackend::Sqlite => sqlite,
        DbBackend::Postgres => postgres,
        _ => &[],
    };
    for sql in statements {
        db.execute_unprepared(sql).await?;
    }
    Ok(())
}

/// `created_at`: a timestamp with time zone; on MariaDB / MySQL a `DATETIME(6)` holding UTC (the connection's time
/// zone is UTC), since a MySQL `TIMESTAMP` ends in 2038 and the API accepts dates up to 9999-12-31.
fn created_at(backend: DbBackend) -> ColumnDef {
    match backend {
        DbBackend::MySql => ColumnDef::new("created_at").custom("DATETIME(6)").not_null().to_owned(),
        _ => timestamp_with_time_zone("created_at"),
    }
}

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
                    .col(created_at(manager.get_database_backend()))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_posts_author")
                            .from("posts", "author_id")
                            .to("authors", "id")
                            .on_delete(ForeignKeyAction::Restrict),
                    )
                    .to_owned(),
            )
            .await?;
        run(manager, SQLITE_UP, POSTGRES_UP).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        run(manager, SQLITE_DOWN, POSTGRES_DOWN).await?;
        manager.drop_table(Table::drop().table("posts").to_owned()).await
    }
}
